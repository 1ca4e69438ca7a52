/**
 * The edit-to-report loop's heaviest DVC stage, gpucompare@tundra-r19: its three checks of 4096² whole stage dumps
 * (f32 mimic, f32 as generated, f64, each against the GPU reference, with attribution), node start to exit under GNU
 * time. Before: one after the other (the `&&` chain the stage ran); after: at once through scripts/jobs.mjs (what
 * dvc.yaml runs now). Needs the run folders of a `make reproduce` (build/, references/). One run each.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { BENCH_DIR, report, type BenchRow } from '../util.js';
import { wholeProcess } from '../whole.js';

const run = 'tundra-r19';
const checks: string[][] = [
  [`build/${run}-mimic`, `references/gpu-${run}`, 'mimic'],
  [`build/${run}`, `references/gpu-${run}`, 'd3d'],
  [`references/${run}`, `references/gpu-${run}`, 'f64'],
].map(([a, b, name]) => [
  'node',
  'bin/heightbench.mjs',
  'check',
  a,
  b,
  '--report',
  join(BENCH_DIR, 'loop', name),
  '--attribution',
  '--shared-plotly',
  join(BENCH_DIR, 'loop', 'plotly.min.js'),
]);
for (const c of checks)
  for (const p of [c[3], c[4]]) if (!existsSync(p)) throw new Error(`${p} is missing: run make reproduce first (the loop bench reads its run folders)`);

const rows: BenchRow[] = [];
const serial = wholeProcess(['sh', '-c', checks.map((c) => c.map((a) => `'${a}'`).join(' ')).join(' && ')]);
if (serial.status !== 0) throw new Error(`the checks one after the other exited ${serial.status}: ${serial.stderr.slice(-2000)}`);
rows.push({
  name: `gpucompare@${run}: three checks one after the other (before)`,
  ms: serial.wallMs,
  note: `whole process; peak RSS of one ${serial.peakRssMB.toFixed(0)} MB`,
});
const parallel = wholeProcess(['node', 'scripts/jobs.mjs', ...checks.flatMap((c, i) => (i ? [':::', ...c] : c))]);
if (parallel.status !== 0) throw new Error(`the checks through jobs.mjs exited ${parallel.status}: ${parallel.stderr.slice(-2000)}`);
rows.push({
  name: `gpucompare@${run}: three checks at once, scripts/jobs.mjs (after)`,
  ms: parallel.wallMs,
  peer: { name: 'one after the other', ms: serial.wallMs },
  note: 'whole process',
});
report('loop', rows);
