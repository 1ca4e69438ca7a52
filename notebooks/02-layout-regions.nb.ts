// -*- coding: utf-8 -*-
// %% [markdown]
// # 02 — Layout and regions
//
// **[D]** Regions: Voronoi cells of seeded sites, clipped to the 2048 m domain; corners are shared records; parents own
// cells; height groups come from a coordinate field and random branches and change later. **[D]** Mission locations:
// candidates narrowed by mission, category allow-list, scene type and weight, then drawn by weight; a spacing check
// uses both footprints and the support coefficients. **[R]** The tundra world, its counts and the exact walk are
// heightbench's own (see `config/worlds/tundra.json` and `src/plan/layout.ts`).

// %%
import * as hb from './dist/api/notebook.js';
import * as tslab from 'tslab';
const session = hb.stageSession({ display: (html: string) => tslab.display.html(html) }); // tundra-r19 at 1024², all stages
const { req, grid, run, markers } = session;

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
session.show('f02-regions', traces, { title: { text: 'Cells by height group (through their parent), locations, #0–#5' }, ...hb.SQUARE_AXES }, 640);

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
