/**
 * Trilinear sampling of a stored mip chain (article: "Why Mip Selection Changes Height"; notes/gpu-rules.md, mip
 * level of detail and trilinear).
 * LOD = log2(texels per destination pixel) for an isotropic footprint, clamped to [0, levels − 1];
 * result = sample(⌊LOD⌋)·(1 − w) + sample(⌊LOD⌋ + 1)·w with w = frac(LOD), each sample bilinear within its level
 * (texel-space x = u·N − 0.5, clamp addressing). LOD 2.25 blends levels 2 and 3 at 0.75 and 0.25.
 */
import type { HeightAsset } from '../assets/assets.js';
import { lerp2 } from '../core/sampling.js';
import { DEFAULT_CONVENTIONS } from '../conventions/index.js';

/** Texel-space x = u·N − texelCentre (conventions sampling.texelCentre). */
const TEXEL_CENTRE = DEFAULT_CONVENTIONS.sampling.texelCentre;

export interface MipWeights {
  lower: number;
  upper: number;
  weightLower: number;
  weightUpper: number;
}

export function mipWeights(lod: number, levelCount = Infinity): MipWeights {
  const maxLevel = levelCount - 1;
  const l = Math.min(Math.max(lod, 0), maxLevel);
  const lower = Math.floor(l);
  const upper = Math.min(lower + 1, maxLevel);
  const w = l - lower;
  return { lower, upper, weightLower: 1 - w, weightUpper: w };
}

/**
 * sampleTexel's 'exact' path for one n × n float32 level at (u, v), with the same operations in the same order
 * (tested equal). [R] Kept as its own small function with one array type so V8 inlines it into the draw loop: the
 * shared sampleTexel is called with many array types and rounding functions, is not inlined there, and each call
 * then boxes its float result.
 */
export function sampleLevelF32(level: Float32Array, n: number, u: number, v: number, R: (x: number) => number, tc: number = TEXEL_CENTRE): number {
  const x = u * n - tc;
  const y = v * n - tc;
  const xf = Math.floor(x);
  const yf = Math.floor(y);
  const fx = R(x - xf);
  const fy = R(y - yf);
  const m = n - 1;
  const i0 = xf < 0 ? 0 : xf > m ? m : xf;
  const i1 = xf + 1 < 0 ? 0 : xf + 1 > m ? m : xf + 1;
  const r0 = (yf < 0 ? 0 : yf > m ? m : yf) * n;
  const r1 = (yf + 1 < 0 ? 0 : yf + 1 > m ? m : yf + 1) * n;
  return lerp2(level[r0 + i0], level[r0 + i1], level[r1 + i0], level[r1 + i1], fx, R(1 - fx), fy, R(1 - fy), R);
}

export function sampleTrilinear(asset: HeightAsset, u: number, v: number, w: MipWeights, R: (x: number) => number): number {
  const a = sampleLevelF32(asset.levels[w.lower], asset.sizes[w.lower], u, v, R);
  if (w.weightUpper === 0) return a;
  const b = sampleLevelF32(asset.levels[w.upper], asset.sizes[w.upper], u, v, R);
  return R(R(a * R(w.weightLower)) + R(b * R(w.weightUpper)));
}
