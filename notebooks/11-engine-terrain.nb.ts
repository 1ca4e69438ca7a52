// -*- coding: utf-8 -*-
// %% [markdown]
// # 11 — The engine terrain, operation by operation (seed 004)
//
// **[E]** The seed's example: four tiles of 128 samples a side at a metre a quad. **[D]** The power of two is the
// sample count (128 samples = 127 quads) and tiles share their boundary samples, so the grid is 4·127 + 1 = 509
// samples a side: 508 m square, 1.0 MB of float heights, sixteen collision shapes.
// Each step below is one operation from `src/terrain/`, checked against a number worked out by hand, and drawn.

// %%
import * as hb from './dist/api/notebook.js';
import * as tslab from 'tslab';
const desc: hb.TerrainDescription = { kind: 'collision', tileSamples: 128, tilesX: 4, tilesY: 4, metresPerQuad: 1, range: { min: -50, max: 150 } };
const t = hb.createTerrain(desc, { paintLayers: ['grass', 'rock', 'snow'] });
const d = t.derived;
console.log(`${d.samplesX}×${d.samplesY} samples, ${d.extentX} m square, ${(d.bytesFloat32 / 1e6).toFixed(1)} MB of float heights, ${d.collisionShapes} collision shapes, ${(d.metresPerStep * 1000).toFixed(2)} mm per 16-bit step`);
if (d.samplesX !== 509 || d.extentX !== 508 || (d.bytesFloat32 / 1e6).toFixed(1) !== '1.0' || d.collisionShapes !== 16) throw new Error('the seed example changed');
// Display helper: every k-th sample (a picture, not a measurement), rows of world z upwards.
const rows = (f: ArrayLike<number>, w: number, h: number, k = 4, map = (v: number) => v as number | null) =>
  Array.from({ length: Math.ceil(h / k) }, (_, j) => Array.from({ length: Math.ceil(w / k) }, (_, i) => map(f[j * k * w + i * k])));
const axis = (n: number, k = 4) => Array.from({ length: Math.ceil(n / k) }, (_, i) => i * k);
// A check against an expected value worked out in the text (throws, so a notebook run fails loudly).
const check = (label: string, actual: number, expected: number, tol: number) => {
  const line = `${Math.abs(actual - expected) <= tol ? '✓' : '✗'} ${label}: ${actual.toFixed(4)}, expected ${expected.toFixed(4)} (± ${tol})`;
  if (Math.abs(actual - expected) > tol) throw new Error(line);
  return line;
};
const heat = (id: string, z: (number | null)[][], title: string, extra: Record<string, unknown> = {}, x?: number[], y?: number[]) =>
  tslab.display.html(hb.plotlyFigure(id, [{ type: 'heatmap', z, x, y, colorscale: 'Earth', ...extra }], { title: { text: title }, xaxis: { title: { text: 'x (m)' } }, yaxis: { title: { text: 'z (m)' }, scaleanchor: 'x' } }, 440));

// %% [markdown]
// ## One grid, sixteen tile windows
// **[D]** A tile is a window into one grid, so a boundary sample has one home. The picture colours each sample by the
// tile that owns it first; the boundary columns 127, 254, 381 belong to two tiles each.

// %%
const owner = new Float32Array(d.samplesX * d.samplesY);
for (let j = 0; j < d.samplesY; j++) for (let i = 0; i < d.samplesX; i++) owner[j * d.samplesX + i] = Math.min(3, Math.floor(j / 127)) * 4 + Math.min(3, Math.floor(i / 127));
heat('f11-tiles', rows(owner, 509, 509), 'Tile windows (tile index); boundaries are shared samples', { colorscale: 'Viridis' }, axis(509), axis(509));

// %% [markdown]
// ## Import writes a layer, not the base
// **[D]** A 512² map (what generators write) onto 509 samples: resampled bilinearly edge-to-edge, corner to corner.
// **[E]** The map is a formula, so the corners can be checked: terrain (508, 508) must equal map (511, 511).

// %%
const mapN = 512;
const wm = (i: number, j: number) => 40 + 30 * Math.sin(i / 40) * Math.cos(j / 55) + 20 * Math.exp(-((i - 300) ** 2 + (j - 200) ** 2) / 8000);
const codes = Uint16Array.from({ length: mapN * mapN }, (_, k) => hb.encodeHeightR16(wm(k % mapN, Math.floor(k / mapN)), desc.range));
const mapGrid = { xmin: 0, ymin: 0, sizeX: 508, sizeY: 508, columns: mapN, rows: mapN, convention: 'vertex' as const, rowDirection: 'row0-at-ymin' as const };
const imp = hb.importLayer(t, hb.codeHeightfield(mapGrid, codes, desc.range), 'world machine');
const far = hb.decodeHeightR16(codes[mapN * mapN - 1], desc.range);
console.log(`imported as layer ${imp.index} (${imp.layer.kind}, ${imp.chunks} chunks), resampled ${imp.resampled?.from.join('×')} → ${imp.resampled?.to.join('×')}; base still all ${t.stack.base[0]} m`);
console.log(check('terrain (508, 508) = map (511, 511), m', t.stack.compositeAt(508, 508), far, 1e-4));
t.stack.resolve();
heat('f11-import', rows(t.stack.cached(), 509, 509), 'Composite after the import (m)', {}, axis(509), axis(509));

// %% [markdown]
// ## Sculpt on top, then re-import: the sculpt survives
// **[D]** A re-import rewrites only the import layer; a sculpt layer above it keeps adding. **[R]** The brush is a
// smooth hill h·(1 − r²/R²)².

// %%
hb.addKindLayer(t.stack, 'sculpt', 'sculpt');
hb.stampHill(t.stack, 1, 150, 380, 45, 25);
const wm2 = (i: number, j: number) => wm(i, j) + 10 * (i / 511); // the artist tilts the world in the generator
const codes2 = Uint16Array.from({ length: mapN * mapN }, (_, k) => hb.encodeHeightR16(wm2(k % mapN, Math.floor(k / mapN)), desc.range));
const re = hb.importLayer(t, hb.codeHeightfield(mapGrid, codes2, desc.range), 'world machine');
console.log(`re-import: ${re.reimport}; layers ${t.stack.layers.map((l) => `${l.name} (${l.kind})`).join(', ')}`);
// At the hill's centre the composite is the new map there plus the full 25 m of the hill.
const centreMap = t.stack.compositeAt(150, 380) - t.stack.layers[1].deltaAt(150, 380);
console.log(check('hill kept above the re-import, m', t.stack.layers[1].deltaAt(150, 380), 25, 1e-9));
console.log(`composite at the hill centre ${t.stack.compositeAt(150, 380).toFixed(3)} m = re-imported ground ${centreMap.toFixed(3)} m + 25 m`);
t.stack.resolve();
heat('f11-sculpt', rows(t.stack.cached(), 509, 509), 'Composite: re-imported map + the sculpted hill (m)', {}, axis(509), axis(509));

// %% [markdown]
// ## Layer kinds, visibility and the stale cache
// **[D]** A splines layer is regenerated by its owner, so the brush is refused, naming the generator.
// **[D]** Invalidate, then resolve: hiding a layer without invalidating leaves its contribution in the cache.

// %%
hb.addKindLayer(t.stack, 'roads', 'splines', 'the road network "coast"');
try {
  hb.stampHill(t.stack, 2, 10, 10, 5, 1);
} catch (e) {
  console.log((e as Error).message);
}
t.stack.layers[1].visible = false; // the mistake: no invalidation
t.stack.resolve();
const stale = Float32Array.from({ length: 509 * 509 }, (_, k) => t.stack.cached()[k] - t.stack.compositeAt(k % 509, Math.floor(k / 509)));
console.log(`skipped invalidation: cache − definition up to ${hb.rangeOf(stale).max.toFixed(2)} m (the hidden hill)`);
heat('f11-stale', rows(stale, 509, 509), 'Cache minus compositeAt after hiding without invalidating (m)', { colorscale: 'Reds' }, axis(509), axis(509));
t.stack.layers[1].visible = true;
hb.setLayerVisible(t.stack, 1, false);
t.stack.resolve();
let worst = 0;
for (let k = 0; k < 509 * 509; k += 7) worst = Math.max(worst, Math.abs(t.stack.cached()[k] - t.stack.compositeAt(k % 509, Math.floor(k / 509))));
console.log(`setLayerVisible (invalidate, then resolve): largest cache − definition ${worst} m`);
if (worst !== 0) throw new Error('stale cache after setLayerVisible');
hb.setLayerVisible(t.stack, 1, true);

// %% [markdown]
// ## Reorder: the clamp makes order matter
// **[E]** Base 140 m under a ceiling of 150 m: +20 then −15 gives min(160, 150) − 15 = 135; −15 then +20 gives 145.

// %%
const small = hb.createTerrain({ ...desc, tilesX: 1, tilesY: 1 }, { fill: 140 });
hb.addKindLayer(small.stack, 'up', 'sculpt').addDelta(5, 5, 20);
hb.addKindLayer(small.stack, 'down', 'sculpt').addDelta(5, 5, -15);
const upFirst = small.stack.compositeAt(5, 5);
hb.moveLayer(small.stack, 1, 0);
console.log(`up then down ${upFirst} m; down then up ${small.stack.compositeAt(5, 5)} m; stack fully invalidated: ${!small.stack.isResolved()}`);
if (upFirst !== 135 || small.stack.compositeAt(5, 5) !== 145) throw new Error('reorder');
tslab.display.html(hb.plotlyFigure('f11-reorder', [
  { type: 'bar', x: ['base', '+20 (clamped at 150)', '−15'], y: [140, 150, 135], name: 'up, then down' },
  { type: 'bar', x: ['base', '−15', '+20'], y: [140, 125, 145], name: 'down, then up' },
], { title: { text: 'The same two layers in both orders (m); the ceiling is 150 m' }, xaxis: { title: { text: 'after each layer' } }, yaxis: { title: { text: 'height (m)' } }, barmode: 'group', shapes: [{ type: 'line', xref: 'paper', x0: 0, x1: 1, y0: 150, y1: 150, line: { dash: 'dot' } }] }, 360));

// %% [markdown]
// ## Paint channels: 255 at every sample
// **[D]** Painting one layer shares the rest over the others by largest remainder. **[E]** [200, 50, 5] with layer 0
// painted to 0: 255·50/55 = 231.8 and 255·5/55 = 23.2 → 231 + 23 = 254, the spare unit to the larger remainder → [0, 232, 23].

// %%
const one = new hb.TerrainWeights(1, 1, ['a', 'b', 'c']);
one.weight_sampleLayer.set([200, 50, 5]);
one.paintSample(0, 0, 0, 0);
console.log(`[200, 50, 5] → [${[...one.weight_sampleLayer].join(', ')}]`);
t.weights.paintBrush(150, 380, 60, 1, 220); // rock on the hill
t.weights.paintBrush(150, 380, 25, 2, 255); // snow on its top
t.weights.verify();
const rock = Float32Array.from({ length: 509 * 509 }, (_, k) => t.weights.weight_sampleLayer[k * 3 + 1]);
console.log('every sample sums to 255 (verify passed)');
heat('f11-paint', rows(rock, 509, 509), 'Paint channel "rock" (0…255)', { colorscale: 'Greys', reversescale: true }, axis(509), axis(509));

// %% [markdown]
// ## Holes: coordinates; the triangles around each, in the mesh and in Jolt alike
// **[D]** Three holes are three coordinate pairs. **[R]** A hole removes every triangle that has its sample as a corner
// — six around an interior sample, with Jolt's split (diagonal from (i, j) to (i + 1, j + 1)) — in the index buffer
// and in the collider alike: a Jolt height field can only remove ground through its no-collision sentinel, which
// removes exactly those triangles (the seed's "four quads" would leave two of the eight triangles in the collider).
// Two neighbouring holes share the two triangles of the edge between them: 6 + 6 − 2 = 10. The picture shows live
// triangles per quad (0, 1 or 2) of tile (1, 2) around the holes at (200, 300) and (201, 300).

// %%
for (const [i, j] of [[200, 300], [201, 300], [20, 30]]) t.holes.add(i, j);
const tw = hb.tileWindow(1, 2, 128);
const indices = new Uint32Array(t.holes.countTileIndices(tw));
t.holes.fillTileIndices(tw, indices);
console.log(`${t.holes.count} holes stored as ${t.holes.list().length} pairs; tile (1, 2): ${indices.length / 3} of ${2 * 127 * 127} triangles live (two adjacent holes drop 10)`);
if (indices.length / 3 !== 2 * 127 * 127 - 10) throw new Error('hole triangles');
const holeMask = t.holes.tileHoleMask(tw).mask;
const live = Array.from({ length: 9 }, (_, b) => Array.from({ length: 9 }, (_, a) => [0, 1].filter((k) => hb.triangleAlive(holeMask, 128, 196 - 127 + a, 296 - 254 + b, k)).length));
heat('f11-holes', live, 'Live triangles per quad near the holes at (200, 300) and (201, 300)', { colorscale: 'Greys', reversescale: true }, axis(9, 1).map((v) => v + 196), axis(9, 1).map((v) => v + 296));

// %% [markdown]
// ## Collision data: the composite, a sentinel at holes
// **[D]** Sixteen shapes of 128² floats; the hill is in them (a collider from the base would let the player fall through).

// %%
const shapes = Array.from({ length: 16 }, (_, k) => hb.collisionTile(t, k % 4, Math.floor(k / 4)));
const local = (380 - 2 * 127) * 128 + (150 - 127); // sample (150, 380) lies in tile (1, 2), first sample (127, 254)
const c12 = shapes[2 * 4 + 1];
console.log(`${shapes.length} shapes, block size ${c12.blockSize}, ${c12.bitsPerSample} bits per sample, placement ${JSON.stringify(c12.placement)}, canBeDynamic ${c12.canBeDynamic}`);
console.log(check('collision height at the hill centre = composite, m', c12.heights[local], t.stack.compositeAt(150, 380), 0));
console.log(`base there: ${t.stack.base[380 * 509 + 150]} m; holes in tile (1, 2): ${c12.holes}; the sentinel is ${c12.sentinel.toExponential(4)}`);
heat('f11-collision', rows(c12.heights, 128, 128, 1, (v) => (v === c12.sentinel ? null : v)), 'Collision heights of tile (1, 2) (gaps: holes)', {}, axis(128, 1).map((v) => v + 127), axis(128, 1).map((v) => v + 254));

// %% [markdown]
// ## Through Jolt: a ray hits the ground compositeAt says, and a hole is seen by both
// **[D]** One Jolt HeightFieldShape per tile (npm `jolt-physics`, the WebAssembly build of JoltPhysics): the tile's
// floats, `mOffset` = its corner, `mScale` = (metres per quad, 1, metres per quad), its block size and bits per
// sample; a ray cast straight down through Jolt's query. **[R]** Jolt stores each sample in 2^bits − 1 steps of its
// block's range, so the hit is compositeAt within half a step (test/jolt-terrain.ts derives the bound).
// %%
const Jolt = (await import('jolt-physics')).default;
const J = await Jolt();
const joltShape = (c: hb.CollisionTile) => {
  const s = new J.HeightFieldShapeSettings();
  s.mOffset = new J.Vec3(c.placement.cornerX, 0, c.placement.cornerZ);
  s.mScale = new J.Vec3(c.placement.step, 1, c.placement.step);
  s.mSampleCount = c.placement.samples;
  s.mBlockSize = c.blockSize;
  s.mBitsPerSample = c.bitsPerSample;
  s.mHeightSamples.resize(c.heights.length);
  J.HEAPF32.set(c.heights, J.getPointer(s.mHeightSamples.data()) >> 2);
  const r = s.Create();
  if (r.HasError()) throw new Error(`Jolt: ${r.GetError().c_str()}`);
  return r.Get();
};
const tiles12 = [shapes[2 * 4 + 1]];
const ts = new J.TransformedShape();
ts.mShape = joltShape(tiles12[0]);
ts.mShapePositionCOM = new J.RVec3(0, 0, 0); // a height field's centre of mass is its origin
ts.mShapeRotation = new J.Quat(0, 0, 0, 1);
const down = (x: number, z: number) => {
  const hit = new J.RayCastResult();
  ts.CastRay(new J.RRayCast(new J.RVec3(x, 200, z), new J.Vec3(0, -300, 0)), hit);
  return hit.mFraction <= 1 ? 200 - 300 * hit.mFraction : null;
};
// The hill centre, sample (150, 380): the ray lands on compositeAt.
const yHill = down(150, 380);
console.log(check('Jolt ray at the hill centre vs compositeAt(150, 380), m', yHill ?? NaN, t.stack.compositeAt(150, 380), 0.05));
// The hole at (200, 300) is corner (1, 0) of quad (199, 300): its triangle 1, (0, 0)–(1, 1)–(1, 0), uses it (no ground),
// its triangle 0, (0, 0)–(0, 1)–(1, 1), does not.
const inHole = down(199 + 2 / 3, 300 + 1 / 3);
const beside = down(199 + 1 / 3, 300 + 2 / 3);
const meshHas = (i: number, j: number, k: number) => hb.triangleAlive(holeMask, 128, i - 127, j - 254, k);
console.log(`centroid of triangle 1 of quad (199, 300): Jolt ${inHole === null ? 'no hit' : `hit at ${inHole.toFixed(3)} m`}, mesh ${meshHas(199, 300, 1) ? 'has it' : 'has none'}`);
console.log(`centroid of triangle 0 of quad (199, 300): Jolt ${beside === null ? 'no hit' : `hit at ${beside.toFixed(3)} m`}, mesh ${meshHas(199, 300, 0) ? 'has it' : 'has none'}`);
if (inHole !== null || meshHas(199, 300, 1) || beside === null || !meshHas(199, 300, 0)) throw new Error('hole: Jolt and the mesh disagree');
// A row of rays across the holes at z = 300 + 2/3: Jolt's ground beside compositeAt interpolated on the mesh triangle.
const xsRay = Array.from({ length: 61 }, (_, k) => 185 + k / 2);
const joltY = xsRay.map((x) => down(x, 300 + 2 / 3));
// The mesh's height at (x, z): the plane of its triangle through three compositeAt values (triangle 0 when fz ≥ fx).
const meshAt = (x: number, z: number) => {
  const i = Math.floor(x);
  const j = Math.floor(z);
  const fx = x - i;
  const fz = z - j;
  const h = (a: number, b: number) => t.stack.compositeAt(i + a, j + b);
  const k = fz >= fx ? 0 : 1;
  if (!meshHas(i, j, k)) return null;
  return k === 0 ? h(0, 0) + fz * (h(0, 1) - h(0, 0)) + fx * (h(1, 1) - h(0, 1)) : h(0, 0) + fx * (h(1, 0) - h(0, 0)) + fz * (h(1, 1) - h(1, 0));
};
const meshY = xsRay.map((x) => meshAt(x, 300 + 2 / 3));
let worst = 0;
xsRay.forEach((x, k) => {
  if ((joltY[k] === null) !== (meshY[k] === null)) throw new Error(`ray at x = ${x}: Jolt and the mesh disagree about ground`);
  if (joltY[k] !== null) worst = Math.max(worst, Math.abs((joltY[k] as number) - (meshY[k] as number)));
});
console.log(`${xsRay.length} rays across the holes: ${joltY.filter((y) => y === null).length} fall through, where the mesh has no triangle; elsewhere |Jolt − mesh| ≤ ${worst.toFixed(4)} m`);
tslab.display.html(hb.plotlyFigure('f11-jolt', [
  { type: 'scatter', mode: 'markers', x: xsRay, y: joltY, name: 'Jolt ray hit (m)' },
  { type: 'scatter', mode: 'lines', x: xsRay, y: meshY, name: 'the mesh triangle through compositeAt (gaps: no triangle)', line: { dash: 'dot' } },
], { title: { text: 'Rays through Jolt across the holes at (200, 300) and (201, 300)' }, xaxis: { title: { text: 'x (m)' } }, yaxis: { title: { text: 'height (m)' } } }, 360));
// %% [markdown]
// ## Resize: a ring of tiles; a range change keeps metres
// **[D]** Copies by sample index: old sample (0, 0) lands at (127, 127) in a 6×6-tile terrain. **[D]** A wider range
// keeps every composite height; a delta scales by the ratio of the ranges (in steps), never through the absolute
// conversion — that would add old min − new min to every edited sample.

// %%
const grown = hb.resizeTerrain(t, { ...desc, tilesX: 6, tilesY: 6, range: { min: -100, max: 300 } }, { offset: { i: 127, j: 127 }, fill: 0 });
const g = grown.terrain;
console.log(`${g.derived.samplesX}² samples, ${g.derived.extentX} m; holes now at ${JSON.stringify(g.holes.list())}`);
console.log(check('composite at the hill, before vs after the resize, m', g.stack.compositeAt(150 + 127, 380 + 127), t.stack.compositeAt(150, 380), 0));
const wrong = hb.baseCodeAcrossRanges(25 / (200 / 65535), desc.range, g.description.range) * (400 / 65535);
console.log(`a 25 m delta converted absolutely would read ${wrong.toFixed(3)} m (25 + (−50 − (−100)) = 75): a uniform 50 m lift of the whole edit`);
g.stack.resolve();
heat('f11-resize', rows(g.stack.cached(), 763, 763, 6), 'Grown by a ring of tiles (fill 0 m around the old terrain)', {}, axis(763, 6), axis(763, 6));

// %% [markdown]
// ## Store: layers, paint and holes; never the composite

// %%
const bytes = hb.writeTerrainStore(t);
const back = hb.readTerrainStore(bytes);
back.stack.resolve();
let same = 0;
for (let k = 0; k < 509 * 509; k++) if (back.stack.cached()[k] === t.stack.cached()[k]) same++;
console.log(`${(bytes.length / 1e6).toFixed(2)} MB, version ${back.version}; layers ${back.stack.layers.map((l) => `${l.name}/${l.kind}`).join(', ')}; ${back.holes.count} holes; recomposited: ${same} of ${509 * 509} samples identical`);
if (same !== 509 * 509) throw new Error('store round trip');
const dense = 509 * 509 * 4;
tslab.display.html(hb.plotlyFigure('f11-store', [{ type: 'bar', x: ['store file (base + touched chunks + paint + holes)', 'base grid alone (float32)', 'base + every layer dense + composite'], y: [bytes.length / 1e6, dense / 1e6, (dense * (2 + t.stack.layers.length)) / 1e6] }],
  { title: { text: 'Megabytes: only touched chunks are stored, the composite never' }, xaxis: { title: { text: 'what is kept' } }, yaxis: { title: { text: 'MB' } } }, 360));

// %% [markdown]
// ## CDLOD patch selection
// **[D]** A root square, a depth, ranges, and a source answering "how tall" and "is anything here". **[R]** For the
// quadtree the grid is a power of two plus one: 4 LOD tiles of 129 samples = 513 samples, depth 5 (leaves of 32 m).
// Patches are drawn coloured by level of detail for a camera at (200, 60, 150).

// %%
const lodT = hb.createTerrain({ kind: 'lod', tileSamples: 129, tilesX: 4, tilesY: 4, metresPerQuad: 1, range: desc.range });
hb.importLayer(lodT, hb.codeHeightfield(mapGrid, codes2, desc.range), 'world machine');
lodT.stack.resolve();
const depth = 5;
const src = new hb.HeightfieldPatchSource(lodT.stack.cached(), 513, depth);
const rootB = new Float64Array(2);
src.bounds(depth - 1, 0, 0, rootB);
const sel = new hb.PatchSelector({ x0: 0, z0: 0, size: 512, depth, ranges: hb.minimalRanges(512, depth, rootB[1] - rootB[0]), heightSpan: rootB[1] - rootB[0] });
const list = new hb.PatchList(sel.select(src, 200, 60, 150, null));
sel.select(src, 200, 60, 150, list);
console.log(`ranges ${Array.from(sel.ranges).join(', ')} m; ${list.count} patches (counted, then filled)`);
const colours = ['#d62728', '#ff7f0e', '#2ca02c', '#1f77b4', '#9467bd'];
const traces = Array.from({ length: list.count }, (_, k) => {
  const s = sel.nodeSize[list.level[k]];
  const x0 = list.nx[k] * s;
  const z0 = list.nz[k] * s;
  return { type: 'scatter', mode: 'lines', x: [x0, x0 + s, x0 + s, x0, x0], y: [z0, z0, z0 + s, z0 + s, z0], fill: 'toself', line: { color: '#333', width: 1 }, fillcolor: colours[list.lod[k]], opacity: 0.6, showlegend: false, hoverinfo: 'text', text: `lod ${list.lod[k]}` };
});
tslab.display.html(hb.plotlyFigure('f11-cdlod', [...traces, { type: 'scatter', mode: 'markers', x: [200], y: [150], marker: { size: 10, color: 'black' }, name: 'camera' }], { title: { text: 'CDLOD patches by level of detail (red = finest)' }, xaxis: { title: { text: 'x (m)' } }, yaxis: { title: { text: 'z (m)' }, scaleanchor: 'x' } }, 480));
// **[D]** covers must be conservative: water below 25 m, with the sea only in some corners of nodes.
const water = new hb.HeightfieldPatchSource(lodT.stack.cached(), 513, depth, 25);
const wet = sel.select(water, 200, 60, 150, null);
console.log(`water patches (conservative covers: any sample of the node below 25 m): ${wet}`);
