/**
 * Pipeline targets (issues 5–7):
 *  - layout + sources + corners for tundra-r19 ≤ 150 ms;
 *  - raster + smoothing at 4096², f32 ≤ 400 ms, peak RSS ≤ 500 MB, with the same chain in numpy/OpenCV side by side;
 *  - the whole tundra-r19 run at 4096², f32 ≤ 1.5 s (goal 1.0 s), peak RSS ≤ 600 MB, per-stage times and each
 *    stage's cost in full-field memory passes (stage time / time of one 64 MiB copy).
 * Heavy measurements run in child processes so each peak RSS is its own; each is repeated three times (median shown).
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { planRequest } from '../../src/pipeline/inputs.js';
import { buildBase } from '../../test/oracles/direct-path.js';
import { loadRequest } from '../../src/plan/request.js';
import { runPipeline } from '../../src/pipeline/run.js';
import { ensureAssets } from '../../src/pipeline/inputs.js';
import { BENCH_DIR, report, timeMedian, type BenchRow } from '../util.js';

const mode = process.argv[2];
const rss = () => process.resourceUsage().maxRSS / 1024;

if (mode === '--base') {
  const plan = planRequest(loadRequest('tundra-r19'));
  const t0 = performance.now();
  const b = buildBase(plan, 4096, 'f32');
  const ms = performance.now() - t0;
  const raster = b.raster!; // buildBase keeps the raster by default
  writeFileSync(join(BENCH_DIR, 'raster4096.r32'), new Uint8Array(raster.buffer, raster.byteOffset, raster.byteLength));
  writeFileSync(join(BENCH_DIR, 'base4096.r32'), new Uint8Array(b.base.buffer, b.base.byteOffset, b.base.byteLength));
  process.stdout.write(`${JSON.stringify({ ms, rssMB: rss(), timings: b.stats.timings })}\n`);
  process.exit(0);
}
if (mode === '--run') {
  const req = loadRequest('tundra-r19');
  ensureAssets(planRequest(req).world); // built beforehand; the run below only loads them
  const t0 = performance.now();
  const r = runPipeline(req, { precision: 'f32' });
  const ms = performance.now() - t0;
  const rssMB = rss(); // before the copy measurement below allocates its own arrays
  // One 64 MiB copy: the unit of a "full-field memory pass".
  const a = new Float32Array(4096 * 4096).fill(1);
  const b = new Float32Array(4096 * 4096);
  const copyMs = timeMedian(() => b.set(a), 5, 1);
  process.stdout.write(`${JSON.stringify({ ms, rssMB, copyMs, timings: r.manifest.timingsMs })}\n`);
  process.exit(0);
}

const rows: BenchRow[] = [];
const req = loadRequest('tundra-r19');
const planMs = timeMedian(() => planRequest(req), 5, 2);
rows.push({ name: 'plan: recipe + regions + layout + sources + corners (tundra-r19)', ms: planMs, target: '≤ 150 ms' });

const child = (arg: string) => {
  const c = spawnSync(process.execPath, ['--max-old-space-size=4096', '--import', 'tsx', 'bench/sections/pipeline.ts', arg], { encoding: 'utf8' });
  if (c.status !== 0) throw new Error(`child ${arg} failed: ${c.stderr}`);
  return JSON.parse(c.stdout.trim().split('\n').pop() ?? '{}');
};
/** [R] Each heavy measurement is a fresh process run three times; the median run is reported (min–max in the note). */
const median3 = (arg: string) => {
  const runs = [child(arg), child(arg), child(arg)].sort((a, b) => a.ms - b.ms);
  return { ...runs[1], spread: `runs ${runs.map((r) => r.ms.toFixed(0)).join(' / ')} ms` };
};
const base = median3('--base');
let peer: { ms: number } | null = null;
let peerDiff = Number.NaN;
let peerMissing = '/usr/bin/python3 is missing';
if (existsSync('/usr/bin/python3')) {
  const p = spawnSync('/usr/bin/python3', ['bench/peers/smoothing_chain.py', join(BENCH_DIR, 'raster4096.r32'), '4096', join(BENCH_DIR, 'base4096-cv.r32')], {
    encoding: 'utf8',
    env: { ...process.env, OMP_NUM_THREADS: '1' },
  });
  peerMissing = (p.stderr ?? '').trim().split('\n').pop() ?? `exit ${p.status}`;
  if (p.status === 0) {
    peer = JSON.parse(p.stdout.trim());
    const ours = new Float32Array(readFileSync(join(BENCH_DIR, 'base4096.r32')).buffer.slice(0));
    const cv = new Float32Array(readFileSync(join(BENCH_DIR, 'base4096-cv.r32')).buffer.slice(0));
    peerDiff = 0;
    for (let k = 0; k < ours.length; k++) peerDiff = Math.max(peerDiff, Math.abs(ours[k] - cv[k]));
  }
}
const smoothingMs = base.timings.smoothing as number;
rows.push({
  name: 'raster + smoothing, tundra-r19 4096², f32',
  ms: base.ms,
  target: '≤ 400 ms, peak RSS ≤ 500 MB',
  note: `raster ${base.timings.raster.toFixed(0)} ms, smoothing ${smoothingMs.toFixed(0)} ms; peak RSS ${base.rssMB.toFixed(0)} MB; ${base.spread}`,
});
if (!peer) {
  rows.push({
    name: 'smoothing chain alone (heightbench, f32 rounding at every step)',
    ms: smoothingMs,
    note: `numpy/OpenCV peer unavailable (${peerMissing}); make bench installs python3-numpy and python3-opencv`,
  });
} else {
  rows.push({
    name: 'smoothing chain alone (heightbench, f32 rounding at every step)',
    ms: smoothingMs,
    peer: { name: 'numpy/OpenCV, 1 thread, float32', ms: peer.ms },
    note: `max |difference| of the two base fields ${(peerDiff * 1000).toFixed(4)} mm`,
  });
}
const run = median3('--run');
rows.push({
  name: 'whole tundra-r19 run, 4096², f32 (assets prebuilt)',
  ms: run.ms,
  target: '≤ 1500 ms (goal 1000), peak RSS ≤ 600 MB',
  note: `peak RSS ${run.rssMB.toFixed(0)} MB; one 64 MiB copy ${run.copyMs.toFixed(1)} ms; ${run.spread}`,
});
for (const [k, v] of Object.entries(run.timings as Record<string, number>)) {
  if (k === 'assets') continue;
  rows.push({ name: `  stage ${k}`, ms: v, note: `${(v / run.copyMs).toFixed(1)} full-field passes` });
}
report('pipeline', rows);
