/**
 * The gate flags of `check` and `compare` (one definition, so both commands spell and parse them alike): --min-exact,
 * --max-code, --max-rms-mm, --max-abs-mm, --max-beyond-tolerance, --max-nonfinite, --allow-clamped, and their mapping
 * onto the comparison's Gates (src/compare/gates.ts). A gate that can never pass (a percentage outside 0…100, a
 * negative limit) is refused when parsed (exit 2).
 */
import { InvalidArgumentError, type Command } from 'commander';
import type { Gates } from '../compare/gates.js';
import { parseNonNegativeNumber, parseNumber } from './args.js';

/** The parsed gate flags (commander's camel-case names). */
export interface GateOptions {
  minExact?: number;
  maxCode?: number;
  maxRmsMm?: number;
  maxAbsMm?: number;
  maxBeyondTolerance?: number;
  maxNonfinite?: number;
  allowClamped?: boolean;
  toleranceMm?: number;
}

function parsePercent(v: string): number {
  const n = parseNumber(v);
  if (!(n >= 0 && n <= 100)) throw new InvalidArgumentError(`expected a percentage 0…100 (a gate that can pass), got ${JSON.stringify(v)}`);
  return n;
}

/** Adds the gate flags to `cmd`. */
export function addGateOptions(cmd: Command): Command {
  return cmd
    .option('--min-exact <pct>', 'gate: minimum percentage of pixels equal (codes; heights in metres when a side is float)', parsePercent)
    .option('--max-code <n>', 'gate: maximum |Δq| (only where codes are compared)', parseNonNegativeNumber)
    .option('--max-rms-mm <x>', 'gate: maximum RMS in mm (of the float differences when a side is float)', parseNonNegativeNumber)
    .option('--max-abs-mm <x>', 'gate: maximum |Δ| in mm (of the float differences when a side is float)', parseNonNegativeNumber)
    .option('--tolerance-mm <x>', 'tolerance of the comparison, mm: pixels whose |Δ| exceeds it are counted (default 0)', parseNonNegativeNumber)
    .option('--max-beyond-tolerance <n>', 'gate: most pixels whose |Δ| exceeds --tolerance-mm', parseNonNegativeNumber)
    .option(
      '--max-nonfinite <n>',
      'gate: most pixels with a non-finite value (NaN, ±Inf) on either side (default 0 whenever a gate is given)',
      parseNonNegativeNumber,
    )
    .option('--allow-clamped', 'let gates pass although heights lie outside the code range (clamped pixels fail every gate otherwise)');
}

/** The Gates the flags ask for. */
export function gatesOf(o: GateOptions): Gates {
  return {
    minExact: o.minExact,
    maxCode: o.maxCode,
    maxRmsMm: o.maxRmsMm,
    maxAbsMm: o.maxAbsMm,
    maxBeyondTolerance: o.maxBeyondTolerance,
    maxNonFinite: o.maxNonfinite,
    ...(o.allowClamped ? { allowClamped: true } : {}),
  };
}
