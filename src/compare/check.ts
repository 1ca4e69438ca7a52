/**
 * Comparison of a whole run folder against its reference folder: the final map (codes, with residual attribution
 * from the generated pre-encode floats) and every float stage dump present on both sides (RMS and maximum in the
 * inner 400 m disk and overall). Used by the reproduce pipeline and `heightbench check`.
 */
import { existsSync, readFileSync } from 'node:fs';
import { FLOAT_STAGES } from '../conventions/index.js';
import { join } from 'node:path';
import { readHeightfieldFile } from '../io/heightfield-file.js';
import { writeFileAtomic } from '../io/atomic.js';
import { compareHeightfields, type ComparisonResult } from './compare.js';
import { evaluateGates, normaliseGates, type GateOutcome, type Gates } from './gates.js';
import { flattenMetrics, writeComparisonReport } from './report.js';
import { attributeRunFolders, attributionSummary, type StageAttribution } from './attribution.js';

/** The stage dumps `check` compares: the declared stages that hold float fields (conventions FLOAT_STAGES). */
export const STAGE_DUMPS = FLOAT_STAGES;

export interface StageComparison {
  stage: string;
  innerRmsMm: number;
  innerMaxAbsMm: number;
  rmsMm: number;
  maxAbsMm: number;
  pixels: number;
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
}

/** What a check says about itself beyond the numbers (report wording) and what it adds (stage attribution). */
export interface CheckOptions {
  /** What kind of reference this is, in words (e.g. an independent GPU reference, or our own f64 consistency one). */
  referenceKind?: string;
  /** Attribute every differing final code to its first divergent stage (attribution.ts); ε in mm (default 0.01). */
  attribution?: boolean;
  attributionEpsilonMm?: number;
  /** Markdown lines appended to the summary (e.g. what each GPU-mimic switch was). */
  notes?: string[];
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
  const gen = readHeightfieldFile(join(genDir, 'final.r16')).field;
  const ref = readHeightfieldFile(join(refDir, 'final.r16')).field;
  const preEncode = join(genDir, 'pre-encode.r32');
  const gf = existsSync(preEncode) ? readHeightfieldFile(preEncode).field : null;
  const final = compareHeightfields(gen, ref, { generatedFloat: gf && gf.kind === 'float' ? gf.height_px : null });
  const stages: StageComparison[] = [];
  for (const s of STAGE_DUMPS) {
    const a = join(genDir, `${s}.r32`);
    const b = join(refDir, `${s}.r32`);
    if (!existsSync(a) || !existsSync(b)) continue;
    const r = compareHeightfields(readHeightfieldFile(a).field, readHeightfieldFile(b).field);
    const inner = r.masks.innerDisk;
    stages.push({
      stage: s,
      innerRmsMm: inner.floatRmsMm ?? Number.NaN,
      innerMaxAbsMm: inner.floatMaxAbsMm ?? Number.NaN,
      rmsMm: r.floatRmsMm ?? Number.NaN,
      maxAbsMm: r.floatMaxAbsMm ?? Number.NaN,
      pixels: r.pixels,
    });
  }
  const outcomes = evaluateGates(final, gates);
  const firstDivergentStage = stages.find((s) => s.rmsMm > 0.01)?.stage ?? null;
  const check: RunCheck = { final, stages, gates: outcomes, passed: outcomes.every((g) => g.passed), firstDivergentStage };
  // A GPU reference names its adapter in its sidecar: the report says which adapter produced it.
  const notes = [...(opts.notes ?? [])];
  const refSide = join(refDir, 'final.r16.json');
  if (existsSync(refSide)) {
    const a = (JSON.parse(readFileSync(refSide, 'utf8')) as { producer?: { adapter?: Record<string, string> } }).producer?.adapter;
    if (a) notes.push(`Reference adapter: ${a.vendor} ${a.architecture} ${a.device} (${a.description}) via ${a.host}.`);
  }
  if (opts.attribution)
    check.stageAttribution = attributeRunFolders(genDir, refDir, opts.attributionEpsilonMm !== undefined ? { epsilonMm: opts.attributionEpsilonMm } : {});
  if (reportDir) {
    writeComparisonReport(reportDir, final, gen, ref, {
      generated: join(genDir, 'final.r16'),
      reference: join(refDir, 'final.r16'),
      gates: outcomes,
      title,
      sharedPlotly,
      referenceKind: opts.referenceKind,
      stages,
      stageAttribution: check.stageAttribution ? attributionSummary(check.stageAttribution) : undefined,
      notes,
    });
    const flat: Record<string, number> = flattenMetrics(final);
    for (const s of stages) {
      flat[`stages.${s.stage}.innerRmsMm`] = s.innerRmsMm;
      flat[`stages.${s.stage}.innerMaxAbsMm`] = s.innerMaxAbsMm;
    }
    const sa = check.stageAttribution;
    if (sa) {
      flat['stageAttribution.differing'] = sa.differing;
      flat['stageAttribution.straddles'] = sa.straddles;
      for (const [st, c] of Object.entries(sa.byStage)) flat[`stageAttribution.firstStage.${st}`] = c;
    }
    flat['gates.passed'] = check.passed ? 1 : 0;
    writeFileAtomic(join(reportDir, 'metrics.json'), `${JSON.stringify(flat, null, 2)}\n`);
    writeFileAtomic(
      join(reportDir, 'stages.json'),
      `${JSON.stringify({ stages, firstDivergentStage, gates: outcomes, passed: check.passed, ...(opts.referenceKind ? { referenceKind: opts.referenceKind } : {}), ...(check.stageAttribution ? { stageAttribution: check.stageAttribution } : {}) }, null, 2)}\n`,
    );
  }
  return check;
}
