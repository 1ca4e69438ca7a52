/**
 * The ablation atlas: every convention that can be broken on purpose today, each run against the correct run.
 *
 * Inputs: a pipeline request, an output size, the precision of the correct run, a list of ablations (data: name,
 * label, the RunOptions they change, and optionally the signature diagnose should name).
 * Outputs: per ablation — the full comparison of the final R16 map against the correct one (exact %, histogram, RMS,
 * maximum, masks, radial profile, residual attribution from the ablation's pre-encode floats), the first stage whose
 * float dump diverges (RMS > 0.01 mm), each stage's RMS in the inner 400 m disk and overall, a signed block-maximum
 * map of the pre-encode difference (metres), and diagnose's reading of the difference, at the pre-encode stage and at
 * the first divergent stage (floats against floats, so code quantization does not hide sub-code signatures).
 * [R] An ablation is an entry in ABLATIONS; adding one needs no code here. The pipeline itself is read-only to the
 *     atlas: it calls runPipeline with each entry's options merged over the correct run's.
 */
import { InputRangeError } from '../errors.js';
import { compareHeightfields, type ComparisonResult, type RegionMetrics } from './compare.js';
import { diagnose, type Diagnosis, type Finding, type TermName, type CheckName } from './diagnose.js';
import { codeHeightfield, floatHeightfield, type FloatHeightfield } from '../core/heightfield.js';
import { requestGrid, type PipelineRequest } from '../pipeline/request.js';
import { runPipeline, type RunOptions, type RunResult } from '../pipeline/run.js';
import type { Field, Precision } from '../pipeline/precision.js';
import { DEFAULT_CONVENTIONS as C, weightSum } from '../conventions/index.js';

export interface AblationSpec {
  /** File-safe identifier. */
  name: string;
  /** What is broken, in words. */
  label: string;
  /** The run options this ablation changes (merged over the correct run's): a conventions override, or the precision. */
  option: Partial<Pick<RunOptions, 'ablation' | 'precision' | 'conventions'>>;
  /** The signatures diagnose may name first at the first divergent stage (null: no signature expected). */
  expect: readonly (TermName | CheckName)[] | null;
}

/**
 * Every ablation breaks one convention through the conventions declaration alone (src/conventions): `option.conventions`
 * is the override, nothing else changes. Covers every stage: raster (pixel centre, fan rules, edge order, corner
 * weights), base (taps, weights, cross-axis offset, halving, combine, N² filter, addressing, sub-texel weights), the
 * textured draws (mip chain, draw order), the encoding (rounding) and the stored row order; plus float64 arithmetic.
 * `expect`: the signatures diagnose should name first where the article's geometry predicts one (a half-pixel or
 * kernel-mean shift → shiftX/shiftY; a weight sum → gain; stored rows reversed → rowFlip). Wrap addressing has none
 * yet: its difference along the border follows the opposite edge's heights, which diagnose's edge-band term (one
 * offset over the band) does not describe — at tundra-r19 1024² diagnose names nothing at the base stage, and the
 * outer blend hides it from the final map.
 */
export const ABLATIONS: readonly AblationSpec[] = Object.freeze([
  { name: 'pixel-corner-samples', label: 'pixels sampled at their corners (i + 0) instead of their centres (i + 0.5)', option: { conventions: { grid: { pixelCentre: 0 } } }, expect: ['shiftX', 'shiftY'] },
  { name: 'resample-2i', label: 'halving reads source index 2i instead of the centre-aligned 2i + 0.5', option: { conventions: { resample: { alignment: 0 } } }, expect: ['shiftX', 'shiftY'] },
  { name: 'renormalized-weights', label: 'smoothing weights divided by their sum (1.000002)', option: { conventions: { smoothing: { weights: C.smoothing.weights.map((w) => w / weightSum(C)) } } }, expect: ['gain'] },
  { name: 'integer-taps', label: 'smoothing taps at rounded integer offsets, no bilinear sampling', option: { conventions: { smoothing: { offsets: C.smoothing.offsets.map((o) => Math.round(o) + 0) } } }, expect: ['shiftX', 'shiftY'] },
  { name: 'recentred-kernel', label: 'tap offsets recentred on 0 (each moved by +0.5 texel)', option: { conventions: { smoothing: { offsets: C.smoothing.offsets.map((o) => o + 0.5) } } }, expect: ['shiftX', 'shiftY'] },
  { name: 'no-cross-axis-half-texel', label: 'the other axis of each pass read at +0 instead of +0.5 texel', option: { conventions: { smoothing: { crossAxisOffset: 0 } } }, expect: ['shiftX', 'shiftY'] },
  { name: 'mean-combine', label: 'the base as (h2 + h3)·0.5 instead of (h2 − h3)·0.5 + h3', option: { conventions: { smoothing: { combine: 'mean' } } }, expect: null },
  { name: 'unfiltered-raster', label: 'the N² raster left unfiltered (the earlier heightbench rule; the article filters it)', option: { conventions: { smoothing: { filterFullResolution: false } } }, expect: null },
  { name: 'wrap-addressing', label: 'the smoothing chain wraps around the edges instead of clamping', option: { conventions: { sampling: { addressing: 'wrap' } } }, expect: null },
  { name: 'subtexel-8bit', label: 'sub-texel fractions quantized to 8 bits (hardware filtering units)', option: { conventions: { sampling: { subTexel: 'hw8' } } }, expect: null },
  { name: 'mip-level0-only', label: 'stamps and location textures sampled from mip level 0 only (the chain dropped)', option: { conventions: { draws: { lod: 'level0' } } }, expect: null },
  { name: 'sorted-draw-order', label: 'stamp and location draws sorted by asset key instead of instance order', option: { conventions: { draws: { order: 'sorted' } } }, expect: null },
  { name: 'gaussian-corner-weights', label: 'corner source weights exp(−½(d/128 m)²) instead of (1 − d/512)⁶', option: { conventions: { corners: { shape: 'gaussian' } } }, expect: null },
  { name: 'smoothed-near-step', label: 'the d = 96 m near-distance step smoothed into a continuous factor', option: { conventions: { corners: { nearRule: 'smoothed' } } }, expect: null },
  { name: 'area-centroid-fans', label: 'fan centres at the polygon area centroid instead of the mean of edge midpoints', option: { conventions: { fans: { centre: 'area-centroid' } } }, expect: null },
  { name: 'averaged-flagged-corners', label: 'fan centre height the mean of the flagged corners instead of the last one met', option: { conventions: { fans: { flagged: 'average' } } }, expect: null },
  { name: 'sorted-edge-order', label: 'polygon edges sorted by midpoint coordinates instead of the generator order', option: { conventions: { fans: { edgeOrder: 'sorted' } } }, expect: null },
  { name: 'unorm-half-even', label: 'UNORM16 by round-half-even instead of the Direct3D +0.5 and truncate', option: { conventions: { encoding: { rounding: 'half-even' } } }, expect: null },
  { name: 'flipped-rows', label: 'stored rows reversed (row 0 at ymax) against the row0-at-ymin convention', option: { conventions: { grid: { rowDirection: 'row0-at-ymax' } } }, expect: ['rowFlip'] },
  { name: 'f64-arithmetic', label: 'float64 arithmetic instead of the float32 evaluation order', option: { precision: 'f64' }, expect: null },
] satisfies AblationSpec[]);

/** Stages compared, in pipeline order (each kept by both runs): the declared stages that hold float fields. */
export const ATLAS_STAGES = C.stages.filter((s) => s !== 'raster-layer0' && s !== 'final');

/** [R] A stage diverges when its float RMS against the correct run exceeds this (as `heightbench check`). */
export const DIVERGENCE_MM = 0.01;

export interface StageDifference {
  stage: string;
  rmsMm: number;
  maxAbsMm: number;
  innerRmsMm: number;
  innerMaxAbsMm: number;
}

export interface DiagnosisBrief {
  stage: string;
  verdict: Diagnosis['verdict'];
  explainedShare: number;
  top: Finding | null;
  summary: string;
  /** Every term's coefficient (null when left out). */
  coefficients: Partial<Record<TermName, number | null>>;
}

export interface AtlasEntry {
  name: string;
  label: string;
  option: AblationSpec['option'];
  expect: AblationSpec['expect'];
  /** Final R16 map against the correct run's (the compare engine's metrics; block arrays dropped). */
  final: {
    exactPercent: number;
    histogram: Record<string, number>;
    rmsMm: number;
    maxAbsCode: number;
    maxAbsMm: number;
    floatRmsMm: number;
    floatMaxAbsMm: number;
    masks: Record<string, Pick<RegionMetrics, 'exactPercent' | 'rmsMm' | 'maxAbsCode' | 'floatRmsMm'>>;
    radialRmsMm: number[];
    attribution: ComparisonResult['attribution'] | null;
  };
  firstDivergentStage: string | null;
  stages: StageDifference[];
  diagnosis: DiagnosisBrief;
  diagnosisAtFirstStage: DiagnosisBrief | null;
  /** When `expect` is set: whether diagnose named one of them first at the first divergent stage. */
  namedFirst: boolean | null;
  /** Signed block-maximum of the pre-encode difference (ablation − correct), metres, row-major. */
  map: { block: number; columns: number; rows: number; maxAbsM: number; signedMaxM: Float32Array };
  runMs: number;
}

export interface Atlas {
  request: string;
  size: number;
  precision: Precision;
  /** Largest |block value| over every map: the shared diverging scale runs from −scale to +scale metres. */
  scaleM: number;
  correctRunMs: number;
  /** Sorted by effect: final float RMS, largest first. */
  entries: AtlasEntry[];
}

export interface AtlasOptions {
  precision?: Precision;
  ablations?: readonly AblationSpec[];
  /** Block size of the maps, pixels (default: size / 256, at least 4). */
  block?: number;
  assetsDir?: string;
  /** Called after each run (progress). */
  onRun?: (name: string, ms: number) => void;
}

function asF32(f: Field): Float32Array {
  return f instanceof Float32Array ? f : Float32Array.from(f);
}

function brief(stage: string, d: Diagnosis): DiagnosisBrief {
  return {
    stage,
    verdict: d.verdict,
    explainedShare: d.explainedShare,
    top: d.findings[0] ?? null,
    summary: d.summary,
    coefficients: Object.fromEntries(d.terms.map((t) => [t.name, t.coefficient])),
  };
}

export function buildAtlas(req: PipelineRequest, opts: AtlasOptions = {}): Atlas {
  const precision = opts.precision ?? 'f32';
  const ablations = opts.ablations ?? ABLATIONS;
  const names = new Set<string>();
  for (const a of ablations) {
    if (!/^[a-z0-9][a-z0-9-]*$/.test(a.name)) throw new InputRangeError(`ablation name: expected lower-case letters, digits and '-', got ${JSON.stringify(a.name)}`);
    if (names.has(a.name)) throw new InputRangeError(`ablation name ${JSON.stringify(a.name)} appears twice`);
    names.add(a.name);
  }
  const n = req.size;
  const grid = requestGrid(req);
  const block = opts.block ?? Math.max(4, Math.ceil(n / 256));
  const keep = [...ATLAS_STAGES];
  const run = (o: Partial<RunOptions>): { r: RunResult; ms: number } => {
    const t0 = performance.now();
    const r = runPipeline(req, { precision, keep, assetsDir: opts.assetsDir, ...o });
    return { r, ms: performance.now() - t0 };
  };
  const correct = run({});
  opts.onRun?.('correct', correct.ms);
  const correctStages = new Map<string, FloatHeightfield>(ATLAS_STAGES.map((s) => [s, floatHeightfield(grid, asF32(correct.r.fields.get(s)!))]));
  const correctCodes = codeHeightfield(grid, correct.r.codes.slice(), req.encoding);

  const entries: AtlasEntry[] = [];
  for (const spec of ablations) {
    const { r, ms } = run(spec.option);
    opts.onRun?.(spec.name, ms);
    const stages: StageDifference[] = [];
    for (const s of ATLAS_STAGES) {
      const c = compareHeightfields(floatHeightfield(grid, asF32(r.fields.get(s)!)), correctStages.get(s)!);
      const inner = c.masks.innerDisk;
      stages.push({ stage: s, rmsMm: c.floatRmsMm ?? Number.NaN, maxAbsMm: c.floatMaxAbsMm ?? Number.NaN, innerRmsMm: inner.floatRmsMm ?? Number.NaN, innerMaxAbsMm: inner.floatMaxAbsMm ?? Number.NaN });
    }
    const pre = asF32(r.fields.get('pre-encode')!);
    const fin = compareHeightfields(codeHeightfield(grid, r.codes.slice(), req.encoding), correctCodes, { block, generatedFloat: pre });
    const preCmp = compareHeightfields(floatHeightfield(grid, pre), correctStages.get('pre-encode')!, { block });
    const signed = preCmp.blocks.signedMaxM ?? new Float32Array(preCmp.blocks.columns * preCmp.blocks.rows);
    let maxAbsM = 0;
    for (const v of signed) maxAbsM = Math.max(maxAbsM, Math.abs(v));
    const firstDivergentStage = stages.find((s) => s.rmsMm > DIVERGENCE_MM)?.stage ?? null;
    const diagnosis = brief('pre-encode', diagnose(floatHeightfield(grid, pre), correctStages.get('pre-encode')!));
    const atFirst =
      firstDivergentStage === null
        ? null
        : firstDivergentStage === 'pre-encode'
          ? diagnosis
          : brief(firstDivergentStage, diagnose(floatHeightfield(grid, asF32(r.fields.get(firstDivergentStage)!)), correctStages.get(firstDivergentStage)!));
    const masks: AtlasEntry['final']['masks'] = {};
    for (const [k, m] of Object.entries(fin.masks)) masks[k] = { exactPercent: m.exactPercent, rmsMm: m.rmsMm, maxAbsCode: m.maxAbsCode, floatRmsMm: m.floatRmsMm };
    entries.push({
      name: spec.name,
      label: spec.label,
      option: spec.option,
      expect: spec.expect,
      final: {
        exactPercent: fin.exactPercent,
        histogram: fin.histogram,
        rmsMm: fin.rmsMm,
        maxAbsCode: fin.maxAbsCode,
        maxAbsMm: fin.maxAbsMm,
        floatRmsMm: preCmp.floatRmsMm ?? Number.NaN,
        floatMaxAbsMm: preCmp.floatMaxAbsMm ?? Number.NaN,
        masks,
        radialRmsMm: preCmp.radial.rings.map((x) => x.floatRmsMm ?? Number.NaN),
        attribution: fin.attribution ?? null,
      },
      firstDivergentStage,
      stages,
      diagnosis,
      diagnosisAtFirstStage: atFirst,
      namedFirst: spec.expect === null ? null : atFirst?.top ? spec.expect.includes(atFirst.top.kind) : false,
      map: { block, columns: preCmp.blocks.columns, rows: preCmp.blocks.rows, maxAbsM, signedMaxM: signed },
      runMs: ms,
    });
  }
  entries.sort((a, b) => b.final.floatRmsMm - a.final.floatRmsMm || a.name.localeCompare(b.name));
  const scaleM = entries.reduce((m, e) => Math.max(m, e.map.maxAbsM), 0);
  return { request: req.id, size: n, precision, scaleM, correctRunMs: correct.ms, entries };
}
