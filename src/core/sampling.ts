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

/** The article's bilinear formula, X first then Y, float64. */
export function bilinear(h00: number, h10: number, h01: number, h11: number, fx: number, fy: number): number {
  const a = h00 * (1 - fx) + h10 * fx;
  const b = h01 * (1 - fx) + h11 * fx;
  return a * (1 - fy) + b * fy;
}

/** The same formula with every intermediate rounded to float32, as a GPU shader evaluates it. */
export function bilinearF32(h00: number, h10: number, h01: number, h11: number, fx: number, fy: number): number {
  const f = Math.fround;
  const gx = f(1 - fx);
  const gy = f(1 - fy);
  const a = f(f(h00 * gx) + f(h10 * fx));
  const b = f(f(h01 * gx) + f(h11 * fx));
  return f(f(a * gy) + f(b * fy));
}

/** Rounds a sub-texel fraction to 8 fractional bits (nearest), as a filtering unit with 8-bit weights would. */
export function quantizeFraction8(f: number): number {
  return Math.round(f * 256) / 256;
}

/**
 * Samples `field` (row-major, `width` × `height`) at continuous texel coordinate (x, y) with clamp addressing,
 * X first then Y, every step passed through `R` (Math.fround for float32 evaluation, identity for float64).
 * The one per-sample bilinear of the project; full-field stages use specialised loops of the same formula.
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
  const gx = R(1 - fx);
  const a = R(R(field[r0 + i0] * gx) + R(field[r0 + i1] * fx));
  const b = R(R(field[r1 + i0] * gx) + R(field[r1 + i1] * fx));
  return R(R(a * R(1 - fy)) + R(b * fy));
}

const identity = (v: number) => v;

/**
 * Samples `field` (row-major, `width` × `height`) at continuous texel coordinate (x, y) with clamp addressing,
 * float64 — the article's bilinear formula.
 */
export function sampleBilinear(
  field: ArrayLike<number>,
  width: number,
  height: number,
  x: number,
  y: number,
  mode: SubTexelMode = 'exact',
): number {
  return sampleTexel(field, width, height, x, y, identity, mode);
}

/** Samples at normalized texture coordinates (u, v) ∈ [0, 1]: texel-space x = u·width − 0.5. */
export function sampleUV(
  field: ArrayLike<number>,
  width: number,
  height: number,
  u: number,
  v: number,
  mode: SubTexelMode = 'exact',
): number {
  return sampleBilinear(field, width, height, u * width - 0.5, v * height - 0.5, mode);
}
