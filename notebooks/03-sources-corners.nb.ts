// %% [markdown]
// # 03 — Sources and corners
//
// **[D]** Each location gets a source height from its reference region (nearest centre, then that region's edges) and
// a branch (ordinary, sign-changing, zero, random fallback). Corners blend all sources with the piecewise weight and a
// self term; zero-class corners are set to 0 by height group.
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
// %%
const plan = run.plan;
const counts: Record<string, number> = {};
for (const s of plan.sources) counts[s.branch] = (counts[s.branch] ?? 0) + 1;
console.log('source branches', JSON.stringify(counts), '| corner branches', JSON.stringify(plan.corners.counts));
tslab.display.markdown(['| # | branch | reference list | edge distance (m) | height (m) |', '|---|---|---|---|---|',
  ...plan.sources.slice(0, 6).map((s, i) => `| #${i} | ${s.branch} | ${s.referenceList} | ${s.edgeDistance.toFixed(2)} | ${s.height.toFixed(3)} |`)].join('\n'));
// %%
const m = plan.regions;
const n = m.corner_xy.length / 2;
show('f03-corners', [
  { x: Array.from({ length: n }, (_, k) => m.corner_xy[2 * k]), y: Array.from({ length: n }, (_, k) => m.corner_xy[2 * k + 1]), mode: 'markers',
    marker: { size: 6, color: Array.from(plan.corners.corner_height), colorscale: 'Earth', colorbar: { title: { text: 'm' } } }, name: 'corner height' },
  { x: plan.sources.map((s) => s.x), y: plan.sources.map((s) => s.y), mode: 'markers', marker: { symbol: 'x', size: 7, color: 'black' }, name: 'sources' },
  markers,
], { title: { text: 'Corner heights and location sources' }, ...square }, 640);
