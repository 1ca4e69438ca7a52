/**
 * Stage attribution of differing final codes between two runs.
 *
 * Inputs: two runs' stage fields (raster-layer0 … pre-encode, float metres, each on its own grid — stage dumps may be
 * cropped to a central window) and final codes (same grid on both sides), a field tolerance ε (mm) and a straddle
 * tolerance (mm).
 * Outputs: for every pixel whose final codes differ: the first stage, in pipeline order, at which |h_A − h_B| > ε at
 * that pixel's world position ('final-only' when every stage stays within ε: the difference appears at the encode;
 * 'outside-window' when a stage before the first divergent one was not dumped there), and whether the final
 * difference is a quantization straddle (|Δq| = 1 and the two pre-encode heights within the straddle tolerance), and a
 * cause class (CAUSE_CLASSES, below). Counts per stage, per cause, straddles per stage, |Δq| histogram per stage.
 * [R] Cause classes, from the evidence the two runs' fields give at the pixel (the stage where it first diverges and the
 *     size of the difference that stage adds there, Δ_s − Δ_(s−1)):
 *       final-only                          → quantization straddle (equal floats within ε, codes one apart)
 *       raster-layer0, raster               → rasterizer snapping (vertex snapping, coverage, interpolation of the fans)
 *       base                                → sampling precision (the smoothing chain's texture reads and weights)
 *       after-support                       → arithmetic order (the support shapes' float32 evaluation)
 *       after-stamps, after-locations       → quad coverage when the stage adds more than one code (a quad's pixel
 *                                             drawn on one side only), else sampling precision (trilinear weights, LOD)
 *       pre-encode                          → blend order (the outer radial blend's float32 evaluation)
 *     A pixel of a stage dumped on one side only, or outside a cropped dump, is 'outside-window' / 'not dumped':
 *     with whole-field dumps (the gpu and mimic runs) no pixel falls there.
 * [R] Dumps of one stage on different grids are compared on their common window (alignDumps: the larger is cropped
 *     to the smaller when that is a centred crop of it), so a whole-field GPU dump meets a windowed CPU one.
 * [R] Pixel correspondence: a stage dump's pixel is found through world coordinates (texel-centre grids; the final
 *     pixel's centre must be a pixel centre of the dump — same pixel size, window aligned), never by index. Both sides'
 *     dumps of one stage must have the same grid; a stage dumped on one side only is left out (listed in `skipped`).
 * [R] Default ε = 0.01 mm (the threshold `check` uses for "beyond rounding"); default straddle tolerance = one code
 *     (1000/65535 m ≈ 15.26 mm) — two heights closer than one code that encode one apart lie on either side of a
 *     single code boundary.
 * Counting is exact integer arithmetic; no floating-point reduction.
 */
import { join } from 'node:path';
import { FLOAT_STAGES } from '../conventions/index.js';
import { encodedStage, floatStageNames, stageFileName, type PipelineDeclaration } from '../pipelines/declaration.js';
import { sharedPipeline, undeclaredNotes } from '../pipelines/run-folder.js';
import { SEED_PIPELINE } from '../pipelines/seed.js';
import { InputRangeError, MismatchError } from '../errors.js';
import { readHeightfieldFile } from '../io/heightfield-file.js';
import { inputPresent } from '../io/read-input.js';
import { DEFAULT_RANGE, metresPerCode, type GridDescription } from '../core/grid.js';
import { cropCentre } from '../core/crop.js';
import type { Heightfield } from '../core/heightfield.js';

/** The seed pipeline's stages attributed: its stages that hold float fields (conventions FLOAT_STAGES). */
export const ATTRIBUTION_STAGES = FLOAT_STAGES;
export const DEFAULT_ATTRIBUTION_EPSILON_MM = 0.01;

export interface StageField {
  grid: GridDescription;
  height_px: Float32Array;
}

export interface RunFields {
  /** Stage name → field (any subset of ATTRIBUTION_STAGES). */
  stages: ReadonlyMap<string, StageField>;
  finalGrid: GridDescription;
  codes: Uint16Array;
}

export interface AttributionOptions {
  /** Field tolerance, mm (default 0.01). */
  epsilonMm?: number;
  /** Straddle tolerance on the pre-encode heights, mm (default: one code of the encoding range). */
  straddleMm?: number;
  /** Metres per code of the final encoding (for the default straddle tolerance); default that of DEFAULT_RANGE (1000/65535 m). */
  metresPerCode?: number;
  /** Keep, per differing final pixel, its index, first divergent stage and straddle flag (report maps and gallery). */
  perPixel?: boolean;
  /** The pipeline both runs belong to: stage order, causes, footprints (default: the seed pipeline). */
  pipeline?: PipelineDeclaration;
}

/** Per differing final pixel (row-major order): index, first divergent stage (index into `PixelStages.names`), straddle. */
export interface PixelStages {
  /** Stages compared, then 'final-only' and 'outside-window'. */
  names: string[];
  index: Int32Array;
  stage: Uint8Array;
  straddle: Uint8Array;
  /** With footprints declared: the stage (index into `names`) the pixel's difference originates in. */
  origin?: Uint8Array;
}

export interface StageAttribution {
  epsilonMm: number;
  straddleMm: number;
  /** Stages compared, in pipeline order. */
  stages: string[];
  /** Stages present on one side only (not compared). */
  skipped: string[];
  pixels: number;
  differing: number;
  straddles: number;
  /** First divergent stage → number of differing pixels (keys: stages, 'final-only', 'outside-window'). */
  byStage: Record<string, number>;
  straddlesByStage: Record<string, number>;
  /** First divergent stage → |Δq| → count. */
  deltaByStage: Record<string, Record<string, number>>;
  /** Cause class (CAUSE_CLASSES) → number of differing pixels. */
  byCause: Record<string, number>;
  /** Cause class → |Δq| → count. */
  deltaByCause: Record<string, Record<string, number>>;
  /**
   * The |Δq| > 1 pixels, per first divergent stage the 64 of largest |Δq| (largest first; row-major order among
   * equals), stages in pipeline order: where, by how much, first stage, cause, per-stage Δ (m).
   */
  tail: TailPixel[];
  /** Per first divergent stage, the |Δq| > 1 pixels the tail leaves out. */
  tailLeftOut: Record<string, number>;
  /** Present when asked for (AttributionOptions.perPixel). */
  pixelStages?: PixelStages;
  /**
   * Present when the pipeline declares footprints: per first divergent stage, the pixels whose difference originates
   * there (no differing pixel of an earlier stage lies within the footprints between), and those propagated into it,
   * by the earliest stage they propagate from.
   */
  origins?: { byStage: Record<string, number>; propagated: Record<string, Record<string, number>> };
  /** Heightfield files of either folder that the pipeline does not declare (not compared); present when there are some. */
  undeclared?: string[];
}

export interface TailPixel {
  column: number;
  row: number;
  dq: number;
  stage: string;
  cause: string;
  /** Stage → generated − reference at the pixel, metres (the stages compared). */
  deltaM: Record<string, number>;
}

export const CAUSE_CLASSES = [
  'quantization straddle',
  'rasterizer snapping',
  'sampling precision',
  'arithmetic order',
  'quad coverage',
  'blend order',
  'outside the dumped window',
] as const;
export type CauseClass = (typeof CAUSE_CLASSES)[number];
const TAIL_MAX = 64;

/**
 * The cause a pipeline declares for a pixel first diverging in `stage` (a float stage, 'final-only' for the encoded
 * stage, 'outside-window'), where that stage adds `stepM` metres of difference: the stage's `cause`, its
 * `causeAboveOneCode` when the step exceeds one code, else plainly "first differs at STAGE". For the seed pipeline this
 * is causeOf.
 */
export function declaredCause(d: PipelineDeclaration, stage: string, stepM: number, metresPerCode: number): string {
  if (stage === 'outside-window') return 'outside the dumped window';
  const s = stage === 'final-only' ? encodedStage(d) : d.stages.find((x) => x.name === stage);
  if (!s) return `first differs at ${stage}`;
  if (s.causeAboveOneCode !== undefined && Math.abs(stepM) > metresPerCode) return s.causeAboveOneCode;
  return s.cause ?? `first differs at ${s.name}`;
}

/** [R] The cause class of a pixel first diverging in `stage` of the seed pipeline, where that stage adds `stepM` metres of difference. */
export function causeOf(stage: string, stepM: number, metresPerCode: number): CauseClass {
  switch (stage) {
    case 'final-only':
      return 'quantization straddle';
    case 'raster-layer0':
    case 'raster':
      return 'rasterizer snapping';
    case 'base':
      return 'sampling precision';
    case 'after-support':
      return 'arithmetic order';
    case 'after-stamps':
    case 'after-locations':
      return Math.abs(stepM) > metresPerCode ? 'quad coverage' : 'sampling precision';
    case 'pre-encode':
      return 'blend order';
    default:
      return 'outside the dumped window';
  }
}

/**
 * Two dumps of one stage on a common grid: unchanged when their grids are equal; otherwise the larger cropped to the
 * smaller's window when that gives exactly the smaller's grid (a centred crop, as --dump-window writes); else null.
 */
export function alignDumps(x: StageField, y: StageField): [StageField, StageField] | null {
  if (sameGrid(x.grid, y.grid)) return [x, y];
  const crop = (big: StageField, small: StageField): StageField | null => {
    if (big.grid.columns <= small.grid.columns) return null;
    const c = cropCentre(big.height_px, big.grid, small.grid.sizeX);
    return sameGrid(c.grid, small.grid) ? { grid: c.grid, height_px: c.data } : null;
  };
  const a = crop(x, y);
  if (a) return [a, y];
  const b = crop(y, x);
  return b ? [x, b] : null;
}

function sameGrid(a: GridDescription, b: GridDescription): boolean {
  return (
    a.xmin === b.xmin &&
    a.ymin === b.ymin &&
    a.sizeX === b.sizeX &&
    a.sizeY === b.sizeY &&
    a.columns === b.columns &&
    a.rows === b.rows &&
    a.convention === b.convention &&
    a.rowDirection === b.rowDirection
  );
}

/** Per final column/row, the dump's column/row holding the same world point, or −1 outside the dump. */
function indexMap(final: GridDescription, dump: GridDescription, axis: 'x' | 'y', stage: string): Int32Array {
  const nF = axis === 'x' ? final.columns : final.rows;
  const nD = axis === 'x' ? dump.columns : dump.rows;
  const pF = (axis === 'x' ? final.sizeX : final.sizeY) / nF;
  const pD = (axis === 'x' ? dump.sizeX : dump.sizeY) / nD;
  if (Math.abs(pF - pD) > 1e-9 * pF)
    throw new MismatchError(`attribution: stage ${stage} has ${pD} m pixels, the final map ${pF} m; the dump must share the final pixel size`);
  const flip = (g: GridDescription) => axis === 'y' && g.rowDirection === 'row0-at-ymax';
  const oF = axis === 'x' ? final.xmin : final.ymin;
  const oD = axis === 'x' ? dump.xmin : dump.ymin;
  const out = new Int32Array(nF);
  for (let i = 0; i < nF; i++) {
    const world = oF + ((flip(final) ? nF - 1 - i : i) + 0.5) * pF;
    const c = (world - oD) / pD - 0.5;
    const k = Math.round(c);
    if (Math.abs(c - k) > 1e-6)
      throw new MismatchError(`attribution: stage ${stage}'s pixel centres are not aligned with the final map's (offset ${c - k} px)`);
    out[i] = k < 0 || k >= nD ? -1 : flip(dump) ? nD - 1 - k : k;
  }
  return out;
}

export function attributeStages(a: RunFields, b: RunFields, opts: AttributionOptions = {}): StageAttribution {
  const epsilonMm = opts.epsilonMm ?? DEFAULT_ATTRIBUTION_EPSILON_MM;
  if (!(epsilonMm >= 0)) throw new InputRangeError(`attribution: ε must be a non-negative number of mm, got ${epsilonMm}`);
  const mpc = opts.metresPerCode ?? metresPerCode(DEFAULT_RANGE);
  const straddleMm = opts.straddleMm ?? mpc * 1000;
  if (!sameGrid(a.finalGrid, b.finalGrid)) throw new MismatchError('attribution: the two final maps have different grids');
  const W = a.finalGrid.columns;
  const H = a.finalGrid.rows;
  if (a.codes.length !== W * H || b.codes.length !== W * H)
    throw new RangeError(`attribution: final codes ${a.codes.length} and ${b.codes.length}, expected ${W}×${H} = ${W * H}`);
  const stages: string[] = [];
  const skipped: string[] = [];
  const cols: Int32Array[] = [];
  const rows: Int32Array[] = [];
  const fa: Float32Array[] = [];
  const fb: Float32Array[] = [];
  const widths: number[] = [];
  const decl = opts.pipeline ?? SEED_PIPELINE;
  const declaredFloat = floatStageNames(decl);
  for (const s of declaredFloat) {
    const x = a.stages.get(s);
    const y = b.stages.get(s);
    if (!x && !y) continue;
    if (!x || !y) {
      skipped.push(s);
      continue;
    }
    const al = alignDumps(x, y);
    if (!al) throw new MismatchError(`attribution: stage ${s} is dumped on different grids on the two sides, neither a centred crop of the other`);
    const [xa, ya] = al;
    stages.push(s);
    cols.push(indexMap(a.finalGrid, xa.grid, 'x', s));
    rows.push(indexMap(a.finalGrid, xa.grid, 'y', s));
    fa.push(xa.height_px);
    fb.push(ya.height_px);
    widths.push(xa.grid.columns);
  }
  const eps = epsilonMm / 1000;
  const pre = stages.indexOf(encodedStage(decl).encodedFrom ?? '');
  const byStage: Record<string, number> = {};
  const straddlesByStage: Record<string, number> = {};
  const deltaByStage: Record<string, Record<string, number>> = {};
  const byCause: Record<string, number> = {};
  const deltaByCause: Record<string, Record<string, number>> = {};
  // Per first divergent stage, its TAIL_MAX pixels of largest |Δq| (sorted, largest first) and how many were left out.
  const tails = new Map<string, TailPixel[]>();
  const tailLeftOut: Record<string, number> = {};
  let differing = 0;
  let straddles = 0;
  const names = [...stages, 'final-only', 'outside-window'];
  // Per-pixel records in typed arrays that double when full (a dense difference must not build JS arrays of 16M numbers).
  let cap = opts.perPixel ? 1024 : 0;
  let used = 0;
  let pIndex = new Int32Array(cap);
  let pStage = new Uint8Array(cap);
  let pStraddle = new Uint8Array(cap);
  for (let j = 0; j < H; j++) {
    for (let i = 0; i < W; i++) {
      const k = j * W + i;
      const dq = a.codes[k] - b.codes[k];
      if (dq === 0) continue;
      differing++;
      let first = 'final-only';
      let step = 0;
      let prev = 0;
      for (let s = 0; s < stages.length; s++) {
        const c = cols[s][i];
        const r = rows[s][j];
        if (c < 0 || r < 0) {
          first = 'outside-window';
          break;
        }
        const q = r * widths[s] + c;
        const d = fa[s][q] - fb[s][q];
        if (Math.abs(d) > eps) {
          first = stages[s];
          step = d - prev;
          break;
        }
        prev = d;
      }
      const cause = declaredCause(decl, first, step, mpc);
      const ad = Math.abs(dq);
      let straddle = false;
      if (ad === 1 && pre >= 0) {
        const c = cols[pre][i];
        const r = rows[pre][j];
        if (c >= 0 && r >= 0) {
          const q = r * widths[pre] + c;
          straddle = Math.abs(fa[pre][q] - fb[pre][q]) * 1000 <= straddleMm;
        }
      }
      if (opts.perPixel) {
        if (used === cap) {
          cap *= 2;
          const grow = <T extends Int32Array | Uint8Array>(a: T, b: T): T => (b.set(a), b);
          pIndex = grow(pIndex, new Int32Array(cap));
          pStage = grow(pStage, new Uint8Array(cap));
          pStraddle = grow(pStraddle, new Uint8Array(cap));
        }
        pIndex[used] = k;
        pStage[used] = names.indexOf(first);
        pStraddle[used] = straddle ? 1 : 0;
        used++;
      }
      byStage[first] = (byStage[first] ?? 0) + 1;
      byCause[cause] = (byCause[cause] ?? 0) + 1;
      const dc = (deltaByCause[cause] ??= {});
      dc[String(ad)] = (dc[String(ad)] ?? 0) + 1;
      if (ad > 1) {
        let list = tails.get(first);
        if (!list) tails.set(first, (list = []));
        if (list.length < TAIL_MAX || ad > Math.abs(list[list.length - 1].dq)) {
          const deltaM: Record<string, number> = {};
          stages.forEach((st, s) => {
            const c = cols[s][i];
            const r = rows[s][j];
            if (c >= 0 && r >= 0) deltaM[st] = fa[s][r * widths[s] + c] - fb[s][r * widths[s] + c];
          });
          // Insert after every pixel of at least this |Δq| (scan order kept among equals).
          let at = list.length;
          while (at > 0 && Math.abs(list[at - 1].dq) < ad) at--;
          list.splice(at, 0, { column: i, row: j, dq, stage: first, cause, deltaM });
          if (list.length > TAIL_MAX) {
            list.pop();
            tailLeftOut[first] = (tailLeftOut[first] ?? 0) + 1;
          }
        } else tailLeftOut[first] = (tailLeftOut[first] ?? 0) + 1;
      }
      const d = (deltaByStage[first] ??= {});
      d[String(ad)] = (d[String(ad)] ?? 0) + 1;
      if (straddle) {
        straddles++;
        straddlesByStage[first] = (straddlesByStage[first] ?? 0) + 1;
      }
    }
  }
  const out: StageAttribution = {
    epsilonMm,
    straddleMm,
    stages,
    skipped,
    pixels: W * H,
    differing,
    straddles,
    byStage,
    straddlesByStage,
    deltaByStage,
    byCause,
    deltaByCause,
    tail: names.flatMap((st) => tails.get(st) ?? []),
    tailLeftOut,
  };
  if (opts.perPixel) out.pixelStages = { names, index: pIndex.slice(0, used), stage: pStage.slice(0, used), straddle: pStraddle.slice(0, used) };
  const reach = footprintReach(decl, stages, a.finalGrid);
  if (reach) {
    const origin = originsOf(reach, a, b, stages, cols, rows, fa, fb, widths, eps, names);
    out.origins = origin.counts;
    if (out.pixelStages) out.pixelStages.origin = origin.perPixel.slice(0, used);
  }
  return out;
}

/** Reads both runs' stage folders (R32 dumps with sidecars, final.r16) and attributes every differing final code. */
/**
 * The attribution of two run folders. `read` loads one heightfield file (default: readHeightfieldFile's field); a
 * caller that reads the same stage files again (check's stage table) passes a memoised reader, so each file is read
 * and its SHA-256 verified once.
 */
export function attributeRunFolders(
  dirA: string,
  dirB: string,
  opts: AttributionOptions = {},
  read: (path: string) => Heightfield = (path) => readHeightfieldFile(path).field,
): StageAttribution {
  const decl = opts.pipeline ?? sharedPipeline(dirA, dirB);
  const finalFile = stageFileName(encodedStage(decl));
  const load = (dir: string): RunFields => {
    const fin = read(join(dir, finalFile));
    if (fin.kind !== 'codes') throw new MismatchError(`${join(dir, finalFile)}: expected 16-bit codes`);
    const stages = new Map<string, StageField>();
    for (const s of floatStageNames(decl)) {
      const p = join(dir, `${s}.r32`);
      if (!inputPresent(p)) continue;
      const f = read(p);
      if (f.kind !== 'float') throw new MismatchError(`${p}: expected float heights`);
      stages.set(s, { grid: f.grid, height_px: f.height_px });
    }
    return { stages, finalGrid: fin.grid, codes: fin.code_px };
  };
  const a = load(dirA);
  const b = load(dirB);
  const fin = read(join(dirA, finalFile));
  const mpc = fin.kind === 'codes' ? metresPerCode(fin.range) : undefined;
  const r = attributeStages(a, b, { metresPerCode: mpc, ...opts, pipeline: decl });
  const undeclared = undeclaredNotes(
    [
      ['generated', dirA],
      ['reference', dirB],
    ],
    decl,
  );
  if (undeclared.length) r.undeclared = undeclared;
  return r;
}

/** One line per stage: "n of the differing pixels first diverge in <stage> (m straddles; |Δq| histogram)". */
export function attributionSummary(r: StageAttribution): string[] {
  const order = [...r.stages, 'final-only', 'outside-window'].filter((s) => r.byStage[s]);
  const lines = [
    // Called near-ties, not straddles: the residual attribution (compare.ts) owns "quantization straddle" (ε = 0.01 code).
    `${r.differing} of ${r.pixels} final codes differ; ${r.straddles} are near-ties (|Δq| = 1, the two pre-encode heights within ${r.straddleMm.toFixed(3)} mm of each other); stage ε = ${r.epsilonMm} mm`,
  ];
  for (const s of order) {
    const h = Object.entries(r.deltaByStage[s] ?? {})
      .sort((x, y) => Number(x[0]) - Number(y[0]))
      .map(([d, n]) => `|Δq| ${d}: ${n}`)
      .join(', ');
    lines.push(
      `  ${r.byStage[s]} first diverge ${s === 'final-only' ? 'only at the encode' : s === 'outside-window' ? 'outside the dumped window' : `in ${s}`} (${r.straddlesByStage[s] ?? 0} near-ties; ${h})${originText(r, s)}`,
    );
  }
  // The seed's cause classes in their fixed order, then a declared pipeline's own causes in the order they were met.
  const causeOrder = [...CAUSE_CLASSES.filter((c) => r.byCause[c]), ...Object.keys(r.byCause).filter((c) => !(CAUSE_CLASSES as readonly string[]).includes(c))];
  const causes = causeOrder.map((c) => {
    const h = Object.entries(r.deltaByCause[c] ?? {})
      .sort((x, y) => Number(x[0]) - Number(y[0]))
      .map(([d, n]) => `|Δq| ${d}: ${n}`)
      .join(', ');
    return `${c} ${r.byCause[c]} (${h})`;
  });
  if (causes.length) lines.push(`  by cause: ${causes.join('; ')}`);
  // Per first divergent stage, its pixels of largest |Δq| (the first few here; all kept ones in stages.json).
  const SHOWN = 5;
  const byFirst = new Map<string, TailPixel[]>();
  for (const t of r.tail) byFirst.set(t.stage, [...(byFirst.get(t.stage) ?? []), t]);
  for (const [st, list] of byFirst) {
    const more = list.length - Math.min(list.length, SHOWN) + (r.tailLeftOut?.[st] ?? 0);
    lines.push(
      `  |Δq| > 1 first diverging in ${st}, largest first: ${list
        .slice(0, SHOWN)
        .map((t) => `(${t.column}, ${t.row}) Δq ${t.dq}, ${t.cause}, ${t.stage in t.deltaM ? `Δ ${(t.deltaM[t.stage] * 1000).toFixed(1)} mm there` : 'encode'}`)
        .join('; ')}${more ? `; ${more} more left out` : ''}`,
    );
  }
  if (r.skipped.length) lines.push(`  not compared (dumped on one side only): ${r.skipped.join(', ')}`);
  for (const u of r.undeclared ?? []) lines.push(`  ${u}`);
  return lines;
}

/** ", n originate there, m propagated from STAGE" for a stage when origins were traced, else "". */
export function originText(r: StageAttribution, stage: string): string {
  if (!r.origins) return '';
  const from = Object.entries(r.origins.propagated[stage] ?? {}).map(([f, n]) => `${n} propagated from ${f}`);
  return `: ${r.origins.byStage[stage] ?? 0} originate there${from.length ? `, ${from.join(', ')}` : ''}`;
}

/**
 * Per compared stage (then the encoded stage), how far (final-grid pixels, Chebyshev) a change in each earlier compared
 * stage can have spread by the time it reaches it: the sum of the declared footprints of every declared stage after
 * the earlier one up to this one (metres divided by the final grid's pixel size). NaN where a footprint on the way is
 * undeclared. Null when the pipeline declares no footprint at all.
 */
function footprintReach(d: PipelineDeclaration, compared: readonly string[], grid: GridDescription): number[][] | null {
  if (!d.stages.some((s) => s.footprint !== undefined)) return null;
  const px = grid.sizeX / grid.columns;
  const fp = d.stages.map((s) => (s.footprint === undefined ? Number.NaN : 'pixels' in s.footprint ? s.footprint.pixels : s.footprint.metres / px));
  const pos = [...compared.map((s) => d.stages.findIndex((x) => x.name === s)), d.stages.length - 1];
  return pos.map((k) => pos.map((j) => (j >= k ? Number.NaN : fp.slice(j + 1, k + 1).reduce((a, b) => a + b, 0))));
}

/** Chebyshev dilation of a 0/1 mask by `r` pixels (separable sliding-window maximum, counts by prefix). */
function dilate(mask: Uint8Array, W: number, H: number, r: number): Uint8Array {
  if (r <= 0) return mask;
  const rowPass = new Uint8Array(W * H);
  const out = new Uint8Array(W * H);
  const count = new Int32Array(Math.max(W, H) + 1);
  for (let j = 0; j < H; j++) {
    for (let i = 0; i < W; i++) count[i + 1] = count[i] + mask[j * W + i];
    for (let i = 0; i < W; i++) rowPass[j * W + i] = count[Math.min(W, i + r + 1)] - count[Math.max(0, i - r)] > 0 ? 1 : 0;
  }
  for (let i = 0; i < W; i++) {
    for (let j = 0; j < H; j++) count[j + 1] = count[j] + rowPass[j * W + i];
    for (let j = 0; j < H; j++) out[j * W + i] = count[Math.min(H, j + r + 1)] - count[Math.max(0, j - r)] > 0 ? 1 : 0;
  }
  return out;
}

/**
 * The origin of every differing final pixel: its first divergent stage k, unless a pixel within the reach of an
 * earlier compared stage j differs there (|Δ| > ε) — then the earliest such j. Pixels of 'outside-window' keep their
 * own name. Returns counts and, per differing pixel in row-major order, the origin's index into `names`.
 */
function originsOf(
  reach: number[][],
  a: RunFields,
  b: RunFields,
  stages: readonly string[],
  cols: readonly Int32Array[],
  rows: readonly Int32Array[],
  fa: readonly Float32Array[],
  fb: readonly Float32Array[],
  widths: readonly number[],
  eps: number,
  names: readonly string[],
): { counts: NonNullable<StageAttribution['origins']>; perPixel: Uint8Array } {
  const W = a.finalGrid.columns;
  const H = a.finalGrid.rows;
  const S = stages.length;
  // Where each compared stage differs, on the final grid.
  const diff = stages.map((_, s) => {
    const m = new Uint8Array(W * H);
    for (let j = 0; j < H; j++) {
      const r = rows[s][j];
      if (r < 0) continue;
      for (let i = 0; i < W; i++) {
        const c = cols[s][i];
        if (c < 0) continue;
        const q = r * widths[s] + c;
        if (Math.abs(fa[s][q] - fb[s][q]) > eps) m[j * W + i] = 1;
      }
    }
    return m;
  });
  const dilated = new Map<string, Uint8Array>();
  const spread = (j: number, k: number): Uint8Array | null => {
    const r = reach[k][j];
    if (!Number.isFinite(r)) return null;
    const key = `${j},${k}`;
    let m = dilated.get(key);
    if (!m) dilated.set(key, (m = dilate(diff[j], W, H, Math.floor(r + 1e-9))));
    return m;
  };
  const byStage: Record<string, number> = {};
  const propagated: Record<string, Record<string, number>> = {};
  const perPixel = new Uint8Array(W * H);
  let n = 0;
  for (let p = 0; p < W * H; p++) {
    if (a.codes[p] === b.codes[p]) continue;
    let k = S; // final-only unless a stage differs
    let outside = false;
    const j0 = p % W;
    const r0 = (p - j0) / W;
    for (let s = 0; s < S; s++) {
      if (cols[s][j0] < 0 || rows[s][r0] < 0) {
        outside = true;
        break;
      }
      if (diff[s][p]) {
        k = s;
        break;
      }
    }
    const first = outside ? 'outside-window' : names[k];
    let from = -1;
    if (!outside)
      for (let j = 0; j < k; j++) {
        const m = spread(j, k);
        if (m && m[p]) {
          from = j;
          break;
        }
      }
    if (from < 0) {
      byStage[first] = (byStage[first] ?? 0) + 1;
      perPixel[n++] = names.indexOf(first);
    } else {
      const t = (propagated[first] ??= {});
      t[stages[from]] = (t[stages[from]] ?? 0) + 1;
      perPixel[n++] = from;
    }
  }
  return { counts: { byStage, propagated }, perPixel };
}
