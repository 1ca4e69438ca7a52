/**
 * Regression gates on a comparison: each states its limit, the measured value and whether it passed.
 * [R] One set of names everywhere: `minExact` (minimum % of codes equal), `maxCode` (largest |Δq|), `maxRmsMm`
 * (full-map RMS, mm) — the keys of params.yaml `gates:`, the API's, and the CLI's `--min-exact`, `--max-code`,
 * `--max-rms-mm`, and `maxNonFinite` (`--max-nonfinite`), `maxAbsMm` (`--max-abs-mm`), `maxBeyondTolerance` (`--max-beyond-tolerance`), and the
 * switch `allowClamped` (`--allow-clamped`). `minExactPercent` (an alias of `minExact`) is still read so that existing gate files keep working. Any other key is refused (UsageError
 * naming it and the known ones): a misspelt gate in plain JavaScript would otherwise be dropped silently; a value that
 * is not a finite number is refused too.
 */
import { UsageError } from '../errors.js';
import type { ComparisonResult } from './compare.js';

export interface Gates {
  /**
   * Minimum percentage of pixels equal: codes equal when both sides hold codes; heights equal (in metres, after each
   * side's declared conversion) when a side holds float heights.
   */
  minExact?: number;
  /** @deprecated an alias of `minExact`, read so that existing gate files keep working. */
  minExactPercent?: number;
  /** Largest |Δq|: only where codes are compared (refused for a float pair without a stated code range). */
  maxCode?: number;
  /** Whole-map RMS, mm: of the float differences when a side is float, else of the codes. */
  maxRmsMm?: number;
  /** Largest |Δ|, mm: of the float differences when a side is float, else |Δq| × metres per code. */
  maxAbsMm?: number;
  /** Most pixels whose |Δ| exceeds the comparison's tolerance (CompareOptions.toleranceMm). */
  maxBeyondTolerance?: number;
  /**
   * Most pixels left out of the metrics for a non-finite value (NaN, ±Inf) on either side. [R] Evaluated whenever
   * any gate is asked for, with 0 when not given: the other gates measure only the finite pixels, so a field that is
   * 90 % NaN would otherwise pass them on the tenth it has.
   */
  maxNonFinite?: number;
  /**
   * [R] Heights clamped by the code range (outside it, on either side) fail every gate unless this is true: codes
   * compared through a range a field leaves measure the range, not the field.
   */
  allowClamped?: boolean;
}

export const GATE_NAMES = Object.freeze(['minExact', 'maxCode', 'maxRmsMm', 'maxAbsMm', 'maxBeyondTolerance', 'maxNonFinite'] as const);

export interface GateOutcome {
  name: string;
  limit: string;
  value: number;
  passed: boolean;
}

type NumericGate = (typeof GATE_NAMES)[number];
export type NormalisedGates = { [K in NumericGate]?: number } & { allowClamped?: boolean };

/** The flag of each gate, as refusals name them. */
const FLAG: Readonly<Record<NumericGate, string>> = {
  minExact: '--min-exact',
  maxCode: '--max-code',
  maxRmsMm: '--max-rms-mm',
  maxAbsMm: '--max-abs-mm',
  maxBeyondTolerance: '--max-beyond-tolerance',
  maxNonFinite: '--max-nonfinite',
};

/**
 * The gates with their canonical names, checked: unknown keys, non-numbers and gates that can never pass (a
 * percentage outside 0…100, a negative limit) refused (UsageError: exit 2); undefined means "no gate".
 */
export function normaliseGates(g: Readonly<Record<string, unknown>>): NormalisedGates {
  const known = new Set<string>([...GATE_NAMES, 'minExactPercent', 'allowClamped']);
  for (const [k, v] of Object.entries(g)) {
    if (!known.has(k)) throw new UsageError(`unknown gate ${JSON.stringify(k)}: expected one of ${[...GATE_NAMES, 'allowClamped'].join(', ')}`);
    if (k === 'allowClamped') {
      if (v !== undefined && typeof v !== 'boolean') throw new UsageError(`gate allowClamped = ${JSON.stringify(v)}: expected true or false`);
      continue;
    }
    if (v !== undefined && (typeof v !== 'number' || !Number.isFinite(v))) throw new UsageError(`gate ${k} = ${JSON.stringify(v)}: expected a finite number`);
  }
  if (g.minExact !== undefined && g.minExactPercent !== undefined && g.minExact !== g.minExactPercent)
    throw new UsageError(`gates minExact (${String(g.minExact)}) and minExactPercent (${String(g.minExactPercent)}) disagree: give minExact only`);
  const out: NormalisedGates = {};
  for (const k of GATE_NAMES) {
    const v = (k === 'minExact' ? (g.minExact ?? g.minExactPercent) : g[k]) as number | undefined;
    if (v === undefined) continue;
    if (k === 'minExact' && !(v >= 0 && v <= 100)) throw new UsageError(`gate minExact (${FLAG[k]}) = ${v}: a percentage can only pass between 0 and 100`);
    if (k !== 'minExact' && v < 0) throw new UsageError(`gate ${k} (${FLAG[k]}) = ${v}: a negative limit can never pass (expected ≥ 0)`);
    out[k] = v;
  }
  if (g.allowClamped !== undefined) out.allowClamped = g.allowClamped as boolean;
  return out;
}

/**
 * The outcome of each gate asked for, measured as the comparison was made: in metres when a side holds float
 * heights (ComparisonResult.comparedIn), in codes otherwise. A code gate where codes were not compared is refused.
 */
export function evaluateGates(r: ComparisonResult, gates: Gates): GateOutcome[] {
  const g = normaliseGates(gates as Readonly<Record<string, unknown>>);
  const metres = r.comparedIn === 'metres';
  const out: GateOutcome[] = [];
  if (g.minExact !== undefined) {
    const value = metres ? (r.floatEqualPercent ?? Number.NaN) : r.exactPercent;
    out.push({ name: metres ? 'equal heights %' : 'exact codes %', limit: `≥ ${g.minExact}`, value, passed: value >= g.minExact });
  }
  if (g.maxCode !== undefined) {
    if (!r.codeRange)
      throw new UsageError(
        `gate maxCode (--max-code ${g.maxCode}): codes were not compared — both sides hold float heights and no range was stated to encode them (--range MIN,MAX); gate the heights with --max-abs-mm`,
      );
    out.push({ name: 'max |Δq|', limit: `≤ ${g.maxCode}`, value: r.maxAbsCode, passed: r.maxAbsCode <= g.maxCode });
  }
  if (g.maxRmsMm !== undefined) {
    const value = metres ? (r.floatRmsMm ?? Number.NaN) : r.rmsMm;
    out.push({ name: 'RMS mm', limit: `≤ ${g.maxRmsMm}`, value, passed: value <= g.maxRmsMm });
  }
  if (g.maxAbsMm !== undefined) {
    const value = metres ? (r.floatMaxAbsMm ?? Number.NaN) : r.maxAbsMm;
    out.push({ name: 'max |Δ| mm', limit: `≤ ${g.maxAbsMm}`, value, passed: value <= g.maxAbsMm });
  }
  if (g.maxBeyondTolerance !== undefined)
    out.push({
      name: `pixels beyond ${r.toleranceMm} mm`,
      limit: `≤ ${g.maxBeyondTolerance}`,
      value: r.beyondTolerance,
      passed: r.beyondTolerance <= g.maxBeyondTolerance,
    });
  if (out.length > 0 || g.maxNonFinite !== undefined) {
    const limit = g.maxNonFinite ?? 0;
    const excluded = r.nonFinite.pixelsExcluded;
    out.push({ name: 'non-finite pixels', limit: `≤ ${limit}`, value: excluded, passed: excluded <= limit });
  }
  if (out.length > 0 && r.clamped.total > 0)
    out.push({
      name: 'clamped pixels',
      limit: g.allowClamped ? 'any (--allow-clamped)' : '≤ 0 (--allow-clamped to accept)',
      value: r.clamped.total,
      passed: g.allowClamped === true,
    });
  // A gate measured on no pixel at all (every pixel excluded) passes nothing: NaN comparisons are false above.
  return out;
}

/** One line per failed gate, as `heightbench: gate failed: …` on stderr (compare, check --strict). */
export function gateFailureLines(outcomes: readonly GateOutcome[]): string {
  return outcomes
    .filter((o) => !o.passed)
    .map((o) => `heightbench: gate failed: ${o.name} ${o.limit}, measured ${o.value}\n`)
    .join('');
}
