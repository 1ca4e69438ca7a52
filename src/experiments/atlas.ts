/**
 * The ablation atlas: every convention that can be broken on purpose, each run against the correct run.
 *
 * Inputs: a pipeline request, an output size, the precision of the correct run, a list of ablations (data: name,
 * label, the RunOptions they change, and optionally the signature diagnose should name).
 * Outputs: per ablation — the full comparison of the final R16 map against the correct one (exact %, histogram, RMS,
 * maximum, masks, radial profile, residual attribution from the ablation's pre-encode floats), the first stage whose
 * float field diverges (RMS > 0.01 mm), each stage's RMS and maximum in the inner 400 m disk and overall, a signed
 * block-maximum map of the pre-encode difference (metres), and diagnose's reading of the difference, at the pre-encode
 * stage and at the first divergent stage (floats against floats, so code quantization does not hide sub-code
 * signatures); `namedFirst` says whether diagnose named the expected signature first (the confusion table).
 * [R] An ablation is an entry in ABLATIONS; adding one needs no code here. The pipeline is read-only to the atlas: each
 *     run is runPipeline's composition (the run's conventions resolved once → planDrawList → CPU executor) with the
 *     entry's options merged over the correct run's, except that the plan (a value) is made once per distinct value
 *     of the convention groups planning reads (PLANNING_GROUPS) and the inputs are loaded once; every ablation's list
 *     is emitted under its own conventions.
 * Reductions: per-stage sums of squared differences in float64, plain within a row and Neumaier-compensated across rows
 * (as the compare engine's float metrics, which the final and pre-encode comparisons use unchanged).
 */
import { InputRangeError } from '../errors.js';
import { compareHeightfields, type ComparisonResult, type RegionMetrics } from '../compare/compare.js';
import { diagnose, type Diagnosis, type Finding, type TermName, type CheckName } from '../compare/diagnose.js';
import { CompensatedSum } from '../compare/metric-accumulators.js';
import { DEFAULT_MASKS, RadialGeometry, maskBounds, maskContainsBounds, maskDefinitions } from '../compare/masks.js';
import { codeHeightfield, floatHeightfield, type FloatHeightfield } from '../core/heightfield.js';
import type { GridDescription } from '../core/grid.js';
import { requestGrid, type ConfigContext, type PipelineRequest } from '../plan/request.js';
import type { RunOptions } from '../pipeline/run.js';
import { PLANNING_GROUPS, resolveRunConventions, type Plan } from '../plan/plan.js';
import { loadRunInputs, type RunInputs } from '../pipeline/inputs.js';
import { executeDrawListCpu } from '../cpu/execute.js';
import { ablationOverride } from '../conventions/ablation.js';
import { planDrawList } from '../plan/emit.js';
import type { Field, Precision } from '../core/precision.js';
import { DEFAULT_CONVENTIONS as C, mergeOverrides, weightSum } from '../conventions/index.js';

/** Integer n in superscript digits (labels: the corner exponent). */
const superscript = (n: number) => String(n).replace(/\d/g, (d) => '⁰¹²³⁴⁵⁶⁷⁸⁹'[Number(d)]);

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

/** The blur family: a blur or sharpening difference at any of the smoothing scales. */
const BLUR: readonly TermName[] = ['blur1', 'blur2', 'blur4', 'blur8'];

/**
 * Every ablation breaks one convention through the conventions declaration alone (src/conventions): `option.conventions`
 * is the override, nothing else changes. Covers every stage: raster (pixel centre, fan rules, edge order, corner
 * weights), base (taps, weights, cross-axis offset, halving, combine, N² filter, addressing, sub-texel weights), the
 * textured draws (mip chain, draw order), the encoding (rounding) and the stored row order; plus float64 arithmetic.
 * `expect`: the signatures diagnose should name first where the article's geometry predicts one (a half-pixel or
 * kernel-mean shift → shiftX/shiftY; a weight sum → gain; stored rows reversed → rowFlip; wrap → edgeBand; a filter
 * left out, or taps moved symmetrically toward the kernel's centre by 8-bit fractions → a blur term, sharper).
 */
export const ABLATIONS: readonly AblationSpec[] = Object.freeze([
  {
    name: 'pixel-corner-samples',
    label: 'pixels sampled at their corners (i + 0) instead of their centres (i + 0.5)',
    option: { conventions: { grid: { pixelCentre: 0 } } },
    expect: ['shiftX', 'shiftY'],
  },
  {
    name: 'resample-2i',
    label: 'halving reads source index 2i instead of the centre-aligned 2i + 0.5',
    option: { conventions: { resample: { alignment: 0 } } },
    expect: ['shiftX', 'shiftY'],
  },
  {
    name: 'renormalized-weights',
    label: 'smoothing weights divided by their sum (1.000002)',
    option: { conventions: { smoothing: { weights: C.smoothing.weights.map((w) => w / weightSum(C)) } } },
    expect: ['gain'],
  },
  {
    name: 'integer-taps',
    label: 'smoothing taps at rounded integer offsets, no bilinear sampling',
    option: { conventions: { smoothing: { offsets: C.smoothing.offsets.map((o) => Math.round(o) + 0) } } },
    expect: ['shiftX', 'shiftY'],
  },
  {
    name: 'recentred-kernel',
    label: 'tap offsets recentred on 0 (each moved by +0.5 texel)',
    option: { conventions: { smoothing: { offsets: C.smoothing.offsets.map((o) => o + 0.5) } } },
    expect: ['shiftX', 'shiftY'],
  },
  {
    name: 'no-cross-axis-half-texel',
    label: 'the other axis of each pass read at +0 instead of +0.5 texel',
    option: { conventions: { smoothing: { crossAxisOffset: 0 } } },
    expect: ['shiftX', 'shiftY'],
  },
  {
    name: 'mean-combine',
    label: 'the base as (h2 + h3)·0.5 instead of (h2 − h3)·0.5 + h3',
    option: { conventions: { smoothing: { combine: 'mean' } } },
    expect: null,
  },
  {
    name: 'unfiltered-raster',
    label: 'the N² raster left unfiltered (the other reading of the article; heightbench reads it as filtered)',
    option: { conventions: { smoothing: { filterFullResolution: false } } },
    expect: BLUR,
  },
  {
    name: 'wrap-addressing',
    label: 'the smoothing chain wraps around the edges instead of clamping',
    option: { conventions: { sampling: { addressing: 'wrap' } } },
    expect: ['edgeBand'],
  },
  {
    name: 'subtexel-8bit',
    label: 'sub-texel fractions quantized to 8 bits (hardware filtering units)',
    option: { conventions: { sampling: { subTexel: 'hw8' } } },
    expect: BLUR,
  },
  {
    name: 'mip-level0-only',
    label: 'stamps and location textures sampled from mip level 0 only (the chain dropped)',
    option: { conventions: { draws: { lod: 'level0' } } },
    expect: null,
  },
  {
    name: 'sorted-draw-order',
    label: 'stamp and location draws sorted by asset key instead of instance order',
    option: { conventions: { draws: { order: 'sorted' } } },
    expect: null,
  },
  {
    name: 'gaussian-corner-weights',
    label: `corner source weights exp(−½(d/${C.corners.gaussianSigma} m)²) instead of (1 − d/${C.corners.range})${superscript(C.corners.exponent)}`,
    option: { conventions: { corners: { shape: 'gaussian' } } },
    expect: null,
  },
  {
    name: 'smoothed-near-step',
    label: `the d = ${C.corners.nearRange} m near-distance step smoothed into a continuous factor`,
    option: { conventions: { corners: { nearRule: 'smoothed' } } },
    expect: null,
  },
  {
    name: 'area-centroid-fans',
    label: 'fan centres at the polygon area centroid instead of the mean of edge midpoints',
    option: { conventions: { fans: { centre: 'area-centroid' } } },
    expect: null,
  },
  {
    name: 'averaged-flagged-corners',
    label: 'fan centre height the mean of the flagged corners instead of the last one met',
    option: { conventions: { fans: { flagged: 'average' } } },
    expect: null,
  },
  {
    name: 'sorted-edge-order',
    label: 'polygon edges sorted by midpoint coordinates instead of the generator order',
    option: { conventions: { fans: { edgeOrder: 'sorted' } } },
    expect: null,
  },
  {
    name: 'unorm-half-even',
    label: 'UNORM16 by round-half-even instead of the Direct3D +0.5 and truncate',
    option: { conventions: { encoding: { rounding: 'half-even' } } },
    expect: null,
  },
  {
    name: 'flipped-rows',
    label: 'stored rows reversed (row 0 at ymax) against the row0-at-ymin convention',
    option: { conventions: { grid: { rowDirection: 'row0-at-ymax' } } },
    expect: ['rowFlip'],
  },
  { name: 'f64-arithmetic', label: 'float64 arithmetic instead of the float32 evaluation order', option: { precision: 'f64' }, expect: null },
] satisfies AblationSpec[]);

/** Stages compared, in pipeline order (each kept by both runs): the declared stages that hold float fields. */
export const ATLAS_STAGES = C.stages.filter((s) => s !== 'raster-layer0' && s !== 'final');

/** [R] A stage diverges when its float RMS against the correct run exceeds this (as `heightbench check`). */
export const DIVERGENCE_MM = 0.01;

/** [R] The convention groups planning reads (plan.ts): ablations that leave them as declared reuse the correct run's plan. */
export { PLANNING_GROUPS };

/**
 * [R] Edge band of the atlas's diagnoses, pixels: one texel of the coarsest filtered level (N/8), 2^levels = 8 pixels.
 * Wrap addressing changes the base wherever a tap of the chain crosses the border, and the coarsest level's texels are
 * 8 pixels wide, so its difference fills a band several pixels wider than diagnose's default 4 (there, 49 % of the
 * residual lies in the band at 1024², just under diagnose's 50 % rule). `heightbench diagnose --edge-band 8`
 * reads a pair the same way.
 */
export const ATLAS_EDGE_BAND = 2 ** C.smoothing.levels;

/**
 * [R] Interior fit pixels of the atlas's diagnoses: 2^18 (diagnose's lattice stride 1 up to 512², 2 at 1024², 8 at
 * 4096²; the edge band is always read whole). The signature fields are smooth at the lattice's scale, and a quarter
 * of the pixels at 1024² keeps the forty diagnoses of a 20-ablation atlas within its time budget.
 */
export const ATLAS_FIT_PIXELS = 1 << 18;

/**
 * Why an ablation has no clean signature (`expect: null`), or what its expected signature rests on. Every ablation
 * without an expectation has a line here (test/atlas.test.ts checks it), shown in the atlas's validation section.
 */
export const SIGNATURE_NOTES: Readonly<Record<string, string>> = Object.freeze({
  'pixel-corner-samples':
    'every stage that maps pixels to world reads half a pixel lower in x and y: a shift of −0.5 texel along both axes, visible from the raster on',
  'resample-2i':
    'each halving reads index 2i instead of 2i + 0.5: the coarse levels move by half a fine texel per halving, along both axes — a shift at the base',
  'renormalized-weights': 'dividing by the weight sum 1.000002 scales every pass by 1/1.000002: the base is the correct one scaled about 0 m — a gain',
  'integer-taps': "rounding the offsets moves the kernel's weighted mean by +0.2009 texel of each level per pass: a shift along both axes",
  'recentred-kernel': 'moving every tap by +0.5 texel moves each pass by +0.5 texel of its level: a shift along both axes',
  'no-cross-axis-half-texel': 'each pass reads the other axis half a texel lower: a shift along both axes, growing with the level',
  'mean-combine':
    '(h2 + h3)·0.5 and (h2 − h3)·0.5 + h3 are the same number in exact arithmetic; in float32 they differ by at most a rounding (≈ 1e-6 mm here), below the divergence threshold — nothing for a signature to find',
  'unfiltered-raster': 'skipping the N² filter leaves the base sharper: a negative blur (a Laplacian at the smoothing scales), named by a blur term',
  'wrap-addressing':
    "taps that cross the border read the opposite side instead of the edge: the difference lives in a band as wide as the chain's reach, named by the edge band (diagnosed with the band one N/8 texel wide); the outer blend replaces that band later, so the final map is unchanged",
  'subtexel-8bit':
    "rounding tap fractions to the nearest 1/256 moves the four outer taps toward the kernel's centre (by 0.00049 and 0.00032 texel, symmetrically about −0.5): a narrower kernel at every level and no shift — a sharpening, named by a blur term",
  'mip-level0-only':
    "stamps and location textures sampled from level 0 instead of their footprint's mip level: sharper detail, but only inside the textured footprints (a small share of the map), so a global Laplacian term explains only part of it",
  'sorted-draw-order':
    "order matters only where max/min/lerp draws overlap: a few local patches whose sign depends on the drawn assets, not on the reference's shape",
  'gaussian-corner-weights':
    "changes every corner height by an amount set by the source layout (distances to sources), not by the reference's shape: no field computed from the reference predicts it",
  'smoothed-near-step': `changes corner heights only for sources closer than ${C.corners.nearRange} m: local steps at those corners, set by the source layout`,
  'area-centroid-fans': 'moves each fan centre within its polygon: local changes inside each region cell, set by the cell shapes',
  'averaged-flagged-corners': 'changes the centre height of polygons with several flagged corners only: a few cells differ',
  'sorted-edge-order': 'changes which corner is met last and the fan triangulation of some cells: local changes in those cells',
  'unorm-half-even':
    'the floats are identical; only heights whose scaled value lands exactly on k + 0.5 encode one code lower: ±1-code ties scattered over the map, no float signature (codes show it in the Δq histogram only)',
  'flipped-rows': 'every stored field has its rows in reverse order: undoing a row flip removes the whole difference — the rowFlip check',
  'f64-arithmetic':
    'float64 evaluation differs from float32 by rounding only (the float32 weights sum to 1.0000020117 against 1.000002, a gain of ≈ 1e-7 at most): below the divergence threshold at every stage',
});

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
  /** SIGNATURE_NOTES' line for this ablation (null for ablations outside ABLATIONS without one). */
  signatureNote: string | null;
  /** Whether the run reused the correct run's planning stages (its conventions leave PLANNING_GROUPS as declared). */
  planReused: boolean;
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
    /** Float RMS of the pre-encode difference per 10 m ring about the domain centre (mm); ring k spans [10k, 10k + 10) m. */
    radialRmsMm: number[];
    attribution: ComparisonResult['attribution'] | null;
  };
  firstDivergentStage: string | null;
  stages: StageDifference[];
  diagnosis: DiagnosisBrief;
  diagnosisAtFirstStage: DiagnosisBrief | null;
  /** When `expect` is set: whether diagnose called Δ explained at the first divergent stage and named one of them first. */
  namedFirst: boolean | null;
  /** Signed block-maximum of the pre-encode difference (ablation − correct), metres, row-major. */
  map: { block: number; columns: number; rows: number; maxAbsM: number; signedMaxM: Float32Array };
  /** Wall time of the run (planning when not reused, drawing, encoding), ms: timings.json, never atlas.json. */
  runMs: number;
}

export interface Atlas {
  request: string;
  size: number;
  precision: Precision;
  /** Edge band of the diagnoses, pixels. */
  edgeBand: number;
  /** Largest |block value| over every map: the shared diverging scale runs from −scale to +scale metres. */
  scaleM: number;
  /** Ring width of the radial profiles, metres. */
  radialStepM: number;
  correctRunMs: number;
  /** Sorted by effect: final float RMS, largest first. */
  entries: AtlasEntry[];
}

export interface AtlasOptions {
  precision?: Precision;
  ablations?: readonly AblationSpec[];
  /** Block size of the maps, pixels (default: size / 256, at least 4). */
  block?: number;
  /** Edge band of the diagnoses, pixels (default ATLAS_EDGE_BAND). */
  edgeBand?: number;
  assetsDir?: string;
  /** Where the world file is read (the CLI's --config; default the search of request.ts). */
  config?: ConfigContext;
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

/** One run's kept fields and codes. */
export interface AtlasRun {
  fields: Map<string, Field>;
  codes: Uint16Array;
  planReused: boolean;
  ms: number;
}

/** Runs a request under ablation options the way runPipeline does, reusing planning where PLANNING_GROUPS allow. */
export interface AtlasRunner {
  run(option: AblationSpec['option']): AtlasRun;
}

/**
 * The atlas's runner (see the header). The inputs are loaded once; each ablation's conventions are resolved once and
 * planned by planDrawList, which reuses the plan of an earlier ablation whose planning groups agree (a plan is a
 * value) and emits the ablation's finished list; the executor only reads it.
 */
export function atlasRunner(
  req: PipelineRequest,
  opts: { precision: Precision; keep: readonly string[]; assetsDir?: string; inputs?: RunInputs; config?: ConfigContext },
): AtlasRunner {
  let inputs = opts.inputs ?? null;
  const plans = new Map<string, Plan>();
  return {
    run(option) {
      const t0 = performance.now();
      inputs ??= loadRunInputs(req, opts.assetsDir, opts.config);
      const { world, assets } = inputs;
      const conventions = resolveRunConventions(req, world, mergeOverrides(ablationOverride(option.ablation), option.conventions));
      const precision = option.precision ?? opts.precision;
      const { drawList, planReused } = planDrawList(req, conventions, assets, { world, size: req.size, plans });
      const exec = executeDrawListCpu(drawList, { precision, keep: opts.keep, conventions, assets: assets.assets });
      return { fields: exec.fields, codes: exec.codes, planReused, ms: performance.now() - t0 };
    },
  };
}

/** Inner-disk membership of every pixel (the compare engine's innerDisk mask and predicate). */
function innerDiskMask(grid: GridDescription): { inside: Uint8Array; pixels: number } {
  const geo = new RadialGeometry(grid);
  const bounds = maskBounds(maskDefinitions(DEFAULT_MASKS).innerDisk); // once, not per pixel
  const W = grid.columns;
  const inside = new Uint8Array(W * grid.rows);
  let pixels = 0;
  for (let j = 0; j < grid.rows; j++) {
    for (let i = 0; i < W; i++) {
      if (maskContainsBounds(bounds, geo.dx2[i] + geo.dy2[j], geo.dx[i], geo.dy[j])) {
        inside[j * W + i] = 1;
        pixels++;
      }
    }
  }
  return { inside, pixels };
}

function sameBytes(a: Float32Array, b: Float32Array): boolean {
  return Buffer.from(a.buffer, a.byteOffset, a.byteLength).equals(Buffer.from(b.buffer, b.byteOffset, b.byteLength));
}

/**
 * RMS and maximum of a − b (metres → mm) over the whole field and the inner disk. Non-finite pixels are left out (as
 * in the compare engine). Sums: float64, plain within a row, Neumaier across rows. Identical bytes short-cut to zeros.
 */
export function stageDifference(stage: string, a: Float32Array, b: Float32Array, inner: { inside: Uint8Array; pixels: number }, W: number): StageDifference {
  if (sameBytes(a, b)) return { stage, rmsMm: 0, maxAbsMm: 0, innerRmsMm: 0, innerMaxAbsMm: 0 };
  const all = new CompensatedSum();
  const ins = new CompensatedSum();
  let n = 0;
  let nIn = 0;
  let max = 0;
  let maxIn = 0;
  for (let k0 = 0; k0 < a.length; k0 += W) {
    let s = 0;
    let si = 0;
    for (let k = k0; k < k0 + W; k++) {
      const d = a[k] - b[k];
      if (d - d !== 0) continue;
      const d2 = d * d;
      const ad = d < 0 ? -d : d;
      n++;
      s += d2;
      if (ad > max) max = ad;
      if (inner.inside[k] === 1) {
        nIn++;
        si += d2;
        if (ad > maxIn) maxIn = ad;
      }
    }
    all.add(s);
    ins.add(si);
  }
  const rms = (sum: number, count: number) => (count > 0 ? Math.sqrt(Math.max(sum, 0) / count) * 1000 : Number.NaN);
  return { stage, rmsMm: rms(all.value, n), maxAbsMm: max * 1000, innerRmsMm: rms(ins.value, nIn), innerMaxAbsMm: maxIn * 1000 };
}

export function buildAtlas(req: PipelineRequest, opts: AtlasOptions = {}): Atlas {
  const precision = opts.precision ?? 'f32';
  const ablations = opts.ablations ?? ABLATIONS;
  const names = new Set<string>();
  for (const a of ablations) {
    if (!/^[a-z0-9][a-z0-9-]*$/.test(a.name))
      throw new InputRangeError(`ablation name: expected lower-case letters, digits and '-', got ${JSON.stringify(a.name)}`);
    if (names.has(a.name)) throw new InputRangeError(`ablation name ${JSON.stringify(a.name)} appears twice`);
    names.add(a.name);
  }
  const n = req.size;
  const grid = requestGrid(req);
  const block = opts.block ?? Math.max(4, Math.ceil(n / 256));
  const edgeBand = opts.edgeBand ?? ATLAS_EDGE_BAND;
  if (!Number.isInteger(block) || block < 1) throw new InputRangeError(`atlas block size: expected an integer ≥ 1 pixels, got ${block}`);
  if (!Number.isInteger(edgeBand) || edgeBand < 0) throw new InputRangeError(`atlas edge band: expected an integer ≥ 0 pixels, got ${edgeBand}`);
  const runner = atlasRunner(req, { precision, keep: ATLAS_STAGES, assetsDir: opts.assetsDir, config: opts.config });
  const correct = runner.run({});
  opts.onRun?.('correct', correct.ms);
  const correctField = new Map<string, Float32Array>(ATLAS_STAGES.map((s) => [s, asF32(correct.fields.get(s)!)]));
  const correctStages = new Map<string, FloatHeightfield>(ATLAS_STAGES.map((s) => [s, floatHeightfield(grid, correctField.get(s)!)]));
  const correctCodes = codeHeightfield(grid, correct.codes.slice(), req.encoding);
  const inner = innerDiskMask(grid);
  const diag = (stage: string, field: Float32Array) =>
    brief(stage, diagnose(floatHeightfield(grid, field), correctStages.get(stage)!, { edgeBand, maxFitPixels: ATLAS_FIT_PIXELS }));

  const entries: AtlasEntry[] = [];
  let radialStepM = DEFAULT_MASKS.radialStep;
  for (const spec of ablations) {
    const r = runner.run(spec.option);
    opts.onRun?.(spec.name, r.ms);
    const field = (s: string) => asF32(r.fields.get(s)!);
    const stages = ATLAS_STAGES.map((s) => stageDifference(s, field(s), correctField.get(s)!, inner, grid.columns));
    const pre = field('pre-encode');
    const fin = compareHeightfields(codeHeightfield(grid, r.codes.slice(), req.encoding), correctCodes, { block, generatedFloat: pre });
    const preCmp = compareHeightfields(floatHeightfield(grid, pre), correctStages.get('pre-encode')!, { block });
    radialStepM = preCmp.radial.step;
    const signed = preCmp.blocks.signedMaxM ?? new Float32Array(preCmp.blocks.columns * preCmp.blocks.rows);
    let maxAbsM = 0;
    for (const v of signed) maxAbsM = Math.max(maxAbsM, Math.abs(v));
    const firstDivergentStage = stages.find((s) => s.rmsMm > DIVERGENCE_MM)?.stage ?? null;
    const diagnosis = diag('pre-encode', pre);
    const atFirst =
      firstDivergentStage === null ? null : firstDivergentStage === 'pre-encode' ? diagnosis : diag(firstDivergentStage, field(firstDivergentStage));
    const masks: AtlasEntry['final']['masks'] = {};
    for (const [k, m] of Object.entries(fin.masks))
      masks[k] = { exactPercent: m.exactPercent, rmsMm: m.rmsMm, maxAbsCode: m.maxAbsCode, floatRmsMm: preCmp.masks[k].floatRmsMm };
    entries.push({
      name: spec.name,
      label: spec.label,
      option: spec.option,
      expect: spec.expect,
      signatureNote: SIGNATURE_NOTES[spec.name] ?? null,
      planReused: r.planReused,
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
      namedFirst: spec.expect === null ? null : atFirst?.verdict === 'explained' && atFirst.top !== null && spec.expect.includes(atFirst.top.kind),
      map: { block, columns: preCmp.blocks.columns, rows: preCmp.blocks.rows, maxAbsM, signedMaxM: signed },
      runMs: r.ms,
    });
  }
  entries.sort((a, b) => b.final.floatRmsMm - a.final.floatRmsMm || a.name.localeCompare(b.name));
  const scaleM = entries.reduce((m, e) => Math.max(m, e.map.maxAbsM), 0);
  return { request: req.id, size: n, precision, edgeBand, scaleM, radialStepM, correctRunMs: correct.ms, entries };
}
