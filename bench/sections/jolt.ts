/**
 * Issue 29 target: the seed's example (4 × 4 tiles of 128 samples) with a sculpted hill and three holes — export the
 * sixteen collision tiles, build one Jolt HeightFieldShape (jolt-physics 1.1.0, WebAssembly) per tile as static bodies,
 * and cast 10,000 vertical rays through Jolt's NarrowPhaseQuery: ≤ 1 s in all. The Jolt module's own start (WASM
 * compile, once per process) is reported on its own row.
 */
import { minstdRand0 } from '../../src/core/minstd.js';
import { collisionTile, type CollisionTile } from '../../src/terrain/collision.js';
import { addKindLayer, stampHill } from '../../src/terrain/kinds.js';
import { createTerrain } from '../../src/terrain/terrain.js';
import { JoltTerrain, loadJolt } from '../../test/jolt-terrain.js';
import { report, timeMedian, type BenchRow } from '../util.js';

const rows: BenchRow[] = [];
const t0 = process.hrtime.bigint();
const J = await loadJolt();
rows.push({ name: 'jolt-physics 1.1.0 start (wasm-compat, once per process)', ms: Number(process.hrtime.bigint() - t0) / 1e6 });

const t = createTerrain({ kind: 'collision', tileSamples: 128, tilesX: 4, tilesY: 4, metresPerQuad: 1, range: { min: -50, max: 150 } });
addKindLayer(t.stack, 'hill', 'sculpt');
stampHill(t.stack, 0, 250, 260, 120, 60);
for (const [i, j] of [
  [100, 100],
  [127, 254],
  [381, 381],
])
  t.holes.add(i, j);
const g = minstdRand0(29);
const N = 10_000;
const xs = Float64Array.from({ length: N }, () => g.uniform() * 508);
const zs = Float64Array.from({ length: N }, () => g.uniform() * 508);
let hits = 0;
const ms = timeMedian(
  () => {
    const tiles: CollisionTile[] = [];
    for (let ty = 0; ty < 4; ty++) for (let tx = 0; tx < 4; tx++) tiles.push(collisionTile(t, tx, ty));
    const world = new JoltTerrain(J, tiles, 200, 300);
    hits = 0;
    for (let k = 0; k < N; k++) if (world.castDown(xs[k], zs[k])) hits++;
    world.destroy();
  },
  5,
  1,
);
rows.push({
  name: `export 16 collision tiles of 128², build 16 Jolt HeightFieldShapes as static bodies, cast ${N} rays (${hits} hits)`,
  ms,
  target: '≤ 1000 ms',
});
report('jolt', rows);
