/**
 * Holes (seed 004, "TerrainHoles", "Holes are coordinates, not a mask").
 *
 * Storage: a set of sample coordinates (key j·width + i) — three holes cost three entries, not a bitmask over every
 * sample. Rules:
 *  [R] what a hole removes, in the mesh and in the collider alike: every TRIANGLE that has the hole sample as one of
 *      its three corners — six triangles around an interior hole (both triangles of the two quads on the split
 *      diagonal through it, one triangle of each of the other two quads), fewer on tile and terrain edges. The seed
 *      says "the up-to-four quads that reference it"; a Jolt height field can only remove ground through its
 *      no-collision sentinel, and a sentinel removes exactly the triangles that use that sample — six of those eight.
 *      Dropping all four quads in the collider would need sentinels at neighbouring samples, which remove triangles
 *      beyond the four quads (ground vanishing around the hole); so the mesh follows the collider instead, and both
 *      drop the finest set the collider can represent. A player never stands on ground the mesh does not show, and
 *      never falls through ground it does;
 *  [R] both derive from one function, `tileHoleMask` (the tile's hole samples): collision.ts writes the sentinel at
 *      exactly those samples, and the index buffer drops exactly the triangles with a masked corner under Jolt's
 *      split (`QUAD_TRIANGLES`) — tested by ray casts through Jolt at every triangle's centroid;
 *  [R] the split is Jolt's (HeightFieldShape.cpp, "T1A"/"T1B"): the diagonal of quad (i, j) runs from (i, j) to
 *      (i + 1, j + 1); triangle 0 is (i, j), (i, j + 1), (i + 1, j + 1) and triangle 1 is (i, j), (i + 1, j + 1),
 *      (i + 1, j), in Jolt's vertex order — with x along columns, z along rows and y up, both wind counter-clockwise
 *      seen from +y (right-handed normal +y), the face a downward ray hits;
 *  [R] a tile's index buffer is built count-then-fill: `countTileIndices` sizes the caller's buffer and
 *      `fillTileIndices` writes into it. Vertices are tile-local (row-major, tile samples a side); a quad's live
 *      triangles are written in order, triangle 0 first.
 */
import type { TileWindow } from './tiles.js';
import { InputRangeError } from '../errors.js';

export class TerrainHoles {
  private readonly keys = new Set<number>();

  constructor(
    readonly width: number,
    readonly height: number,
  ) {}

  get count(): number {
    return this.keys.size;
  }

  private key(i: number, j: number, what: string): number {
    if (!Number.isInteger(i) || !Number.isInteger(j) || i < 0 || j < 0 || i >= this.width || j >= this.height) {
      throw new InputRangeError(`${what}: sample (${i}, ${j}) outside the ${this.width}×${this.height} grid`);
    }
    return j * this.width + i;
  }

  add(i: number, j: number): boolean {
    const k = this.key(i, j, 'hole');
    if (this.keys.has(k)) return false;
    this.keys.add(k);
    return true;
  }

  remove(i: number, j: number): boolean {
    return this.keys.delete(this.key(i, j, 'hole removal'));
  }

  has(i: number, j: number): boolean {
    return this.keys.has(j * this.width + i);
  }

  /** Hole coordinates, row-major order (deterministic for the store). */
  list(): [number, number][] {
    return [...this.keys].sort((a, b) => a - b).map((k) => [k % this.width, Math.floor(k / this.width)]);
  }

  /**
   * The one function both the mesh and the collider derive from: 1 at each tile-local sample (row-major, size²)
   * that is a hole, else 0. Returns the mask and the number of holes in the tile.
   */
  tileHoleMask(t: TileWindow, out: Uint8Array = new Uint8Array(t.size * t.size)): { mask: Uint8Array; holes: number } {
    if (out.length !== t.size * t.size) throw new InputRangeError(`tile hole mask: ${out.length} slots, expected ${t.size}² = ${t.size * t.size}`);
    out.fill(0);
    let holes = 0;
    for (const k of this.keys) {
      const i = (k % this.width) - t.i0;
      const j = Math.floor(k / this.width) - t.j0;
      if (i < 0 || j < 0 || i >= t.size || j >= t.size) continue;
      out[j * t.size + i] = 1;
      holes++;
    }
    return { mask: out, holes };
  }

  /** Indices a tile's triangle list needs: 3 per live triangle. */
  countTileIndices(t: TileWindow): number {
    if (this.keys.size === 0) return (t.size - 1) * (t.size - 1) * 6;
    const { mask } = this.tileHoleMask(t);
    let live = 0;
    for (let b = 0; b < t.size - 1; b++) for (let a = 0; a < t.size - 1; a++) for (let k = 0; k < 2; k++) if (triangleAlive(mask, t.size, a, b, k)) live++;
    return live * 3;
  }

  /** Writes the tile's triangle list into `out` (sized by countTileIndices); returns the count written. */
  fillTileIndices(t: TileWindow, out: Uint32Array): number {
    const need = this.countTileIndices(t);
    if (out.length < need) throw new InputRangeError(`tile index buffer: ${out.length} slots, the tile needs ${need}`);
    const s = t.size;
    const mask = this.keys.size === 0 ? null : this.tileHoleMask(t).mask;
    let n = 0;
    for (let b = 0; b < s - 1; b++) {
      for (let a = 0; a < s - 1; a++) {
        for (let k = 0; k < 2; k++) {
          if (mask && !triangleAlive(mask, s, a, b, k)) continue;
          for (const [di, dj] of QUAD_TRIANGLES[k]) out[n++] = (b + dj) * s + a + di;
        }
      }
    }
    return n;
  }
}

/** Jolt's split of a quad, as [di, dj] corner offsets from (i, j) in Jolt's vertex order (see header). */
export const QUAD_TRIANGLES: readonly (readonly (readonly [number, number])[])[] = [
  [
    [0, 0],
    [0, 1],
    [1, 1],
  ],
  [
    [0, 0],
    [1, 1],
    [1, 0],
  ],
];

/** True when triangle k (0 or 1) of tile-local quad (a, b) has no masked corner (mask from `tileHoleMask`). */
export function triangleAlive(mask: Uint8Array, size: number, a: number, b: number, k: number): boolean {
  for (const [di, dj] of QUAD_TRIANGLES[k]) if (mask[(b + dj) * size + a + di] !== 0) return false;
  return true;
}
