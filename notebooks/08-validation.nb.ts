// %% [markdown]
// # 08 — Validation: the full map against its references
//
// Exact codes, the ±1 histogram, RMS and maximum, the 4×4 block-maximum map, the radial profile, residual attribution
// (quantization straddles vs real deviations, from the generated pre-encode floats) and the 3D disk of radius 625 m.
// %%
import * as hb from './dist/index.js';
import * as tslab from 'tslab';
const session = hb.stageSession({ display: (html: string) => tslab.display.html(html) }); // tundra-r19 at 1024², all stages
const { req, grid, run, markers } = session;
// %%
const ref = hb.readHeightfieldFile('references/tundra-r19-1024/final.r16').field;
const gen = hb.codeHeightfield(grid, run.codes, req.encoding);
const cmp = hb.compareHeightfields(gen, ref, { generatedFloat: session.field('pre-encode') });
tslab.display.markdown(hb.summaryMarkdown(cmp, { generated: 'f32 pipeline', reference: 'references/tundra-r19-1024/final.r16' }));
const B = cmp.blocks;
session.show('f08-blocks', [{ type: 'heatmap', z: Array.from({ length: B.rows }, (_, j) => Array.from(B.maxAbsCode.subarray(j * B.columns, (j + 1) * B.columns))), zmin: -1, zmax: 1, colorscale: 'RdBu', reversescale: true }],
  { title: { text: 'Block maximum |Δq| over 4×4 pixels (symmetric scale)' }, yaxis: { scaleanchor: 'x' } }, 520);
session.show('f08-radial', [{ x: cmp.radial.rings.map((r) => (r.r0 + r.r1) / 2), y: cmp.radial.rings.map((r) => r.rmsMm), name: 'RMS (mm)' }],
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
session.show('f08-3d-gen', [{ type: 'surface', z: zg, x: xs, y: xs, cmin: zmin, cmax: zmax, colorscale: 'Earth', showscale: false }], { title: { text: 'generated' }, scene }, 480);
session.show('f08-3d-ref', [{ type: 'surface', z: zr, x: xs, y: xs, cmin: zmin, cmax: zmax, colorscale: 'Earth', showscale: false }], { title: { text: 'reference' }, scene }, 480);
