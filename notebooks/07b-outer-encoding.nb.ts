// %% [markdown]
// # 07b — Outer blend and R16 encoding
//
// **[D]** α = smoothstep((r − 620)/60) from the domain centre; H = (1 − α)·interior + α·outer, the outer input from its
// draw only when the draw is eligible for the request — otherwise the target's initial value (here −2 m). Then
// u = clamp((H + 500)·0.001, 0, 1) and UNORM16 in float32.
// %%
import * as hb from './dist/index.js';
import * as tslab from 'tslab';
const req = hb.loadRequest('tundra-r19', 1024);
const grid = hb.requestGrid(req);
const run = hb.runPipeline(req, { precision: 'f32', keep: [...hb.FIELD_STAGES] });
const W = 1024;
const markers = hb.missionMarkers(run.plan);
const show = (id: string, traces: hb.Trace[], layout: Record<string, unknown> = {}, h = 420) => tslab.display.html(hb.plotlyFigure(id, traces, layout, h));
const field = (s: string) => run.fields.get(s) as Float32Array;
const square = { xaxis: { title: { text: 'x (m)' } }, yaxis: { title: { text: 'y (m)' }, scaleanchor: 'x' } };
/** Input and output of a stage on one colour scale, then their difference on a symmetric scale, with markers #0–#5. */
function stageFigures(prefix: string, before: string, after: string) {
  const a = field(before);
  const b = field(after);
  let lo = Infinity;
  let hi = -Infinity;
  for (const f of [a, b]) for (const v of hb.cropCentre(f, grid, W).data) { lo = Math.min(lo, v); hi = Math.max(hi, v); }
  show(`${prefix}-before`, [hb.heatmapTrace(a, grid, W, { zmin: lo, zmax: hi }), markers], { title: { text: `${before} (central ${W} m)` }, ...square });
  show(`${prefix}-after`, [hb.heatmapTrace(b, grid, W, { zmin: lo, zmax: hi }), markers], { title: { text: `${after} (same colour scale)` }, ...square });
  const d = hb.difference(b, a);
  const m = hb.symmetricLimit(d, grid, W);
  show(`${prefix}-delta`, [hb.heatmapTrace(d, grid, W, { zmin: -m, zmax: m, colorscale: 'RdBu', title: 'Δ m' }), markers], { title: { text: `${after} − ${before}: ${hb.rangeOf(hb.cropCentre(d, grid, W).data).min.toFixed(3)} … ${hb.rangeOf(hb.cropCentre(d, grid, W).data).max.toFixed(3)} m, symmetric scale` }, ...square });
}
/** Inner-400 m RMS of a stage against the DVC reference dump (f64 path) of tundra-r19 at 1024². */
function againstReference(stage: string) {
  const ref = hb.referenceStage('tundra-r19-1024', stage);
  if (!ref) return console.log(`no reference dump for ${stage} (run make reproduce first)`);
  const r = hb.stageAgainstReference(field(stage), grid, ref);
  console.log(`${stage} vs reference: inner-400 m RMS ${r.innerRmsMm.toExponential(3)} mm, max ${r.innerMaxAbsMm.toExponential(3)} mm`);
}
// %%
console.log(`outer draw eligible: ${run.manifest.counts.outerDrawEligible}; blended pixels ${run.manifest.counts.outerBlendedPixels}, fully outer ${run.manifest.counts.outerOnlyPixels}; clamped low ${run.manifest.counts.clampedLow}, high ${run.manifest.counts.clampedHigh}`);
const pre = field('pre-encode');
const loc = field('after-locations');
const px = grid.sizeX / grid.columns;
const row = grid.rows / 2;
const xs = Array.from({ length: grid.columns }, (_, i) => grid.xmin + (i + 0.5) * px);
show('f07b-profile', [
  { x: xs, y: Array.from(loc.subarray(row * grid.columns, (row + 1) * grid.columns)), name: 'after locations' },
  { x: xs, y: Array.from(pre.subarray(row * grid.columns, (row + 1) * grid.columns)), name: 'after the outer blend' },
], { title: { text: 'Profile along y ≈ 0: the band 620–680 m on both sides' }, xaxis: { title: { text: 'x (m)' } } }, 380);
// %%
const full = { xaxis: { title: { text: 'x (m)' } }, yaxis: { title: { text: 'y (m)' }, scaleanchor: 'x' } };
show('f07b-map', [hb.heatmapTrace(pre, grid, 2048)], { title: { text: 'Pre-encode field, whole domain: the circular band inside the square' }, ...full }, 560);
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
