// %% [markdown]
// # 06 — Natural stamps
//
// **[D]** Region/SubRegion → ZoneItem → StampGroup → StampInfo, weights and ranges at their own levels; per instance the
// placement, asset-local and joint transforms; per pixel a trilinear sample of the stored mip chain, a HeightProgram and
// a Blend, in draw order. Stamps raise and lower.
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
const sel = run.stamps;
const keys = Object.entries(sel.drawsPerKey).sort((a, b) => b[1] - a[1]);
console.log(`${sel.instances.length} instances over ${keys.length} keys (${sel.dropped} dropped for lack of room)`);
show('f06-draws', [{ type: 'bar', x: keys.map((k) => k[0]), y: keys.map((k) => k[1]) }], { title: { text: 'Draws per texture key' }, margin: { b: 140 } }, 380);
// %% [markdown]
// ## The texture atlas (level 0 of each key, each normalized on its own)
// %%
const assets = hb.ensureAssets(run.plan.world);
const tile = 32;
const cols = 6;
const atlasRows = Math.ceil(keys.length / cols);
const atlas: (number | null)[][] = Array.from({ length: atlasRows * tile }, () => new Array(cols * tile).fill(null));
keys.forEach(([key], t) => {
  const a = assets.get(key)!;
  const lvl = a.sizes.findIndex((s) => s <= tile);
  const data = a.levels[lvl]; const s = a.sizes[lvl];
  let lo = Infinity; let hi = -Infinity;
  for (const v of data) { lo = Math.min(lo, v); hi = Math.max(hi, v); }
  for (let j = 0; j < s; j++) for (let i = 0; i < s; i++) atlas[Math.floor(t / cols) * tile + j][(t % cols) * tile + i] = hi > lo ? (data[j * s + i] - lo) / (hi - lo) : 0;
});
show('f06-atlas', [{ type: 'heatmap', z: atlas, colorscale: 'Blues', showscale: false }], { title: { text: 'Atlas: the 24 keys, most drawn first (stored mip level ≤ 32²)' }, yaxis: { scaleanchor: 'x' } }, 420);
// %%
stageFigures('f06', 'after-support', 'after-stamps');
againstReference('after-stamps');
