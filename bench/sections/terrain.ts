/**
 * Issue 20 targets: composite of a 4097² terrain with three sparse one-hill layers ≤ 150 ms resolved; compositeAt for
 * 10⁶ random samples ≤ 200 ms; a CDLOD selection over a 4 km terrain at depth 8 ≤ 1 ms. Plus the whole process of
 * `heightbench terrain collision` on the seed's example (four tiles of 128 samples), node start to exit.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { minstdRand0 } from '../../src/core/minstd.js';
import { HeightfieldPatchSource, minimalRanges, PatchList, PatchSelector } from '../../src/terrain/cdlod.js';
import { addKindLayer, stampHill } from '../../src/terrain/kinds.js';
import { createTerrain } from '../../src/terrain/terrain.js';
import { BENCH_DIR, report, timeMedian, type BenchRow } from '../util.js';

const rows: BenchRow[] = [];
const t = createTerrain({ kind: 'lod', tileSamples: 129, tilesX: 32, tilesY: 32, metresPerQuad: 1, range: { min: -100, max: 400 } });
const s = t.stack;
const N = s.width; // 4097
for (const [k, [ci, cj, r, h]] of [
  [1000, 1200, 150, 80],
  [2500, 3000, 250, 120],
  [3600, 700, 100, -40],
].entries()) {
  addKindLayer(s, `hill ${k}`, 'sculpt');
  stampHill(s, k, ci, cj, r, h);
}
const chunks = s.layers.reduce((a, l) => a + l.chunks.size, 0);
const resolveMs = timeMedian(() => {
  s.invalidateAll();
  s.resolve();
});
rows.push({
  name: `composite ${N}² with three one-hill layers (${chunks} chunks touched), all tiles invalidated then resolved`,
  ms: resolveMs,
  target: '≤ 150 ms',
});

const g = minstdRand0(5);
const is = new Int32Array(1e6);
const js = new Int32Array(1e6);
for (let k = 0; k < 1e6; k++) {
  is[k] = g.next() % N;
  js[k] = g.next() % N;
}
let sink = 0;
const pointMs = timeMedian(() => {
  let acc = 0; // float64 running sum, only to keep the calls alive
  for (let k = 0; k < 1e6; k++) acc += s.compositeAt(is[k], js[k]);
  sink += acc;
});
const outMany = new Float32Array(1e6);
const manyMs = timeMedian(() => {
  s.compositeAtMany(is, js, outMany);
});
for (let k = 0; k < 1e6; k += 997) if (outMany[k] !== s.compositeAt(is[k], js[k])) throw new Error('compositeAtMany differs from compositeAt');
const floorMs = timeMedian(() => {
  let acc = 0;
  for (let k = 0; k < 1e6; k++) acc += s.base[js[k] * N + is[k]];
  sink += acc;
});
rows.push({
  name: 'compositeAt for 10⁶ random samples (the definition: base + every visible layer, no cache)',
  ms: pointMs,
  target: '≤ 200 ms',
  note: `memory floor — one random read of the ${((N * N * 4) / 2 ** 20).toFixed(0)} MiB base per sample, nothing else: ${floorMs.toFixed(1)} ms`,
});
rows.push({ name: 'compositeAtMany for the same 10⁶ samples (base reads first, then each layer; same float32 results)', ms: manyMs, target: '≤ 200 ms' });

// CDLOD over the resolved composite: 4096 m, depth 8 (leaves of 32 m, 16-quad patches at 2 m).
s.resolve();
const depth = 8;
const t0 = process.hrtime.bigint();
const source = new HeightfieldPatchSource(s.cached(), N, depth);
const buildMs = Number(process.hrtime.bigint() - t0) / 1e6;
const b = new Float64Array(2);
source.bounds(depth - 1, 0, 0, b);
const span = b[1] - b[0];
const sel = new PatchSelector({ x0: 0, z0: 0, size: 4096, depth, ranges: minimalRanges(4096, depth, span), heightSpan: span });
const list = new PatchList(4096);
let patches = 0;
const selectMs = timeMedian(
  () => {
    const n = sel.select(source, 1800, 150, 2100, null);
    patches = sel.select(source, 1800, 150, 2100, list);
    if (n !== patches) throw new Error('count and fill disagree');
  },
  101,
  20,
);
// Heap growth over 1000 selections (no GC in between): what a selection allocates, per selection.
const gc = (globalThis as { gc?: () => void }).gc;
if (gc) gc();
const heap0 = process.memoryUsage().heapUsed;
for (let r = 0; r < 1000; r++) sel.select(source, 1800 + (r % 7), 150, 2100, list);
const perSelect = (process.memoryUsage().heapUsed - heap0) / 1000;
rows.push({
  name: `CDLOD selection, 4 km at depth 8: count then fill (${patches} patches)`,
  ms: selectMs,
  target: '≤ 1 ms',
  note: `min/max pyramid built once in ${buildMs.toFixed(1)} ms; heap growth ${perSelect.toFixed(0)} bytes per selection${gc ? '' : ' (no --expose-gc)'}`,
});

// Whole process: create the seed's example, then write its sixteen collision tiles.
const dir = mkdtempSync(join(BENCH_DIR, 'terrain-'));
const store = join(dir, 'example.hbterrain');
const cli = (args: string[]) => {
  const r = spawnSync(process.execPath, ['bin/heightbench.mjs', ...args], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`heightbench ${args.join(' ')}: exit ${r.status}\n${r.stderr}`);
};
cli(['terrain', 'create', store, '--tile-samples', '128', '--tiles', '4']);
const wholeMs = timeMedian(() => cli(['terrain', 'collision', store, join(dir, 'collision')]), 3, 1);
rows.push({ name: 'heightbench terrain collision on the seed example (16 tiles of 128²), whole process', ms: wholeMs, note: 'node start to exit, built dist' });
rmSync(dir, { recursive: true, force: true });
if (sink === 42) console.error('');
report('terrain', rows);
