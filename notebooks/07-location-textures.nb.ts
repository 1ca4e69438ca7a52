// -*- coding: utf-8 -*-
// %% [markdown]
// # 07 — Location textures
//
// **[D]** After the natural stamps, each location draws its static height texture through the same sampling path.
// **[R]** The texture's relative heights sit on the location's support target; a border window joins them to the ground.

// %%
import * as hb from './dist/api/notebook.js';
import * as tslab from 'tslab';
const session = hb.stageSession({ display: (html: string) => tslab.display.html(html) }); // tundra-r19 at 1024², all stages
const { req, grid, run, markers } = session;

// %%
console.log(`${run.manifest.counts.locationTextureDraws} draws of ${run.manifest.counts.locationTextures} assets`);
session.stageFigures('f07', 'after-stamps', 'after-locations');
console.log(session.againstReference('after-locations'));

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
const before = win(session.field('after-stamps'));
const after = win(session.field('after-locations'));
const delta = after.map((row, j) => row.map((v, i) => v - before[j][i]));
const dr = hb.rangeOf(delta.flat());
const lim = Math.max(Math.abs(dr.min), Math.abs(dr.max)) || 1;
const xs = Array.from({ length: n }, (_, i) => grid.xmin + (i0 + i + 0.5) * px);
const ys = Array.from({ length: n }, (_, j) => grid.ymin + (j0 + j + 0.5) * px);
console.log(`instance #0 (${q.resourceId}) at (${q.x.toFixed(2)}, ${q.y.toFixed(2)}): change ${dr.min.toFixed(3)} … ${dr.max.toFixed(3)} m`);
session.show('f07-window', [{ type: 'heatmap', z: delta, x: xs, y: ys, zmin: -lim, zmax: lim, colorscale: 'RdBu' }, { x: [q.x], y: [q.y], mode: 'markers+text', text: ['#0'], marker: { color: 'black' } }],
  { title: { text: 'after-locations − after-stamps, 128 m around #0 (symmetric scale)' }, ...hb.SQUARE_AXES }, 520);
