/**
 * Triangle rasterization with GPU rules into a float field (article: "From a Triangle to One Pixel", "Mapping Pixel
 * Centers to Texture Coordinates"; notes/gpu-rules.md, rasterization).
 *
 * Inputs: a triangle list in world coordinates with vertex heights, the target grid, the target field.
 * Outputs: the field with every covered pixel's interpolated height ADDed, in draw order.
 * Rules [D]:
 *  - pixel centres at +0.5: pixel (i, j) samples raster point (i + 0.5, j + 0.5), raster x = (x − xmin)·N/L and
 *    raster y = (y − ymin)·N/L (row 0 at ymin);
 *  - vertex positions snap to 16.8 fixed point (8 fraction bits, round to nearest) before coverage is tested;
 *  - the top-left rule: a sample exactly on an edge belongs to the triangle for which that edge is a top or left
 *    edge, so a shared edge is covered exactly once; the test does not depend on winding (triangles are oriented
 *    to positive area first);
 *  - ADD blending into the target in draw order.
 * [R] Coverage and barycentric weights come from exact integer edge functions (|values| < 2⁵³, exact in float64).
 *     In f32 mode vertex heights are float32, each λ = fround(E·(1/A)), and h = fround(fround(fround(λ0h0) + fround(λ1h1))
 *     + fround(λ2h2)) is added with one more fround; f64 mode evaluates the same expression unrounded.
 *     With rows as screen y, positive-area triangles are clockwise on screen, and an edge a→b is top or left when
 *     b.y < a.y, or b.y = a.y and b.x > a.x.
 * [R] f32 targets made by newRasterField (arena fields) hand each covered span to the SIMD span kernel
 *     (wasm/raster.wat), which evaluates spanF32's expression bit for bit; other targets use the loops below.
 */
import type { Field, Precision } from './precision.js';
import type { TriangleList } from './fans.js';
import { spanQueueOf } from './wasm/raster-kernel.js';

export const SUBPIXEL = 256;

/** Snap a raster coordinate to 16.8 fixed point (returned as the integer count of 1/256 pixels). */
export function snapFixed(v: number): number {
  return Math.round(v * SUBPIXEL);
}

/** Whether edge a→b owns samples lying exactly on it (top-left rule, see header). */
export function ownsEdge(dx: number, dy: number): boolean {
  return dy < 0 || (dy === 0 && dx > 0);
}

/** Barycentric weights of p in triangle abc (teaching form, float64): P = λ0·A + λ1·B + λ2·C. */
export function barycentric(p: readonly [number, number], a: readonly [number, number], b: readonly [number, number], c: readonly [number, number]): [number, number, number] {
  const area = (b[0] - a[0]) * (c[1] - a[1]) - (b[1] - a[1]) * (c[0] - a[0]);
  const l1 = ((p[0] - a[0]) * (c[1] - a[1]) - (p[1] - a[1]) * (c[0] - a[0])) / area;
  const l2 = ((b[0] - a[0]) * (p[1] - a[1]) - (b[1] - a[1]) * (p[0] - a[0])) / area;
  return [1 - l1 - l2, l1, l2];
}

export interface RasterGrid {
  xmin: number;
  ymin: number;
  size: number;
  n: number;
}

export interface RasterStats {
  triangles: number;
  degenerate: number;
  pixels: number;
}

/** Whether e0 + s·i passes an edge test (> 0, or ≥ 0 for an owned edge). Exact integer arithmetic. */
function passes(e0: number, s: number, i: number, strict: boolean): boolean {
  const v = e0 + s * i;
  return strict ? v > 0 : v >= 0;
}

/** First integer i with e0 + s·i passing, for s > 0. */
function firstInside(e0: number, s: number, strict: boolean): number {
  let i = Math.floor(-e0 / s);
  while (passes(e0, s, i - 1, strict)) i--;
  while (!passes(e0, s, i, strict)) i++;
  return i;
}

/** Last integer i with e0 + s·i passing, for s < 0. */
function lastInside(e0: number, s: number, strict: boolean): number {
  let i = Math.floor(-e0 / s);
  while (!passes(e0, s, i, strict)) i--;
  while (passes(e0, s, i + 1, strict)) i++;
  return i;
}

/** One covered span of a row, f32 rounding (see header for the order). */
function spanF32(target: Float32Array, row: number, lo: number, hi: number, e0: number, e1: number, e2: number, s0: number, s1: number, s2: number, invArea: number, h0: number, h1: number, h2: number): void {
  const f = Math.fround;
  for (let i = lo; i <= hi; i++) {
    const l0 = f((e0 + s0 * i) * invArea);
    const l1 = f((e1 + s1 * i) * invArea);
    const l2 = f((e2 + s2 * i) * invArea);
    const h = f(f(f(l0 * h0) + f(l1 * h1)) + f(l2 * h2));
    target[row + i] = f(target[row + i] + h);
  }
}

/** The same span unrounded. */
function spanF64(target: Float64Array, row: number, lo: number, hi: number, e0: number, e1: number, e2: number, s0: number, s1: number, s2: number, invArea: number, h0: number, h1: number, h2: number): void {
  for (let i = lo; i <= hi; i++) {
    target[row + i] += (e0 + s0 * i) * invArea * h0 + (e1 + s1 * i) * invArea * h1 + (e2 + s2 * i) * invArea * h2;
  }
}

/**
 * Rasterizes `tris` into `target` (n × n, row-major) with ADD blending, in list order.
 * `coverage`, when given, counts the triangles that covered each pixel (invariant checks).
 */
export function rasterizeTriangles(tris: TriangleList, g: RasterGrid, target: Field, precision: Precision, coverage?: Uint16Array): RasterStats {
  const n = g.n;
  const scale = n / g.size;
  const f32 = precision === 'f32';
  const R = f32 ? Math.fround : (x: number) => x;
  const X = [0, 0, 0];
  const Y = [0, 0, 0];
  const Hh = [0, 0, 0];
  let degenerate = 0;
  let pixels = 0;
  const d = tris.xyh;
  // f32 targets made by newRasterField hand their spans to the SIMD kernel (same arithmetic, see raster-kernel.ts).
  const queue = f32 && !coverage ? spanQueueOf(target as Float32Array) : null;
  for (let t = 0; t < tris.count; t++) {
    const o = t * 9;
    for (let v = 0; v < 3; v++) {
      X[v] = snapFixed((d[o + 3 * v] - g.xmin) * scale);
      Y[v] = snapFixed((d[o + 3 * v + 1] - g.ymin) * scale);
      Hh[v] = R(d[o + 3 * v + 2]);
    }
    let area = (X[1] - X[0]) * (Y[2] - Y[0]) - (Y[1] - Y[0]) * (X[2] - X[0]);
    if (area === 0) {
      degenerate++;
      continue;
    }
    if (area < 0) {
      // Orient to positive area: coverage must not depend on winding.
      [X[1], X[2]] = [X[2], X[1]];
      [Y[1], Y[2]] = [Y[2], Y[1]];
      [Hh[1], Hh[2]] = [Hh[2], Hh[1]];
      area = -area;
    }
    const h0 = Hh[0];
    const h1 = Hh[1];
    const h2 = Hh[2];
    // Edge k is opposite vertex k: e0 = v1→v2, e1 = v2→v0, e2 = v0→v1; w_k(P) = (Xb − Xa)(Py − Ya) − (Yb − Ya)(Px − Xa).
    // Along a row (Px = i·256 + 128): w_k(i) = c_k + s_k·i with s_k = −(Yb − Ya)·256.
    const ax0 = X[1], ay0 = Y[1], bx0 = X[2], by0 = Y[2];
    const ax1 = X[2], ay1 = Y[2], bx1 = X[0], by1 = Y[0];
    const ax2 = X[0], ay2 = Y[0], bx2 = X[1], by2 = Y[1];
    const st0 = !ownsEdge(bx0 - ax0, by0 - ay0);
    const st1 = !ownsEdge(bx1 - ax1, by1 - ay1);
    const st2 = !ownsEdge(bx2 - ax2, by2 - ay2);
    const s0 = -(by0 - ay0) * SUBPIXEL;
    const s1 = -(by1 - ay1) * SUBPIXEL;
    const s2 = -(by2 - ay2) * SUBPIXEL;
    const yLo = Math.min(Y[0], Y[1], Y[2]);
    const yHi = Math.max(Y[0], Y[1], Y[2]);
    const xLo = Math.min(X[0], X[1], X[2]);
    const xHi = Math.max(X[0], X[1], X[2]);
    // Pixel rows/columns whose centres (k·256 + 128) can fall inside the bounding box.
    const j0 = Math.max(0, Math.ceil((yLo - 128) / SUBPIXEL));
    const j1 = Math.min(n - 1, Math.floor((yHi - 128) / SUBPIXEL));
    const i0b = Math.max(0, Math.ceil((xLo - 128) / SUBPIXEL));
    const i1b = Math.min(n - 1, Math.floor((xHi - 128) / SUBPIXEL));
    const invArea = 1 / area;
    for (let j = j0; j <= j1; j++) {
      const py = j * SUBPIXEL + 128;
      const c0 = (bx0 - ax0) * (py - ay0) + (s0 / SUBPIXEL) * (128 - ax0);
      const c1 = (bx1 - ax1) * (py - ay1) + (s1 / SUBPIXEL) * (128 - ax1);
      const c2 = (bx2 - ax2) * (py - ay2) + (s2 / SUBPIXEL) * (128 - ax2);
      let lo = i0b;
      let hi = i1b;
      if (s0 > 0) lo = Math.max(lo, firstInside(c0, s0, st0));
      else if (s0 < 0) hi = Math.min(hi, lastInside(c0, s0, st0));
      else if (!passes(c0, 0, 0, st0)) continue;
      if (s1 > 0) lo = Math.max(lo, firstInside(c1, s1, st1));
      else if (s1 < 0) hi = Math.min(hi, lastInside(c1, s1, st1));
      else if (!passes(c1, 0, 0, st1)) continue;
      if (s2 > 0) lo = Math.max(lo, firstInside(c2, s2, st2));
      else if (s2 < 0) hi = Math.min(hi, lastInside(c2, s2, st2));
      else if (!passes(c2, 0, 0, st2)) continue;
      if (hi < lo) continue;
      const row = j * n;
      if (queue) queue.push(row + lo, hi - lo + 1, c0 + s0 * lo, s0, c1 + s1 * lo, s1, c2 + s2 * lo, s2, invArea, h0, h1, h2);
      else if (f32) spanF32(target as Float32Array, row, lo, hi, c0, c1, c2, s0, s1, s2, invArea, h0, h1, h2);
      else spanF64(target as Float64Array, row, lo, hi, c0, c1, c2, s0, s1, s2, invArea, h0, h1, h2);
      if (coverage) for (let i = lo; i <= hi; i++) coverage[row + i]++;
      pixels += hi - lo + 1;
    }
  }
  queue?.flush();
  return { triangles: tris.count - degenerate, degenerate, pixels };
}
