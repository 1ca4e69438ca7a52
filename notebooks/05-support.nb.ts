// -*- coding: utf-8 -*-
// %% [markdown]
// # 05 — Location support
//
// **[D]** Targets come from domain queries of the base (upper and lower envelopes), parent–child weighting, offsets and
// a region floor; the transition width is scaled by k = (1 − t) + t·relief; strength is separate; writes raise or
// lower. **[R]** Labelled choices in `src/cpu/support.ts` (mid-envelope reference, satellites as children).

// %%
import * as hb from './dist/api/notebook.js';
import * as tslab from 'tslab';
const session = hb.stageSession({ display: (html: string) => tslab.display.html(html) }); // tundra-r19 at 1024², all stages
const { req, grid, run, markers } = session;

// %%
tslab.display.markdown(['| # | hmin | hmax | reference | after parent–child | target | children | k of first shape |', '|---|---|---|---|---|---|---|---|',
  ...run.support.slice(0, 6).map((t, i) => `| #${i} | ${t.hmin.toFixed(2)} | ${t.hmax.toFixed(2)} | ${t.reference.toFixed(2)} | ${t.weighted.toFixed(2)} | ${t.target.toFixed(2)} | ${t.children.length} | ${t.shapes[0].k.toFixed(3)} |`)].join('\n'));
console.log(`region floor applied to ${run.support.filter((t) => t.floorApplied).length} of ${run.support.length} locations`);

// %%
session.stageFigures('f05', 'base', 'after-support');
console.log(session.againstReference('after-support'));
