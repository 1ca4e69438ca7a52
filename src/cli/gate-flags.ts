/**
 * The gate flags of `check` and `compare` (one definition, so both commands spell and parse them alike): --min-exact,
 * --max-code, --max-rms-mm, --max-nonfinite, and their mapping onto the comparison's Gates (src/compare/gates.ts).
 */
import type { Command } from 'commander';
import type { Gates } from '../compare/gates.js';
import { parseNonNegativeNumber, parseNumber } from './args.js';

/** The parsed gate flags (commander's camel-case names). */
export interface GateOptions {
  minExact?: number;
  maxCode?: number;
  maxRmsMm?: number;
  maxNonfinite?: number;
}

/** Adds the gate flags to `cmd`. */
export function addGateOptions(cmd: Command): Command {
  return cmd
    .option('--min-exact <pct>', 'gate: minimum exact-code percentage', parseNumber)
    .option('--max-code <n>', 'gate: maximum |Δq|', parseNumber)
    .option('--max-rms-mm <x>', 'gate: maximum RMS in mm', parseNumber)
    .option(
      '--max-nonfinite <n>',
      'gate: most pixels with a non-finite value (NaN, ±Inf) on either side (default 0 whenever a gate is given)',
      parseNonNegativeNumber,
    );
}

/** The Gates the flags ask for. */
export function gatesOf(o: GateOptions): Gates {
  return { minExact: o.minExact, maxCode: o.maxCode, maxRmsMm: o.maxRmsMm, maxNonFinite: o.maxNonfinite };
}
