/**
 * Regression gates on a comparison: each states its limit, the measured value and whether it passed.
 * [R] One set of names everywhere: `minExact` (minimum % of codes equal), `maxCode` (largest |Δq|), `maxRmsMm`
 * (full-map RMS, mm) — the keys of params.yaml `gates:`, the API's, and the CLI's `--min-exact`, `--max-code`,
 * `--max-rms-mm`, and `maxNonFinite` (`--max-nonfinite`). `minExactPercent` (the API's earlier name) is still read. Any other key is refused (UsageError
 * naming it and the known ones): a misspelt gate in plain JavaScript would otherwise be dropped silently; a value that
 * is not a finite number is refused too.
 */
import { UsageError } from '../errors.js';
import type { ComparisonResult } from './compare.js';

export interface Gates {
  /** Minimum percentage of final codes equal to the reference. */
  minExact?: number;
  /** @deprecated the earlier name of `minExact`. */
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

export const GATE_NAMES = Object.freeze(['minExact', 'maxCode', 'maxRmsMm', 'maxNonFinite'] as const);

export interface GateOutcome {
  name: string;
  limit: string;
  value: number;
  passed: boolean;
}

/** The gates with their canonical names, checked: unknown keys and non-numbers refused; undefined means "no gate". */
export function normaliseGates(g: Readonly<Record<string, unknown>>): { minExact?: number; maxCode?: number; maxRmsMm?: number; maxNonFinite?: number } {
  const known = new Set<string>([...GATE_NAMES, 'minExactPercent']);
  for (const [k, v] of Object.entries(g)) {
    if (!known.has(k)) throw new UsageError(`unknown gate ${JSON.stringify(k)}: expected one of ${GATE_NAMES.join(', ')}`);
    if (v !== undefined && (typeof v !== 'number' || !Number.isFinite(v))) throw new UsageError(`gate ${k} = ${JSON.stringify(v)}: expected a finite number`);
  }
  if (g.minExact !== undefined && g.minExactPercent !== undefined && g.minExact !== g.minExactPercent)
    throw new UsageError(`gates minExact (${String(g.minExact)}) and minExactPercent (${String(g.minExactPercent)}) disagree: give minExact only`);
  const minExact = (g.minExact ?? g.minExactPercent) as number | undefined;
  return { minExact, maxCode: g.maxCode as number | undefined, maxRmsMm: g.maxRmsMm as number | undefined, maxNonFinite: g.maxNonFinite as number | undefined };
}

export function evaluateGates(r: ComparisonResult, gates: Gates): GateOutcome[] {
  const g = normaliseGates(gates as Readonly<Record<string, unknown>>);
  const out: GateOutcome[] = [];
  if (g.minExact !== undefined) out.push({ name: 'exact codes %', limit: `≥ ${g.minExact}`, value: r.exactPercent, passed: r.exactPercent >= g.minExact });
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
