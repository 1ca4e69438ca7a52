/**
 * `heightbench check GEN_DIR REF_DIR`: a run folder against its reference folder (src/runs/check-folders.ts), the
 * gates, the report. A group of its own (src/cli/commands.ts) so that what it loads is the comparison and the report only:
 * the DVC stages that run it depend on those sources, not on the pipeline's (test/dvc-deps.test.ts).
 */
import type { Command } from 'commander';
import { UsageError } from '../errors.js';
import { DEFAULT_DIFFERENCES_CAP, type RunCheck } from '../runs/check.js';
import { checkFolders, checkText, type FolderCheckOptions } from '../runs/check-folders.js';
import { checkDeclared } from '../runs/check-all.js';
import { idleOptions, parseNumber, parsePath } from './args.js';
import { InvalidArgumentError } from 'commander';
import { addGateOptions, gatesOf, type GateOptions } from './gate-flags.js';
import { CliExit, type CliIO, type CommandInstaller } from './io.js';

/** Prints a check: the final codes, the stage table, the gates, the attribution. */
export function printCheck(io: CliIO, name: string, c: RunCheck): void {
  io.out(checkText(name, c));
}

function parseNonNegativeInt(v: string): number {
  const n = /^\s*\d+\s*$/.test(v) ? Number(v) : NaN;
  if (!Number.isSafeInteger(n)) throw new InvalidArgumentError(`expected an integer ≥ 0, got ${JSON.stringify(v)}`);
  return n;
}

/** The flags `check --all` / `--list` act on (the rest belong to one comparison). */
const DECLARED_CHECK_FLAGS = new Set(['all', 'list', 'strict', 'sharedPlotly']);

export const installCheck: CommandInstaller = (program: Command, io: CliIO) => {
  addGateOptions(
    program
      .command('check')
      .description('compare a run folder with its reference folder: final codes, attribution, every stage dump; gates')
      .argument('[generated-dir]', 'run folder', parsePath)
      .argument('[reference-dir]', 'reference folder', parsePath)
      .option('--all', 'every comparison heightbench.yaml declares (the nearest above the working folder), with one summary table and one exit status')
      .option('--list <file>', 'every comparison a YAML file declares (heightbench.yaml format; paths relative to its folder)', parsePath)
      .option('--report <dir>', 'write the report (index.html, summary.md, metrics.json, stages.json, pictures)', parsePath)
      .option('--title <text>', 'report title')
      .option('--shared-plotly <file>', 'link this plotly.min.js instead of copying one'),
  )
    .option('--strict', 'exit 3 when a gate fails (default: report it in metrics.json and exit 0)')
    .option('--reference-kind <text>', 'say in the report what kind of reference this is (e.g. "heightbench GPU executor")')
    .option('--attribution', 'attribute every differing final code to the first stage differing by more than ε there')
    .option('--attribution-eps-mm <x>', 'ε of --attribution, mm (default 0.01)', parseNumber)
    .option('--differences <file>', "write every differing pixel's first divergent stage as a .tif or .npy index field (implies --attribution)", parsePath)
    .option(
      '--differences-csv <file>',
      'write the differing pixels (pixel, world, both values, Δ, first stage), ranked by |Δ|, as CSV (implies --attribution)',
      parsePath,
    )
    .option(
      '--differences-cap <n>',
      `most rows of --differences-csv (default ${DEFAULT_DIFFERENCES_CAP}; the file says how many it leaves out)`,
      parseNonNegativeInt,
    )
    .option('--diagnose', 'diagnose the final map and every stage that differs (shift, gain, blur, bias, edge band, flips), into the output and the report')
    .option('--note <text>', 'a line for the report summary (repeatable)', (v: string, prev: string[] = []) => [...prev, v])
    .action(
      async (
        g: string | undefined,
        r: string | undefined,
        // The flags are the folder check's options (runs/check-folders.ts), the gates given as flags, and --all/--list.
        o: GateOptions & Omit<FolderCheckOptions, 'gates' | 'readFile'> & { all?: boolean; list?: string },
        command: Command,
      ) => {
        if (o.all || o.list !== undefined) {
          if (g !== undefined || r !== undefined) throw new UsageError('check: give GEN_DIR REF_DIR, or --all / --list FILE, not both');
          // Gates, reports, attribution and the rest belong to one comparison: each declared one states its own.
          const idle = idleOptions(command, (k) => DECLARED_CHECK_FLAGS.has(k));
          if (idle.length)
            throw new UsageError(
              `check ${o.all ? '--all' : '--list'}: ${idle.join(', ')} ${idle.length > 1 ? 'act' : 'acts'} on one comparison (GEN_DIR REF_DIR); each comparison the file declares states its own gates and report (heightbench.yaml)`,
            );
          throw new CliExit(checkDeclared(o.list, { strict: o.strict === true, sharedPlotly: o.sharedPlotly }, io));
        }
        if (g === undefined || r === undefined)
          throw new UsageError('check: give GEN_DIR REF_DIR (two run folders), or --all for the comparisons heightbench.yaml declares');
        throw new CliExit(await checkFolders(g, r, { ...o, gates: gatesOf(o), ...(io.readHeightfield ? { readFile: io.readHeightfield } : {}) }, io));
      },
    );
};
