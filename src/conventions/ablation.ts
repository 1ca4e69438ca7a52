/**
 * Ablations: named convention breaks (the smoothing chain's and the sampler's), each translated into a conventions
 * override so that every executor sees it through the one declaration.
 */
import { DEFAULT_CONVENTIONS, weightSum, type ConventionOverride, type Conventions } from './index.js';

/**
 * Deliberate convention breaks named by effect (RunOptions.ablation, `heightbench check` tests); each is only a change of
 * the conventions declaration (ablationOverride), so an ablation can never act outside the declaration.
 */
export interface SmoothingAblation {
  /** Divide the weights by their sum (the article says not to). */
  renormalize?: boolean;
  /** Read the nearest integer texel instead of bilinear sampling at fractional offsets. */
  integerTaps?: boolean;
  subTexel?: 'exact' | 'hw8';
  /** Skip the N² filter (the chain starts at filter(halve(raster))). */
  unfilteredRaster?: boolean;
}

/** The conventions override a SmoothingAblation stands for. */
export function ablationOverride(ab: SmoothingAblation | undefined, c: Conventions = DEFAULT_CONVENTIONS): ConventionOverride {
  const o: ConventionOverride = {};
  const sm: Partial<Conventions['smoothing']> = {};
  if (ab?.renormalize) sm.weights = c.smoothing.weights.map((w) => w / weightSum(c));
  if (ab?.integerTaps) sm.offsets = c.smoothing.offsets.map((x) => Math.round(x) + 0); // + 0: −0 → 0
  if (ab?.unfilteredRaster) sm.filterFullResolution = false;
  if (Object.keys(sm).length > 0) o.smoothing = sm;
  if (ab?.subTexel) o.sampling = { subTexel: ab.subTexel };
  return o;
}
