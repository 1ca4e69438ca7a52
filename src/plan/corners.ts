/**
 * Corner heights (article: "Distance Weights Blend Sources into Corner Heights", "How Sixth-Power Attenuation
 * Distributes Influence", "How the Self Term Participates in Normalization").
 *
 * Inputs: deduplicated corners, their zero-class flags, source records, corner self-term parameters.
 * Outputs: one height per corner, and the branch that produced it.
 * Seed rules [D]:
 *  - zero class: set to 0 directly by height group, bypassing blending ("One corner class is set directly to zero
 *    according to its height group");
 *  - source weight on the adjusted distance d (centre distance − envelope): d < 0 → 1000; 0 ≤ d < 512 → (1 − d/512)⁶;
 *    otherwise 0; then, strictly when d < 96, × (1 − d/96) × 10. The jump at 96 m is kept (the article's piecewise
 *    rule; "skip that multiplication at d=96");
 *  - self term: weight 1000 and no numerator for d < 0; (1 − d/96) × 10 for 0 ≤ d < 96; 1 beyond ("the self weight is
 *    1000 below zero …"; "The negative-distance branch uses a strong weight without adding a self-height numerator");
 *  - h = (Σ w·h + self numerator) / (Σ w + w_self), all terms normalized together (the article's N/D).
 * Constants and rules (512, 6, 96, 10, 1000, the strict step, the joint self term) are the conventions declaration's
 * `corners` group (src/conventions); the Gaussian shape and the smoothed step exist there as ablations.
 * [R] The self term's d is the corner's smallest adjusted source distance; its height is the ordinary source formula
 *     applied to the corner's own distance to its reference boundary. A corner is in the zero class when every cell
 *     around it belongs to the zero height group.
 */
import { DEFAULT_CONVENTIONS, type Conventions } from '../conventions/index.js';

type CornerRules = Conventions['corners'];
const RULES = DEFAULT_CONVENTIONS.corners;

/** The near-distance factor for d < nearRange: (1 − d/nearRange)·nearGain ('strict'), or the continuous 'smoothed' one. */
function nearFactor(d: number, k: CornerRules): number {
  return k.nearRule === 'strict' ? (1 - d / k.nearRange) * k.nearGain : 1 + (k.nearGain - 1) * (1 - d / k.nearRange);
}

/** Source weight of adjusted distance d. */
export function sourceWeight(d: number, k: CornerRules = RULES): number {
  let w: number;
  if (d < 0) w = k.insideWeight;
  else if (d < k.range) w = k.shape === 'power' ? (1 - d / k.range) ** k.exponent : Math.exp(-0.5 * (d / k.gaussianSigma) ** 2);
  else w = 0;
  if (d < k.nearRange) w = k.nearRule === 'strict' ? w * (1 - d / k.nearRange) * k.nearGain : w * nearFactor(d, k);
  return w;
}

/** Self weight of adjusted distance d. */
export function selfWeight(d: number, k: CornerRules = RULES): number {
  if (d < 0) return k.insideWeight;
  if (d < k.nearRange) return nearFactor(d, k);
  return 1;
}

export interface BlendTerm {
  height: number;
  weight: number;
}

/** N, D and N/D over source terms and a self term; a self term without height adds weight only (the d < 0 branch). */
export function blendTerms(terms: readonly BlendTerm[], self: { height?: number; weight: number }): { numerator: number; denominator: number; height: number } {
  let n = 0;
  let d = 0;
  for (const t of terms) {
    n += t.weight * t.height;
    d += t.weight;
  }
  if (self.height !== undefined) n += self.weight * self.height;
  d += self.weight;
  return { numerator: n, denominator: d, height: n / d };
}

/** N/D over source terms and a self term (see blendTerms). */
export function blendCorner(terms: readonly BlendTerm[], self: { height?: number; weight: number }): number {
  return blendTerms(terms, self).height;
}

/** The adjusted source distance: centre distance − the source's envelope (radial offset); negative inside it. */
export function adjustedDistance(x: number, y: number, s: { x: number; y: number; envelope: number }): number {
  return Math.hypot(x - s.x, y - s.y) - s.envelope;
}

export type CornerBranch = 'zero-class' | 'blend' | 'blend-inside-envelope';

export interface CornerSourceView {
  x: number;
  y: number;
  height: number;
  envelope: number;
}

/** Height of one non-zero-class corner at (x, y) with self height `selfHeight`. */
export function cornerHeight(
  x: number,
  y: number,
  sources: readonly CornerSourceView[],
  selfHeight: number,
  k: CornerRules = RULES,
): { height: number; branch: CornerBranch } {
  let n = 0;
  let den = 0;
  let dmin = Infinity;
  for (const s of sources) {
    const d = adjustedDistance(x, y, s);
    if (d < dmin) dmin = d;
    const w = sourceWeight(d, k);
    if (w === 0) continue;
    n += w * s.height;
    den += w;
  }
  const ws = selfWeight(dmin, k);
  if (dmin < 0) return { height: n / (den + ws), branch: 'blend-inside-envelope' };
  return { height: (n + ws * selfHeight) / (den + ws), branch: 'blend' };
}

export interface CornerInputs {
  corner_xy: Float64Array;
  corner_cells: readonly (readonly number[])[];
  cellGroup(c: number): number;
  /** Self height of a corner, metres: the ordinary formula on its own reference distance. */
  selfHeight(corner: number): number;
}

export interface CornerField {
  corner_height: Float64Array;
  corner_branch: CornerBranch[];
  counts: { zeroClass: number; blend: number; insideEnvelope: number };
}

export function computeCorners(inp: CornerInputs, sources: readonly CornerSourceView[], zeroGroup: number, k: CornerRules = RULES): CornerField {
  const n = inp.corner_xy.length / 2;
  const corner_height = new Float64Array(n);
  const corner_branch: CornerBranch[] = [];
  const counts = { zeroClass: 0, blend: 0, insideEnvelope: 0 };
  for (let c = 0; c < n; c++) {
    const cells = inp.corner_cells[c];
    if (cells.length > 0 && cells.every((cell) => inp.cellGroup(cell) === zeroGroup)) {
      corner_height[c] = 0;
      corner_branch.push('zero-class');
      counts.zeroClass++;
      continue;
    }
    const r = cornerHeight(inp.corner_xy[2 * c], inp.corner_xy[2 * c + 1], sources, inp.selfHeight(c), k);
    corner_height[c] = r.height;
    corner_branch.push(r.branch);
    if (r.branch === 'blend') counts.blend++;
    else counts.insideEnvelope++;
  }
  return { corner_height, corner_branch, counts };
}
