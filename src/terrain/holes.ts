/**
 * Holes (seed 004, "TerrainHoles", "Holes are coordinates, not a mask").
 *
 * Storage: a set of sample coordinates (key j·width + i) — three holes cost three entries, not a bitmask over every
 * sample. Rules:
 *  [D] a hole kills the up-to-four quads that reference its sample (fewer on the terrain's edge and corners), in the
 *      triangle index buffer (here) and in the collision data (collision.ts writes a sentinel at the sample, and a
 *      collider drops every quad touching a sentinel) — the same set of quads both ways (tested);
 *  [R] a tile's index buffer is built count-then-fill: `countTileIndices` sizes the caller's buffer and
 *      `fillTileIndices` writes into it. Vertices are tile-local (row-major, tile samples a side); each live quad is
 *      two triangles (a, b, d) and (a, d, c) for corners a = (i, j), b = (i+1, j), c = (i, j+1), d = (i+1, j+1).
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

  /** True when none of the quad's four corner samples (i…i+1, j…j+1) is a hole. */
  quadAlive(i: number, j: number): boolean {
    if (this.keys.size === 0) return true;
    const w = this.width;
    const k = j * w + i;
    return !(this.keys.has(k) || this.keys.has(k + 1) || this.keys.has(k + w) || this.keys.has(k + w + 1));
  }

  /** Indices a tile's triangle list needs: 6 per live quad. */
  countTileIndices(t: TileWindow): number {
    let live = 0;
    for (let b = 0; b < t.size - 1; b++) for (let a = 0; a < t.size - 1; a++) if (this.quadAlive(t.i0 + a, t.j0 + b)) live++;
    return live * 6;
  }

  /** Writes the tile's triangle list into `out` (sized by countTileIndices); returns the count written. */
  fillTileIndices(t: TileWindow, out: Uint32Array): number {
    const need = this.countTileIndices(t);
    if (out.length < need) throw new InputRangeError(`tile index buffer: ${out.length} slots, the tile needs ${need}`);
    let n = 0;
    const s = t.size;
    for (let b = 0; b < s - 1; b++) {
      for (let a = 0; a < s - 1; a++) {
        if (!this.quadAlive(t.i0 + a, t.j0 + b)) continue;
        const v = b * s + a;
        out[n++] = v;
        out[n++] = v + 1;
        out[n++] = v + s + 1;
        out[n++] = v;
        out[n++] = v + s + 1;
        out[n++] = v + s;
      }
    }
    return n;
  }
}
