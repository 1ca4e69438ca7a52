/**
 * Stage attribution of differing final codes between two runs (issue 16, item 6).
 *
 * Inputs: two runs' stage fields (raster-layer0 … pre-encode, float metres, each on its own grid — stage dumps may be
 * cropped to a central window) and final codes (same grid on both sides), a field tolerance ε (mm) and a straddle
 * tolerance (mm).
 * Outputs: for every pixel whose final codes differ: the first stage, in pipeline order, at which |h_A − h_B| > ε at
 * that pixel's world position ('final-only' when every stage stays within ε: the difference appears at the encode;
 * 'outside-window' when a stage before the first divergent one was not dumped there), and whether the final
 * difference is a quantization straddle (|Δq| = 1 and the two pre-encode heights within the straddle tolerance). Counts
 * per stage, straddles per stage, |Δq| histogram per stage.
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
    if (!sameGrid(x.grid, y.grid)) throw new MismatchError(`attribution: stage ${s} is dumped on different grids on the two sides`);
    stages.push(s);
    cols.push(indexMap(a.finalGrid, x.grid, 'x', s));
    rows.push(indexMap(a.finalGrid, x.grid, 'y', s));
    fa.push(x.height_px);
    fb.push(y.height_px);
    widths.push(x.grid.columns);
  }
  const eps = epsilonMm / 1000;
  const pre = stages.indexOf('pre-encode');
  const byStage: Record<string, number> = {};
  const straddlesByStage: Record<string, number> = {};
  const deltaByStage: Record<string, Record<string, number>> = {};
  let differing = 0;
  let straddles = 0;
  for (let j = 0; j < H; j++) {
    for (let i = 0; i < W; i++) {
      const k = j * W + i;
      const dq = a.codes[k] - b.codes[k];
      if (dq === 0) continue;
      differing++;
      let first = 'final-only';
      for (let s = 0; s < stages.length; s++) {
        const c = cols[s][i];
        const r = rows[s][j];
        if (c < 0 || r < 0) {
          first = 'outside-window';
          break;
        }
        const q = r * widths[s] + c;
        if (Math.abs(fa[s][q] - fb[s][q]) > eps) {
          first = stages[s];
          break;
        }
      }
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
      byStage[first] = (byStage[first] ?? 0) + 1;
      const d = (deltaByStage[first] ??= {});
      d[String(ad)] = (d[String(ad)] ?? 0) + 1;
      if (straddle) {
        straddles++;
        straddlesByStage[first] = (straddlesByStage[first] ?? 0) + 1;
      }
    }
  }
  return { epsilonMm, straddleMm, stages, skipped, pixels: W * H, differing, straddles, byStage, straddlesByStage, deltaByStage };
}

/** Reads both runs' stage folders (R32 dumps with sidecars, final.r16) and attributes every differing final code. */
export function attributeRunFolders(dirA: string, dirB: string, opts: AttributionOptions = {}): StageAttribution {
  const load = (dir: string): RunFields => {
    const fin = readHeightfieldFile(join(dir, 'final.r16')).field;
    if (fin.kind !== 'codes') throw new MismatchError(`${join(dir, 'final.r16')}: expected 16-bit codes`);
    const stages = new Map<string, StageField>();
    for (const s of ATTRIBUTION_STAGES) {
      const p = join(dir, `${s}.r32`);
      if (!inputPresent(p)) continue;
      const f = readHeightfieldFile(p).field;
      if (f.kind !== 'float') throw new MismatchError(`${p}: expected float heights`);
      stages.set(s, { grid: f.grid, height_px: f.height_px });
    }
    return { stages, finalGrid: fin.grid, codes: fin.code_px };
  };
  const a = load(dirA);
  const b = load(dirB);
  const fin = readHeightfieldFile(join(dirA, 'final.r16')).field;
  const mpc = fin.kind === 'codes' ? metresPerCode(fin.range) : undefined;
  return attributeStages(a, b, { metresPerCode: mpc, ...opts });
}

/** One line per stage: "n of the differing pixels first diverge in <stage> (m straddles; |Δq| histogram)". */
export function attributionSummary(r: StageAttribution): string[] {
  const order = [...r.stages, 'final-only', 'outside-window'].filter((s) => r.byStage[s]);
  const lines = [
    `${r.differing} of ${r.pixels} final codes differ; ${r.straddles} are quantization straddles (|Δq| = 1, pre-encode within ${r.straddleMm.toFixed(3)} mm); stage ε = ${r.epsilonMm} mm`,
  ];
  for (const s of order) {
    const h = Object.entries(r.deltaByStage[s] ?? {})
      .sort((x, y) => Number(x[0]) - Number(y[0]))
      .map(([d, n]) => `|Δq| ${d}: ${n}`)
      .join(', ');
    lines.push(
      `  ${r.byStage[s]} first diverge ${s === 'final-only' ? 'only at the encode' : s === 'outside-window' ? 'outside the dumped window' : `in ${s}`} (${r.straddlesByStage[s] ?? 0} straddles; ${h})`,
    );
  }
  if (r.skipped.length) lines.push(`  not compared (dumped on one side only): ${r.skipped.join(', ')}`);
  return lines;
}
