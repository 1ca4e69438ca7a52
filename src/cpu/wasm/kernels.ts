/**
 * The f32 smoothing chain on WebAssembly SIMD (smoothing.wat): the same operations in the same order as the f32 path
 * of smoothing.ts, so the result is bit-identical (tested); f64 always runs in JavaScript.
 * [R] Runs when the stage's context says 'simd' (src/cpu/context.ts) and hands it an arena; the raster size is a
 *     multiple of 32 (every level a multiple of 4 lanes). The tap block is the 'taps' block of layouts.ts, written by
 *     writeBlock, which refuses a tap the kernels do not handle.
 * [R] Every kernel takes a range of output rows, and each pass runs in bands of rows on this thread and the
 *     executor's helper thread (draw-thread.ts). A band does its rows with the kernel's own steps in single-thread
 *     order; the filters run in place at N², so the source rows next to a band that another band overwrites are
 *     copied before any band starts. The bytes do not depend on the bands (tested).
 */
import { createArena, FILTER_Y_RING, inArena, type Arena } from './arena.js';
import { writeBlock } from '../../core/wasm/layouts.js';
import { helperReady, MAX_BANDS, onBands } from './draw-thread.js';

/** Everything the tap block carries (layouts.ts 'taps'): float32 values. */
export interface WasmTaps {
  k: number[];
  f: number[];
  g: number[];
  w: number[];
  /** Cross-axis lerp weights (1 − c, c) for the cross-axis offset c. */
  crossG: number;
  crossF: number;
  /** Halving weights of source 2i and 2i + 1. */
  downG: number;
  downF: number;
  /** 0: (h2 − h3)·0.5 + h3; 1: (h2 + h3)·0.5. */
  combine: 0 | 1;
}

export interface UpTaps {
  i0: Int32Array;
  i1: Int32Array;
  f: Float64Array;
  g: Float64Array;
}

/** Reason the kernels cannot run these taps, or null (the Y pass's ring, beyond the per-tap range of layouts.ts). */
export function tapRefusal(k: readonly number[]): string | null {
  if (!k.every((x, t) => t === 0 || x >= k[t - 1])) return `tap rows ${JSON.stringify(k)} must ascend`;
  if (k[k.length - 1] - k[0] > FILTER_Y_RING - 2 || k[k.length - 1] < -1)
    return `tap rows ${JSON.stringify(k)} do not fit the Y pass's ring of ${FILTER_Y_RING} rows (k_max − k_min ≤ ${FILTER_Y_RING - 2}, k_max ≥ −1)`;
  return null;
}

type SmoothingKernel = 'downsample' | 'filterX' | 'filterY' | 'lerpLevelRows' | 'composeRows';
/** A kernel's arguments for output rows j0..j1 − 1 (band k), on the helper thread or this one. */
type Band = (j0: number, j1: number, k: number, helper: boolean) => number[];

/** [R] Bands have at least this many rows: a band costs the threads' meeting and, for the filters, a few rows again. */
const BAND_MIN_ROWS = 128;

/** Row bands [j0, j1) of a pass over m rows: one when the pass is too small to share or the helper is not ready. */
function bandsOf(m: number): [number, number][] {
  const count = helperReady() ? Math.min(MAX_BANDS, Math.floor(m / BAND_MIN_ROWS)) : 1;
  if (count < 2) return [[0, m]];
  return Array.from({ length: count }, (_, k) => [Math.floor((k * m) / count), Math.floor(((k + 1) * m) / count)]);
}

/**
 * Runs a smoothing kernel over m output rows in bands, each on whichever thread claims it (draw-thread.ts), or all on
 * this thread when the helper is not ready. `prepare` first copies the rows next to each band that another band may
 * overwrite in place.
 */
function byRows(arena: Arena) {
  return (kernel: SmoothingKernel, m: number, band: Band, prepare: ((bands: [number, number][]) => void) | null = null) => {
    const fn = arena.smoothing[kernel] as (...a: number[]) => void;
    const bands = bandsOf(m);
    if (bands.length > 1) {
      prepare?.(bands);
      const list = bands.map(([j0, j1], k) => ({ mine: band(j0, j1, k, false), helper: band(j0, j1, k, true) }));
      if (onBands(arena.memory, kernel, list, (a) => fn(...a)) !== null) return;
    }
    fn(...band(0, m, 0, false));
  };
}

/** Copies source rows r0..r1 − 1 of the field at byte `s` (rows of `stride` bytes) to byte `to`. */
function copyRows(f32: Float32Array, s: number, stride: number, r0: number, r1: number, to: number): void {
  if (r1 > r0) f32.copyWithin(to / 4, (s + r0 * stride) / 4, (s + r1 * stride) / 4);
}

/**
 * Runs L0 = filterX → filterY in place in the base's buffer (unless `filterRaster` is false: an ablation), then
 * downsample → filterX → filterY for each halved level, then the composition, in `arena` (the arena's raster view is
 * smoothed in place; any other array is first copied into it — or into a new arena when none is given). The base is
 * written into `out` when given, otherwise returned as a view of the arena, like the levels.
 */
export function wasmSmoothingChain(
  raster: Float32Array,
  n: number,
  tp: WasmTaps,
  up2: UpTaps,
  up3: UpTaps,
  arena: Arena | null,
  out?: Float32Array,
  filterRaster = true,
): { levels: Float32Array[]; base: Float32Array; arena: Arena } {
  const why = tapRefusal(tp.k);
  if (why) throw new RangeError(`smoothing kernels: ${why}`);
  if (!arena || arena.n !== n || !arena.smoothingLayout) {
    const made = createArena(n);
    if (!made?.arena.smoothingLayout) throw new Error(`WebAssembly SIMD smoothing is not available for a ${n}² raster`);
    arena = made.arena;
  }
  if (!(inArena(raster, arena) && raster.byteOffset === arena.rasterAt)) arena.rasterView.set(raster);
  const L = arena.smoothingLayout!;
  const buf = arena.memory.buffer;
  const i32 = new Int32Array(buf);
  const f32 = new Float32Array(buf);
  writeBlock(buf, L.tp, 'taps', {
    k: tp.k,
    g: tp.g,
    f: tp.f,
    w: tp.w,
    crossG: tp.crossG,
    crossF: tp.crossF,
    downG: tp.downG,
    downF: tp.downF,
    combine: tp.combine,
  });
  [up2, up3].forEach((u, q) => {
    i32.set(u.i0, L.up[q].i0 / 4);
    i32.set(u.i1, L.up[q].i1 / 4);
    f32.set(u.f, L.up[q].f / 4);
    f32.set(u.g, L.up[q].g / 4);
  });
  const kmin = tp.k[0];
  const kmax = tp.k[tp.k.length - 1];
  const rows = byRows(arena);
  // Per band k: copies of the rows before it and after it, FILTER_Y_RING rows of n floats each (arena.ts).
  const slot = FILTER_Y_RING * n * 4;
  const copyBefore = (k: number) => L.copies + (2 * k + 1) * slot;
  const copyAfter = (k: number) => L.copies + 2 * k * slot;
  /**
   * A filter pass over m rows, `after` and `before` the source rows past each end of a band that its output rows
   * read: in place, those rows are copied before any band starts (the row before band j0 lands at slot
   * r − j0 + FILTER_Y_RING of its copy, the row after at r − j1), and a pass whose rows would not fit runs on one band.
   */
  const pass = (kernel: 'filterX' | 'filterY', s: number, o: number, m: number, after: number, before: number, scratch: [number, number]) => {
    const stride = 4 * m;
    const inPlace = s === o;
    if (inPlace && (after > FILTER_Y_RING || before > FILTER_Y_RING)) {
      arena.smoothing[kernel](s, o, scratch[0], m, L.tp, 0, m, 0, 0);
      return;
    }
    const prepare = (bands: [number, number][]) =>
      bands.forEach(([j0, j1], k) => {
        if (j0 > 0) copyRows(f32, s, stride, Math.max(0, j0 - before), j0, copyBefore(k) + (FILTER_Y_RING - (j0 - Math.max(0, j0 - before))) * stride);
        if (j1 < m) copyRows(f32, s, stride, j1, Math.min(m, j1 + after), copyAfter(k));
      });
    rows(
      kernel,
      m,
      (j0, j1, k, helper) => [s, o, scratch[helper ? 1 : 0], m, L.tp, j0, j1, inPlace && j0 > 0 ? copyBefore(k) : 0, inPlace && j1 < m ? copyAfter(k) : 0],
      inPlace ? prepare : null,
    );
  };
  // X pass: output row j reads source rows j and j + 1; Y pass: rows j + kmin … j + kmax + 1 (clamped).
  const filterX = (s: number, o: number, m: number) => pass('filterX', s, o, m, 1, 0, [L.buf, L.helperBuf]);
  const filterY = (s: number, o: number, m: number) => pass('filterY', s, o, m, kmax + 1, Math.max(0, -kmin), [L.ring, L.helperRing]);
  let prev = arena.rasterAt;
  if (filterRaster) {
    // L0 in the base's buffer (the raster itself with baseOverRaster): both passes may run in place.
    filterX(arena.rasterAt, L.out, n);
    filterY(L.out, L.out, n);
    prev = L.out;
  }
  let size = n;
  for (const lv of L.levels) {
    const from = prev;
    const m = size;
    rows('downsample', lv.m, (j0, j1) => [from, lv.d, m, L.tp, j0, j1]);
    filterX(lv.d, lv.x, lv.m);
    filterY(lv.x, lv.d, lv.m); // the level lands in D, as in the JavaScript path
    prev = lv.d;
    size = lv.m;
  }
  const [a2, a3] = L.up;
  rows('lerpLevelRows', n >> 2, (r0, r1) => [L.levels[1].d, n >> 2, n, a2.i0, a2.i1, a2.f, a2.g, L.x2, r0, r1]);
  rows('lerpLevelRows', n >> 3, (r0, r1) => [L.levels[2].d, n >> 3, n, a3.i0, a3.i1, a3.f, a3.g, L.x3, r0, r1]);
  rows('composeRows', n, (j0, j1) => [L.x2, L.x3, L.out, n, a2.i0, a2.i1, a2.f, a2.g, a3.i0, a3.i1, a3.f, a3.g, L.tp, j0, j1]);
  const levels = L.levels.map((lv) => new Float32Array(buf, lv.d, lv.m * lv.m));
  const base = new Float32Array(buf, L.out, n * n);
  if (!out) return { levels, base, arena };
  out.set(base);
  return { levels, base: out, arena };
}
