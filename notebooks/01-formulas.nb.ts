// -*- coding: utf-8 -*-
// %% [markdown]
// # 01 — Every formula, with the article's worked numbers
//
// Each cell computes a worked example of the seed article through heightbench's public API and checks it against the
// printed digits; a mismatch stops the notebook. Labels: **[D]** a rule from the seed article, **[R]** heightbench's
// own choice, **[E]** a teaching example (simplified values that explain the mathematics, not measured terrain).

// %%
import * as hb from './dist/api/notebook.js';
import * as tslab from 'tslab';
const log = (lines: string[]) => console.log(lines.join('\n'));

// %% [markdown]
// ## Source height: margin, transition width, amplitude
// **[D]** The ordinary branch: `h = min(max(d − margin, 0) / width, 1) × amplitude`, with `d` the clamped distance
// from the location to the nearest edge of the reference region chosen by nearest centre.
// **[E]** S at (0, 0); region A spans x 104…184, y −40…40; margin 4 m, width 256 m, amplitude 35 m.

// %%
const shape = { margin: 4, transitionWidth: 256, amplitude: 35 };
log([
  hb.checkNumber('S, 104 m from A\'s left edge', hb.sourceHeight(104, shape), 13.671875, { tol: 0 }),
  hb.checkNumber('margin 20 m', hb.sourceHeight(104, { margin: 20, transitionWidth: 256, amplitude: 35 }), 11.484375, { tol: 0 }),
  hb.checkNumber('width 512 m', hb.sourceHeight(104, { margin: 4, transitionWidth: 512, amplitude: 35 }), 6.8359375, { tol: 0 }),
  hb.checkNumber('amplitude 70 m', hb.sourceHeight(104, { margin: 4, transitionWidth: 256, amplitude: 70 }), 27.34375, { tol: 0 }),
  hb.checkNumber('wrong region (B\'s 20 m edge)', hb.sourceHeight(20, shape), 2.1875, { tol: 0 }),
  ...[0, 4, 104, 260, 400].map((d, i) => hb.checkNumber(`table row d = ${d} m`, hb.sourceHeight(d, shape), [0, 0, 13.671875, 35, 35][i], { tol: 0 })),
  hb.checkNumber('amplitude normalized by 512', 35 / hb.HEIGHT_SCALE, 0.068359375, { tol: 0 }),
  hb.checkNumber('source scalar in units of 512 (same formula, normalized amplitude)', hb.sourceHeight(104, { margin: 4, transitionWidth: 256, amplitude: 35 / hb.HEIGHT_SCALE }), 0.026702880859375, { tol: 0 }),
]);
const ds = Array.from({ length: 101 }, (_, i) => i * 5);
tslab.display.html(hb.plotlyFigure('f01-source', [
  { x: ds, y: ds.map((d) => hb.sourceHeight(d, shape)), name: 'margin 4, width 256, amplitude 35' },
  { x: ds, y: ds.map((d) => hb.sourceHeight(d, { margin: 20, transitionWidth: 256, amplitude: 35 })), name: 'margin 20' },
  { x: ds, y: ds.map((d) => hb.sourceHeight(d, { margin: 4, transitionWidth: 512, amplitude: 35 })), name: 'width 512' },
  { x: ds, y: ds.map((d) => hb.sourceHeight(d, { margin: 4, transitionWidth: 256, amplitude: 70 })), name: 'amplitude 70' },
  { x: [0, 4, 104, 260, 400], y: [0, 4, 104, 260, 400].map((d) => hb.sourceHeight(d, shape)), mode: 'markers', name: 'article table' },
], { title: { text: 'Source height response' }, xaxis: { title: { text: 'distance to the reference boundary (m)' } }, yaxis: { title: { text: 'source height (m)' } } }));

// %% [markdown]
// ## Nearest centre, then nearest edge — and the clamped segment distance
// **[D]** Pick the reference region whose centre is nearest (A at 144 m beats B at 300 m), then measure only A's edges.
// The projection onto a segment is clamped: beyond an endpoint the distance is to the endpoint.

// %%
log([
  hb.checkNumber('left edge of A', hb.segmentDistance([0, 0], [104, -40], [104, 40]), 104, { tol: 0 }),
  hb.checkNumber('top edge of A (clamped to (104, 40))', hb.segmentDistance([0, 0], [104, 40], [184, 40]), 111.4271, { digits: 4 }),
  hb.checkNumber('B\'s edge — not used, B\'s centre is farther', hb.segmentDistance([0, 0], [-20, 20], [20, 20]), 20, { tol: 0 }),
  hb.checkNumber('right edge of A', hb.segmentDistance([0, 0], [184, -40], [184, 40]), 184, { tol: 0 }),
  hb.checkNumber('segment end: (14, 3) to (0,0)–(10,0)', hb.segmentDistance([14, 3], [0, 0], [10, 0]), 5, { tol: 0 }),
]);

// %% [markdown]
// **[E]** The projection onto A's left edge, U = (104, −40) to V = (104, 40): V − U = (0, 80), S − U = (−104, 40), so
// the dot product is 3200, the squared length 6400, t = 0.5 and Q = (104, 0), d = 104 m. Without the clamp, (14, 3)
// against (0, 0)–(10, 0) would project to (14, 0) at distance 3 instead of the endpoint's 5.
// **[D]** Centre selection comes first: A's centre (144, 0) is 144 m from S, B's (0, 300) is 300 m, so only A's edges
// are measured — although B's edge is only 20 m away.

// %%
const proj = hb.segmentProjection([0, 0], [104, -40], [104, 40]);
const unclamped = hb.segmentProjection([14, 3], [0, 0], [10, 0]);
const teachRect = (x0: number, x1: number, y0: number, y1: number): [number, number][] => [[x0, y0], [x1, y0], [x1, y1], [x0, y1]];
const teachPolys = [teachRect(104, 184, -40, 40), teachRect(-20, 20, 20, 580)];
const teachCentres: [number, number][] = [[144, 0], [0, 300]];
const teachView = {
  cellCentre: (c: number) => teachCentres[c],
  *cellEdges(c: number): Iterable<[[number, number], [number, number]]> {
    for (let k = 0; k < 4; k++) yield [teachPolys[c][k], teachPolys[c][(k + 1) % 4]];
  },
};
const chosen = hb.nearestCentreThenEdge(teachView as unknown as Parameters<typeof hb.nearestCentreThenEdge>[0], [0, 1], [0, 0]);
log([
  hb.checkNumber('(S − U)·(V − U)', proj.dot, 3200, { tol: 0 }),
  hb.checkNumber('|V − U|²', proj.len2, 6400, { tol: 0 }),
  hb.checkNumber('t', proj.t, 0.5, { tol: 0 }),
  hb.checkNumber('Q.x', proj.q[0], 104, { tol: 0 }),
  hb.checkNumber('Q.y', proj.q[1], 0, { tol: 0 }),
  hb.checkNumber('d = |S − Q|', proj.distance, 104, { tol: 0 }),
  hb.checkNumber('unclamped distance to the line', unclamped.lineDistance, 3, { tol: 0 }),
  hb.checkNumber('clamped distance to the segment', unclamped.distance, 5, { tol: 0 }),
  hb.checkNumber('distance to A\'s centre', hb.segmentDistance([0, 0], teachCentres[0], teachCentres[0]), 144, { tol: 0 }),
  hb.checkNumber('distance to B\'s centre', hb.segmentDistance([0, 0], teachCentres[1], teachCentres[1]), 300, { tol: 0 }),
  hb.checkNumber('chosen region (0 = A)', chosen.cell, 0, { tol: 0 }),
  hb.checkNumber('its boundary distance', chosen.distance, 104, { tol: 0 }),
]);
tslab.display.html(hb.plotlyFigure('f01-regions', [
  { x: [104, 184, 184, 104, 104], y: [-40, -40, 40, 40, -40], name: 'A (centre 144 m away)', fill: 'toself' },
  { x: [-20, 20, 20, -20, -20], y: [20, 20, 580, 580, 20], name: 'B (centre 300 m away)', fill: 'toself' },
  { x: [0, 104], y: [0, 0], mode: 'lines+markers', name: 'd = 104 m (chosen)' },
  { x: [0, 0], y: [0, 20], mode: 'lines', line: { dash: 'dot' }, name: 'nearest edge overall (20 m, not used)' },
], { title: { text: 'Nearest centre vs nearest edge' }, xaxis: { title: { text: 'x (m, from the sample)' } }, yaxis: { title: { text: 'y (m, from the sample)' }, scaleanchor: 'x' } }));

// %% [markdown]
// ## Corner weights: sixth power, the jump at 96 m, the strong negative branch
// **[D]** `d < 0 → 1000; 0 ≤ d < 512 → (1 − d/512)⁶; else 0`, then strictly for `d < 96`: × `(1 − d/96) × 10`.
// The discontinuity at 96 m is part of the rule and is kept.

// %%
log([
  hb.checkNumber('w(128)', hb.sourceWeight(128), 0.177978515625, { tol: 0 }),
  hb.checkNumber('w(256)', hb.sourceWeight(256), 0.015625, { tol: 0 }),
  hb.checkNumber('w(384)', hb.sourceWeight(384), 0.000244140625, { tol: 0 }),
  hb.checkNumber('near factor at 0 m (w(0))', hb.sourceWeight(0), 10, { tol: 0 }),
  hb.checkNumber('near factor at 48 m', hb.sourceWeight(48) / (1 - 48 / 512) ** 6, 5, { tol: 1e-12 }),
]);

// %% [markdown]
// **[E]** A radial offset shifts the whole curve: centre distance 120 m with offset 40 m is weighted at 80 m — inside
// the near range, so the ×(1 − d/96)×10 factor applies — while offset 0 leaves 120 m.

// %%
const d80 = hb.adjustedDistance(120, 0, { x: 0, y: 0, envelope: 40 });
log([
  hb.checkNumber('120 − 40', d80, 80, { tol: 0 }),
  hb.checkNumber('offset 0', hb.adjustedDistance(120, 0, { x: 0, y: 0, envelope: 0 }), 120, { tol: 0 }),
  `weight at 80 m ${hb.sourceWeight(d80)} (near range) against ${hb.sourceWeight(120)} at 120 m`,
]);
if (!(hb.sourceWeight(d80) > hb.sourceWeight(120))) throw new Error('the offset must strengthen the source');
const wd = Array.from({ length: 700 }, (_, i) => -50 + i);
tslab.display.html(hb.plotlyFigure('f01-weights', [
  { x: wd, y: wd.map((d) => hb.sourceWeight(d)), name: 'source weight' },
  { x: wd, y: wd.map((d) => hb.selfWeight(d)), name: 'self weight' },
  { x: [128, 256, 384], y: [128, 256, 384].map((d) => hb.sourceWeight(d)), mode: 'markers', name: '128, 256, 384 m' },
], { title: { text: 'Corner weights (log scale): jump at 96 m, 1000 × near factor below 0' }, yaxis: { type: 'log', title: { text: 'weight' } }, xaxis: { title: { text: 'adjusted distance d (m)' } } }));

// %% [markdown]
// ## Corners C₁ and C₂, and the self term
// **[E]** S (13.671875 m) at (0, 0), a zero-height source T at (−128, 0); C₁ = (128, 0), C₂ = (256, 0); self terms
// 5 m at weight 1. All terms are normalized together: `h = (Σ w·h + self) / (Σ w + w_self)`.

// %%
const S = hb.sourceHeight(104, shape);
const c1 = hb.blendCorner([{ height: S, weight: hb.sourceWeight(128) }, { height: 0, weight: hb.sourceWeight(256) }], { height: 5, weight: 1 });
const c2 = hb.blendCorner([{ height: S, weight: hb.sourceWeight(256) }, { height: 0, weight: hb.sourceWeight(384) }], { height: 5, weight: 1 });
const c1NoT = hb.blendCorner([{ height: S, weight: hb.sourceWeight(128) }], { height: 5, weight: 1 });
const t1 = hb.blendTerms([{ height: S, weight: hb.sourceWeight(128) }, { height: 0, weight: hb.sourceWeight(256) }], { height: 5, weight: 1 });
const t2 = hb.blendTerms([{ height: S, weight: hb.sourceWeight(256) }, { height: 0, weight: hb.sourceWeight(384) }], { height: 5, weight: 1 });
const pair = [{ height: 20, weight: 1 }, { height: 0, weight: 1 }];
const sourcesOnly = hb.blendCorner(pair, { weight: 0 });
log([
  hb.checkNumber('numerator N of C₁', t1.numerator, 7.4333000183, { digits: 10 }),
  hb.checkNumber('numerator N of C₂', t2.numerator, 5.213623046875, { tol: 0 }),
  hb.checkNumber('denominator D₂', t2.denominator, 1.015869140625, { tol: 0 }),
  hb.checkNumber('self weight 3: (20 + 0 + 3·5)/(1 + 1 + 3)', hb.blendCorner(pair, { height: 5, weight: 3 }), 7, { tol: 0 }),
  hb.checkNumber('wrong: average of (source average, self) — right only for weight 2', hb.blendCorner([{ height: sourcesOnly, weight: 1 }], { height: 5, weight: 1 }), 7.5, { tol: 0 }),
  hb.checkNumber('wrong: source average plus the self height', sourcesOnly + 5, 15, { tol: 0 }),
  hb.checkNumber('without the zero-height source', hb.blendCorner([{ height: 20, weight: 1 }], { weight: 0 }), 20, { tol: 0 }),
  hb.checkNumber('C₁', c1, 6.227612, { digits: 6 }),
  hb.checkNumber('C₂', c2, 5.13218, { digits: 6 }),
  hb.checkNumber('C₁ without the zero source T', c1NoT, 6.310217, { digits: 6 }),
  hb.checkNumber('denominator of C₁', hb.sourceWeight(128) + hb.sourceWeight(256) + 1, 1.193603515625, { tol: 0 }),
  hb.checkNumber('self term with weight 2: (20 + 0 + 2·5)/(1 + 1 + 2)', hb.blendCorner([{ height: 20, weight: 1 }, { height: 0, weight: 1 }], { height: 5, weight: 2 }), 7.5, { tol: 0 }),
  hb.checkNumber('zero-height source still counts: 20 and 0 → 10', hb.blendCorner([{ height: 20, weight: 1 }, { height: 0, weight: 1 }], { weight: 0 }), 10, { tol: 0 }),
]);
tslab.display.html(hb.plotlyFigure('f01-corners', [
  { type: 'bar', x: ['C₁', 'C₂', 'C₁ without T'], y: [c1, c2, c1NoT], text: [c1, c2, c1NoT].map((v) => v.toFixed(6)), textposition: 'outside' },
], { title: { text: 'Corner heights (m)' }, xaxis: { title: { text: 'corner' } }, yaxis: { title: { text: 'height (m)' }, range: [0, 8] } }, 320));

// %% [markdown]
// ## Barycentric and bilinear interpolation; the half-pixel shift
// **[E]** P = (2, 3) in A(0,0), B(10,0), C(0,10) with heights 0/10/20 → weights 0.5, 0.2, 0.3 and 8 m.
// **[E]** Bilinear 0, 10, 20, 30 at fx 0.25, fy 0.5 → 2.5 and 22.5 along the rows, then 12.5.
// **[D]** Pixel centres sit at +0.5: forgetting it shifts every sample by 0.25 m at 0.5 m per pixel — 0.25 m of height
// on a slope of 1 m per metre.

// %%
const lam = hb.barycentric([2, 3], [0, 0], [10, 0], [0, 10]);
log([
  hb.checkNumber('λ0', lam[0], 0.5, { digits: 12 }),
  hb.checkNumber('λ1', lam[1], 0.2, { digits: 12 }),
  hb.checkNumber('λ2', lam[2], 0.3, { digits: 12 }),
  hb.checkNumber('h(P)', hb.barycentricHeight([2, 3], [0, 0], [10, 0], [0, 10], [0, 10, 20]), 8, { digits: 12 }),
  hb.checkNumber('AB midpoint (5, 0): C\'s weight', hb.barycentric([5, 0], [0, 0], [10, 0], [0, 10])[2], 0, { tol: 0 }),
  hb.checkNumber('AB midpoint height', hb.barycentricHeight([5, 0], [0, 0], [10, 0], [0, 10], [0, 10, 20]), 5, { digits: 12 }),
  hb.checkNumber('bilinear row a', hb.bilinear(0, 10, 20, 30, 0.25, 0), 2.5, { tol: 0 }),
  hb.checkNumber('bilinear row b', hb.bilinear(0, 10, 20, 30, 0.25, 1), 22.5, { tol: 0 }),
  hb.checkNumber('bilinear', hb.bilinear(0, 10, 20, 30, 0.25, 0.5), 12.5, { tol: 0 }),
  hb.checkNumber('first texel centre, 4096 over 2048 m', hb.texelCentreWorld(0, 0, 2048, 4096), 0.25, { tol: 0 }),
  hb.checkNumber('last texel centre', hb.texelCentreWorld(4095, 0, 2048, 4096), 2047.75, { tol: 0 }),
  hb.checkNumber('shift on a 1 m/m slope (pixel corner instead of centre)', hb.texelCentreWorld(0, 0, 2048, 4096) - 0, 0.25, { tol: 0 }),
  hb.checkNumber('4096 → 2048: first sample reads source', hb.resampleSourceCoord(0, 4096, 2048), 0.5, { tol: 0 }),
  hb.checkNumber('4097² vertex grid: first vertex', hb.vertexWorld(0, 0, 2048, 4097), 0, { tol: 0 }),
  hb.checkNumber('4097² vertex grid: last vertex', hb.vertexWorld(4096, 0, 2048, 4097), 2048, { tol: 0 }),
]);

// %% [markdown]
// **[E]** Two ADD layers into one float target: a pixel given 3 m by the first layer and 2 m by the second holds 5 m;
// where the second layer does not reach, it keeps 3 m. Drawn here with heightbench's rasterizer on a 4 × 4 target.

// %%
const cover = (h: number, x1: number) => ({ xyh: Float64Array.of(-1, -1, h, x1, -1, h, -1, 9, h), count: 1, polygon: Int32Array.of(0) });
const target = new Float64Array(16);
const grid4 = { xmin: 0, ymin: 0, size: 4, n: 4 };
hb.rasterizeTriangles(cover(3, 20), grid4, target, 'f64'); // covers every pixel
hb.rasterizeTriangles(cover(2, 1.2), grid4, target, 'f64'); // covers only the pixels near the origin
log([
  hb.checkNumber('both layers: 3 + 2', target[0], 5, { tol: 1e-12 }),
  hb.checkNumber('first layer only', target[3 * 4 + 3], 3, { tol: 1e-12 }),
]);

// %% [markdown]
// ## Smoothing levels and the asset texel
// **[D]** A texel spans 0.5 m at 4096², 1 m at 2048², 2 m at 1024² and 4 m at 512² over 2048 m; the five filter weights
// sum to about 1.000002 and are not renormalized.
// **[E]** A 256² asset over 32 m has 0.125 m texels; drawn into 0.5 m pixels, one pixel spans about 4 texels per axis
// (LOD 2).

// %%
log([
  ...[4096, 2048, 1024, 512].map((n, i) => hb.checkNumber(`texel at ${n}²`, hb.texelCentreWorld(1, 0, 2048, n) - hb.texelCentreWorld(0, 0, 2048, n), [0.5, 1, 2, 4][i], { tol: 0 })),
  hb.checkNumber('weight sum', hb.SMOOTHING_TAPS.weights.reduce((a, b) => a + b, 0), 1.000002, { tol: 1e-12 }),
  hb.checkNumber('asset texel (m)', hb.texelCentreWorld(1, 0, 32, 256) - hb.texelCentreWorld(0, 0, 32, 256), 0.125, { tol: 0 }),
  hb.checkNumber('texels per pixel (2^LOD)', 2 ** hb.footprintLod({ size: 256 } as unknown as hb.HeightAsset, 32, 0.5), 4, { tol: 0 }),
]);

// %% [markdown]
// ## Weighted selection, the category allow-list, clearance
// **[E]** Weights 2, 1, 7 with the third excluded → 2/3 and 1/3. Allow-lists [2, 5] pass, [4, 5] fail, [] is
// unrestricted for the request's [1, 2, 6]. Clearance 10 required: 9 rejected, 10 and 11 accepted.

// %%
const probs = hb.selectionProbabilities([{ weight: 2, eligible: true }, { weight: 1, eligible: true }, { weight: 7, eligible: false }]);
log([
  hb.checkNumber('P(A)', probs[0], 2 / 3, { tol: 1e-15 }),
  hb.checkNumber('P(B)', probs[1], 1 / 3, { tol: 1e-15 }),
  hb.checkNumber('P(C), excluded', probs[2], 0, { tol: 0 }),
  `allow [2,5]: ${hb.categoryAllows([2, 5], [1, 2, 6])}; allow [4,5]: ${hb.categoryAllows([4, 5], [1, 2, 6])}; allow []: ${hb.categoryAllows([], [1, 2, 6])}`,
  `clearance 9/10/11 against 10: ${[9, 10, 11].map((a) => hb.clearanceAccepts(a, 10)).join(', ')}`,
]);
if (hb.categoryAllows([4, 5], [1, 2, 6]) || !hb.clearanceAccepts(10, 10) || hb.clearanceAccepts(9, 10)) throw new Error('admission rules broken');

// %% [markdown]
// ## Support: parent–child averaging and the extent factor
// **[E]** Parent 12 m, children 8 m and 20 m at weights 0.5 and 0.25 → 12 m; without the second child → 10.667 m.
// **[D]** `k = (1 − t) + t·relief`. **[E]** With t = 0.5, relief 0.2 → 0.6 and relief 1 → 1 (the article's teaching case).

// %%
log([
  hb.checkNumber('parent with both children', hb.parentChildReference(12, [{ height: 8, weight: 0.5 }, { height: 20, weight: 0.25 }]), 12, { tol: 0 }),
  hb.checkNumber('without the second child', hb.parentChildReference(12, [{ height: 8, weight: 0.5 }]), 10.667, { digits: 3 }),
  hb.checkNumber('k(t 0.5, relief 0.2)', hb.supportExtentFactor(0.5, 0.2), 0.6, { digits: 12 }),
  hb.checkNumber('k(t 0.5, relief 1)', hb.supportExtentFactor(0.5, 1), 1, { tol: 0 }),
]);

// %% [markdown]
// ## Transform order and mip weights
// **[E]** (10, 0) rotated by 90° then moved by (100, 50) → (100, 60); moved first → (−50, 110).
// **[D]** Trilinear mip filtering blends the two neighbouring levels. **[E]** LOD 2.25 blends levels 2 and 3 at 0.75 and
// 0.25 (the article's conceptual example).

// %%
const p1 = hb.transformPoint(hb.chain(hb.rotation(Math.PI / 2), hb.translation(100, 50)), [10, 0]);
const p2 = hb.transformPoint(hb.chain(hb.translation(100, 50), hb.rotation(Math.PI / 2)), [10, 0]);
const mw = hb.mipWeights(2.25);
log([
  hb.checkNumber('rotate, then move: x', p1[0], 100, { tol: 1e-12 }),
  hb.checkNumber('rotate, then move: y', p1[1], 60, { tol: 1e-12 }),
  hb.checkNumber('move, then rotate: x', p2[0], -50, { tol: 1e-12 }),
  hb.checkNumber('move, then rotate: y', p2[1], 110, { tol: 1e-12 }),
  `mip levels ${mw.lower}, ${mw.upper} at ${mw.weightLower}, ${mw.weightUpper}`,
]);
if (mw.lower !== 2 || mw.upper !== 3 || mw.weightLower !== 0.75) throw new Error('mip weights');

// %% [markdown]
// ## Outer blend: smoothstep band
// **[E]** Interior 20 m, outer −2 m: 20 at 620 m, 16.5625 at 635 m, 9 at 650 m, 1.4375 at 665 m, −2 at 680 m.

// %%
log([620, 635, 650, 665, 680].map((r, i) => hb.checkNumber(`r = ${r} m`, hb.smoothstepBlend(r, 20, -2), [20, 16.5625, 9, 1.4375, -2][i], { tol: 1e-12 })));
// **[E]** The weights themselves: α = 0.15625 at 635 m and 0.84375 at 665 m. **[D]** The band is radial: (500, 500) is
// inside both 620 m limits along x and y, yet its radius ≈ 707.1 m is beyond the band (α = 1).
const r500 = Math.hypot(500, 500);
log([
  hb.checkNumber('α(635)', hb.outerBlendWeight(635), 0.15625, { tol: 0 }),
  hb.checkNumber('α(665)', hb.outerBlendWeight(665), 0.84375, { tol: 0 }),
  hb.checkNumber('radius of (500, 500)', r500, 707.1, { digits: 1 }),
  hb.checkNumber('α there', hb.outerBlendWeight(r500), 1, { tol: 0 }),
]);
const rr = Array.from({ length: 121 }, (_, i) => 590 + i);
tslab.display.html(hb.plotlyFigure('f01-outer', [
  { x: rr, y: rr.map((r) => hb.smoothstepBlend(r, 20, -2)), name: 'blended height' },
  { x: [635, 650, 665], y: [16.5625, 9, 1.4375], mode: 'markers', name: 'article values' },
], { title: { text: 'Outer blend across 620–680 m' }, xaxis: { title: { text: 'radius (m)' } }, yaxis: { title: { text: 'height (m)' } } }, 320));

// %% [markdown]
// ## R16: the code unit and the RMS of a mostly-exact map
// **[D]** `u = clamp((H + 500) × 0.001, 0, 1)` in float32, then UNORM16; one code = 1000/65535 m ≈ 1.526 cm. A map
// matching everywhere but k of N pixels at ±1 has RMS = sqrt(k/N) × 1000/65535 m: the article's 35,171 of 16,777,216
// pixels give ≈ 0.699 mm.

// %%
const unit = hb.metresPerCode();
log([
  hb.checkNumber('one code (cm)', unit * 100, 1.526, { digits: 3 }),
  hb.checkNumber('exact share (%)', (16742045 / 16777216) * 100, 99.7904, { digits: 4 }),
  hb.checkNumber('RMS (mm)', Math.sqrt((16777216 - 16742045) / 16777216) * unit * 1000, 0.699, { digits: 3 }),
  hb.checkNumber('max |Δ| of one code (mm)', unit * 1000, 15.259, { digits: 3 }),
  `encode 13.671875 m → code ${hb.encodeHeightR16(13.671875)} → ${hb.decodeHeightR16(hb.encodeHeightR16(13.671875)).toFixed(6)} m`,
]);
