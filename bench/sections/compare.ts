/**
 * Issue 3 target: two 4096² R16 files, all metrics and the block map, ≥ 5× faster than ImageMagick
 * `compare -metric AE` on the same files (measured side by side), peak RSS ≤ 300 MB.
 * The heightbench side runs in a child process that only reads the two files and compares them, so its peak RSS is
 * the comparison's own.
 */
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { compareHeightfields } from '../../src/compare/compare.js';
import { readHeightfieldFile, writeHeightfieldFile } from '../../src/io/heightfield-file.js';
import { codeHeightfield } from '../../src/core/heightfield.js';
import { domainGrid } from '../../src/core/grid.js';
import { BENCH_DIR, report, syntheticCodes, type BenchRow } from '../util.js';

if (process.argv[2] === '--child') {
  const [a, b] = process.argv.slice(3);
  const t0 = process.hrtime.bigint();
  const r = compareHeightfields(readHeightfieldFile(a).field, readHeightfieldFile(b).field);
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
const runs: { ours: number; oursWall: number; im: number; rss: number }[] = [];
for (let rep = 0; rep < 3; rep++) {
  const t0 = process.hrtime.bigint();
  const c = spawnSync(process.execPath, ['--import', 'tsx', 'bench/sections/compare.ts', '--child', genPath, refPath], { encoding: 'utf8' });
  const oursWall = Number(process.hrtime.bigint() - t0) / 1e6;
  const child = JSON.parse(c.stdout.trim());
  const t1 = process.hrtime.bigint();
  const im = spawnSync('/usr/bin/compare', imArgs, { encoding: 'utf8' });
  const imMs = Number(process.hrtime.bigint() - t1) / 1e6;
  const ae = Number(im.stderr.trim());
  if (ae !== N * N - child.exact) throw new Error(`ImageMagick AE ${ae} vs heightbench ${N * N - child.exact} differing pixels`);
  runs.push({ ours: child.ms, oursWall, im: imMs, rss: child.rssMB });
}
runs.sort((a, b) => a.ours - b.ours);
const m = runs[1];
const rows: BenchRow[] = [
  {
    name: 'compare 4096² R16 pair: read both + all metrics, masks, radial, block map (in-process time)',
    ms: m.ours,
    peer: { name: 'ImageMagick compare -metric AE (count only)', ms: m.im },
    target: 'peer/ours ≥ 5×',
    note: `peak RSS ${m.rss.toFixed(0)} MB (target ≤ 300 MB); whole child process incl. Node start ${m.oursWall.toFixed(0)} ms`,
  },
];
report('compare', rows);
