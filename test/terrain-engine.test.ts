/**
 * Issue 20: paint weights, holes, layer kinds, import as a layer, resize, collision data, store v2, CDLOD selection.
 * Each block checks one seed-004 invariant against values worked out by hand or by an independent formula in the test.
 */
import { deflateRawSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { codeHeightfield, floatHeightfield, minstdRand0 } from '../src/api/notebook.js';
import { acceptsBrush, addKindLayer, collapseLayer, moveLayer, setLayerVisible, stampHill } from '../src/terrain/kinds.js';
import { baseCodeAcrossRanges, deltaStepsAcrossRanges, resizeTerrain } from '../src/terrain/resize.js';
import { collisionTile, COLLISION_NO_HEIGHT } from '../src/terrain/collision.js';
import { createTerrain } from '../src/terrain/terrain.js';
import { HeightfieldPatchSource, minimalRanges, PatchList, PatchSelector, type PatchSource } from '../src/terrain/cdlod.js';
import { importLayer } from '../src/terrain/import-layer.js';
import { LayerStack } from '../src/terrain/layers.js';
import { readStore, readTerrainStore, writeTerrainStore } from '../src/terrain/store.js';
import { TerrainWeights } from '../src/terrain/weights.js';
import { tileMip0, tileMips, tileWindow } from '../src/terrain/tiles.js';
import { type TerrainDescription } from '../src/terrain/description.js';

const desc = (o: Partial<TerrainDescription> = {}): TerrainDescription => ({
  kind: 'collision',
  tileSamples: 8,
  tilesX: 2,
  tilesY: 2,
  metresPerQuad: 1,
  range: { min: 0, max: 100 },
  ...o,
});

describe('paint weights: one byte per layer, sum exactly 255, largest remainder', () => {
  it('redistributes the rest proportionally, the leftover unit to the largest remainder (worked by hand)', () => {
    const w = new TerrainWeights(1, 1, ['a', 'b', 'c']);
    w.weight_sampleLayer.set([200, 50, 5]);
    w.paintSample(0, 0, 0, 0); // 255 over 50:5 → 231.818… and 23.181… → floors 231 + 23 = 254, one unit to b (.818)
    expect([...w.weight_sampleLayer]).toEqual([0, 232, 23]);
    w.weight_sampleLayer.set([100, 100, 55]);
    w.paintSample(0, 0, 2, 100); // 155 over 100:100 → 77.5 each; the tie goes to the lower index
    expect([...w.weight_sampleLayer]).toEqual([78, 77, 100]);
    w.weight_sampleLayer.set([255, 0, 0]);
    w.paintSample(0, 0, 0, 100); // the others held nothing: 155 shared equally → 78, 77
    expect([...w.weight_sampleLayer]).toEqual([100, 78, 77]);
  });
  it('every sample sums to 255 after thousands of random paints, each share within one unit of its exact quota', () => {
    const w = new TerrainWeights(16, 16, ['a', 'b', 'c', 'd', 'e']);
    const g = minstdRand0(7);
    const u = () => g.next() / 2147483647;
    for (let s = 0; s < 5000; s++) {
      const i = Math.floor(u() * 16);
      const j = Math.floor(u() * 16);
      const layer = Math.floor(u() * 5);
      const target = Math.floor(u() * 256);
      const o = (j * 16 + i) * 5;
      const before = [...w.weight_sampleLayer.subarray(o, o + 5)];
      w.paintSample(i, j, layer, target);
      const after = [...w.weight_sampleLayer.subarray(o, o + 5)];
      expect(after.reduce((a, b) => a + b, 0)).toBe(255);
      const others = before.reduce((a, b, k) => (k === layer ? a : a + b), 0);
      for (let k = 0; k < 5; k++) {
        if (k === layer) continue;
        const quota = others === 0 ? (255 - target) / 4 : ((255 - target) * before[k]) / others;
        expect(Math.abs(after[k] - quota)).toBeLessThan(1);
      }
    }
    w.paintBrush(8, 8, 5, 3, 255);
    expect(w.check()).toBeNull();
    expect(w.weightAt(8, 8, 3)).toBe(255);
  });
  it('verify names the offending sample and the layer holding the most of it', () => {
    const w = new TerrainWeights(10, 10, ['grass', 'rock', 'snow']);
    w.paintSample(5, 7, 1, 200); // [55, 200, 0]
    w.weight_sampleLayer[(7 * 10 + 5) * 3 + 2] = 9; // a bug adds 9 to snow
    expect(() => w.verify()).toThrow('paint weights at sample (5, 7) sum to 264, expected 255; layer 1 ("rock") holds the most of it (200)');
  });
});

describe('holes: coordinates; the triangles with a hole corner leave the mesh (checked against Jolt in terrain-jolt.test.ts)', () => {
  it('an interior hole drops 6 triangles, an edge hole 3 (or 1), a corner hole 2 (or 1) — one mask for mesh and collider', () => {
    // Jolt's split: quad (i, j) has the diagonal (i, j)–(i+1, j+1). An interior sample is a corner of six triangles;
    // on the left edge of three; the top-left corner (0, 0) of both triangles of quad (0, 0); the top-right corner
    // (7, 0) of one, triangle 1 of quad (6, 0) (worked by hand from QUAD_TRIANGLES' picture in holes.ts).
    for (const [i, j, killed] of [
      [3, 3, 6],
      [0, 3, 3],
      [0, 0, 2],
      [7, 0, 1],
    ] as const) {
      const t = createTerrain(desc({ tilesX: 1, tilesY: 1 }));
      t.holes.add(i, j);
      const w = tileWindow(0, 0, 8);
      const idx = new Uint32Array(t.holes.countTileIndices(w));
      expect(t.holes.fillTileIndices(w, idx)).toBe(idx.length);
      expect(idx.length / 3).toBe(98 - killed);
      for (let k = 0; k < idx.length; k++) expect(idx[k]).not.toBe(j * 8 + i); // no live triangle uses the hole
      const c = collisionTile(t, 0, 0);
      expect(c.heights[j * 8 + i]).toBe(COLLISION_NO_HEIGHT);
      expect(c.heights.filter((h) => h === COLLISION_NO_HEIGHT)).toHaveLength(1);
      expect(t.holes.tileHoleMask(w).holes).toBe(1);
    }
  });
  it('a hole on a shared tile boundary is in both tiles: three triangles each side', () => {
    const t = createTerrain(desc());
    t.holes.add(7, 3); // column 7 is the boundary between tiles (0, 0) and (1, 0)
    expect(t.holes.countTileIndices(tileWindow(0, 0, 8)) / 3).toBe(95);
    expect(t.holes.countTileIndices(tileWindow(1, 0, 8)) / 3).toBe(95);
    expect(collisionTile(t, 1, 0).heights[3 * 8 + 0]).toBe(COLLISION_NO_HEIGHT);
    expect(collisionTile(t, 0, 0).heights[3 * 8 + 7]).toBe(COLLISION_NO_HEIGHT);
  });
  it('three holes cost three coordinate pairs in the store, not a mask', () => {
    const t = createTerrain(desc({ tilesX: 8, tilesY: 8 }));
    const none = writeTerrainStore(t).length;
    t.holes.add(1, 2);
    t.holes.add(30, 40);
    t.holes.add(56, 56);
    const three = writeTerrainStore(t).length;
    expect(three - none).toBe(3 * 8);
    expect(readTerrainStore(writeTerrainStore(t)).holes.list()).toEqual([
      [1, 2],
      [30, 40],
      [56, 56],
    ]);
  });
});

describe('layer kinds, reorder, collapse, visibility', () => {
  it('reserved kinds refuse the brush, naming their generator', () => {
    const t = createTerrain(desc());
    addKindLayer(t.stack, 'roads', 'splines', 'the road network "north"');
    addKindLayer(t.stack, 'rocks', 'scatter', 'scatter rule "boulders"');
    addKindLayer(t.stack, 'sculpt', 'sculpt');
    expect(t.stack.layers.map(acceptsBrush)).toEqual([false, false, true]);
    expect(() => stampHill(t.stack, 0, 5, 5, 3, 2)).toThrow(
      'brush: layer "roads" is a splines layer regenerated by the road network "north": a brush edit would be discarded the next time it regenerates',
    );
    expect(() => stampHill(t.stack, 1, 5, 5, 3, 2)).toThrow(/scatter layer regenerated by scatter rule "boulders"/);
    expect(t.stack.layers[0].chunks.size + t.stack.layers[1].chunks.size).toBe(0);
    expect(stampHill(t.stack, 2, 5, 5, 3, 2)).toEqual({ i0: 2, j0: 2, i1: 8, j1: 8 });
    expect(t.stack.compositeAt(5, 5)).toBe(2);
    expect(() => collapseLayer(t.stack, 2)).toThrow(/collapse into layer 1: layer "rocks" is a scatter layer/);
  });
  it('collapse is destructive; the clone it returns is the undo record', () => {
    const t = createTerrain(desc());
    addKindLayer(t.stack, 'a', 'sculpt');
    addKindLayer(t.stack, 'b', 'sculpt');
    stampHill(t.stack, 0, 4, 4, 3, 1);
    stampHill(t.stack, 1, 5, 4, 3, 2);
    const before = t.stack.compositeAt(5, 4);
    const aBefore = t.stack.layers[0].deltaAt(5, 4);
    const undo = collapseLayer(t.stack, 1);
    expect(t.stack.layers.map((l) => l.name)).toEqual(['a']);
    expect(t.stack.compositeAt(5, 4)).toBe(before);
    expect(t.stack.layers[0].deltaAt(5, 4)).not.toBe(aBefore);
    expect(undo.deltaAt(5, 4)).toBe(aBefore);
  });
  it('reorder invalidates everything: the clamp makes order matter', () => {
    const t = createTerrain(desc({ range: { min: 0, max: 10 } }));
    const s = t.stack;
    addKindLayer(s, 'up', 'sculpt').addDelta(3, 3, 8);
    addKindLayer(s, 'down', 'sculpt').addDelta(3, 3, -4);
    s.writeBase([5], { i0: 3, j0: 3, i1: 3, j1: 3 });
    s.resolve();
    expect(s.cached()[3 * s.width + 3]).toBe(6); // min(13, 10) − 4
    moveLayer(s, 1, 0);
    expect(s.isResolved()).toBe(false);
    s.resolve();
    expect(s.lastResolved).toBe(s.tilesX * s.tilesY);
    expect(s.cached()[3 * s.width + 3]).toBe(9); // 5 − 4 + 8
  });
  it('visibility: invalidate, then resolve — skipping the invalidation leaves a stale contribution', () => {
    const make = () => {
      const t = createTerrain(desc({ tilesX: 20, tilesY: 20 }));
      addKindLayer(t.stack, 'hill', 'sculpt');
      stampHill(t.stack, 0, 100, 100, 10, 5);
      t.stack.resolve();
      return t.stack;
    };
    const k = 100 * 141 + 100;
    const good = make();
    expect(good.cached()[k]).toBe(5);
    setLayerVisible(good, 0, false);
    good.resolve();
    expect(good.cached()[k]).toBe(0);
    const skipped = make();
    skipped.layers[0].visible = false; // no invalidation
    skipped.resolve();
    expect(skipped.compositeAt(100, 100)).toBe(0); // the definition knows
    expect(skipped.cached()[k]).toBe(5); // the cache still shows the hidden layer
  });
  it('the chunk-tile resolve equals compositeAt sample for sample (clamps, alphas, hidden layers, edge tiles)', () => {
    const s = new LayerStack(150, 130, new Float32Array(150 * 130), { min: -3, max: 4 });
    const g = minstdRand0(3);
    const u = () => g.next() / 2147483647;
    for (let k = 0; k < s.base.length; k++) s.base[k] = u() * 10 - 5;
    for (let l = 0; l < 4; l++) {
      const layer = s.addLayer(`l${l}`);
      layer.alpha = l === 2 ? -0.7 : 1.3;
      layer.visible = l !== 3;
      for (let q = 0; q < 3000; q++) layer.addDelta(Math.floor(u() * 150), Math.floor(u() * 130), u() * 6 - 3);
    }
    s.resolve();
    let diff = 0;
    for (let j = 0; j < 130; j++) for (let i = 0; i < 150; i++) if (s.cached()[j * 150 + i] !== s.compositeAt(i, j)) diff++;
    expect(diff).toBe(0);
    // The batch query too, at random samples.
    const is = Int32Array.from({ length: 5000 }, () => Math.floor(u() * 150));
    const js = Int32Array.from({ length: 5000 }, () => Math.floor(u() * 130));
    const many = s.compositeAtMany(is, js, new Float32Array(5000));
    for (let k = 0; k < 5000; k++) if (many[k] !== s.compositeAt(is[k], js[k])) diff++;
    expect(diff).toBe(0);
    expect(() => s.compositeAtMany([150], [0], new Float32Array(1))).toThrow('compositeAtMany: sample 0 at (150, 0) is outside the 150×130 grid');
  });
});

describe('import writes a layer, not the base', () => {
  const ramp = (n: number, f: (i: number, j: number) => number) => Float32Array.from({ length: n * n }, (_, k) => f(k % n, Math.floor(k / n)));
  const grid = (n: number) => ({
    xmin: 0,
    ymin: 0,
    sizeX: 1,
    sizeY: 1,
    columns: n,
    rows: n,
    convention: 'vertex' as const,
    rowDirection: 'row0-at-ymin' as const,
  });
  it('same size: the base is untouched and the composite is the map, bit for bit', () => {
    const t = createTerrain(desc({ tilesX: 4, tilesY: 4 }), { fill: 20 });
    const baseBefore = Float32Array.from(t.stack.base);
    const map = ramp(29, (i, j) => 10 + 0.37 * i + 1.1 * j);
    const r = importLayer(t, floatHeightfield(grid(29), map), 'world machine');
    expect(r).toMatchObject({ index: 0, reimport: false, resampled: null });
    expect(t.stack.base).toEqual(baseBefore);
    t.stack.resolve();
    expect(t.stack.cached()).toEqual(map);
    expect(() => stampHill(t.stack, 0, 3, 3, 2, 1)).toThrow(/import layer regenerated by the import of world machine/);
  });
  it('a re-import keeps the sculpt above it', () => {
    const t = createTerrain(desc({ tilesX: 4, tilesY: 4 }));
    importLayer(
      t,
      floatHeightfield(
        grid(29),
        ramp(29, () => 30),
      ),
      'wm',
    );
    addKindLayer(t.stack, 'sculpt', 'sculpt');
    stampHill(t.stack, 1, 14, 14, 6, 4);
    const r = importLayer(
      t,
      floatHeightfield(
        grid(29),
        ramp(29, (i) => 40 + i),
      ),
      'wm',
    );
    expect(r.reimport).toBe(true);
    expect(t.stack.layers.map((l) => [l.name, l.kind])).toEqual([
      ['wm', 'import'],
      ['sculpt', 'sculpt'],
    ]);
    // Expected: new map + the brush formula 4·(1 − r²/36)², worked independently of the stack.
    for (const [i, j] of [
      [14, 14],
      [16, 13],
      [2, 2],
      [28, 28],
    ]) {
      const q = ((i - 14) ** 2 + (j - 14) ** 2) / 36;
      const hill = q < 1 ? 4 * (1 - q) ** 2 : 0;
      expect(t.stack.compositeAt(i, j)).toBeCloseTo(40 + i + hill, 4);
    }
  });
  it('different sizes resample edge-to-edge: corners to corners, a plane stays a plane (no flat lip)', () => {
    // 4 tiles of 128 samples = 509 samples; the map is 512 codes, a plane in code units.
    const t = createTerrain(desc({ tileSamples: 128, tilesX: 4, tilesY: 4, range: { min: 0, max: 2000 } }));
    const codes = Uint16Array.from({ length: 512 * 512 }, (_, k) => 2 * (k % 512) + Math.floor(k / 512));
    const range = { min: 0, max: 65535 }; // one metre per code keeps the reference exact
    const r = importLayer(t, codeHeightfield(grid(512), codes, range), 'big');
    expect(r.resampled).toEqual({ from: [512, 512], to: [509, 509] });
    // Terrain sample i reads map coordinate i·511/508 (corner to corner), and bilinear reproduces a plane exactly.
    const plane = (i: number, j: number) => (2 * i * 511) / 508 + (j * 511) / 508;
    for (const [i, j] of [
      [0, 0],
      [508, 508],
      [508, 0],
      [507, 508],
      [254, 100],
    ])
      expect(t.stack.compositeAt(i, j)).toBeCloseTo(plane(i, j), 3);
    expect(t.stack.compositeAt(508, 508)).toBe(3 * 511); // the map's far corner sample
    // No flat lip: the last step along x is the full plane step 2·511/508, like every other.
    expect(t.stack.compositeAt(508, 0) - t.stack.compositeAt(507, 0)).toBeCloseTo((2 * 511) / 508, 3);
  });
});

describe('resize: by sample index; range change preserves metres', () => {
  it('a ring of tiles keeps base, layers with their flags, weights and holes at the shifted index', () => {
    const t = createTerrain(desc(), { paintLayers: ['grass', 'rock'], fill: 10 });
    addKindLayer(t.stack, 'roads', 'splines', 'roads "a"').addDelta(3, 4, 2);
    const sculpt = addKindLayer(t.stack, 'sculpt', 'sculpt');
    sculpt.alpha = 0.5;
    sculpt.visible = false;
    stampHill(t.stack, 1, 7, 7, 3, 6);
    t.stack.writeBase([33], { i0: 5, j0: 2, i1: 5, j1: 2 });
    t.weights.paintSample(5, 2, 1, 200);
    t.holes.add(14, 14);
    const r = resizeTerrain(t, desc({ tilesX: 4, tilesY: 4 }), { offset: { i: 7, j: 7 }, fill: 1 });
    const n = r.terrain;
    expect(n.stack.width).toBe(29);
    expect(n.stack.base[9 * 29 + 12]).toBe(33);
    expect(n.stack.base[0]).toBe(1);
    expect(n.stack.layers.map((l) => [l.name, l.kind, l.generator, l.alpha, l.visible])).toEqual([
      ['roads', 'splines', 'roads "a"', 1, true],
      ['sculpt', 'sculpt', null, 0.5, false],
    ]);
    expect(n.stack.layers[0].deltaAt(10, 11)).toBe(2);
    expect(n.stack.layers[1].deltaAt(14, 14)).toBe(t.stack.layers[1].deltaAt(7, 7));
    expect([n.weights.weightAt(12, 9, 0), n.weights.weightAt(12, 9, 1), n.weights.weightAt(0, 0, 0)]).toEqual([55, 200, 255]);
    expect(n.holes.list()).toEqual([[21, 21]]);
    for (let j = 0; j < 15; j++) for (let i = 0; i < 15; i++) expect(n.stack.compositeAt(i + 7, j + 7)).toBe(t.stack.compositeAt(i, j));
  });
  it('metres per quad makes the same landscape larger: no resample, same samples', () => {
    const t = createTerrain(desc());
    stampHill(t.stack, addKindLayer(t.stack, 's', 'sculpt') && 0, 7, 7, 5, 9);
    const r = resizeTerrain(t, desc({ metresPerQuad: 2 }));
    expect(r.terrain.derived.extentX).toBe(2 * t.derived.extentX);
    expect(r.terrain.stack.base).toEqual(t.stack.base);
    for (let j = 0; j < 15; j++) for (let i = 0; i < 15; i++) expect(r.terrain.stack.compositeAt(i, j)).toBe(t.stack.compositeAt(i, j));
  });
  it('a range change keeps metres; converting a delta absolutely would become a uniform offset', () => {
    const from = { min: 0, max: 100 };
    const to = { min: -50, max: 150 };
    const t = createTerrain(desc({ range: from }), { fill: 20 });
    addKindLayer(t.stack, 's', 'sculpt');
    stampHill(t.stack, 0, 7, 7, 5, 9);
    const r = resizeTerrain(t, desc({ range: to }));
    for (let j = 0; j < 15; j++) for (let i = 0; i < 15; i++) expect(r.terrain.stack.compositeAt(i, j)).toBe(t.stack.compositeAt(i, j));
    // In 16-bit steps: the base converts absolutely, the delta by the ratio of the ranges.
    const oldStep = 100 / 65535;
    const newStep = 200 / 65535;
    const code = 13107; // 20 m in the old range
    expect(to.min + baseCodeAcrossRanges(code, from, to) * newStep).toBeCloseTo(code * oldStep, 9);
    const layer = t.stack.layers[0];
    const offsets = new Set<string>();
    for (let j = 0; j < 15; j++) {
      for (let i = 0; i < 15; i++) {
        const steps = layer.deltaAt(i, j) / oldStep;
        expect(deltaStepsAcrossRanges(steps, from, to) * newStep).toBeCloseTo(layer.deltaAt(i, j), 9);
        // The mistake: the delta through the absolute conversion, back in metres as a delta.
        const wrong = baseCodeAcrossRanges(steps, from, to) * newStep;
        offsets.add((wrong - layer.deltaAt(i, j)).toFixed(6));
      }
    }
    expect([...offsets]).toEqual(['50.000000']); // old min − new min, at every sample: the whole edit is lifted 50 m
  });
  it('a narrower range clamps the base and says how many samples', () => {
    const t = createTerrain(desc(), { fill: 80 });
    const r = resizeTerrain(t, desc({ range: { min: 0, max: 50 } }));
    expect(r.clampedBase).toBe(225);
    expect(r.terrain.stack.base[0]).toBe(50);
  });
});

describe('collision data', () => {
  it('the seed example: four tiles of 128 samples, sixteen shapes from the composite, never the base', () => {
    const t = createTerrain(desc({ tileSamples: 128, tilesX: 4, tilesY: 4, range: { min: -100, max: 100 } }));
    addKindLayer(t.stack, 's', 'sculpt');
    stampHill(t.stack, 0, 200, 300, 20, 12);
    let shapes = 0;
    for (let ty = 0; ty < 4; ty++) {
      for (let tx = 0; tx < 4; tx++) {
        const c = collisionTile(t, tx, ty);
        expect(c.placement).toEqual({ samples: 128, cornerX: 127 * tx, cornerZ: 127 * ty, step: 1 });
        expect([c.blockSize, c.canBeDynamic]).toEqual([8, false]);
        shapes++;
      }
    }
    expect(shapes).toBe(16);
    const c = collisionTile(t, 1, 2); // sample (200, 300) is tile (1, 2) local (73, 46)
    expect(c.heights[46 * 128 + 73]).toBe(12);
    expect(t.stack.base[300 * 509 + 200]).toBe(0);
    stampHill(t.stack, 0, 200, 300, 20, 3); // an edit after the last resolve: collision sees it
    expect(collisionTile(t, 1, 2).heights[46 * 128 + 73]).toBe(15);
  });
  it('refuses the shapes an engine refuses', () => {
    const lod = createTerrain(desc({ kind: 'lod', tileSamples: 9 }));
    expect(() => collisionTile(lod, 0, 0)).toThrow(
      'collision: the terrain has 9-sample lod tiles; a collision height field needs a power-of-two sample count (e.g. 8)',
    );
    const t = createTerrain(desc());
    expect(() => collisionTile(t, 0, 0, { blockSize: 8 })).toThrow(/fewer than two collision blocks per axis .* use blocks of at most 4/);
    expect(() => collisionTile(t, 0, 0, { blockSize: 3 })).toThrow(/must be a multiple of it/);
    expect(() => collisionTile(t, 0, 0, { motion: 'dynamic' })).toThrow(/a height field is static/);
    expect(() => collisionTile(t, 2, 0)).toThrow(/tile \(2, 0\) outside the 2×2 tiles/);
    expect(collisionTile(t, 0, 0, { blockSize: 2 }).blockSize).toBe(2);
  });
});

describe('store v2: paint channels and holes; composite never stored; versions', () => {
  it('round trip of a whole terrain; the bytes do not depend on the cache', () => {
    const t = createTerrain(desc({ tilesX: 6, tilesY: 6 }), { paintLayers: ['grass', 'rock', 'snow'], fill: 5 });
    addKindLayer(t.stack, 'roads', 'splines', 'roads "a"').addDelta(9, 9, 1.5);
    addKindLayer(t.stack, 's', 'sculpt');
    stampHill(t.stack, 1, 20, 20, 6, 3);
    t.weights.paintBrush(20, 20, 5, 2, 180);
    t.holes.add(4, 5);
    const before = writeTerrainStore(t);
    t.stack.resolve();
    expect(writeTerrainStore(t)).toEqual(before);
    const back = readTerrainStore(before);
    expect(back.version).toBe(2);
    expect(back.description).toEqual(t.description);
    expect(back.weights.weight_sampleLayer).toEqual(t.weights.weight_sampleLayer);
    expect(back.holes.list()).toEqual([[4, 5]]);
    expect(back.stack.layers.map((l) => [l.kind, l.generator])).toEqual([
      ['splines', 'roads "a"'],
      ['sculpt', null],
    ]);
    back.stack.resolve();
    expect(back.stack.cached()).toEqual(t.stack.cached());
  });
  it('reads a version 1 file (layers as sculpt, no paint, no holes) and refuses unknown versions naming both', () => {
    // A version-1 file built by hand from its documented layout: 2×2 base, one layer with one float32 chunk.
    const json = new TextEncoder().encode(JSON.stringify({ width: 2, height: 2, range: { min: 0, max: 10 }, chunk: 64 }));
    const chunk = new Float32Array(64 * 64);
    chunk[65] = 2.5; // sample (1, 1)
    const z = deflateRawSync(new Uint8Array(chunk.buffer));
    const parts: number[] = [];
    const u32 = (v: number) => parts.push(v & 255, (v >>> 8) & 255, (v >>> 16) & 255, v >>> 24);
    for (const ch of 'HBTERRN\0') parts.push(ch.charCodeAt(0));
    u32(1);
    u32(json.length);
    parts.push(...json);
    parts.push(...new Uint8Array(Float32Array.of(1, 2, 3, 4).buffer));
    u32(1);
    u32(1);
    parts.push('h'.charCodeAt(0), ...new Uint8Array(Float64Array.of(1).buffer), 1);
    u32(1);
    u32(0);
    parts.push(4);
    u32(z.length);
    parts.push(...z);
    const v1 = Uint8Array.from(parts);
    const s = readStore(v1);
    expect(s.version).toBe(1);
    expect(s.stack.layers[0].kind).toBe('sculpt');
    expect(s.stack.compositeAt(1, 1)).toBe(6.5);
    expect([s.weights, s.holes.count]).toEqual([null, 0]);
    expect(() => readTerrainStore(v1)).toThrow(
      'terrain store: version 1 file without a terrain description (written from a bare layer stack); read it with readStore',
    );
    const v3 = v1.slice();
    v3[8] = 3;
    expect(() => readStore(v3)).toThrow('terrain store: this heightbench reads versions 1 and 2, the file has version 3');
  });
});

describe('CDLOD patch selection', () => {
  const depth = 5;
  const size = 1024;
  const samples = 16 * 2 ** (depth - 1) + 1; // one sample per lod-0 vertex (16 quads a patch)
  const step = size / (samples - 1);
  const heights = Float32Array.from({ length: samples * samples }, (_, k) => {
    const i = k % samples;
    const j = Math.floor(k / samples);
    return 30 * Math.sin(i * 0.05) * Math.cos(j * 0.037) + 10;
  });
  const src = new HeightfieldPatchSource(heights, samples, depth);
  const span = 80;
  const sel = new PatchSelector({ x0: 0, z0: 0, size, depth, ranges: minimalRanges(size, depth, span), heightSpan: span });
  const patches = (cam: [number, number, number], source: PatchSource = src) => {
    const list = new PatchList(sel.select(source, cam[0], cam[1], cam[2], null));
    sel.select(source, cam[0], cam[1], cam[2], list);
    return Array.from({ length: list.count }, (_, k) => {
      const s = sel.nodeSize[list.level[k]];
      return { lod: list.lod[k], x0: list.nx[k] * s, z0: list.nz[k] * s, s };
    });
  };
  it('count, then fill: a list of the counted size is filled exactly; a smaller one is refused naming both', () => {
    const n = sel.select(src, 100, 50, 100, null);
    expect(n).toBeGreaterThan(4);
    const list = new PatchList(n);
    expect(sel.select(src, 100, 50, 100, list)).toBe(n);
    expect(list.count).toBe(n);
    expect(() => sel.select(src, 100, 50, 100, new PatchList(n - 1))).toThrow(`patch list: capacity ${n - 1}, the selection has ${n} patches`);
  });
  it('patches tile the root once: areas sum to the root, no overlaps', () => {
    const p = patches([300, 60, 700]);
    expect(p.reduce((a, q) => a + q.s * q.s, 0)).toBe(size * size);
    for (let a = 0; a < p.length; a++) {
      for (let b = a + 1; b < p.length; b++) {
        const ox = Math.min(p[a].x0 + p[a].s, p[b].x0 + p[b].s) - Math.max(p[a].x0, p[b].x0);
        const oz = Math.min(p[a].z0 + p[a].s, p[b].z0 + p[b].s) - Math.max(p[a].z0, p[b].z0);
        expect(ox > 0 && oz > 0).toBe(false);
      }
    }
  });
  it('refuses ranges too tight for the no-crack property', () => {
    expect(() => new PatchSelector({ x0: 0, z0: 0, size, depth, ranges: [40, 80, 160, 320, 640], heightSpan: span })).toThrow(
      /level 1 starts morphing at 68.0 m, closer than range\[0\] \+ node diagonal = 160.8 m/,
    );
  });

  /** Edge vertices of both sides of every shared edge, morphed; returns the number of edges whose vertex sets differ. */
  const cracks = (cam: [number, number, number], morph: boolean) => {
    const p = patches(cam);
    const h = (x: number, z: number) => heights[Math.round(z / step) * samples + Math.round(x / step)];
    const edgeSet = (q: (typeof p)[number], along: 'x' | 'z', fixed: number, lo: number, hi: number) => {
      const g = sel.vertexStep(q.lod);
      const out = new Set<string>();
      for (let t = lo; t <= hi + 1e-9; t += g) {
        const x = along === 'x' ? t : fixed;
        const z = along === 'x' ? fixed : t;
        const d = Math.hypot(x - cam[0], h(x, z) - cam[1], z - cam[2]);
        const k = morph ? sel.morphFactor(q.lod, d) : 0;
        const mx = along === 'x' ? sel.morphCoordinate(q.lod, x, 0, k) : x;
        const mz = along === 'z' ? sel.morphCoordinate(q.lod, z, 0, k) : z;
        out.add(`${mx.toFixed(6)},${mz.toFixed(6)}`);
      }
      return out;
    };
    let bad = 0;
    let mixed = 0;
    for (const a of p) {
      for (const b of p) {
        if (a === b) continue;
        // b to the right of a (shared vertical edge x = a.x0 + a.s) or above it (shared z edge).
        for (const along of ['z', 'x'] as const) {
          const aEnd = along === 'z' ? a.x0 + a.s : a.z0 + a.s;
          const bStart = along === 'z' ? b.x0 : b.z0;
          if (aEnd !== bStart) continue;
          const aLo = along === 'z' ? a.z0 : a.x0;
          const bLo = along === 'z' ? b.z0 : b.x0;
          const lo = Math.max(aLo, bLo);
          const hi = Math.min(aLo + a.s, bLo + b.s);
          if (hi <= lo) continue;
          expect(Math.abs(a.lod - b.lod)).toBeLessThanOrEqual(1);
          if (a.lod !== b.lod) mixed++;
          const sa = [...edgeSet(a, along, aEnd, lo, hi)].sort().join(' ');
          const sb = [...edgeSet(b, along, aEnd, lo, hi)].sort().join(' ');
          if (sa !== sb) bad++;
        }
      }
    }
    return { bad, mixed };
  };
  it('no cracks between neighbouring patches of different levels (random cameras); without the morph there are', () => {
    const g = minstdRand0(11);
    const u = () => g.next() / 2147483647;
    let mixed = 0;
    let unmorphedBad = 0;
    for (let c = 0; c < 12; c++) {
      const cam: [number, number, number] = [u() * size, 20 + u() * 100, u() * size];
      const r = cracks(cam, true);
      expect(r.bad).toBe(0);
      mixed += r.mixed;
      unmorphedBad += cracks(cam, false).bad;
    }
    expect(mixed).toBeGreaterThan(20); // the property was exercised on many level changes
    expect(unmorphedBad).toBeGreaterThan(0); // and the check can fail
  });
  it('covers is conservative: a shoreline through a node corner survives; a centre-sampling source cuts it', () => {
    // Dry land everywhere except a small bay in the corner of node (level 2, 1, 1).
    const n2 = sel.nodeSize[2];
    const land = Float32Array.from({ length: samples * samples }, (_, k) => {
      const x = (k % samples) * step;
      const z = Math.floor(k / samples) * step;
      return Math.hypot(x - n2, z - n2) < 40 ? -5 : 5; // the bay is centred on the node's corner at (n2, n2)
    });
    const water = new HeightfieldPatchSource(land, samples, depth, 0);
    const centre: PatchSource = {
      bounds: (l, x, z, out) => water.bounds(l, x, z, out),
      covers: (l, x, z) => {
        const s = sel.nodeSize[l];
        const ci = Math.round(((x + 0.5) * s) / step);
        const cj = Math.round(((z + 0.5) * s) / step);
        return land[cj * samples + ci] < 0;
      },
    };
    const cam: [number, number, number] = [n2 + 10, 10, n2 + 10];
    const wet = (p: ReturnType<typeof patches>) => p.some((q) => q.x0 < n2 + 20 && q.x0 + q.s > n2 + 20 && q.z0 < n2 + 20 && q.z0 + q.s > n2 + 20);
    expect(wet(patches(cam, water))).toBe(true);
    expect(patches(cam, centre)).toHaveLength(0); // the root's centre is dry: everything pruned
    expect(wet(patches(cam, centre))).toBe(false);
  });
});

describe('settings that cannot act are refused', () => {
  it('one paint layer holds 255 everywhere: another weight is refused, not silently ignored', () => {
    const w = new TerrainWeights(4, 4, ['only']);
    expect(() => w.paintSample(1, 1, 0, 100)).toThrow(
      'paint: a terrain with one paint layer holds 255 at every sample; a weight of 100 cannot act (add paint layers)',
    );
    w.paintSample(1, 1, 0, 255);
    expect(w.check()).toBeNull();
  });
  it('a re-import keeps the layer alpha the user set', () => {
    const t = createTerrain(desc());
    const g = { xmin: 0, ymin: 0, sizeX: 1, sizeY: 1, columns: 15, rows: 15, convention: 'vertex' as const, rowDirection: 'row0-at-ymin' as const };
    importLayer(t, floatHeightfield(g, new Float32Array(225).fill(10)), 'wm');
    t.stack.layers[0].alpha = 0.5;
    importLayer(t, floatHeightfield(g, new Float32Array(225).fill(20)), 'wm');
    expect(t.stack.compositeAt(3, 3)).toBe(10);
  });
});

describe('the API the seed implies: a terrain from a base heightfield, mip 0 from the resolved cache', () => {
  it('createTerrain({ base }) and writeBase invalidate what they must; the composite follows', () => {
    const d = desc({ kind: 'lod', tileSamples: 9 }); // 2 × 2 tiles of 9: 17 samples a side
    const base = Float32Array.from({ length: 17 * 17 }, (_, k) => (k % 17) + 2 * Math.floor(k / 17));
    const t = createTerrain(d, { base });
    t.stack.resolve();
    expect(t.stack.compositeAt(5, 3)).toBe(5 + 6);
    expect(t.stack.cached()[3 * 17 + 5]).toBe(11);
    expect(() => createTerrain(d, { base: new Float32Array(10) })).toThrow('createTerrain: base of 10 heights, the description has 17×17 = 289 samples');
    expect(() => createTerrain(d, { base, fill: 3 })).toThrow(/a fill height or a base heightfield, not both/);
    const bad = Float32Array.from(base);
    bad[2 * 17 + 4] = Number.NaN;
    expect(() => createTerrain(d, { base: bad })).toThrow('base write: height NaN at sample (4, 2) is not a finite number');
    // A documented write of a rectangle: only that rectangle goes stale, and resolve brings the cache to the base.
    t.stack.writeBase([50, 51, 52, 53], { i0: 10, j0: 12, i1: 11, j1: 13 });
    expect(t.stack.isResolved({ i0: 10, j0: 12, i1: 11, j1: 13 })).toBe(false);
    expect(t.stack.compositeAt(11, 13)).toBe(53);
    t.stack.resolve();
    expect(t.stack.cached()[13 * 17 + 11]).toBe(53);
  });
  it('mip 0 is a copy of the resolved cache, refused while stale; the chain is max-reduced from it', () => {
    const d = desc({ kind: 'lod', tileSamples: 9 });
    const t = createTerrain(d, { base: Float32Array.from({ length: 17 * 17 }, (_, k) => k % 5) });
    expect(() => tileMip0(t.stack, 1, 1, 9)).toThrow('mip 0 of tile (1, 1): the composite cache under samples 8…16 × 8…16 is stale; call resolve() first');
    t.stack.resolve();
    const m0 = tileMip0(t.stack, 1, 1, 9);
    expect(m0[0]).toBe(t.stack.compositeAt(8, 8));
    expect(m0[8 * 9 + 8]).toBe(t.stack.compositeAt(16, 16));
    addKindLayer(t.stack, 's', 'sculpt');
    stampHill(t.stack, 0, 12, 12, 2, 4); // a stroke invalidates its rectangle: the tile is stale again
    expect(() => tileMip0(t.stack, 1, 1, 9)).toThrow(/is stale; call resolve\(\) first/);
    t.stack.resolve();
    const chain = tileMips(t.stack, 1, 1, 9);
    expect(chain.map((m) => m.size)).toEqual([9, 5, 3]);
    expect(chain[0].data[4 * 9 + 4]).toBe(t.stack.compositeAt(12, 12)); // the hill is in level 0
    expect(Math.max(...chain[2].data)).toBe(Math.max(...chain[0].data)); // the max survives every level
  });
});
