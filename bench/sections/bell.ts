/**
 * Issue 4 targets: fast ≥ 100× naive at 1024² with 100 generators (side by side); 4096² with 200 generators ≤ 2 s.
 * Both the exact fast path (tolerance 0, the default) and the tolerance path (1e-12 absolute) are measured; the
 * 1024² fast rows are the median of 7 runs after 2 warm-ups (each takes ~10–20 ms).
 */
import { accumulateFast, accumulateNaive, bellHelperReady, maxRelativeDeviation } from '../../src/bell/bell-sum.js';
import { report, timeMedian, type BenchRow } from '../util.js';

const p1024 = { seed: 1, nb: 100, p1: 0.5, p2: 30, p3: 3, size: 1024 };
const out = new Float64Array(1024 * 1024);
let naive: Float64Array = new Float64Array(0);
const tNaive = timeMedian(
  () => {
    naive = accumulateNaive(p1024, new Float64Array(1024 * 1024));
  },
  1,
  0,
);
// The fast path splits its rows with a helper thread once that thread is up (steady state; see src/bell/helper.ts).
const helper = await bellHelperReady();
/** Median of 7 fast-path runs at 1024² (after 2 warm-ups), with `env` set for the duration. */
const timeFast = (tolerance: number, env: Record<string, string> = {}) => {
  Object.assign(process.env, env);
  try {
    return timeMedian(
      () => {
        out.fill(0);
        accumulateFast(p1024, out, tolerance);
      },
      7,
      2,
    );
  } finally {
    for (const k of Object.keys(env)) delete process.env[k];
  }
};
const tFast = timeFast(0);
const dev = maxRelativeDeviation(out, naive);
// One thread only, and the JavaScript loop; same bits.
const tFastOne = timeFast(0, { HEIGHTBENCH_NO_THREADS: '1' });
const tFastJs = timeFast(0, { HEIGHTBENCH_NO_WASM: '1' });
const tTol = timeFast(1e-12);
let maxAbsTol = 0;
for (let k = 0; k < out.length; k++) maxAbsTol = Math.max(maxAbsTol, Math.abs(out[k] - naive[k]));

const p4096 = { seed: 1, nb: 200, p1: 0.5, p2: 30, p3: 3, size: 4096 };
const big = new Float64Array(4096 * 4096);
const t4096 = timeMedian(
  () => {
    big.fill(0);
    accumulateFast(p4096, big);
  },
  1,
  0,
);
const t4096tol = timeMedian(
  () => {
    big.fill(0);
    accumulateFast(p4096, big, 1e-12);
  },
  1,
  0,
);

const rows: BenchRow[] = [
  {
    name: 'bell 1024², 100 generators, fast (exact, tolerance 0)',
    ms: tFast,
    peer: { name: 'naive (seed loops)', ms: tNaive },
    target: 'peer/ours ≥ 100×',
    note: `max relative deviation ${dev.toExponential(2)}; helper thread ${helper ? 'on' : 'unavailable'}`,
  },
  { name: 'bell 1024², 100 generators, fast, one thread (HEIGHTBENCH_NO_THREADS=1)', ms: tFastOne, peer: { name: 'naive (seed loops)', ms: tNaive } },
  { name: 'bell 1024², 100 generators, fast, JavaScript loop (HEIGHTBENCH_NO_WASM=1)', ms: tFastJs, peer: { name: 'naive (seed loops)', ms: tNaive } },
  {
    name: 'bell 1024², 100 generators, fast with tolerance 1e-12',
    ms: tTol,
    peer: { name: 'naive (seed loops)', ms: tNaive },
    target: 'peer/ours ≥ 100×',
    note: `max |Δ| ${maxAbsTol.toExponential(2)} (bound 1e-10)`,
  },
  { name: 'bell 4096², 200 generators, fast (exact)', ms: t4096, target: '≤ 2000 ms' },
  { name: 'bell 4096², 200 generators, fast with tolerance 1e-12', ms: t4096tol, target: '≤ 2000 ms' },
];
report('bell', rows);
