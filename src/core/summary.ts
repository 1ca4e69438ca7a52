/**
 * What a field summary states: the NaN, +Inf and −Inf samples of a float field with its least and greatest finite
 * value, or the least and greatest code of a u16 field (`info`, and every reader's summary).
 * Inputs: the samples. Outputs: counts and extremes (null where no sample is finite, or the field is empty).
 * Rules: an extreme is the first of its value met in sample order (only ±0 differ among equal floats);
 * non-finite samples never count as extremes.
 * [R] Float32 fields and codes are scanned on a WebAssembly SIMD kernel (wasm/summary.wat) in chunks of 1 MiB copied
 *     into its memory: a one-shot process would otherwise run the loops below in V8's baseline tiers (~25 ns a sample
 *     on a busy machine). A zero extreme (whose sign the lanes cannot order) is decided again by the loop. The loops
 *     are the reference the kernel must equal (test/summary.test.ts); HEIGHTBENCH_NO_WASM=1 runs them alone.
 */
import { instantiateWasm, wasmDisabled } from './wasm.js';
import { SUMMARY_WASM_BASE64 } from './wasm/summary-wasm.js';

export interface FloatSummary {
  nan: number;
  posInf: number;
  negInf: number;
  /** Least and greatest finite sample; null when none is finite. */
  min: number | null;
  max: number | null;
}

interface SummaryKernel {
  memory: { buffer: ArrayBuffer };
  floats(count: number, out: number): void;
  codes(count: number, out: number): void;
  swap32(bytes: number): void;
  swap16(bytes: number): void;
}

/** Chunk bytes at offset 0; the state block right after. */
const CHUNK_BYTES = 1 << 20;
const OUT = CHUNK_BYTES;

let kernel: SummaryKernel | null | undefined;

function summaryKernel(): SummaryKernel | null {
  if (wasmDisabled()) return null;
  kernel ??= instantiateWasm<SummaryKernel>(SUMMARY_WASM_BASE64);
  return kernel;
}

/** The JavaScript loops (the reference): non-finite counts, then the finite extremes with strict comparisons. */
export function summarizeFloatsJs(values: ArrayLike<number>): FloatSummary {
  let nan = 0;
  let posInf = 0;
  let negInf = 0;
  for (let i = 0; i < values.length; i++) {
    const v = values[i];
    if (v !== v) nan++;
    else if (v === Infinity) posInf++;
    else if (v === -Infinity) negInf++;
  }
  const [min, max] = finiteExtremes(values);
  return { nan, posInf, negInf, min, max };
}

function finiteExtremes(values: ArrayLike<number>): [number | null, number | null] {
  let lo = Infinity;
  let hi = -Infinity;
  for (let i = 0; i < values.length; i++) {
    const x = values[i];
    if (x !== x || x === Infinity || x === -Infinity) continue;
    if (x < lo) lo = x;
    if (x > hi) hi = x;
  }
  return [Number.isFinite(lo) ? lo : null, Number.isFinite(hi) ? hi : null];
}

/** The kernel's float state block, emptied: no non-finite sample counted, extremes at ±Infinity. */
function freshFloatState(k: SummaryKernel): DataView {
  const state = new DataView(k.memory.buffer, OUT, 32);
  state.setInt32(0, 0, true);
  state.setInt32(4, 0, true);
  state.setInt32(8, 0, true);
  state.setFloat32(12, Infinity, true);
  state.setFloat32(16, -Infinity, true);
  return state;
}

/** The summary of a float field: on the kernel for float32, else (or without WebAssembly) summarizeFloatsJs. */
export function summarizeFloats(values: Float32Array | Float64Array | ArrayLike<number>): FloatSummary {
  const k = values instanceof Float32Array ? summaryKernel() : null;
  if (!k || !(values instanceof Float32Array)) return summarizeFloatsJs(values);
  const state = freshFloatState(k);
  const per = CHUNK_BYTES / 4;
  const chunk = new Float32Array(k.memory.buffer, 0, per);
  for (let at = 0; at < values.length; at += per) {
    const len = Math.min(per, values.length - at);
    chunk.set(values.subarray(at, at + len));
    k.floats(len, OUT);
  }
  let min: number | null = state.getFloat32(12, true);
  let max: number | null = state.getFloat32(16, true);
  if (min === 0 || max === 0) [min, max] = finiteExtremes(values); // ±0: the first zero met decides its sign
  return {
    nan: state.getInt32(0, true),
    posInf: state.getInt32(4, true),
    negInf: state.getInt32(8, true),
    min: Number.isFinite(min) ? min : null,
    max: Number.isFinite(max) ? max : null,
  };
}

/** Least and greatest code of a u16 field (null when empty): the loop, the reference. */
export function codeRangeJs(codes: ArrayLike<number>): { min: number; max: number } | null {
  if (codes.length === 0) return null;
  let lo = 65535;
  let hi = 0;
  for (let i = 0; i < codes.length; i++) {
    const q = codes[i];
    if (q < lo) lo = q;
    if (q > hi) hi = q;
  }
  return { min: lo, max: hi };
}

/** Least and greatest code of a u16 field (null when empty), on the kernel where it runs. */
export function codeRange(codes: Uint16Array): { min: number; max: number } | null {
  const k = summaryKernel();
  if (!k || codes.length === 0) return codeRangeJs(codes);
  const state = new DataView(k.memory.buffer, OUT, 64);
  state.setInt32(0, 65535, true);
  state.setInt32(4, 0, true);
  const per = CHUNK_BYTES / 2;
  const chunk = new Uint16Array(k.memory.buffer, 0, per);
  for (let at = 0; at < codes.length; at += per) {
    const len = Math.min(per, codes.length - at);
    chunk.set(codes.subarray(at, at + len));
    k.codes(len, OUT);
  }
  return { min: state.getInt32(0, true), max: state.getInt32(4, true) };
}

/**
 * A summary fed in windows (`info` streaming a raw run of samples, never holding the field): fill `window` with up
 * to its length of samples, then `add(count)`. On the kernel the window is the kernel's own memory, so a file read
 * into it is scanned without another copy. Synchronous use only: the kernel's state block is shared with
 * summarizeFloats and codeRange.
 */
export interface SummaryStream<T> {
  readonly window: Uint8Array;
  /** Reverses the byte order of the window's first `bytes` bytes, word by word (a big-endian run). */
  swap(bytes: number, size: 2 | 4): void;
  add(count: number): void;
  finish(): T;
}

/**
 * Streams float32 samples. finish() gives null when an extreme is a zero: its sign is the first zero's in sample order, which a stream not in sample order cannot tell (the caller reads the field whole).
 * `own`: on an instance of the kernel of its own, for a stream fed across awaits (other summaries may run between).
 */
export function floatSummaryStream(own = false): SummaryStream<FloatSummary | null> {
  const k = own && !wasmDisabled() ? instantiateWasm<SummaryKernel>(SUMMARY_WASM_BASE64) : summaryKernel();
  if (!k) {
    const window = new Uint8Array(CHUNK_BYTES);
    const acc = { nan: 0, posInf: 0, negInf: 0, min: Infinity, max: -Infinity };
    const view = new Float32Array(window.buffer);
    return {
      window,
      swap: (bytes, size) => swapWordsJs(window, bytes, size),
      add(count) {
        for (let i = 0; i < count; i++) {
          const v = view[i];
          if (v !== v) acc.nan++;
          else if (v === Infinity) acc.posInf++;
          else if (v === -Infinity) acc.negInf++;
          else {
            if (v < acc.min) acc.min = v;
            if (v > acc.max) acc.max = v;
          }
        }
      },
      finish: () => streamResult(acc.nan, acc.posInf, acc.negInf, acc.min, acc.max),
    };
  }
  const state = freshFloatState(k);
  return {
    window: new Uint8Array(k.memory.buffer, 0, CHUNK_BYTES),
    swap: (bytes, size) => (size === 4 ? k.swap32(bytes) : k.swap16(bytes)),
    add: (count) => k.floats(count, OUT),
    finish: () =>
      streamResult(state.getInt32(0, true), state.getInt32(4, true), state.getInt32(8, true), state.getFloat32(12, true), state.getFloat32(16, true)),
  };
}

function streamResult(nan: number, posInf: number, negInf: number, min: number, max: number): FloatSummary | null {
  if (min === 0 || max === 0) return null;
  return { nan, posInf, negInf, min: Number.isFinite(min) ? min : null, max: Number.isFinite(max) ? max : null };
}

/** Streams u16 codes: their least and greatest (null when none was added). */
export function codeRangeStream(): SummaryStream<{ min: number; max: number } | null> {
  const k = summaryKernel();
  let added = 0;
  if (!k) {
    const window = new Uint8Array(CHUNK_BYTES);
    const view = new Uint16Array(window.buffer);
    let lo = 65535;
    let hi = 0;
    return {
      window,
      swap: (bytes, size) => swapWordsJs(window, bytes, size),
      add(count) {
        added += count;
        for (let i = 0; i < count; i++) {
          const q = view[i];
          if (q < lo) lo = q;
          if (q > hi) hi = q;
        }
      },
      finish: () => (added === 0 ? null : { min: lo, max: hi }),
    };
  }
  const state = new DataView(k.memory.buffer, OUT, 64);
  state.setInt32(0, 65535, true);
  state.setInt32(4, 0, true);
  return {
    window: new Uint8Array(k.memory.buffer, 0, CHUNK_BYTES),
    swap: (bytes, size) => (size === 4 ? k.swap32(bytes) : k.swap16(bytes)),
    add(count) {
      added += count;
      k.codes(count, OUT);
    },
    finish: () => (added === 0 ? null : { min: state.getInt32(0, true), max: state.getInt32(4, true) }),
  };
}

/** The byte order of `bytes` bytes of `b` reversed word by word: the loop the kernel's swap32/swap16 stand for. */
export function swapWordsJs(b: Uint8Array, bytes: number, size: 2 | 4): void {
  if (size === 2) {
    const u = new Uint16Array(b.buffer, b.byteOffset, bytes / 2);
    for (let i = 0; i < u.length; i++) u[i] = ((u[i] & 0xff) << 8) | (u[i] >>> 8);
    return;
  }
  const u = new Uint32Array(b.buffer, b.byteOffset, bytes / 4);
  for (let i = 0; i < u.length; i++) {
    const v = u[i];
    u[i] = ((v & 0xff) << 24) | ((v & 0xff00) << 8) | ((v >>> 8) & 0xff00) | (v >>> 24);
  }
}
