// -*- coding: utf-8 -*-
// %% [markdown]
// # 03 — Sources and corners
//
// **[D]** Each location gets a source height from its reference region (nearest centre, then that region's edges) and
// a branch (ordinary, sign-changing, zero, random fallback). Corners blend all sources with the piecewise weight and a
// self term; zero-class corners are set to 0 by height group.

// %%
import * as hb from './dist/api/notebook.js';
import * as tslab from 'tslab';
const session = hb.stageSession({ display: (html: string) => tslab.display.html(html) }); // tundra-r19 at 1024², all stages
const { req, grid, run, markers } = session;

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
session.show('f03-corners', [
  { x: Array.from({ length: n }, (_, k) => m.corner_xy[2 * k]), y: Array.from({ length: n }, (_, k) => m.corner_xy[2 * k + 1]), mode: 'markers',
    marker: { size: 6, color: Array.from(plan.corners.corner_height), colorscale: 'Earth', colorbar: { title: { text: 'm' } } }, name: 'corner height' },
  { x: plan.sources.map((s) => s.x), y: plan.sources.map((s) => s.y), mode: 'markers', marker: { symbol: 'x', size: 7, color: 'black' }, name: 'sources' },
  markers,
], { title: { text: 'Corner heights and location sources' }, ...hb.SQUARE_AXES }, 640);
