/**
 * Maps, tiles and the worst-pixel gallery of a comparison report.
 *
 * Inputs: both sides' final codes on one grid (a float side is encoded to codes for display), optionally the stage
 * attribution's per-pixel first divergent stage, and stage fields pair by pair (float metres, each pair on one grid).
 * Outputs: the overview block map (signed Δq of largest magnitude per block, ≤ 512 blocks a side: a lone ±1 stays a
 * visible block), the full-resolution viewer tiles (JS files a page loads with <script src>, since a page opened from
 * file:// may not fetch), the first-divergence block map, per-stage difference maps (mm) and the gallery of worst
 * pixels with crops of every layer on both sides.
 * [R] Tiles: 256×256 pixels; payload = reference codes through the gradient predictor (a + b − c, mod 2^16) as low and
 *     high byte planes, then (generated − reference) mod 2^16 the same way, then one byte per pixel naming the first
 *     divergent stage (0: none) — deflated (zlib), base64 in a JS call. Tiles are taken in order of their largest |Δq|
 *     (tiles with a difference first) until a byte budget is reached, so a report stays bounded whatever the field; a
 *     tile left out is shown from the overview, and the page says when a tile with a difference was left out.
 * [R] Gallery: the pixels of largest |Δq| first (row order on ties, one per crop neighbourhood), then one pixel (its
 *     largest |Δq|) of each of the largest connected groups (8-neighbour) of differing pixels, to `GALLERY_SIZE`.
 * Display only: every statistic comes from the full-resolution comparison.
 */
import { deflateSync } from 'node:zlib';
import { columnWorldX, rowWorldY, worldToColumn, worldToRow, type GridDescription, type HeightRange } from '../core/grid.js';
import { decodeHeightR16, encodeHeightR16 } from '../core/encoding.js';
import type { Heightfield } from '../core/heightfield.js';
import { pngFile } from '../io/png16.js';
import { dqColour, mmColour, signedBlockMaxOfDifference, terrain, type Rgb } from './pictures.js';
import type { PixelStages } from '../compare/attribution.js';

export const TILE = 256;
export const OVERVIEW_MAX = 512;
export const GALLERY_SIZE = 12;
export const CROP_RADIUS = 8;
/** [R] Bytes of tile payload a report may carry (base64 included); the 40 MB folder budget leaves room for the rest. */
export const TILE_BUDGET_BYTES = 24 * 1024 * 1024;
/** [R] Most differing pixels grouped into connected groups (beyond, the gallery lists only the largest |Δq|). */
export const GROUP_LIMIT = 4_000_000;

/** The codes of a side for display (a float side encoded on the comparison's range). */
export function displayCodes(f: Heightfield, range: HeightRange): Uint16Array {
  if (f.kind === 'codes') return f.code_px;
  const out = new Uint16Array(f.height_px.length);
  for (let k = 0; k < out.length; k++) {
    const h = f.height_px[k];
    out[k] = h === h ? encodeHeightR16(h, range) : 0;
  }
  return out;
}

/** Row-major indices of the pixels whose codes differ (one pass; every later map walks only these). */
export function differingIndices(gen: Uint16Array, ref: Uint16Array): Int32Array {
  let n = 0;
  for (let k = 0; k < gen.length; k++) if (gen[k] !== ref[k]) n++;
  const out = new Int32Array(n);
  n = 0;
  for (let k = 0; k < gen.length; k++) if (gen[k] !== ref[k]) out[n++] = k;
  return out;
}

/** The signed Δq of largest magnitude per block of `factor`×`factor` pixels (a tie keeps the first in row order). */
export function blockDqMap(
  gen: Uint16Array,
  ref: Uint16Array,
  columns: number,
  rows: number,
  factor: number,
  diff: Int32Array = differingIndices(gen, ref),
): { data: Int32Array; w: number; h: number } {
  const w = Math.ceil(columns / factor);
  const h = Math.ceil(rows / factor);
  const data = new Int32Array(w * h);
  // diff is in row order, so the first of equal magnitudes in a block is kept.
  for (let n = 0; n < diff.length; n++) {
    const k = diff[n];
    const d = gen[k] - ref[k];
    const b = ((((k / columns) | 0) / factor) | 0) * w + (((k % columns) / factor) | 0);
    if (Math.abs(d) > Math.abs(data[b])) data[b] = d;
  }
  return { data, w, h };
}

/** Factor of the overview: the smallest integer that brings the larger side to at most OVERVIEW_MAX. */
export function overviewFactor(columns: number, rows: number): number {
  return Math.max(1, Math.ceil(Math.max(columns, rows) / OVERVIEW_MAX));
}

/** Box-mean codes per block (display). */
export function overviewCodes(codes: Uint16Array, columns: number, rows: number, factor: number): Uint16Array {
  const w = Math.ceil(columns / factor);
  const h = Math.ceil(rows / factor);
  const sum = new Float64Array(w * h);
  const cnt = new Uint32Array(w * h);
  const col = new Int32Array(columns);
  for (let i = 0; i < columns; i++) col[i] = (i / factor) | 0;
  const rowSum = new Uint32Array(w);
  for (let j = 0; j < rows; j++) {
    // Integer sums per row (at most 65535 × factor per block row: exact), then into the block's float total.
    rowSum.fill(0);
    const r = j * columns;
    for (let i = 0; i < columns; i++) rowSum[col[i]] += codes[r + i];
    const o = ((j / factor) | 0) * w;
    for (let b = 0; b < w; b++) {
      sum[o + b] += rowSum[b];
      cnt[o + b] += Math.min(factor, columns - b * factor);
    }
  }
  const out = new Uint16Array(w * h);
  for (let k = 0; k < out.length; k++) out[k] = Math.round(sum[k] / cnt[k]);
  return out;
}

/** An RGB image under construction (PNG at the end). */
export class RgbImage {
  readonly px: Uint8Array;
  constructor(
    readonly w: number,
    readonly h: number,
    fill: Rgb = [255, 255, 255],
  ) {
    this.px = new Uint8Array(w * h * 3);
    for (let k = 0; k < w * h; k++) this.px.set(fill, k * 3);
  }
  set(x: number, y: number, c: Rgb): void {
    if (x < 0 || y < 0 || x >= this.w || y >= this.h) return;
    this.px.set(c, (y * this.w + x) * 3);
  }
  rect(x: number, y: number, w: number, h: number, c: Rgb): void {
    for (let b = 0; b < h; b++) for (let a = 0; a < w; a++) this.set(x + a, y + b, c);
  }
  png(): Uint8Array {
    const stride = 1 + this.w * 3;
    const raw = new Uint8Array(stride * this.h);
    for (let j = 0; j < this.h; j++) raw.set(this.px.subarray(j * this.w * 3, (j + 1) * this.w * 3), j * stride + 1);
    return pngFile(this.w, this.h, 8, 2, 0, raw);
  }
}

/** A block map drawn north-up (row 0 at the bottom for row0-at-ymin grids). */
export function blockPng(v: ArrayLike<number>, w: number, h: number, colour: (x: number) => Rgb, row0AtBottom: boolean): Uint8Array {
  const img = new RgbImage(w, h);
  for (let j = 0; j < h; j++) for (let i = 0; i < w; i++) img.set(i, row0AtBottom ? h - 1 - j : j, colour(v[j * w + i]));
  return img.png();
}

/** [R] A ring marker's colour: its block's colour mixed half with white, so it never reads as a marked block itself. */
export function ringTint(c: Rgb): Rgb {
  return [Math.round((c[0] + 255) / 2), Math.round((c[1] + 255) / 2), Math.round((c[2] + 255) / 2)];
}

/**
 * A block map where every marked block is drawn at its own position in its own colour, and ringed: a hollow
 * (2r+1)² square in its tint around it, drawn only on unmarked (background) pixels, so a lone differing pixel of a
 * 4096² map is seen at 512² and at every zoom of the page, and no marked block is ever covered by another's marker.
 */
export function ringedPng(
  v: ArrayLike<number>,
  w: number,
  h: number,
  colour: (x: number) => Rgb,
  marked: (x: number) => boolean,
  row0AtBottom: boolean,
  r = 2,
): Uint8Array {
  const img = new RgbImage(w, h);
  const isMarked = new Uint8Array(w * h);
  const y = (j: number) => (row0AtBottom ? h - 1 - j : j);
  for (let j = 0; j < h; j++) for (let i = 0; i < w; i++) if (marked(v[j * w + i])) isMarked[y(j) * w + i] = 1;
  // Rings first, on background pixels only; then every block in its own colour (marked ones exactly where they are).
  for (let j = 0; j < h; j++)
    for (let i = 0; i < w; i++) {
      const x = v[j * w + i];
      if (!marked(x)) continue;
      const t = ringTint(colour(x));
      const cy = y(j);
      for (let b = -r; b <= r; b++)
        for (let a = -r; a <= r; a++) {
          if (Math.max(Math.abs(a), Math.abs(b)) !== r) continue;
          const px = i + a;
          const py = cy + b;
          if (px >= 0 && py >= 0 && px < w && py < h && !isMarked[py * w + px]) img.set(px, py, t);
        }
    }
  for (let j = 0; j < h; j++)
    for (let i = 0; i < w; i++) {
      const x = v[j * w + i];
      if (marked(x)) img.set(i, y(j), colour(x));
    }
  return img.png();
}

/** A categorical block map (value ≥ 0 marked; −1 none): every marked block at its own position, ringed (ringedPng). */
export function markPng(v: ArrayLike<number>, w: number, h: number, colour: (k: number) => Rgb, row0AtBottom: boolean, r = 2): Uint8Array {
  return ringedPng(v, w, h, colour, (k) => k >= 0, row0AtBottom, r);
}

/** [R] Categorical colours of first divergent stages (in pipeline order), then final-only and outside-window. */
export const STAGE_COLOURS: readonly Rgb[] = [
  [31, 119, 180],
  [44, 160, 44],
  [148, 103, 189],
  [140, 86, 75],
  [227, 119, 194],
  [188, 189, 34],
  [23, 190, 207],
  [255, 127, 14],
  [214, 39, 40],
  [127, 127, 127],
];
export function stageColour(k: number, names: readonly string[]): Rgb {
  const n = names[k];
  if (n === 'final-only') return [0, 0, 0];
  if (n === 'outside-window') return [120, 120, 120];
  return STAGE_COLOURS[k % STAGE_COLOURS.length];
}

/**
 * The first-divergence block map: per block, the first divergent stage of its differing pixel of largest |Δq| (−1 where
 * no pixel differs).
 */
export function firstDivergenceMap(
  ps: PixelStages,
  gen: Uint16Array,
  ref: Uint16Array,
  columns: number,
  rows: number,
  factor: number,
): { data: Int16Array; w: number; h: number } {
  const w = Math.ceil(columns / factor);
  const h = Math.ceil(rows / factor);
  const data = new Int16Array(w * h).fill(-1);
  const best = new Int32Array(w * h);
  for (let n = 0; n < ps.index.length; n++) {
    const k = ps.index[n];
    const i = k % columns;
    const j = (k / columns) | 0;
    const b = ((j / factor) | 0) * w + ((i / factor) | 0);
    const a = Math.abs(gen[k] - ref[k]);
    if (a > best[b]) {
      best[b] = a;
      data[b] = ps.stage[n];
    }
  }
  return { data, w, h };
}

function predictPlanes(v: Uint16Array, w: number, h: number, out: Uint8Array, at: number): void {
  const n = w * h;
  for (let j = 0; j < h; j++)
    for (let i = 0; i < w; i++) {
      const k = j * w + i;
      const a = i > 0 ? v[k - 1] : 0;
      const b = j > 0 ? v[k - w] : 0;
      const c = i > 0 && j > 0 ? v[k - w - 1] : 0;
      const r = (v[k] - (i > 0 && j > 0 ? a + b - c : i > 0 ? a : b)) & 0xffff;
      out[at + k] = r & 0xff;
      out[at + n + k] = r >> 8;
    }
}

/** Codes through the tile predictor, deflated, base64 (the overview heights of the page). */
export function packCodes(v: Uint16Array, w: number, h: number): string {
  const raw = new Uint8Array(2 * w * h);
  predictPlanes(v, w, h, raw, 0);
  return deflateSync(raw, { level: 6 }).toString('base64');
}

/** Raw bytes deflated, base64. */
export function packBytes(a: ArrayBufferView): string {
  return deflateSync(new Uint8Array(a.buffer, a.byteOffset, a.byteLength), { level: 6 }).toString('base64');
}

export interface TileSet {
  /** Tile groups written, by key "gx_gy" (TILE_GROUP×TILE_GROUP tiles) → JS text. */
  files: Map<string, string>;
  /** Tiles written, "tx_ty". */
  tiles: string[];
  /** Tiles holding a differing pixel but left out by the byte budget. */
  leftOut: number;
  bytes: number;
}

/** [R] Tiles per file side: one file carries 4×4 tiles (1024² px), so a 4096² report writes 16 files, not 256. */
export const TILE_GROUP = 4;

/** The full-resolution tiles (see the header for the payload and the budget). */
export function viewerTiles(
  gen: Uint16Array,
  ref: Uint16Array,
  columns: number,
  rows: number,
  stageOf: Uint8Array | null,
  budget = TILE_BUDGET_BYTES,
  diff: Int32Array = differingIndices(gen, ref),
): TileSet {
  const tx = Math.ceil(columns / TILE);
  const ty = Math.ceil(rows / TILE);
  const maxOf = new Int32Array(tx * ty);
  for (let n = 0; n < diff.length; n++) {
    const k = diff[n];
    const b = ((((k / columns) | 0) / TILE) | 0) * tx + (((k % columns) / TILE) | 0);
    const a = Math.abs(gen[k] - ref[k]);
    if (a > maxOf[b]) maxOf[b] = a;
  }
  const cand: { x: number; y: number; m: number }[] = [];
  for (let y = 0; y < ty; y++) for (let x = 0; x < tx; x++) cand.push({ x, y, m: maxOf[y * tx + x] });
  cand.sort((a, b) => b.m - a.m || a.y - b.y || a.x - b.x);
  const parts = new Map<string, string[]>();
  const tiles: string[] = [];
  let bytes = 0;
  let leftOut = 0;
  for (const c of cand) {
    const w = Math.min(TILE, columns - c.x * TILE);
    const h = Math.min(TILE, rows - c.y * TILE);
    const planes = stageOf ? 5 : 4;
    const raw = new Uint8Array(w * h * planes);
    const r = new Uint16Array(w * h);
    const d = new Uint16Array(w * h);
    for (let j = 0; j < h; j++) {
      const k0 = (c.y * TILE + j) * columns + c.x * TILE;
      r.set(ref.subarray(k0, k0 + w), j * w);
      if (c.m > 0) for (let i = 0; i < w; i++) d[j * w + i] = (gen[k0 + i] - ref[k0 + i]) & 0xffff;
      if (stageOf && c.m > 0) raw.set(stageOf.subarray(k0, k0 + w), 4 * w * h + j * w);
    }
    predictPlanes(r, w, h, raw, 0);
    if (c.m > 0) predictPlanes(d, w, h, raw, 2 * w * h);
    const key = `${c.x}_${c.y}`;
    const js = `HB_TILE(${JSON.stringify(key)},${w},${h},"${deflateSync(raw, { level: 1 }).toString('base64')}");\n`;
    if (bytes + js.length > budget) {
      if (c.m > 0) leftOut++;
      continue;
    }
    bytes += js.length;
    tiles.push(key);
    const g = `${(c.x / TILE_GROUP) | 0}_${(c.y / TILE_GROUP) | 0}`;
    const list = parts.get(g) ?? [];
    list.push(js);
    parts.set(g, list);
  }
  const files = new Map([...parts.entries()].sort((a, b) => (a[0] < b[0] ? -1 : 1)).map(([k, v]) => [k, v.join('')] as [string, string]));
  return { files, tiles, leftOut, bytes };
}

/** Per pixel (row-major), 1 + the first divergent stage's index of a differing pixel, 0 elsewhere. */
export function stageIndexField(ps: PixelStages, n: number): Uint8Array {
  const out = new Uint8Array(n);
  for (let k = 0; k < ps.index.length; k++) out[ps.index[k]] = ps.stage[k] + 1;
  return out;
}

export interface GalleryPick {
  index: number;
  column: number;
  row: number;
  dq: number;
  gen: number;
  ref: number;
  /** Pixels in its connected group of differing pixels (0 when groups were not formed). */
  group: number;
  why: 'largest |Δq|' | 'largest group' | 'origin' | 'largest of its first stage';
}

/** Connected groups (8-neighbour) of the differing pixels `idx` (sorted row-major): a group number per entry. */
function groupsOf(idx: Int32Array, columns: number): Int32Array {
  const parent = new Int32Array(idx.length);
  for (let k = 0; k < parent.length; k++) parent[k] = k;
  const find = (k: number): number => {
    while (parent[k] !== k) {
      parent[k] = parent[parent[k]];
      k = parent[k];
    }
    return k;
  };
  const at = (v: number): number => {
    let lo = 0;
    let hi = idx.length - 1;
    while (lo <= hi) {
      const m = (lo + hi) >> 1;
      if (idx[m] === v) return m;
      if (idx[m] < v) lo = m + 1;
      else hi = m - 1;
    }
    return -1;
  };
  for (let k = 0; k < idx.length; k++) {
    const p = idx[k];
    const i = p % columns;
    // Neighbours earlier in row order: left, and the three above.
    for (const [di, dj] of [
      [-1, 0],
      [-1, -1],
      [0, -1],
      [1, -1],
    ]) {
      const ii = i + di;
      if (ii < 0 || ii >= columns) continue;
      const q = p + dj * columns + di;
      if (q < 0) continue;
      const m = at(q);
      if (m >= 0) {
        const a = find(k);
        const b = find(m);
        if (a !== b) parent[Math.max(a, b)] = Math.min(a, b);
      }
    }
  }
  for (let k = 0; k < idx.length; k++) parent[k] = find(k);
  return parent;
}

/** The gallery's pixels (header rule). */
export function galleryPicks(
  gen: Uint16Array,
  ref: Uint16Array,
  columns: number,
  rows: number,
  n = GALLERY_SIZE,
  idx: Int32Array = differingIndices(gen, ref),
  origins?: ReadonlySet<number>,
  /** Each differing pixel's first divergent stage (attribution): every stage's pixel of largest |Δq| is shown. */
  firstStage?: (k: number) => number | undefined,
): GalleryPick[] {
  const ad = (k: number) => Math.abs(gen[k] - ref[k]);
  const group = idx.length <= GROUP_LIMIT ? groupsOf(idx, columns) : null;
  const sizes = new Map<number, number>();
  if (group) for (const g of group) sizes.set(g, (sizes.get(g) ?? 0) + 1);
  const pos = new Map<number, number>();
  idx.forEach((k, m) => pos.set(k, m));
  const picks: GalleryPick[] = [];
  const taken = new Set<number>();
  const near = (k: number) => picks.some((p) => Math.abs(p.column - (k % columns)) <= CROP_RADIUS && Math.abs(p.row - ((k / columns) | 0)) <= CROP_RADIUS);
  const add = (k: number, why: GalleryPick['why']) => {
    const g = group ? group[pos.get(k) as number] : -1;
    picks.push({
      index: k,
      column: k % columns,
      row: (k / columns) | 0,
      dq: gen[k] - ref[k],
      gen: gen[k],
      ref: ref[k],
      group: group ? (sizes.get(g) ?? 0) : 0,
      why,
    });
    taken.add(g);
  };
  const byDq = Array.from(idx).sort((a, b) => ad(b) - ad(a) || a - b);
  // With origins traced (attribution through declared footprints), the pixels where a difference originates lead.
  if (origins) for (const k of byDq) if (picks.length < n && origins.has(k) && !near(k)) add(k, 'origin');
  // [R] Then every first divergent stage's pixel of largest |Δq|: a stage whose pixels differ less than another's is
  //     still found in the gallery.
  if (firstStage) {
    const seen = new Set<number>();
    for (const k of byDq) {
      const st = firstStage(k);
      if (st === undefined || seen.has(st)) continue;
      seen.add(st);
      if (picks.length < n && !picks.some((p) => p.index === k)) add(k, 'largest of its first stage');
    }
  }
  const half = Math.ceil(n / 2);
  let q = 0;
  for (; q < byDq.length && picks.length < half; q++) if (!near(byDq[q])) add(byDq[q], 'largest |Δq|');
  if (group) {
    // Per group, its pixel of largest |Δq| (first in row order on ties); groups by size, then by that |Δq|.
    const rep = new Map<number, number>();
    group.forEach((g, m) => {
      const k = idx[m];
      const r = rep.get(g);
      if (r === undefined || ad(k) > ad(r)) rep.set(g, k);
    });
    const order = [...rep.entries()].sort((a, b) => (sizes.get(b[0]) ?? 0) - (sizes.get(a[0]) ?? 0) || ad(b[1]) - ad(a[1]) || a[1] - b[1]);
    for (const [g, k] of order) {
      if (picks.length >= n) break;
      if (!taken.has(g) && !near(k)) add(k, 'largest group');
    }
  }
  for (; q < byDq.length && picks.length < n; q++) if (!near(byDq[q])) add(byDq[q], 'largest |Δq|');
  return picks;
}

/** One layer of a gallery crop: a name and, per side, a function giving metres at a world position (NaN outside). */
export interface CropLayer {
  name: string;
  kind: 'codes' | 'mm';
  gen: Float32Array;
  ref: Float32Array;
}

/** Samples a field at the world positions of a (2R+1)² crop north-up around world (x, y), nearest pixel; NaN outside. */
export function cropAt(values: ArrayLike<number>, grid: GridDescription, x: number, y: number, R = CROP_RADIUS): Float32Array {
  const n = 2 * R + 1;
  const out = new Float32Array(n * n).fill(Number.NaN);
  const dx = grid.sizeX / grid.columns;
  const dy = grid.sizeY / grid.rows;
  for (let b = 0; b < n; b++)
    for (let a = 0; a < n; a++) {
      const i = Math.round(worldToColumn(grid, x + (a - R) * dx));
      const j = Math.round(worldToRow(grid, y + (R - b) * dy));
      if (i >= 0 && j >= 0 && i < grid.columns && j < grid.rows) out[b * n + a] = values[j * grid.columns + i];
    }
  return out;
}

/** World position of a final pixel. */
export function pixelWorld(grid: GridDescription, column: number, row: number): [number, number] {
  return [columnWorldX(grid, column), rowWorldY(grid, row)];
}

/** The final layer of a crop, in metres from the codes. */
export function codeCrop(codes: Uint16Array, grid: GridDescription, range: HeightRange, x: number, y: number): Float32Array {
  const c = cropAt(codes, grid, x, y);
  for (let k = 0; k < c.length; k++) if (c[k] === c[k]) c[k] = decodeHeightR16(c[k], range);
  return c;
}

/**
 * A gallery card's picture: one row per layer (stages in pipeline order, then final), three crops per row —
 * generated, reference (one terrain scale per row, from both crops), difference (Δq on the code scale for the final
 * row, mm on the stage scale otherwise) — each pixel drawn `zoom`×`zoom`, the centre pixel framed in black.
 */
export function cropCardPng(layers: readonly CropLayer[], mmPerCode: number, zoom = 5, R = CROP_RADIUS): Uint8Array {
  const n = 2 * R + 1;
  const cell = n * zoom;
  const gap = 6;
  const img = new RgbImage(3 * cell + 2 * gap, layers.length * (cell + gap) - gap);
  layers.forEach((L, row) => {
    let lo = Infinity;
    let hi = -Infinity;
    for (const v of [L.gen, L.ref])
      for (const x of v)
        if (x === x) {
          lo = Math.min(lo, x);
          hi = Math.max(hi, x);
        }
    const span = hi > lo ? hi - lo : 1;
    const y0 = row * (cell + gap);
    const draw = (col: number, colour: (k: number) => Rgb) => {
      const x0 = col * (cell + gap);
      for (let b = 0; b < n; b++) for (let a = 0; a < n; a++) img.rect(x0 + a * zoom, y0 + b * zoom, zoom, zoom, colour(b * n + a));
      // Frame around the centre pixel.
      const cx = x0 + R * zoom - 1;
      const cy = y0 + R * zoom - 1;
      for (let t = 0; t < zoom + 2; t++) {
        img.set(cx + t, cy, [0, 0, 0]);
        img.set(cx + t, cy + zoom + 1, [0, 0, 0]);
        img.set(cx, cy + t, [0, 0, 0]);
        img.set(cx + zoom + 1, cy + t, [0, 0, 0]);
      }
    };
    const grey: Rgb = [200, 200, 200];
    draw(0, (k) => (L.gen[k] === L.gen[k] ? terrain((L.gen[k] - lo) / span) : grey));
    draw(1, (k) => (L.ref[k] === L.ref[k] ? terrain((L.ref[k] - lo) / span) : grey));
    draw(2, (k) => {
      const d = L.gen[k] - L.ref[k];
      if (d !== d) return grey;
      return L.kind === 'codes' ? dqColour(Math.round((d * 1000) / mmPerCode)) : mmColour(d * 1000, mmPerCode);
    });
  });
  return img.png();
}

/** A stage difference map in mm (generated − reference), signed block maximum to at most OVERVIEW_MAX a side. */
export function stageMapPng(gen: Float32Array, ref: Float32Array, grid: GridDescription, mmPerCode: number): Uint8Array {
  const f = overviewFactor(grid.columns, grid.rows);
  const b = signedBlockMaxOfDifference(gen, ref, grid.columns, grid.rows, f, 1000);
  // Every block whose colour is not the zero colour is ringed, so a lone differing pixel shows at every zoom.
  const white = (c: Rgb) => c[0] === 255 && c[1] === 255 && c[2] === 255;
  return ringedPng(
    b.data,
    b.w,
    b.h,
    (v) => mmColour(v, mmPerCode),
    (v) => !white(mmColour(v, mmPerCode)),
    grid.rowDirection === 'row0-at-ymin',
  );
}
