/**
 * R16 encoding of a base field that lives in an arena (arena.ts), on the SIMD kernel encode.wat: the codes are
 * written into the arena (returned as a view) with the same float32 steps as encodeFieldR16, bit-identical and with
 * the same counts (tested). Fields elsewhere return null and take the JavaScript path.
 */
import { arenaOf } from './arena.js';
import { encodeFieldR16, rangeConstants, type EncodeCounts } from '../../core/encoding.js';
import { validateRange, type HeightRange } from '../../core/grid.js';

export function encodeInArena(field: Float32Array, range: HeightRange): { codes: Uint16Array; counts: EncodeCounts } | null {
  const arena = arenaOf(field);
  if (!arena || arena.codesAt < 0 || field.length !== arena.n * arena.n) return null;
  validateRange(range);
  const { fmin, fscale } = rangeConstants(range);
  const buf = arena.memory.buffer;
  const vec = field.length & ~7; // eight heights per kernel step; the rest (none for n % 32 = 0) in JavaScript
  arena.encode.encode(field.byteOffset, arena.codesAt, vec, fmin, fscale, arena.countsAt);
  const codes = new Uint16Array(buf, arena.codesAt, field.length);
  const c = new Int32Array(buf, arena.countsAt, 3);
  const counts: EncodeCounts = { clampedLow: c[0], clampedHigh: c[1], nan: c[2] };
  if (vec < field.length) {
    const tail = encodeFieldR16(field.subarray(vec), codes.subarray(vec), range);
    counts.clampedLow += tail.clampedLow;
    counts.clampedHigh += tail.clampedHigh;
    counts.nan += tail.nan;
  }
  return { codes, counts };
}
