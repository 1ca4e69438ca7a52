// -*- coding: utf-8 -*-
// %% [markdown]
// # 07b — Outer blend and R16 encoding
//
// **[D]** α = smoothstep((r − 620)/60) from the domain centre; H = (1 − α)·interior + α·outer, the outer input from its
// draw only when the draw is eligible for the request — otherwise the target's initial value (here 0 m: a cleared target, see outer.ts). Then
// u = clamp((H + 500)·0.001, 0, 1) and UNORM16 in float32.

// %%
import * as hb from './dist/api/notebook.js';
import * as tslab from 'tslab';
const session = hb.stageSession({ display: (html: string) => tslab.display.html(html) }); // tundra-r19 at 1024², all stages
const { req, grid, run, markers } = session;

// %%
console.log(`outer draw eligible: ${run.manifest.counts.outerDrawEligible}; blended pixels ${run.manifest.counts.outerBlendedPixels}, fully outer ${run.manifest.counts.outerOnlyPixels}; clamped low ${run.manifest.counts.clampedLow}, high ${run.manifest.counts.clampedHigh}`);
const pre = session.field('pre-encode');
const loc = session.field('after-locations');
const px = grid.sizeX / grid.columns;
const row = grid.rows / 2;
const xs = Array.from({ length: grid.columns }, (_, i) => grid.xmin + (i + 0.5) * px);
session.show('f07b-profile', [
  { x: xs, y: Array.from(loc.subarray(row * grid.columns, (row + 1) * grid.columns)), name: 'after locations' },
  { x: xs, y: Array.from(pre.subarray(row * grid.columns, (row + 1) * grid.columns)), name: 'after the outer blend' },
], { title: { text: 'Height along the row nearest y = 0, before and after the outer blend (band 620–680 m on both sides)' }, xaxis: { title: { text: 'x (m)' } }, yaxis: { title: { text: 'height (m)' } } }, 380);

// %%
const full = { xaxis: { title: { text: 'x (m)' } }, yaxis: { title: { text: 'y (m)' }, scaleanchor: 'x' } };
session.show('f07b-map', [hb.heatmapTrace(pre, grid, 2048)], { title: { text: 'Pre-encode height (m), whole domain: the circular blend band 620–680 m from the centre' }, ...full }, 560);

// %% [markdown]
// ## Quantization error, and why it can exceed half a code
// **[D]** One code is 1000/65535 m ≈ 15.259 mm, so rounding alone errs by at most half a code, 7.629 mm. **[D]** But the
// article's map is evaluated in float32, and each step rounds: H + 500 (≤ 0.031 mm near 521 m), the constant 0.001
// stored as float32 (≤ 0.048 mm over 1000 m), the product u (≤ 0.030 mm) and u·65535 (≤ 1/512 code = 0.030 mm). A height
// within ~0.14 mm of a code boundary can therefore land on the far side of it: the bound is half a code + 0.14 mm.

// %%
let maxErr = 0;
let worst = 0;
for (let k = 0; k < pre.length; k++) {
  const e = Math.abs(hb.decodeHeightR16(run.codes[k]) - pre[k]);
  if (e > maxErr) { maxErr = e; worst = k; }
}
const h = pre[worst];
console.log(`one code = ${(hb.metresPerCode() * 1000).toFixed(3)} mm; largest |decode(encode(H)) − H| = ${(maxErr * 1000).toFixed(4)} mm at H = ${h} m`);
console.log(`float32: H + 500 = ${Math.fround(h + 500)}, u·65535 = ${Math.fround(hb.heightToUnorm(h) * 65535)} → code ${hb.encodeHeightR16(h)}`);
if (maxErr > hb.metresPerCode() / 2 + 0.14e-3) throw new Error('encode/decode beyond half a code plus float32 rounding');
