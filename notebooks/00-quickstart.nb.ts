// -*- coding: utf-8 -*-
// %% [markdown]
// # 00 — Quickstart: regenerate, compare, look
//
// **[R]** This runs the article's request `tundra-r19` at 1024² (the same world at a quarter of the resolution) through
// every stage in float32 (the GPU's rounding), then holds the final R16 map against its DVC-tracked references, which
// the f64 path produced (same rules, real arithmetic).

// %%
import * as hb from './dist/api/notebook.js';
import * as tslab from 'tslab';
const session = hb.stageSession({ display: (html: string) => tslab.display.html(html) }); // tundra-r19 at 1024², all stages
const { req, grid, run, markers } = session;

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
const cmp = hb.compareHeightfields(hb.codeHeightfield(grid, run.codes, req.encoding), refField, { generatedFloat: session.field('pre-encode') });
tslab.display.markdown(hb.summaryMarkdown(cmp, { generated: 'tundra-r19 at 1024², f32', reference: refPath }));
if (cmp.maxAbsCode > 1 || cmp.exactPercent < 99.9) throw new Error('the f32 pipeline left its gates');

// %%
session.show('f00-diff', [{ type: 'heatmap', z: Array.from({ length: cmp.blocks.rows }, (_, j) => Array.from(cmp.blocks.maxAbsCode.subarray(j * cmp.blocks.columns, (j + 1) * cmp.blocks.columns))), colorscale: 'Reds', zmin: 0, zmax: Math.max(1, cmp.maxAbsCode) }],
  { title: { text: '4×4 block maximum |Δq| (full map)' }, xaxis: { title: { text: 'block column (4 px = 2 m)' } }, yaxis: { title: { text: 'block row (4 px = 2 m)' }, scaleanchor: 'x' } }, 520);
