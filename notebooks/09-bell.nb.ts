// -*- coding: utf-8 -*-
// %% [markdown]
// # 09 — Bell-shaped accumulation (seed 002)
//
// **[D]** Generator points from minstd_rand0 (u = raw / (2³¹ − 1), x before y); generator k adds
// exp(−f1·d²)/f2 with z = 1 + p1·k, f1 = p2·z, f2 = p3·z — earlier generators are wider and taller. **[R]** The fast
// path uses separability and must agree with the seed's loops to 1e-6 relative.

// %%
import * as hb from './dist/api/notebook.js';
import * as tslab from 'tslab';
const p = { ...hb.BELL_DEFAULTS, size: 128 };
const naive = hb.accumulateNaive(p);
const fast = hb.accumulateFast(p);
const dev = hb.maxRelativeDeviation(fast, naive);
console.log(`seed ${p.seed}, ${p.nb} generators, p1 ${p.p1}, p2 ${p.p2}, p3 ${p.p3}: max relative deviation fast vs naive ${dev.toExponential(2)}`);
if (!(dev <= 1e-6)) throw new Error('fast path deviates');
const g = hb.minstdRand0();
let v = 0;
for (let k = 0; k < 10000; k++) v = g.next();
console.log(`minstd_rand0: 10000th draw from the default seed = ${v} (C++ standard check value 1043618065)`);
if (v !== 1043618065) throw new Error('minstd_rand0');

// %%
const n = p.size;
const rows = (f: ArrayLike<number>) => Array.from({ length: n }, (_, j) => Array.from({ length: n }, (_, i) => f[j * n + i]));
tslab.display.html(hb.plotlyFigure('f09-heights', [{ type: 'heatmap', z: rows(fast), colorscale: 'Earth' }], { title: { text: 'Heights (columns follow x, rows follow y)' }, xaxis: { title: { text: 'column (x)' } }, yaxis: { title: { text: 'row (y)' }, scaleanchor: 'x' } }, 460));
const shade = hb.shadeLightness(hb.applySeaLevel(fast, 3), n);
tslab.display.html(hb.plotlyFigure('f09-shaded', [{ type: 'heatmap', z: rows(shade), colorscale: 'Greys', reversescale: true }], { title: { text: 'The seed\'s shading with sea level 3 (a picture, not heights)' }, xaxis: { title: { text: 'column (x)' } }, yaxis: { title: { text: 'row (y)' }, scaleanchor: 'x' } }, 460));
