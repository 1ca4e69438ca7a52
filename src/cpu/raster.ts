/**
 * Triangle rasterization with GPU rules into a float field (article: "From a Triangle to One Pixel", "Mapping Pixel
 * Centers to Texture Coordinates"; notes/gpu-rules.md, rasterization).
 *
 * Inputs: a triangle list in world coordinates with vertex heights, the target grid, the target field.
 * Outputs: the field with every covered pixel's interpolated height ADDed, in draw order.
 * Rules [D]:
 *  - pixel centres at +0.5: pixel (i, j) samples raster point (i + 0.5, j + 0.5), raster x = (x − xmin)·N/L ("pixel i
 *    lies at xmin+(i+0.5)×L/N");
 *  - h(P) = λ0h0 + λ1h1 + λ2h2 with barycentric λ (the article's formula);
 *  - ADD blending into the one float target, layer by layer ("two layers accumulated with ADD blending").
 * Rules [G] (GPU conventions, notes/gpu-rules.md; the article asks only that "coverage conventions, viewport
 * transforms, winding, and draw order must agree"):
 *  - vertex positions snap to 16.8 fixed point (8 fraction bits, round to nearest) before coverage is tested
 *    (`subpixelBits` selects a coarser grid, 2^−bits pixel, to mimic a device that snaps coarser);
 *  - the top-left rule: a sample exactly on an edge belongs to the triangle for which that edge is a top or left
 *    edge, so a shared edge is covered exactly once; the test does not depend on winding (triangles are oriented
 *    to positive area first);
 *  - float ADD in draw order.
 * [R] Row 0 at ymin (raster y = (y − ymin)·N/L): the article requires an explicit row direction but does not give it.
 * [R] Coverage and barycentric weights come from exact integer edge functions E (|values| < 2⁵³, exact in float64 —
 *     hardware evaluates them in fixed point, exactly). In f32 mode vertex heights and the setup's 1/A are float32,
 *     each λ = fround(E·(1/A)) (the exact integer times the float32 1/A, rounded once), and
 *     h = fround(fround(fround(λ0h0) + fround(λ1h1)) + fround(λ2h2)) is added with one more fround; f64 mode
 *     evaluates the same expression unrounded.
 *     With rows as screen y, positive-area triangles are clockwise on screen, and an edge a→b is top or left when
 *     b.y < a.y, or b.y = a.y and b.x > a.x.
 * [R] With the 'simd' executor (src/cpu/context.ts) the target is the context arena's raster view and the binned
 *     triangles go to the raster kernel (wasm/raster.wat), which finds each span as rasterRows does and evaluates
 *     spanF32's expression bit for bit, its bands split over two threads; the other executors use the loops below.
 * Conventions read (src/conventions): grid.pixelCentre (the sample point of pixel i is i + pixelCentre; the
 * declaration's 0.5 is the 128/256 below), raster.subpixelBits (declared 8, [G] Direct3D's 16.8; snapFixed snaps to a
 * coarser grid when a run asks for fewer bits to mimic a device).
 */
import { InputRangeError } from '../errors.js';
import type { Field, Precision } from '../core/precision.js';
import type { TriangleList } from '../drawlist/types.js';
import { BAND_SHIFT, rasterInArena, TRIANGLE_RECORD } from './wasm/raster-kernel.js';
import { inArena } from './wasm/arena.js';
import { stageContext, type StageContext } from './context.js';

export const SUBPIXEL = 256;

/** Fraction bits the snap accepts: 16.8 is the finest grid the integer edge functions are written for. */
export const MAX_SUBPIXEL_BITS = 8;

/**
 * Snap a raster coordinate to `bits` fraction bits, round to nearest (default 8: 16.8 fixed point), returned as the
 * integer count of 1/256 pixels. [G] A device may snap coarser (Vulkan allows 4 bits; SwiftShader snaps to 1/16
 * pixel): with bits < 8 the vertex lands on the coarser grid and is then written in 1/256 units, so every later
 * integer step is unchanged.
 */
export function snapFixed(v: number, bits = MAX_SUBPIXEL_BITS): number {
  if (bits === MAX_SUBPIXEL_BITS) return Math.round(v * SUBPIXEL);
  const q = 2 ** bits;
  return Math.round(v * q) * (SUBPIXEL / q);
}

/** Checks a sub-pixel precision: an integer 0…8 (what the 1/256 edge functions can represent). */
export function checkSubpixelBits(bits: number, where: string): number {
  if (!Number.isInteger(bits) || bits < 0 || bits > MAX_SUBPIXEL_BITS)
    throw new InputRangeError(`${where}: sub-pixel bits must be an integer 0…${MAX_SUBPIXEL_BITS}, got ${bits}`);
  return bits;
}

/** Whether edge a→b owns samples lying exactly on it (top-left rule, see header). */
export function ownsEdge(dx: number, dy: number): boolean {
  return dy < 0 || (dy === 0 && dx > 0);
}

/** Barycentric weights of p in triangle abc (teaching form, float64): P = λ0·A + λ1·B + λ2·C. */
export function barycentric(
  p: readonly [number, number],
  a: readonly [number, number],
  b: readonly [number, number],
  c: readonly [number, number],
): [number, number, number] {
  const area = (b[0] - a[0]) * (c[1] - a[1]) - (b[1] - a[1]) * (c[0] - a[0]);
  const l1 = ((p[0] - a[0]) * (c[1] - a[1]) - (p[1] - a[1]) * (c[0] - a[0])) / area;
  const l2 = ((b[0] - a[0]) * (p[1] - a[1]) - (b[1] - a[1]) * (p[0] - a[0])) / area;
  return [1 - l1 - l2, l1, l2];
}

/** h(P) = λ0·h0 + λ1·h1 + λ2·h2 with the barycentric weights of p (teaching form, float64). */
export function barycentricHeight(
  p: readonly [number, number],
  a: readonly [number, number],
  b: readonly [number, number],
  c: readonly [number, number],
  h: readonly [number, number, number],
): number {
  const [l0, l1, l2] = barycentric(p, a, b, c);
  return l0 * h[0] + l1 * h[1] + l2 * h[2];
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
function spanF32(
  target: Float32Array,
  row: number,
  lo: number,
  hi: number,
  e0: number,
  e1: number,
  e2: number,
  s0: number,
  s1: number,
  s2: number,
  invArea: number,
  h0: number,
  h1: number,
  h2: number,
): void {
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
function spanF64(
  target: Float64Array,
  row: number,
  lo: number,
  hi: number,
  e0: number,
  e1: number,
  e2: number,
  s0: number,
  s1: number,
  s2: number,
  invArea: number,
  h0: number,
  h1: number,
  h2: number,
): void {
  for (let i = lo; i <= hi; i++) {
    target[row + i] += (e0 + s0 * i) * invArea * h0 + (e1 + s1 * i) * invArea * h1 + (e2 + s2 * i) * invArea * h2;
  }
}

/** Per-triangle setup record (float64, the 'triangle' block of layouts.ts): three edges (ax, ay, bx, by), steps s_k,
 *  strict flags, heights, 1/area, bounds. */
const TRI = TRIANGLE_RECORD;
/** [R] Rows per band (layouts.ts bandShift): triangles are drawn band by band (in draw order within each band), so the
 *  rows being written stay in cache; every pixel lies in one band, so its ADDs keep the draw order. */
const BAND = 1 << BAND_SHIFT;

/** Spans of rows ja..jb of the triangle recorded at `r`; returns the pixels covered. */
function rasterRows(
  rec: Float64Array,
  r: number,
  ja: number,
  jb: number,
  n: number,
  target: Field,
  f32: boolean,
  coverage: Uint16Array | undefined,
  C: number,
): number {
  const ax0 = rec[r],
    ay0 = rec[r + 1],
    bx0 = rec[r + 2];
  const ax1 = rec[r + 4],
    ay1 = rec[r + 5],
    bx1 = rec[r + 6];
  const ax2 = rec[r + 8],
    ay2 = rec[r + 9],
    bx2 = rec[r + 10];
  const s0 = rec[r + 12],
    s1 = rec[r + 13],
    s2 = rec[r + 14];
  const st0 = rec[r + 15] === 1,
    st1 = rec[r + 16] === 1,
    st2 = rec[r + 17] === 1;
  const h0 = rec[r + 18],
    h1 = rec[r + 19],
    h2 = rec[r + 20];
  const invArea = rec[r + 21];
  const i0b = rec[r + 24],
    i1b = rec[r + 25];
  let pixels = 0;
  for (let j = ja; j <= jb; j++) {
    const py = j * SUBPIXEL + C;
    const c0 = (bx0 - ax0) * (py - ay0) + (s0 / SUBPIXEL) * (C - ax0);
    const c1 = (bx1 - ax1) * (py - ay1) + (s1 / SUBPIXEL) * (C - ax1);
    const c2 = (bx2 - ax2) * (py - ay2) + (s2 / SUBPIXEL) * (C - ax2);
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
    if (f32) spanF32(target as Float32Array, row, lo, hi, c0, c1, c2, s0, s1, s2, invArea, h0, h1, h2);
    else spanF64(target as Float64Array, row, lo, hi, c0, c1, c2, s0, s1, s2, invArea, h0, h1, h2);
    if (coverage) for (let i = lo; i <= hi; i++) coverage[row + i]++;
    pixels += hi - lo + 1;
  }
  return pixels;
}

/**
 * Rasterizes `tris` into `target` (n × n, row-major) with ADD blending, in list order.
 * `coverage`, when given, counts the triangles that covered each pixel (invariant checks).
 * `subpixelBits` (default 8, [G] Direct3D's 16.8): the vertex snapping grid, 2^−bits pixel (see snapFixed).
 */
export function rasterizeTriangles(
  tris: TriangleList,
  g: RasterGrid,
  target: Field,
  ctxOrPrecision: Precision | StageContext,
  coverage?: Uint16Array,
  subpixelBits?: number,
): RasterStats {
  const ctx = stageContext(ctxOrPrecision);
  // The snapping grid: an explicit argument (the draw list's raster.subpixelBits), else the conventions in force.
  const bits = checkSubpixelBits(subpixelBits ?? ctx.conventions.raster.subpixelBits, 'rasterizeTriangles');
  const n = g.n;
  const scale = n / g.size;
  const f32 = ctx.executor !== 'f64';
  // The sample point of pixel k in 1/256 pixels (conventions grid.pixelCentre; 128 for the declared 0.5).
  const C = ctx.conventions.grid.pixelCentre * SUBPIXEL;
  const R = f32 ? Math.fround : (x: number) => x;
  const X = [0, 0, 0];
  const Y = [0, 0, 0];
  const Hh = [0, 0, 0];
  let degenerate = 0;
  const d = tris.xyh;
  const rec = new Float64Array(tris.count * TRI);
  let live = 0;
  for (let t = 0; t < tris.count; t++) {
    const o = t * 9;
    for (let v = 0; v < 3; v++) {
      X[v] = snapFixed((d[o + 3 * v] - g.xmin) * scale, bits);
      Y[v] = snapFixed((d[o + 3 * v + 1] - g.ymin) * scale, bits);
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
    // Edge k is opposite vertex k: e0 = v1→v2, e1 = v2→v0, e2 = v0→v1; w_k(P) = (Xb − Xa)(Py − Ya) − (Yb − Ya)(Px − Xa).
    // Along a row (Px = i·256 + 128): w_k(i) = c_k + s_k·i with s_k = −(Yb − Ya)·256.
    const r = live * TRI;
    for (let k = 0; k < 3; k++) {
      const a = (k + 1) % 3;
      const b = (k + 2) % 3;
      rec[r + 4 * k] = X[a];
      rec[r + 4 * k + 1] = Y[a];
      rec[r + 4 * k + 2] = X[b];
      rec[r + 4 * k + 3] = Y[b];
      rec[r + 12 + k] = -(Y[b] - Y[a]) * SUBPIXEL;
      rec[r + 15 + k] = ownsEdge(X[b] - X[a], Y[b] - Y[a]) ? 0 : 1;
      rec[r + 18 + k] = Hh[k];
    }
    rec[r + 21] = R(1 / area); // the triangle setup's 1/A, float32 in f32 mode as a GPU's setup would hold it
    // Pixel rows/columns whose centres (k·256 + C) can fall inside the bounding box.
    rec[r + 22] = Math.max(0, Math.ceil((Math.min(Y[0], Y[1], Y[2]) - C) / SUBPIXEL));
    rec[r + 23] = Math.min(n - 1, Math.floor((Math.max(Y[0], Y[1], Y[2]) - C) / SUBPIXEL));
    rec[r + 24] = Math.max(0, Math.ceil((Math.min(X[0], X[1], X[2]) - C) / SUBPIXEL));
    rec[r + 25] = Math.min(n - 1, Math.floor((Math.max(X[0], X[1], X[2]) - C) / SUBPIXEL));
    if (rec[r + 22] <= rec[r + 23]) live++; // triangles with no pixel row inside the grid are dropped here
  }
  // Bin the triangles by band (counting sort keeps draw order inside every band).
  const bands = Math.ceil(n / BAND);
  const start = new Int32Array(bands + 1);
  for (let t = 0; t < live; t++) for (let b = rec[t * TRI + 22] >> BAND_SHIFT; b <= rec[t * TRI + 23] >> BAND_SHIFT; b++) start[b + 1]++;
  for (let b = 0; b < bands; b++) start[b + 1] += start[b];
  const fill = start.slice(0, bands);
  const binned = new Int32Array(start[bands]);
  for (let t = 0; t < live; t++) for (let b = rec[t * TRI + 22] >> BAND_SHIFT; b <= rec[t * TRI + 23] >> BAND_SHIFT; b++) binned[fill[b]++] = t;
  // The simd executor draws the bands with the kernel (same arithmetic, see raster-kernel.ts); its target must be the
  // arena's raster view.
  if (ctx.executor === 'simd' && !coverage) {
    const arena = ctx.arena;
    if (!arena || !inArena(target, arena) || target.byteOffset !== arena.rasterAt || target.length !== n * n)
      throw new RangeError(`rasterizeTriangles: the simd executor draws into its arena's ${n}² raster view (context.arena.rasterView)`);
    const drawn = rasterInArena(arena, rec, live, binned, start, C);
    if (drawn !== null) return { triangles: tris.count - degenerate, degenerate, pixels: drawn };
  }
  let pixels = 0;
  for (let b = 0; b < bands; b++) {
    const top = b * BAND;
    const bottom = Math.min(top + BAND, n) - 1;
    for (let q = start[b]; q < start[b + 1]; q++) {
      const r = binned[q] * TRI;
      pixels += rasterRows(rec, r, Math.max(rec[r + 22], top), Math.min(rec[r + 23], bottom), n, target, f32, coverage, C);
    }
  }
  return { triangles: tris.count - degenerate, degenerate, pixels };
}
