// %% [markdown]
// # 00 — Quickstart: regenerate, compare, look
//
// **[R]** This runs the article's request `tundra-r19` at 1024² (the same world at a quarter of the resolution) through
// every stage in float32 (the GPU's rounding), then holds the final R16 map against its DVC-tracked references, which
// the f64 path produced (same rules, real arithmetic).
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
const c = run.manifest.counts;
console.log(`${run.plan.layout.counts.draws} location draws from ${c.locationResources} resources, ${c.supportCircles} support circles, ${c.stampInstances} natural stamps over ${c.stampKeys} keys`);
// %% [markdown]
// ## Against the references
// %%
import { existsSync } from 'node:fs';
const refPath = 'references/tundra-r19-1024/final.r16';
let refField: hb.Heightfield;
if (existsSync(refPath)) refField = hb.readHeightfieldFile(refPath).field;
else {
  console.log('references missing: regenerating them in-process with the f64 path');
  const r64 = hb.runPipeline(req, { precision: 'f64' });
  refField = hb.codeHeightfield(grid, r64.codes, req.encoding);
}
const cmp = hb.compareHeightfields(hb.codeHeightfield(grid, run.codes, req.encoding), refField, { generatedFloat: field('pre-encode') });
tslab.display.markdown(hb.summaryMarkdown(cmp, { generated: 'tundra-r19 at 1024², f32', reference: refPath }));
if (cmp.maxAbsCode > 1 || cmp.exactPercent < 99.9) throw new Error('the f32 pipeline left its gates');
// %%
show('f00-diff', [{ type: 'heatmap', z: Array.from({ length: cmp.blocks.rows }, (_, j) => Array.from(cmp.blocks.maxAbsCode.subarray(j * cmp.blocks.columns, (j + 1) * cmp.blocks.columns))), colorscale: 'Reds', zmin: 0, zmax: Math.max(1, cmp.maxAbsCode) }],
  { title: { text: '4×4 block maximum |Δq| (full map)' }, yaxis: { scaleanchor: 'x' } }, 520);
