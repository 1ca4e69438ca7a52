/**
 * Textured height draws (natural stamps and location textures) into an arena field (arena.ts) on the kernel draw.wat: the asset's mip levels are copied into
 * the arena once, the instance's parameters go into the arena's parameter block, and one call draws the instance
 * with the float32 steps of drawAsset (bit-identical, tested). The arena comes from the stage's execution context
 * (src/cpu/context.ts); the parameter block is the 'draw' block of layouts.ts, written by writeBlock (which
 * refuses a value the kernel does not handle). Returns null when the arena's asset region is full; drawAsset then
 * runs its JavaScript loop.
 */
import { inArena, type Arena } from './arena.js';
import { blockLayout, writeBlock } from '../../core/wasm/layouts.js';
import { drawBands, HELPER_MIN_PIXELS, HELPER_MIN_ROWS, helperReady, MAX_BANDS } from './draw-thread.js';
import type { HeightAsset } from '../../assets/assets.js';

/** The draw block's size and the byte offsets of its row fields (i32), for the helper's copy of a block. */
const DRAW_BLOCK = (() => {
  const l = blockLayout('draw');
  return { size: l.size, j0: l.fields.j0.offset, j1: l.fields.j1.offset };
})();
/** Bytes between the bands' blocks (arena.ts bandParamsAt). */
const DRAW_BLOCK_BYTES = (DRAW_BLOCK.size + 15) & ~15;

/** Byte offsets of every level of `asset` in the arena, copying them on first use (null when they do not fit). */
export function levelOffsets(arena: Arena, asset: HeightAsset): number[] | null {
  const byAsset = arena.placedAssets;
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
  /** Pixel centre (conventions grid.pixelCentre). */
  pc: number;
}

/** The draw block (layouts.ts 'draw') of `d` on `field`, its asset's levels at byte offsets `at` (levelOffsets). */
export function drawBlock(field: Float32Array, asset: HeightAsset, d: KernelDraw, at: readonly number[]) {
  return {
    inv: d.inv.slice(0, 6),
    W: d.W,
    xmin: d.grid.xmin,
    ymin: d.grid.ymin,
    px: d.grid.size / d.grid.n,
    k: d.k,
    c: d.c,
    a: d.a,
    sMax: d.sMax,
    wA: d.wA,
    wB: d.wB,
    pc: d.pc,
    i0: d.cols[0],
    i1: d.cols[1],
    j0: d.rows[0],
    j1: d.rows[1],
    n: d.grid.n,
    field: field.byteOffset,
    levelA: at[d.lower],
    nA: asset.sizes[d.lower],
    levelB: at[d.upper],
    nB: asset.sizes[d.upper],
    twoLevels: d.twoLevels ? 1 : 0,
    mode: d.mode,
  };
}

/** Draws one instance into `field` (a view of `arena`) on the kernel; the pixel count, or null when the kernel cannot serve. */
export function drawInArena(field: Float32Array, asset: HeightAsset, d: KernelDraw, arena: Arena): number | null {
  if (!inArena(field, arena) || field.length !== d.grid.n * d.grid.n) throw new RangeError(`drawInArena: the field is not an ${d.grid.n}² field of this arena`);
  const at = levelOffsets(arena, asset);
  if (!at) return null;
  const block = (j0: number, j1: number) => ({ ...drawBlock(field, asset, d, at), j0, j1 });
  const [j0, j1] = d.rows;
  const rows = j1 - j0 + 1;
  // [R] A large draw is split into bands of rows drawn by this thread and the helper thread (draw-thread.ts): each
  //     row drawn by one thread, so the bytes do not depend on the split.
  writeBlock(arena.memory.buffer, arena.drawParamsAt, 'draw', block(j0, j1));
  const pixels = rows * (d.cols[1] - d.cols[0] + 1);
  if (rows >= 2 * HELPER_MIN_ROWS && pixels >= HELPER_MIN_PIXELS && helperReady()) {
    const count = Math.max(2, Math.min(MAX_BANDS, Math.floor(rows / HELPER_MIN_ROWS), Math.floor(pixels / HELPER_MIN_PIXELS)));
    // Band k's block is this one with its rows.
    const bytes = new Uint8Array(arena.memory.buffer);
    const i32 = new Int32Array(arena.memory.buffer);
    const ats = Array.from({ length: count }, (_, k) => {
      const at = arena.bandParamsAt + k * DRAW_BLOCK_BYTES;
      bytes.copyWithin(at, arena.drawParamsAt, arena.drawParamsAt + DRAW_BLOCK.size);
      i32[(at + DRAW_BLOCK.j0) >> 2] = j0 + Math.floor((k * rows) / count);
      i32[(at + DRAW_BLOCK.j1) >> 2] = j0 + Math.floor(((k + 1) * rows) / count) - 1;
      return at;
    });
    const all = drawBands(arena.memory, arena.draw.draw, ats);
    if (all !== null) return all;
  }
  return arena.draw.draw(arena.drawParamsAt);
}

/**
 * Lower and upper envelope of an arena field over rows j0..j1, columns i0..i1 (the existing-terrain query), or null
 * when the field is not in the arena. [R] Also null when an envelope is ±0: among equal zeros the loop keeps the
 * first it meets, which lane order cannot promise, so those rare queries take the JavaScript loop.
 */
export function envelopeInArena(field: Float32Array, n: number, i0: number, i1: number, j0: number, j1: number, arena: Arena): [number, number] | null {
  if (!inArena(field, arena) || field.length !== n * n) return null;
  arena.draw.envelope(field.byteOffset, n, i0, i1, j0, j1, arena.drawParamsAt);
  const r = new Float32Array(arena.memory.buffer, arena.drawParamsAt, 2);
  if (r[0] === 0 || r[1] === 0) return null;
  return [r[0], r[1]];
}
