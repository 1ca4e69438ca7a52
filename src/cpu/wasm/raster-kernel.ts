/**
 * Runs the raster kernel (raster.wat) on an arena: the triangles set up and binned by rasterizeTriangles
 * (src/cpu/raster.ts) are copied into the free part of the arena's asset region, and the kernel finds and adds every
 * span of the bands, the same operations in the same order as rasterRows and spanF32 (tested bit-identical). The
 * target is the arena's raster view.
 * [R] The bands go to both threads in up to MAX_BANDS runs of whole bands (draw-thread.ts onBands, each run claimed by
 *     whichever thread is free): every pixel lies in one band and a band is drawn whole by one thread in draw order,
 *     so the bytes are those of one thread whatever the split.
 */
import { MAX_BANDS, onBands } from './draw-thread.js';
import type { Arena } from './arena.js';
import { blockBytes, blockLayout, CONSTANTS } from '../../core/wasm/layouts.js';

/** Float64 values per triangle record (the 'triangle' block of layouts.ts). */
export const TRIANGLE_RECORD = blockBytes('triangle') / 8;

const TRI = blockLayout('triangle').fields;
// rasterizeTriangles writes the record by these float64 indices: refuse any other layout.
const INDEX: Record<string, number> = { edges: 0, s: 12, strict: 15, h: 18, invArea: 21, j0: 22, j1: 23, i0: 24, i1: 25 };
for (const [f, i] of Object.entries(INDEX))
  if (TRI[f]?.offset !== 8 * i || TRI[f]?.type !== 'f64') throw new Error(`raster-kernel: triangle field ${f} is not float64 ${i} of the record in layouts.ts`);

/** Rows per band (raster.wat draws band by band). */
export const BAND_SHIFT: number = CONSTANTS.bandShift;

/**
 * Draws `live` triangle records of `rec` into the arena's raster view, band by band: `binned` holds record indices,
 * band b's from start[b] to start[b + 1] − 1 in draw order. `C` is the sample point in 1/256 pixel. Returns the pixels
 * covered, or null when the records do not fit the arena's free asset room (the caller draws them).
 */
export function rasterInArena(arena: Arena, rec: Float64Array, live: number, binned: Int32Array, start: Int32Array, C: number): number | null {
  const bands = start.length - 1;
  const recAt = (arena.assetsTop + 15) & ~15;
  const binnedAt = recAt + live * TRIANGLE_RECORD * 8;
  const startAt = binnedAt + binned.length * 4;
  if (startAt + start.length * 4 > arena.assetsEnd) return null;
  const buffer = arena.memory.buffer;
  new Float64Array(buffer, recAt, live * TRIANGLE_RECORD).set(rec.subarray(0, live * TRIANGLE_RECORD));
  new Int32Array(buffer, binnedAt, binned.length).set(binned);
  new Int32Array(buffer, startAt, start.length).set(start);
  // Every argument of the kernel's call, as the helper thread is handed them (only the band range differs).
  const args = (b0: number, b1: number) => [recAt, binnedAt, startAt, b0, b1, arena.rasterAt, arena.n, C];
  const run = (a: readonly number[]) => arena.raster.bands(a[0], a[1], a[2], a[3], a[4], a[5], a[6], a[7]);
  const runs = Math.min(MAX_BANDS, bands);
  const split = Array.from({ length: runs }, (_, k) => {
    const a = args(Math.floor((k * bands) / runs), Math.floor(((k + 1) * bands) / runs));
    return { mine: a, helper: a };
  });
  return onBands(arena.memory, 'raster', split, run) ?? run(args(0, bands));
}
