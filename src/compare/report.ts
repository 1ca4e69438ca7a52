/**
 * Comparison reports: `index.html` (Plotly, offline, one shared plotly.min.js), `summary.md` (CI logs),
 * `metrics.json` (flat keys for `dvc metrics diff`), `histogram.json` / `radial.json` (DVC plot data) and PNG pictures
 * (`diffmap.png`: per block the signed Δq of largest magnitude on the diverging scale the page uses — |Δq| on a magnitude
 * scale when a side is float; `heightmaps.png`: both maps side by side on the page's terrain scale). Every figure has a
 * title, axis names with units and a colour bar where colour carries a value. Every file is written atomically.
 */
import { copyFileSync, existsSync, readFileSync } from 'node:fs';
import { mkdirTree } from '../io/fs-ops.js';
import { createRequire } from 'node:module';
import { dirname, join, relative, sep } from 'node:path';
import { sampleBilinear } from '../core/sampling.js';
import { columnWorldX, rowWorldY, worldToColumn, worldToRow } from '../core/grid.js';
import type { Heightfield } from '../core/heightfield.js';
import { decodeHeightR16 } from '../core/encoding.js';
import { writeFileAtomic } from '../io/atomic.js';
import {
  DIVERGING_STOPS,
  MAGNITUDE_STOPS,
  TERRAIN_STOPS,
  diverging,
  downsampleMaxAbs,
  downsampleMean,
  magnitude,
  plotlyColorscale,
  scalarPng,
  sideBySidePng,
  terrain,
} from './pictures.js';
import type { ComparisonResult, RegionMetrics } from './compare.js';
import type { GateOutcome } from './gates.js';

export interface ReportMeta {
  generated: string;
  reference: string;
  title?: string;
  gates?: GateOutcome[];
  /** Path of an existing plotly.min.js to link instead of copying one into the report folder. */
  sharedPlotly?: string;
  /** Inline Plotly into index.html (one file to send; ~4.7 MB) instead of linking it. */
  selfContained?: boolean;
  /** What kind of reference this is, in words (stated under the title). */
  referenceKind?: string;
  /** Per-stage float differences (check.ts), shown beside the article's anchors. */
  stages?: readonly { stage: string; innerRmsMm: number; innerMaxAbsMm: number; rmsMm: number; maxAbsMm: number }[];
  /** Stage attribution lines (attribution.ts attributionSummary). */
  stageAttribution?: string[];
  /** Further Markdown lines (e.g. the GPU-mimic switches of the generated side). */
  notes?: string[];
}

/** [D] The article's per-stage inner-400 m RMS (its CPU rebuild against the game's GPU output), mm. */
export const ARTICLE_STAGE_ANCHORS_MM: Readonly<Record<string, number>> = { base: 0.203, 'after-support': 0.122 };

/** Scalar metrics with flat dotted keys (histogram bins as `histogram.<Δq>`). */
export function flattenMetrics(r: ComparisonResult): Record<string, number> {
  const out: Record<string, number> = {};
  const region = (prefix: string, m: RegionMetrics) => {
    for (const k of [
      'pixels',
      'exact',
      'exactPercent',
      'maxAbsCode',
      'meanSignedCode',
      'rmsMm',
      'maxAbsMm',
      'floatRmsMm',
      'floatMaxAbsMm',
      'floatBiasMm',
    ] as const) {
      const v = m[k];
      if (typeof v === 'number') out[`${prefix}${k}`] = v;
    }
    for (const [d, c] of Object.entries(m.histogram)) out[`${prefix}histogram.${d}`] = c;
  };
  region('', r);
  for (const [name, m] of Object.entries(r.masks)) region(`masks.${name}.`, m);
  out['nonFinite.generated'] = r.nonFinite.generated;
  out['nonFinite.reference'] = r.nonFinite.reference;
  if (r.attribution) {
    out['attribution.straddle'] = r.attribution.straddle;
    out['attribution.deviation'] = r.attribution.deviation;
    out['attribution.inconsistent'] = r.attribution.inconsistent;
  }
  return out;
}

/** The JSON document of `compare --json`: the result without the block arrays (their shape is kept). */
export function resultJson(r: ComparisonResult): Record<string, unknown> {
  const { blocks, ...rest } = r;
  return { ...rest, blocks: { size: blocks.size, columns: blocks.columns, rows: blocks.rows } };
}

function fmt(v: number | undefined, digits = 4): string {
  if (v === undefined || Number.isNaN(v)) return '–';
  if (Number.isInteger(v)) return String(v);
  return v.toPrecision(digits);
}

export function summaryMarkdown(r: ComparisonResult, meta: ReportMeta): string {
  const L: string[] = [];
  L.push(`# ${meta.title ?? 'Comparison'}`, '');
  L.push(
    `generated \`${meta.generated}\` vs reference \`${meta.reference}\` — ${r.grid.columns}×${r.grid.rows}, range ${r.range.min}…${r.range.max} m (1 code = ${(r.metresPerCode * 1000).toFixed(3)} mm)`,
    '',
  );
  if (meta.referenceKind) L.push(`Reference: ${meta.referenceKind}.`, '');
  for (const n of meta.notes ?? []) L.push(n);
  if (meta.notes?.length) L.push('');
  L.push(
    '| scope | pixels | exact % | Δq histogram | max \\|Δq\\| | RMS mm | max mm |' +
      (r.floatRmsMm !== undefined ? ' float RMS mm | float max mm | float bias mm |' : ''),
  );
  L.push('|---|---|---|---|---|---|---|' + (r.floatRmsMm !== undefined ? '---|---|---|' : ''));
  const row = (name: string, m: RegionMetrics) => {
    const h = Object.entries(m.histogram)
      .sort((a, b) => Number(a[0]) - Number(b[0]))
      .map(([d, c]) => `${Number(d) > 0 ? '+' : ''}${d}: ${c}`)
      .join(', ');
    let s = `| ${name} | ${m.pixels} | ${fmt(m.exactPercent, 6)} | ${h} | ${m.maxAbsCode} | ${fmt(m.rmsMm)} | ${fmt(m.maxAbsMm)} |`;
    if (m.floatRmsMm !== undefined) s += ` ${fmt(m.floatRmsMm)} | ${fmt(m.floatMaxAbsMm)} | ${fmt(m.floatBiasMm)} |`;
    L.push(s);
  };
  row('full map', r);
  for (const [name, m] of Object.entries(r.masks)) row(name, m);
  L.push('');
  if (r.maxAbsCodeAt)
    L.push(
      `Largest |Δq| = ${r.maxAbsCode} at pixel (${r.maxAbsCodeAt.pixel.join(', ')}), world (${r.maxAbsCodeAt.world.map((x) => x.toFixed(2)).join(', ')}) m.`,
      '',
    );
  if (r.nonFinite.pixelsExcluded > 0)
    L.push(`Non-finite values excluded: generated ${r.nonFinite.generated}, reference ${r.nonFinite.reference} (${r.nonFinite.pixelsExcluded} pixels).`, '');
  if (r.attribution) {
    const a = r.attribution;
    L.push(
      `Residual attribution (ε = ${a.epsilonCodes} code = ${a.epsilonMm.toFixed(4)} mm): ${a.differing} differing pixels — ${a.straddle} quantization straddles, ${a.deviation} real deviations${a.inconsistent ? `, ${a.inconsistent} where the float does not encode to the generated code` : ''}.`,
      '',
    );
  }
  if (meta.stages?.length) {
    L.push(
      '## Stages',
      '',
      "Float difference per stage dump (generated − reference). [D] anchors: the article's CPU rebuild against its GPU output, inner-400 m RMS.",
      '',
    );
    L.push('| stage | inner 400 m RMS mm | article anchor mm | inner max mm | RMS mm | max mm |', '|---|---|---|---|---|---|');
    for (const s of meta.stages)
      L.push(
        `| ${s.stage} | ${fmt(s.innerRmsMm)} | ${ARTICLE_STAGE_ANCHORS_MM[s.stage] ?? '–'} | ${fmt(s.innerMaxAbsMm)} | ${fmt(s.rmsMm)} | ${fmt(s.maxAbsMm)} |`,
      );
    L.push('');
  }
  if (meta.stageAttribution?.length) {
    L.push('## Stage attribution', '', 'For every differing final code, the first stage at which the two fields differ by more than ε there:', '');
    const [head, ...rest] = meta.stageAttribution;
    L.push(head, '');
    for (const l of rest) L.push(`- ${l.trim()}`);
    L.push('');
  }
  if (meta.gates?.length) {
    L.push('| gate | limit | value | result |', '|---|---|---|---|');
    const cell = (t: string) => t.replace(/\|/g, '\\|'); // a gate named "max |Δq|" must not split its row
    for (const g of meta.gates) L.push(`| ${cell(g.name)} | ${g.limit} | ${fmt(g.value, 6)} | ${g.passed ? 'pass' : '**FAIL**'} |`);
    L.push('');
  }
  return `${L.join('\n')}\n`;
}

function b64f32(a: Float32Array): { dtype: 'f4'; bdata: string } {
  return { dtype: 'f4', bdata: Buffer.from(a.buffer, a.byteOffset, a.byteLength).toString('base64') };
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

export function writeComparisonReport(dir: string, r: ComparisonResult, gen: Heightfield, ref: Heightfield, meta: ReportMeta): string[] {
  // Found before anything is written: a missing Plotly must not leave a report folder without its page.
  const plotlyFile = plotlyPath();
  mkdirTree(dir);
  const written: string[] = [];
  const put = (name: string, data: string | Uint8Array) => {
    writeFileAtomic(join(dir, name), data);
    written.push(join(dir, name));
  };
  const g = r.grid;
  const row0AtBottom = g.rowDirection === 'row0-at-ymin';

  put('metrics.json', `${JSON.stringify(flattenMetrics(r), null, 2)}\n`);
  put('summary.md', summaryMarkdown(r, meta));
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

  // The difference map. Signed (Δq = generated − reference) when both sides are codes; when a side is float the
  // comparison keeps only |Δq| per block, and the map says so (magnitude scale, |Δq| title).
  const B = r.blocks;
  const signed = gen.kind === 'codes' && ref.kind === 'codes';
  const blockDq = signed ? signedBlockDq(gen.code_px, ref.code_px, g.columns, g.rows, B.size).data : Float32Array.from(B.maxAbsCode);
  const vmax = Math.max(1, r.maxAbsCode);
  put('diffmap.png', scalarPng(blockDq, B.columns, B.rows, signed ? (x) => diverging(x / vmax) : (x) => magnitude(x / vmax), row0AtBottom));
  if (B.signedMaxM) {
    const fm = Math.max(1e-9, r.floatMaxAbsMm ?? 0) / 1000;
    put(
      'diffmap-float.png',
      scalarPng(B.signedMaxM, B.columns, B.rows, (x) => diverging(x / fm), row0AtBottom),
    );
  }
  // Pictures at most 1024 px a side (display only), both maps on one colour scale (the HTML figures use the same).
  const factor = Math.max(1, Math.ceil(Math.max(g.columns, g.rows) / 1024));
  const hg = displayHeights(gen, factor);
  const hr = displayHeights(ref, factor);
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

  // Plotly data: display-pooled difference map (max-magnitude pooling keeps every difference visible).
  const dfac = Math.max(1, Math.ceil(Math.max(B.columns, B.rows) / 512));
  const dm = downsampleMaxAbs(blockDq, B.columns, B.rows, dfac);
  const hfac = Math.max(1, Math.ceil(Math.max(g.columns, g.rows) / 512));
  const hg2 = displayHeights(gen, hfac);
  const hr2 = displayHeights(ref, hfac);
  const axisX = Array.from({ length: hg2.w }, (_, i) => columnWorldX(g, (i + 0.5) * hfac - 0.5));
  const axisY = Array.from({ length: hg2.h }, (_, j) => rowWorldY(g, (j + 0.5) * hfac - 0.5));
  const daxisX = Array.from({ length: dm.w }, (_, i) => columnWorldX(g, (i + 0.5) * dfac * B.size - 0.5));
  const daxisY = Array.from({ length: dm.h }, (_, j) => rowWorldY(g, (j + 0.5) * dfac * B.size - 0.5));

  // 3D disk of radius 625 m about the domain centre (or the largest disk inside a smaller domain), both maps on the
  // same sample positions (display only).
  const cx = g.xmin + g.sizeX / 2;
  const cy = g.ymin + g.sizeY / 2;
  const R3 = Math.min(625, g.sizeX / 2, g.sizeY / 2);
  const n3 = 161;
  const xs3 = Array.from({ length: n3 }, (_, i) => cx - R3 + (2 * R3 * i) / (n3 - 1));
  const ys3 = Array.from({ length: n3 }, (_, j) => cy - R3 + (2 * R3 * j) / (n3 - 1));
  const z3g = new Float32Array(n3 * n3);
  const z3r = new Float32Array(n3 * n3);
  for (let j = 0; j < n3; j++) {
    for (let i = 0; i < n3; i++) {
      const inside = (xs3[i] - cx) ** 2 + (ys3[j] - cy) ** 2 <= R3 * R3;
      z3g[j * n3 + i] = inside ? heightAt(gen, xs3[i], ys3[j]) : Number.NaN;
      z3r[j * n3 + i] = inside ? heightAt(ref, xs3[i], ys3[j]) : Number.NaN;
    }
  }
  let zlo = Infinity;
  let zhi = -Infinity;
  for (const z of [z3g, z3r])
    for (let k = 0; k < z.length; k++)
      if (z[k] === z[k]) {
        zlo = Math.min(zlo, z[k]);
        zhi = Math.max(zhi, z[k]);
      }

  let plotly: { src: string } | { inline: string };
  if (meta.selfContained) {
    // Inlined for sending as one file; a "</script" inside the library text would end the element early.
    plotly = { inline: readFileSync(plotlyFile, 'utf8').replace(/<\/script/gi, '<\\/script') };
  } else if (meta.sharedPlotly) {
    // One plotly.min.js shared by every report under a common folder: placed there once, linked relatively.
    if (!existsSync(meta.sharedPlotly)) {
      mkdirTree(dirname(meta.sharedPlotly));
      copyFileSync(plotlyFile, meta.sharedPlotly);
    }
    plotly = { src: relative(dir, meta.sharedPlotly).split(sep).join('/') };
  } else {
    copyFileSync(plotlyFile, join(dir, 'plotly.min.js'));
    plotly = { src: 'plotly.min.js' };
  }
  const data = {
    title: meta.title ?? 'Comparison',
    domain: { x: [g.xmin, g.xmin + g.sizeX], y: [g.ymin, g.ymin + g.sizeY] },
    diff: {
      z: { ...b64f32(dm.data), shape: `${dm.h},${dm.w}` },
      x: daxisX,
      y: daxisY,
      zmax: vmax,
      pool: dfac,
      block: B.size,
      blockMetres: (B.size * g.sizeX) / g.columns,
      signed,
    },
    colours: { diverging: plotlyColorscale(DIVERGING_STOPS), magnitude: plotlyColorscale(MAGNITUDE_STOPS), terrain: plotlyColorscale(TERRAIN_STOPS) },
    heights: {
      gen: { ...b64f32(hg2.data), shape: `${hg2.h},${hg2.w}` },
      ref: { ...b64f32(hr2.data), shape: `${hr2.h},${hr2.w}` },
      x: axisX,
      y: axisY,
      zmin: lo,
      zmax: hi,
      factor: hfac,
    },
    hist: Object.entries(r.histogram)
      .map(([d, c]) => [Number(d), c])
      .sort((a, b) => a[0] - b[0]),
    radial: r.radial.rings.map((x) => [(x.r0 + x.r1) / 2, x.rmsMm, x.maxAbsMm, x.floatRmsMm ?? null]),
    radialStep: r.radial.step,
    disk: {
      x: xs3,
      y: ys3,
      gen: { ...b64f32(z3g), shape: `${n3},${n3}` },
      ref: { ...b64f32(z3r), shape: `${n3},${n3}` },
      zmin: zlo,
      zmax: zhi,
      radius: R3,
      spacing: (2 * R3) / (n3 - 1),
      exaggeration: verticalExaggeration(zhi - zlo, 2 * R3),
    },
  };
  const md = summaryMarkdown(r, meta);
  put('index.html', reportHtml(data, md, plotly));
  if (!meta.sharedPlotly && !meta.selfContained) written.push(join(dir, 'plotly.min.js'));
  return written;
}

function escapeHtml(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/** Minimal Markdown-to-HTML for summaries: tables, # and ## headings, list items, paragraphs, `code` and **bold**. */
export function markdownToHtml(md: string): string {
  const out: string[] = [];
  const lines = md.split('\n');
  for (let k = 0; k < lines.length; k++) {
    const l = lines[k];
    const inline = (t: string) =>
      escapeHtml(t)
        .replace(/`([^`]*)`/g, '<code>$1</code>')
        .replace(/\*\*(.*?)\*\*/g, '<b>$1</b>');
    if (l.startsWith('# ')) out.push(`<h1>${escapeHtml(l.slice(2))}</h1>`);
    else if (l.startsWith('## ')) out.push(`<h2>${escapeHtml(l.slice(3))}</h2>`);
    else if (l.startsWith('- ')) out.push(`<li>${inline(l.slice(2))}</li>`);
    else if (l.startsWith('|') && lines[k + 1]?.startsWith('|---')) {
      const cells = (s: string) =>
        s
          .slice(1, -1)
          .split(/(?<!\\)\|/)
          .map((c) => escapeHtml(c.trim().replace(/\\\|/g, '|')));
      out.push(
        '<table><tr>' +
          cells(l)
            .map((c) => `<th>${c}</th>`)
            .join('') +
          '</tr>',
      );
      k += 2;
      while (k < lines.length && lines[k].startsWith('|')) {
        out.push(
          '<tr>' +
            cells(lines[k])
              .map((c) => `<td>${c.replace(/\*\*(.*?)\*\*/g, '<b>$1</b>')}</td>`)
              .join('') +
            '</tr>',
        );
        k++;
      }
      out.push('</table>');
      k--;
    } else if (l.trim()) out.push(`<p>${inline(l)}</p>`);
  }
  return out.join('\n');
}

function reportHtml(data: unknown, md: string, plotly: { src: string } | { inline: string }): string {
  const script = 'src' in plotly ? `<script src="${escapeHtml(plotly.src)}"></script>` : `<script>${plotly.inline}</script>`;
  const missing =
    'src' in plotly
      ? `Plotly did not load (this page expects it at ${escapeHtml(plotly.src)}, relative to the page), so the figures cannot be drawn. Open the report where heightbench wrote it, or write it with --self-contained to get one file that carries Plotly.`
      : 'Plotly did not load, so the figures cannot be drawn.';
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>heightbench comparison</title>
<style>body{font-family:system-ui,sans-serif;margin:1.5em;max-width:1400px}table{border-collapse:collapse;margin:.5em 0}
td,th{border:1px solid #ccc;padding:2px 8px;font-size:13px;text-align:right}th{background:#f3f3f3}.row{display:flex;flex-wrap:wrap;gap:8px}
.note{color:#555;font-size:13px}.warn{border:2px solid #b2182b;background:#fdecea;padding:.6em 1em;font-weight:600}</style>
${script}</head><body>
<p id="plotly-missing" class="warn" hidden>${missing}</p>
${markdownToHtml(md)}
<h2>Difference map</h2>
<p class="note" id="diffnote"></p><div id="diff" style="width:760px;height:660px"></div>
<h2>Heightmaps, one shared colour scale</h2><p class="note" id="hnote"></p>
<div class="row"><div id="hgen" style="width:660px;height:600px"></div><div id="href" style="width:660px;height:600px"></div></div>
<h2>Δq histogram and radial profile</h2>
<div class="row"><div id="hist" style="width:660px;height:460px"></div><div id="radial" style="width:660px;height:560px"></div></div>
<h2>3D side by side</h2><p class="note" id="dnote"></p>
<div class="row"><div id="d3gen" style="width:660px;height:500px"></div><div id="d3ref" style="width:660px;height:500px"></div></div>
<script id="data" type="application/json">${JSON.stringify(data).replace(/</g, '\\u003c')}</script>
<script>
const D = JSON.parse(document.getElementById('data').textContent);
if (!window.Plotly) document.getElementById('plotly-missing').hidden = false;
else {
const cfg = {responsive: true, displaylogo: false};
const ttl = (t) => ({text: t, font: {size: 15}});
// Axes fitted to the domain: the square aspect shrinks the plotting area instead of padding the range.
const mapAxes = (x, y) => ({xaxis: {title: {text: 'x (m)'}, range: x, constrain: 'domain', ticks: 'outside'},
  yaxis: {title: {text: 'y (m)'}, range: y, scaleanchor: 'x', scaleratio: 1, constrain: 'domain', ticks: 'outside'}});
const dx = D.domain.x, dy = D.domain.y;
const cell = D.diff.block + '×' + D.diff.block + ' px (' + D.diff.blockMetres + ' m)';
document.getElementById('diffnote').textContent = (D.diff.signed
  ? 'Each cell: the signed Δq of largest magnitude over ' + cell + '; red = generated above the reference, blue = below, white = equal.'
  : 'Each cell: the largest |Δq| over ' + cell + ' (a side is float, so the sign is not kept).')
  + (D.diff.pool > 1 ? ' Then the largest of ' + D.diff.pool + '×' + D.diff.pool + ' such cells for display (no difference is hidden).' : '')
  + ' Statistics use full resolution. diffmap.png uses the same colours.';
Plotly.newPlot('diff', [D.diff.signed
  ? {type: 'heatmap', z: D.diff.z, x: D.diff.x, y: D.diff.y, zmin: -D.diff.zmax, zmax: D.diff.zmax, colorscale: D.colours.diverging,
     colorbar: {title: {text: 'Δq (codes)'}, tickmode: 'linear', dtick: Math.max(1, Math.ceil(D.diff.zmax / 4))},
     hovertemplate: 'x %{x:.1f} m<br>y %{y:.1f} m<br>Δq %{z}<extra></extra>'}
  : {type: 'heatmap', z: D.diff.z, x: D.diff.x, y: D.diff.y, zmin: 0, zmax: D.diff.zmax, colorscale: D.colours.magnitude,
     colorbar: {title: {text: '|Δq| (codes)'}}, hovertemplate: 'x %{x:.1f} m<br>y %{y:.1f} m<br>|Δq| %{z}<extra></extra>'}],
  {title: ttl(D.diff.signed ? 'Signed difference Δq = generated − reference, block maximum magnitude (codes)' : 'Absolute difference |Δq|, block maximum (codes)'),
   ...mapAxes(dx, dy), margin: {t: 50}}, cfg);
document.getElementById('hnote').textContent = 'Display: ' + D.heights.factor + '×' + D.heights.factor + ' box means of the full-resolution maps (display only); heightmaps.png uses the same colours.';
for (const [id, z, t] of [['hgen', D.heights.gen, 'Generated'], ['href', D.heights.ref, 'Reference']])
  Plotly.newPlot(id, [{type: 'heatmap', z, x: D.heights.x, y: D.heights.y, zmin: D.heights.zmin, zmax: D.heights.zmax, colorscale: D.colours.terrain,
      colorbar: {title: {text: 'height (m)'}}, hovertemplate: 'x %{x:.1f} m<br>y %{y:.1f} m<br>%{z:.3f} m<extra></extra>'}],
    {title: ttl(t + ' heightmap: height (m)'), ...mapAxes(dx, dy), margin: {t: 50}}, cfg);
Plotly.newPlot('hist', [{type: 'bar', x: D.hist.map(h => h[0]), y: D.hist.map(h => h[1]), marker: {color: '#4d4d4d'},
    text: D.hist.map(h => String(h[1])), textposition: 'outside', cliponaxis: false}],
  {title: ttl('Histogram of Δq = generated − reference'), xaxis: {title: {text: 'Δq (codes)'}, dtick: 1},
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
const ex = D.disk.exaggeration;
document.getElementById('dnote').textContent = 'Disk of radius ' + D.disk.radius + ' m about the domain centre. Both surfaces sampled on the same ' + D.disk.spacing.toFixed(2) + ' m grid inside the disk (display only), same camera, same colour scale'
  + (ex > 1 ? ', heights drawn ×' + ex + ' (vertical exaggeration; the z axis is labelled in true metres).' : ', 1:1 vertical scale.');
const zr = D.disk.zmax - D.disk.zmin || 1;
const scene = {aspectmode: 'manual', aspectratio: {x: 1, y: 1, z: Math.max(0.05, ex * zr / (2 * D.disk.radius))}, camera: {eye: {x: 1.2, y: -1.2, z: 0.6}, center: {x: 0, y: 0, z: -0.1}},
  domain: {x: [0, 1], y: [0, 1]},
  xaxis: {title: {text: 'x (m)'}, nticks: 5}, yaxis: {title: {text: 'y (m)'}, nticks: 5}, zaxis: {title: {text: 'z (m)'}, nticks: 4}};
for (const [id, z, t] of [['d3gen', D.disk.gen, 'Generated'], ['d3ref', D.disk.ref, 'Reference']])
  Plotly.newPlot(id, [{type: 'surface', z, x: D.disk.x, y: D.disk.y, cmin: D.disk.zmin, cmax: D.disk.zmax, colorscale: D.colours.terrain,
      colorbar: {title: {text: 'height (m)'}, len: 0.7, thickness: 14}}],
    {title: ttl(t + ': height (m)' + (ex > 1 ? ', vertical ×' + ex : '')), scene, margin: {t: 40, l: 0, r: 0, b: 0}}, cfg);
}
</script></body></html>
`;
}
