/**
 * The f32 smoothing chain on WebAssembly SIMD (smoothing.wat): the same operations in the same order as the f32 path
 * of smoothing.ts, so the result is bit-identical (tested); f64 always runs in JavaScript.
 * [R] Used when the raster size is a multiple of 32 (every level a multiple of 4 lanes) and WebAssembly SIMD is
 *     available; HEIGHTBENCH_NO_WASM=1 forces the JavaScript path.
 */
import { arenaOf, createArena, FILTER_Y_RING, registerView, wasmKernelsAvailable } from './arena.js';

export interface WasmTaps {
  k: number[];
  f: number[];
  g: number[];
  w: number[];
}

export interface UpTaps {
  i0: Int32Array;
  i1: Int32Array;
  f: Float64Array;
  g: Float64Array;
}

export function wasmAvailable(n: number): boolean {
  return n % 32 === 0 && wasmKernelsAvailable();
}

/**
 * Runs L0 = filterX → filterY in place in the base's buffer (unless `filterRaster` is false: the earlier rule, an
 * ablation), then downsample → filterX → filterY for each halved level, then the composition, in the raster's arena (a
 * raster made by newRasterField is smoothed in place; any other array is first copied into a new arena). The base is
 * written into `out` when given, otherwise returned as a view of the arena, like the levels.
 */
export function wasmSmoothingChain(raster: Float32Array, n: number, tp: WasmTaps, up2: UpTaps, up3: UpTaps, out?: Float32Array, filterRaster = true): { levels: Float32Array[]; base: Float32Array } {
  // The ring of half-texel rows in filterY holds rows j + k0 … j + k4 + 1 (taps ascending, as the offsets are).
  if (!tp.k.every((k, t) => t === 0 || k >= tp.k[t - 1]) || tp.k[4] - tp.k[0] > FILTER_Y_RING - 2 || tp.k[4] < -1) {
    throw new RangeError(`smoothing kernels: tap rows ${JSON.stringify(tp.k)} must ascend and fit a ring of ${FILTER_Y_RING} rows`);
  }
  let arena = arenaOf(raster);
  if (!arena || arena.n !== n || !arena.smoothingLayout) {
    const made = createArena(n);
    if (!made?.arena.smoothingLayout) throw new Error(`WebAssembly SIMD smoothing is not available for a ${n}² raster`);
    made.raster.set(raster);
    arena = made.arena;
  }
  const L = arena.smoothingLayout!;
  const k = arena.smoothing;
  const buf = arena.memory.buffer;
  const i32 = new Int32Array(buf);
  const f32 = new Float32Array(buf);
  for (let t = 0; t < 5; t++) {
    i32[L.tp / 4 + t] = tp.k[t];
    f32[L.tp / 4 + 5 + t] = tp.g[t];
    f32[L.tp / 4 + 10 + t] = tp.f[t];
    f32[L.tp / 4 + 15 + t] = tp.w[t];
  }
  [up2, up3].forEach((u, q) => {
    i32.set(u.i0, L.up[q].i0 / 4);
    i32.set(u.i1, L.up[q].i1 / 4);
    f32.set(u.f, L.up[q].f / 4);
    f32.set(u.g, L.up[q].g / 4);
  });
  let prev = arena.rasterAt;
  if (filterRaster) {
    // L0 in the base's buffer (the raster itself with baseOverRaster): both passes may run in place.
    k.filterX(arena.rasterAt, L.out, L.buf, n, L.tp);
    k.filterY(L.out, L.out, L.ring, n, L.tp);
    prev = L.out;
  }
  let size = n;
  for (const lv of L.levels) {
    k.downsample(prev, lv.d, size);
    k.filterX(lv.d, lv.x, lv.buf, lv.m, L.tp);
    k.filterY(lv.x, lv.d, lv.s, lv.m, L.tp); // the level lands in D, as in the JavaScript path
    prev = lv.d;
    size = lv.m;
  }
  const [a2, a3] = L.up;
  k.lerpLevelRows(L.levels[1].d, n >> 2, n, a2.i0, a2.i1, a2.f, a2.g, L.x2);
  k.lerpLevelRows(L.levels[2].d, n >> 3, n, a3.i0, a3.i1, a3.f, a3.g, L.x3);
  k.composeRows(L.x2, L.x3, L.out, n, a2.i0, a2.i1, a2.f, a2.g, a3.i0, a3.i1, a3.f, a3.g);
  const levels = L.levels.map((lv) => new Float32Array(buf, lv.d, lv.m * lv.m));
  const base = new Float32Array(buf, L.out, n * n);
  registerView(base, arena);
  if (!out) return { levels, base };
  out.set(base);
  return { levels, base: out };
}
