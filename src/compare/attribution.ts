/**
 * Stage attribution of differing final codes between two runs (issue 16, item 6).
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
import { InputRangeError, MismatchError } from '../errors.js';
import { readHeightfieldFile } from '../io/heightfield-file.js';
import { inputPresent } from '../io/read-input.js';
import { DEFAULT_RANGE, metresPerCode, type GridDescription } from '../core/grid.js';
import { cropCentre } from '../core/crop.js';
import type { Heightfield } from '../core/heightfield.js';

/** The stages attributed: the declared stages that hold float fields (conventions FLOAT_STAGES). */
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
}

/** Per differing final pixel (row-major order): index, first divergent stage (index into `PixelStages.names`), straddle. */
export interface PixelStages {
  /** Stages compared, then 'final-only' and 'outside-window'. */
  names: string[];
  index: Int32Array;
  stage: Uint8Array;
  straddle: Uint8Array;
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
  /** The |Δq| > 1 pixels (at most 64, row-major order): where, by how much, first stage, cause, per-stage Δ (m). */
  tail: TailPixel[];
  /** Present when asked for (AttributionOptions.perPixel). */
  pixelStages?: PixelStages;
}

export interface TailPixel {
  column: number;
  row: number;
  dq: number;
  stage: string;
  cause: CauseClass;
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

/** [R] The cause class of a pixel first diverging in `stage`, where that stage adds `stepM` metres of difference. */
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
  for (const s of ATTRIBUTION_STAGES) {
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
  const pre = stages.indexOf('pre-encode');
  const byStage: Record<string, number> = {};
  const straddlesByStage: Record<string, number> = {};
  const deltaByStage: Record<string, Record<string, number>> = {};
  const byCause: Record<string, number> = {};
  const deltaByCause: Record<string, Record<string, number>> = {};
  const tail: TailPixel[] = [];
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
      const cause = causeOf(first, step, mpc);
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
      if (ad > 1 && tail.length < TAIL_MAX) {
        const deltaM: Record<string, number> = {};
        stages.forEach((st, s) => {
          const c = cols[s][i];
          const r = rows[s][j];
          if (c >= 0 && r >= 0) deltaM[st] = fa[s][r * widths[s] + c] - fb[s][r * widths[s] + c];
        });
        tail.push({ column: i, row: j, dq, stage: first, cause, deltaM });
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
    tail,
  };
  if (opts.perPixel) out.pixelStages = { names, index: pIndex.slice(0, used), stage: pStage.slice(0, used), straddle: pStraddle.slice(0, used) };
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
  const load = (dir: string): RunFields => {
    const fin = read(join(dir, 'final.r16'));
    if (fin.kind !== 'codes') throw new MismatchError(`${join(dir, 'final.r16')}: expected 16-bit codes`);
    const stages = new Map<string, StageField>();
    for (const s of ATTRIBUTION_STAGES) {
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
  const fin = read(join(dirA, 'final.r16'));
  const mpc = fin.kind === 'codes' ? metresPerCode(fin.range) : undefined;
  return attributeStages(a, b, { metresPerCode: mpc, ...opts });
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
      `  ${r.byStage[s]} first diverge ${s === 'final-only' ? 'only at the encode' : s === 'outside-window' ? 'outside the dumped window' : `in ${s}`} (${r.straddlesByStage[s] ?? 0} near-ties; ${h})`,
    );
  }
  const causes = CAUSE_CLASSES.filter((c) => r.byCause[c]).map((c) => {
    const h = Object.entries(r.deltaByCause[c] ?? {})
      .sort((x, y) => Number(x[0]) - Number(y[0]))
      .map(([d, n]) => `|Δq| ${d}: ${n}`)
      .join(', ');
    return `${c} ${r.byCause[c]} (${h})`;
  });
  if (causes.length) lines.push(`  by cause: ${causes.join('; ')}`);
  if (r.tail.length)
    lines.push(
      `  |Δq| > 1: ${r.tail.map((t) => `(${t.column}, ${t.row}) Δq ${t.dq}, ${t.stage}, ${t.cause}, ${t.stage in t.deltaM ? `Δ ${(t.deltaM[t.stage] * 1000).toFixed(1)} mm there` : 'encode'}`).join('; ')}`,
    );
  if (r.skipped.length) lines.push(`  not compared (dumped on one side only): ${r.skipped.join(', ')}`);
  return lines;
}
