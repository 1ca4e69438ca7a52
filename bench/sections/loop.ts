/**
 * The edit-to-report loop's heaviest DVC stage, gpucompare@tundra-r19: its three checks of 4096² whole stage dumps
 * (f32 mimic, f32 as generated, f64, each against the GPU reference, with attribution) and its stage hashes, node
 * start to exit under GNU time, wall and CPU. First: one process after another (the `&&` chain the stage ran);
 * then: the checks at once through scripts/jobs.mjs (the stage before this stop); now: one process through
 * scripts/checks.mjs, the reference read once and the verified digests lent to stage-hashes (what dvc.yaml runs). In
 * make reproduce the other stages fill both cores, so the CPU column is what the loop pays. Needs the run folders of a
 * `make reproduce` (build/, references/). One run each.
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

const hashes = ['node', 'scripts/stage-hashes.mjs', `build/${run}-mimic`, `references/gpu-${run}`, join(BENCH_DIR, 'loop', 'hashes.json')];
const shell = (argv: string[]) => argv.map((a) => `'${a}'`).join(' ');
const cpu = (r: { cpuMs: number }) => `${(r.cpuMs / 1000).toFixed(1)} s of CPU`;
const rows: BenchRow[] = [];
const serial = wholeProcess(['sh', '-c', [...checks, hashes].map(shell).join(' && ')]);
if (serial.status !== 0) throw new Error(`the checks one after the other exited ${serial.status}: ${serial.stderr.slice(-2000)}`);
rows.push({
  name: `gpucompare@${run}: three checks and the stage hashes, one process after another`,
  ms: serial.wallMs,
  note: `whole process, ${cpu(serial)}; peak RSS of one ${serial.peakRssMB.toFixed(0)} MB`,
});
const parallel = wholeProcess(['sh', '-c', `${shell(['node', 'scripts/jobs.mjs', ...checks.flatMap((c, i) => (i ? [':::', ...c] : c))])} && ${shell(hashes)}`]);
if (parallel.status !== 0) throw new Error(`the checks through jobs.mjs exited ${parallel.status}: ${parallel.stderr.slice(-2000)}`);
rows.push({
  name: `gpucompare@${run}: the checks at once (scripts/jobs.mjs), then the stage hashes (last stop)`,
  ms: parallel.wallMs,
  peer: { name: 'one after another', ms: serial.wallMs },
  note: `whole process, ${cpu(parallel)}`,
});
const one = wholeProcess(['node', 'scripts/checks.mjs', ...[...checks, hashes].flatMap((c, i) => (i ? [':::', ...c] : c))]);
if (one.status !== 0) throw new Error(`the checks through checks.mjs exited ${one.status}: ${one.stderr.slice(-2000)}`);
rows.push({
  name: `gpucompare@${run}: one process, scripts/checks.mjs (now)`,
  ms: one.wallMs,
  peer: { name: 'one after another', ms: serial.wallMs },
  note: `whole process, ${cpu(one)} (the checks at once: ${cpu(parallel)}); peak RSS ${one.peakRssMB.toFixed(0)} MB`,
});
report('loop', rows);
