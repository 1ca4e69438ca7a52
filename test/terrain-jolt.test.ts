/**
 * Issue 29: the collision export fed to a real physics engine — Jolt (npm jolt-physics 1.1.0, WebAssembly) is the
 * client: one HeightFieldShape per tile from `collisionTile` (and from the files `terrain collision` writes), ray
 * casts through Jolt's NarrowPhaseQuery, and Jolt's own decoded sample positions.
 * Asserted: heights equal `compositeAt` within the bound Jolt's block quantisation gives (joltQuantisationBound in
 * test/jolt-terrain.ts, derived there from bits per sample and each block's range); holes miss exactly where the
 * index buffer has no triangle (interior, tile edge, four-tile corner, terrain edge); tiles agree along shared edges;
 * after a stroke the collider holds the composite, not the base; every description heightbench accepts builds a
 * valid Jolt shape, and every refused one fails in Jolt, is padded by Jolt, or breaks the seed's power-of-two rule.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { readHeightfieldFile } from '../src/index.js';
import { addKindLayer, stampHill } from '../src/terrain/kinds.js';
import { COLLISION_NO_HEIGHT, collisionTile, type CollisionTile } from '../src/terrain/collision.js';
import { createTerrain, type Terrain } from '../src/terrain/terrain.js';
import { describeTerrain, type TerrainDescription } from '../src/terrain/description.js';
import { readTerrainStore } from '../src/terrain/store.js';
import { tileWindow } from '../src/terrain/tiles.js';
import { cli, tempDir } from './helpers.js';
import { createShape, heightFieldSettings, JoltTerrain, joltQuantisationBound, loadJolt, type Jolt } from './jolt-terrain.js';

let J: Jolt;
beforeAll(async () => {
  J = await loadJolt();
});
// Every world a test builds is destroyed after it, also when an assertion threw half-way (a leaked PhysicsSystem
// would make the next tests fail for a reason that is not theirs).
const worlds: JoltTerrain[] = [];
const newWorld = (tiles: readonly CollisionTile[], top: number, depth: number): JoltTerrain => {
  const w = new JoltTerrain(J, tiles, top, depth);
  worlds.push(w);
  return w;
};
afterEach(() => {
  for (const w of worlds.splice(0)) w.destroy();
});

// Float slack [R]: Jolt computes in float32 on metres of order 100 and a ray fraction over a 300 m ray; 2⁻²³ of 300 m is
// 36 µm, so 1e-4 m covers the rounding with margin and is still far below every quantisation step asserted here.
const FLOAT_SLACK = 1e-4;
const S = 32;
const desc: TerrainDescription = { kind: 'collision', tileSamples: S, tilesX: 2, tilesY: 2, metresPerQuad: 1.5, range: { min: -50, max: 150 } };

/** A base whose quads are not planar (so the split direction shows in every centroid height). */
function bumpyTerrain(): Terrain {
  const W = 2 * (S - 1) + 1;
  const base = Float32Array.from({ length: W * W }, (_, k) => {
    const i = k % W;
    const j = Math.floor(k / W);
    return 20 * Math.sin(i * 0.37) * Math.cos(j * 0.23) + 3 * (((i * 7 + j * 13) % 5) - 2) + 40;
  });
  return createTerrain(desc, { base });
}

const tilesOf = (t: Terrain): CollisionTile[] => {
  const out: CollisionTile[] = [];
  for (let ty = 0; ty < t.description.tilesY; ty++) for (let tx = 0; tx < t.description.tilesX; tx++) out.push(collisionTile(t, tx, ty));
  return out;
};

/** Max over tile samples of |Jolt's decoded sample height − compositeAt| / bound; throws on a sentinel mismatch. */
function worstSampleRatio(t: Terrain, tile: CollisionTile, shape: ReturnType<typeof createShape>['shape']): { ratio: number; maxErr: number } {
  if (!shape) throw new Error('no shape');
  const w = tileWindow(tile.tx, tile.ty, S);
  let ratio = 0;
  let maxErr = 0;
  for (let j = 0; j < S; j++) {
    for (let i = 0; i < S; i++) {
      const hole = t.holes.has(w.i0 + i, w.j0 + j);
      expect(shape.IsNoCollision(i, j)).toBe(hole);
      if (hole) continue;
      const p = shape.GetPosition(i, j);
      expect([p.GetX(), p.GetZ()]).toEqual([(w.i0 + i) * 1.5, (w.j0 + j) * 1.5]);
      const err = Math.abs(p.GetY() - t.stack.compositeAt(w.i0 + i, w.j0 + j));
      maxErr = Math.max(maxErr, err);
      ratio = Math.max(ratio, err / joltQuantisationBound(tile, i, j, 1e-5));
    }
  }
  return { ratio, maxErr };
}

/** Point-in-triangle over the tile's index buffer: the world points of quad (a, b) that the mesh covers. */
function meshCovers(t: Terrain, tx: number, ty: number): (a: number, b: number, fx: number, fz: number) => { y: number; normal: number[] } | null {
  const w = tileWindow(tx, ty, S);
  const idx = new Uint32Array(t.holes.countTileIndices(w));
  t.holes.fillTileIndices(w, idx);
  const byQuad = new Map<number, number[]>();
  for (let k = 0; k < idx.length; k += 3) {
    const vs = [idx[k], idx[k + 1], idx[k + 2]];
    const a = Math.min(...vs.map((v) => v % S));
    const b = Math.min(...vs.map((v) => Math.floor(v / S)));
    const key = b * S + a;
    byQuad.set(key, [...(byQuad.get(key) ?? []), k]);
  }
  return (a, b, fx, fz) => {
    for (const k of byQuad.get(b * S + a) ?? []) {
      const P = [0, 1, 2].map((m) => {
        const v = idx[k + m];
        return { x: (v % S) - a, z: Math.floor(v / S) - b, h: t.stack.compositeAt(w.i0 + (v % S), w.j0 + Math.floor(v / S)) };
      });
      // Barycentric coordinates of (fx, fz) in the triangle.
      const d = (P[1].z - P[2].z) * (P[0].x - P[2].x) + (P[2].x - P[1].x) * (P[0].z - P[2].z);
      const l0 = ((P[1].z - P[2].z) * (fx - P[2].x) + (P[2].x - P[1].x) * (fz - P[2].z)) / d;
      const l1 = ((P[2].z - P[0].z) * (fx - P[2].x) + (P[0].x - P[2].x) * (fz - P[2].z)) / d;
      const l2 = 1 - l0 - l1;
      if (!(l0 > 1e-9 && l1 > 1e-9 && l2 > 1e-9)) continue;
      // The triangle's normal from its index order: right-handed, x = column, z = row (metres), y up.
      const e1 = [(P[1].x - P[0].x) * 1.5, P[1].h - P[0].h, (P[1].z - P[0].z) * 1.5];
      const e2 = [(P[2].x - P[0].x) * 1.5, P[2].h - P[0].h, (P[2].z - P[0].z) * 1.5];
      const n = [e1[1] * e2[2] - e1[2] * e2[1], e1[2] * e2[0] - e1[0] * e2[2], e1[0] * e2[1] - e1[1] * e2[0]];
      const len = Math.hypot(n[0], n[1], n[2]);
      return { y: l0 * P[0].h + l1 * P[1].h + l2 * P[2].h, normal: n.map((c) => c / len) };
    }
    return null;
  };
}

describe('Jolt as the client of the collision export', () => {
  it("the sentinel is Jolt's no-collision value and the placement is Jolt's sample grid", () => {
    const t = bumpyTerrain();
    t.holes.add(5, 7);
    const tile = collisionTile(t, 0, 0);
    const { shape, error } = createShape(J, heightFieldSettings(J, tile));
    expect(error).toBeNull();
    expect(shape!.IsNoCollision(5, 7)).toBe(true);
    expect(shape!.IsNoCollision(6, 7)).toBe(false);
    expect([shape!.GetSampleCount(), shape!.GetBlockSize()]).toEqual([32, 8]);
    expect(tile.sentinel).toBe(COLLISION_NO_HEIGHT);
  });

  it("every sample Jolt decodes is compositeAt within the bound of Jolt's per-block quantisation, for 8 and 4 bits", () => {
    for (const bits of [8, 4]) {
      const t = createTerrain({ ...desc, bitsPerSample: bits }, { base: bumpyTerrain().stack.base });
      let worst = 0;
      let maxErr = 0;
      for (const tile of tilesOf(t)) {
        expect(tile.bitsPerSample).toBe(bits);
        const r = worstSampleRatio(t, tile, createShape(J, heightFieldSettings(J, tile)).shape);
        worst = Math.max(worst, r.ratio);
        maxErr = Math.max(maxErr, r.maxErr);
      }
      expect(worst).toBeLessThanOrEqual(1);
      // The bound is not vacuous: Jolt does quantise, and uses a good part of the bound.
      expect(worst).toBeGreaterThan(0.25);
      expect(maxErr).toBeGreaterThan(bits === 4 ? 0.3 : 0.01);
    }
  });

  it('a ray at every triangle centroid hits the mesh triangle the index buffer has, at its height, with its normal (Jolt’s split)', () => {
    const t = bumpyTerrain();
    const tiles = tilesOf(t);
    const world = newWorld(tiles, 200, 300);
    let rays = 0;
    let minDot = 1;
    for (const tile of tiles) {
      const covers = meshCovers(t, tile.tx, tile.ty);
      const w = tileWindow(tile.tx, tile.ty, S);
      for (let b = 0; b < S - 1; b++) {
        for (let a = 0; a < S - 1; a++) {
          for (const [fx, fz] of [
            [1 / 3, 2 / 3],
            [2 / 3, 1 / 3],
          ]) {
            const mesh = covers(a, b, fx, fz);
            expect(mesh).not.toBeNull();
            const hit = world.castDown((w.i0 + a + fx) * 1.5, (w.j0 + b + fz) * 1.5, true);
            expect(hit).not.toBeNull();
            expect(hit!.tile).toBe(tiles.indexOf(tile));
            const bound = Math.max(...[0, 1].flatMap((dj) => [0, 1].map((di) => joltQuantisationBound(tile, a + di, b + dj, FLOAT_SLACK))));
            expect(Math.abs(hit!.y - mesh!.y)).toBeLessThanOrEqual(bound);
            // The mesh triangle's normal from its index order (right-handed, x = column, z = row, y up) is Jolt's.
            const n = hit!.normal;
            minDot = Math.min(minDot, n[0] * mesh!.normal[0] + n[1] * mesh!.normal[1] + n[2] * mesh!.normal[2]);
            rays++;
          }
        }
      }
    }
    expect(rays).toBe(4 * 31 * 31 * 2);
    expect(minDot).toBeGreaterThan(0.995); // the same face up to quantisation; the other split or winding gives far less
    console.log(`centroid rays: ${rays}, min normal dot ${minDot}`);
  });
});

describe('holes that agree: the triangles the index buffer drops are the triangles Jolt drops', () => {
  // Terrain samples 0…62 a side; tiles meet at column/row 31. Interior, tile edge, four-tile corner, terrain edge and
  // terrain corner, plus two neighbouring holes (their triangle sets overlap).
  const cases: [string, [number, number][]][] = [
    ['interior', [[10, 12]]],
    ['tile edge', [[31, 9]]],
    ['four-tile corner', [[31, 31]]],
    ['terrain edge', [[0, 20]]],
    ['terrain corner', [[62, 62]]],
    [
      'two neighbours',
      [
        [40, 44],
        [41, 44],
      ],
    ],
  ];
  for (const [name, holes] of cases) {
    it(`${name}: rays at both triangle centroids of every quad hit exactly where the mesh has a triangle`, () => {
      const t = bumpyTerrain();
      for (const [i, j] of holes) t.holes.add(i, j);
      const tiles = tilesOf(t);
      const world = newWorld(tiles, 200, 300);
      let meshMissing = 0;
      let joltMissing = 0;
      for (const tile of tiles) {
        const covers = meshCovers(t, tile.tx, tile.ty);
        const w = tileWindow(tile.tx, tile.ty, S);
        for (let b = 0; b < S - 1; b++) {
          for (let a = 0; a < S - 1; a++) {
            for (const [fx, fz] of [
              [1 / 3, 2 / 3],
              [2 / 3, 1 / 3],
            ]) {
              const mesh = covers(a, b, fx, fz);
              const hit = world.castDown((w.i0 + a + fx) * 1.5, (w.j0 + b + fz) * 1.5);
              expect(hit !== null, `quad (${w.i0 + a}, ${w.j0 + b}) at (${fx.toFixed(2)}, ${fz.toFixed(2)})`).toBe(mesh !== null);
              if (!mesh) meshMissing++;
              if (!hit) joltMissing++;
            }
          }
        }
      }
      // Expected by hand: an interior sample is a corner of 6 triangles, and a tile-edge or four-tile-corner sample
      // too (split over 2 or 4 tiles); a left-edge sample of 3; the far corner (62, 62) of 2 (both of quad (61, 61));
      // two horizontal neighbours share the 2 triangles of the edge between them: 6 + 6 − 2.
      const expected = { interior: 6, 'tile edge': 6, 'four-tile corner': 6, 'terrain edge': 3, 'terrain corner': 2, 'two neighbours': 10 }[name];
      expect([meshMissing, joltMissing]).toEqual([expected, expected]);
    });
  }
});

describe('tiles agree along shared edges', () => {
  it("each tile's copy of a shared sample is compositeAt within its bound; rays on the seams find ground", () => {
    const t = bumpyTerrain();
    const tiles = tilesOf(t);
    const shapes = tiles.map((tile) => createShape(J, heightFieldSettings(J, tile)).shape!);
    let pairs = 0;
    // Seam samples: column 31 and row 31 (125 distinct). Each is in two tiles, except (31, 31), in all four.
    const seam = new Set<number>();
    for (let k = 0; k < 63; k++) seam.add(k * 63 + 31).add(31 * 63 + k);
    for (const key of seam) {
      const gi = key % 63;
      const gj = Math.floor(key / 63);
      const owners: [number, number, number][] = []; // [tile, local i, local j]
      for (const [n, tile] of tiles.entries()) {
        const w = tileWindow(tile.tx, tile.ty, S);
        if (gi >= w.i0 && gi < w.i0 + S && gj >= w.j0 && gj < w.j0 + S) owners.push([n, gi - w.i0, gj - w.j0]);
      }
      const c = t.stack.compositeAt(gi, gj);
      const ys = owners.map(([n, i, j]) => {
        const y = shapes[n].GetPosition(i, j).GetY();
        expect(Math.abs(y - c)).toBeLessThanOrEqual(joltQuantisationBound(tiles[n], i, j, 1e-5));
        return { y, bound: joltQuantisationBound(tiles[n], i, j, 1e-5) };
      });
      for (let p = 0; p < ys.length; p++) {
        for (let q = p + 1; q < ys.length; q++) {
          expect(Math.abs(ys[p].y - ys[q].y)).toBeLessThanOrEqual(ys[p].bound + ys[q].bound);
          pairs++;
        }
      }
    }
    expect(pairs).toBe(124 + 6); // 124 two-tile samples, and the six pairs of the four tiles at (31, 31)
    // Rays exactly on the seam lines, midway between samples: the ground has no crack there.
    const world = newWorld(tiles, 200, 300);
    for (let k = 0; k < 62; k++) {
      for (const [x, z] of [
        [31, k + 0.5],
        [k + 0.5, 31],
      ]) {
        const hit = world.castDown(x * 1.5, z * 1.5);
        expect(hit, `seam point (${x}, ${z})`).not.toBeNull();
        const lo = [Math.floor(x), Math.floor(z)];
        const hi = [Math.ceil(x), Math.ceil(z)];
        const mid = (t.stack.compositeAt(lo[0], lo[1]) + t.stack.compositeAt(hi[0], hi[1])) / 2;
        // On the seam the ground is the edge between two shared samples: within the larger of their bounds in any tile.
        const bound = Math.max(
          ...tiles.flatMap((tile) => {
            const w = tileWindow(tile.tx, tile.ty, S);
            return [lo, hi]
              .filter(([a, b]) => a >= w.i0 && a < w.i0 + S && b >= w.j0 && b < w.j0 + S)
              .map(([a, b]) => joltQuantisationBound(tile, a - w.i0, b - w.j0, FLOAT_SLACK));
          }),
        );
        expect(Math.abs(hit!.y - mid)).toBeLessThanOrEqual(bound);
      }
    }
  });
});

describe('the composite, not the base, is what Jolt holds after a stroke', () => {
  it('a 6 m hill stamped after creation: Jolt follows it within the bound, and the base is metres away', () => {
    const t = bumpyTerrain();
    addKindLayer(t.stack, 'hills', 'sculpt');
    stampHill(t.stack, 0, 20, 40, 8, 6);
    const tiles = tilesOf(t);
    const world = newWorld(tiles, 200, 300);
    let raised = 0;
    for (let j = 33; j <= 47; j++) {
      for (let i = 13; i <= 27; i++) {
        const tile = tiles[(j >= 31 ? 2 : 0) + (i >= 31 ? 1 : 0)];
        const w = tileWindow(tile.tx, tile.ty, S);
        // Ray at the centroid of triangle 0 of quad (i, j): mean of its three corners (i, j), (i, j+1), (i+1, j+1).
        const corners: [number, number][] = [
          [i, j],
          [i, j + 1],
          [i + 1, j + 1],
        ];
        const comp = corners.reduce((s, [a, b]) => s + t.stack.compositeAt(a, b), 0) / 3;
        const base = corners.reduce((s, [a, b]) => s + t.stack.base[b * 63 + a], 0) / 3;
        const hit = world.castDown((i + 1 / 3) * 1.5, (j + 2 / 3) * 1.5);
        const bound = Math.max(...corners.map(([a, b]) => joltQuantisationBound(tile, a - w.i0, b - w.j0, FLOAT_SLACK)));
        expect(Math.abs(hit!.y - comp)).toBeLessThanOrEqual(bound);
        if (comp - base > 1) {
          expect(Math.abs(hit!.y - base)).toBeGreaterThan(10 * bound);
          raised++;
        }
      }
    }
    expect(raised).toBeGreaterThan(50);
  });
});

describe('limits Jolt keeps: the description accepts exactly what builds a Jolt shape of the tile', () => {
  const isPow2 = (n: number) => n > 0 && (n & (n - 1)) === 0;
  it('sweep of sample counts × block sizes × bits per sample (measured against Jolt 1.1.0)', () => {
    const counts = { accepted: 0, joltRefuses: 0, joltPads: 0, seedRuleOnly: 0 };
    const seedOnly: string[] = [];
    const sweep: [number, number, number][] = [];
    for (const samples of [2, 3, 4, 5, 6, 7, 8, 9, 12, 16, 24, 31, 32, 64, 128, 256])
      for (const block of [1, 2, 3, 4, 5, 6, 7, 8, 9, 16, 32]) sweep.push([samples, block, 8]);
    for (const bits of [0, 1, 2, 8, 15, 16, 17]) sweep.push([16, 4, bits]);
    for (const [samples, block, bits] of sweep) {
      let refusal: string | null = null;
      try {
        describeTerrain({
          kind: 'collision',
          tileSamples: samples,
          tilesX: 1,
          tilesY: 1,
          metresPerQuad: 1,
          range: { min: 0, max: 10 },
          blockSize: block,
          bitsPerSample: bits,
        });
      } catch (e) {
        refusal = (e as Error).message;
      }
      const heights = Float32Array.from({ length: samples * samples }, (_, k) => (k % 7) * 0.5);
      const tile: CollisionTile = {
        tx: 0,
        ty: 0,
        heights,
        sentinel: COLLISION_NO_HEIGHT,
        blockSize: block,
        bitsPerSample: bits,
        placement: { samples, cornerX: 0, cornerZ: 0, step: 1 },
        holes: 0,
        canBeDynamic: false,
      };
      const s = heightFieldSettings(J, tile);
      const { shape, error } = createShape(J, s);
      const what = `${samples} samples, blocks of ${block}, ${bits} bits`;
      if (refusal === null) {
        expect(error, what).toBeNull();
        expect(shape!.GetSampleCount(), what).toBe(samples); // the shape is the tile, not a padded one
        counts.accepted++;
      } else {
        expect(refusal, what).toMatch(new RegExp(`\\b(${samples}|${block}|${bits})\\b`)); // names the value
        if (error !== null) counts.joltRefuses++;
        else if (shape!.GetSampleCount() !== samples) counts.joltPads++;
        else {
          // Jolt builds this tile as given: only the seed's power-of-two sample count refuses it.
          expect(isPow2(samples), what).toBe(false);
          expect(refusal, what).toMatch(/must be a power of two/);
          counts.seedRuleOnly++;
          seedOnly.push(`${samples}/${block}`);
        }
      }
      J.destroy(s);
    }
    // Counted by hand from Jolt's rules (block 2…8, bits 1…16, ⌈samples/block⌉ ≥ 2 blocks, padding to a multiple) and
    // ours, then measured to match: accepted — power-of-two samples with blocks 2, 4, 8 of at most half the tile:
    // 1 (4 samples) + 2 (8) + 3 × 5 (16…256) = 18, and bits 1, 2, 8, 15, 16 at 16/4 = 5; Jolt refuses — blocks 1, 9,
    // 16, 32 at every count (64), bits 0 and 17 (2), a block ≥ the samples (28); Jolt pads — a block in 2…8 that
    // does not divide a larger count (54: e.g. 7 samples in blocks of 2 build an 8-sample shape); Jolt builds as
    // given what only the seed's power-of-two rule refuses — 6, 9, 12, 24 samples with a dividing block (12).
    expect(counts).toEqual({ accepted: 23, joltRefuses: 94, joltPads: 54, seedRuleOnly: 12 });
    expect(seedOnly).toEqual(['6/2', '6/3', '9/3', '12/2', '12/3', '12/4', '12/6', '24/2', '24/3', '24/4', '24/6', '24/8']);
  });
  it("the sample-count ceiling is Jolt's sub-shape ID: 32768 samples build, 65536 do not (parameters only, no samples)", () => {
    for (const [samples, ok] of [
      [32768, true],
      [65536, false],
    ] as const) {
      const s = new J.HeightFieldShapeSettings();
      s.mSampleCount = samples;
      s.mBlockSize = 8;
      // No samples: Jolt checks every limit before it reads one, then builds an empty (no-collision) shape.
      const r = createShape(J, s);
      expect(r.error === null).toBe(ok);
      if (!ok) expect(r.error).toMatch(/sub shape ID bits/);
      const refusal = () => describeTerrain({ kind: 'collision', tileSamples: samples, tilesX: 1, tilesY: 1, metresPerQuad: 1, range: { min: 0, max: 1 } });
      if (ok) expect(refusal().blockSize).toBe(8);
      else expect(refusal).toThrow(/65536 samples: at most 32768/);
      J.destroy(s);
    }
  });
});

describe('`terrain collision` writes what Jolt builds, and refuses what it does not (exit 2)', () => {
  const d = tempDir('hb-terrain-jolt-');
  const store = join(d, 't.hbterrain');
  it('the files of the export, read back, build one valid shape per tile holding the composite and the hole', async () => {
    expect((await cli('terrain', 'create', store, '--tile-samples', '64', '--tiles', '2', '--range', '-10,90')).code).toBe(0);
    expect((await cli('terrain', 'sculpt', store, '--layer', 'hill', '--at', '63,63', '--radius', '20', '--height', '12')).code).toBe(0);
    expect((await cli('terrain', 'hole', store, '--at', '63,63')).code).toBe(0);
    const out = join(d, 'col');
    expect((await cli('terrain', 'collision', store, out, '--block-size', '4', '--bits-per-sample', '6')).code).toBe(0);
    const manifest = JSON.parse(readFileSync(join(out, 'collision.json'), 'utf8'));
    const tiles: CollisionTile[] = manifest.shapes.map((s: Record<string, never>) => {
      const f = readHeightfieldFile(join(out, s.file)).field;
      if (f.kind !== 'float') throw new Error('float tile expected');
      return { ...(s as object), heights: Float32Array.from(f.height_px), sentinel: manifest.sentinel } as CollisionTile;
    });
    expect(tiles.map((x) => [x.blockSize, x.bitsPerSample])).toEqual(Array(4).fill([4, 6]));
    const t = readTerrainStore(readFileSync(store));
    const world = newWorld(tiles, 100, 150);
    // Sample (63, 63) is the four-tile corner. Its six triangles (by hand, from the split): both of quads (62, 62)
    // and (63, 63), triangle 1 of quad (62, 63), triangle 0 of quad (63, 62) — Jolt has no ground at their centroids;
    // the other triangle of the last two quads stands on the hill, at the composite's height.
    for (const [x, z] of [
      [62 + 1 / 3, 62 + 2 / 3],
      [62 + 2 / 3, 62 + 1 / 3],
      [63 + 1 / 3, 63 + 2 / 3],
      [63 + 2 / 3, 63 + 1 / 3],
      [62 + 2 / 3, 63 + 1 / 3],
      [63 + 1 / 3, 62 + 2 / 3],
    ])
      expect(world.castDown(x, z), `(${x}, ${z})`).toBeNull();
    for (const [x, z, corners] of [
      [
        62 + 1 / 3,
        63 + 2 / 3,
        [
          [62, 63],
          [62, 64],
          [63, 64],
        ],
      ],
      [
        63 + 2 / 3,
        62 + 1 / 3,
        [
          [63, 62],
          [64, 63],
          [64, 62],
        ],
      ],
    ] as const) {
      const comp = corners.reduce((sum, [a, b]) => sum + t.stack.compositeAt(a, b), 0) / 3;
      expect(comp).toBeGreaterThan(10); // on the hill
      expect(Math.abs(world.castDown(x, z)!.y - comp)).toBeLessThan(0.2); // 6 bits over blocks of 4: a few cm
    }
  });
  it('refuses block sizes and bits Jolt refuses, naming the value and the rule', async () => {
    for (const [flag, v, re] of [
      ['--block-size', '16', /collision block size 16: expected an integer in Jolt's range 2…8/],
      ['--block-size', '3', /collision block size 3: the tile's 64 samples must be a multiple of it \(Jolt would pad the tile to 66 samples\)/],
      ['--bits-per-sample', '17', /collision bits per sample 17: expected an integer in Jolt's range 1…16/],
    ] as const) {
      const r = await cli('terrain', 'collision', store, join(d, `bad${v}`), flag, v);
      expect(r.code).toBe(2);
      expect(r.err).toMatch(re);
    }
  });
});
