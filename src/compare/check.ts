/**
 * Comparison of a whole run folder against its reference folder: the final map (codes, with residual attribution
 * from the generated pre-encode floats) and every float stage dump present on both sides (RMS and maximum in the
 * inner 400 m disk and overall). Used by the reproduce pipeline and `heightbench check`.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { readHeightfieldFile } from '../io/heightfield-file.js';
import { writeFileAtomic } from '../io/atomic.js';
import { compareHeightfields, type ComparisonResult } from './compare.js';
import { evaluateGates, type GateOutcome, type Gates } from './gates.js';
import { flattenMetrics, writeComparisonReport } from './report.js';

export const STAGE_DUMPS = ['raster-layer0', 'raster', 'base', 'after-support', 'after-stamps', 'after-locations', 'pre-encode'] as const;

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
}

export function checkRun(genDir: string, refDir: string, gates: Gates, reportDir?: string, title?: string, sharedPlotly?: string): RunCheck {
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
    stages.push({ stage: s, innerRmsMm: inner.floatRmsMm ?? Number.NaN, innerMaxAbsMm: inner.floatMaxAbsMm ?? Number.NaN, rmsMm: r.floatRmsMm ?? Number.NaN, maxAbsMm: r.floatMaxAbsMm ?? Number.NaN, pixels: r.pixels });
  }
  const outcomes = evaluateGates(final, gates);
  const firstDivergentStage = stages.find((s) => s.rmsMm > 0.01)?.stage ?? null;
  const check: RunCheck = { final, stages, gates: outcomes, passed: outcomes.every((g) => g.passed), firstDivergentStage };
  if (reportDir) {
    writeComparisonReport(reportDir, final, gen, ref, { generated: join(genDir, 'final.r16'), reference: join(refDir, 'final.r16'), gates: outcomes, title, sharedPlotly });
    const flat: Record<string, number> = flattenMetrics(final);
    for (const s of stages) {
      flat[`stages.${s.stage}.innerRmsMm`] = s.innerRmsMm;
      flat[`stages.${s.stage}.innerMaxAbsMm`] = s.innerMaxAbsMm;
    }
    flat['gates.passed'] = check.passed ? 1 : 0;
    writeFileAtomic(join(reportDir, 'metrics.json'), `${JSON.stringify(flat, null, 2)}\n`);
    writeFileAtomic(join(reportDir, 'stages.json'), `${JSON.stringify({ stages, firstDivergentStage, gates: outcomes, passed: check.passed }, null, 2)}\n`);
  }
  return check;
}
