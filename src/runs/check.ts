/**
 * Comparison of a whole run folder against its reference folder: the final map (codes, with residual attribution
 * from the generated pre-encode floats) and every float stage dump present on both sides (RMS and maximum in the
 * inner 400 m disk and overall). Used by the reproduce pipeline and `heightbench check`.
 */
import { FLOAT_STAGES } from '../conventions/index.js';
import { join } from 'node:path';
import { readHeightfieldFile, writeHeightfieldFileAsync, type LoadedHeightfield } from '../io/heightfield-file.js';
import { writeFileAtomic } from '../io/atomic.js';
import { DEFAULT_DIFFERENCES_CAP } from '../io/limits.js';
import { parseJson } from '../io/json-check.js';
import { inputPresent, readInputText } from '../io/read-input.js';
import { writeFolderWhole } from '../io/report-folder.js';
import { compareHeightfields, type ComparisonResult } from '../compare/compare.js';
import { diagnose, type Diagnosis } from '../compare/diagnose.js';
import { evaluateGates, normaliseGates, type GateOutcome, type Gates } from '../compare/gates.js';
import { REPORT_OWNED_NAMES, writeComparisonReport } from '../report/comparison-report.js';
import { ReportStages } from '../report/report-stages.js';
import { displayCodes, stageIndexField } from '../report/report-maps.js';
import { alignDumps, attributeRunFolders, type PixelStages, type StageAttribution } from '../compare/attribution.js';
import { floatHeightfield, heightsOf, type Heightfield } from '../core/heightfield.js';
import { decodeHeightR16 } from '../core/encoding.js';
import { columnWorldX, rowWorldY } from '../core/grid.js';
import { UsageError } from '../errors.js';
import type { Sidecar } from '../io/sidecar.js';
import { encodedStage, floatStageNames, stageFileName, type PipelineDeclaration } from '../pipelines/declaration.js';
import { sharedPipeline, undeclaredNotes } from '../pipelines/run-folder.js';
import { fieldStageFile, sidecarImportRecord } from './folder.js';

/** The stage dumps `check` compares in a seed run: its stages that hold float fields (conventions FLOAT_STAGES); a declared pipeline's are its float stages. */
export const STAGE_DUMPS = FLOAT_STAGES;

/** One stage dump against the reference: the whole map first (max |Δ|, RMS, pixels differing), then the inner disk. */
export interface StageComparison {
  stage: string;
  maxAbsMm: number;
  rmsMm: number;
  /** Pixels whose heights differ at all (non-finite pixels left out). */
  differing: number;
  pixels: number;
  innerRmsMm: number;
  innerMaxAbsMm: number;
}

export interface RunCheck {
  final: ComparisonResult;
  stages: StageComparison[];
  gates: GateOutcome[];
  passed: boolean;
  /** The first stage (in pipeline order) whose dump differs from the reference by more than rounding (0.01 mm RMS). */
  firstDivergentStage: string | null;
  /** Per differing final code, the first stage differing by more than ε there (when asked for: CheckOptions). */
  stageAttribution?: StageAttribution;
  /** The pipeline both folders declare (pipeline.json; the seed pipeline when they record none). */
  pipeline: PipelineDeclaration;
  /** One line per folder holding stage files its pipeline does not declare (not compared). */
  undeclared: string[];
  /**
   * A stage that differs grossly beside a neighbour that agrees: a capture's conventions are the likely cause; each
   * warning names the diagnosis of the gross stage.
   */
  warnings: string[];
  /** With CheckOptions.diagnose: the diagnosis of the final map and of every stage that differs. */
  diagnoses?: { scope: string; diagnosis: Diagnosis }[];
  /** With CheckOptions.keepPixelStages: every differing final pixel's first divergent stage, and both final maps. */
  pixels?: { stages: PixelStages; gen: Heightfield; ref: Heightfield };
}

/** [R] A stage "differs grossly" at an RMS of 1 m or more and 1000× its neighbour's, which "agrees". */
export const GROSS_STAGE_RMS_MM = 1000;
const GROSS_RATIO = 1000;

/** What a check says about itself beyond the numbers (report wording) and what it adds (stage attribution). */
export interface CheckOptions {
  /** The declaration of a folder without pipeline.json (heightbench.yaml's `pipeline:`; default: the seed pipeline). */
  pipeline?: PipelineDeclaration;
  /** What kind of reference this is, in words (e.g. heightbench's GPU executor of the same draw list, or our own f64 consistency one). */
  referenceKind?: string;
  /** Attribute every differing final code to its first divergent stage (attribution.ts); ε in mm (default 0.01). */
  attribution?: boolean;
  attributionEpsilonMm?: number;
  /** Markdown lines appended to the summary (e.g. what each GPU-mimic switch was). */
  notes?: string[];
  /**
   * Reads a heightfield file (default readHeightfieldFile). scripts/checks.mjs passes one that keeps a folder several
   * checks of one process name, so its files are read and verified once.
   */
  readFile?: (path: string) => LoadedHeightfield;
  /** Keep every differing pixel's first divergent stage and both final maps in the result (RunCheck.pixels; needs attribution). */
  keepPixelStages?: boolean;
  /** Diagnose the final map and every stage that differs (src/compare/diagnose.ts), into the output and the report. */
  diagnose?: boolean;
  /** Tolerance of the final comparison, mm (CompareOptions.toleranceMm; the --max-beyond-tolerance gate counts past it). */
  toleranceMm?: number;
}

/**
 * The report line of a final map `heightbench import` wrote (src/runs/import.ts): the capture it came from, its hash
 * and source, and where each of its conventions came from — a report says per side where its conventions came from.
 */
function importNotes(side: string, sc: Sidecar | null): string[] {
  const r = sidecarImportRecord(sc);
  if (r === null) return [];
  const text = (v: unknown) => (typeof v === 'string' ? v : '?');
  const c = (typeof r.conventions === 'object' && r.conventions !== null ? r.conventions : {}) as {
    extent?: unknown;
    rowDirection?: unknown;
    encoding?: unknown;
  };
  return [
    `The ${side} final map was imported from ${text(r.file)} (${text(r.container)}, SHA-256 ${text(r.sha256).slice(0, 12)}…${typeof r.source === 'string' ? `, source ${r.source}` : ''}); its conventions: extent from ${text(c.extent)}, row direction from ${text(c.rowDirection)}, encoding from ${text(c.encoding)}.`,
  ];
}

export function checkRun(
  genDir: string,
  refDir: string,
  gates: Gates,
  reportDir?: string,
  title?: string,
  sharedPlotly?: string,
  opts: CheckOptions = {},
): RunCheck {
  normaliseGates(gates as Readonly<Record<string, unknown>>); // a misspelt gate is refused before any file is read
  // Two folders of different pipelines are refused before any file is read, naming the first difference.
  const pipeline = sharedPipeline(genDir, refDir, opts.pipeline);
  const finalFile = stageFileName(encodedStage(pipeline));
  const undeclared = undeclaredNotes(
    [
      ['generated', genDir],
      ['reference', refDir],
    ],
    pipeline,
  );
  // [R] Each file is read (and its payload's SHA-256 verified) once: the attribution and the stage table share them
  //     (the attribution holds every stage at once anyway; the stage table then drops each pair after use).
  const files = new Map<string, ReturnType<typeof readHeightfieldFile>>();
  const readFile = (path: string) => {
    let f = files.get(path);
    if (!f) files.set(path, (f = (opts.readFile ?? readHeightfieldFile)(path)));
    return f;
  };
  const readField = (path: string) => readFile(path).field;
  const genFile = readFile(join(genDir, finalFile));
  const refFile = readFile(join(refDir, finalFile));
  const gen = genFile.field;
  const ref = refFile.field;
  const encodedFrom = encodedStage(pipeline).encodedFrom;
  const preEncode = encodedFrom === undefined ? null : join(genDir, fieldStageFile(encodedFrom));
  // lstat-based presence (inputPresent): a dangling link is refused, never skipped as absent.
  const gf = preEncode !== null && inputPresent(preEncode) ? readField(preEncode) : null;
  const final = compareHeightfields(gen, ref, {
    generatedFloat: gf && gf.kind === 'float' ? gf.height_px : null,
    rangeSource: 'the final maps’ sidecars',
    toleranceMm: opts.toleranceMm,
  });
  // The attribution comes first when a report is written: its per-pixel stages colour the first-divergence map.
  const stageAttribution = opts.attribution
    ? attributeRunFolders(
        genDir,
        refDir,
        {
          ...(opts.attributionEpsilonMm !== undefined ? { epsilonMm: opts.attributionEpsilonMm } : {}),
          perPixel: !!reportDir || opts.keepPixelStages === true,
          pipeline,
        },
        readField,
      )
    : undefined;
  const ps = stageAttribution?.pixelStages;
  const origins = ps?.origin ? new Set(Array.from(ps.index).filter((_, m) => ps.origin![m] === ps.stage[m])) : undefined;
  // Each pixel's first divergent stage + 1 (0: the codes agree), one byte a pixel.
  const stageField = ps && reportDir ? stageIndexField(ps, final.totalPixels) : null;
  const firstStage = stageField ? (k: number) => (stageField[k] ? stageField[k] - 1 : undefined) : undefined;
  const maps = reportDir ? new ReportStages(final, displayCodes(gen, final.range), displayCodes(ref, final.range), origins, firstStage) : null;
  const stages: StageComparison[] = [];
  const diagnoses: { scope: string; diagnosis: Diagnosis }[] = [];
  if (opts.diagnose && final.differing > 0)
    diagnoses.push({ scope: 'final', diagnosis: diagnose(gen, ref, { generatedFloat: gf && gf.kind === 'float' ? gf.height_px : null }) });
  let stageNonFinite = 0;
  for (const s of floatStageNames(pipeline)) {
    const a = join(genDir, fieldStageFile(s));
    const b = join(refDir, fieldStageFile(s));
    if (!inputPresent(a) || !inputPresent(b)) continue;
    let fa = readField(a);
    let fb = readField(b);
    // A whole-field dump meets a windowed one (the gpu and mimic runs dump whole fields): compare their common window.
    if (fa.kind === 'float' && fb.kind === 'float') {
      const al = alignDumps(fa, fb);
      if (al) [fa, fb] = [floatHeightfield(al[0].grid, al[0].height_px), floatHeightfield(al[1].grid, al[1].height_px)];
    }
    const r = compareHeightfields(fa, fb, { summary: true }); // the table reads the whole map and the inner disk
    const inner = r.masks.innerDisk;
    stages.push({
      stage: s,
      maxAbsMm: r.floatMaxAbsMm ?? Number.NaN,
      rmsMm: r.floatRmsMm ?? Number.NaN,
      differing: r.differing,
      pixels: r.pixels,
      innerRmsMm: inner.floatRmsMm ?? Number.NaN,
      innerMaxAbsMm: inner.floatMaxAbsMm ?? Number.NaN,
    });
    if (opts.diagnose && r.differing > 0) diagnoses.push({ scope: s, diagnosis: diagnose(fa, fb) });
    // Stage maps and gallery crops need the pair on one grid (compareHeightfields refused otherwise).
    if (maps && fa.kind === 'float' && fb.kind === 'float') maps.addStage(s, fa, fb);
    stageNonFinite += r.nonFinite.pixelsExcluded;
    // The stage table is the last reader of a stage's files: let them go (a check without attribution then holds one
    // pair at a time, as before).
    files.delete(a);
    files.delete(b);
  }
  const outcomes = evaluateGates(final, gates);
  // [R] The non-finite gate of a run counts its stage dumps too: a stage that is mostly NaN measures a tiny RMS on
  //     the few finite pixels it has, which must not pass as agreement.
  const nf = outcomes.find((g) => g.name === 'non-finite pixels');
  if (nf) {
    nf.value += stageNonFinite;
    nf.passed = nf.value <= (gates.maxNonFinite ?? 0);
  }
  const firstDivergentStage = stages.find((s) => s.rmsMm > 0.01)?.stage ?? null;
  const warnings = grossStageWarnings(stages, diagnoses, (stage) => {
    const pair = [join(genDir, fieldStageFile(stage)), join(refDir, fieldStageFile(stage))].map(readField);
    const al = pair[0].kind === 'float' && pair[1].kind === 'float' ? alignDumps(pair[0], pair[1]) : null;
    return al ? diagnose(floatHeightfield(al[0].grid, al[0].height_px), floatHeightfield(al[1].grid, al[1].height_px)) : diagnose(pair[0], pair[1]);
  });
  const check: RunCheck = {
    final,
    stages,
    gates: outcomes,
    passed: outcomes.every((g) => g.passed),
    firstDivergentStage,
    pipeline,
    undeclared,
    warnings,
    ...(opts.diagnose ? { diagnoses } : {}),
  };
  if (stageAttribution) {
    // The undeclared files are stated once, in the notes (the attribution found the same ones).
    const { pixelStages: perPixel, undeclared: _undeclared, ...counts } = stageAttribution;
    check.stageAttribution = counts;
    if (opts.keepPixelStages && perPixel) check.pixels = { stages: perPixel, gen, ref };
  }
  // A GPU reference names its adapter in its sidecar: the report says which adapter produced it.
  const notes = [...(opts.notes ?? []), ...importNotes('generated', genFile.sidecar), ...importNotes('reference', refFile.sidecar), ...undeclared];
  const refSide = join(refDir, `${finalFile}.json`);
  if (inputPresent(refSide)) {
    const a = (parseJson(readInputText(refSide, 1 << 20), refSide) as { producer?: { adapter?: Record<string, string> } } | null)?.producer?.adapter;
    if (a) notes.push(`Reference adapter: ${a.vendor} ${a.architecture} ${a.device} (${a.description}) via ${a.host}.`);
  }
  // The report folder is written whole: staged, swapped in, one writer at a time (src/io/report-folder.ts).
  if (reportDir) writeFolderWhole(reportDir, (stage) => writeCheckReport(stage), { owned: REPORT_OWNED_NAMES });
  function writeCheckReport(reportDir: string): void {
    const flat: Record<string, number> = {};
    for (const s of stages) {
      flat[`stages.${s.stage}.differing`] = s.differing;
      flat[`stages.${s.stage}.innerRmsMm`] = s.innerRmsMm;
      flat[`stages.${s.stage}.innerMaxAbsMm`] = s.innerMaxAbsMm;
      flat[`stages.${s.stage}.rmsMm`] = s.rmsMm;
      flat[`stages.${s.stage}.maxAbsMm`] = s.maxAbsMm;
    }
    const sa = check.stageAttribution;
    if (sa) {
      flat['stageAttribution.differing'] = sa.differing;
      flat['stageAttribution.straddles'] = sa.straddles;
      for (const [st, c] of Object.entries(sa.byStage)) flat[`stageAttribution.firstStage.${st}`] = c;
      for (const [cause, c] of Object.entries(sa.byCause)) flat[`stageAttribution.cause.${cause.replace(/ /g, '-')}`] = c;
      for (const [st, c] of Object.entries(sa.origins?.byStage ?? {})) flat[`stageAttribution.origin.${st}`] = c;
      for (const [st, from] of Object.entries(sa.origins?.propagated ?? {}))
        for (const [f, c] of Object.entries(from)) flat[`stageAttribution.propagated.${st}.${f}`] = c;
    }
    flat['gates.passed'] = check.passed ? 1 : 0;
    writeComparisonReport(reportDir, final, gen, ref, {
      generated: join(genDir, finalFile),
      reference: join(refDir, finalFile),
      gates: outcomes,
      title,
      sharedPlotly,
      referenceKind: opts.referenceKind,
      stages,
      stageAttribution,
      pipeline,
      reportStages: maps ?? undefined,
      extraMetrics: flat,
      notes,
      warnings,
      ...(opts.diagnose ? { diagnoses } : {}),
    });
    writeFileAtomic(
      join(reportDir, 'stages.json'),
      `${JSON.stringify({ stages, firstDivergentStage, gates: outcomes, passed: check.passed, ...(opts.referenceKind ? { referenceKind: opts.referenceKind } : {}), ...(check.stageAttribution ? { stageAttribution: check.stageAttribution } : {}), warnings, ...(opts.diagnose ? { diagnoses: diagnoses.map((d) => ({ scope: d.scope, verdict: d.diagnosis.verdict, summary: d.diagnosis.summary, explainedShare: d.diagnosis.explainedShare })) } : {}) }, null, 2)}\n`,
    );
  }
  return check;
}

/**
 * The warnings of a check: each stage that differs grossly (GROSS_STAGE_RMS_MM) while a neighbour in the declared
 * order agrees (GROSS_RATIO smaller) — a difference that appears and vanishes again is not carried by the pipeline, so
 * a capture's conventions (row direction, extent, encoding) are the likely cause; the warning names the diagnosis of
 * the gross stage (`diagnoseStage` when it was not diagnosed already).
 */
export function grossStageWarnings(
  stages: readonly StageComparison[],
  diagnosed: readonly { scope: string; diagnosis: Diagnosis }[],
  diagnoseStage: (stage: string) => Diagnosis,
): string[] {
  const out: string[] = [];
  const mm = (v: number) => (v === 0 ? '0' : v.toPrecision(3));
  const gross = (a: StageComparison, b: StageComparison | undefined) => b !== undefined && a.rmsMm >= GROSS_STAGE_RMS_MM && b.rmsMm * GROSS_RATIO <= a.rmsMm;
  stages.forEach((g, k) => {
    const agree = [
      gross(g, stages[k - 1]) ? `the stage before it, ${stages[k - 1].stage} (RMS ${mm(stages[k - 1].rmsMm)} mm)` : null,
      gross(g, stages[k + 1]) ? `the next stage, ${stages[k + 1].stage} (RMS ${mm(stages[k + 1].rmsMm)} mm)` : null,
    ].filter((x): x is string => x !== null);
    if (!agree.length) return;
    const d = diagnosed.find((x) => x.scope === g.stage)?.diagnosis ?? diagnoseStage(g.stage);
    out.push(
      `stage ${g.stage} differs grossly (RMS ${mm(g.rmsMm)} mm, max ${mm(g.maxAbsMm)} mm, ${g.differing} px) while ${agree.join(' and ')} ${agree.length > 1 ? 'agree' : 'agrees'}: a difference the pipeline does not carry on — the conventions of a ${g.stage} capture (row direction, extent, encoding) are the likely cause. Diagnosis of ${g.stage}: ${d.summary}`,
    );
  });
  return out;
}

/*
 * Every differing pixel of a check, exported: `--differences FILE` (a GeoTIFF or .npy of first-divergence stage
 * indices on the final map's grid, with its sidecar naming the stages) and `--differences-csv FILE` (the pixel list).
 *
 * Inputs: the check's per-pixel first divergent stages (attribution.ts PixelStages) and both final maps.
 * Outputs: the files, written atomically; the CSV lists pixels ranked by |Δ| (largest first; scan order among equals),
 * at most `cap` of them, and says in its first line how many it leaves out.
 * [R] Index field: float32, the index into `stageNames` of the sidecar's notes, −1 where the final codes agree.
 */
export { DEFAULT_DIFFERENCES_CAP };

/** The differing pixels ranked by |Δ| (largest first; ascending pixel index among equals). */
export function rankedDifferences(ps: PixelStages, gen: Heightfield, ref: Heightfield): { order: Int32Array; delta: Float64Array } {
  const g = heightsOf(gen);
  const r = heightsOf(ref);
  const n = ps.index.length;
  const delta = new Float64Array(n);
  for (let m = 0; m < n; m++) delta[m] = g[ps.index[m]] - r[ps.index[m]];
  const order = Int32Array.from({ length: n }, (_, m) => m).sort((a, b) => Math.abs(delta[b]) - Math.abs(delta[a]) || ps.index[a] - ps.index[b]);
  return { order, delta };
}

/** Writes the first-divergence index field (.tif, .tiff or .npy) with its sidecar. */
export async function writeDifferenceField(path: string, ps: PixelStages, gen: Heightfield): Promise<void> {
  if (!/\.(tif|tiff|npy)$/i.test(path)) throw new UsageError(`--differences ${path}: expected a .tif, .tiff or .npy file`);
  const out = new Float32Array(gen.grid.columns * gen.grid.rows).fill(-1);
  for (let m = 0; m < ps.index.length; m++) out[ps.index[m]] = ps.stage[m];
  await writeHeightfieldFileAsync(path, floatHeightfield(gen.grid, out), {
    notes: {
      differences: { meaning: 'first divergent stage of each differing final pixel: index into stageNames; -1 where the codes agree', stageNames: ps.names },
    },
  });
}

/** Writes the CSV pixel list; returns how many rows it holds and how many it leaves out. */
export function writeDifferenceCsv(
  path: string,
  ps: PixelStages,
  gen: Heightfield,
  ref: Heightfield,
  cap = DEFAULT_DIFFERENCES_CAP,
): { written: number; leftOut: number } {
  if (!Number.isSafeInteger(cap) || cap < 0) throw new UsageError(`--differences-cap ${cap}: expected an integer ≥ 0`);
  const { order, delta } = rankedDifferences(ps, gen, ref);
  const n = order.length;
  const written = Math.min(n, cap);
  const grid = gen.grid;
  const value = (f: Heightfield, k: number) => (f.kind === 'codes' ? decodeHeightR16(f.code_px[k], f.range) : f.height_px[k]);
  const code = (f: Heightfield, k: number) => (f.kind === 'codes' ? String(f.code_px[k]) : '');
  const lines = [
    `# heightbench differences: ${written} of ${n} differing pixels, ranked by |delta| (largest first); ${n - written} left out (cap ${cap})`,
    'column,row,x_m,y_m,generated_m,reference_m,delta_m,generated_code,reference_code,first_stage',
  ];
  for (let t = 0; t < written; t++) {
    const m = order[t];
    const k = ps.index[m];
    const i = k % grid.columns;
    const j = (k - i) / grid.columns;
    lines.push(
      [i, j, columnWorldX(grid, i), rowWorldY(grid, j), value(gen, k), value(ref, k), delta[m], code(gen, k), code(ref, k), ps.names[ps.stage[m]]].join(','),
    );
  }
  writeFileAtomic(path, `${lines.join('\n')}\n`);
  return { written, leftOut: n - written };
}
