/**
 * `heightbench sweep` and `heightbench coverage`, whole process as a user times them (wall clock), on a sample that is
 * extrapolated to the sizes (the extrapolation is linear in requests: say so beside each figure):
 *  - tundra-r19 at 256², f32 against f64, final only, embedded local cluster of 2 workers: N seeds (BENCH_SWEEP_SEEDS,
 *    default 50) → the time for 1,000 (target ≤ 10 min);
 *  - the same batches run directly — the same `heightbench sweep-batch` processes, two at a time, without Dask — and
 *    Dask's overhead over them (target ≤ 5 %);
 *  - at 4096², f32 against f64, final only: BENCH_SWEEP_4096 seeds (default 2) → the time for 16 (target ≤ 3 min);
 *  - coverage of N seeds, planning only → the time for 1,000 (target ≤ 2 min).
 */
import { spawn } from 'node:child_process';
import { rmSync, writeFileSync } from 'node:fs';
import { availableParallelism, loadavg } from 'node:os';
import { join } from 'node:path';
import { loadRequest } from '../../src/plan/request.js';
import { expandSweep, parseSeeds } from '../../src/sweep/requests.js';
import { BENCH_DIR, report, type BenchRow } from '../util.js';
import { wholeProcess } from '../whole.js';

const N = Number(process.env.BENCH_SWEEP_SEEDS ?? 50);
const N4096 = Number(process.env.BENCH_SWEEP_4096 ?? 2);
const rows: BenchRow[] = [];
const hb = [process.execPath, 'bin/heightbench.mjs'];

/** Wall and CPU (every process: the driver, the Dask threads, each batch's Node process) of one sweep. */
function sweepWall(size: number, seeds: number, batch: number): { wall: number; cpu: number } {
  const out = join(BENCH_DIR, `sweep-${size}`);
  rmSync(out, { recursive: true, force: true });
  const r = wholeProcess([
    ...hb,
    'sweep',
    'tundra-r19',
    '--seeds',
    `1-${seeds}`,
    '--size',
    String(size),
    '--detail',
    'final',
    '--workers',
    '2',
    '--batch',
    String(batch),
    '--no-report',
    '--out',
    out,
  ]);
  if (r.status !== 0) throw new Error(`heightbench sweep exited ${r.status}: ${r.stderr}`);
  return { wall: r.wallMs, cpu: r.cpuMs };
}

/** [R] On a shared machine the wall clock measures the other load too; the CPU over the cores is the idle machine's floor. */
const load = () => `load average ${loadavg()[0].toFixed(1)} on ${availableParallelism()} cores`;

/** The same batches as `sweep --batch B`, each a sweep-batch process, two at a time, no Dask. */
async function directWall(size: number, seeds: number, batch: number): Promise<number> {
  const base = loadRequest('tundra-r19', size);
  const { id, ...fields } = base;
  const items = expandSweep({
    base: id,
    request: { format: 'heightbench.request', version: 1, id, ...fields },
    seeds: parseSeeds(`1-${seeds}`),
    vary: [],
    size,
  });
  const files: string[] = [];
  for (let k = 0; k < items.length; k += batch) {
    const f = join(BENCH_DIR, `batch-${k}.json`);
    writeFileSync(f, JSON.stringify({ items: items.slice(k, k + batch), against: 'f64', detail: 'final' }));
    files.push(f);
  }
  const t0 = performance.now();
  let next = 0;
  const lane = async () => {
    while (next < files.length) {
      const f = files[next++];
      await new Promise<void>((res, rej) => {
        const p = spawn(hb[0], [hb[1], 'sweep-batch', f], { stdio: ['ignore', 'ignore', 'inherit'] });
        p.on('exit', (c) => (c === 0 ? res() : rej(new Error(`sweep-batch exited ${c}`))));
      });
    }
  };
  await Promise.all([lane(), lane()]);
  return performance.now() - t0;
}

const batch = Math.max(1, Math.ceil(N / 8));
const dask = sweepWall(256, N, batch);
const viaDask = dask.wall;
const direct = await directWall(256, N, batch);
rows.push({
  name: `sweep ${N} seeds of tundra-r19 at 256², f32 vs f64, final only, local cluster of 2 workers (batches of ${batch})`,
  ms: viaDask,
  target: '1,000 seeds ≤ 10 min',
  note: `${(viaDask / N).toFixed(0)} ms a seed → 1,000 seeds ≈ ${(((viaDask / N) * 1000) / 60000).toFixed(1)} min (linear extrapolation); CPU ${(dask.cpu / N).toFixed(0)} ms a seed → ≥ ${(((dask.cpu / N) * 1000) / availableParallelism() / 60000).toFixed(1)} min on ${availableParallelism()} idle cores; ${load()}`,
});
rows.push({
  name: `the same ${Math.ceil(N / batch)} batches run directly (sweep-batch processes, two at a time, no Dask)`,
  ms: direct,
  target: "Dask's overhead ≤ 5 %",
  note: `Dask's overhead ${(((viaDask - direct) / direct) * 100).toFixed(1)} % (${(viaDask - direct).toFixed(0)} ms: client and cluster start and close, scheduling)`,
});
if (N4096 > 0) {
  const bigRun = sweepWall(4096, N4096, 1);
  const big = bigRun.wall;
  rows.push({
    name: `sweep ${N4096} seeds at 4096², f32 vs f64, final only, 2 workers`,
    ms: big,
    target: '16 seeds ≤ 3 min',
    note: `${(big / N4096 / 1000).toFixed(1)} s a seed → 16 seeds ≈ ${(((big / N4096) * 16) / 60000).toFixed(1)} min (linear extrapolation); CPU ${(bigRun.cpu / N4096 / 1000).toFixed(1)} s a seed → ≥ ${(((bigRun.cpu / N4096) * 16) / availableParallelism() / 60000).toFixed(1)} min on ${availableParallelism()} idle cores; ${load()}`,
  });
}
const cov = wholeProcess([...hb, 'coverage', 'tundra-r19', '--seeds', `1-${N}`, '--json']);
if (cov.status !== 0) throw new Error(`heightbench coverage exited ${cov.status}: ${cov.stderr}`);
rows.push({
  name: `coverage of ${N} seeds (planning only), whole process`,
  ms: cov.wallMs,
  target: '1,000 seeds ≤ 2 min',
  note: `→ 1,000 seeds ≈ ${(((cov.wallMs / N) * 1000) / 60000).toFixed(1)} min (linear extrapolation; one process start included once); CPU ${cov.cpuMs.toFixed(0)} ms; ${load()}`,
});
report('sweep', rows);
