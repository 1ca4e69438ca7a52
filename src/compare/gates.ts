/** Regression gates on a comparison: each states its limit, the measured value and whether it passed. */
import type { ComparisonResult } from './compare.js';

export interface Gates {
  minExactPercent?: number;
  maxCode?: number;
  maxRmsMm?: number;
  /**
   * Most pixels left out of the metrics for a non-finite value (NaN, ±Inf) on either side. [R] Evaluated whenever
   * any gate is asked for, with 0 when not given: the other gates measure only the finite pixels, so a field that is
   * 90 % NaN would otherwise pass them on the tenth it has.
   */
  maxNonFinite?: number;
}

export interface GateOutcome {
  name: string;
  limit: string;
  value: number;
  passed: boolean;
}

export function evaluateGates(r: ComparisonResult, g: Gates): GateOutcome[] {
  const out: GateOutcome[] = [];
  if (g.minExactPercent !== undefined)
    out.push({ name: 'exact codes %', limit: `≥ ${g.minExactPercent}`, value: r.exactPercent, passed: r.exactPercent >= g.minExactPercent });
  if (g.maxCode !== undefined) out.push({ name: 'max |Δq|', limit: `≤ ${g.maxCode}`, value: r.maxAbsCode, passed: r.maxAbsCode <= g.maxCode });
  if (g.maxRmsMm !== undefined) out.push({ name: 'RMS mm', limit: `≤ ${g.maxRmsMm}`, value: r.rmsMm, passed: r.rmsMm <= g.maxRmsMm });
  if (out.length > 0 || g.maxNonFinite !== undefined) {
    const limit = g.maxNonFinite ?? 0;
    const excluded = r.nonFinite.pixelsExcluded;
    out.push({ name: 'non-finite pixels', limit: `≤ ${limit}`, value: excluded, passed: excluded <= limit });
  }
  // A gate measured on no pixel at all (every pixel excluded) passes nothing: NaN comparisons are false above.
  return out;
}
