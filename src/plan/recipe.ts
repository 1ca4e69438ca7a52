/**
 * Recipe selection (article: "Recipe Selection and Pixel Calculation").
 *
 * Inputs: the world's recipe entry (sub-configurations with categories and weights), the request's scene types.
 * Outputs: the chosen sub-configuration and the probability of each candidate.
 * Seed rules [D]: filter candidates first (category match and positive weight), then sample by weight over the
 * eligible ones only ("Selection first determines valid candidates, then performs weighted sampling"; "Weights apply
 * only to candidates that pass filtering") — [E] weights 2, 1, 7 with the third excluded give 2/3 and 1/3. Sampling over all weights and
 * replacing an excluded pick would change both the distribution and the stream's consumption.
 */
import type { PrngStream } from './prng.js';

export interface SelectionCandidate {
  weight: number;
  eligible: boolean;
}

/** One probability per candidate: weight / Σ eligible weights, 0 where ineligible (or non-positive weight). */
export function selectionProbabilities(candidates: readonly SelectionCandidate[]): number[] {
  let total = 0;
  for (const c of candidates) if (c.eligible && c.weight > 0) total += c.weight;
  return candidates.map((c) => (c.eligible && c.weight > 0 && total > 0 ? c.weight / total : 0));
}

/**
 * Draws one candidate index by weight among the eligible ones (one draw from the stream, even when only one is
 * eligible: the consumption does not depend on the pool's size). Returns −1 (no draw) when none is eligible.
 */
export function weightedPick(stream: PrngStream, candidates: readonly SelectionCandidate[]): number {
  let total = 0;
  for (const c of candidates) if (c.eligible && c.weight > 0) total += c.weight;
  if (total <= 0) return -1;
  const u = stream.uniform() * total;
  let acc = 0;
  let last = -1;
  for (let k = 0; k < candidates.length; k++) {
    const c = candidates[k];
    if (!(c.eligible && c.weight > 0)) continue;
    acc += c.weight;
    last = k;
    if (u < acc) return k;
  }
  return last;
}
