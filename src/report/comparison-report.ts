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
import { escapeHtml, pathHref, safeUrl } from '../core/html.js';
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
import { pageCss } from './page-style.js';
import type { ComparisonPageData } from './page/page-data.js';
import { pageScript } from './page-scripts.js';

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
  // Found before anything is written: a missing Plotly or page script must not leave a report folder without its page.
  const plotlyFile = plotlyPath();
  const script = pageScript('comparison');
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
    plotly = { src: pathHref(relative(dir, meta.sharedPlotly).split(sep).join('/')) };
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
  const data: ComparisonPageData = {
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
    script,
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
  /** The page's script (page-scripts.ts): the viewer and the figures. */
  script: string;
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

function reportHtml(
  data: ComparisonPageData,
  body: { head: string; stages: string; rest: string },
  plotly: { src: string } | { inline: string },
  x: PageExtras,
): string {
  // Plotly (4.7 MB) is loaded after the viewer's first drawing, so the maps do not wait for it (first figure ≤ 2 s).
  const lib = ('src' in plotly ? '' : `<script id="plotly-inline" type="text/plain">${plotly.inline}</script>`) + x.inlineTiles;
  const src = 'src' in plotly ? JSON.stringify(plotly.src).replace(/</g, '\\u003c') : 'null';
  const missing =
    'src' in plotly
      ? `Plotly did not load (this page expects it at ${escapeHtml(plotly.src)}, relative to the page), so the figures cannot be drawn. Open the report where heightbench wrote it, or write it with --self-contained to get one file that carries Plotly.`
      : 'Plotly did not load, so the figures cannot be drawn.';
  const V = data.viewer;
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
<style>${pageCss(`body{max-width:1400px}.row{display:flex;flex-wrap:wrap;gap:8px}
.note{color:#555;font-size:13px}.warn{border:2px solid #b2182b;background:#fdecea;padding:.6em 1em;font-weight:600}
.legend{font-size:12px;margin:.3em 0;line-height:2}.sw{display:inline-block;width:14px;height:14px;border:1px solid #999;vertical-align:middle;margin:0 3px 0 8px}
.ramp{display:inline-block;position:relative;width:220px;height:14px;border:1px solid #999;vertical-align:middle;margin:0 6px 14px}
.ramp span{position:absolute;top:15px;font-size:10px;transform:translateX(-50%)}canvas{border:1px solid #aaa;image-rendering:pixelated;width:420px;height:420px}
.vpanel{display:inline-block;text-align:center;font-size:13px}#vread{font-family:monospace;font-size:13px;min-height:1.4em;background:#f6f6f6;padding:3px}
.grid{display:flex;flex-wrap:wrap;gap:10px}figure{margin:0}figure.stagemap{width:256px;font-size:12px;text-align:center}img{image-rendering:pixelated}
.card{border:1px solid #ccc;padding:6px;font-size:12px;width:420px}.cardrow{display:flex;gap:6px}.layers{display:flex;flex-direction:column;font-size:11px}
.layers span{height:91px;line-height:85px}`)}</style>
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
const PLOTLY_SRC = ${src};
${x.script}
HBComparisonPage.start(JSON.parse(document.getElementById('data').textContent), PLOTLY_SRC, ${x.disk3d});
</script></body></html>
`;
}
