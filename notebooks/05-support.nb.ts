// %% [markdown]
// # 05 — Location support
//
// **[D]** Targets come from domain queries of the base (upper and lower envelopes), parent–child weighting, offsets and
// a region floor; the transition width is scaled by k = (1 − t) + t·relief; strength is separate; writes raise or
// lower. **[R]** Labelled choices in `src/pipeline/support.ts` (mid-envelope reference, satellites as children).
// %%
import * as hb from './dist/index.js';
import * as tslab from 'tslab';
const session = hb.stageSession(); // tundra-r19 at 1024², every stage kept
const req = session.req;
const grid = session.grid;
const run = session.run;
const markers = session.markers;
const field = (stage: string) => session.field(stage);
const square = hb.SQUARE_AXES;
const show = (id: string, traces: hb.Trace[], layout: Record<string, unknown> = {}, h = 420) => tslab.display.html(session.figure(id, traces, layout, h));
const stageFigures = (prefix: string, before: string, after: string) => session.stageFigures(prefix, before, after).forEach((h) => tslab.display.html(h));
const againstReference = (stage: string) => console.log(session.againstReference(stage));
// %%
tslab.display.markdown(['| # | hmin | hmax | reference | after parent–child | target | children | k of first shape |', '|---|---|---|---|---|---|---|---|',
  ...run.support.slice(0, 6).map((t, i) => `| #${i} | ${t.hmin.toFixed(2)} | ${t.hmax.toFixed(2)} | ${t.reference.toFixed(2)} | ${t.weighted.toFixed(2)} | ${t.target.toFixed(2)} | ${t.children.length} | ${t.shapes[0].k.toFixed(3)} |`)].join('\n'));
console.log(`region floor applied to ${run.support.filter((t) => t.floorApplied).length} of ${run.support.length} locations`);
// %%
stageFigures('f05', 'base', 'after-support');
againstReference('after-support');
