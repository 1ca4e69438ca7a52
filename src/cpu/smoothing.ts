/**
 * Multilevel smoothing (article: "Multilevel Smoothing Connects Different Spatial Scales", "What One Bilinear
 * Sample Reads", "Why Half-Texel Offsets Belong to the Formula", "How Lower Resolution Broadens Smoothing",
 * "Which Terrain Variations the Final Blend Retains").
 *
 * Inputs: the N² raster (N divisible by 8), the execution context (executor and conventions, src/cpu/context.ts).
 * Outputs: the filtered levels L0 (N²), L1 (N/2), L2 (N/4), L3 (N/8) and the base field at N².
 * Every constant below is read from the conventions in force (src/conventions: smoothing.*, resample.alignment,
 * sampling.*, grid.pixelCentre); the values quoted are the declaration's. Rules [D]:
 *  - the chain: L0 = filter(raster) at N²; L(k+1) = filter(halve(Lk)) at N/2, N/4, N/8 ("Starting with the 4096²
 *    floating-point field, the pipeline successively downsamples to 2048², 1024², and 512², applying the corresponding
 *    filters at each level"; "the final blend binds four levels"; "A sharp boundary may spread slightly at high
 *    resolution, then enter a larger neighborhood through downsampling");
 *  - separable 5-tap filter, X pass then Y pass on the X result ("first along X, then along Y"); main-axis offsets
 *    −4.30908, −2.37532, −0.5, 1.37532, 3.30908 texels; weights 0.055028, 0.244038, 0.401870, 0.244038, 0.055028
 *    (sum 1.000002, "do not renormalize them"); a +0.5-texel offset on the cross axis ("the other axis also includes
 *    a half-texel offset"); bilinear sampling, X first, then Y; clamp addressing;
 *  - centre-aligned downsampling: destination i reads source (i + 0.5)·Ns/Nd − 0.5 (halving: 2i + 0.5, a 2×2 mean);
 *  - final: h2 = Sample(H_{N/4}, uv), h3 = Sample(H_{N/8}, uv), Hbase = (h2 − h3) × 0.5 + h3 in that order ("Retain the
 *    single-precision order (h2-h3)×0.5+h3").
 * [R] Sample positions use exact fractional offsets (the f32 fraction of each offset), so every output texel of a
 *     pass uses the same weights; 'hw8' quantizes the fractions to 8 bits instead (ablation).
 * [R] Storage: L0 is filtered in the base's own buffer (the X pass and the Y pass both run in place: the X pass has
 *     read row j + 1 before it writes row j, and the Y pass keeps a ring of 16 half-texel rows, made before the rows
 *     they come from are overwritten), so the N² level costs no extra N² field; L0 is consumed by the first halving
 *     before the composition writes the base over it. `levels` returns L1–L3 only. The 'simd' executor runs each
 *     pass in bands of rows on two threads (wasm/kernels.ts), with the same bytes.
 * smoothing.filterFullResolution false: heightbench's earlier rule, which left the N² raster unfiltered
 * (L1 = filter(halve(raster))). sampling.addressing 'wrap' (an ablation) runs in JavaScript only: the Y pass's ring of
 * rows is made in ascending order, which wrapping breaks, so that case makes every cross-axis row first.
 * In f32 mode every product and sum is rounded to float32 in the order written; f64 mode is the same code unrounded.
 */
import { quantizeFraction8 } from '../core/sampling.js';
import { newField, type Field, type Precision } from '../core/precision.js';
import { wasmSmoothingChain, type WasmTaps } from './wasm/kernels.js';
import { InputRangeError } from '../errors.js';
import { FILTER_Y_RING } from './wasm/arena.js';
import { DEFAULT_CONVENTIONS, resolveConventions, type Conventions } from '../conventions/index.js';
import { ablationOverride, type SmoothingAblation } from '../conventions/ablation.js';
import { precisionOf, roundingOf, stageContext, type StageContext } from './context.js';

/** Rows of half-texel lerps the Y pass keeps (its taps read rows j + k_min … j + k_max + 1, at most RING − 2 apart). */
export { FILTER_Y_RING };

/** The declared taps (conventions smoothing.offsets, smoothing.weights), for the draw list and documentation. */
export const SMOOTHING_TAPS = Object.freeze({
  offsets: DEFAULT_CONVENTIONS.smoothing.offsets,
  weights: DEFAULT_CONVENTIONS.smoothing.weights,
});

type Taps = WasmTaps;

/** Everything the passes need from the conventions, each weight rounded by R (float32 executors) once. */
function taps(R: (x: number) => number, c: Conventions): Taps {
  const { offsets, weights, crossAxisOffset, combine } = c.smoothing;
  const out: Taps = { k: [], f: [], g: [], w: [], crossG: 0, crossF: 0, downG: 0, downF: 0, combine: combine === 'mean' ? 1 : 0 };
  for (let t = 0; t < offsets.length; t++) {
    const off = offsets[t];
    const k = Math.floor(off);
    let f = off - k;
    if (c.sampling.subTexel === 'hw8') f = quantizeFraction8(f);
    out.k.push(k);
    out.f.push(R(f));
    out.g.push(R(1 - R(f)));
    out.w.push(R(weights[t]));
  }
  // Cross axis: the other coordinate is i + c (floor i, fraction c); halving: source 2i + a (floor 2i, fraction a).
  out.crossF = R(crossAxisOffset);
  out.crossG = R(1 - out.crossF);
  out.downF = R(c.resample.alignment);
  out.downG = R(1 - out.downF);
  return out;
}

const clampIndex = (i: number, n: number) => (i < 0 ? 0 : i >= n ? n - 1 : i);
const wrapIndex = (i: number, n: number) => ((i % n) + n) % n;
type Address = (i: number, n: number) => number;
const addressOf = (c: Conventions): Address => (c.sampling.addressing === 'wrap' ? wrapIndex : clampIndex);

/** Halving (each output reads source 2i + a: bilinear with fx = fy = a, a = conventions resample.alignment). */
export function downsampleHalf(
  src: Field,
  n: number,
  out: Field,
  R: (x: number) => number,
  tp: Pick<Taps, 'downG' | 'downF'> = { downG: 0.5, downF: 0.5 },
): Field {
  const m = n >> 1;
  const g = tp.downG;
  const f = tp.downF;
  for (let j = 0; j < m; j++) {
    const r0 = 2 * j * n;
    const r1 = r0 + n;
    for (let i = 0; i < m; i++) {
      const c = 2 * i;
      const a = R(R(src[r0 + c] * g) + R(src[r0 + c + 1] * f));
      const b = R(R(src[r1 + c] * g) + R(src[r1 + c + 1] * f));
      out[j * m + i] = R(R(a * g) + R(b * f));
    }
  }
  return out;
}

/**
 * X pass: output (i, j) = Σ w_t · Sample(i + off_t, j + c), c the cross-axis offset. Row j + 1 is read before row j
 * is written, so `out` may be `src` (in place; with wrap addressing the last row reads row 0, so src is copied first).
 */
export function filterX(src: Field, n: number, out: Field, R: (x: number) => number, tp: Taps, addr: Address = clampIndex): Field {
  if (tp.k.length !== 5) throw new RangeError(`filterX: expected 5 taps, got ${tp.k.length}`);
  if (addr !== clampIndex && out === src) src = src.slice();
  const i0 = tp.k.map((k) => Int32Array.from({ length: n }, (_, i) => addr(i + k, n)));
  const i1 = tp.k.map((k) => Int32Array.from({ length: n }, (_, i) => addr(i + k + 1, n)));
  // Row lerps along X for each tap, computed once per source row and used by two output rows.
  let cur = Array.from({ length: 5 }, () => new Float64Array(n));
  let nxt = Array.from({ length: 5 }, () => new Float64Array(n));
  // Columns whose taps all stay inside the row read src directly; the few near the edges use the addressed indices.
  const lo = Math.min(n, Math.max(0, -Math.min(...tp.k)));
  const hi = Math.max(lo, n - 1 - Math.max(...tp.k));
  const lerpRow = (r: number, dst: Float64Array[]) => {
    const base = r * n;
    for (let t = 0; t < 5; t++) {
      const a0 = i0[t];
      const a1 = i1[t];
      const g = tp.g[t];
      const f = tp.f[t];
      const d = dst[t];
      const k0 = base + tp.k[t];
      for (let i = 0; i < lo; i++) d[i] = R(R(src[base + a0[i]] * g) + R(src[base + a1[i]] * f));
      for (let i = lo; i < hi; i++) d[i] = R(R(src[k0 + i] * g) + R(src[k0 + i + 1] * f));
      for (let i = hi; i < n; i++) d[i] = R(R(src[base + a0[i]] * g) + R(src[base + a1[i]] * f));
    }
  };
  const [w0, w1, w2, w3, w4] = tp.w;
  const cg = tp.crossG;
  const cf = tp.crossF;
  lerpRow(0, cur);
  for (let j = 0; j < n; j++) {
    lerpRow(addr(j + 1, n), nxt);
    const o = j * n;
    // The five taps unrolled into locals: arrays of arrays in this loop cost more than the arithmetic.
    const [c0, c1, c2, c3, c4] = cur;
    const [d0, d1, d2, d3, d4] = nxt;
    for (let i = 0; i < n; i++) {
      let acc = R(w0 * R(R(c0[i] * cg) + R(d0[i] * cf)));
      acc = R(acc + R(w1 * R(R(c1[i] * cg) + R(d1[i] * cf))));
      acc = R(acc + R(w2 * R(R(c2[i] * cg) + R(d2[i] * cf))));
      acc = R(acc + R(w3 * R(R(c3[i] * cg) + R(d3[i] * cf))));
      out[o + i] = R(acc + R(w4 * R(R(c4[i] * cg) + R(d4[i] * cf))));
    }
    [cur, nxt] = [nxt, cur];
  }
  return out;
}

/** One cross-axis row of the Y pass: dst[i] = G·row[i] + F·row[addr(i + 1)]. */
function crossRow(src: Field, base: number, n: number, dst: Field, at: number, R: (x: number) => number, tp: Taps, addr: Address): void {
  const g = tp.crossG;
  const f = tp.crossF;
  for (let i = 0; i < n; i++) dst[at + i] = R(R(src[base + i] * g) + R(src[base + addr(i + 1, n)] * f));
}

/**
 * Y pass: output (i, j) = Σ w_t · Sample(i + c, j + off_t). `scratch` holds a ring of FILTER_Y_RING cross-axis rows
 * (at least FILTER_Y_RING·n samples); each is made from its source row before the output reaches that row, so `out`
 * may be `src` (in place). With wrap addressing the rows are not read in ascending order: every cross-axis row is
 * made first (n² samples), then the output rows.
 */
export function filterY(src: Field, n: number, out: Field, R: (x: number) => number, tp: Taps, scratch: Field, addr: Address = clampIndex): Field {
  if (tp.k.length !== 5) throw new RangeError(`filterY: expected 5 taps, got ${tp.k.length}`);
  const kmin = Math.min(...tp.k);
  const kmax = Math.max(...tp.k);
  const wrap = addr !== clampIndex;
  if (!wrap && (kmax - kmin > FILTER_Y_RING - 2 || kmax < -1))
    throw new RangeError(`filterY: tap rows ${kmin}…${kmax + 1} do not fit a ring of ${FILTER_Y_RING} rows`);
  if (!wrap && scratch.length < FILTER_Y_RING * n)
    throw new RangeError(`filterY: scratch holds ${scratch.length} samples, expected at least ${FILTER_Y_RING * n}`);
  const rows = wrap ? (scratch.length >= n * n ? scratch : new (scratch.constructor as Float64ArrayConstructor)(n * n)) : scratch;
  if (wrap) for (let r = 0; r < n; r++) crossRow(src, r * n, n, rows, r * n, R, tp, addr);
  const mask = FILTER_Y_RING - 1;
  const slot = wrap ? (r: number) => addr(r, n) * n : (r: number) => (clampIndex(r, n) & mask) * n;
  let next = 0; // next source row to turn into a cross-axis row (ring only)
  const [w0, w1, w2, w3, w4] = tp.w;
  const [g0, g1, g2, g3, g4] = tp.g;
  const [f0, f1, f2, f3, f4] = tp.f;
  for (let j = 0; j < n; j++) {
    // Cross-axis lerp of every source row the taps of this output row read (the X part of each bilinear sample).
    if (!wrap) for (const need = clampIndex(j + kmax + 1, n); next <= need; next++) crossRow(src, next * n, n, rows, (next & mask) * n, R, tp, addr);
    const a0 = slot(j + tp.k[0]);
    const b0 = slot(j + tp.k[0] + 1);
    const a1 = slot(j + tp.k[1]);
    const b1 = slot(j + tp.k[1] + 1);
    const a2 = slot(j + tp.k[2]);
    const b2 = slot(j + tp.k[2] + 1);
    const a3 = slot(j + tp.k[3]);
    const b3 = slot(j + tp.k[3] + 1);
    const a4 = slot(j + tp.k[4]);
    const b4 = slot(j + tp.k[4] + 1);
    const o = j * n;
    for (let i = 0; i < n; i++) {
      let acc = R(w0 * R(R(rows[a0 + i] * g0) + R(rows[b0 + i] * f0)));
      acc = R(acc + R(w1 * R(R(rows[a1 + i] * g1) + R(rows[b1 + i] * f1))));
      acc = R(acc + R(w2 * R(R(rows[a2 + i] * g2) + R(rows[b2 + i] * f2))));
      acc = R(acc + R(w3 * R(R(rows[a3 + i] * g3) + R(rows[b3 + i] * f3))));
      out[o + i] = R(acc + R(w4 * R(R(rows[a4 + i] * g4) + R(rows[b4 + i] * f4))));
    }
  }
  return out;
}

/**
 * Per-axis bilinear taps for sampling a level of size m at the pixels of an n grid, Sample(H, uv) with uv the pixel's
 * sample point: x = (i + pc)·m/n − tc (pc = grid.pixelCentre, tc = sampling.texelCentre; 0.5 and 0.5 declared),
 * addressed by the conventions' addressing.
 */
function upTaps(n: number, m: number, R: (x: number) => number, c: Conventions = DEFAULT_CONVENTIONS) {
  const i0 = new Int32Array(n);
  const i1 = new Int32Array(n);
  const f = new Float64Array(n);
  const g = new Float64Array(n);
  const pc = c.grid.pixelCentre;
  const tc = c.sampling.texelCentre;
  const addr = addressOf(c);
  for (let i = 0; i < n; i++) {
    const x = ((i + pc) * m) / n - tc; // exact in float32 for power-of-two ratios
    const xf = Math.floor(x);
    i0[i] = addr(xf, m);
    i1[i] = addr(xf + 1, m);
    let fr = x - xf;
    if (c.sampling.subTexel === 'hw8') fr = quantizeFraction8(fr);
    f[i] = R(fr);
    g[i] = R(1 - f[i]);
  }
  return { i0, i1, f, g };
}

/**
 * Per source row of a level, its X lerp at every output column: a(r, i) = l[r, i0]·(1 − fx) + l[r, i1]·fx. It does not
 * depend on the output row, so each is computed once and the output rows only blend two of them along Y — the same
 * operations in the same order as sampling each pixel X first, then Y.
 */
function lerpLevelRows(level: Field, m: number, n: number, R: (x: number) => number, t: ReturnType<typeof upTaps>, rows: Field): Field {
  for (let r = 0; r < m; r++) {
    const src = r * m;
    const dst = r * n;
    for (let i = 0; i < n; i++) rows[dst + i] = R(R(level[src + t.i0[i]] * t.g[i]) + R(level[src + t.i1[i]] * t.f[i]));
  }
  return rows;
}

/**
 * Hbase = (h2 − h3)·0.5 + h3 (conventions smoothing.combine 'difference'; 'mean': (h2 + h3)·0.5) with h2, h3
 * bilinear samples of the N/4 and N/8 levels at each N² pixel.
 */
export function composeBase(l2: Field, l3: Field, n: number, out: Field, R: (x: number) => number, c: Conventions = DEFAULT_CONVENTIONS): Field {
  const m2 = n >> 2;
  const m3 = n >> 3;
  const a2 = upTaps(n, m2, R, c);
  const a3 = upTaps(n, m3, R, c);
  const mean = c.smoothing.combine === 'mean';
  const x2 = lerpLevelRows(l2, m2, n, R, a2, out instanceof Float32Array ? new Float32Array(m2 * n) : new Float64Array(m2 * n));
  const x3 = lerpLevelRows(l3, m3, n, R, a3, out instanceof Float32Array ? new Float32Array(m3 * n) : new Float64Array(m3 * n));
  for (let j = 0; j < n; j++) {
    composeRow(
      x2,
      x3,
      out,
      j * n,
      n,
      { r20: a2.i0[j] * n, r21: a2.i1[j] * n, fy2: a2.f[j], gy2: a2.g[j], r30: a3.i0[j] * n, r31: a3.i1[j] * n, fy3: a3.f[j], gy3: a3.g[j] },
      R,
      mean,
    );
  }
  return out;
}

interface ComposeRowTaps {
  r20: number;
  r21: number;
  fy2: number;
  gy2: number;
  r30: number;
  r31: number;
  fy3: number;
  gy3: number;
}

function composeRow(x2: Field, x3: Field, out: Field, o: number, n: number, t: ComposeRowTaps, R: (x: number) => number, mean: boolean): void {
  const { r20, r21, fy2, gy2, r30, r31, fy3, gy3 } = t;
  for (let i = 0; i < n; i++) {
    const h2 = R(R(x2[r20 + i] * gy2) + R(x2[r21 + i] * fy2));
    const h3 = R(R(x3[r30 + i] * gy3) + R(x3[r31 + i] * fy3));
    out[o + i] = mean ? R(R(h2 + h3) * 0.5) : R(R(R(h2 - h3) * 0.5) + h3);
  }
}

export interface SmoothingResult {
  /** Filtered levels L1–L3 at N/2, N/4, N/8 (L0 at N² is consumed in the base's buffer, see the header). */
  levels: Field[];
  base: Field;
  /** Wall time per step, ms. */
  timings: Record<string, number>;
}

/**
 * Runs the whole chain on `raster` (n², n divisible by 8), writing the base into `out`; without `out`, into a new
 * field — with the 'simd' executor, a view of the context's arena (see wasm/arena.ts). `raster` is not modified,
 * except that the arena's raster view in an arena made with `baseOverRaster` holds the base afterwards.
 * `ctx` chooses the executor and carries the conventions (a bare precision: the JavaScript executor of that
 * precision with the declared conventions); `ab` (older vocabulary) changes the conventions further.
 */
export function smoothingChain(raster: Field, n: number, ctxOrPrecision: StageContext | Precision, out?: Field, ab?: SmoothingAblation): SmoothingResult {
  if (n % 8 !== 0) throw new InputRangeError(`smoothing: the raster size must be divisible by 8 (three halvings), got ${n}`);
  const ctx0 = stageContext(ctxOrPrecision);
  const conventions = ab ? resolveConventions(ablationOverride(ab, ctx0.conventions), ctx0.conventions) : ctx0.conventions;
  const precision = precisionOf(ctx0);
  const R = roundingOf(ctx0);
  const tp = taps(R, conventions);
  const addr = addressOf(conventions);
  const timings: Record<string, number> = {};
  const filterRaster = conventions.smoothing.filterFullResolution;
  if (ctx0.executor === 'simd') {
    // Same operations, same order, on WebAssembly SIMD: bit-identical to the loop below (test/smoothing.test.ts).
    if (!(raster instanceof Float32Array) || (out !== undefined && !(out instanceof Float32Array)))
      throw new RangeError('smoothing: the simd executor runs float32 fields');
    if (conventions.sampling.addressing !== 'clamp')
      throw new InputRangeError(
        `smoothing: the simd executor implements clamp addressing only, the conventions ask for ${conventions.sampling.addressing}; use executor js-f32`,
      );
    const t0 = performance.now();
    const { levels, base } = wasmSmoothingChain(
      raster,
      n,
      tp,
      upTaps(n, n >> 2, R, conventions),
      upTaps(n, n >> 3, R, conventions),
      ctx0.arena ?? null,
      out as Float32Array | undefined,
      filterRaster,
    );
    timings.wasm = performance.now() - t0;
    return { levels, base, timings };
  }
  out ??= newField(precision, n * n);
  const levels: Field[] = [];
  const clock = (name: string, t0: number) => (timings[name] = (timings[name] ?? 0) + performance.now() - t0);
  const ring = (m: number) => newField(precision, (addr === clampIndex ? FILTER_Y_RING : m) * m);
  let prev = raster;
  if (filterRaster) {
    // L0 lives in `out` until the composition overwrites it (both passes in place).
    let t0 = performance.now();
    filterX(raster, n, out, R, tp, addr);
    clock('filterX', t0);
    t0 = performance.now();
    filterY(out, n, out, R, tp, ring(n), addr);
    clock('filterY', t0);
    prev = out;
  }
  let size = n;
  for (let l = 0; l < conventions.smoothing.levels; l++) {
    const m = size >> 1;
    let t0 = performance.now();
    const down = downsampleHalf(prev, size, newField(precision, m * m), R, tp);
    clock('downsample', t0);
    t0 = performance.now();
    const x = filterX(down, m, newField(precision, m * m), R, tp, addr);
    clock('filterX', t0);
    t0 = performance.now();
    const level = filterY(x, m, down, R, tp, ring(m), addr);
    clock('filterY', t0);
    levels.push(level);
    prev = level;
    size = m;
  }
  const t0 = performance.now();
  composeBase(levels[1], levels[2], n, out, R, conventions);
  clock('compose', t0);
  return { levels, base: out, timings };
}

/** One level's filter: the X pass, then the Y pass on its result (separate buffers; for documentation and tests). */
export function filterField(src: Field, m: number, precision: Precision = 'f64', ab: SmoothingAblation = {}): Field {
  const R = precision === 'f32' ? Math.fround : (x: number) => x;
  const c = resolveConventions(ablationOverride(ab));
  const tp = taps(R, c);
  const addr = addressOf(c);
  const x = filterX(src, m, newField(precision, m * m), R, tp, addr);
  return filterY(x, m, newField(precision, m * m), R, tp, newField(precision, (addr === clampIndex ? FILTER_Y_RING : m) * m), addr);
}

/** Response of the X-then-Y filter to a unit impulse at (c, c) on an m² level, for documentation and tests. */
export function impulseResponse(m: number, c: number, precision: Precision = 'f64'): Field {
  const src = newField(precision, m * m);
  src[c * m + c] = 1;
  return filterField(src, m, precision);
}
