// -*- coding: utf-8 -*-
// %% [markdown]
// # 04 — Rasterization and multilevel smoothing
//
// **[D]** Triangle fans (centre = mean of edge midpoints, flagged-corner overwrite), two ADD layers, pixel centres at
// +0.5. **[G]** GPU conventions: 16.8 snapping, top-left fill. **[D]** Smoothing: the 5-tap separable filter at
// fractional offsets, levels halved to N/2, N/4, N/8, then Hbase = (h2 − h3)·0.5 + h3 from the N/4 and N/8 levels.
// **[R] a reading**: whether the N² raster is itself filtered first (L0 = filter(raster) at N², four levels) — the
// article's "Starting with the 4096² floating-point field, the pipeline successively downsamples … applying the
// corresponding filters at each level" does not settle it; "the final blend binds four levels" and "a sharp boundary
// may spread slightly at high resolution, then enter a larger neighborhood through downsampling" support filtering at
// N². Both readings are shown side by side at the end.

// %%
import * as hb from './dist/api/notebook.js';
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
// %% [markdown]
// ## Two readings of the chain's first level, side by side
// **[R]** heightbench's reading (the default, `smoothing.filterFullResolution` true): L0 = filter(raster) at N², four
// levels. The other reading (the ablation `unfiltered-raster`): the first halving reads the raster itself, three filtered
// levels. Same request, same colour scale; the difference is what the reading decides.
// %%
const other = hb.runPipeline(req, { precision: 'f32', keep: ['base'], conventions: { smoothing: { filterFullResolution: false } } });
const baseA = session.field('base');
const baseB = other.fields.get('base') as Float32Array;
const ra = hb.rangeOf(baseA); const rb = hb.rangeOf(baseB);
const lo = Math.min(ra.min, rb.min); const hi = Math.max(ra.max, rb.max);
const dAB = baseB.map((v, k) => v - baseA[k]);
const rd = hb.rangeOf(dAB); const lim = Math.max(Math.abs(rd.min), Math.abs(rd.max));
let ss = 0; for (const v of dAB) ss += v * v;
console.log(`unfiltered-raster reading − heightbench's reading, whole map: RMS ${(Math.sqrt(ss / dAB.length) * 1000).toFixed(1)} mm, ${rd.min.toFixed(3)} … ${rd.max.toFixed(3)} m`);
if (!(lim > 0)) throw new Error('the two readings gave the same base: the ablation is not applied');
session.show('f04-reading-filtered', [hb.heatmapTrace(baseA, grid, session.window, { zmin: lo, zmax: hi }), markers], { title: { text: 'base, N² filtered first (heightbench’s reading)' }, ...hb.SQUARE_AXES }, 420);
session.show('f04-reading-unfiltered', [hb.heatmapTrace(baseB, grid, session.window, { zmin: lo, zmax: hi }), markers], { title: { text: 'base, N² raster unfiltered (the other reading; same scale)' }, ...hb.SQUARE_AXES }, 420);
session.show('f04-reading-delta', [hb.heatmapTrace(dAB, grid, session.window, { zmin: -lim, zmax: lim, colorscale: 'RdBu', title: 'Δ m' }), markers], { title: { text: `unfiltered − filtered: ${rd.min.toFixed(3)} … ${rd.max.toFixed(3)} m, symmetric scale` }, ...hb.SQUARE_AXES }, 420);
