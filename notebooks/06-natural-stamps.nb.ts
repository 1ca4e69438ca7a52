// -*- coding: utf-8 -*-
// %% [markdown]
// # 06 — Natural stamps
//
// **[D]** Region/SubRegion → ZoneItem → StampGroup → StampInfo, weights and ranges at their own levels; per instance the
// placement, asset-local and joint transforms; per pixel a trilinear sample of the stored mip chain, a HeightProgram and
// a Blend, in draw order. Stamps raise and lower.

// %%
import * as hb from './dist/api/notebook.js';
import * as tslab from 'tslab';
const session = hb.stageSession({ display: (html: string) => tslab.display.html(html) }); // tundra-r19 at 1024², all stages
const { req, grid, run, markers } = session;

// %%
const sel = run.stamps;
const keys = Object.entries(sel.drawsPerKey).sort((a, b) => b[1] - a[1]);
console.log(`${sel.instances.length} instances over ${keys.length} keys (${sel.dropped} dropped for lack of room)`);
session.show('f06-draws', [{ type: 'bar', x: keys.map((k) => k[0]), y: keys.map((k) => k[1]) }], { title: { text: 'Draws per texture key' }, xaxis: { title: { text: 'texture key' } }, yaxis: { title: { text: 'draws' } }, margin: { b: 140 } }, 380);

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
session.show('f06-atlas', [{ type: 'heatmap', z: atlas, colorscale: 'Blues', showscale: false }], { title: { text: 'Atlas: the 24 keys, most drawn first (stored mip level ≤ 32²)' }, xaxis: { title: { text: 'texel (tiles left to right)' } }, yaxis: { title: { text: 'texel (tiles top to bottom)' }, scaleanchor: 'x' } }, 420);

// %%
session.stageFigures('f06', 'after-support', 'after-stamps');
console.log(session.againstReference('after-stamps'));
