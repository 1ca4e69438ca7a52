/**
 * R16 encoding of a base field that lives in an arena (arena.ts), on the SIMD kernel encode.wat: the codes are
 * written into the arena (returned as a view) with the same float32 steps as encodeFieldR16, bit-identical and with
 * the same counts (tested). The arena comes from the stage's execution context (src/cpu/context.ts).
 * [R] A large field is encoded in bands, each with its own counters, on whichever of this thread and the executor's
 *     helper thread (draw-thread.ts) claims it; heights are independent, so the codes and the summed counts do not
 *     depend on the split.
 */
import { inArena, pngRowsView, type Arena } from './arena.js';
import { helperReady, MAX_BANDS, onBands } from './draw-thread.js';
import { encodeFieldR16, rangeConstants, type EncodeCounts, type UnormRounding } from '../../core/encoding.js';
import { validateRange, type HeightRange } from '../../core/grid.js';

/** [R] Bands hold at least this many heights (the threads' meeting would cost more than a smaller band saves). */
const ENCODE_BAND_MIN = 1 << 18;

export function encodeInArena(
  field: Float32Array,
  range: HeightRange,
  arena: Arena,
  rounding: UnormRounding = 'half-up',
): { codes: Uint16Array; counts: EncodeCounts } {
  if (!inArena(field, arena) || arena.codesAt < 0 || field.length !== arena.n * arena.n) {
    throw new RangeError(`encodeInArena: the field (${field.length} samples) is not the ${arena.n}² base of this arena`);
  }
  validateRange(range);
  const { fmin, fscale } = rangeConstants(range);
  const buf = arena.memory.buffer;
  const vec = field.length & ~7; // eight heights per kernel step; the rest (none for n % 32 = 0) in JavaScript
  const r = rounding === 'half-even' ? 1 : 0;
  const counts: EncodeCounts = { clampedLow: 0, clampedHigh: 0, nan: 0 };
  const add = (at: number) => {
    const c = new Int32Array(buf, at, 3);
    counts.clampedLow += c[0];
    counts.clampedHigh += c[1];
    counts.nan += c[2];
  };
  // Bands of whole 8-height steps, each with its own counters.
  const count = vec >= ENCODE_BAND_MIN * 2 && helperReady() ? Math.min(MAX_BANDS, Math.floor(vec / ENCODE_BAND_MIN)) : 1;
  const cut = (k: number) => Math.floor((k * vec) / count / 8) * 8;
  const bands = Array.from({ length: count }, (_, k) => {
    const args = [field.byteOffset + 4 * cut(k), arena.codesAt + 2 * cut(k), cut(k + 1) - cut(k), fmin, fscale, arena.bandCountsAt + 16 * k, r];
    return { mine: args, helper: args };
  });
  const run = (a: readonly number[]) => arena.encode.encode(a[0], a[1], a[2], a[3], a[4], a[5], a[6]);
  if (count > 1 && onBands(arena.memory, 'encode', bands, run) !== null) {
    for (let k = 0; k < count; k++) add(arena.bandCountsAt + 16 * k);
  } else {
    arena.encode.encode(field.byteOffset, arena.codesAt, vec, fmin, fscale, arena.countsAt, r);
    add(arena.countsAt);
  }
  const codes = new Uint16Array(buf, arena.codesAt, field.length);
  if (vec < field.length) {
    const tail = encodeFieldR16(field.subarray(vec), codes.subarray(vec), range, rounding);
    counts.clampedLow += tail.clampedLow;
    counts.clampedHigh += tail.clampedHigh;
    counts.nan += tail.nan;
  }
  return { codes, counts };
}

/** [R] Bands of the Up filter hold at least this many rows (a band of 4096² codes is 8 MiB read and written). */
const UP_BAND_MIN_ROWS = 256;

/**
 * The final map's PNG scanlines (filter Up, encodePng16's), written from `codes` in this arena into its PNG room
 * (pngRowsView) by encode.wat's `up`, in bands of rows on whichever of this thread and the helper claims each: every
 * row reads only the codes, so the bytes do not depend on the split. Null when the arena has no PNG room or the codes
 * are not the arena's n² codes (encodePng16 then filters them itself).
 */
export function pngScanlinesInArena(codes: Uint16Array, arena: Arena): Uint8Array | null {
  const rows = pngRowsView(arena);
  const n = arena.n;
  if (!rows || !inArena(codes, arena) || codes.length !== n * n) return null;
  const count = n >= UP_BAND_MIN_ROWS * 2 && helperReady() ? Math.min(MAX_BANDS, Math.floor(n / UP_BAND_MIN_ROWS)) : 1;
  const cut = (k: number) => Math.floor((k * n) / count);
  const bands = Array.from({ length: count }, (_, k) => {
    const args = [codes.byteOffset, arena.pngRowsAt, n, cut(k), cut(k + 1)];
    return { mine: args, helper: args };
  });
  const run = (a: readonly number[]) => arena.encode.up(a[0], a[1], a[2], a[3], a[4]);
  if (count === 1 || onBands(arena.memory, 'pngUp', bands, run) === null) arena.encode.up(codes.byteOffset, arena.pngRowsAt, n, 0, n);
  return rows;
}
