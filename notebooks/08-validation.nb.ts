// %% [markdown]
// # 08 — Validation: the full map against its references
//
// Exact codes, the ±1 histogram, RMS and maximum, the 4×4 block-maximum map, the radial profile, residual attribution
// (quantization straddles vs real deviations, from the generated pre-encode floats) and the 3D disk of radius 625 m.
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
const ref = hb.readHeightfieldFile('references/tundra-r19-1024/final.r16').field;
const gen = hb.codeHeightfield(grid, run.codes, req.encoding);
const cmp = hb.compareHeightfields(gen, ref, { generatedFloat: field('pre-encode') });
tslab.display.markdown(hb.summaryMarkdown(cmp, { generated: 'f32 pipeline', reference: 'references/tundra-r19-1024/final.r16' }));
const B = cmp.blocks;
show('f08-blocks', [{ type: 'heatmap', z: Array.from({ length: B.rows }, (_, j) => Array.from(B.maxAbsCode.subarray(j * B.columns, (j + 1) * B.columns))), zmin: -1, zmax: 1, colorscale: 'RdBu', reversescale: true }],
  { title: { text: 'Block maximum |Δq| over 4×4 pixels (symmetric scale)' }, yaxis: { scaleanchor: 'x' } }, 520);
show('f08-radial', [{ x: cmp.radial.rings.map((r) => (r.r0 + r.r1) / 2), y: cmp.radial.rings.map((r) => r.rmsMm), name: 'RMS (mm)' }],
  { title: { text: 'Radial profile (10 m rings)' }, xaxis: { title: { text: 'radius (m)' } } }, 340);
// %% [markdown]
// ## 3D side by side: disk of radius 625 m, same camera, colour scale and 1:1 vertical scale (display-downsampled)
// %%
const R = 625; const n = 101; const step = (2 * R) / (n - 1);
const xs = Array.from({ length: n }, (_, i) => -R + i * step);
const surf = (f: hb.Heightfield) => xs.map((y) => xs.map((x) => (x * x + y * y <= R * R ? hb.sampleBilinear(hb.heightsOf(f), grid.columns, grid.rows, hb.worldToColumn(grid, x), hb.worldToRow(grid, y)) : null)));
const zg = surf(gen); const zr = surf(ref);
const zr2 = hb.rangeOf([...zg.flat(), ...zr.flat()].filter((v): v is number => v !== null));
const zmin = zr2.min; const zmax = zr2.max;
const scene = { aspectmode: 'manual', aspectratio: { x: 1, y: 1, z: (zmax - zmin) / (2 * R) }, camera: { eye: { x: 1.2, y: -1.2, z: 0.7 } } };
show('f08-3d-gen', [{ type: 'surface', z: zg, x: xs, y: xs, cmin: zmin, cmax: zmax, colorscale: 'Earth', showscale: false }], { title: { text: 'generated' }, scene }, 480);
show('f08-3d-ref', [{ type: 'surface', z: zr, x: xs, y: xs, cmin: zmin, cmax: zmax, colorscale: 'Earth', showscale: false }], { title: { text: 'reference' }, scene }, 480);
