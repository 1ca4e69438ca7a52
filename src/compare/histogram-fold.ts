/**
 * Folding a Δq histogram for text (Markdown summaries, regress, CI step summaries): bins −limit … +limit are listed,
 * everything beyond is summed into two folded bins with the count stated, so the text stays bounded whatever the
 * histogram. [R] limit 8 codes: ±1 (quantization) and the small-|Δq| tail stay visible; outliers are counted.
 * Accumulator: integer sums of pixel counts (exact below 2^53).
 */
export const HISTOGRAM_FOLD_LIMIT = 8;

export interface FoldedHistogram {
  /** Bins −limit … +limit that are non-zero, in ascending Δq order. */
  readonly bins: readonly { readonly dq: number; readonly count: number }[];
  /** Pixels with Δq < −limit, and how many distinct bins they came from. */
  readonly below: { readonly count: number; readonly bins: number; readonly minDq: number | null };
  /** Pixels with Δq > +limit, and how many distinct bins they came from. */
  readonly above: { readonly count: number; readonly bins: number; readonly maxDq: number | null };
  readonly limit: number;
}

/** Folds a histogram keyed by the decimal Δq (as CompareMetrics.histogram is). */
export function foldHistogram(histogram: Readonly<Record<string, number>>, limit = HISTOGRAM_FOLD_LIMIT): FoldedHistogram {
  const bins: { dq: number; count: number }[] = [];
  let belowCount = 0;
  let belowBins = 0;
  let minDq: number | null = null;
  let aboveCount = 0;
  let aboveBins = 0;
  let maxDq: number | null = null;
  for (const [key, count] of Object.entries(histogram)) {
    const dq = Number(key);
    if (!Number.isInteger(dq) || !(count > 0)) continue;
    if (dq < -limit) {
      belowCount += count;
      belowBins++;
      minDq = minDq === null ? dq : Math.min(minDq, dq);
    } else if (dq > limit) {
      aboveCount += count;
      aboveBins++;
      maxDq = maxDq === null ? dq : Math.max(maxDq, dq);
    } else bins.push({ dq, count });
  }
  bins.sort((a, b) => a.dq - b.dq);
  return { bins, below: { count: belowCount, bins: belowBins, minDq }, above: { count: aboveCount, bins: aboveBins, maxDq }, limit };
}

/** One line: "{−2: 1, −1: 764, 0: 16775998, +1: 453}; folded: 7 px below −8 (3 bins, min −86)". */
export function foldedHistogramText(h: FoldedHistogram): string {
  const sign = (d: number) => (d > 0 ? `+${d}` : d < 0 ? `−${-d}` : '0');
  const parts = h.bins.map((b) => `${sign(b.dq)}: ${b.count}`);
  const folded: string[] = [];
  if (h.below.count > 0) folded.push(`${h.below.count} px below ${sign(-h.limit)} (${h.below.bins} bins, min ${sign(h.below.minDq ?? 0)})`);
  if (h.above.count > 0) folded.push(`${h.above.count} px above ${sign(h.limit)} (${h.above.bins} bins, max ${sign(h.above.maxDq ?? 0)})`);
  return `{${parts.join(', ')}}${folded.length ? `; folded: ${folded.join(', ')}` : ''}`;
}
