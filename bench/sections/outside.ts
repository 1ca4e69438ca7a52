/**
 * Outside containers, whole process as a user times them (node start to exit, GNU time), beside in-process figures:
 *  - compare of a 4096² float32 tiled deflate GeoTIFF (written by GDAL through rasterio) against an R16 reference,
 *    against the same comparison with the generated side as .r32 (target ≤ 1.5×);
 *  - `info` of every supported outside container at 4096² (target ≤ 0.5 s each).
 * The files are written by the independent peers (rasterio, numpy, OpenEXR, the documented-layout DDS writer).
 */
import { spawnSync } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { domainGrid } from '../../src/core/grid.js';
import { codeHeightfield, floatHeightfield } from '../../src/core/heightfield.js';
import { readHeightfieldFileAsync, writeHeightfieldFile } from '../../src/io/heightfield-file.js';
import { BENCH_DIR, report, syntheticCodes, type BenchRow } from '../util.js';
import { medianOf, wholeProcess } from '../whole.js';

const N = 4096;
const rows: BenchRow[] = [];
const codes = syntheticCodes(N);
const grid = domainGrid(N);
const heights = Float32Array.from(codes, (q) => (q * 1000) / 65535 - 500 + 0.003);
const ref = join(BENCH_DIR, 'outside-ref.r16');
writeHeightfieldFile(ref, codeHeightfield(grid, codes));
const r32 = join(BENCH_DIR, 'outside-gen.r32');
writeHeightfieldFile(r32, floatHeightfield(grid, heights));
const raw = join(BENCH_DIR, 'outside-gen-raw.f32');
writeFileSync(raw, Buffer.from(heights.buffer));

const py = join('.venv', 'bin', 'python');
const files = {
  tif: join(BENCH_DIR, 'outside-gen.tif'),
  npy: join(BENCH_DIR, 'outside-gen.npy'),
  exr: join(BENCH_DIR, 'outside-gen.exr'),
  dds: join(BENCH_DIR, 'outside-gen.dds'),
};
if (!Object.values(files).every(existsSync)) {
  const r = spawnSync(
    py,
    [
      '-c',
      `
import sys, numpy as np, rasterio, OpenEXR
from rasterio.transform import from_origin
sys.path.insert(0, 'examples/external-reconstruction')
from reconstruct import write_dds_r16_unorm
a = np.fromfile(${JSON.stringify(raw)}, '<f4').reshape(${N}, ${N})
north = np.flipud(a)
with rasterio.open(${JSON.stringify(files.tif)}, 'w', driver='GTiff', width=${N}, height=${N}, count=1, dtype='float32', compress='deflate',
                   predictor=3, tiled=True, blockxsize=256, blockysize=256, transform=from_origin(-1024, 1024, 0.5, 0.5)) as ds:
    ds.write(north, 1)
np.save(${JSON.stringify(files.npy)}, north)
OpenEXR.File({'compression': OpenEXR.ZIP_COMPRESSION, 'type': OpenEXR.scanlineimage}, {'Y': north.copy()}).write(${JSON.stringify(files.exr)})
write_dds_r16_unorm(${JSON.stringify(files.dds)}, np.flipud(np.fromfile(${JSON.stringify(ref)}, '<u2').reshape(${N}, ${N})))
`,
    ],
    { encoding: 'utf8' },
  );
  if (r.status !== 0) throw new Error(`peer writers failed: ${r.stderr}`);
}

const hb = ['node', 'bin/heightbench.mjs'];
const times = (argv: string[], n = 5) => {
  const runs = [];
  for (let k = 0; k < n; k++) {
    const w = wholeProcess([...hb, ...argv]);
    if (w.status !== 0) throw new Error(`${argv.join(' ')} exited ${w.status}: ${w.stderr}`);
    runs.push(w);
  }
  return { ...medianOf(runs.map((w) => w.wallMs)), rss: Math.max(...runs.map((w) => w.peakRssMB)) };
};
const cmp = (gen: string) => ['compare', gen, ref, '--json'];
const viaR32 = times(cmp(r32));
const viaTif = times(cmp(files.tif));
rows.push({ name: 'compare 4096² .r32 (sidecar) vs R16, whole process', ms: viaR32.median, note: `${viaR32.spread}, ≤ ${viaR32.rss.toFixed(0)} MB` });
rows.push({
  name: 'compare 4096² float32 tiled deflate GeoTIFF (GDAL) vs R16, whole process',
  ms: viaTif.median,
  target: '≤ 1.5× the .r32 comparison',
  note: `${(viaTif.median / viaR32.median).toFixed(2)}× the .r32 comparison; ${viaTif.spread}, ≤ ${viaTif.rss.toFixed(0)} MB`,
});
for (const [kind, file, flags] of [
  ['GeoTIFF float32 tiled deflate', files.tif, []],
  ['.npy float32', files.npy, []],
  ['OpenEXR FLOAT ZIP', files.exr, []],
  ['DDS R16_UNORM', files.dds, []],
] as const) {
  const t = times(['info', file, '--json', ...flags], 3);
  rows.push({ name: `info 4096² ${kind}, whole process`, ms: t.median, target: '≤ 500 ms', note: `${t.spread}, ≤ ${t.rss.toFixed(0)} MB` });
}
// In-process: the read alone (bytes → decoded field), best of three after a warm-up.
for (const [kind, file] of Object.entries(files)) {
  await readHeightfieldFileAsync(file, { assumeDefaults: true });
  let best = Infinity;
  for (let k = 0; k < 3; k++) {
    const t0 = performance.now();
    await readHeightfieldFileAsync(file, { assumeDefaults: true });
    best = Math.min(best, performance.now() - t0);
  }
  rows.push({ name: `read 4096² .${kind} in-process (bytes → field)`, ms: best });
}
report('outside', rows);
