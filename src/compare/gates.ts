/** Regression gates on a comparison: each states its limit, the measured value and whether it passed. */
import type { ComparisonResult } from './compare.js';

export interface Gates {
  minExactPercent?: number;
  maxCode?: number;
  maxRmsMm?: number;
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
  return out;
}
