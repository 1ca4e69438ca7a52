/**
 * Outer blend (article: "Radial Blending Connects the Interior to the Surroundings", "What the Transition Does at Its
 * Ends and Midpoint", "A Circular Transition inside a Square Data Domain").
 * Rules [D]: r = |P − C|; t = clamp((r − 620)/60, 0, 1); α = t²(3 − 2t); H = (1 − α)·H_interior + α·H_outer; the outer
 * input comes from its draw only when that draw is eligible for the request, otherwise from the target's initial
 * value ("an outer draw that fails eligibility leaves its target at the corresponding initial value").
 * [R] The initial value is 0 m (conventions outer.initialHeight; world config `outer.outerInitialHeight`): the article gives no initial value — its
 *     −2 m is a teaching number ("[E] The 20 m interior and −2 m outer heights explain weights and are not measured
 *     outer inputs from this run") — and a render target cleared before drawing holds 0, the natural GPU reading.
 *     This is the one place the choice is stated.
 * [R] An eligible outer draw renders the base relief (the raster, without local stages) — see run.ts.
 * [R] In f32 mode r, t, α and the blend are each rounded to float32 in that order.
 * [R] With the simd executor's arena the pixels are blended by outer.wat (the same f32 steps) by rows on both threads
 *     (wasm/outer-kernel.ts); the runs of each row are found here either way.
 */
import type { Field, Precision } from '../core/precision.js';
import { DEFAULT_CONVENTIONS } from '../conventions/index.js';
import { type DrawGrid } from '../drawlist/placement.js';
import { inArena, type Arena } from './wasm/arena.js';
import { blendRowsInArena } from './wasm/outer-kernel.js';

const BAND = DEFAULT_CONVENTIONS.outer;

export function outerBlendWeight(r: number, inner = BAND.inner, outer = BAND.outer): number {
  const t = Math.min(Math.max((r - inner) / (outer - inner), 0), 1);
  return t * t * (3 - 2 * t);
}

/** The blended height at radius r for constant interior and outer heights (band 620–680 m by default: conventions outer). */
export function smoothstepBlend(r: number, inner: number, outer: number, band: { r0: number; r1: number } = { r0: BAND.inner, r1: BAND.outer }): number {
  const a = outerBlendWeight(r, band.r0, band.r1);
  return (1 - a) * inner + a * outer;
}

/** First index in [lo, hi) where `pred` (false then true over the range) holds; hi when it never does. */
function firstTrue(lo: number, hi: number, pred: (i: number) => boolean): number {
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (pred(mid)) hi = mid;
    else lo = mid + 1;
  }
  return lo;
}

/** H = (1 − α)·H_interior + α·H_outer at one pixel, α = smoothstep(t), in the float32 order of the header. */
function blendPixel(field: Field, k: number, t: number, ho: number, R: (x: number) => number): void {
  const a = R(R(t * t) * R(3 - R(2 * t)));
  field[k] = R(R(R(1 - a) * field[k]) + R(a * ho));
}

/** The same with α = 1 over row pixels [a, b) and a constant outer height: (1 − 1)·H + 1·H_outer. */
function fullRun(field: Field, row: number, a: number, b: number, ho: number, R: (x: number) => number): void {
  for (let k = row + a; k < row + b; k++) field[k] = R(R(0 * field[k]) + ho);
}

/** α = 1 over row pixels [a, b) with the outer height from its own field. */
function fullRunField(field: Field, row: number, a: number, b: number, outer: Field, R: (x: number) => number): void {
  for (let k = row + a; k < row + b; k++) field[k] = R(R(0 * field[k]) + R(outer[k]));
}

/**
 * [R] Per row, the pixels split into runs: fully outer (t = 1), band (0 < t < 1), untouched (r ≤ inner), band,
 *     fully outer. The float32 r of a pixel never decreases with |dx| (every rounding is monotone) and dx never
 *     decreases along the row, so r falls up to the centre column and rises after it; each run boundary is found by
 *     bisection on the very expression used per pixel. Band pixels evaluate the whole formula; fully outer pixels
 *     evaluate it with α = 1 (no square root): R(1 − 1) = 0 and R(1·h) = h, so the value is the same bit for bit.
 */
export function applyOuterBlend(
  field: Field,
  g: DrawGrid,
  band: { inner: number; outer: number },
  outerInput: Field | number,
  precision: Precision,
  pc: number = DEFAULT_CONVENTIONS.grid.pixelCentre,
): { blendedPixels: number; fullyOuter: number } {
  return outerBlend(field, g, band, outerInput, precision, pc, null);
}

/** applyOuterBlend, on the outer kernel when `arena` holds the float32 field (and the outer field, if any). */
export function outerBlend(
  field: Field,
  g: DrawGrid,
  band: { inner: number; outer: number },
  outerInput: Field | number,
  precision: Precision,
  pc: number,
  arena: Arena | null,
): { blendedPixels: number; fullyOuter: number } {
  const R = precision === 'f32' ? Math.fround : (x: number) => x;
  const kernel =
    arena !== null &&
    precision === 'f32' &&
    field instanceof Float32Array &&
    inArena(field, arena) &&
    field.length === arena.n * arena.n &&
    g.n === arena.n &&
    (typeof outerInput === 'number' || (outerInput instanceof Float32Array && inArena(outerInput, arena) && outerInput.length === field.length));
  const runs = kernel ? new Int32Array(4 * g.n) : null;
  const dys = kernel ? new Float32Array(g.n) : null;
  const px = g.size / g.n;
  const n = g.n;
  const cx = g.xmin + g.size / 2;
  const cy = g.ymin + g.size / 2;
  const width = R(band.outer - band.inner);
  const inner = R(band.inner);
  const constOuter = typeof outerInput === 'number' ? R(outerInput) : 0;
  const dxAt = (i: number) => R(g.xmin + (i + pc) * px - cx);
  const radius = (i: number, dy: number) => {
    const dx = dxAt(i);
    return R(Math.sqrt(R(R(dx * dx) + R(dy * dy))));
  };
  const tOf = (r: number) => {
    const t = R(R(r - inner) / width);
    return t > 1 ? 1 : t;
  };
  // Columns [0, c) have dx < 0 (r falls along them), columns [c, n) dx ≥ 0 (r rises).
  const c = firstTrue(0, n, (i) => dxAt(i) >= 0);
  let blended = 0;
  let outerOnly = 0;
  for (let j = 0; j < n; j++) {
    const dy = R(g.ymin + (j + pc) * px - cy);
    const row = j * n;
    const written = (i: number) => radius(i, dy) > band.inner;
    const full = (i: number) => tOf(radius(i, dy)) >= 1;
    const fl = firstTrue(0, c, (i) => !full(i)); // [0, fl) fully outer
    const sl = firstTrue(fl, c, (i) => !written(i)); // [fl, sl) band, [sl, c) untouched
    const sr = firstTrue(c, n, written); // [c, sr) untouched
    const fr = firstTrue(sr, n, full); // [sr, fr) band, [fr, n) fully outer
    outerOnly += fl + (n - fr);
    blended += sl - fl + (fr - sr);
    if (runs && dys) {
      runs.set([fl, sl, sr, fr], 4 * j);
      dys[j] = dy;
      continue;
    }
    if (typeof outerInput === 'number') {
      fullRun(field, row, 0, fl, constOuter, R);
      fullRun(field, row, fr, n, constOuter, R);
    } else {
      fullRunField(field, row, 0, fl, outerInput, R);
      fullRunField(field, row, fr, n, outerInput, R);
    }
    for (let i = fl; i < sl; i++) blendPixel(field, row + i, tOf(radius(i, dy)), typeof outerInput === 'number' ? constOuter : R(outerInput[row + i]), R);
    for (let i = sr; i < fr; i++) blendPixel(field, row + i, tOf(radius(i, dy)), typeof outerInput === 'number' ? constOuter : R(outerInput[row + i]), R);
  }
  if (runs && dys) {
    const dxs = Float32Array.from({ length: n }, (_, i) => dxAt(i));
    blendRowsInArena(arena!, field as Float32Array, outerInput, runs, dxs, dys, inner, width);
  }
  return { blendedPixels: blended, fullyOuter: outerOnly };
}
