// -*- coding: utf-8 -*-
// %% [markdown]
// # 04 — Rasterization and multilevel smoothing
//
// **[D]** Triangle fans (centre = mean of edge midpoints, flagged-corner overwrite), two ADD layers, pixel centres at
// +0.5. **[G]** GPU conventions: 16.8 snapping, top-left fill. **[D]** Smoothing: four levels — L0 = filter(raster) at
// N², then L(k+1) = filter(halve(Lk)) at N/2, N/4, N/8 — with the 5-tap separable filter at fractional offsets, then
// Hbase = (h2 − h3)·0.5 + h3 from the N/4 and N/8 levels.

// %%
import * as hb from './dist/index.js';
import * as tslab from 'tslab';
const session = hb.stageSession({ display: (html: string) => tslab.display.html(html) }); // tundra-r19 at 1024², all stages
const { req, grid, run, markers } = session;

// %% [markdown]
// ## Layer 0, both layers, and the smoothed base

// %%
session.stageFigures('f04-layers', 'raster-layer0', 'raster');
console.log(session.againstReference('raster'));

// %%
session.stageFigures('f04-smooth', 'raster', 'base');
console.log(session.againstReference('base'));

// %% [markdown]
// ## The filter's impulse response
// **[D]** The X pass shifts by −0.5 on its main axis and +0.5 on its cross axis; the Y pass the other way round. They
// cancel: the response of both passes to a unit impulse is centred.

// %%
const r = hb.impulseResponse(24, 12);
const rows = Array.from({ length: 24 }, (_, j) => Array.from(r.subarray(j * 24, j * 24 + 24)));
let cx = 0; let cy = 0; let s = 0;
rows.forEach((row, j) => row.forEach((v, i) => { s += v; cx += v * (i - 12); cy += v * (j - 12); }));
console.log(`sum ${s.toFixed(6)} (weights sum ${hb.SMOOTHING_TAPS.weights.reduce((a, b) => a + b, 0).toFixed(6)} per pass), centroid (${(cx / s).toExponential(1)}, ${(cy / s).toExponential(1)}) texels`);
session.show('f04-impulse', [{ type: 'heatmap', z: rows, colorscale: 'Viridis' }], { title: { text: 'Impulse response of one level (X pass then Y pass)' }, xaxis: { title: { text: 'column (texels; impulse at 12)' } }, yaxis: { title: { text: 'row (texels; impulse at 12)' }, scaleanchor: 'x' } }, 420);
