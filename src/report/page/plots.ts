/**
 * The comparison page's Plotly figures: the folded Δq histogram, the radial profile and, when the pipeline declares
 * one, the 3D view of the difference. Plotly is loaded after the viewer's first drawing (the maps do not wait for its
 * 4.7 MB): from the shared or copied plotly.min.js beside the page, or from the page's own `<script id="plotly-inline"
 * type="text/plain">` when it is self-contained. Without Plotly the page says so (#plotly-missing) instead.
 */
import { byId, pageWindow } from './dom.js';
import type { ComparisonPageData } from './page-data.js';

/** The one Plotly call the page makes. */
interface PlotlyLike {
  newPlot(id: string, traces: Record<string, unknown>[], layout: Record<string, unknown>, config: Record<string, unknown>): void;
}

/** Draws the figures, or shows why they cannot be drawn. */
export function drawPlots(D: ComparisonPageData, disk3d: boolean): void {
  const win = pageWindow();
  const Plotly = (win as unknown as { Plotly?: PlotlyLike }).Plotly;
  if (!Plotly) {
    byId(win.document, 'plotly-missing').hidden = false;
    return;
  }
  const cfg = { responsive: true, displaylogo: false };
  const ttl = (t: string) => ({ text: t, font: { size: 15 } });
  const H = D.hist;
  const hx = H.bins.map((b) => String(b[0]));
  const hy = H.bins.map((b) => b[1]);
  if (H.below.count) {
    hx.unshift(`< −${H.limit}`);
    hy.unshift(H.below.count);
  }
  if (H.above.count) {
    hx.push(`> +${H.limit}`);
    hy.push(H.above.count);
  }
  Plotly.newPlot(
    'hist',
    [{ type: 'bar', x: hx, y: hy, marker: { color: '#4d4d4d' }, text: hy.map(String), textposition: 'outside', cliponaxis: false }],
    {
      title: ttl(`Histogram of Δq = generated − reference (beyond ±${H.limit} folded)`),
      xaxis: { title: { text: 'Δq (codes)' }, type: 'category' },
      yaxis: { title: { text: 'pixels (log scale)' }, type: 'log' },
      margin: { t: 50 },
    },
    cfg,
  );
  const rr = D.radial.map((r) => r[0]);
  Plotly.newPlot(
    'radial',
    [
      { x: rr, y: D.radial.map((r) => r[1]), name: 'RMS of Δq (mm)', line: { color: '#2166ac' } },
      ...(D.radial[0][3] === null
        ? []
        : [{ x: rr, y: D.radial.map((r) => r[3]), name: 'RMS of the float difference (mm)', line: { color: '#67a9cf', dash: 'dot' } }]),
      { x: rr, y: D.radial.map((r) => r[2]), name: 'max |Δ| (mm)', xaxis: 'x2', yaxis: 'y2', line: { color: '#b2182b', shape: 'hv' } },
    ],
    {
      title: ttl(`Radial profile, ${D.radialStep} m rings about the domain centre`),
      grid: { rows: 2, columns: 1, pattern: 'independent', roworder: 'top to bottom' },
      xaxis: { title: { text: '' }, matches: 'x2', showticklabels: false },
      yaxis: { title: { text: 'RMS (mm)' }, rangemode: 'tozero' },
      xaxis2: { title: { text: 'radius from the domain centre (m)' } },
      yaxis2: { title: { text: 'max |Δ| (mm)' }, rangemode: 'tozero' },
      legend: { orientation: 'h', y: -0.18 },
      margin: { t: 50 },
    },
    cfg,
  );
  if (!disk3d) return;
  // The 3D view: the generated surface over a disk, coloured on the maps' Δq scale.
  const K = D.disk;
  const ex = K.exaggeration;
  const zr = K.zmax - K.zmin || 1;
  byId(win.document, 'dnote').textContent =
    `Disk of radius ${K.radius} m about the domain centre, sampled every ${K.spacing.toFixed(2)} m (display only): the generated surface, coloured by the signed Δq of largest magnitude among the pixels of each sample cell, on the scale of the maps` +
    (ex > 1 ? `; heights drawn ×${ex} (vertical exaggeration; the z axis is labelled in true metres).` : '; 1:1 vertical scale.');
  Plotly.newPlot(
    'd3diff',
    [
      {
        type: 'surface',
        z: K.z,
        x: K.x,
        y: K.y,
        surfacecolor: K.c,
        customdata: K.dq,
        cmin: -1,
        cmax: 1,
        colorscale: K.colorscale,
        colorbar: { title: { text: 'Δq (codes)' }, tickvals: K.ticks.vals, ticktext: K.ticks.text, len: 0.8, thickness: 14 },
        hovertemplate: 'x %{x:.1f} m<br>y %{y:.1f} m<br>z %{z:.2f} m<br>Δq %{customdata}<extra></extra>',
      },
    ],
    {
      title: ttl(`Generated surface coloured by Δq${ex > 1 ? `, vertical ×${ex}` : ''}`),
      scene: {
        aspectmode: 'manual',
        aspectratio: { x: 1, y: 1, z: Math.max(0.05, (ex * zr) / (2 * K.radius)) },
        camera: { eye: { x: 1.5, y: -1.5, z: 0.9 } },
        xaxis: { title: { text: 'x (m)' }, nticks: 5 },
        yaxis: { title: { text: 'y (m)' }, nticks: 5 },
        zaxis: { title: { text: 'height z (m)' }, nticks: 4 },
      },
      margin: { t: 50, l: 10, r: 10, b: 10 },
    },
    cfg,
  );
}

/** Loads Plotly (a file beside the page at `src`, or the page's inline copy when `src` is null), then draws the figures. */
export function loadPlotly(src: string | null, drawn: () => void): void {
  const doc = pageWindow().document;
  const el = doc.createElement('script');
  if (src === null) el.textContent = byId(doc, 'plotly-inline').textContent;
  else {
    el.src = src;
    el.onload = drawn;
    el.onerror = drawn;
  }
  doc.head.appendChild(el);
  if (src === null) drawn();
}
