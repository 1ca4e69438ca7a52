/**
 * Bilinear sampling with clamp addressing in texel space.
 *
 * Inputs: a row-major field (width × height), a continuous texel coordinate (texel centres at integers).
 * Outputs: one interpolated value.
 * Seed rules (000, "What One Bilinear Sample Reads"; notes/gpu-rules.md, bilinear sampling):
 *  - texel-space x = u·N − 0.5; i0 = floor(x); fx = x − i0; indices clamped to [0, N − 1].
 *  - a = h00(1 − fx) + h10·fx; b = h01(1 − fx) + h11·fx; h = a(1 − fy) + b·fy  (X first, then Y).
 * [R] Default weights are the exact float fractions. 'hw8' rounds each fraction to 8 sub-texel bits (nearest),
 *     mimicking hardware filtering units, for ablations.
 */

export type SubTexelMode = 'exact' | 'hw8';

/**
 * The project's one bilinear formula (every JavaScript sampler calls it; the WebAssembly kernels repeat it, tested bit
 * for bit): a = h00·gx + h10·fx, b = h01·gx + h11·fx, h = a·gy + b·fy with gx = 1 − fx, gy = 1 − fy passed in (loops
 * with per-axis tables compute them once), every product and sum through R (Math.fround: float32; identity: float64).
 */
export function lerp2(h00: number, h10: number, h01: number, h11: number, fx: number, gx: number, fy: number, gy: number, R: (v: number) => number): number {
  const a = R(R(h00 * gx) + R(h10 * fx));
  const b = R(R(h01 * gx) + R(h11 * fx));
  return R(R(a * gy) + R(b * fy));
}

const identity = (v: number) => v;

/** The article's bilinear formula, X first then Y, float64. */
export function bilinear(h00: number, h10: number, h01: number, h11: number, fx: number, fy: number): number {
  return lerp2(h00, h10, h01, h11, fx, 1 - fx, fy, 1 - fy, identity);
}

/** The same formula with every intermediate rounded to float32, as a GPU shader evaluates it. */
export function bilinearF32(h00: number, h10: number, h01: number, h11: number, fx: number, fy: number): number {
  const f = Math.fround;
  return lerp2(h00, h10, h01, h11, fx, f(1 - fx), fy, f(1 - fy), f);
}

/** Rounds a sub-texel fraction to 8 fractional bits (nearest), as a filtering unit with 8-bit weights would. */
export function quantizeFraction8(f: number): number {
  return Math.round(f * 256) / 256;
}

/**
 * Samples `field` (row-major, `width` × `height`) at continuous texel coordinate (x, y) with clamp addressing,
 * X first then Y, every step passed through `R` (Math.fround for float32 evaluation, identity for float64).
 * The one per-sample sampler of the project (mips.ts keeps a float32-array copy of its addressing for inlining);
 * all of them evaluate lerp2. The smoothing chain's full-field loops and the kernels are the same formula unrolled.
 */
export function sampleTexel(
  field: ArrayLike<number>,
  width: number,
  height: number,
  x: number,
  y: number,
  R: (v: number) => number,
  mode: SubTexelMode = 'exact',
): number {
  const xf = Math.floor(x);
  const yf = Math.floor(y);
  let fx = x - xf;
  let fy = y - yf;
  if (mode === 'hw8') {
    fx = quantizeFraction8(fx);
    fy = quantizeFraction8(fy);
  }
  fx = R(fx);
  fy = R(fy);
  const wm = width - 1;
  const hm = height - 1;
  const i0 = xf < 0 ? 0 : xf > wm ? wm : xf;
  const i1 = xf + 1 < 0 ? 0 : xf + 1 > wm ? wm : xf + 1;
  const j0 = yf < 0 ? 0 : yf > hm ? hm : yf;
  const j1 = yf + 1 < 0 ? 0 : yf + 1 > hm ? hm : yf + 1;
  const r0 = j0 * width;
  const r1 = j1 * width;
  return lerp2(field[r0 + i0], field[r0 + i1], field[r1 + i0], field[r1 + i1], fx, R(1 - fx), fy, R(1 - fy), R);
}

/**
 * Samples `field` (row-major, `width` × `height`) at continuous texel coordinate (x, y) with clamp addressing,
 * float64 — the article's bilinear formula.
 */
export function sampleBilinear(field: ArrayLike<number>, width: number, height: number, x: number, y: number, mode: SubTexelMode = 'exact'): number {
  return sampleTexel(field, width, height, x, y, identity, mode);
}

/** Samples at normalized texture coordinates (u, v) ∈ [0, 1]: texel-space x = u·width − 0.5. */
export function sampleUV(field: ArrayLike<number>, width: number, height: number, u: number, v: number, mode: SubTexelMode = 'exact'): number {
  return sampleBilinear(field, width, height, u * width - 0.5, v * height - 0.5, mode);
}
