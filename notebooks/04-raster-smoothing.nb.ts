// %% [markdown]
// # 04 — Rasterization and multilevel smoothing
//
// **[D]** Triangle fans (centre = mean of edge midpoints, flagged-corner overwrite), GPU rules (pixel centres at +0.5,
// 16.8 snapping, top-left fill), two ADD layers. **[D]** Smoothing: downsample to N/2, N/4, N/8 with the 5-tap
// separable filter at fractional offsets, then Hbase = (h2 − h3)·0.5 + h3. **[R]** The raster itself is not filtered;
// each level is filter(downsample(previous)).
// %%
import * as hb from './dist/index.js';
import * as tslab from 'tslab';
const req = hb.loadRequest('tundra-r19', 1024);
const grid = hb.requestGrid(req);
const run = hb.runPipeline(req, { precision: 'f32', keep: [...hb.FIELD_STAGES] });
const W = 1024;
const markers = hb.missionMarkers(run.plan);
const show = (id: string, traces: hb.Trace[], layout: Record<string, unknown> = {}, h = 420) => tslab.display.html(hb.plotlyFigure(id, traces, layout, h));
const field = (s: string) => run.fields.get(s) as Float32Array;
const square = { xaxis: { title: { text: 'x (m)' } }, yaxis: { title: { text: 'y (m)' }, scaleanchor: 'x' } };
/** Input and output of a stage on one colour scale, then their difference on a symmetric scale, with markers #0–#5. */
function stageFigures(prefix: string, before: string, after: string) {
  const a = field(before);
  const b = field(after);
  let lo = Infinity;
  let hi = -Infinity;
  for (const f of [a, b]) for (const v of hb.cropCentre(f, grid, W).data) { lo = Math.min(lo, v); hi = Math.max(hi, v); }
  show(`${prefix}-before`, [hb.heatmapTrace(a, grid, W, { zmin: lo, zmax: hi }), markers], { title: { text: `${before} (central ${W} m)` }, ...square });
  show(`${prefix}-after`, [hb.heatmapTrace(b, grid, W, { zmin: lo, zmax: hi }), markers], { title: { text: `${after} (same colour scale)` }, ...square });
  const d = hb.difference(b, a);
  const m = hb.symmetricLimit(d, grid, W);
  show(`${prefix}-delta`, [hb.heatmapTrace(d, grid, W, { zmin: -m, zmax: m, colorscale: 'RdBu', title: 'Δ m' }), markers], { title: { text: `${after} − ${before}: ${hb.rangeOf(hb.cropCentre(d, grid, W).data).min.toFixed(3)} … ${hb.rangeOf(hb.cropCentre(d, grid, W).data).max.toFixed(3)} m, symmetric scale` }, ...square });
}
/** Inner-400 m RMS of a stage against the DVC reference dump (f64 path) of tundra-r19 at 1024². */
function againstReference(stage: string) {
  const ref = hb.referenceStage('tundra-r19-1024', stage);
  if (!ref) return console.log(`no reference dump for ${stage} (run make reproduce first)`);
  const r = hb.stageAgainstReference(field(stage), grid, ref);
  console.log(`${stage} vs reference: inner-400 m RMS ${r.innerRmsMm.toExponential(3)} mm, max ${r.innerMaxAbsMm.toExponential(3)} mm`);
}
// %% [markdown]
// ## Layer 0, both layers, and the smoothed base
// %%
stageFigures('f04-layers', 'raster-layer0', 'raster');
againstReference('raster');
// %%
stageFigures('f04-smooth', 'raster', 'base');
againstReference('base');
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
show('f04-impulse', [{ type: 'heatmap', z: rows, colorscale: 'Viridis' }], { title: { text: 'Impulse response of one level (X pass then Y pass)' }, yaxis: { scaleanchor: 'x' } }, 420);
