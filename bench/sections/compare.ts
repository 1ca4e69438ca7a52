/**
 * Issues 3 and 15: two 4096² R16 files, all metrics and the block map. The target compares like with like:
 * `heightbench compare A.r16 B.r16 --json` as a user runs it (node start to exit, GNU time) ≥ 5× faster than
 * ImageMagick's `compare -metric AE` process on the same files, peak RSS ≤ 300 MB. The in-process time (a child that
 * only streams the two files and compares them, as the CLI does) is shown beside it, never as the ratio.
 */
import { spawnSync } from 'node:child_process';
import { wholeProcess, medianOf } from '../whole.js';
import { join } from 'node:path';
import { compareCodeSources } from '../../src/compare/compare.js';
import { writeHeightfieldFile } from '../../src/io/heightfield-file.js';
import { openR16Stream } from '../../src/io/r16-stream.js';
import { prestartStreamWorker } from '../../src/io/stream-worker.js';
import { codeHeightfield } from '../../src/core/heightfield.js';
import { domainGrid } from '../../src/core/grid.js';
import { BENCH_DIR, report, syntheticCodes, type BenchRow } from '../util.js';

if (process.argv[2] === '--child') {
  const [a, b] = process.argv.slice(3);
  prestartStreamWorker(); // as the CLI's entry does, before its modules load
  await new Promise((resolve) => setTimeout(resolve, 50));
  const t0 = process.hrtime.bigint();
  // As the CLI compares two sidecar R16 files: streamed, the reference read and hashed by a worker thread.
  const ref = openR16Stream(b, {}, { reader: 'worker' });
  const gen = openR16Stream(a, {});
  if (!ref || !gen) throw new Error('the bench files must stream (sidecar R16)');
  const r = compareCodeSources(gen, ref, ref.grid, ref.range);
  if (!(await ref.verified()) || !(await gen.verified())) throw new Error('the bench files did not verify');
  const ms = Number(process.hrtime.bigint() - t0) / 1e6;
  process.stdout.write(`${JSON.stringify({ ms, exact: r.exact, rssMB: process.resourceUsage().maxRSS / 1024 })}\n`);
  process.exit(0);
}

const N = 4096;
const refPath = join(BENCH_DIR, 'cmp-ref.r16');
const genPath = join(BENCH_DIR, 'cmp-gen.r16');
const ref = syntheticCodes(N, 3);
const gen = ref.slice();
// About 0.2 % of pixels off by ±1 (the article's situation) plus a 40-pixel patch off by up to 6 codes.
let s = 12345;
for (let k = 0; k < 35000; k++) {
  s = (Math.imul(s, 1103515245) + 12345) >>> 0;
  const p = s % (N * N);
  gen[p] = Math.min(65535, Math.max(0, gen[p] + (k % 2 ? 1 : -1)));
}
for (let j = 2000; j < 2040; j++) for (let i = 1000; i < 1040; i++) gen[j * N + i] += (i + j) % 7;
writeHeightfieldFile(refPath, codeHeightfield(domainGrid(N), ref));
writeHeightfieldFile(genPath, codeHeightfield(domainGrid(N), gen));

// ImageMagick reads the same R16 files as raw grey with explicit size and depth (its compare has no -endian; byte
// order does not change which pixels differ, so the AE count is comparable).
const imArgs = ['-metric', 'AE', '-size', `${N}x${N}`, '-depth', '16', `gray:${genPath}`, `gray:${refPath}`, 'null:'];
const cliArgs = [process.execPath, 'bin/heightbench.mjs', 'compare', genPath, refPath, '--json'];
const runs: { ours: number; oursRss: number; inProcess: number; inRss: number; im: number; imRss: number }[] = [];
// Interleaved, five rounds: heightbench CLI, ImageMagick, the in-process child; the medians are reported.
for (let rep = 0; rep < 5; rep++) {
  const cliRun = wholeProcess(cliArgs);
  if (cliRun.status !== 0) throw new Error(`heightbench compare exited ${cliRun.status}: ${cliRun.stderr}`);
  const exact = JSON.parse(cliRun.stdout).exact as number;
  const im = wholeProcess(['/usr/bin/compare', ...imArgs]);
  const ae = Number(im.stderr.trim());
  if (ae !== N * N - exact) throw new Error(`ImageMagick AE ${ae} vs heightbench ${N * N - exact} differing pixels`);
  const c = spawnSync(process.execPath, ['--import', 'tsx', 'bench/sections/compare.ts', '--child', genPath, refPath], { encoding: 'utf8' });
  const child = JSON.parse(c.stdout.trim());
  runs.push({ ours: cliRun.wallMs, oursRss: cliRun.peakRssMB, inProcess: child.ms, inRss: child.rssMB, im: im.wallMs, imRss: im.peakRssMB });
}
const ours = medianOf(runs.map((r) => r.ours));
const im = medianOf(runs.map((r) => r.im));
const inProcess = medianOf(runs.map((r) => r.inProcess));
const rows: BenchRow[] = [
  {
    name: 'compare 4096² R16 pair, whole process: `heightbench compare A B --json` (node start to exit, GNU time)',
    ms: ours.median,
    peer: { name: 'ImageMagick `compare -metric AE` process (count only)', ms: im.median },
    target: 'peer/ours ≥ 5× (whole process vs whole process)',
    note: `peak RSS ${Math.max(...runs.map((r) => r.oursRss)).toFixed(0)} MB (target ≤ 300 MB), ImageMagick ${Math.max(...runs.map((r) => r.imRss)).toFixed(0)} MB; ours ${ours.spread}; ImageMagick ${im.spread}`,
  },
  {
    name: '  same comparison in-process (no Node start, no module loading): both files streamed and hashed, all metrics, masks, radial, block map',
    ms: inProcess.median,
    note: `peak RSS ${Math.max(...runs.map((r) => r.inRss)).toFixed(0)} MB; ${inProcess.spread}; the rest of the whole-process time is Node start and module loading`,
  },
];
report('compare', rows);
