/**
 * The comparison report folder: `index.html` (offline; the viewer drawn first, Plotly loaded after it from one shared
 * plotly.min.js or inlined), `summary.md` (summary.ts), `metrics.json` (metrics.ts: every number the page shows, marked
 * data-metric there), `histogram.json` / `radial.json` (DVC plot data) and pictures: `diffmap.png` (the 512² overview:
 * per block the signed Δq of largest magnitude on the fixed Δq scale — |Δq| when a side is float), `heightmaps.png`,
 * `viewer/*.js` (full-resolution tiles), `gallery/N.png` (worst pixels, crops of every layer), and with `check`:
 * `stages/S.png` (stage differences in mm, report-stages.ts) and `first-divergence.png`. Every Plotly figure has a
 * title, axis names with units and a colour bar where colour carries a value. Every file is written atomically.
 */
import { existsSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { mkdirTree } from '../io/fs-ops.js';
import { createRequire } from 'node:module';
import { dirname, join, relative, sep } from 'node:path';
import { sampleBilinear } from '../core/sampling.js';
import { columnWorldX, rowWorldY, worldToColumn, worldToRow } from '../core/grid.js';
import type { Heightfield } from '../core/heightfield.js';
import { decodeHeightR16 } from '../core/encoding.js';
import { escapeHtml, safeUrl } from '../core/html.js';
import { copyFileAtomic, ensureSharedCopy, writeFileAtomic } from '../io/atomic.js';
import {
  DQ_NEGATIVE_BANDS,
  DQ_NEGATIVE_RAMP,
  DQ_POSITIVE_BANDS,
  DQ_POSITIVE_RAMP,
  DQ_RAMP_FROM,
  DQ_RAMP_TO,
  DQ_ZERO,
  colourAt,
  downsampleMean,
  dqColour,
  dqRampT,
  mmColour,
  sideBySidePng,
  signedBlockMax,
  terrain,
  type Rgb,
} from './pictures.js';
import {
  CROP_RADIUS,
  TILE_BUDGET_BYTES,
  OVERVIEW_MAX,
  TILE,
  TILE_GROUP,
  blockDqMap,
  blockPng,
  displayCodes,
  firstDivergenceMap,
  markPng,
  overviewCodes,
  overviewFactor,
  packBytes,
  packCodes,
  stageColour,
  stageIndexField,
  viewerTiles,
  type GalleryPick,
} from './report-maps.js';
import { foldHistogram } from '../compare/histogram-fold.js';
import type { PixelStages } from '../compare/attribution.js';
import type { ComparisonResult } from '../compare/compare.js';
import { SEED_PIPELINE } from '../pipelines/seed.js';
import { markdownToHtml, stripMarks } from './markdown.js';
import { flattenMetrics, pageMetrics } from './metrics.js';
import type { ReportMeta } from './report-meta.js';
import { ReportStages } from './report-stages.js';
import { boundSummary, summaryLines } from './summary-markdown.js';
import { PAGE_CSS } from './page-style.js';

export type { ReportMeta };

function finiteOrNull(v: number): number | null {
  return Number.isFinite(v) ? v : null;
}

/** Heights in metres of a field at a world position (bilinear on codes or floats; display use). */
function heightAt(f: Heightfield, x: number, y: number): number {
  const g = f.grid;
  const i = worldToColumn(g, x);
  const j = worldToRow(g, y);
  if (f.kind === 'float') return sampleBilinear(f.height_px, g.columns, g.rows, i, j);
  const q = sampleBilinear(f.code_px, g.columns, g.rows, i, j);
  return decodeHeightR16(q, f.range);
}

function displayHeights(f: Heightfield, factor: number): { data: Float32Array; w: number; h: number } {
  const g = f.grid;
  if (f.kind === 'float') return downsampleMean(f.height_px, g.columns, g.rows, factor);
  const d = downsampleMean(f.code_px, g.columns, g.rows, factor);
  for (let k = 0; k < d.data.length; k++) d.data[k] = decodeHeightR16(d.data[k], f.range);
  return d;
}

export function plotlyPath(): string {
  return createRequire(import.meta.url).resolve('plotly.js-dist-min/plotly.min.js');
}

/**
 * Per block of `size`×`size` pixels, the signed Δq = generated − reference of largest magnitude (a tie between +k and
 * −k keeps the first in row order). Both sides must be 16-bit codes on one grid (the caller checks). Display only: the
 * statistics come from the full-resolution comparison.
 */
export function signedBlockDq(
  gen: Uint16Array,
  ref: Uint16Array,
  columns: number,
  rows: number,
  size: number,
): { data: Float32Array; columns: number; rows: number } {
  const bw = Math.ceil(columns / size);
  const bh = Math.ceil(rows / size);
  const data = new Float32Array(bw * bh);
  for (let j = 0; j < rows; j++) {
    const brow = ((j / size) | 0) * bw;
    const o = j * columns;
    for (let i = 0; i < columns; i++) {
      const d = gen[o + i] - ref[o + i];
      const b = brow + ((i / size) | 0);
      if (Math.abs(d) > Math.abs(data[b])) data[b] = d;
    }
  }
  return { data, columns: bw, rows: bh };
}

/** A vertical exaggeration of 1, 2 or 5 × 10^k that brings a relief of `relief` metres over `width` metres to about `target` of the width. */
export function verticalExaggeration(relief: number, width: number, target = 0.3): number {
  if (!(relief > 0)) return 1;
  const want = (target * width) / relief;
  if (want <= 1) return 1;
  const p = 10 ** Math.floor(Math.log10(want));
  for (const m of [5, 2, 1]) if (m * p <= want) return m * p;
  return p;
}

/** Base64 of a typed array's bytes (little-endian, as every platform the page runs on). */
function b64(a: ArrayBufferView): string {
  return Buffer.from(a.buffer, a.byteOffset, a.byteLength).toString('base64');
}

/** The Δq colours of the page as a table: entry d + A is the colour of Δq = d, |d| ≤ A (one source: dqColour). */
function dqLut(A: number): string {
  const out = new Uint8Array((2 * A + 1) * 3);
  for (let d = -A; d <= A; d++) out.set(dqColour(d), (d + A) * 3);
  return b64(out);
}

/** The Δq legend: swatches for −3 … +3 and the log ramps with ticks at 4, 10, 100, 1000, 10000, 65535 (HTML). */
function dqLegend(maxAbs: number): string {
  const sw = (d: number) => {
    const [r, g, b] = dqColour(d);
    return `<span class="sw" data-dq="${d}" style="background:rgb(${r},${g},${b})"></span>${d > 0 ? '+' : ''}${d}`;
  };
  const ramp = (sign: 1 | -1) => {
    const stops = Array.from({ length: 11 }, (_, k) => {
      const a = Math.round(DQ_RAMP_FROM * (DQ_RAMP_TO / DQ_RAMP_FROM) ** (k / 10));
      const [r, g, b] = dqColour(sign * a);
      return `rgb(${r},${g},${b}) ${k * 10}%`;
    });
    // The negative ramp runs from −65535 (left) to −4 (beside the bands), the positive one from +4 to +65535.
    const ticks = [4, 10, 100, 1000, 10000, 65535]
      .map((t) => `<span style="left:${((sign > 0 ? dqRampT(t) : 1 - dqRampT(t)) * 100).toFixed(1)}%">${sign > 0 ? '+' : '−'}${t}</span>`)
      .join('');
    return `<span class="ramp" style="background:linear-gradient(to ${sign > 0 ? 'right' : 'left'},${stops.join(',')})">${ticks}</span>`;
  };
  return `<div class="legend" id="dq-legend"><b>Δq (codes):</b> ${ramp(-1)} ${[-3, -2, -1, 0, 1, 2, 3].map(sw).join(' ')} ${ramp(1)}
<span class="note">white: equal; ±1, ±2, ±3: one colour each; |Δq| ≥ 4: logarithmic ramp 4 … 65535 (fixed, not set by this map's maximum ${maxAbs}).</span></div>`;
}

/** The stage-difference legend (mm): the same colours by band. */
function mmLegend(mmPerCode: number): string {
  const sw = (mm: number, label: string) => {
    const [r, g, b] = mmColour(mm, mmPerCode);
    return `<span class="sw" style="background:rgb(${r},${g},${b})"></span>${escapeHtml(label)}`;
  };
  const c = mmPerCode.toFixed(2);
  return `<div class="legend"><b>Δ (mm):</b> ${sw(-2 * mmPerCode, `< −${c}`)} ${sw(-2, `−${c} … −1`)} ${sw(-0.5, '−1 … −0.1')} ${sw(-0.05, '−0.1 … −0.01')} ${sw(0, '|Δ| ≤ 0.01 (equal)')}
${sw(0.05, '0.01 … 0.1')} ${sw(0.5, '0.1 … 1')} ${sw(2, `1 … ${c}`)} ${sw(2 * mmPerCode, `> ${c}`)} <span class="note">beyond one code (${c} mm): the Δq scale's log ramp in codes.</span></div>`;
}

export function writeComparisonReport(dir: string, r: ComparisonResult, gen: Heightfield, ref: Heightfield, meta: ReportMeta): string[] {
  // Found before anything is written: a missing Plotly must not leave a report folder without its page.
  const plotlyFile = plotlyPath();
  mkdirTree(dir);
  const written: string[] = [];
  const pictures = new Map<string, Uint8Array>();
  const put = (name: string, data: string | Uint8Array) => {
    mkdirTree(dirname(join(dir, name)));
    writeFileAtomic(join(dir, name), data);
    written.push(join(dir, name));
    if (typeof data !== 'string' && name.endsWith('.png')) pictures.set(name, data);
  };
  // --self-contained: the page's pictures as data URIs, so the one file shows them; otherwise the files beside it.
  const picture = (name: string) => {
    const png = meta.selfContained ? pictures.get(name) : undefined;
    return png ? `data:image/png;base64,${Buffer.from(png).toString('base64')}` : name;
  };
  const g = r.grid;
  const row0AtBottom = g.rowDirection === 'row0-at-ymin';
  const genCodes = displayCodes(gen, r.range);
  const refCodes = displayCodes(ref, r.range);
  const signed = gen.kind === 'codes' && ref.kind === 'codes';
  const stagesOut = meta.reportStages ?? new ReportStages(r, genCodes, refCodes);
  const cards = stagesOut.cards();

  // One source of counts: metrics.json holds every number the page shows (extra keys: the headline's and check's).
  const flat = { ...flattenMetrics(r), ...(meta.extraMetrics ?? {}) };
  Object.assign(flat, pageMetrics(r, meta));
  put('metrics.json', `${JSON.stringify(flat, null, 2)}\n`);
  const lines = summaryLines(r, meta);
  put('summary.md', boundSummary(stripMarks(`${lines.join('\n')}\n`)));
  put(
    'histogram.json',
    `${JSON.stringify(
      Object.entries(r.histogram)
        .map(([d, c]) => ({ dq: Number(d), count: c }))
        .sort((a, b) => a.dq - b.dq),
      null,
      1,
    )}\n`,
  );
  put(
    'radial.json',
    `${JSON.stringify(
      r.radial.rings.map((x) => ({ r: (x.r0 + x.r1) / 2, ...x })),
      null,
      1,
    )}\n`,
  );

  // The overview: per block of f×f pixels (≤ 512 blocks a side) the signed Δq of largest magnitude — a lone ±1 is a
  // whole block — on the fixed Δq scale (|Δq| per block when a side is float: the map says so).
  const f = overviewFactor(g.columns, g.rows);
  const diff = stagesOut.diff;
  const block = blockDqMap(genCodes, refCodes, g.columns, g.rows, f, diff);
  const overviewDq = signed ? block.data : block.data.map((v) => Math.abs(v));
  put('diffmap.png', blockPng(overviewDq, block.w, block.h, dqColour, row0AtBottom));
  if (r.blocks.signedMaxM) {
    const fm = signedBlockMax(
      r.blocks.signedMaxM,
      r.blocks.columns,
      r.blocks.rows,
      Math.max(1, Math.ceil(Math.max(r.blocks.columns, r.blocks.rows) / OVERVIEW_MAX)),
    );
    put(
      'diffmap-float.png',
      blockPng(
        fm.data.map((v) => v * 1000),
        fm.w,
        fm.h,
        (v) => mmColour(v, r.metresPerCode * 1000),
        row0AtBottom,
      ),
    );
  }
  // Both maps side by side on one terrain scale, at most 1024 px a side (display only).
  const pf = Math.max(1, Math.ceil(Math.max(g.columns, g.rows) / 1024));
  const hg = displayHeights(gen, pf);
  const hr = displayHeights(ref, pf);
  let lo = Infinity;
  let hi = -Infinity;
  for (const d of [hg.data, hr.data])
    for (let k = 0; k < d.length; k++)
      if (d[k] === d[k]) {
        lo = Math.min(lo, d[k]);
        hi = Math.max(hi, d[k]);
      }
  const span = hi > lo ? hi - lo : 1;
  put(
    'heightmaps.png',
    sideBySidePng(hg.data, hr.data, hg.w, hg.h, (x) => terrain((x - lo) / span), row0AtBottom),
  );

  // First divergence (check --attribution): per block, the stage where its largest-|Δq| pixel first diverges.
  const ps = meta.stageAttribution?.pixelStages;
  if (ps) {
    const fd = firstDivergenceMap(ps, genCodes, refCodes, g.columns, g.rows, f);
    put(
      'first-divergence.png',
      markPng(fd.data, fd.w, fd.h, (k) => stageColour(k, ps.names), row0AtBottom),
    );
  }
  for (const [file, png] of stagesOut.pngs) put(file, png);

  // Full-resolution tiles for the viewer (loaded by zoom level).
  const tiles = viewerTiles(genCodes, refCodes, g.columns, g.rows, ps ? stageIndexField(ps, g.columns * g.rows) : null, TILE_BUDGET_BYTES, diff);
  for (const [key, js] of tiles.files) put(`viewer/${key}.js`, js);
  // --self-contained: the page carries the tiles too (one file to send keeps its full resolution).
  const inlineTiles = meta.selfContained
    ? [...tiles.files].map(([key, js]) => `<script id="tiles-${key}" type="text/plain">${js.replace(/<\/script/gi, '<\\/script')}</script>`).join('\n')
    : '';

  // 3D: a disk of radius 625 m about the domain centre (or the largest inside a smaller domain): the generated surface,
  // coloured by the signed Δq of largest magnitude among the pixels of each sample cell (so a lone ±1 is not sampled away).
  const cx = g.xmin + g.sizeX / 2;
  const cy = g.ymin + g.sizeY / 2;
  // Its radius is the pipeline's view3d (the seed's 625 m); a pipeline that declares none has no 3D view.
  const view3d = (meta.pipeline ?? SEED_PIPELINE).view3d;
  const R3 = Math.min(view3d?.radius ?? 625, g.sizeX / 2, g.sizeY / 2);
  const n3 = 161;
  const step3 = (2 * R3) / (n3 - 1);
  const xs3 = Array.from({ length: n3 }, (_, i) => cx - R3 + step3 * i);
  const ys3 = Array.from({ length: n3 }, (_, j) => cy - R3 + step3 * j);
  const z3 = new Float32Array(n3 * n3);
  const c3 = new Float32Array(n3 * n3);
  for (let j = 0; j < n3; j++)
    for (let i = 0; i < n3; i++) z3[j * n3 + i] = (xs3[i] - cx) ** 2 + (ys3[j] - cy) ** 2 <= R3 * R3 ? heightAt(gen, xs3[i], ys3[j]) : Number.NaN;
  for (let n = 0; n < diff.length; n++) {
    const k = diff[n];
    const b = Math.round((rowWorldY(g, (k / g.columns) | 0) - (cy - R3)) / step3);
    const a = Math.round((columnWorldX(g, k % g.columns) - (cx - R3)) / step3);
    if (b < 0 || b >= n3 || a < 0 || a >= n3) continue;
    const d = genCodes[k] - refCodes[k];
    if (Math.abs(d) > Math.abs(c3[b * n3 + a])) c3[b * n3 + a] = d;
  }
  let zlo = Infinity;
  let zhi = -Infinity;
  for (let k = 0; k < z3.length; k++)
    if (z3[k] === z3[k]) {
      zlo = Math.min(zlo, z3[k]);
      zhi = Math.max(zhi, z3[k]);
    }
  const c3pos = new Float32Array(c3.length);
  for (let k = 0; k < c3.length; k++) c3pos[k] = dqScalePosition(c3[k]);

  let plotly: { src: string } | { inline: string };
  if (meta.selfContained) {
    // Inlined for sending as one file; a "</script" inside the library text would end the element early.
    plotly = { inline: readFileSync(plotlyFile, 'utf8').replace(/<\/script/gi, '<\\/script') };
  } else if (meta.sharedPlotly) {
    // One plotly.min.js shared by every report under a common folder: placed there once, linked relatively.
    ensureSharedCopy(plotlyFile, meta.sharedPlotly, '--shared-plotly');
    plotly = { src: relative(dir, meta.sharedPlotly).split(sep).join('/') };
  } else {
    copyFileAtomic(plotlyFile, join(dir, 'plotly.min.js'));
    plotly = { src: 'plotly.min.js' };
  }
  // Codes not compared (a float pair without code range): the pictures' Δq are those of the display range.
  const shownMaxCode = r.codeRange ? r.maxAbsCode : r.blocks.maxAbsCode.reduce((a, b) => Math.max(a, b), 0);
  const A = Math.max(3, shownMaxCode);
  let tlo = 65535;
  let thi = 0;
  for (const c of [genCodes, refCodes])
    for (let k = 0; k < c.length; k++) {
      const v = c[k];
      if (v < tlo) tlo = v;
      if (v > thi) thi = v;
    }
  const terrainLut = new Uint8Array(256 * 3);
  for (let k = 0; k < 256; k++) terrainLut.set(terrain(k / 255), k * 3);
  const hist = foldHistogram(r.histogram);
  const data = {
    title: meta.title ?? 'Comparison',
    viewer: {
      W: g.columns,
      H: g.rows,
      f,
      ow: block.w,
      oh: block.h,
      block: packBytes(overviewDq),
      ogen: packCodes(overviewCodes(genCodes, g.columns, g.rows, f), block.w, block.h),
      oref: packCodes(overviewCodes(refCodes, g.columns, g.rows, f), block.w, block.h),
      tile: TILE,
      tiles: tiles.tiles,
      group: TILE_GROUP,
      tilesLeftOut: tiles.leftOut,
      lut: dqLut(A),
      lutA: A,
      terrain: b64(terrainLut),
      codeLo: tlo,
      codeHi: thi,
      x0: columnWorldX(g, 0),
      dx: g.columns > 1 ? columnWorldX(g, 1) - columnWorldX(g, 0) : 1,
      y0: rowWorldY(g, 0),
      dy: g.rows > 1 ? rowWorldY(g, 1) - rowWorldY(g, 0) : 1,
      row0AtBottom,
      range: r.range,
      signed,
      stageNames: ps?.names ?? [],
      maxAt: (r.codeRange ? r.maxAbsCodeAt : r.floatMaxAbsAt)?.pixel ?? null,
      outliers: outlierPixels(genCodes, refCodes, g.columns, diff),
    },
    hist: {
      bins: hist.bins.map((b) => [b.dq, b.count]),
      below: hist.below,
      above: hist.above,
      limit: hist.limit,
    },
    radial: r.radial.rings.map((x) => [(x.r0 + x.r1) / 2, finiteOrNull(x.rmsMm), finiteOrNull(x.maxAbsMm), x.floatRmsMm ?? null]),
    radialStep: r.radial.step,
    disk: {
      x: xs3,
      y: ys3,
      z: { dtype: 'f4', bdata: b64(z3), shape: `${n3},${n3}` },
      c: { dtype: 'f4', bdata: b64(c3pos), shape: `${n3},${n3}` },
      dq: { dtype: 'f4', bdata: b64(c3), shape: `${n3},${n3}` },
      colorscale: dqPlotlyScale(),
      ticks: dqScaleTicks(shownMaxCode),
      zmin: zlo,
      zmax: zhi,
      radius: R3,
      spacing: step3,
      exaggeration: verticalExaggeration(zhi - zlo, 2 * R3),
    },
  };
  const extras: PageExtras = {
    differingPixels: stagesOut.diff.length,
    disk3d: view3d !== undefined,
    legend: dqLegend(shownMaxCode),
    mmLegend: mmLegend(r.metresPerCode * 1000),
    stageMaps: stagesOut.stageMaps,
    firstDivergence: ps
      ? ps.names.map((n, k) => ({ name: n, colour: stageColour(k, ps.names) })).filter((x) => (meta.stageAttribution?.byStage[x.name] ?? 0) > 0)
      : null,
    cards,
    stageNames: ps?.names ?? null,
    pixelStages: ps ?? null,
    tilesWritten: tiles.tiles.length,
    tilesLeftOut: tiles.leftOut,
    inlineTiles,
    picture,
    floatSide: !signed,
  };
  // The page: the headline and the scope table, then the viewer; the stage table with its maps; the rest of the summary.
  const cut = (from: number, heading: string) => {
    const k = lines.findIndex((l, i) => i >= from && l === heading);
    return k < 0 ? lines.length : k;
  };
  const stagesAt = cut(0, '## Stages');
  const firstHeading = Math.min(stagesAt, cut(0, '## Stage attribution'), lines.length);
  const afterStages = stagesAt < lines.length ? cut(stagesAt, '## Stage attribution') : firstHeading;
  const body = {
    head: markdownToHtml(lines.slice(0, firstHeading).join('\n')),
    stages: markdownToHtml(lines.slice(firstHeading, afterStages).join('\n')),
    rest: markdownToHtml(lines.slice(afterStages).join('\n')),
  };
  put('index.html', reportHtml(data, body, plotly, extras));
  // A report written again into the same folder: the tiles, cards and stage maps of the earlier one that this one did
  // not write are removed (the page lists only its own; stale files would only mislead someone reading the folder).
  const mine = new Set(written);
  for (const [sub, ext] of [
    ['viewer', '.js'],
    ['gallery', '.png'],
    ['stages', '.png'],
  ] as const) {
    const d = join(dir, sub);
    if (!existsSync(d)) continue;
    for (const f of readdirSync(d)) if (f.endsWith(ext) && !mine.has(join(d, f))) rmSync(join(d, f), { force: true });
  }
  if (!ps && existsSync(join(dir, 'first-divergence.png'))) rmSync(join(dir, 'first-divergence.png'), { force: true });
  if (!meta.sharedPlotly && !meta.selfContained) written.push(join(dir, 'plotly.min.js'));
  return written;
}

/** What a comparison report writes that an earlier report in the same folder may have left (never carried over). */
export const REPORT_OWNED_NAMES: readonly string[] = Object.freeze(['viewer', 'gallery', 'stages', 'first-divergence.png']);

/** [R] Up to 200 pixels of |Δq| ≥ 4 (largest first) the viewer rings while zoomed out. */
function outlierPixels(gen: Uint16Array, ref: Uint16Array, columns: number, diff: Int32Array): [number, number][] {
  const out: { k: number; a: number }[] = [];
  for (const k of diff) {
    const d = gen[k] - ref[k];
    if (d >= 4 || d <= -4) out.push({ k, a: Math.abs(d) });
  }
  out.sort((x, y) => y.a - x.a || x.k - y.k);
  return out.slice(0, 200).map(({ k }) => [k % columns, (k / columns) | 0]);
}

/**
 * The Δq scale as one coordinate for Plotly (3D colour): 0 ↦ 0, ±1, ±2, ±3 ↦ ±1/8, ±2/8, ±3/8 (bands of width 1/8),
 * |Δq| ≥ 4 ↦ ±(3.5 + 4.5·t)/8 with t the log-ramp position — a colorscale with sharp band edges maps it to the colours
 * of dqColour.
 */
export function dqScalePosition(dq: number): number {
  const a = Math.abs(Math.round(dq));
  if (a === 0) return 0;
  const p = a <= 3 ? a / 8 : (3.5 + 4.5 * dqRampT(a)) / 8;
  return dq > 0 ? p : -p;
}
/** The Δq colours as a Plotly colorscale over dqScalePosition (for any Plotly figure that shows Δq, e.g. the notebooks). */
export function dqPlotlyScale(): [number, string][] {
  const out: [number, string][] = [];
  const at = (pos: number, c: Rgb) => out.push([(pos + 1) / 2, `rgb(${c[0]},${c[1]},${c[2]})`]);
  for (let k = 10; k >= 0; k--) at(-(3.5 + 4.5 * (k / 10)) / 8, colourAt(DQ_NEGATIVE_RAMP, k / 10));
  for (const a of [3, 2, 1]) {
    at(-(a + 0.5) / 8, DQ_NEGATIVE_BANDS[a - 1]);
    at(-(a - 0.5) / 8, DQ_NEGATIVE_BANDS[a - 1]);
  }
  at(-0.5 / 8, DQ_ZERO);
  at(0.5 / 8, DQ_ZERO);
  for (const a of [1, 2, 3]) {
    at((a - 0.5) / 8, DQ_POSITIVE_BANDS[a - 1]);
    at((a + 0.5) / 8, DQ_POSITIVE_BANDS[a - 1]);
  }
  for (let k = 0; k <= 10; k++) at((3.5 + 4.5 * (k / 10)) / 8, colourAt(DQ_POSITIVE_RAMP, k / 10));
  // Plotly wants strictly non-decreasing positions from 0 to 1.
  out[0][0] = 0;
  out[out.length - 1][0] = 1;
  return out;
}
/** Colour-bar ticks (positions and labels) of the Δq scale up to a maximum. */
export function dqScaleTicks(maxAbs: number): { vals: number[]; text: string[] } {
  const t = [-65535, -1000, -100, -10, -3, -2, -1, 0, 1, 2, 3, 10, 100, 1000, 65535].filter((d) => Math.abs(d) <= Math.max(3, maxAbs) || Math.abs(d) <= 3);
  return { vals: t.map(dqScalePosition), text: t.map((d) => (d > 0 ? `+${d}` : String(d))) };
}

interface PageExtras {
  /** Final pixels whose codes differ (the gallery says how many it leaves out). */
  differingPixels: number;
  /** Whether the page has the 3D view (the pipeline declares one). */
  disk3d: boolean;
  legend: string;
  mmLegend: string;
  stageMaps: { stage: string; file: string }[];
  firstDivergence: { name: string; colour: Rgb }[] | null;
  cards: { pick: GalleryPick; file: string; layers: string[] }[];
  stageNames: string[] | null;
  pixelStages: PixelStages | null;
  tilesWritten: number;
  tilesLeftOut: number;
  /** Tile files as inline text elements (--self-contained), else ''. */
  inlineTiles: string;
  /** The src of a picture of the report (a data URI when --self-contained). */
  picture: (name: string) => string;
  floatSide: boolean;
}

/** The first divergent stage and class of a final pixel, from the stage attribution (binary search in its sorted indices). */
function pixelClass(ps: PixelStages | null, index: number): { stage: string; cls: string } | null {
  if (!ps) return null;
  let lo = 0;
  let hi = ps.index.length - 1;
  while (lo <= hi) {
    const m = (lo + hi) >> 1;
    if (ps.index[m] === index) return { stage: ps.names[ps.stage[m]], cls: ps.straddle[m] ? 'near-tie (|Δq| = 1, pre-encode within one code)' : 'deviation' };
    if (ps.index[m] < index) lo = m + 1;
    else hi = m - 1;
  }
  return null;
}

function galleryHtml(x: PageExtras): string {
  if (!x.cards.length) return '<p class="note">No pixel differs: the gallery is empty.</p>';
  return x.cards
    .map((c, k) => {
      const p = c.pick;
      const a = pixelClass(x.pixelStages, p.index);
      const cls = a
        ? `first diverges ${a.stage === 'final-only' ? 'only at the encode' : a.stage === 'outside-window' ? 'outside the dumped window' : `in <b>${escapeHtml(a.stage)}</b>`}; class: ${escapeHtml(a.cls)}`
        : 'first divergent stage: not known here (stage attribution comes with check --attribution)';
      return `<figure class="card" data-pixel="${p.column},${p.row}" data-dq="${p.dq}" data-gen="${p.gen}" data-ref="${p.ref}"><figcaption><b>#${k + 1}</b> (${escapeHtml(p.why)}) pixel (${p.column}, ${p.row}):
Δq = ${p.dq > 0 ? '+' : ''}${p.dq} (generated ${p.gen}, reference ${p.ref})${p.group ? `, group of ${p.group} px` : ''}<br>${cls}
<br><a href="#viewer" data-goto="${p.column},${p.row}">show in the viewer</a></figcaption>
<div class="cardrow"><img src="${safeUrl(x.picture(c.file))}" alt="crops around pixel ${p.column}, ${p.row}"><div class="layers">${c.layers.map((l) => `<span>${escapeHtml(l)}</span>`).join('')}</div></div></figure>`;
    })
    .join('\n');
}

/** The in-page viewer: canvases, linked pan and zoom, tiles loaded by zoom level, hover read-out (no library, offline). */
const VIEWER_JS = String.raw`
(async () => {
const V = D.viewer;
const u8 = (s) => Uint8Array.from(atob(s), (c) => c.charCodeAt(0));
const inflate = async (s) => new Uint8Array(await new Response(new Blob([u8(s)]).stream().pipeThrough(new DecompressionStream('deflate'))).arrayBuffer());
const lut = u8(V.lut), ter = u8(V.terrain);
const block = new Int32Array((await inflate(V.block)).buffer), ogen = unpredict(await inflate(V.ogen), 0, V.ow, V.oh), oref = unpredict(await inflate(V.oref), 0, V.ow, V.oh);
const T = V.tile, have = new Set(V.tiles), tiles = new Map(), asked = new Set();
const outliers = V.outliers;
const ids = ['vdiff', 'vgen', 'vref'];
const cv = ids.map((id) => document.getElementById(id));
const N = cv[0].width;
// View: map pixel column i and display row r (0 = top = north) at screen (sx, sy) = ((i - x) * s, (r - y) * s).
let view = {x: 0, y: 0, s: N / Math.max(V.W, V.H)}, hover = null, blinkOn = false, blinkRef = false, pending = 0;
const dataRow = (r) => V.row0AtBottom ? V.H - 1 - r : r;
function values(i, j) {
  const t = tiles.get((i / T | 0) + '_' + (j / T | 0));
  if (t) { const k = (j % T) * t.w + (i % T); return {full: true, ref: t.ref[k], gen: (t.ref[k] + t.d[k]) & 65535, st: t.st[k]}; }
  const b = (j / V.f | 0) * V.ow + (i / V.f | 0);
  return {full: false, block: block[b], ogen: ogen[b], oref: oref[b]};
}
function dqRgb(d) { const k = (Math.max(-V.lutA, Math.min(V.lutA, d)) + V.lutA) * 3; return [lut[k], lut[k + 1], lut[k + 2]]; }
function hRgb(q) { const t = hhi > hlo ? (q - hlo) / (hhi - hlo) : 0.5; const k = Math.max(0, Math.min(255, Math.round(t * 255))) * 3; return [ter[k], ter[k + 1], ter[k + 2]]; }
let hlo = V.codeLo, hhi = V.codeHi;
function draw() {
  // Zoomed in, the terrain scale spans the heights in view (both panels on one scale); zoomed out, the whole map's.
  hlo = V.codeLo; hhi = V.codeHi;
  if (view.s >= 0.5) {
    let a = 65535, b = 0;
    for (let sy = 0; sy < N; sy += 4) { const r = Math.floor(view.y + (sy + 0.5) / view.s); if (r < 0 || r >= V.H) continue;
      for (let sx = 0; sx < N; sx += 4) { const i = Math.floor(view.x + (sx + 0.5) / view.s); if (i < 0 || i >= V.W) continue;
        const v = values(i, dataRow(r)); for (const q of v.full ? [v.gen, v.ref] : [v.ogen, v.oref]) { if (q < a) a = q; if (q > b) b = q; } } }
    if (b > a) { hlo = a; hhi = b; }
  }
  // A screen pixel wider than a block: the largest |Δq| of every block it covers (no difference is skipped).
  const pool = 1 / view.s / V.f;
  const pooled = (i, r) => {
    const b0 = (i / V.f | 0), b1 = Math.min(V.ow - 1, ((i + 1 / view.s) / V.f | 0));
    const j0 = dataRow(r), j1 = dataRow(Math.min(V.H - 1, Math.floor(r + 1 / view.s)));
    const c0 = Math.min(j0, j1) / V.f | 0, c1 = Math.min(V.oh - 1, Math.max(j0, j1) / V.f | 0);
    let m = 0;
    for (let bj = c0; bj <= c1; bj++) for (let bi = b0; bi <= b1; bi++) { const d = block[bj * V.ow + bi]; if (Math.abs(d) > Math.abs(m)) m = d; }
    return m;
  };
  for (let c = 0; c < 3; c++) {
    const ctx = cv[c].getContext('2d'), img = ctx.createImageData(N, N), px = img.data;
    const which = c === 1 && blinkOn && blinkRef ? 2 : c;
    for (let sy = 0; sy < N; sy++) {
      const r = Math.floor(view.y + (sy + 0.5) / view.s);
      for (let sx = 0; sx < N; sx++) {
        const i = Math.floor(view.x + (sx + 0.5) / view.s), o = (sy * N + sx) * 4;
        let rgb = [236, 236, 236];
        if (i >= 0 && r >= 0 && i < V.W && r < V.H) {
          const v = values(i, dataRow(r));
          if (which === 0 && pool > 1) rgb = dqRgb(pooled(i, r));
          else if (which === 0) rgb = dqRgb(v.full ? (V.signed ? v.gen - v.ref : Math.abs(v.gen - v.ref)) : v.block);
          else rgb = hRgb(v.full ? (which === 1 ? v.gen : v.ref) : (which === 1 ? v.ogen : v.oref));
        }
        px[o] = rgb[0]; px[o + 1] = rgb[1]; px[o + 2] = rgb[2]; px[o + 3] = 255;
      }
    }
    ctx.putImageData(img, 0, 0);
    // Outliers (|Δq| ≥ 4) ringed on the difference panel while zoomed out, so a few dark pixels are seen at a glance.
    if (c === 0 && view.s < 2) {
      ctx.strokeStyle = '#000'; ctx.lineWidth = 1.5;
      for (const [i, j] of outliers) { const r = V.row0AtBottom ? V.H - 1 - j : j; ctx.beginPath(); ctx.arc((i + 0.5 - view.x) * view.s, (r + 0.5 - view.y) * view.s, 7, 0, 2 * Math.PI); ctx.stroke(); }
    }
    // Zoomed in (a map pixel ≥ 4 screen pixels), every differing pixel at full resolution outlined on the difference
    // panel: a difference of one code is as visible as the largest; data-marked counts the outlines drawn.
    if (c === 0) {
      let marked = 0;
      if (view.s >= 4) {
        ctx.strokeStyle = '#000'; ctx.lineWidth = 1;
        const i0 = Math.max(0, Math.floor(view.x)), i1 = Math.min(V.W - 1, Math.floor(view.x + N / view.s));
        const r0 = Math.max(0, Math.floor(view.y)), r1 = Math.min(V.H - 1, Math.floor(view.y + N / view.s));
        for (let r = r0; r <= r1; r++) for (let i = i0; i <= i1; i++) {
          const v = values(i, dataRow(r));
          if (v.full && v.gen !== v.ref) { ctx.strokeRect((i - view.x) * view.s + 0.5, (r - view.y) * view.s + 0.5, view.s - 1, view.s - 1); marked++; }
        }
      }
      cv[0].dataset.marked = String(marked);
    }
    if (hover && view.s >= 3) {
      ctx.strokeStyle = '#000'; ctx.lineWidth = 1;
      ctx.strokeRect((hover.i - view.x) * view.s - 0.5, (hover.r - view.y) * view.s - 0.5, view.s + 1, view.s + 1);
    }
    cv[c].dataset.drawn = '1';
  }
  document.getElementById('vlabel-gen').textContent = blinkOn && blinkRef ? 'reference (blink)' : 'generated';
  document.getElementById('vzoom').textContent = view.s >= 1 ? view.s.toFixed(1) + ' screen px per map pixel' : (1 / view.s).toFixed(1) + ' map pixels per screen px';
  load();
}
// Tiles at full resolution once a screen pixel covers at most two map pixels; elsewhere the overview blocks.
function load() {
  if (view.s < 0.5) return;
  const i0 = Math.max(0, Math.floor(view.x)), i1 = Math.min(V.W - 1, Math.floor(view.x + N / view.s));
  const r0 = Math.max(0, Math.floor(view.y)), r1 = Math.min(V.H - 1, Math.floor(view.y + N / view.s));
  const ja = Math.min(dataRow(r0), dataRow(r1)), jb = Math.max(dataRow(r0), dataRow(r1));
  for (let ty = ja / T | 0; ty <= (jb / T | 0); ty++)
    for (let tx = i0 / T | 0; tx <= (i1 / T | 0); tx++) {
      const key = tx + '_' + ty;
      if (!have.has(key) || asked.has(key)) continue;
      const grp = (tx / V.group | 0) + '_' + (ty / V.group | 0);
      // One file carries a group of tiles: every tile of the group is asked for at once.
      for (const t of V.tiles) { const [a, b] = t.split('_').map(Number); if ((a / V.group | 0) + '_' + (b / V.group | 0) === grp && !asked.has(t)) { asked.add(t); pending++; } }
      const el = document.createElement('script');
      // A self-contained page carries its tile files inline (as text, run only when asked for).
      const inline = document.getElementById('tiles-' + grp);
      if (inline) el.textContent = inline.textContent;
      else {
        el.src = 'viewer/' + grp + '.js';
        el.onerror = () => { pending = 0; status(); document.getElementById('vstatus').textContent = 'tiles ' + grp + ' did not load'; };
      }
      document.head.appendChild(el);
    }
  status();
}
function status() {
  document.getElementById('vstatus').textContent = view.s < 0.5 ? 'overview: block maxima of ' + V.f + '×' + V.f + ' px' : pending ? 'loading ' + pending + ' tile(s)…' : 'full resolution where a tile is written';
  document.body.dataset.viewer = pending ? 'loading' : 'ready';
}
function unpredict(b, at, w, h) {
  const n = w * h, v = new Uint16Array(n);
  for (let j = 0; j < h; j++) for (let i = 0; i < w; i++) {
    const k = j * w + i, a = i > 0 ? v[k - 1] : 0, up = j > 0 ? v[k - w] : 0, c = i > 0 && j > 0 ? v[k - w - 1] : 0;
    const p = i > 0 && j > 0 ? a + up - c : i > 0 ? a : up;
    v[k] = (p + (b[at + k] | (b[at + n + k] << 8))) & 65535;
  }
  return v;
}
window.HB_TILE = async (key, w, h, s) => {
  const raw = await inflate(s);
  tiles.set(key, {w, h, ref: unpredict(raw, 0, w, h), d: unpredict(raw, 2 * w * h, w, h), st: raw.subarray(4 * w * h)});
  pending--; draw(); if (hover) readout(hover.i, hover.r);
};
function readout(i, r) {
  const el = document.getElementById('vread');
  if (i < 0 || r < 0 || i >= V.W || r >= V.H) { el.textContent = 'outside the map'; return; }
  const j = dataRow(r), v = values(i, j);
  const x = V.x0 + i * V.dx, y = V.y0 + j * V.dy;
  const hm = (q) => (V.range.min + (q / 65535) * (V.range.max - V.range.min)).toFixed(3);
  let t = 'pixel (' + i + ', ' + j + ')  world (' + x.toFixed(2) + ', ' + y.toFixed(2) + ') m  ';
  el.dataset.pixel = i + ',' + j;
  if (v.full) {
    const d = v.gen - v.ref;
    t += 'generated ' + v.gen + ' (' + hm(v.gen) + ' m)  reference ' + v.ref + ' (' + hm(v.ref) + ' m)  Δq ' + (d > 0 ? '+' : '') + d;
    if (v.st) t += '  first diverges: ' + V.stageNames[v.st - 1];
    el.dataset.dq = String(d); el.dataset.gen = String(v.gen); el.dataset.ref = String(v.ref);
  } else {
    const kept = have.has((i / T | 0) + '_' + (j / T | 0));
    t += (kept ? 'tile loading; ' : view.s >= 0.5 ? 'tile not written (size budget); ' : '') + 'overview block of ' + V.f + '×' + V.f + ' px: largest Δq ' + v.block + ', mean height ≈ ' + hm(v.ogen) + ' m';
    delete el.dataset.dq; delete el.dataset.gen; delete el.dataset.ref;
  }
  el.textContent = t;
}
function at(e) { const b = e.target.getBoundingClientRect(); return [(e.clientX - b.left) * N / b.width, (e.clientY - b.top) * N / b.height]; }
let drag = null;
for (const c of cv) {
  c.addEventListener('wheel', (e) => {
    e.preventDefault();
    const [sx, sy] = at(e), k = e.deltaY < 0 ? 1.25 : 0.8, s = Math.max(N / Math.max(V.W, V.H) / 2, Math.min(64, view.s * k));
    view = {x: view.x + sx / view.s - sx / s, y: view.y + sy / view.s - sy / s, s}; draw();
  }, {passive: false});
  c.addEventListener('mousedown', (e) => { drag = [e.clientX, e.clientY, view.x, view.y]; });
  c.addEventListener('mousemove', (e) => {
    const [sx, sy] = at(e);
    if (drag) { const b = e.target.getBoundingClientRect(); view = {...view, x: drag[2] - (e.clientX - drag[0]) * N / b.width / view.s, y: drag[3] - (e.clientY - drag[1]) * N / b.height / view.s}; draw(); }
    hover = {i: Math.floor(view.x + sx / view.s), r: Math.floor(view.y + sy / view.s)};
    readout(hover.i, hover.r); if (view.s >= 3) draw();
  });
}
window.addEventListener('mouseup', () => { drag = null; });
function zoomTo(i, j, s) { const r = V.row0AtBottom ? V.H - 1 - j : j; view = {s, x: i + 0.5 - N / 2 / s, y: r + 0.5 - N / 2 / s}; hover = {i, r}; draw(); readout(i, r); }
document.getElementById('vreset').onclick = () => { view = {x: 0, y: 0, s: N / Math.max(V.W, V.H)}; draw(); };
document.getElementById('vmax').onclick = () => { if (V.maxAt) zoomTo(V.maxAt[0], V.maxAt[1], 24); };
document.getElementById('vblink').onchange = (e) => { blinkOn = e.target.checked; };
document.getElementById('vgo').onsubmit = (e) => { e.preventDefault(); const m = /(\d+)\D+(\d+)/.exec(document.getElementById('vpix').value); if (m) zoomTo(+m[1], +m[2], 24); };
for (const a of document.querySelectorAll('a[data-goto]')) a.addEventListener('click', () => { const [i, j] = a.dataset.goto.split(',').map(Number); zoomTo(i, j, 24); });
setInterval(() => { if (blinkOn) { blinkRef = !blinkRef; draw(); } }, 600);
window.HB = {zoomTo, get view() { return view; }, tilesLoaded: () => tiles.size};
draw();
document.body.dataset.firstDrawMs = String(Math.round(performance.now()));
setTimeout(loadPlotly, 0);
})();
`;

const PLOTS_JS = String.raw`
if (!window.Plotly) document.getElementById('plotly-missing').hidden = false;
else {
const cfg = {responsive: true, displaylogo: false};
const ttl = (t) => ({text: t, font: {size: 15}});
const H = D.hist, hx = H.bins.map((b) => String(b[0])), hy = H.bins.map((b) => b[1]);
if (H.below.count) { hx.unshift('< −' + H.limit); hy.unshift(H.below.count); }
if (H.above.count) { hx.push('> +' + H.limit); hy.push(H.above.count); }
Plotly.newPlot('hist', [{type: 'bar', x: hx, y: hy, marker: {color: '#4d4d4d'}, text: hy.map(String), textposition: 'outside', cliponaxis: false}],
  {title: ttl('Histogram of Δq = generated − reference (beyond ±' + H.limit + ' folded)'), xaxis: {title: {text: 'Δq (codes)'}, type: 'category'},
   yaxis: {title: {text: 'pixels (log scale)'}, type: 'log'}, margin: {t: 50}}, cfg);
const rr = D.radial.map(r => r[0]);
Plotly.newPlot('radial', [
  {x: rr, y: D.radial.map(r => r[1]), name: 'RMS of Δq (mm)', line: {color: '#2166ac'}},
  ...(D.radial[0][3] === null ? [] : [{x: rr, y: D.radial.map(r => r[3]), name: 'RMS of the float difference (mm)', line: {color: '#67a9cf', dash: 'dot'}}]),
  {x: rr, y: D.radial.map(r => r[2]), name: 'max |Δ| (mm)', xaxis: 'x2', yaxis: 'y2', line: {color: '#b2182b', shape: 'hv'}}],
  {title: ttl('Radial profile, ' + D.radialStep + ' m rings about the domain centre'),
   grid: {rows: 2, columns: 1, pattern: 'independent', roworder: 'top to bottom'},
   xaxis: {title: {text: ''}, matches: 'x2', showticklabels: false}, yaxis: {title: {text: 'RMS (mm)'}, rangemode: 'tozero'},
   xaxis2: {title: {text: 'radius from the domain centre (m)'}}, yaxis2: {title: {text: 'max |Δ| (mm)'}, rangemode: 'tozero'},
   legend: {orientation: 'h', y: -0.18}, margin: {t: 50}}, cfg);
`;

/** The 3D view's script (a pipeline that declares no view3d has none). */
const DISK_JS = String.raw`const K = D.disk, ex = K.exaggeration, zr = K.zmax - K.zmin || 1;
document.getElementById('dnote').textContent = 'Disk of radius ' + K.radius + ' m about the domain centre, sampled every ' + K.spacing.toFixed(2) + ' m (display only): the generated surface, coloured by the signed Δq of largest magnitude among the pixels of each sample cell, on the scale of the maps'
  + (ex > 1 ? '; heights drawn ×' + ex + ' (vertical exaggeration; the z axis is labelled in true metres).' : '; 1:1 vertical scale.');
Plotly.newPlot('d3diff', [{type: 'surface', z: K.z, x: K.x, y: K.y, surfacecolor: K.c, customdata: K.dq, cmin: -1, cmax: 1, colorscale: K.colorscale,
    colorbar: {title: {text: 'Δq (codes)'}, tickvals: K.ticks.vals, ticktext: K.ticks.text, len: 0.8, thickness: 14},
    hovertemplate: 'x %{x:.1f} m<br>y %{y:.1f} m<br>z %{z:.2f} m<br>Δq %{customdata}<extra></extra>'}],
  {title: ttl('Generated surface coloured by Δq' + (ex > 1 ? ', vertical ×' + ex : '')),
   scene: {aspectmode: 'manual', aspectratio: {x: 1, y: 1, z: Math.max(0.05, ex * zr / (2 * K.radius))}, camera: {eye: {x: 1.5, y: -1.5, z: 0.9}},
     xaxis: {title: {text: 'x (m)'}, nticks: 5}, yaxis: {title: {text: 'y (m)'}, nticks: 5}, zaxis: {title: {text: 'height z (m)'}, nticks: 4}},
   margin: {t: 50, l: 10, r: 10, b: 10}}, cfg);
`;

const PLOTS_JS_TAIL = String.raw`}
`;

function reportHtml(data: unknown, body: { head: string; stages: string; rest: string }, plotly: { src: string } | { inline: string }, x: PageExtras): string {
  // Plotly (4.7 MB) is loaded after the viewer's first drawing, so the maps do not wait for it (first figure ≤ 2 s).
  const lib = ('src' in plotly ? '' : `<script id="plotly-inline" type="text/plain">${plotly.inline}</script>`) + x.inlineTiles;
  const src = 'src' in plotly ? JSON.stringify(plotly.src).replace(/</g, '\\u003c') : 'null';
  const missing =
    'src' in plotly
      ? `Plotly did not load (this page expects it at ${escapeHtml(plotly.src)}, relative to the page), so the figures cannot be drawn. Open the report where heightbench wrote it, or write it with --self-contained to get one file that carries Plotly.`
      : 'Plotly did not load, so the figures cannot be drawn.';
  const V = (data as { viewer: { W: number; H: number; f: number } }).viewer;
  const stageSection = x.stageMaps.length
    ? `<h3 id="stage-maps">Stage difference maps (float, mm)</h3>
<p class="note">Per dumped stage: generated − reference in mm, per block the signed value of largest magnitude, north-up, on the scale below (the stage table above gives the numbers; cropped dumps show their window).</p>
${x.mmLegend}
<div class="grid">${x.stageMaps.map((m) => `<figure class="stagemap" data-stage="${escapeHtml(m.stage)}"><img src="${safeUrl(x.picture(m.file))}" alt="${escapeHtml(m.stage)} difference" width="256" height="256"><figcaption>${escapeHtml(m.stage)}</figcaption></figure>`).join('\n')}</div>`
    : '';
  const fdSection = x.firstDivergence
    ? `<h2 id="first-divergence">First divergence</h2>
<p class="note">Each block holding a differing final pixel, drawn as a 3×3 dot coloured by the stage where its pixel of largest |Δq| first differs by more than ε (stage attribution); white: no differing pixel.</p>
<figure><img id="first-divergence-map" src="${safeUrl(x.picture('first-divergence.png'))}" alt="first divergent stage per block" width="512" height="512"></figure>
<div class="legend">${x.firstDivergence.map((s) => `<span class="sw" style="background:rgb(${s.colour.join(',')})"></span>${escapeHtml(s.name)}`).join(' ')}</div>`
    : '';
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>heightbench comparison</title>
<style>${PAGE_CSS}.row{display:flex;flex-wrap:wrap;gap:8px}
.note{color:#555;font-size:13px}.warn{border:2px solid #b2182b;background:#fdecea;padding:.6em 1em;font-weight:600}
.legend{font-size:12px;margin:.3em 0;line-height:2}.sw{display:inline-block;width:14px;height:14px;border:1px solid #999;vertical-align:middle;margin:0 3px 0 8px}
.ramp{display:inline-block;position:relative;width:220px;height:14px;border:1px solid #999;vertical-align:middle;margin:0 6px 14px}
.ramp span{position:absolute;top:15px;font-size:10px;transform:translateX(-50%)}canvas{border:1px solid #aaa;image-rendering:pixelated;width:420px;height:420px}
.vpanel{display:inline-block;text-align:center;font-size:13px}#vread{font-family:monospace;font-size:13px;min-height:1.4em;background:#f6f6f6;padding:3px}
.grid{display:flex;flex-wrap:wrap;gap:10px}figure{margin:0}figure.stagemap{width:256px;font-size:12px;text-align:center}img{image-rendering:pixelated}
.card{border:1px solid #ccc;padding:6px;font-size:12px;width:420px}.cardrow{display:flex;gap:6px}.layers{display:flex;flex-direction:column;font-size:11px}
.layers span{height:91px;line-height:85px}</style>
</head><body>
<p id="plotly-missing" class="warn" hidden>${missing}</p>
${body.head}
<h2 id="viewer">Difference map and heightmaps (linked; zoom to single pixels)</h2>
<p class="note">Wheel to zoom, drag to pan (all three panels move together); hover for the pixel, its world position, both codes and Δq. Pixels of |Δq| ≥ 4 are ringed while zoomed out.
Zoomed out: per block of ${V.f}×${V.f} px the Δq of largest magnitude${x.floatSide ? ' (|Δq|: a side is float, so the sign is not kept)' : ''} — no differing pixel disappears; zoomed in, full-resolution tiles
(${x.tilesWritten} tiles of 256² px written, those holding a difference first${x.tilesLeftOut ? `; ${x.tilesLeftOut} holding a difference left out by the size budget` : ''}). diffmap.png is the overview.</p>
${x.legend}
<p><button id="vreset">whole map</button> <button id="vmax">zoom to the largest |Δq|</button>
<form id="vgo" style="display:inline">pixel <input id="vpix" size="10" placeholder="i, j"> <button>go</button></form>
<label><input type="checkbox" id="vblink"> blink generated ↔ reference</label> <span class="note" id="vzoom"></span> · <span class="note" id="vstatus"></span></p>
<div class="row"><div class="vpanel"><canvas id="vdiff" width="420" height="420"></canvas><br>Δq = generated − reference</div>
<div class="vpanel"><canvas id="vgen" width="420" height="420"></canvas><br><span id="vlabel-gen">generated</span> (height; one terrain scale for both panels, fitted to the view)</div>
<div class="vpanel"><canvas id="vref" width="420" height="420"></canvas><br>reference</div></div>
<div id="vread">hover a map</div>
${body.stages}
${stageSection}
${body.rest}
${fdSection}
<h2 id="gallery">Worst pixels</h2>
<p class="note">${x.cards.length} of ${x.differingPixels} differing pixels shown, ${x.differingPixels - x.cards.length} left out (every one is in <code>check --differences-csv</code>): where differences originate, then each first divergent stage's pixel of largest |Δq|, the pixels of largest |Δq|, then one pixel of each of the largest connected groups of differing pixels. Each card: one row per layer
(every dumped stage in pipeline order, then the final codes), columns generated | reference (one terrain scale per row) | difference (mm scale for stages,
Δq scale for final), ${2 * CROP_RADIUS + 1}×${2 * CROP_RADIUS + 1} px north-up around the pixel (framed).</p>
<div class="grid" id="gallery-cards">${galleryHtml(x)}</div>
<h2>Δq histogram and radial profile</h2>
<div class="row"><div id="hist" style="width:660px;height:460px"></div><div id="radial" style="width:660px;height:560px"></div></div>
${
  x.disk3d
    ? `<h2>3D view of the difference</h2><p class="note" id="dnote"></p>
<div id="d3diff" style="width:900px;height:640px"></div>
`
    : ''
}${lib}
<script id="data" type="application/json">${JSON.stringify(data).replace(/</g, '\\u003c')}</script>
<script>
const D = JSON.parse(document.getElementById('data').textContent);
const PLOTLY_SRC = ${src};
function drawPlots() {
${PLOTS_JS}${x.disk3d ? DISK_JS : ''}${PLOTS_JS_TAIL}
}
function loadPlotly() {
  const el = document.createElement('script');
  if (PLOTLY_SRC === null) el.textContent = document.getElementById('plotly-inline').textContent;
  else { el.src = PLOTLY_SRC; el.onload = drawPlots; el.onerror = drawPlots; }
  document.head.appendChild(el);
  if (PLOTLY_SRC === null) drawPlots();
}
${VIEWER_JS}
</script></body></html>
`;
}
