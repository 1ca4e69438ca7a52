/**
 * R16 encoding of a base field that lives in an arena (arena.ts), on the SIMD kernel encode.wat: the codes are
 * written into the arena (returned as a view) with the same float32 steps as encodeFieldR16, bit-identical and with
 * the same counts (tested). The arena comes from the stage's execution context (src/cpu/context.ts).
 */
import { inArena, type Arena } from './arena.js';
import { encodeFieldR16, rangeConstants, type EncodeCounts, type UnormRounding } from '../../core/encoding.js';
import { validateRange, type HeightRange } from '../../core/grid.js';

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
  arena.encode.encode(field.byteOffset, arena.codesAt, vec, fmin, fscale, arena.countsAt, rounding === 'half-even' ? 1 : 0);
  const codes = new Uint16Array(buf, arena.codesAt, field.length);
  const c = new Int32Array(buf, arena.countsAt, 3);
  const counts: EncodeCounts = { clampedLow: c[0], clampedHigh: c[1], nan: c[2] };
  if (vec < field.length) {
    const tail = encodeFieldR16(field.subarray(vec), codes.subarray(vec), range, rounding);
    counts.clampedLow += tail.clampedLow;
    counts.clampedHigh += tail.clampedHigh;
    counts.nan += tail.nan;
  }
  return { codes, counts };
}
