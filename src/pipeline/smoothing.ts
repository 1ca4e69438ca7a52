/**
 * Multilevel smoothing (article: "Multilevel Smoothing Connects Different Spatial Scales", "What One Bilinear
 * Sample Reads", "Why Half-Texel Offsets Belong to the Formula", "How Lower Resolution Broadens Smoothing",
 * "Which Terrain Variations the Final Blend Retains").
 *
 * Inputs: the N² raster (N divisible by 8), the precision mode.
 * Outputs: the filtered levels L0 (N²), L1 (N/2), L2 (N/4), L3 (N/8) and the base field at N².
 * Rules [D]:
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
 *     before the composition writes the base over it. `levels` returns L1–L3 only.
 * Ablation 'unfilteredRaster': heightbench's earlier rule, which left the N² raster unfiltered (L1 = filter(halve(raster))).
 * In f32 mode every product and sum is rounded to float32 in the order written; f64 mode is the same code unrounded.
 */
import { quantizeFraction8, type SubTexelMode } from '../core/sampling.js';
import { newField, type Field, type Precision } from './precision.js';
import { wasmAvailable, wasmSmoothingChain } from './wasm/kernels.js';
import { InputRangeError } from '../errors.js';
import { FILTER_Y_RING } from './wasm/arena.js';

/** Rows of half-texel lerps the Y pass keeps (its taps read rows j + k_min … j + k_max + 1, at most RING − 2 apart). */
export { FILTER_Y_RING };

export const SMOOTHING_TAPS = Object.freeze({
  offsets: Object.freeze([-4.30908, -2.37532, -0.5, 1.37532, 3.30908]),
  weights: Object.freeze([0.055028, 0.244038, 0.40187, 0.244038, 0.055028]),
});

/**
 * The chain's shape as this file implements it, for the draw list (drawlist/emit.ts) and the executors that check it:
 * three filtered levels below N², each the filter of the halved previous level; the N² raster itself is filtered first
 * unless the ablation unfilteredRaster is on (the list's `filterFullResolution: false` turns it on).
 */
export const SMOOTHING_CHAIN = Object.freeze({ levels: 3, order: 'downsample-then-filter' as const });

/** Deliberate convention breaks, for ablations and for testing that the gates catch them. */
export interface SmoothingAblation {
  /** Divide the weights by their sum (the article says not to). */
  renormalize?: boolean;
  /** Read the nearest integer texel instead of bilinear sampling at fractional offsets. */
  integerTaps?: boolean;
  subTexel?: SubTexelMode;
  /** heightbench's earlier rule: skip the N² filter (the chain starts at filter(halve(raster))). */
  unfilteredRaster?: boolean;
}

interface Taps {
  k: number[];
  f: number[];
  g: number[];
  w: number[];
}

function taps(R: (x: number) => number, ab: SmoothingAblation): Taps {
  const sum = SMOOTHING_TAPS.weights.reduce((a, b) => a + b, 0);
  const out: Taps = { k: [], f: [], g: [], w: [] };
  for (let t = 0; t < 5; t++) {
    const off = SMOOTHING_TAPS.offsets[t];
    let k = Math.floor(off);
    let f = off - k;
    if (ab.integerTaps) {
      k = Math.round(off);
      f = 0;
    } else if (ab.subTexel === 'hw8') f = quantizeFraction8(f);
    out.k.push(k);
    out.f.push(R(f));
    out.g.push(R(1 - R(f)));
    out.w.push(R(ab.renormalize ? SMOOTHING_TAPS.weights[t] / sum : SMOOTHING_TAPS.weights[t]));
  }
  return out;
}

const clampIndex = (i: number, n: number) => (i < 0 ? 0 : i >= n ? n - 1 : i);

/** Centre-aligned halving (each output reads source 2i + 0.5: bilinear with fx = fy = 0.5). */
export function downsampleHalf(src: Field, n: number, out: Field, R: (x: number) => number): Field {
  const m = n >> 1;
  for (let j = 0; j < m; j++) {
    const r0 = 2 * j * n;
    const r1 = r0 + n;
    for (let i = 0; i < m; i++) {
      const c = 2 * i;
      const a = R(R(src[r0 + c] * 0.5) + R(src[r0 + c + 1] * 0.5));
      const b = R(R(src[r1 + c] * 0.5) + R(src[r1 + c + 1] * 0.5));
      out[j * m + i] = R(R(a * 0.5) + R(b * 0.5));
    }
  }
  return out;
}

/**
 * X pass: output (i, j) = Σ w_t · Sample(i + off_t, j + 0.5). Row j + 1 is read before row j is written, so `out` may
 * be `src` (in place).
 */
export function filterX(src: Field, n: number, out: Field, R: (x: number) => number, tp: Taps): Field {
  if (tp.k.length !== 5) throw new RangeError(`filterX: expected 5 taps, got ${tp.k.length}`);
  const i0 = tp.k.map((k) => Int32Array.from({ length: n }, (_, i) => clampIndex(i + k, n)));
  const i1 = tp.k.map((k) => Int32Array.from({ length: n }, (_, i) => clampIndex(i + k + 1, n)));
  // Row lerps along X for each tap, computed once per source row and used by two output rows.
  let cur = Array.from({ length: 5 }, () => new Float64Array(n));
  let nxt = Array.from({ length: 5 }, () => new Float64Array(n));
  // Columns whose taps all stay inside the row read src directly; the few near the edges use the clamped indices.
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
  lerpRow(0, cur);
  for (let j = 0; j < n; j++) {
    lerpRow(clampIndex(j + 1, n), nxt);
    const o = j * n;
    // The five taps unrolled into locals: arrays of arrays in this loop cost more than the arithmetic.
    const [c0, c1, c2, c3, c4] = cur;
    const [d0, d1, d2, d3, d4] = nxt;
    for (let i = 0; i < n; i++) {
      let acc = R(w0 * R(R(c0[i] * 0.5) + R(d0[i] * 0.5)));
      acc = R(acc + R(w1 * R(R(c1[i] * 0.5) + R(d1[i] * 0.5))));
      acc = R(acc + R(w2 * R(R(c2[i] * 0.5) + R(d2[i] * 0.5))));
      acc = R(acc + R(w3 * R(R(c3[i] * 0.5) + R(d3[i] * 0.5))));
      out[o + i] = R(acc + R(w4 * R(R(c4[i] * 0.5) + R(d4[i] * 0.5))));
    }
    [cur, nxt] = [nxt, cur];
  }
  return out;
}

/**
 * Y pass: output (i, j) = Σ w_t · Sample(i + 0.5, j + off_t). `scratch` holds a ring of FILTER_Y_RING half-texel rows
 * (at least FILTER_Y_RING·n samples); each is made from its source row before the output reaches that row, so `out`
 * may be `src` (in place).
 */
export function filterY(src: Field, n: number, out: Field, R: (x: number) => number, tp: Taps, scratch: Field): Field {
  if (tp.k.length !== 5) throw new RangeError(`filterY: expected 5 taps, got ${tp.k.length}`);
  const kmin = Math.min(...tp.k);
  const kmax = Math.max(...tp.k);
  if (kmax - kmin > FILTER_Y_RING - 2 || kmax < -1) throw new RangeError(`filterY: tap rows ${kmin}…${kmax + 1} do not fit a ring of ${FILTER_Y_RING} rows`);
  if (scratch.length < FILTER_Y_RING * n) throw new RangeError(`filterY: scratch holds ${scratch.length} samples, expected at least ${FILTER_Y_RING * n}`);
  const mask = FILTER_Y_RING - 1;
  let next = 0; // next source row to turn into a half-texel row
  const [w0, w1, w2, w3, w4] = tp.w;
  const [g0, g1, g2, g3, g4] = tp.g;
  const [f0, f1, f2, f3, f4] = tp.f;
  for (let j = 0; j < n; j++) {
    // Half-texel X lerp of every source row the taps of this output row read (the X part of each bilinear sample).
    for (const need = clampIndex(j + kmax + 1, n); next <= need; next++) {
      const base = next * n;
      const dst = (next & mask) * n;
      for (let i = 0; i < n; i++) {
        const i1 = i + 1 < n ? i + 1 : n - 1;
        scratch[dst + i] = R(R(src[base + i] * 0.5) + R(src[base + i1] * 0.5));
      }
    }
    const a0 = (clampIndex(j + tp.k[0], n) & mask) * n;
    const b0 = (clampIndex(j + tp.k[0] + 1, n) & mask) * n;
    const a1 = (clampIndex(j + tp.k[1], n) & mask) * n;
    const b1 = (clampIndex(j + tp.k[1] + 1, n) & mask) * n;
    const a2 = (clampIndex(j + tp.k[2], n) & mask) * n;
    const b2 = (clampIndex(j + tp.k[2] + 1, n) & mask) * n;
    const a3 = (clampIndex(j + tp.k[3], n) & mask) * n;
    const b3 = (clampIndex(j + tp.k[3] + 1, n) & mask) * n;
    const a4 = (clampIndex(j + tp.k[4], n) & mask) * n;
    const b4 = (clampIndex(j + tp.k[4] + 1, n) & mask) * n;
    const o = j * n;
    for (let i = 0; i < n; i++) {
      let acc = R(w0 * R(R(scratch[a0 + i] * g0) + R(scratch[b0 + i] * f0)));
      acc = R(acc + R(w1 * R(R(scratch[a1 + i] * g1) + R(scratch[b1 + i] * f1))));
      acc = R(acc + R(w2 * R(R(scratch[a2 + i] * g2) + R(scratch[b2 + i] * f2))));
      acc = R(acc + R(w3 * R(R(scratch[a3 + i] * g3) + R(scratch[b3 + i] * f3))));
      out[o + i] = R(acc + R(w4 * R(R(scratch[a4 + i] * g4) + R(scratch[b4 + i] * f4))));
    }
  }
  return out;
}

/** Per-axis bilinear taps for sampling a level of size m at the pixel centres of size n. */
function upTaps(n: number, m: number, R: (x: number) => number) {
  const i0 = new Int32Array(n);
  const i1 = new Int32Array(n);
  const f = new Float64Array(n);
  const g = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    const x = ((i + 0.5) * m) / n - 0.5; // exact in float32 for power-of-two ratios
    const xf = Math.floor(x);
    i0[i] = clampIndex(xf, m);
    i1[i] = clampIndex(xf + 1, m);
    f[i] = R(x - xf);
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

/** Hbase = (h2 − h3)·0.5 + h3 with h2, h3 bilinear samples of the N/4 and N/8 levels at each N² pixel centre. */
export function composeBase(l2: Field, l3: Field, n: number, out: Field, R: (x: number) => number): Field {
  const m2 = n >> 2;
  const m3 = n >> 3;
  const a2 = upTaps(n, m2, R);
  const a3 = upTaps(n, m3, R);
  const x2 = lerpLevelRows(l2, m2, n, R, a2, out instanceof Float32Array ? new Float32Array(m2 * n) : new Float64Array(m2 * n));
  const x3 = lerpLevelRows(l3, m3, n, R, a3, out instanceof Float32Array ? new Float32Array(m3 * n) : new Float64Array(m3 * n));
  for (let j = 0; j < n; j++) {
    composeRow(x2, x3, out, j * n, n, a2.i0[j] * n, a2.i1[j] * n, a2.f[j], a2.g[j], a3.i0[j] * n, a3.i1[j] * n, a3.f[j], a3.g[j], R);
  }
  return out;
}

function composeRow(x2: Field, x3: Field, out: Field, o: number, n: number, r20: number, r21: number, fy2: number, gy2: number, r30: number, r31: number, fy3: number, gy3: number, R: (x: number) => number): void {
  for (let i = 0; i < n; i++) {
    const h2 = R(R(x2[r20 + i] * gy2) + R(x2[r21 + i] * fy2));
    const h3 = R(R(x3[r30 + i] * gy3) + R(x3[r31 + i] * fy3));
    out[o + i] = R(R(R(h2 - h3) * 0.5) + h3);
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
 * field — in f32 with the SIMD kernels, a view of the raster's arena (see wasm/arena.ts). `raster` is not modified,
 * except that an arena raster made with `baseOverRaster` holds the base afterwards.
 */
export function smoothingChain(raster: Field, n: number, precision: Precision, out?: Field, ab: SmoothingAblation = {}): SmoothingResult {
  if (n % 8 !== 0) throw new InputRangeError(`smoothing: the raster size must be divisible by 8 (three halvings), got ${n}`);
  const R = precision === 'f32' ? Math.fround : (x: number) => x;
  const tp = taps(R, ab);
  const timings: Record<string, number> = {};
  const filterRaster = !ab.unfilteredRaster;
  if (precision === 'f32' && raster instanceof Float32Array && (out === undefined || out instanceof Float32Array) && wasmAvailable(n)) {
    // Same operations, same order, on WebAssembly SIMD: bit-identical to the loop below (test/smoothing.test.ts).
    const t0 = performance.now();
    const { levels, base } = wasmSmoothingChain(raster, n, tp, upTaps(n, n >> 2, R), upTaps(n, n >> 3, R), out, filterRaster);
    timings.wasm = performance.now() - t0;
    return { levels, base, timings };
  }
  out ??= newField(precision, n * n);
  const levels: Field[] = [];
  const clock = (name: string, t0: number) => (timings[name] = (timings[name] ?? 0) + performance.now() - t0);
  let prev = raster;
  if (filterRaster) {
    // L0 lives in `out` until the composition overwrites it (both passes in place).
    let t0 = performance.now();
    filterX(raster, n, out, R, tp);
    clock('filterX', t0);
    t0 = performance.now();
    filterY(out, n, out, R, tp, newField(precision, FILTER_Y_RING * n));
    clock('filterY', t0);
    prev = out;
  }
  let size = n;
  for (let l = 0; l < 3; l++) {
    const m = size >> 1;
    let t0 = performance.now();
    const down = downsampleHalf(prev, size, newField(precision, m * m), R);
    clock('downsample', t0);
    t0 = performance.now();
    const x = filterX(down, m, newField(precision, m * m), R, tp);
    clock('filterX', t0);
    t0 = performance.now();
    const level = filterY(x, m, down, R, tp, newField(precision, FILTER_Y_RING * m));
    clock('filterY', t0);
    levels.push(level);
    prev = level;
    size = m;
  }
  const t0 = performance.now();
  composeBase(levels[1], levels[2], n, out, R);
  clock('compose', t0);
  return { levels, base: out, timings };
}

/** One level's filter: the X pass, then the Y pass on its result (separate buffers; for documentation and tests). */
export function filterField(src: Field, m: number, precision: Precision = 'f64', ab: SmoothingAblation = {}): Field {
  const R = precision === 'f32' ? Math.fround : (x: number) => x;
  const tp = taps(R, ab);
  const x = filterX(src, m, newField(precision, m * m), R, tp);
  return filterY(x, m, newField(precision, m * m), R, tp, newField(precision, FILTER_Y_RING * m));
}

/** Response of the X-then-Y filter to a unit impulse at (c, c) on an m² level, for documentation and tests. */
export function impulseResponse(m: number, c: number, precision: Precision = 'f64'): Field {
  const src = newField(precision, m * m);
  src[c * m + c] = 1;
  return filterField(src, m, precision);
}
