/**
 * Textured height draws (natural stamps and location textures) into an arena field (arena.ts) on the kernel draw.wat: the asset's mip levels are copied into
 * the arena once, the instance's parameters go into the arena's parameter block, and one call draws the instance
 * with the float32 steps of drawAsset (bit-identical, tested). Returns null when the field is not an arena field or
 * the arena's asset region is full; drawAsset then runs its JavaScript loop.
 */
import { arenaOf, type Arena } from './arena.js';
import type { HeightAsset } from '../assets.js';

const placed = new WeakMap<Arena, Map<HeightAsset, number[]>>();

/** Byte offsets of every level of `asset` in the arena, copying them on first use (null when they do not fit). */
function levelOffsets(arena: Arena, asset: HeightAsset): number[] | null {
  let byAsset = placed.get(arena);
  if (!byAsset) placed.set(arena, (byAsset = new Map()));
  const known = byAsset.get(asset);
  if (known) return known;
  const bytes = asset.levels.reduce((s, l) => s + ((l.length * 4 + 15) & ~15), 0);
  if (arena.assetsTop + bytes > arena.assetsEnd) return null;
  const offsets = asset.levels.map((level) => {
    const at = arena.assetsTop;
    new Float32Array(arena.memory.buffer, at, level.length).set(level);
    arena.assetsTop += (level.length * 4 + 15) & ~15;
    return at;
  });
  byAsset.set(asset, offsets);
  return offsets;
}

export interface KernelDraw {
  inv: readonly number[];
  W: number;
  grid: { xmin: number; ymin: number; size: number; n: number };
  cols: [number, number];
  rows: [number, number];
  lower: number;
  upper: number;
  twoLevels: boolean;
  /** float32 values: level weights, program strength k, constant c, lerp α; sMax as given. */
  wA: number;
  wB: number;
  mode: 0 | 1 | 2 | 3 | 4;
  k: number;
  c: number;
  a: number;
  sMax: number;
}

/** Draws one instance into `field` on the kernel; the pixel count, or null when the kernel cannot serve. */
export function drawInArena(field: Float32Array, asset: HeightAsset, d: KernelDraw): number | null {
  const arena = arenaOf(field);
  if (!arena || field.length !== d.grid.n * d.grid.n) return null;
  const at = levelOffsets(arena, asset);
  if (!at) return null;
  const buf = arena.memory.buffer;
  const f = new Float64Array(buf, arena.drawParamsAt, 16);
  const i = new Int32Array(buf, arena.drawParamsAt + 128, 12);
  f.set(d.inv.slice(0, 6));
  f[6] = d.W;
  f[7] = d.grid.xmin;
  f[8] = d.grid.ymin;
  f[9] = d.grid.size / d.grid.n;
  f[10] = d.k;
  f[11] = d.c;
  f[12] = d.a;
  f[13] = d.sMax;
  f[14] = d.wA;
  f[15] = d.wB;
  i[0] = d.cols[0];
  i[1] = d.cols[1];
  i[2] = d.rows[0];
  i[3] = d.rows[1];
  i[4] = d.grid.n;
  i[5] = field.byteOffset;
  i[6] = at[d.lower];
  i[7] = asset.sizes[d.lower];
  i[8] = at[d.upper];
  i[9] = asset.sizes[d.upper];
  i[10] = d.twoLevels ? 1 : 0;
  i[11] = d.mode;
  return arena.draw.draw(arena.drawParamsAt);
}

/**
 * Lower and upper envelope of an arena field over rows j0..j1, columns i0..i1 (the existing-terrain query), or null
 * when the field is not an arena field. [R] Also null when an envelope is ±0: among equal zeros the loop keeps the
 * first it meets, which lane order cannot promise, so those rare queries take the JavaScript loop.
 */
export function envelopeInArena(field: Float32Array, n: number, i0: number, i1: number, j0: number, j1: number): [number, number] | null {
  const arena = arenaOf(field);
  if (!arena || field.length !== n * n) return null;
  arena.draw.envelope(field.byteOffset, n, i0, i1, j0, j1, arena.drawParamsAt);
  const r = new Float32Array(arena.memory.buffer, arena.drawParamsAt, 2);
  if (r[0] === 0 || r[1] === 0) return null;
  return [r[0], r[1]];
}
