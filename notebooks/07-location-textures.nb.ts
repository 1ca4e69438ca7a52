// %% [markdown]
// # 07 — Location textures
//
// **[D]** After the natural stamps, each location draws its static height texture through the same sampling path.
// **[R]** The texture's relative heights sit on the location's support target; a border window joins them to the ground.
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
console.log(`${run.manifest.counts.locationTextureDraws} draws of ${run.manifest.counts.locationTextures} assets`);
stageFigures('f07', 'after-stamps', 'after-locations');
againstReference('after-locations');
// %% [markdown]
// ## A 128 m window around instance #0
// %%
const q = run.plan.layout.instances[0];
const px = grid.sizeX / grid.columns;
const half = 64;
const i0 = Math.round((q.x - half - grid.xmin) / px);
const j0 = Math.round((q.y - half - grid.ymin) / px);
const n = Math.round((2 * half) / px);
const win = (f: Float32Array) => Array.from({ length: n }, (_, j) => Array.from(f.subarray((j0 + j) * grid.columns + i0, (j0 + j) * grid.columns + i0 + n)));
const before = win(field('after-stamps'));
const after = win(field('after-locations'));
const delta = after.map((row, j) => row.map((v, i) => v - before[j][i]));
const dr = hb.rangeOf(delta.flat());
const lim = Math.max(Math.abs(dr.min), Math.abs(dr.max)) || 1;
const xs = Array.from({ length: n }, (_, i) => grid.xmin + (i0 + i + 0.5) * px);
const ys = Array.from({ length: n }, (_, j) => grid.ymin + (j0 + j + 0.5) * px);
console.log(`instance #0 (${q.resourceId}) at (${q.x.toFixed(2)}, ${q.y.toFixed(2)}): change ${dr.min.toFixed(3)} … ${dr.max.toFixed(3)} m`);
show('f07-window', [{ type: 'heatmap', z: delta, x: xs, y: ys, zmin: -lim, zmax: lim, colorscale: 'RdBu' }, { x: [q.x], y: [q.y], mode: 'markers+text', text: ['#0'], marker: { color: 'black' } }],
  { title: { text: 'after-locations − after-stamps, 128 m around #0 (symmetric scale)' }, ...square }, 520);
