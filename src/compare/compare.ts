/**
 * The comparison engine: a generated heightfield against a reference on the same grid.
 *
 * Inputs: two heightfields (codes or float metres), mask settings, block size, optional pre-encode float field of the
 * generated side (residual attribution).
 * Outputs: a ComparisonResult — whole-map metrics, the same per mask, a radial profile, a block-maximum map.
 * Seed rules (000, "Results and Scope"): Δq = q_generated − q_reference; ΔH = Δq × (max − min)/65535;
 * RMS = sqrt(mean ΔH²) over all compared pixels; exact agreement; ±1 histogram; maximum; 4×4 block-maximum map.
 * [R] Pairs where either side is float are compared in metres (comparedIn 'metres'): the float metrics come from the
 *     stored values (a code side decoded through its own range) — pixels differing at all, beyond the tolerance, max
 *     |Δ| and where, RMS, bias, a signed histogram in decades of mm. Codes are compared too only through a range that
 *     is stated — the code side's own, or the caller's `codeRange` — never a default one: a float pair without a stated
 *     range has no code metrics (NaN, `codeRange` null). Through a range, float heights outside it are counted per
 *     side as clamped low/high. Non-finite values (NaN, ±Inf) are excluded from every metric and counted on their own.
 */
import { MismatchError, InputRangeError } from '../errors.js';
import { columnWorldX, gridDifference, metresPerCode, rowWorldY, UNORM16_MAX, validateRange, type GridDescription, type HeightRange } from '../core/grid.js';
import { decodeTable, encodeFieldR16, encodeUnorm16, heightToUnorm } from '../core/encoding.js';
import type { Heightfield } from '../core/heightfield.js';
import { alignExactly } from '../core/align.js';
import { defineLazyHistogram, histogramBins, RegionAccumulator, reduceHistogram, sqrtRatio } from './metric-accumulators.js';
import { floatFullScan, floatSummaryAvailable, floatSummaryScan, type FloatClampCounts, type FloatExtraCounts } from './float-kernel.js';
import { FLOAT_HELPER_MIN_PIXELS, prestartFloatHelper } from './float-thread.js';
import { arrayCodeSource, createCodePairExecutor, SCAN_CHUNK, type CodeSource, type CompareExecutor, type ScanGeometry, type TallyPlan } from './kernel.js';
import {
  DEFAULT_MASKS,
  RadialGeometry,
  maskBounds,
  maskContainsBounds,
  type MaskBounds,
  maskDefinitions,
  maskPixelCount,
  ringIndex,
  ringPixelCounts,
  type MaskDefinition,
  type MaskSettings,
} from './masks.js';

export interface CompareOptions {
  masks?: Partial<MaskSettings>;
  /** Block size of the block-maximum map, pixels (default 4). */
  block?: number;
  /** Pre-encode float field of the generated side, for residual attribution. */
  generatedFloat?: Float32Array | null;
  /** Straddle tolerance: a float within this many codes of a code boundary counts as a quantization straddle. */
  straddleEpsilonCodes?: number;
  /** Executor of a code pair's scan, tally and ring counts (kernel.ts), and of a float pair's summary scan (float-kernel.ts); each gives the same result. Default: defaultCompareExecutor (simd where WebAssembly serves). */
  executor?: CompareExecutor;
  /**
   * [R] A float pair's summary only: the whole map and the inner disk, no other mask, no radial rings, no float block
   * map (what a stage table reads: check's per-stage RMS and maximum). Their figures are bit-identical to a full
   * comparison's — each region's accumulator receives the same values in the same order.
   */
  summary?: boolean;
  /**
   * The range through which float heights become UNORM16 codes, so that codes are compared too. A code side carries
   * its own range, which this must equal (refused naming both otherwise). Without it, a pair of two float sides is
   * compared in metres only.
   */
  codeRange?: HeightRange;
  /** Where the code range came from, in words, as outputs print it (e.g. "--range"); default "the caller's codeRange" or the code side's. */
  rangeSource?: string;
  /** Tolerance, mm: pixels whose |Δ| exceeds it are counted (`beyondTolerance`). Default 0. */
  toleranceMm?: number;
  /**
   * 'exact': the generated side is first put on the reference grid exactly (alignExactly: rows reordered, a
   * whole-texel window cropped; refused when that is not possible). Default: the grids must already be equal.
   */
  align?: 'exact';
}

/** [R] 0.01 code ≈ 0.15 mm for −500…500 m: far above float32 rounding near ±500 m (~3e-5 m), far below a real error. */
export const DEFAULT_STRADDLE_EPSILON_CODES = 0.01;

export interface Position {
  pixel: [number, number];
  world: [number, number];
}

export interface RegionMetrics {
  pixels: number;
  exact: number;
  exactPercent: number;
  histogram: Record<string, number>;
  maxAbsCode: number;
  maxAbsCodeAt: Position | null;
  meanSignedCode: number;
  rmsMm: number;
  maxAbsMm: number;
  /** Present when either side is float: metrics of the float differences, in mm. */
  floatRmsMm?: number;
  floatMaxAbsMm?: number;
  floatBiasMm?: number;
  floatMaxAbsAt?: Position | null;
}

export interface RadialRing {
  r0: number;
  r1: number;
  pixels: number;
  rmsMm: number;
  maxAbsCode: number;
  maxAbsMm: number;
  floatRmsMm?: number;
  floatMaxAbsMm?: number;
}

export interface Attribution {
  epsilonCodes: number;
  epsilonMm: number;
  differing: number;
  straddle: number;
  deviation: number;
  /** Pixels where the float given does not encode to the generated code (the float is not this map's pre-encode field). */
  inconsistent: number;
}

/** One bin of the signed float histogram: differences with loMm < |Δ| ≤ hiMm (hiMm null: unbounded) of one sign. */
export interface FloatHistogramBin {
  sign: -1 | 0 | 1;
  loMm: number;
  hiMm: number | null;
  count: number;
}

/** Per side, the float heights outside the code range (clamped to code 0 or 65535 when encoded). */
export interface ClampCounts {
  generated: { low: number; high: number };
  reference: { low: number; high: number };
  total: number;
}

export interface ComparisonResult extends RegionMetrics {
  kind: { generated: 'codes' | 'float'; reference: 'codes' | 'float' };
  /**
   * 'codes': both sides hold codes (the code metrics are the comparison). 'metres': a side holds float heights — the
   * float metrics are the comparison; the code metrics are measured only when `codeRange` is set (else NaN, histogram
   * empty).
   */
  comparedIn: 'codes' | 'metres';
  /** The range codes were compared through and where it came from; null when codes were not compared. */
  codeRange: { min: number; max: number; source: string } | null;
  /**
   * Pixels that differ at all: in metres (bitwise, after each side's declared conversion) when comparedIn is
   * 'metres', else in codes.
   */
  differing: number;
  /** The tolerance (mm) and the pixels whose |Δ| exceeds it (metres, or |Δq| × metres per code for codes). */
  toleranceMm: number;
  beyondTolerance: number;
  /** Float heights outside the code range, per side (zero when codes were not compared or both sides hold codes). */
  clamped: ClampCounts;
  /** Present when comparedIn is 'metres': percentage of pixels whose heights are equal, and the signed mm histogram. */
  floatEqualPercent?: number;
  floatHistogramMm?: FloatHistogramBin[];
  /**
   * The range codes are compared through — or, when codes were not compared (codeRange null), the range spanning both
   * sides' finite heights, for display only (no metric uses it).
   */
  range: HeightRange;
  metresPerCode: number;
  grid: GridDescription;
  totalPixels: number;
  nonFinite: { generated: number; reference: number; pixelsExcluded: number };
  masks: Record<string, RegionMetrics & { definition: MaskDefinition }>;
  radial: { step: number; rings: RadialRing[] };
  attribution?: Attribution;
  /** Block-maximum map: max |Δq| per block (codes), and the signed float maximum per block when a side is float. */
  blocks: { size: number; columns: number; rows: number; maxAbsCode: Uint16Array; signedMaxM: Float32Array | null };
}

interface Side {
  /** A code side's codes; a float side's encoded through the range when first read (or all zero: `noCodes`). */
  readonly codes: Uint16Array;
  /** Float metres when this side is float; null for code sides (metres come from the decode table). */
  heights: Float32Array | null;
  /** A float side whose codes are not read yet: the full kernel encodes them in its chunks instead. */
  readonly codesUnread: boolean;
}

/** A side of a pair with a float side; `noCodes`: a float side's codes left all zero (no code metric is reported). */
function sideOf(f: Heightfield, range: HeightRange, noCodes = false): Side {
  if (f.kind === 'codes') return { codes: f.code_px, heights: null, codesUnread: false };
  const heights = f.height_px;
  let codes: Uint16Array | null = null;
  return {
    heights,
    get codes(): Uint16Array {
      if (!codes) {
        codes = new Uint16Array(heights.length);
        if (!noCodes) encodeFieldR16(heights, codes, range);
      }
      return codes;
    },
    get codesUnread(): boolean {
      return codes === null && !noCodes;
    },
  };
}

function position(g: GridDescription, k: number): Position | null {
  if (k < 0) return null;
  const i = k % g.columns;
  const j = (k - i) / g.columns;
  return { pixel: [i, j], world: [columnWorldX(g, i), rowWorldY(g, j)] };
}

/**
 * A region's metrics; `histogram` is a placeholder holding its key's place, made a lazy record (defineLazyHistogram)
 * by the caller on the object it returns (a spread of this one would make the record).
 */
function regionMetrics(acc: RegionAccumulator, mpc: number, g: GridDescription, withFloat: boolean): RegionMetrics {
  // The sums are exact integers (any order of the bins gives them).
  const s = reduceHistogram(acc, false);
  const n = acc.pixels;
  const exact = n - s.nonZero;
  const m: RegionMetrics = {
    pixels: n,
    exact,
    exactPercent: n > 0 ? (exact / n) * 100 : Number.NaN,
    histogram: {},
    maxAbsCode: acc.maxAbsCode,
    maxAbsCodeAt: position(g, acc.maxAbsCodeAt),
    meanSignedCode: n > 0 ? Number(s.sum) / n : Number.NaN,
    rmsMm: sqrtRatio(s.sumSq, n) * mpc * 1000,
    maxAbsMm: acc.maxAbsCode * mpc * 1000,
  };
  if (withFloat) {
    m.floatRmsMm = n > 0 ? Math.sqrt(Math.max(acc.floatSumSq.value, 0) / n) * 1000 : Number.NaN;
    m.floatMaxAbsMm = acc.maxAbsM * 1000;
    m.floatBiasMm = n > 0 ? (acc.floatSum.value / n) * 1000 : Number.NaN;
    m.floatMaxAbsAt = position(g, acc.maxAbsMAt);
  }
  return m;
}

function sameRange(a: HeightRange, b: HeightRange): boolean {
  return a.min === b.min && a.max === b.max;
}

/** Checks that two fields can be compared directly; refuses naming both values. */
export function checkComparable(gen: Heightfield, ref: Heightfield): void {
  const d = gridDifference(gen.grid, ref.grid);
  if (d)
    throw new MismatchError(
      `grids differ (generated vs reference) in ${d}; align: 'exact' (alignExactly) reorders rows or crops a whole-texel window exactly, resampling onto the reference grid is an explicit choice (resampleField; the command line's --resample)`,
    );
  if (gen.kind === 'codes' && ref.kind === 'codes' && !sameRange(gen.range, ref.range)) {
    throw new MismatchError(
      `height ranges differ (generated vs reference): ${gen.range.min}..${gen.range.max} m vs ${ref.range.min}..${ref.range.max} m; pass --resample to compare in metres`,
    );
  }
}

/** What every comparison reads: the grid, the range, the mask settings, the block size, the sides' kinds. */
interface ComparisonInputs {
  grid: GridDescription;
  range: HeightRange;
  mpc: number;
  settings: MaskSettings;
  block: number;
  kinds: ComparisonResult['kind'];
}

/** Both sides of a pair where a side is float: codes (float sides encoded through the range) and metres. */
interface FloatPairSides {
  G: Side;
  R: Side;
  table: Float64Array;
}

/** Every accumulator the scan feeds: the whole map, each mask, each radial ring, the block maps. */
interface RegionSet {
  geo: RadialGeometry;
  maskNames: string[];
  maskDefs: MaskDefinition[];
  /** maskBounds of each definition, computed once (the per-pixel test reads them). */
  maskBoundsOf: MaskBounds[];
  whole: RegionAccumulator;
  maskAcc: RegionAccumulator[];
  step: number;
  ringAcc: RegionAccumulator[];
  bw: number;
  bh: number;
  blockCode: Uint16Array;
  blockFloat: Float32Array | null;
  blockFloatAbs: Float64Array | null;
}

/** Pixels left out of every metric: a non-finite value (NaN, ±Inf) on either float side. */
interface Exclusions {
  generated: number;
  reference: number;
  /** Pixel indices, ascending. */
  pixels: number[];
}

export function compareHeightfields(genIn: Heightfield, ref: Heightfield, opts: CompareOptions = {}): ComparisonResult {
  const gen = opts.align === 'exact' ? alignExactly(genIn, ref.grid) : genIn;
  checkComparable(gen, ref);
  const toleranceMm = toleranceOf(opts);
  if (gen.kind === 'codes' && ref.kind === 'codes') {
    if (opts.codeRange && !sameRange(opts.codeRange, ref.range))
      throw new MismatchError(
        `code range ${opts.codeRange.min},${opts.codeRange.max} (${opts.rangeSource ?? "the caller's codeRange"}) contradicts the codes' own ${ref.range.min},${ref.range.max}`,
      );
    return compareCodeSources(arrayCodeSource(gen.code_px), arrayCodeSource(ref.code_px), ref.grid, ref.range, opts);
  }
  // [R] The full float-pair scan's helper thread takes tens of milliseconds to start: started before the sides are
  //     prepared, it is ready by the scan or soon after (the scan runs without it until it is).
  if (opts.summary !== true && opts.executor !== 'js' && ref.grid.columns * ref.grid.rows >= FLOAT_HELPER_MIN_PIXELS) prestartFloatHelper();
  const stated = statedCodeRange(gen, ref, opts);
  const range = stated?.range ?? displayRange(gen, ref);
  const input = comparisonInputs(ref.grid, range, { generated: gen.kind, reference: ref.kind }, opts);
  // [R] Without a stated range a float pair's code metrics are not reported; its scan still needs codes (the block map
  //     the report draws): the display range's, or none at all for a summary.
  const sides: FloatPairSides = {
    G: sideOf(gen, range, !stated && opts.summary === true),
    R: sideOf(ref, range, !stated && opts.summary === true),
    table: decodeTable(range),
  };
  const gf = generatedFloatOf(input, opts);
  const regions = regionSet(input, true, opts.summary === true);
  const attribution = stated ? attributionFor(input, gf, opts) : undefined;
  const attribute =
    attribution && gf ? (k: number) => attributePixel(attribution, gf[k], sides.G.codes[k], sides.R.codes[k], range, attribution.epsilonCodes) : null;
  const excluded: Exclusions & { extras?: FloatExtraCounts; clamped?: FloatClampCounts } = summaryKernel(opts, sides, attribute)
    ? runSummaryKernel(input, sides, regions)
    : fullKernel(opts, attribute)
      ? runFullKernel(input, sides, regions, toleranceMm)
      : scanFloatPairs(input, sides, regions, attribute);
  const ringCounts = regions.ringAcc.length ? ringPixelCounts(regions.geo, regions.step, regions.ringAcc.length) : new Float64Array(0);
  setRegionPixelCounts(
    regions,
    excluded.pixels,
    input.grid,
    ringCounts,
    regions.maskDefs.map((d) => maskPixelCount(d, regions.geo)),
  );
  const result = assembleResult(input, regions, excluded);
  if (attribution) result.attribution = attribution;
  const extras = excluded.extras ? floatHistogram(excluded.extras) : floatExtras(sides, toleranceMm);
  result.comparedIn = 'metres';
  result.differing = extras.differing;
  result.toleranceMm = toleranceMm;
  result.beyondTolerance = extras.beyond;
  result.floatEqualPercent = result.pixels > 0 ? ((result.pixels - extras.differing) / result.pixels) * 100 : Number.NaN;
  result.floatHistogramMm = extras.histogram;
  if (stated) {
    result.codeRange = { min: range.min, max: range.max, source: stated.source };
    result.clamped = {
      generated: excluded.clamped?.generated ?? clampCounts(gen, range),
      reference: excluded.clamped?.reference ?? clampCounts(ref, range),
      total: 0,
    };
    result.clamped.total = result.clamped.generated.low + result.clamped.generated.high + result.clamped.reference.low + result.clamped.reference.high;
  } else {
    result.codeRange = null;
    blankCodeMetrics(result);
    for (const m of Object.values(result.masks)) blankCodeMetrics(m);
    for (const ring of result.radial.rings) {
      ring.rmsMm = Number.NaN;
      ring.maxAbsCode = Number.NaN;
      ring.maxAbsMm = Number.NaN;
    }
  }
  return result;
}

function toleranceOf(opts: CompareOptions): number {
  const t = opts.toleranceMm ?? 0;
  if (typeof t !== 'number' || !(t >= 0) || !Number.isFinite(t)) throw new InputRangeError(`tolerance: expected a finite number of mm ≥ 0, got ${String(t)}`);
  return t;
}

/**
 * The range the codes of a pair with a float side are compared through: the code side's own (which a caller's range
 * must equal), else the caller's; null when none is stated (then codes are not compared).
 */
function statedCodeRange(gen: Heightfield, ref: Heightfield, opts: CompareOptions): { range: HeightRange; source: string } | null {
  const codeSide =
    ref.kind === 'codes' ? ({ side: 'reference', f: ref } as const) : gen.kind === 'codes' ? ({ side: 'generated side', f: gen } as const) : null;
  if (opts.codeRange) validateRange(opts.codeRange, 'code range');
  if (codeSide) {
    const own = codeSide.f.range;
    if (opts.codeRange && !sameRange(opts.codeRange, own))
      throw new MismatchError(
        `code range ${opts.codeRange.min},${opts.codeRange.max} (${opts.rangeSource ?? "the caller's codeRange"}) contradicts the ${codeSide.side}'s codes, of range ${own.min},${own.max}`,
      );
    return { range: own, source: opts.rangeSource ?? `the ${codeSide.side}'s codes` };
  }
  return opts.codeRange ? { range: opts.codeRange, source: opts.rangeSource ?? "the caller's codeRange" } : null;
}

/** The range spanning both sides' finite heights (display only: the report's pictures of a pair without code range). */
function displayRange(gen: Heightfield, ref: Heightfield): HeightRange {
  let lo = Infinity;
  let hi = -Infinity;
  for (const f of [gen, ref]) {
    if (f.kind !== 'float') continue;
    const h = f.height_px;
    for (let k = 0; k < h.length; k++) {
      const v = h[k];
      if (v < lo) lo = v;
      if (v > hi) hi = v;
    }
  }
  if (!Number.isFinite(lo) || !Number.isFinite(hi)) return { min: 0, max: 1 };
  if (!(hi > lo)) return { min: lo, max: lo + 1 };
  return { min: lo, max: hi };
}

function clampCounts(f: Heightfield, range: HeightRange): { low: number; high: number } {
  if (f.kind !== 'float') return { low: 0, high: 0 };
  let low = 0;
  let high = 0;
  const h = f.height_px;
  for (let k = 0; k < h.length; k++) {
    const v = h[k];
    if (v < range.min) low++;
    else if (v > range.max) high++;
  }
  return { low, high };
}

function blankCodeMetrics(m: RegionMetrics): void {
  m.exact = Number.NaN;
  m.exactPercent = Number.NaN;
  m.histogram = {};
  m.maxAbsCode = Number.NaN;
  m.maxAbsCodeAt = null;
  m.meanSignedCode = Number.NaN;
  m.rmsMm = Number.NaN;
  m.maxAbsMm = Number.NaN;
}

/** [R] Decade edges of the signed float histogram, mm: a sub-micrometre difference is never binned with equality. */
export const FLOAT_HISTOGRAM_EDGES_MM: readonly number[] = Object.freeze([0, 1e-3, 1e-2, 0.1, 1, 10, 100, 1e3, 1e4, 1e5]);

/**
 * The whole map's float counts: pixels whose heights differ at all (non-finite pixels left out), those beyond the
 * tolerance, and the signed histogram over FLOAT_HISTOGRAM_EDGES_MM.
 */
function floatExtras(sides: FloatPairSides, toleranceMm: number): { differing: number; beyond: number; histogram: FloatHistogramBin[] } {
  const { G, R, table } = sides;
  const n = G.codes.length;
  const E = FLOAT_HISTOGRAM_EDGES_MM;
  const pos = new Float64Array(E.length);
  const neg = new Float64Array(E.length);
  let differing = 0;
  let beyond = 0;
  let equal = 0;
  const tolM = toleranceMm / 1000;
  for (let k = 0; k < n; k++) {
    const a = G.heights ? G.heights[k] : table[G.codes[k]];
    const b = R.heights ? R.heights[k] : table[R.codes[k]];
    if (a - a !== 0 || b - b !== 0) continue;
    const d = a - b;
    if (d === 0) {
      equal++;
      continue;
    }
    differing++;
    const ad = d < 0 ? -d : d;
    if (ad > tolM) beyond++;
    const mm = ad * 1000;
    let e = E.length - 1;
    while (e > 0 && !(mm > E[e])) e--;
    if (d < 0) neg[e]++;
    else pos[e]++;
  }
  return floatHistogram({ equal, differing, beyond, pos, neg });
}

/** floatExtras' result from its counts (theirs, or the kernel's: float-kernel.ts). */
function floatHistogram(c: FloatExtraCounts): { differing: number; beyond: number; histogram: FloatHistogramBin[] } {
  const { equal, differing, beyond, pos, neg } = c;
  const E = FLOAT_HISTOGRAM_EDGES_MM;
  const histogram: FloatHistogramBin[] = [];
  for (let e = E.length - 1; e >= 0; e--) if (neg[e]) histogram.push({ sign: -1, loMm: E[e], hiMm: e + 1 < E.length ? E[e + 1] : null, count: neg[e] });
  histogram.push({ sign: 0, loMm: 0, hiMm: 0, count: equal });
  for (let e = 0; e < E.length; e++) if (pos[e]) histogram.push({ sign: 1, loMm: E[e], hiMm: e + 1 < E.length ? E[e + 1] : null, count: pos[e] });
  return { differing, beyond, histogram };
}

/**
 * The comparison of two code fields on `grid`, both encoded with `range`, read a chunk at a time from two sources —
 * arrays in memory (compareHeightfields) or the files themselves as they are read (src/io/r16-stream.ts). The caller
 * has checked that both sides have this grid and range. The chunks go to the executor named in the options
 * (kernel.ts); every metric is the same whichever runs.
 */
export function compareCodeSources(gen: CodeSource, ref: CodeSource, grid: GridDescription, range: HeightRange, opts: CompareOptions = {}): ComparisonResult {
  const input = comparisonInputs(grid, range, { generated: 'codes', reference: 'codes' }, opts);
  const gf = generatedFloatOf(input, opts);
  const regions = regionSet(input, false);
  const plan: TallyPlan = {
    columns: grid.columns,
    rows: grid.rows,
    block: input.block,
    bw: regions.bw,
    bh: regions.bh,
    geo: regions.geo,
    maskDefs: regions.maskDefs,
    masks: regions.maskBoundsOf,
    step: regions.step,
    rings: regions.ringAcc.length,
  };
  const ex = createCodePairExecutor(plan, opts.executor);
  const attribution = attributionFor(input, gf, opts);
  const visit = attribution && gf ? (k: number, gq: number, rq: number) => attributePixel(attribution, gf[k], gq, rq, range, attribution.epsilonCodes) : null;
  // [R] The regions' pixel counts are geometry alone: counted before the scan, so an optimizing compile V8 starts for
  //     them runs beside the scan instead of after the last line of output, where the process would wait for it.
  const counts = ex.geometryCounts();
  const n = grid.columns * grid.rows;
  for (let start = 0; start < n; start += SCAN_CHUNK) {
    const count = Math.min(SCAN_CHUNK, n - start);
    gen.fill(ex.slotG, start, count);
    ref.fill(ex.slotR, start, count);
    ex.tallyChunk(start, count, visit);
  }
  const { tally, blockCode } = ex.result();
  tally.into(0, regions.whole);
  regions.maskAcc.forEach((acc, m) => tally.into(1 + m, acc));
  regions.ringAcc.forEach((acc, q) => tally.into(1 + regions.maskAcc.length + q, acc));
  regions.blockCode = blockCode;
  setRegionPixelCounts(regions, [], grid, counts.rings, counts.masks);
  const result = assembleResult(input, regions, { generated: 0, reference: 0, pixels: [] });
  if (attribution) result.attribution = attribution;
  const toleranceMm = toleranceOf(opts);
  result.toleranceMm = toleranceMm;
  result.beyondTolerance = beyondInCodes(regions.whole, result.exact, input.mpc, toleranceMm);
  result.codeRange = { min: range.min, max: range.max, source: opts.rangeSource ?? "the codes' own (both sides)" };
  return result;
}

/**
 * Pixels whose |Δq| × metres per code exceeds the tolerance (mm), from the region's histogram bins (its record is not
 * made: it stays lazy).
 */
function beyondInCodes(acc: RegionAccumulator, exact: number, mpc: number, toleranceMm: number): number {
  const { keys, counts, n: bins } = histogramBins(acc, exact);
  let n = 0;
  for (let k = 0; k < bins; k++) if (Math.abs(keys[k]) * mpc * 1000 > toleranceMm) n += counts[k];
  return n;
}

function comparisonInputs(grid: GridDescription, range: HeightRange, kinds: ComparisonResult['kind'], opts: CompareOptions): ComparisonInputs {
  const block = opts.block ?? 4;
  if (!Number.isInteger(block) || block < 1) throw new InputRangeError(`block size: expected an integer ≥ 1, got ${block}`);
  validateRange(range);
  return { grid, range, mpc: metresPerCode(range), settings: { ...DEFAULT_MASKS, ...opts.masks }, block, kinds };
}

/** The generated side's pre-encode floats (attribution), checked against the grid. */
function generatedFloatOf(input: ComparisonInputs, opts: CompareOptions): Float32Array | null {
  const n = input.grid.columns * input.grid.rows;
  const gf = opts.generatedFloat ?? null;
  if (gf && gf.length !== n) throw new InputRangeError(`generated float field: ${gf.length} samples, expected ${input.grid.columns}×${input.grid.rows} = ${n}`);
  return gf;
}

/** Attribution of differing pixels, when the generated side's pre-encode floats are given. */
function attributionFor(input: ComparisonInputs, gf: Float32Array | null, opts: CompareOptions): Attribution | undefined {
  if (!gf) return undefined;
  const eps = opts.straddleEpsilonCodes ?? DEFAULT_STRADDLE_EPSILON_CODES;
  return { epsilonCodes: eps, epsilonMm: eps * input.mpc * 1000, differing: 0, straddle: 0, deviation: 0, inconsistent: 0 };
}

/** The regions of a comparison; the block maps are made here for float pairs (the code executor makes its own). */
function regionSet(input: ComparisonInputs, withFloat: boolean, summary = false): RegionSet {
  const { grid, settings, block: B } = input;
  const geo = new RadialGeometry(grid);
  const defs = maskDefinitions(settings);
  const maskNames = Object.keys(defs).filter((k) => !summary || k === 'innerDisk');
  const step = settings.radialStep;
  const nRings = summary ? 0 : Math.max(1, Math.ceil(geo.maxRadius() / step + 1e-9));
  const bw = Math.ceil(grid.columns / B);
  const bh = Math.ceil(grid.rows / B);
  return {
    geo,
    maskNames,
    maskDefs: maskNames.map((k) => defs[k]),
    maskBoundsOf: maskNames.map((k) => maskBounds(defs[k])),
    whole: new RegionAccumulator(),
    maskAcc: maskNames.map(() => new RegionAccumulator()),
    step,
    ringAcc: Array.from({ length: nRings }, () => new RegionAccumulator()),
    bw,
    bh,
    blockCode: new Uint16Array(withFloat ? bw * bh : 0),
    blockFloat: withFloat && !summary ? new Float32Array(bw * bh) : null,
    blockFloatAbs: withFloat && !summary ? new Float64Array(bw * bh) : null,
  };
}

/**
 * Whether a float pair's scan goes to the WebAssembly kernel (float-kernel.ts): a summary of two float sides without
 * attribution, unless the caller names the js executor (or WebAssembly is off). Naming simd where it is unavailable
 * is refused, as for code pairs.
 */
function summaryKernel(opts: CompareOptions, sides: FloatPairSides, attribute: ((k: number) => void) | null): boolean {
  if (opts.summary !== true || attribute || !sides.G.heights || !sides.R.heights || opts.executor === 'js') return false;
  if (floatSummaryAvailable()) return true;
  if (opts.executor === 'simd') throw new Error('compare executor simd: WebAssembly SIMD is unavailable here (or HEIGHTBENCH_NO_WASM=1); use the js executor');
  return false;
}

/** Whether a full comparison's float-pair scan goes to the WebAssembly kernel: summaryKernel's rule, either side float. */
function fullKernel(opts: CompareOptions, attribute: ((k: number) => void) | null): boolean {
  if (opts.summary === true || attribute || opts.executor === 'js') return false;
  if (floatSummaryAvailable()) return true;
  if (opts.executor === 'simd') throw new Error('compare executor simd: WebAssembly SIMD is unavailable here (or HEIGHTBENCH_NO_WASM=1); use the js executor');
  return false;
}

function runFullKernel(
  input: ComparisonInputs,
  sides: FloatPairSides,
  regions: RegionSet,
  toleranceMm: number,
): Exclusions & { extras?: FloatExtraCounts; clamped?: FloatClampCounts } {
  const e = floatFullScan(
    {
      ...kernelGeometry(input, regions),
      step: regions.step,
      rings: regions.ringAcc.length,
      gh: sides.G.heights,
      rh: sides.R.heights,
      // A float side's codes are encoded by the kernel, chunk by chunk, unless something has read them already.
      gc: sides.G.codesUnread ? null : sides.G.codes,
      rc: sides.R.codesUnread ? null : sides.R.codes,
      edgesMm: FLOAT_HISTOGRAM_EDGES_MM,
      toleranceM: toleranceMm / 1000,
      range: input.range,
    },
    {
      whole: regions.whole,
      maskAcc: regions.maskAcc,
      ringAcc: regions.ringAcc,
      blockCode: regions.blockCode,
      blockFloat: regions.blockFloat!,
      blockFloatAbs: regions.blockFloatAbs!,
    },
  );
  // Its memory refused: the JavaScript scan, which needs none.
  return e ?? scanFloatPairs(input, sides, regions, null);
}

/** What both float-pair kernels read of the grid, the blocks and the regions' geometry. */
function kernelGeometry(input: ComparisonInputs, regions: RegionSet): ScanGeometry {
  const { columns, rows } = input.grid;
  return { columns, rows, block: input.block, bw: regions.bw, bh: regions.bh, geo: regions.geo, masks: regions.maskBoundsOf };
}

function runSummaryKernel(input: ComparisonInputs, sides: FloatPairSides, regions: RegionSet): Exclusions {
  const e = floatSummaryScan(
    {
      ...kernelGeometry(input, regions),
      gh: sides.G.heights!,
      rh: sides.R.heights!,
      gc: sides.G.codes,
      rc: sides.R.codes,
    },
    { whole: regions.whole, maskAcc: regions.maskAcc, blockCode: regions.blockCode },
  );
  // Its memory refused: the JavaScript scan, which needs none.
  return e ?? scanFloatPairs(input, sides, regions, null);
}

/**
 * Pairs where a side is float: every pixel is visited (a difference in metres can hide under equal codes). A pixel
 * with a non-finite value (NaN, ±Inf) on either float side is left out of every metric and returned in the
 * exclusions (one pass: the test is two subtractions, and such pixels are rare).
 */
function scanFloatPairs(input: ComparisonInputs, sides: FloatPairSides, regions: RegionSet, attribute: ((k: number) => void) | null): Exclusions {
  const W = input.grid.columns;
  const H = input.grid.rows;
  const gc = sides.G.codes;
  const rc = sides.R.codes;
  const gh = sides.G.heights;
  const rh = sides.R.heights;
  const table = sides.table;
  const e: Exclusions = { generated: 0, reference: 0, pixels: [] };
  for (let j = 0; j < H; j++) {
    const rowBase = j * W;
    for (let i = 0; i < W; i++) {
      const k = rowBase + i;
      // A code side's metres come from the decode table (always finite).
      const a = gh ? gh[k] : table[gc[k]];
      const b = rh ? rh[k] : table[rc[k]];
      const badA = a - a !== 0; // NaN or ±Inf
      const badB = b - b !== 0;
      if (badA || badB) {
        if (badA) e.generated++;
        if (badB) e.reference++;
        e.pixels.push(k);
        continue;
      }
      const dq = gc[k] - rc[k];
      const dm = a - b;
      if (dq === 0 && dm === 0) continue;
      addDifference(regions, input.block, i, j, k, dq, dm, true);
      if (attribute && dq !== 0) attribute(k);
    }
  }
  return e;
}

/** One differing pixel (column i, row j, index k): the whole map, the block maps, each mask holding it, its ring. */
function addDifference(r: RegionSet, B: number, i: number, j: number, k: number, dq: number, dm: number, withFloat: boolean): void {
  const geo = r.geo;
  r.whole.addCode(dq, k);
  if (withFloat) r.whole.addFloat(dm, k);
  const b = ((j / B) | 0) * r.bw + ((i / B) | 0);
  const a = dq < 0 ? -dq : dq;
  if (a > r.blockCode[b]) r.blockCode[b] = a;
  if (r.blockFloat && r.blockFloatAbs) {
    const am = dm < 0 ? -dm : dm;
    if (am > r.blockFloatAbs[b]) {
      r.blockFloatAbs[b] = am;
      r.blockFloat[b] = dm;
    }
  }
  const dx = geo.dx[i];
  const dy = geo.dy[j];
  const r2 = geo.dx2[i] + geo.dy2[j];
  for (let m = 0; m < r.maskBoundsOf.length; m++) {
    if (maskContainsBounds(r.maskBoundsOf[m], r2, dx, dy)) {
      r.maskAcc[m].addCode(dq, k);
      if (withFloat) r.maskAcc[m].addFloat(dm, k);
    }
  }
  if (r.ringAcc.length === 0) return; // a summary (CompareOptions.summary) keeps no rings
  const ring = r.ringAcc[ringIndex(r2, r.step)];
  ring.addCode(dq, k);
  if (withFloat) ring.addFloat(dm, k);
}

/** Region pixel counts from geometry, minus the excluded pixels in each region. */
/** Region pixel counts from geometry (as counted by the caller's executor), minus the excluded pixels in each region. */
function setRegionPixelCounts(r: RegionSet, excluded: readonly number[], grid: GridDescription, ringCounts: Float64Array, maskCounts: readonly number[]): void {
  const { geo, step } = r;
  const W = grid.columns;
  r.whole.pixels = W * grid.rows - excluded.length;
  r.maskAcc.forEach((acc, m) => {
    acc.pixels = maskCounts[m];
  });
  r.ringAcc.forEach((acc, k) => {
    acc.pixels = ringCounts[k];
  });
  for (const k of excluded) {
    const i = k % W;
    const j = (k - i) / W;
    const r2 = geo.dx2[i] + geo.dy2[j];
    r.maskBoundsOf.forEach((b, m) => {
      if (maskContainsBounds(b, r2, geo.dx[i], geo.dy[j])) r.maskAcc[m].pixels--;
    });
    if (r.ringAcc.length) r.ringAcc[ringIndex(r2, step)].pixels--;
  }
}

function assembleResult(input: ComparisonInputs, r: RegionSet, excluded: Exclusions): ComparisonResult {
  const { grid, mpc, block, kinds } = input;
  const withFloat = kinds.generated === 'float' || kinds.reference === 'float';
  const step = r.step;
  const result: ComparisonResult = {
    ...regionMetrics(r.whole, mpc, grid, withFloat),
    kind: { ...kinds },
    comparedIn: withFloat ? 'metres' : 'codes',
    codeRange: null,
    differing: 0,
    toleranceMm: 0,
    beyondTolerance: 0,
    clamped: { generated: { low: 0, high: 0 }, reference: { low: 0, high: 0 }, total: 0 },
    range: input.range,
    metresPerCode: mpc,
    grid,
    totalPixels: grid.columns * grid.rows,
    nonFinite: { generated: excluded.generated, reference: excluded.reference, pixelsExcluded: excluded.pixels.length },
    masks: {},
    radial: {
      step,
      rings: r.ringAcc.map((acc, k) => {
        const m = regionMetrics(acc, mpc, grid, withFloat); // a ring states no histogram
        const ring: RadialRing = { r0: k * step, r1: (k + 1) * step, pixels: m.pixels, rmsMm: m.rmsMm, maxAbsCode: m.maxAbsCode, maxAbsMm: m.maxAbsMm };
        if (withFloat) {
          ring.floatRmsMm = m.floatRmsMm;
          ring.floatMaxAbsMm = m.floatMaxAbsMm;
        }
        return ring;
      }),
    },
    blocks: { size: block, columns: r.bw, rows: r.bh, maxAbsCode: r.blockCode, signedMaxM: r.blockFloat },
  };
  result.differing = result.pixels - result.exact;
  defineLazyHistogram(result, r.whole, result.exact);
  r.maskNames.forEach((name, m) => {
    const metrics = { ...regionMetrics(r.maskAcc[m], mpc, grid, withFloat), definition: r.maskDefs[m] };
    defineLazyHistogram(metrics, r.maskAcc[m], metrics.exact);
    result.masks[name] = metrics;
  });
  return result;
}

/**
 * Classifies one differing pixel. The generated float h encodes to gq; its float32 product p = u × UNORM16_MAX lies a
 * distance |frac(p) − 0.5| (in codes) from the nearest code boundary k + 0.5. A straddle: |Δq| = 1, the reference code
 * is the neighbour across that boundary, and the distance is within ε.
 */
function attributePixel(a: Attribution, h: number, gq: number, rq: number, range: HeightRange, eps: number): void {
  a.differing++;
  const u = heightToUnorm(h, range);
  const p = Math.fround(u * UNORM16_MAX);
  const fl = Math.floor(p);
  const expected = encodeUnorm16(u); // h is finite here (non-finite pixels are excluded before attribution)
  if (expected !== gq) {
    a.inconsistent++;
    return;
  }
  const f = p - fl;
  const across = f >= 0.5 ? fl : fl + 1;
  const dist = Math.abs(f - 0.5);
  if (u > 0 && u < 1 && Math.abs(gq - rq) === 1 && rq === across && dist <= eps) a.straddle++;
  else a.deviation++;
}
