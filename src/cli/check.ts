/**
 * `heightbench check GEN_DIR REF_DIR`: a run folder against its reference folder (src/report/check.ts), the gates,
 * the report. A group of its own (src/cli/commands.ts) so that what it loads is the comparison and the report only:
 * the DVC stages that run it depend on those sources, not on the pipeline's (test/dvc-deps.test.ts).
 */
import type { Command } from 'commander';
import { EXIT_GATE, UsageError } from '../errors.js';
import { gateFailureLines } from '../compare/gates.js';
import { codeRangeText } from '../report/summary-markdown.js';
import { foldHistogram, foldedHistogramText } from '../compare/histogram-fold.js';
import { checkRun, DEFAULT_DIFFERENCES_CAP, writeDifferenceCsv, writeDifferenceField } from '../report/check.js';
import { SEED_PIPELINE } from '../pipelines/seed.js';
import { checkDeclared } from './check-all.js';
import { refuseNonRunFolders } from './wrong-kind.js';
import { attributionSummary } from '../compare/attribution.js';
import { folderForReading } from '../io/folder-swap.js';
import { parseNumber, parsePath } from './args.js';
import { InvalidArgumentError } from 'commander';
import { addGateOptions, gatesOf, type GateOptions } from './gate-flags.js';
import { CliExit, type CliIO, type CommandInstaller } from './io.js';

/** Prints a check: the final codes, the stage table, the gates, the attribution. */
export function printCheck(io: CliIO, name: string, c: ReturnType<typeof checkRun>): void {
  const f = c.final;
  io.out(
    `${name}: ${f.differing} of ${f.pixels} final codes differ | exact ${f.exactPercent.toFixed(4)} % | histogram ${foldedHistogramText(foldHistogram(f.histogram))} | max ${f.maxAbsCode} code | RMS ${f.rmsMm.toFixed(4)} mm | ${codeRangeText(f)}`,
  );
  if (f.attribution) io.out(` | straddles ${f.attribution.straddle}, deviations ${f.attribution.deviation}`);
  io.out('\n');
  // The whole map first (max |Δ|, RMS, pixels differing), then the article's inner 400 m disk for the seed pipeline
  // (a declared pipeline's report shows no article scope).
  const inner = c.pipeline === SEED_PIPELINE;
  for (const s of c.stages)
    io.out(
      `  stage ${s.stage}: max |Δ| ${fmtMm(s.maxAbsMm)} mm, RMS ${fmtMm(s.rmsMm)} mm, ${s.differing} of ${s.pixels} px differ${inner ? `; inner 400 m RMS ${fmtMm(s.innerRmsMm)} mm` : ''}\n`,
    );
  for (const g of c.gates) io.out(`  gate ${g.name} ${g.limit}: ${g.value} → ${g.passed ? 'pass' : 'FAIL'}\n`);
  if (c.firstDivergentStage) io.out(`  first stage differing beyond rounding: ${c.firstDivergentStage}\n`);
  for (const w of c.warnings) io.out(`  warning: ${w}\n`);
  for (const d of c.diagnoses ?? []) io.out(`  diagnosis of ${d.scope}: ${d.diagnosis.summary}\n`);
  for (const u of c.undeclared) io.out(`  ${u}\n`);
  if (c.stageAttribution)
    io.out(
      `  stage attribution: ${attributionSummary(c.stageAttribution)
        .map((l) => l.trim())
        .join('; ')}\n`,
    );
}

function fmtMm(v: number): string {
  return Number.isFinite(v) ? (v === 0 ? '0' : v.toExponential(2)) : '–';
}

function parseNonNegativeInt(v: string): number {
  const n = /^\s*\d+\s*$/.test(v) ? Number(v) : NaN;
  if (!Number.isSafeInteger(n)) throw new InvalidArgumentError(`expected an integer ≥ 0, got ${JSON.stringify(v)}`);
  return n;
}

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
        o: GateOptions & {
          all?: boolean;
          list?: string;
          report?: string;
          title?: string;
          sharedPlotly?: string;
          strict?: boolean;
          referenceKind?: string;
          attribution?: boolean;
          attributionEpsMm?: number;
          note?: string[];
          diagnose?: boolean;
          differences?: string;
          differencesCsv?: string;
          differencesCap?: number;
        },
      ) => {
        if (o.all || o.list !== undefined) {
          if (g !== undefined || r !== undefined) throw new UsageError('check: give GEN_DIR REF_DIR, or --all / --list FILE, not both');
          throw new CliExit(checkDeclared(o.list, { strict: o.strict === true, sharedPlotly: o.sharedPlotly }, io));
        }
        if (g === undefined || r === undefined)
          throw new UsageError('check: give GEN_DIR REF_DIR (two run folders), or --all for the comparisons heightbench.yaml declares');
        refuseNonRunFolders([g, r]);
        // A reference folder between the two renames of a swap is read from its kept old copy (read-only).
        const c = checkRun(folderForReading(g), folderForReading(r), gatesOf(o), o.report, o.title, o.sharedPlotly, {
          referenceKind: o.referenceKind,
          attribution: o.attribution || o.attributionEpsMm !== undefined || !!o.differences || !!o.differencesCsv,
          keepPixelStages: !!o.differences || !!o.differencesCsv,
          attributionEpsilonMm: o.attributionEpsMm,
          notes: o.note,
          toleranceMm: o.toleranceMm,
          diagnose: o.diagnose,
          ...(io.readHeightfield ? { readFile: io.readHeightfield } : {}),
        });
        printCheck(io, o.title ?? g, c);
        if (c.pixels) {
          const { stages, gen, ref } = c.pixels;
          if (o.differences) {
            await writeDifferenceField(o.differences, stages, gen);
            io.out(`  differences: ${stages.index.length} differing pixels' first divergent stages → ${o.differences}\n`);
          }
          if (o.differencesCsv) {
            const w = writeDifferenceCsv(o.differencesCsv, stages, gen, ref, o.differencesCap);
            io.out(`  differences: ${w.written} pixels ranked by |Δ| → ${o.differencesCsv}${w.leftOut ? ` (${w.leftOut} left out by the cap)` : ''}\n`);
          }
        }
        for (const w of c.warnings) io.err(`heightbench: warning: ${w}\n`);
        if (o.strict && !c.passed) {
          io.err(gateFailureLines(c.gates));
          throw new CliExit(EXIT_GATE);
        }
        throw new CliExit(0);
      },
    );
};
