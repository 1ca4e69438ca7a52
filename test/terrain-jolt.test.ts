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
import { beforeAll, describe, expect, it } from 'vitest';
import {
  addKindLayer,
  COLLISION_NO_HEIGHT,
  collisionTile,
  createTerrain,
  describeTerrain,
  readHeightfieldFile,
  stampHill,
  tileWindow,
  type CollisionTile,
  type Terrain,
  type TerrainDescription,
} from '../src/index.js';
import { cli, tempDir } from './helpers.js';
import { createShape, heightFieldSettings, JoltTerrain, joltQuantisationBound, loadJolt, type Jolt } from './jolt-terrain.js';

let J: Jolt;
beforeAll(async () => {
  J = await loadJolt();
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
    const world = new JoltTerrain(J, tiles, 200, 300);
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
    world.destroy();
  });
});
