/**
 * Issue 41, items 1–2: each reader against the tool a researcher would use instead, whole process against whole
 * process (node start to exit against Python start to exit, GNU time), pairs interleaved A B A B in one run so that a
 * busy machine slows both alike. Ours: `heightbench info FILE --json` (read, verify, summarize: the finite min and
 * max, the non-finite counts). The peer: bench/peers/readers.py `read` (rasterio for GeoTIFF, numpy.load for .npy, the
 * OpenEXR bindings for EXR, numpy on the payload for DDS), then the finite min and max. The files are written by the
 * peers (readers.py `write`): 4096² float32, GeoTIFF tiled and striped × deflate and LZW × predictors 2 and 3; .npy C
 * and Fortran order × both byte orders; EXR ZIP, ZIPS, PIZ, RLE, NONE × HALF and FLOAT × scanline and tiled; DDS
 * R16_UNORM and R32_FLOAT.
 * Then `compare` of an outside file against an R16 reference — the GeoTIFF and the .npy above, unrelated to it (every
 * pixel differs), and a float32 .npy reconstruction close to it (readers.py `near`) — and of two R16 finals, each
 * against a numpy (+ rasterio) script doing the same count, histogram and RMS (bench/peers/compare_peer.py).
 * Each row: the median of the per-pair ratios peer / ours (> 1: ours is faster), and each side's median wall and CPU.
 * HEIGHTBENCH_BENCH_PAIRS sets the pairs per file (default 5); HEIGHTBENCH_BENCH_FILES=a,b keeps the rows of those
 * files (gen.r16 for the two finals); `npm run bench -- readers` runs it.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { domainGrid } from '../../src/core/grid.js';
import { codeHeightfield } from '../../src/core/heightfield.js';
import { writeHeightfieldFile } from '../../src/io/heightfield-file.js';
import { BENCH_DIR, report, syntheticCodes, type BenchRow } from '../util.js';
import { wholeProcess, type WholeRun } from '../whole.js';

const N = 4096;
const pairs = Number(process.env.HEIGHTBENCH_BENCH_PAIRS ?? 5);
const py = join('.venv', 'bin', 'python');
const dir = join(BENCH_DIR, 'readers');
const rows: BenchRow[] = [];
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

if (!existsSync(join(dir, 'r32.dds'))) {
  mkdirSync(dir, { recursive: true });
  const w = spawnSync(py, ['bench/peers/readers.py', 'write', dir, String(N)], { encoding: 'utf8' });
  if (w.status !== 0) throw new Error(`readers.py write failed: ${w.stderr}`);
}

function run(argv: string[]): WholeRun {
  const r = wholeProcess(argv);
  if (r.status !== 0) throw new Error(`${argv.join(' ')} exited ${r.status}: ${r.stderr}`);
  return r;
}

/** Interleaved pairs of our command and the peer's; one row. */
function pair(name: string, ours: string[], peer: string[], peerName: string, target: string): void {
  const a: WholeRun[] = [];
  const b: WholeRun[] = [];
  const ratios: number[] = [];
  for (let k = 0; k < pairs; k++) {
    const [x, y] = k % 2 ? [run(peer), run(ours)] : [run(ours), run(peer)];
    const [me, them] = k % 2 ? [y, x] : [x, y];
    a.push(me);
    b.push(them);
    ratios.push(them.wallMs / me.wallMs);
  }
  const fmt = (rs: WholeRun[]) => `wall ${median(rs.map((r) => r.wallMs)).toFixed(0)} ms, CPU ${median(rs.map((r) => r.cpuMs)).toFixed(0)} ms`;
  rows.push({
    name,
    ms: median(a.map((r) => r.wallMs)),
    peer: { name: peerName, ms: median(b.map((r) => r.wallMs)) },
    target,
    note: `peer/ours median of pair ratios ${median(ratios).toFixed(2)}× (CPU ${(median(b.map((r) => r.cpuMs)) / median(a.map((r) => r.cpuMs))).toFixed(2)}×); ours ${fmt(a)}; peer ${fmt(b)}`,
  });
}

const hb = [process.execPath, 'bin/heightbench.mjs'];
// The peers' files only (the folder also holds the compare pair and its sidecars, written below).
const kindOf = (f: string) =>
  f.endsWith('.tif') ? 'tif' : f.endsWith('.npy') ? 'npy' : f.endsWith('.exr') ? 'exr' : f === 'r16.dds' ? 'dds-r16' : f === 'r32.dds' ? 'dds-r32' : null;
// The close reconstruction (written below from the compare reference) has a compare row, not an `info` row.
const near = 'near-C-le.npy';
const only = process.env.HEIGHTBENCH_BENCH_FILES?.split(',');
for (const f of readdirSync(dir).sort()) {
  if ((only && !only.includes(f)) || f === near) continue;
  const kind = kindOf(f);
  if (!kind) continue;
  const peerName = { tif: 'rasterio (GDAL)', npy: 'numpy.load', exr: 'OpenEXR bindings', 'dds-r16': 'numpy on the payload', 'dds-r32': 'numpy on the payload' }[
    kind
  ];
  const path = join(dir, f);
  pair(`info ${f} (4096²), whole process`, [...hb, 'info', path, '--json'], [py, 'bench/peers/readers.py', 'read', kind, path], peerName!, 'ratio ≥ 1');
}

// compare: an outside file and an R16 final against an R16 reference, against the numpy (+ rasterio) script.
const ref = join(dir, 'ref.r16');
const gen = join(dir, 'gen.r16');
if (!existsSync(ref)) {
  const codes = syntheticCodes(N);
  writeHeightfieldFile(ref, codeHeightfield(domainGrid(N), codes));
  const other = codes.slice();
  for (let k = 0; k < 938; k++) other[(k * 7919 * 4099) % other.length] += 3;
  writeHeightfieldFile(gen, codeHeightfield(domainGrid(N), other));
  writeFileSync(join(dir, '.ready'), '');
}
// A reconstruction close to the reference (numpy writes it from the reference: 99 % of the codes equal), beside the
// unrelated files above, whose every pixel differs.
if (!existsSync(join(dir, near))) {
  const w = spawnSync(py, ['bench/peers/readers.py', 'near', ref, join(dir, near)], { encoding: 'utf8' });
  if (w.status !== 0) throw new Error(`readers.py near failed: ${w.stderr}`);
}
// HEIGHTBENCH_BENCH_FILES names compare rows too: gen.r16 for the two finals, or the outside file.
const peer = (a: string) => [py, 'bench/peers/compare_peer.py', a, ref];
if (!only || only.includes('gen.r16'))
  pair('compare two R16 finals (938 differing), whole process', [...hb, 'compare', gen, ref, '--json'], peer(gen), 'numpy script', 'ratio ≥ 2');
for (const f of ['tiled-deflate-p3.tif', 'C-le.npy', near])
  if (!only || only.includes(f))
    pair(
      `compare ${f} against an R16 reference, whole process`,
      [...hb, 'compare', join(dir, f), ref, '--json', '--assume-defaults'],
      peer(join(dir, f)),
      'numpy + rasterio script',
      'ratio ≥ 1',
    );
report('readers', rows);
