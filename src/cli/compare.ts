/**
 * `heightbench compare GENERATED REFERENCE [options]` — metrics, masks, radial profile, block map, reports, gates.
 * Exit 0 when every gate passes, 3 when a gate fails (EXIT_GATE), 2 on bad input or usage, 1 on an internal failure.
 */
import type { Command } from 'commander';
import { compareCodeSources, compareHeightfields, DEFAULT_STRADDLE_EPSILON_CODES, type CompareOptions, type ComparisonResult } from '../compare/compare.js';
import { evaluateGates, gateFailureLines } from '../compare/gates.js';
import { metricsJsonText, resultJson } from '../report/metrics.js';
import { DEFAULT_DIFFERENCES_CAP } from '../io/limits.js';
import type { PixelStages } from '../compare/attribution.js';
import { decodeHeightR16 } from '../core/encoding.js';
import { DEFAULT_MASKS } from '../compare/masks.js';
import { floatHeightfield, heightsOf, withRowDirection, type Heightfield } from '../core/heightfield.js';
import { gridDifference, type GridDescription } from '../core/grid.js';
import { EXIT_GATE, LimitError, MismatchError, UsageError } from '../errors.js';
import { readHeightfieldFileAsync, startReadingHeightfieldFiles, type LoadedHeightfield, type ReadSettings } from '../io/heightfield-file.js';
import { outsideContainerFor } from '../io/outside.js';
import { sidecarSources, type ConventionSources } from '../io/input-conventions.js';
import {
  addInputFlags,
  addSideFlags,
  conventionLines,
  readSettingsFrom,
  readSides,
  sideSettings,
  warnDefaults,
  type InputFlags,
  type SideFlags,
} from './input-flags.js';
import { MissingConventionsError } from '../io/input-conventions.js';
import { openR16Stream } from '../io/r16-stream.js';
import { parseNonNegativeInt, parseNonNegativeNumber, parsePath, parsePositiveInt, parsePositiveNumber } from './args.js';
import type { CliIO, CommandInstaller } from './io.js';
import { CliExit } from './io.js';
import { addGateOptions, gatesOf, type GateOptions } from './gate-flags.js';
import { refuseFolders } from './wrong-kind.js';
import { InvalidArgumentError } from 'commander';

/** [R] Most rings a radial profile may have (one accumulator each), checked against the grid before work. */
export const MAX_RADIAL_RINGS = 100_000;

function parsePair(v: string): [number, number] {
  const p = v.split(',').map((x) => (/^\s*[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?\s*$/.test(x) ? Number(x) : NaN));
  if (p.length !== 2 || p.some((x) => !Number.isFinite(x)) || !(p[0] >= 0) || !(p[1] > p[0])) {
    throw new InvalidArgumentError(`expected R0,R1 in metres with R1 > R0, got ${JSON.stringify(v)}`);
  }
  return [p[0], p[1]];
}

export interface CompareCliOptions extends InputFlags, SideFlags, GateOptions {
  json?: boolean;
  report?: string;
  block?: number;
  innerRadius?: number;
  window?: number;
  ring?: [number, number];
  radialStep?: number;
  generatedFloat?: string;
  straddleEps?: number;
  resample?: boolean;
  title?: string;
  sharedPlotly?: string;
  diagnose?: boolean;
  selfContained?: boolean;
  differences?: string;
  differencesCsv?: string;
  differencesCap?: number;
}

/** What the comparison computes from the two fields (before gates, reports and output). */
interface Analysis {
  gen: Heightfield;
  ref: Heightfield;
  generatedFloat: Float32Array | null;
  result: ComparisonResult;
}

/**
 * The pixels the comparison counts as differing, in the shape check's exports take (one stage, "final"): codes that
 * differ when codes were compared (a float side quantised through the comparison's range), else heights that differ
 * at all, both finite, each side decoded through its own range.
 */
export async function differingPixels(gen: Heightfield, ref: Heightfield, result: ComparisonResult): Promise<PixelStages> {
  let index: Int32Array;
  if (result.comparedIn === 'metres') {
    const value = (f: Heightfield, k: number) => (f.kind === 'codes' ? decodeHeightR16(f.code_px[k], f.range) : f.height_px[k]);
    const found: number[] = [];
    const n = gen.grid.columns * gen.grid.rows;
    for (let k = 0; k < n; k++) {
      const a = value(gen, k);
      const b = value(ref, k);
      if (Number.isFinite(a) && Number.isFinite(b) && a !== b) found.push(k);
    }
    index = Int32Array.from(found);
  } else {
    const { displayCodes, differingIndices } = await import('../report/report-maps.js');
    index = differingIndices(displayCodes(gen, result.range), displayCodes(ref, result.range));
  }
  return { names: ['final'], index, stage: new Uint8Array(index.length), straddle: new Uint8Array(index.length) };
}

/** Limits before work: the radial profile's ring count follows from the reference grid's half-diagonal and the step. */
function checkRingLimit(grid: GridDescription, o: CompareCliOptions): void {
  const step = o.radialStep ?? DEFAULT_MASKS.radialStep;
  const reach = Math.hypot(grid.sizeX, grid.sizeY) / 2;
  if (reach / step > MAX_RADIAL_RINGS) {
    throw new LimitError(
      `--radial-step ${step}: ${Math.ceil(reach / step)} rings over a ${grid.sizeX}×${grid.sizeY} m grid, over the limit of ${MAX_RADIAL_RINGS} (use a step ≥ ${reach / MAX_RADIAL_RINGS} m)`,
    );
  }
}

/** How an origin of a side's encoding reads in the line that says where a code range came from. */
function originWords(origin: ConventionSources['encoding'], rangeFlag: string): string {
  return origin === 'sidecar'
    ? 'its sidecar'
    : origin === 'file'
      ? 'the file'
      : origin === 'container'
        ? 'its container'
        : origin === 'flag'
          ? rangeFlag
          : "heightbench's default (--assume-defaults)";
}

/**
 * The code range of a comparison and where it came from: the code sides' own (each with its origin), or `--range`
 * for float sides. [R] `--range` acts on float sides: their heights are encoded through it and codes compared; without
 * it two float sides are compared in metres only.
 */
function rangeOptions(gen: Heightfield, ref: Heightfield, o: CompareCliOptions, sources?: Sources): Pick<CompareOptions, 'codeRange' | 'rangeSource'> {
  const float = gen.kind === 'float' || ref.kind === 'float';
  if (float && o.range) return { codeRange: o.range, rangeSource: '--range' };
  if (!sources) return {};
  const genFlag = o.generatedRange ? '--generated-range' : '--range';
  const refFlag = o.referenceRange ? '--reference-range' : '--range';
  if (!float)
    return {
      rangeSource: `${originWords(sources.generated.encoding, genFlag)} (generated side), ${originWords(sources.reference.encoding, refFlag)} (reference)`,
    };
  const words = ref.kind === 'codes' ? originWords(sources.reference.encoding, refFlag) : originWords(sources.generated.encoding, genFlag);
  return { rangeSource: `the ${ref.kind === 'codes' ? 'reference' : 'generated side'}'s codes (range from ${words})` };
}

type Sources = { generated: ConventionSources; reference: ConventionSources };

/** The comparison's options from the command line's. */
function compareOptions(o: CompareCliOptions, generatedFloat: Float32Array | null): CompareOptions {
  return {
    toleranceMm: o.toleranceMm,
    block: o.block,
    masks: {
      innerRadius: o.innerRadius ?? DEFAULT_MASKS.innerRadius,
      windowSize: o.window ?? DEFAULT_MASKS.windowSize,
      ringInner: o.ring?.[0] ?? DEFAULT_MASKS.ringInner,
      ringOuter: o.ring?.[1] ?? DEFAULT_MASKS.ringOuter,
      radialStep: o.radialStep ?? DEFAULT_MASKS.radialStep,
    },
    generatedFloat,
    straddleEpsilonCodes: o.straddleEps ?? DEFAULT_STRADDLE_EPSILON_CODES,
  };
}

/**
 * The comparison streamed from both files as they are read (src/io/r16-stream.ts: no whole field in memory), when no
 * option needs a whole field. Null where the ordinary read must decide — a file the stream does not serve, grids or
 * ranges that differ (refused or resampled there), a ring limit exceeded, a payload that did not verify — so every
 * refusal and recovery stays the ordinary path's.
 */
async function compareStreamed(generated: string, reference: string, o: CompareCliOptions, settings: ReadSettings): Promise<ComparisonResult | null> {
  if (o.resample || o.report || o.diagnose || o.generatedFloat || o.differences || o.differencesCsv) return null;
  // [R] A worker thread reads and hashes the reference while this thread reads and hashes the generated file. The
  //     generated side is opened first: where it cannot be streamed, the prestarted worker is left to the ordinary
  //     read (readSides reads a sidecar-described side ahead on it).
  const gen = openR16Stream(generated, settings);
  const ref = gen && openR16Stream(reference, settings, { reader: 'worker' });
  try {
    if (!ref || !gen || gridDifference(gen.grid, ref.grid) || gen.range.min !== ref.range.min || gen.range.max !== ref.range.max) return null;
    try {
      checkRingLimit(ref.grid, o);
    } catch {
      return null;
    }
    const result = compareCodeSources(gen, ref, ref.grid, ref.range, { ...compareOptions(o, null), rangeSource: 'its sidecar (both sides)' });
    const refOk = await ref.verified();
    const genOk = await gen.verified();
    return refOk && genOk ? result : null;
  } finally {
    gen?.close();
    ref?.close();
  }
}

/**
 * Flags that would change nothing in this invocation are refused (exit 2), naming what they need: a flag given acts or
 * is refused, never ignored.
 */
function refuseIdleFlags(o: CompareCliOptions): void {
  const refuse = (flag: string, why: string) => {
    throw new UsageError(`compare ${flag}: ${why}`);
  };
  if (o.straddleEps !== undefined && !o.generatedFloat)
    refuse('--straddle-eps', 'it is the tolerance of the attribution through --generated-float; give --generated-float FILE, or leave it out');
  if (o.differencesCap !== undefined && !o.differencesCsv)
    refuse('--differences-cap', "it caps --differences-csv's rows; give --differences-csv FILE, or leave it out");
  for (const [flag, given] of [
    ['--shared-plotly', o.sharedPlotly !== undefined],
    ['--self-contained', o.selfContained === true],
  ] as const)
    if (given && !o.report) refuse(flag, "it shapes the report's page; give --report DIR, or leave it out");
  if (o.sharedPlotly !== undefined && o.selfContained)
    refuse('--shared-plotly with --self-contained', 'one page either links a shared Plotly or carries its own; give one');
  if (o.title !== undefined && o.json && !o.report)
    refuse('--title with --json', 'the title heads the report and the Markdown summary, and --json prints neither; add --report DIR, or leave it out');
}

/**
 * A side's own code range flag on a side that holds float heights: refused (a float side's heights are encoded through
 * --range, the comparison's; a side's range states how a side of codes decodes).
 */
function refuseSideRangeOnFloat(gen: Heightfield, ref: Heightfield, o: CompareCliOptions): void {
  for (const [flag, given, f, side] of [
    ['--generated-range', o.generatedRange !== undefined, gen, 'generated side'],
    ['--reference-range', o.referenceRange !== undefined, ref, 'reference'],
  ] as const)
    if (given && f.kind === 'float')
      throw new UsageError(
        `compare ${flag}: the ${side} holds float heights, which have no code range of their own; --range MIN,MAX encodes float sides through one range and compares codes`,
      );
}

/**
 * The part of a comparison after both files are read: limits, the --generated-float read, the metrics. [R] A generated
 * side stored in the other row order than the reference (both stating it) is reordered exactly to the reference's
 * before comparing; resampling is never needed for that.
 */
async function analyse(genIn: Heightfield, ref: Heightfield, o: CompareCliOptions, settings: ReadSettings, sources?: Sources): Promise<Analysis> {
  checkRingLimit(ref.grid, o);
  const gen = withRowDirection(genIn, ref.grid.rowDirection);
  let generatedFloat: Float32Array | null = null;
  if (o.generatedFloat) {
    const f = withRowDirection((await readHeightfieldFileAsync(o.generatedFloat, settings)).field, ref.grid.rowDirection);
    const d = gridDifference(f.grid, gen.grid);
    if (d) throw new MismatchError(`--generated-float grid differs from the generated map's in ${d}`);
    if (f.kind !== 'float') throw new MismatchError(`--generated-float ${o.generatedFloat}: expected a float field (.r32), found 16-bit codes`);
    generatedFloat = f.height_px;
  }
  const result = compareHeightfields(gen, ref, { ...compareOptions(o, generatedFloat), ...rangeOptions(gen, ref, o, sources) });
  return { gen, ref, generatedFloat, result };
}

/**
 * Diagnosis and resampling load only when their option asks for them (startup is part of a comparison's time).
 * Two sidecar-described R16 files compared without an option that needs a whole field are streamed
 * (compareStreamed). Otherwise, without --resample, the metrics are computed while a worker thread checks both payloads' sidecar digests; they are
 * used (and anything shown or written) only once both files verified as read — otherwise, or on a refusal, the outcome
 * is exactly the sequential one: the read's refusal first, then the comparison's on the verified files.
 */
export async function compareCommand(generated: string, reference: string, o: CompareCliOptions, io: CliIO): Promise<number> {
  refuseIdleFlags(o);
  const settings = readSettingsFrom(o, true);
  const sides = sideSettings(o, true);
  // [R] Convention flags given: each side read on its own, so a refusal names the side and its flags.
  const flagged = sides.perSide || (sides.generated.side?.shared.length ?? 0) > 0;
  const streamed = flagged ? null : await compareStreamed(generated, reference, o, settings);
  if (streamed) {
    const sources = { generated: sidecarSources(`${generated}.json`), reference: sidecarSources(`${reference}.json`) };
    return emit(streamed, generated, reference, o, io, null, sources);
  }
  if (outsideContainerFor(generated) || outsideContainerFor(reference) || flagged) {
    // Outside containers (DDS, EXR, TIFF, .npy) have no sidecar digest to check ahead, and inputs read with their own
    // settings are read one by one: read both, then compare.
    const both = await readSides(generated, reference, sides);
    const analysis = await prepare(both.reference, both.generated, o, sides.generated, sourcesOf(both.generated, both.reference));
    return emit(analysis.result, generated, reference, o, io, analysis, sourcesOf(both.generated, both.reference));
  }
  let reading: ReturnType<typeof startReadingHeightfieldFiles>;
  let refFile: LoadedHeightfield;
  let genFile: LoadedHeightfield;
  let early: { value: Analysis } | { error: unknown } | null = null;
  let refEarly: LoadedHeightfield | null = null;
  let genEarly: LoadedHeightfield | null = null;
  try {
    reading = startReadingHeightfieldFiles([reference, generated], settings);
    [refEarly, genEarly] = reading.early;
    if (!o.resample && refEarly && genEarly) {
      try {
        refuseSideRangeOnFloat(genEarly.field, refEarly.field, o);
        early = { value: await analyse(genEarly.field, refEarly.field, o, settings, sourcesOf(genEarly, refEarly)) };
      } catch (e) {
        early = { error: e };
      }
    }
    [refFile, genFile] = await reading.verified;
  } catch (e) {
    // A side lacking conventions: read both on their own, so the refusal names every side that lacks them.
    if (e instanceof MissingConventionsError) await readSides(generated, reference, sides);
    throw e;
  }
  let analysis: Analysis;
  if (early && refFile === refEarly && genFile === genEarly) {
    if ('error' in early) throw early.error;
    analysis = early.value;
  } else analysis = await prepare(refFile, genFile, o, settings, sourcesOf(genFile, refFile));
  return emit(analysis.result, generated, reference, o, io, analysis, sourcesOf(genFile, refFile));
}

function sourcesOf(gen: LoadedHeightfield, ref: LoadedHeightfield): { generated: ConventionSources; reference: ConventionSources } {
  return { generated: gen.conventions, reference: ref.conventions };
}

/** The comparison of two verified files: --resample onto the reference grid when asked, then the analysis. */
async function prepare(
  refFile: LoadedHeightfield,
  genFile: LoadedHeightfield,
  o: CompareCliOptions,
  settings: ReadSettings,
  sources: Sources,
): Promise<Analysis> {
  const ref = refFile.field;
  refuseSideRangeOnFloat(genFile.field, ref, o);
  let gen: Heightfield = withRowDirection(genFile.field, ref.grid.rowDirection);
  checkRingLimit(ref.grid, o);
  if (o.resample && gridDifference(gen.grid, ref.grid)) {
    const { resampleField, uncoveredBy } = await import('../core/resample.js');
    // Heights are resampled only where the generated side has them: beyond its extent they would be invented.
    const outside = uncoveredBy(gen.grid, ref.grid);
    if (outside)
      throw new MismatchError(
        `--resample: the reference reaches outside the generated side's extent (${outside}); resampling there would invent heights from its edge — compare over a reference cropped to the generated extent`,
      );
    const out = new Float32Array(ref.grid.columns * ref.grid.rows);
    gen = floatHeightfield(ref.grid, resampleField(heightsOf(gen), gen.grid, ref.grid, out));
  } else if (o.resample && gen.kind === 'codes' && ref.kind === 'codes' && (gen.range.min !== ref.range.min || gen.range.max !== ref.range.max)) {
    gen = floatHeightfield(gen.grid, heightsOf(gen));
  }
  return analyse(gen, ref, o, settings, sources);
}

/**
 * Gates, the report (when asked; it needs the fields), the diagnosis, the output and the exit code. The report writer,
 * the Markdown summary and the difference exports load only when their output is asked for (startup is part of a
 * comparison's time; `--json` needs none of them).
 */
async function emit(
  result: ComparisonResult,
  generated: string,
  reference: string,
  o: CompareCliOptions,
  io: CliIO,
  fields: Analysis | null,
  inputs: { generated: ConventionSources; reference: ConventionSources },
): Promise<number> {
  warnDefaults(io, [
    ['generated', generated, inputs.generated],
    ['reference', reference, inputs.reference],
  ]);
  const gates = evaluateGates(result, gatesOf(o));
  const notes = conventionLines([
    { label: 'generated side', conventions: inputs.generated },
    { label: 'reference', conventions: inputs.reference },
  ]);
  const diagnoser = o.diagnose && fields ? await import('../compare/diagnose.js') : null;
  const diagnosis = diagnoser && fields ? diagnoser.diagnose(fields.gen, fields.ref, { generatedFloat: fields.generatedFloat }) : undefined;
  const meta = {
    generated,
    reference,
    gates,
    title: o.title,
    sharedPlotly: o.sharedPlotly,
    selfContained: o.selfContained,
    notes,
    // The diagnosis goes into every output: the terminal, --json, and the report's page, summary and metrics.
    ...(diagnosis ? { diagnoses: [{ scope: 'comparison', diagnosis }] } : {}),
  };
  // The report folder is written whole: staged, swapped in, one writer at a time (src/io/report-folder.ts).
  if (o.report && fields) {
    const [{ REPORT_OWNED_NAMES, writeComparisonReport }, { writeFolderWhole }] = await Promise.all([
      import('../report/comparison-report.js'),
      import('../io/report-folder.js'),
    ]);
    writeFolderWhole(o.report, (stage) => writeComparisonReport(stage, result, fields.gen, fields.ref, meta), { owned: REPORT_OWNED_NAMES });
  }
  const exported: string[] = [];
  if (fields && (o.differences || o.differencesCsv)) {
    const { writeDifferenceCsv, writeDifferenceField } = await import('../runs/check.js');
    const pixels = await differingPixels(fields.gen, fields.ref, result);
    if (o.differences) {
      await writeDifferenceField(o.differences, pixels, fields.gen);
      exported.push(`differences: ${pixels.index.length} differing pixels → ${o.differences}`);
    }
    if (o.differencesCsv) {
      const w = writeDifferenceCsv(o.differencesCsv, pixels, fields.gen, fields.ref, o.differencesCap);
      exported.push(`differences: ${w.written} pixels ranked by |Δ| → ${o.differencesCsv}${w.leftOut ? ` (${w.leftOut} left out by the cap)` : ''}`);
    }
  }
  if (o.json) {
    // Keys added to resultJson's own object, not spread into a new one (a spread would make its lazy histogram).
    const doc = resultJson(result);
    Object.assign(doc, { gates, inputs }, diagnosis ? { diagnosis } : {});
    io.out(`${metricsJsonText(doc)}\n`);
  } else {
    const { summaryMarkdown } = await import('../report/summary-markdown.js');
    io.out(summaryMarkdown(result, meta) + (diagnoser && diagnosis ? `\n## Diagnosis in full\n\n${diagnoser.diagnosisText(diagnosis)}` : ''));
  }
  if (!o.json) for (const line of exported) io.out(`${line}\n`);
  const failed = gateFailureLines(gates);
  if (failed) {
    io.err(failed);
    return EXIT_GATE;
  }
  return 0;
}

export const installCompare: CommandInstaller = (program: Command, io: CliIO) => {
  const cmd = program
    .command('compare')
    .description('compare a generated heightfield with a reference: exact codes, ±1 histogram, RMS mm, masks, radial profile, block map')
    .argument('<generated>', 'generated heightfield file', parsePath)
    .argument('<reference>', 'reference heightfield file', parsePath)
    .option('--json', 'print the metrics as JSON')
    .option('--report <dir>', 'write index.html, summary.md, metrics.json and pictures into DIR', parsePath)
    .option('--block <n>', 'block size of the difference map, pixels (default 4)', parsePositiveInt)
    .option('--inner-radius <m>', `inner disk radius, metres (default ${DEFAULT_MASKS.innerRadius})`, parseNonNegativeNumber)
    .option('--window <m>', `central square window side, metres (default ${DEFAULT_MASKS.windowSize})`, parseNonNegativeNumber)
    .option('--ring <r0,r1>', `outer blend ring, metres (default ${DEFAULT_MASKS.ringInner},${DEFAULT_MASKS.ringOuter})`, parsePair)
    .option('--radial-step <m>', `radial profile ring width, metres (default 10; at most ${MAX_RADIAL_RINGS} rings)`, parsePositiveNumber)
    .option('--generated-float <file>', "the generated side's pre-encode float field (.r32), for residual attribution", parsePath)
    .option('--straddle-eps <codes>', `straddle tolerance in codes (default ${DEFAULT_STRADDLE_EPSILON_CODES})`, parseNonNegativeNumber)
    .option('--resample', 'resample the generated field onto the reference grid (through world coordinates) instead of refusing');
  addGateOptions(cmd)
    .option('--diagnose', 'also explain the difference (shift, gain, blur, bias, edge band, flips; see `heightbench diagnose`)')
    .option('--title <text>', 'report title')
    .option('--shared-plotly <file>', 'link this plotly.min.js instead of copying one into the report', parsePath)
    .option('--self-contained', 'inline Plotly into the report page (one file to send)')
    .option('--differences <file>', 'write every differing pixel as a .tif or .npy index field (0 where the sides differ, -1 where they agree)', parsePath)
    .option('--differences-csv <file>', 'write the differing pixels (pixel, world, both values, Δ; first_stage "final"), ranked by |Δ|, as CSV', parsePath)
    .option(
      '--differences-cap <n>',
      `most rows of --differences-csv (default ${DEFAULT_DIFFERENCES_CAP}; the file says how many it leaves out)`,
      parseNonNegativeInt,
    );
  addSideFlags(addInputFlags(cmd)).action(async (g: string, r: string, opts: CompareCliOptions) => {
    refuseFolders('compare', [g, r]);
    throw new CliExit(await compareCommand(g, r, opts, io));
  });
};
