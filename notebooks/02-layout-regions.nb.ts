// %% [markdown]
// # 02 — Layout and regions
//
// **[D]** Regions: Voronoi cells of seeded sites, clipped to the 2048 m domain; corners are shared records; parents own
// cells; height groups come from a coordinate field and random branches and change later. **[D]** Mission locations:
// candidates narrowed by mission, category allow-list, scene type and weight, then drawn by weight; a spacing check
// uses both footprints and the support coefficients. **[R]** The tundra world, its counts and the exact walk are
// heightbench's own (see `config/worlds/tundra.json` and `src/pipeline/layout.ts`).
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
console.log(plan.layout.narrowing.map((n) => `tag ${n.tag}: ${n.initial} candidates → pool ${n.pool} → ${n.picked}`).join('\n'));
console.log(JSON.stringify(plan.layout.counts));
// %%
const m = plan.regions;
const groupColour = ['#2b6cb0', '#38a169', '#d69e2e', '#9b2c2c'];
const traces: hb.Trace[] = [0, 1, 2, 3].map((g) => {
  const xs: (number | null)[] = [];
  const ys: (number | null)[] = [];
  m.cell_corners.forEach((ids, c) => {
    if (m.parent_group[m.cell_parent[c]] !== g) return;
    for (const id of [...ids, ids[0]]) { xs.push(m.corner_xy[2 * id]); ys.push(m.corner_xy[2 * id + 1]); }
    xs.push(null); ys.push(null);
  });
  return { x: xs, y: ys, mode: 'lines', line: { color: groupColour[g], width: 1 }, fill: 'toself', name: ['zero class', 'first reference type', 'second reference type', 'upland'][g] };
});
const inst = plan.layout.instances;
traces.push({ x: inst.map((q) => q.x), y: inst.map((q) => q.y), mode: 'markers', marker: { size: 5, color: 'black' }, name: 'location instances' });
traces.push(markers);
show('f02-regions', traces, { title: { text: 'Cells by height group (through their parent), locations, #0–#5' }, ...square }, 640);
// %% [markdown]
// ## Ownership is not nearest centre
// **[D]** A position's group is found through its cell and its parent. Near a boundary the nearest cell centre can
// belong to another cell — here one such position.
// %%
let shown = false;
for (let k = 0; k < 40000 && !shown; k++) {
  const x = -1000 + (k % 200) * 10 + 0.37;
  const y = -1000 + Math.floor(k / 200) * 10 + 0.11;
  const c = hb.cellAt(m, x, y);
  const nc = hb.nearestCentreCell(m, x, y);
  if (c !== nc && m.parent_group[m.cell_parent[c]] !== m.parent_group[m.cell_parent[nc]]) {
    console.log(`(${x}, ${y}): owned by cell ${c} (group ${hb.groupAt(m, x, y)}), nearest centre is cell ${nc} (group ${m.parent_group[m.cell_parent[nc]]})`);
    shown = true;
  }
}
if (!shown) throw new Error('expected a boundary position where the two disagree');
