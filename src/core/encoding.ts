/**
 * Height encoding: metres <-> R16 UNORM codes.
 *
 * Inputs: float heights in metres and an authored range (default −500 … 500 m).
 * Outputs: UNORM16 codes, counts of pixels the range clamped; decoded metres.
 * Seed rules (000, "Encoding a Deliverable R16 Heightmap"; notes/gpu-rules.md, Direct3D FLOAT→UNORM):
 *  - u = clamp((H + 500) × 0.001, 0, 1), evaluated in float32 as written: fround(fround(H − min) × fround(1/(max − min))).
 *  - UNORM16(u): NaN → 0; clamp to [0, 1]; c = c × 65535; c = c + 0.5; drop the fraction — each step in float32.
 *    This is round-half-up, not ties-to-even: a float32 product landing on k + 0.5 encodes as k + 1. The rule is the
 *    conventions' encoding.rounding ('half-even' rounds ties to even instead: an ablation); it is written once, in
 *    unormRound, for the scalar and the field encoders, and once in the kernel (core/wasm/encode.wat).
 *  - decode: q × (max − min) / 65535 + min, in float64 (for the default range: q × 1000 / 65535 − 500).
 */
import { DEFAULT_RANGE, UNORM16_MAX, validateRange, type HeightRange } from './grid.js';
import { instantiateWasm, newWasmMemory, wasmDisabled } from './wasm.js';
import { ENCODE_WASM_BASE64 } from './wasm/encode-wasm.js';
import { checkModule } from './wasm/layouts.js';

const f32 = Math.fround;

/** How a scaled value c = u·65535 becomes an integer code (conventions encoding.rounding). */
export type UnormRounding = 'half-up' | 'half-even';

/**
 * The code of a float32 u in (0, 1): c = fround(u·65535), then 'half-up': trunc(fround(c + 0.5)) (Direct3D);
 * 'half-even': the nearest integer, ties to even (c is a float32 below 65536, so the arithmetic is exact).
 */
export function unormRound(u: number, qmax: number, halfEven: boolean): number {
  const c = f32(u * qmax);
  if (!halfEven) return f32(c + 0.5) | 0;
  const r = Math.floor(c);
  const d = c - r;
  return d > 0.5 || (d === 0.5 && (r & 1) === 1) ? r + 1 : r;
}

/** Direct3D float → UNORM16 conversion of one value, in float32 arithmetic. */
export function encodeUnorm16(u: number, rounding: UnormRounding = 'half-up'): number {
  if (u !== u) return 0; // NaN → 0
  const c = f32(u);
  if (c <= 0) return 0;
  if (c >= 1) return UNORM16_MAX;
  return unormRound(c, UNORM16_MAX, rounding === 'half-even');
}

/** The float32 constants of the range map u = (H − min) × (1 / (max − min)). */
export function rangeConstants(range: HeightRange): { fmin: number; fscale: number } {
  return { fmin: f32(range.min), fscale: f32(1 / (range.max - range.min)) };
}

/** Normalized height u (before clamping), float32, as the article writes it. */
export function heightToUnorm(h: number, range: HeightRange = DEFAULT_RANGE): number {
  const { fmin, fscale } = rangeConstants(range);
  return f32(f32(f32(h) - fmin) * fscale);
}

/** Metres → R16 code through the authored range and the UNORM16 rule. */
export function encodeHeightR16(h: number, range: HeightRange = DEFAULT_RANGE, rounding: UnormRounding = 'half-up'): number {
  validateRange(range);
  return encodeUnorm16(heightToUnorm(h, range), rounding);
}

/** R16 code → metres: q × (max − min) / 65535 + min, float64. */
export function decodeHeightR16(q: number, range: HeightRange = DEFAULT_RANGE): number {
  return (q * (range.max - range.min)) / UNORM16_MAX + range.min;
}

/** What an encode pass had to do to values outside the representable range. */
export interface EncodeCounts {
  /** Heights below range.min, written as code 0. */
  clampedLow: number;
  /** Heights above range.max, written as code 65535. */
  clampedHigh: number;
  /** NaN heights, written as code 0 (Direct3D rule). Counted separately from clampedLow. */
  nan: number;
}

/** The JavaScript encode of height_px[from, to) into out (the reference for the SIMD kernel); counts added to `c`. */
function encodeRange(
  height_px: ArrayLike<number>,
  out: Uint16Array,
  from: number,
  to: number,
  fmin: number,
  fscale: number,
  c: EncodeCounts,
  halfEven: boolean,
): void {
  let clampedLow = 0;
  let clampedHigh = 0;
  let nan = 0;
  // A local copy: an imported binding read in a hot loop keeps V8's optimized code several times slower.
  const qmax = UNORM16_MAX;
  for (let i = from; i < to; i++) {
    const h = height_px[i];
    const u = f32(f32(f32(h) - fmin) * fscale);
    // Common case first; u ∈ (0, 1) so the float32 value c + 0.5 is positive and `| 0` truncates it.
    if (u > 0 && u < 1) {
      out[i] = unormRound(u, qmax, halfEven);
    } else if (h !== h) {
      nan++;
      out[i] = 0;
    } else if (u <= 0) {
      if (u < 0) clampedLow++;
      out[i] = 0;
    } else {
      if (u > 1) clampedHigh++;
      out[i] = qmax;
    }
  }
  c.clampedLow += clampedLow;
  c.clampedHigh += clampedHigh;
  c.nan += nan;
}

interface EncodeKernel {
  encode(src: number, dst: number, count: number, fmin: number, fscale: number, counts: number, rounding: number): void;
}

/** [R] Typed fields from this many samples up go through the SIMD kernel, in chunks of ENCODE_CHUNK samples. */
const ENCODE_SIMD_FROM = 1 << 16;
const ENCODE_CHUNK = 1 << 18;
let scratch: { k: EncodeKernel; src: Float32Array; dst: Uint16Array; counts: Int32Array; srcAt: number; dstAt: number; countsAt: number } | null | undefined;

/** A small kernel memory (1 MiB in, 512 KiB out) made once and reused, or null without WebAssembly SIMD. */
function encodeScratch() {
  if (wasmDisabled()) return null;
  if (scratch === undefined) {
    const srcAt = 0;
    const dstAt = ENCODE_CHUNK * 4;
    const countsAt = dstAt + ENCODE_CHUNK * 2;
    const memory = newWasmMemory(countsAt + 16);
    const k = memory ? instantiateWasm<EncodeKernel>(ENCODE_WASM_BASE64, { env: { memory } }) : null;
    if (k) checkModule('encode', k as unknown as Record<string, unknown>);
    scratch =
      k && memory
        ? {
            k,
            srcAt,
            dstAt,
            countsAt,
            src: new Float32Array(memory.buffer, srcAt, ENCODE_CHUNK),
            dst: new Uint16Array(memory.buffer, dstAt, ENCODE_CHUNK),
            counts: new Int32Array(memory.buffer, countsAt, 3),
          }
        : null;
  }
  return scratch;
}

/**
 * Encodes a whole field into `out` (same length) and returns the counts of clamped and NaN pixels.
 * Identical, value for value, to encodeHeightR16 on each element. Float32Array and Float64Array fields run through
 * the SIMD kernel (core/wasm/encode.wat; copying a chunk into float32 is the rule's first rounding), bit-identical to
 * the loop (tested); other array-likes, short fields and HEIGHTBENCH_NO_WASM=1 use the loop.
 */
export function encodeFieldR16(
  height_px: ArrayLike<number>,
  out: Uint16Array,
  range: HeightRange = DEFAULT_RANGE,
  rounding: UnormRounding = 'half-up',
): EncodeCounts {
  const halfEven = rounding === 'half-even';
  validateRange(range);
  if (out.length !== height_px.length) {
    throw new RangeError(`encodeFieldR16: output length ${out.length} does not match input length ${height_px.length}`);
  }
  const { fmin, fscale } = rangeConstants(range);
  const counts: EncodeCounts = { clampedLow: 0, clampedHigh: 0, nan: 0 };
  const n = height_px.length;
  const typed = height_px instanceof Float32Array || height_px instanceof Float64Array;
  const k = typed && n >= ENCODE_SIMD_FROM ? encodeScratch() : null;
  if (!k) {
    encodeRange(height_px, out, 0, n, fmin, fscale, counts, halfEven);
    return counts;
  }
  const field = height_px as Float32Array | Float64Array;
  const whole = n & ~7; // eight samples per kernel step; the rest in the loop
  for (let o = 0; o < whole; o += ENCODE_CHUNK) {
    const len = Math.min(ENCODE_CHUNK, whole - o);
    k.src.set(field.subarray(o, o + len));
    k.k.encode(k.srcAt, k.dstAt, len, fmin, fscale, k.countsAt, halfEven ? 1 : 0);
    out.set(k.dst.subarray(0, len), o);
    counts.clampedLow += k.counts[0];
    counts.clampedHigh += k.counts[1];
    counts.nan += k.counts[2];
  }
  encodeRange(height_px, out, whole, n, fmin, fscale, counts, halfEven);
  return counts;
}

const decodeTables = new Map<string, Float64Array>();

/** Exact decode of every code for a range, computed once per range (the formula, not an approximation). */
export function decodeTable(range: HeightRange = DEFAULT_RANGE): Float64Array {
  validateRange(range);
  const key = `${range.min},${range.max}`;
  let table = decodeTables.get(key);
  if (!table) {
    table = new Float64Array(UNORM16_MAX + 1);
    for (let q = 0; q <= UNORM16_MAX; q++) table[q] = decodeHeightR16(q, range);
    decodeTables.set(key, table);
  }
  return table;
}

/** Decodes a code field into `out` (Float32Array or Float64Array of the same length) and returns it. */
export function decodeFieldR16<T extends Float32Array | Float64Array>(code_px: Uint16Array, out: T, range: HeightRange = DEFAULT_RANGE): T {
  if (out.length !== code_px.length) {
    throw new RangeError(`decodeFieldR16: output length ${out.length} does not match input length ${code_px.length}`);
  }
  const table = decodeTable(range);
  const n = code_px.length;
  for (let i = 0; i < n; i++) out[i] = table[code_px[i]];
  return out;
}
