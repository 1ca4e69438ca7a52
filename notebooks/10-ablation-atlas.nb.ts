// -*- coding: utf-8 -*-
// %% [markdown]
// # 10 — The ablation atlas: what each broken convention looks like
//
// The article warns about a dozen slips, each of which still produces a plausible heightmap. The atlas
// (`heightbench atlas`, `reports/atlas/index.html`) breaks each convention on purpose through the conventions
// declaration and compares the run with the correct one; `diagnose` then reads the difference field and names the
// likely cause. This notebook runs a handful of ablations at 256² (fast) and explains why each map looks the way it
// does; the rest come from the committed 1024² metrics at the end.
//
// Labels: **[D]** a rule the article states, **[R]** heightbench's choice, **[E]** a teaching example computed here.
// Every map below is ablation − correct (metres), the signed largest |Δ| per 4×4-pixel block of the pre-encode field,
// north up, each on its own symmetric scale (the atlas page puts all of them on one shared signed-log scale).

// %%
import * as hb from './dist/api/notebook.js';
import * as tslab from 'tslab';
import { existsSync, readFileSync } from 'node:fs';
const req = hb.loadRequest('tundra-r19', 256);
const grid = hb.requestGrid(req);
const shown = ['pixel-corner-samples', 'integer-taps', 'renormalized-weights', 'unfiltered-raster', 'wrap-addressing', 'flipped-rows', 'gaussian-corner-weights', 'sorted-draw-order'];
const atlas = hb.buildAtlas(req, { ablations: hb.ABLATIONS.filter((a) => shown.includes(a.name)) });
const entry = (name: string) => atlas.entries.find((e) => e.name === name)!;
const reading = (e: hb.AtlasEntry) => e.diagnosisAtFirstStage ?? e.diagnosis;
/** One ablation's block map as a heatmap in world metres, on a symmetric diverging scale. */
function showMap(name: string, title: string): void {
  const e = entry(name);
  const m = e.map;
  const z = Array.from({ length: m.rows }, (_, j) => Array.from(m.signedMaxM.subarray(j * m.columns, (j + 1) * m.columns), (v) => Number(v.toPrecision(4))));
  const x = Array.from({ length: m.columns }, (_, i) => hb.columnWorldX(grid, (i + 0.5) * m.block - 0.5));
  const y = Array.from({ length: m.rows }, (_, j) => hb.rowWorldY(grid, (j + 0.5) * m.block - 0.5));
  const lim = m.maxAbsM || 1;
  tslab.display.html(hb.plotlyFigure(`f10-${name}`, [{ type: 'heatmap', z, x, y, zmin: -lim, zmax: lim, colorscale: hb.plotlyColorscale(hb.DIVERGING_STOPS), colorbar: { title: { text: 'Δ (m)' } } }],
    { ...hb.mapLayout(`${name}: ${title}`, grid) }, 480));
  const d = reading(e);
  console.log(`${name}: exact codes ${e.final.exactPercent.toFixed(3)} %, float RMS ${e.final.floatRmsMm.toPrecision(4)} mm, first divergent stage ${e.firstDivergentStage ?? 'none'}`);
  console.log(`diagnose [${d.stage}]: ${d.summary}${e.namedFirst === null ? '' : e.namedFirst ? '  ✓ expected signature named first' : '  ✗ expected ' + e.expect!.join(' or ')}`);
}

// %% [markdown]
// ## Pixel corners instead of pixel centres
// **[D]** Pixel i lies at xmin + (i + 0.5)·L/N. Sampling at i + 0 instead reads every point half a pixel lower in x
// and in y, so the whole map is the correct one moved by half a pixel: Δ ≈ −0.5·(∂H/∂x + ∂H/∂y). **[E]** The map is
// therefore red on slopes that fall toward +x and +y and blue on the others; it follows the terrain's slopes, not its
// heights. diagnose fits ∂H/∂x and ∂H/∂y and recovers about −0.5 texel along both axes.

// %%
showMap('pixel-corner-samples', 'sampled at i + 0 instead of i + 0.5');
const pc = reading(entry('pixel-corner-samples')).coefficients;
console.log(`[E] recovered shift: x ${pc.shiftX!.toFixed(3)}, y ${pc.shiftY!.toFixed(3)} texel (predicted −0.5, −0.5)`);

// %% [markdown]
// ## Integer taps
// **[D]** The five taps sit at fractional offsets −4.30908, −2.37532, −0.5, 1.37532, 3.30908 with weights 0.055028,
// 0.244038, 0.401870, 0.244038, 0.055028; the fractions are what bilinear sampling turns into a smooth kernel.
// **[E]** Rounding the offsets moves the kernel's weighted mean from Σw·o to Σw·round(o): the shift per pass below.
// Each level applies it in its own texels (1, 2, 4, 8 pixels of N), so the N/4 level moves by 7 per-pass shifts and
// the N/8 level by 15; the base, half of each, lies in between. A shift again: the map follows the slopes.

// %%
const w = [0.055028, 0.244038, 0.40187, 0.244038, 0.055028];
const o = [-4.30908, -2.37532, -0.5, 1.37532, 3.30908];
const perPass = w.reduce((s, wk, k) => s + wk * (Math.round(o[k]) - o[k]), 0);
console.log(`[E] mean tap offset moves by ${perPass.toFixed(6)} texel per pass; N/4 level ${(7 * perPass).toFixed(3)}, N/8 level ${(15 * perPass).toFixed(3)} pixels of N`);
showMap('integer-taps', 'tap offsets rounded to integers');
const it = reading(entry('integer-taps')).coefficients;
console.log(`[E] recovered shift at the base: x ${it.shiftX!.toFixed(3)}, y ${it.shiftY!.toFixed(3)} pixels (between ${(7 * perPass).toFixed(2)} and ${(15 * perPass).toFixed(2)})`);

// %% [markdown]
// ## Renormalised weights
// **[D]** The weights sum to 1.000002 and must not be renormalised. Dividing by the sum scales every pass by
// 1/1.000002, so the base is the correct one scaled about 0 m by a factor between (1/1.000002)⁸ and (1/1.000002)⁶
// (the N/4 and N/8 levels have been through six and eight passes). **[E]** Δ is then proportional to the height
// itself: the map looks like the terrain, negative where the ground is high, positive where it lies below 0 m.
// diagnose fits H − mean (a gain) plus the matching bias and reports the factor.

// %%
showMap('renormalized-weights', 'weights divided by their sum 1.000002');
const s = 1 / w.reduce((a, b) => a + b, 0);
console.log(`[E] predicted factor between ${(s ** 8).toFixed(8)} and ${(s ** 6).toFixed(8)}; diagnose: ×${reading(entry('renormalized-weights')).top!.value.toFixed(8)}`);

// %% [markdown]
// ## The N² raster left unfiltered
// **[D]** "Starting with the 4096² floating-point field … applying the corresponding filters at each level": the full
// resolution is filtered too. Skipping that filter removes one blur, so the base is sharper: Δ is a Laplacian —
// largest on ridges and valley floors, near zero on even slopes. **[E]** diagnose's blur terms B_s H − H approximate
// s²/4·∇²H; their coefficients come out negative ("sharper"), and together they explain nearly all of Δ.

// %%
showMap('unfiltered-raster', 'the N² level not filtered');

// %% [markdown]
// ## Wrap addressing
// **[D]** "With clamp addressing, samples outside the texture remain at its edge." Wrapping reads the opposite side
// instead, so only pixels whose taps cross the border change: a band along the edges, as wide as the chain's reach
// (the coarsest level's texels are 8 pixels of N wide). **[R]** The atlas diagnoses with an edge band of 8 pixels (one N/8
// texel); diagnose's default of 4 leaves just under half the residual in the band at 1024². **[E]** The outer blend
// replaces everything beyond 680 m from the centre, so at 1024² and above the final map does not change at all.

// %%
showMap('wrap-addressing', 'wrap instead of clamp in the smoothing chain');

// %% [markdown]
// ## Flipped row direction
// **[R]** Row 0 at ymin is heightbench's row direction (the article asks for an explicit one without choosing it).
// Storing row 0 at ymax reverses every field, so Δ(j) = H(N − 1 − j) − H(j): the map is antisymmetric about the
// middle row. No smooth signature fits that; diagnose's direct check undoes the flip and finds nothing left.

// %%
showMap('flipped-rows', 'rows stored from ymax');

// %% [markdown]
// ## No clean signature: Gaussian corner weights and sorted draws
// **[D]** "Replacing it with a Gaussian changes the algorithm": corner heights change by amounts set by where the
// sources are, not by the shape of the correct map, so no field computed from the reference predicts Δ — diagnose
// says nothing explains it. **[D]** Draw order matters only where max/min/lerp stamps overlap: a few patches.

// %%
showMap('gaussian-corner-weights', 'exp(−½(d/128 m)²) instead of (1 − d/512)⁶');
showMap('sorted-draw-order', 'draws sorted by asset key');

// %% [markdown]
// ## Every ablation: why it has (or has not) a signature, and its 1024² figures
// The full atlas for tundra-r19 at 1024² is a DVC stage (`make reproduce` → reports/atlas); its metrics are committed
// (reports/atlas/metrics.json). The confusion table there is a consistency check (both runs are heightbench's); the
// independent validation on real elevation data is test/diagnose.test.ts (README, "Diagnosing a difference").

// %%
const metricsPath = 'reports/atlas/metrics.json';
const m = existsSync(metricsPath) ? JSON.parse(readFileSync(metricsPath, 'utf8')) : null;
const rows = hb.ABLATIONS.map((a) => {
  const x = m?.ablations?.[a.name];
  const fig = x ? `${x.exactPercent.toFixed(3)} | ${x.rmsMm.toPrecision(4)} | ${x.firstDivergentStage} | ${x.topDiagnosis}${x.namedFirst === null ? '' : x.namedFirst ? ' ✓' : ' ✗'}` : '– | – | – | –';
  return `| ${a.name} | ${a.expect ? a.expect.join(', ') : '(none)'} | ${fig} | ${hb.SIGNATURE_NOTES[a.name]} |`;
});
tslab.display.markdown([
  m ? `**${m.request} at ${m.size}²**: diagnose names ${m.namedFirst} of ${m.withSignature} expected signatures first.` : 'reports/atlas/metrics.json is missing (run `make reproduce`).',
  '',
  '| ablation | expected | exact codes % | RMS mm | first divergent stage | top diagnosis | why |',
  '|---|---|---|---|---|---|---|',
  ...rows,
].join('\n'));
