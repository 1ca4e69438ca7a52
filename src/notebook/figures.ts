/**
 * Display helpers for the notebooks (and anything else that wants an inline Plotly figure): HTML fragments,
 * display-downsampled windows of a field, markers for the mission locations. Display only — no formula lives here.
 * [R] Figures are self-contained text/html: the first figure a kernel shows (and any figure shown again, i.e. a
 *     re-run) carries plotly.min.js inline in a plain <script> element; every figure's own script draws at once when
 *     Plotly is there, or queues itself until that script has run. Why not the `application/vnd.plotly.v1+json` MIME
 *     bundle: JupyterLab 4 and Notebook 7 draw it only with the `jupyterlab-plotly` extension (shipped by Python's
 *     `plotly` package, not part of JupyterLab; checked: no renderer for the type in JupyterLab 4.6's static files),
 *     and nbconvert's HTML exporter has no renderer for it at all; text/html with its scripts runs in all four
 *     (nbconvert HTML, JupyterLab, Notebook 7, VS Code). No document.write (after load it replaces the whole page —
 *     it blanked JupyterLab) and no relative path (it resolved to /lab/plotly.min.js). Plotly is 4.8 MB: once per
 *     notebook, not per figure; the HTML export (scripts/notebooks.py) swaps that inline copy for the shared
 *     ../plotly.min.js beside reports/ (an exported page stays ~1–2 MB, measured in README "Notebooks").
 *     Every figure has a fixed id, so re-executing a notebook gives identical output. A figure whose Plotly never
 *     loads says so in its place (after the page's load event).
 * [R] Maps with a square aspect (yaxis.scaleanchor) keep their axes fitted to the data (constrain: 'domain': the
 *     plotting area shrinks instead of the range being padded). Colours come from the reports' scales
 *     (report/pictures.ts): heights on the terrain scale, signed differences ('RdBu') on the diverging scale with white
 *     at zero, so a notebook and a report mean the same thing by a colour.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { cropCentre } from '../core/crop.js';
import { escapeHtml } from '../core/html.js';
import { columnWorldX, rowWorldY, type GridDescription } from '../core/grid.js';
import { floatHeightfield } from '../core/heightfield.js';
import { compareHeightfields, type ComparisonResult } from '../compare/compare.js';
import { DIVERGING_STOPS, MAGNITUDE_STOPS, TERRAIN_STOPS, plotlyColorscale } from '../report/pictures.js';
import { plotlyPath, signedBlockDq } from '../report/comparison-report.js';
import type { Heightfield } from '../core/heightfield.js';
import { readHeightfieldFile } from '../io/heightfield-file.js';
import { projectRoot } from '../project/paths.js';
import type { Plan } from '../plan/plan.js';

export type Trace = Record<string, unknown>;

const round = (x: number, d = 3) => (Number.isFinite(x) ? Math.round(x * 10 ** d) / 10 ** d : null);

/** Layout with square maps fitted to their data: every axis that takes part in a scaleanchor gets constrain: 'domain'. */
function fitSquareAxes(layout: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = { ...layout };
  for (const [k, v] of Object.entries(layout)) {
    if (!/^[xy]axis\d*$/.test(k) || typeof v !== 'object' || v === null) continue;
    const anchor = (v as { scaleanchor?: string }).scaleanchor;
    if (!anchor) continue;
    const other = `${anchor[0]}axis${anchor.slice(1)}`;
    out[k] = { constrain: 'domain', ...(v as object) };
    out[other] = { constrain: 'domain', ...((layout[other] as object | undefined) ?? {}) };
  }
  return out;
}

/** Ids of the figures shown since plotly.min.js was last inlined (module state: one kernel, one notebook). */
let shownSinceInline: Set<string> | null = null;
let plotlySource: string | null = null;

/**
 * plotly.min.js as the text of an inline script: `</script` and `<!--` cannot end or disturb the element (both only
 * occur inside string literals in Plotly's bundle; `<\/` and `<\!` mean the same characters there).
 */
function inlinePlotlyScript(): string {
  plotlySource ??= readFileSync(plotlyPath(), 'utf8')
    .replace(/<\/script/gi, '<\\/script')
    .replace(/<!--/g, '<\\!--');
  return `<script data-heightbench-plotly="inline">${plotlySource}
;(window.__heightbenchPlotlyQueue || []).splice(0).forEach(function (draw) { draw(); });</script>`;
}

/**
 * An inline Plotly figure as an HTML fragment (text/html output). The first figure of a kernel, and a figure whose id
 * was shown before (a cell run again, so the earlier inline copy may be gone), carries plotly.min.js inline.
 * `opts.inlinePlotly` forces (true) or suppresses (false) that copy.
 */
export function plotlyFigure(
  id: string,
  traces: readonly Trace[],
  layout: Record<string, unknown> = {},
  height = 420,
  opts: { inlinePlotly?: boolean } = {},
): string {
  // '<' as \u003c: a title containing "</script>" cannot end the element.
  const data = JSON.stringify(traces).replace(/</g, '\\u003c');
  const lay = JSON.stringify(fitSquareAxes({ margin: { t: 40, l: 60, r: 20, b: 50 }, ...layout })).replace(/</g, '\\u003c');
  const missing = 'Plotly did not load, so this figure cannot be drawn (an exported notebook expects ../plotly.min.js next to the reports folder).';
  const inline = opts.inlinePlotly ?? (shownSinceInline === null || shownSinceInline.has(id));
  if (inline) shownSinceInline = new Set();
  shownSinceInline?.add(id);
  const sid = JSON.stringify(id);
  return `<div id="${escapeHtml(id)}" style="height:${height}px"></div>${inline ? `\n${inlinePlotlyScript()}` : ''}
<script>(function () {
  function draw() { Plotly.newPlot(${sid}, ${data}, ${lay}, {displaylogo: false, responsive: true}); }
  if (window.Plotly) return draw();
  (window.__heightbenchPlotlyQueue = window.__heightbenchPlotlyQueue || []).push(draw);
  window.addEventListener('load', function () {
    var e = document.getElementById(${sid});
    if (window.Plotly || !e) return;
    e.style.height = 'auto'; e.className = 'plotly-missing'; e.style.border = '2px solid #b2182b'; e.style.padding = '0.5em'; e.textContent = ${JSON.stringify(missing)};
  });
})();</script>`;
}

/** A window of a field as heatmap data (rows of world Y upwards), box-mean downsampled to at most `maxPixels` a side. */
export function heatmapData(
  field: ArrayLike<number>,
  grid: GridDescription,
  window: number,
  maxPixels = 200,
): { z: (number | null)[][]; x: number[]; y: number[] } {
  const c = window < grid.sizeX ? cropCentre(field, grid, window) : { grid, data: Float32Array.from(field) };
  const n = c.grid.columns;
  const f = Math.max(1, Math.ceil(n / maxPixels));
  const m = Math.ceil(n / f);
  const z: (number | null)[][] = [];
  for (let j = 0; j < m; j++) {
    const row: (number | null)[] = [];
    for (let i = 0; i < m; i++) {
      let s = 0;
      let k = 0;
      for (let b = 0; b < f; b++)
        for (let a = 0; a < f; a++) {
          const jj = j * f + b;
          const ii = i * f + a;
          if (jj < n && ii < n) {
            s += c.data[jj * n + ii];
            k++;
          }
        }
      row.push(round(s / k));
    }
    z.push(row);
  }
  const x = Array.from({ length: m }, (_, i) => round(columnWorldX(c.grid, (i + 0.5) * f - 0.5), 2) as number);
  const y = Array.from({ length: m }, (_, j) => round(rowWorldY(c.grid, (j + 0.5) * f - 0.5), 2) as number);
  return { z, x, y };
}

export function heatmapTrace(
  field: ArrayLike<number>,
  grid: GridDescription,
  window: number,
  opts: { zmin?: number; zmax?: number; colorscale?: string; title?: string; maxPixels?: number } = {},
): Trace {
  const d = heatmapData(field, grid, window, opts.maxPixels);
  return {
    type: 'heatmap',
    z: d.z,
    x: d.x,
    y: d.y,
    zmin: opts.zmin,
    zmax: opts.zmax,
    colorscale: colourScale(opts.colorscale),
    colorbar: { title: { text: opts.title ?? 'height (m)' } },
  };
}

/** The reports' scales for the names the notebooks use: heights (default) on terrain, 'RdBu' on the diverging scale. */
function colourScale(name: string | undefined): unknown {
  if (name === undefined || name === 'Earth' || name === 'terrain') return plotlyColorscale(TERRAIN_STOPS);
  if (name === 'RdBu' || name === 'diverging') return plotlyColorscale(DIVERGING_STOPS);
  return name;
}

/** A square map layout in world metres, fitted to the grid's extent, with a title. */
export function mapLayout(title: string, grid: GridDescription): Record<string, unknown> {
  return {
    title: { text: title },
    xaxis: { title: { text: 'x (m)' }, range: [grid.xmin, grid.xmin + grid.sizeX], constrain: 'domain' },
    yaxis: { title: { text: 'y (m)' }, range: [grid.ymin, grid.ymin + grid.sizeY], scaleanchor: 'x', constrain: 'domain' },
  };
}

/**
 * The comparison's block map as a heatmap in world metres: per block the signed Δq = generated − reference of largest
 * magnitude on the diverging scale (both sides codes), else the block's |Δq| on the magnitude scale.
 */
export function blockMapTrace(cmp: ComparisonResult, gen: Heightfield, ref: Heightfield): Trace {
  const B = cmp.blocks;
  const g = cmp.grid;
  const signed = gen.kind === 'codes' && ref.kind === 'codes';
  const v = signed ? signedBlockDq(gen.code_px, ref.code_px, g.columns, g.rows, B.size).data : Float32Array.from(B.maxAbsCode);
  // Codes not compared (a float pair without code range): the scale of the block map's own display codes.
  const m = Math.max(1, cmp.codeRange ? cmp.maxAbsCode : B.maxAbsCode.reduce((a, b) => Math.max(a, b), 0));
  const z = Array.from({ length: B.rows }, (_, j) => Array.from(v.subarray(j * B.columns, (j + 1) * B.columns)));
  const x = Array.from({ length: B.columns }, (_, i) => round(columnWorldX(g, (i + 0.5) * B.size - 0.5), 2));
  const y = Array.from({ length: B.rows }, (_, j) => round(rowWorldY(g, (j + 0.5) * B.size - 0.5), 2));
  return signed
    ? { type: 'heatmap', z, x, y, zmin: -m, zmax: m, colorscale: plotlyColorscale(DIVERGING_STOPS), colorbar: { title: { text: 'Δq (codes)' }, dtick: 1 } }
    : { type: 'heatmap', z, x, y, zmin: 0, zmax: m, colorscale: plotlyColorscale(MAGNITUDE_STOPS), colorbar: { title: { text: '|Δq| (codes)' } } };
}

/** The radial profile as two stacked panels sharing the radius axis: RMS (mm) above, maximum |Δ| (mm) below. */
export function radialFigure(cmp: ComparisonResult): { traces: Trace[]; layout: Record<string, unknown> } {
  const r = cmp.radial.rings.map((x) => (x.r0 + x.r1) / 2);
  return {
    traces: [
      { x: r, y: cmp.radial.rings.map((x) => x.rmsMm), name: 'RMS of Δq (mm)', line: { color: '#2166ac' } },
      { x: r, y: cmp.radial.rings.map((x) => x.maxAbsMm), name: 'max |Δ| (mm)', xaxis: 'x2', yaxis: 'y2', line: { color: '#b2182b', shape: 'hv' } },
    ],
    layout: {
      title: { text: `Radial profile, ${cmp.radial.step} m rings about the domain centre` },
      grid: { rows: 2, columns: 1, pattern: 'independent', roworder: 'top to bottom' },
      xaxis: { matches: 'x2', showticklabels: false },
      yaxis: { title: { text: 'RMS (mm)' }, rangemode: 'tozero' },
      xaxis2: { title: { text: 'radius from the domain centre (m)' } },
      yaxis2: { title: { text: 'max |Δ| (mm)' }, rangemode: 'tozero' },
      legend: { orientation: 'h', y: -0.2 },
    },
  };
}

/** Markers #0–#5 at the mission locations (the article's markers). */
export function missionMarkers(plan: Plan): Trace {
  const m = plan.layout.instances.filter((q) => q.stage === 'mission');
  return {
    type: 'scatter',
    mode: 'markers+text',
    x: m.map((q) => round(q.x, 2)),
    y: m.map((q) => round(q.y, 2)),
    text: m.map((_, i) => `#${i}`),
    textposition: 'top center',
    marker: { color: 'white', size: 8, line: { color: 'black', width: 1 } },
    textfont: { color: 'white' },
    showlegend: false,
  };
}

/** The largest |value| of a field inside a window (for a symmetric colour scale). */
export function symmetricLimit(field: ArrayLike<number>, grid: GridDescription, window: number): number {
  const c = cropCentre(field, grid, window);
  let m = 0;
  for (const v of c.data) m = Math.max(m, Math.abs(v));
  return m || 1;
}

/** Differences after − before (a stage's net change). */
export function difference(after: ArrayLike<number>, before: ArrayLike<number>): Float32Array {
  const d = new Float32Array(after.length);
  for (let k = 0; k < d.length; k++) d[k] = after[k] - before[k];
  return d;
}

/** The reference dump of a stage for a run name (references/<name>/<stage>.r32), or null when absent. */
export function referenceStage(name: string, stage: string): { field: Float32Array; grid: GridDescription } | null {
  const p = join(projectRoot(), 'references', name, `${stage}.r32`);
  if (!existsSync(p)) return null;
  const f = readHeightfieldFile(p).field;
  return f.kind === 'float' ? { field: f.height_px, grid: f.grid } : null;
}

/**
 * Inner-400 m RMS (and maximum) of a stage against a reference dump, in mm. The generated field is cropped to the
 * reference's window first.
 */
export function stageAgainstReference(
  field: ArrayLike<number>,
  grid: GridDescription,
  ref: { field: Float32Array; grid: GridDescription },
): { innerRmsMm: number; innerMaxAbsMm: number; rmsMm: number } {
  const c = cropCentre(field, grid, ref.grid.sizeX);
  const r = compareHeightfields(floatHeightfield(c.grid, c.data), floatHeightfield(ref.grid, ref.field));
  return {
    innerRmsMm: r.masks.innerDisk.floatRmsMm ?? Number.NaN,
    innerMaxAbsMm: r.masks.innerDisk.floatMaxAbsMm ?? Number.NaN,
    rmsMm: r.floatRmsMm ?? Number.NaN,
  };
}

/**
 * Checks a worked number against the printed digits: `digits` decimals (rounded), or an absolute tolerance.
 * Returns a one-line record; throws when the value does not match, so a notebook run fails loudly.
 */
export function checkNumber(label: string, actual: number, expected: number, opts: { digits?: number; tol?: number } = {}): string {
  const ok = opts.digits !== undefined ? actual.toFixed(opts.digits) === expected.toFixed(opts.digits) : Math.abs(actual - expected) <= (opts.tol ?? 0);
  const line = `${ok ? '✓' : '✗'} ${label}: ${actual}${opts.digits !== undefined ? ` (≈ ${actual.toFixed(opts.digits)})` : ''}, article ${expected}`;
  if (!ok) throw new Error(line);
  return line;
}

/** Minimum and maximum of a large array (no argument spreading, which overflows the stack beyond ~100k values). */
export function rangeOf(values: ArrayLike<number>): { min: number; max: number } {
  let min = Infinity;
  let max = -Infinity;
  for (let k = 0; k < values.length; k++) {
    const v = values[k];
    if (v < min) min = v;
    if (v > max) max = v;
  }
  return { min, max };
}
