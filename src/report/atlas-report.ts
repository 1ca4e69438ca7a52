/**
 * Writes an atlas (src/experiments/atlas.ts) into a folder: `index.html` (every block difference map in a grid on one
 * shared diverging scale; a table sorted by effect; per-mask metrics; radial and per-stage profiles drawn by Plotly,
 * offline; the validation section — the confusion table and why some ablations have no clean signature),
 * `atlas.json` (every number), `metrics.json` (the small per-ablation summary DVC tracks), `timings.json` (wall times:
 * the only file that changes between two runs of one request — .dvcignore keeps it out of every hash), `maps/<name>.png`,
 * `scale.png`, and `plotly.min.js` unless a shared copy is linked.
 * The folder is built under a temporary name beside DIR and moved into place at the end, so an interrupted run never
 * leaves a partial atlas under DIR; an existing atlas in DIR is replaced only then. A DIR holding anything other than
 * the files an atlas writes is refused.
 */
import { existsSync, mkdirSync, readdirSync, renameSync, rmSync, statSync } from 'node:fs';
import { basename, dirname, join, relative, sep } from 'node:path';
import { randomBytes } from 'node:crypto';
import { MismatchError } from '../errors.js';
import { copyFileAtomic, ensureSharedCopy, hiddenBase, writeFileAtomic } from '../io/atomic.js';
import { escapeHtml, pathHref, safeUrl } from '../core/html.js';
import { DIVERGING_STOPS, diverging, plotlyColorscale, scalarPng } from './pictures.js';
import { plotlyPath } from './comparison-report.js';
import { DEFAULT_MASKS as M } from '../compare/masks.js';
import { ATLAS_FIT_PIXELS, ATLAS_STAGES, DIVERGENCE_MM, type Atlas, type AtlasEntry } from '../experiments/atlas.js';
import { pageCss } from './page-style.js';
import { atlasValidation, readingOf, topDiagnosis } from '../experiments/atlas-validation.js';

/**
 * [R] The shared diverging scale is signed-logarithmic: t = sign(v)·ln(1 + |v|/v0) / ln(1 + S/v0), S the largest
 * |block value| of the whole atlas and v0 = 1 µm, so a 2 m shift and a 0.1 mm rounding difference are both visible on
 * the same scale (a linear one would leave every sub-millimetre map white).
 */
export const SCALE_FLOOR_M = 1e-6;

/** The names an atlas folder may hold (a folder holding anything else is not replaced). */
export const ATLAS_FILES = Object.freeze(['index.html', 'atlas.json', 'metrics.json', 'timings.json', 'scale.png', 'maps', 'plotly.min.js']);

export function scaleColour(v: number, S: number): ReturnType<typeof diverging> {
  const top = Math.log1p((S > 0 ? S : 1) / SCALE_FLOOR_M);
  return diverging((Math.sign(v) * Math.log1p(Math.abs(v) / SCALE_FLOOR_M)) / top);
}

/** The JSON document: every number, maps referenced by file; no wall times (timings.json), so it is reproducible. */
export function atlasJson(a: Atlas): Record<string, unknown> {
  return {
    format: 'heightbench.atlas',
    version: 2,
    request: a.request,
    size: a.size,
    precision: a.precision,
    stages: [...ATLAS_STAGES],
    divergenceMm: DIVERGENCE_MM,
    diagnose: { edgeBand: a.edgeBand, maxFitPixels: ATLAS_FIT_PIXELS },
    scaleM: a.scaleM,
    scale: { kind: 'signed-log', floorM: SCALE_FLOOR_M, maxM: a.scaleM },
    radialStepM: a.radialStepM,
    validation: atlasValidation(a),
    entries: a.entries.map((e) => {
      const { map, runMs: _runMs, ...rest } = e;
      return { ...rest, map: { file: `maps/${e.name}.png`, block: map.block, columns: map.columns, rows: map.rows, maxAbsM: map.maxAbsM } };
    }),
  };
}

/** The small summary DVC tracks (dvc.yaml `atlas` stage): per ablation exact %, RMS and the top diagnosis. */
export function atlasMetrics(a: Atlas): Record<string, unknown> {
  const v = atlasValidation(a);
  const ablations: Record<string, unknown> = {};
  for (const e of [...a.entries].sort((x, y) => x.name.localeCompare(y.name))) {
    ablations[e.name] = {
      exactPercent: e.final.exactPercent,
      rmsMm: e.final.rmsMm,
      floatRmsMm: e.final.floatRmsMm,
      maxAbsCode: e.final.maxAbsCode,
      firstDivergentStage: e.firstDivergentStage ?? 'none',
      topDiagnosis: topDiagnosis(e),
      topShare: readingOf(e).top?.share ?? 0,
      namedFirst: e.namedFirst,
    };
  }
  return {
    request: a.request,
    size: a.size,
    precision: a.precision,
    ablationCount: a.entries.length,
    withSignature: v.withSignature,
    namedFirst: v.namedFirst,
    ablations,
  };
}

/** Wall times (never part of atlas.json). */
export function atlasTimings(a: Atlas, totalMs?: number): Record<string, unknown> {
  return {
    correctRunMs: a.correctRunMs,
    ...(totalMs === undefined ? {} : { totalMs }),
    runs: Object.fromEntries(a.entries.map((e) => [e.name, { ms: e.runMs, planReused: e.planReused }])),
  };
}

function num(v: number | null | undefined, digits = 4): string {
  if (v === null || v === undefined || !Number.isFinite(v)) return '–';
  if (v === 0) return '0';
  return Math.abs(v) >= 0.01 ? v.toFixed(Math.max(0, digits - 1)) : v.toPrecision(3);
}

function pct(v: number): string {
  return `${(v * 100).toFixed(v * 100 >= 10 ? 0 : 1)} %`;
}

/** The Δq histogram in one line: −1, 0, +1, and the rest as a count with its range (the whole histogram: atlas.json). */
function histogramText(h: Record<string, number>): string {
  const bins = Object.entries(h).map(([d, c]) => [Number(d), c] as const);
  const at = (d: number) => bins.find((b) => b[0] === d)?.[1] ?? 0;
  const rest = bins.filter((b) => Math.abs(b[0]) >= 2);
  const n = rest.reduce((s, b) => s + b[1], 0);
  const lo = Math.min(...rest.map((b) => b[0]));
  const hi = Math.max(...rest.map((b) => b[0]));
  return `−1: ${at(-1)}, 0: ${at(0)}, +1: ${at(1)}${n > 0 ? `; |Δq| ≥ 2: ${n} (${lo} … ${hi})` : ''}`;
}

function entryRow(e: AtlasEntry, rank: number): string {
  const diag = readingOf(e);
  const named = e.namedFirst === null ? '' : e.namedFirst ? ' ✓' : ` ✗ (expected ${e.expect?.join(' or ')})`;
  return `<tr><td>${rank}</td><td class="l"><b>${escapeHtml(e.name)}</b><br><span class="note">${escapeHtml(e.label)}</span></td>
<td>${num(e.final.exactPercent, 5)}</td><td>${num(e.final.rmsMm)}</td><td>${e.final.maxAbsCode}</td><td>${num(e.final.floatRmsMm)}</td>
<td>${num(e.final.floatMaxAbsMm)}</td><td>${escapeHtml(e.firstDivergentStage ?? 'none')}</td>
<td>${e.stages.map((s) => `${escapeHtml(s.stage)}: ${num(s.innerRmsMm)}`).join('<br>')}</td>
<td class="l">${escapeHtml(`[${diag.stage}] ${diag.summary}`)}${named}</td>
<td class="l small">${escapeHtml(histogramText(e.final.histogram))}</td></tr>`;
}

function maskRows(a: Atlas): { head: string; rows: string } {
  const names = Object.keys(a.entries[0]?.final.masks ?? {});
  const head = `<tr><th rowspan="2">ablation</th>${names.map((m) => `<th colspan="3">${escapeHtml(m)}</th>`).join('')}</tr>
<tr>${names.map(() => '<th>exact codes %</th><th>RMS mm (codes)</th><th>float RMS mm</th>').join('')}</tr>`;
  const rows = a.entries
    .map(
      (e) =>
        `<tr><td class="l"><b>${escapeHtml(e.name)}</b></td>${names
          .map((m) => {
            const x = e.final.masks[m];
            return `<td>${num(x.exactPercent, 5)}</td><td>${num(x.rmsMm)}</td><td>${num(x.floatRmsMm)}</td>`;
          })
          .join('')}</tr>`,
    )
    .join('\n');
  return { head, rows };
}

function findingText(f: { kind: string; value: number; unit: string }): string {
  const value =
    f.unit === 'factor'
      ? `×${f.value.toPrecision(7)}`
      : f.unit === 'share' || f.unit === 'share of residual'
        ? `${pct(f.value)} ${f.unit}`
        : `${f.value >= 0 ? '+' : '−'}${num(Math.abs(f.value))} ${f.unit}`;
  return `${f.kind} ${value}`;
}

function confusionRows(a: Atlas): string {
  const v = atlasValidation(a);
  return v.confusion
    .map((c) => {
      const read = c.best === null ? c.top : c.top.startsWith('(') ? `${c.top}; best finding ${findingText(c.best)}` : findingText(c.best);
      const mark = c.namedFirst === null ? '—' : c.namedFirst ? '✓' : '✗';
      return `<tr><td class="l"><b>${escapeHtml(c.name)}</b></td><td class="l">${c.expect ? escapeHtml(c.expect.join(' or ')) : '(none)'}</td><td>${escapeHtml(c.stage ?? 'none')}</td>
<td class="l">${escapeHtml(read)}</td><td>${c.best ? pct(c.best.share) : '–'}</td><td>${pct(Math.max(c.explainedShare, 0))}</td><td>${mark}</td></tr>`;
    })
    .join('\n');
}

/** Where ±1 µm, ±1 mm, ±1 m and ±S fall along the colour bar (fraction from the left edge). */
function scaleTicks(S: number): string {
  const top = Math.log1p((S > 0 ? S : 1) / SCALE_FLOOR_M);
  const at = (v: number) => (0.5 + (0.5 * Math.sign(v) * Math.log1p(Math.abs(v) / SCALE_FLOOR_M)) / top).toFixed(2);
  const ticks = [1e-6, 1e-3, 1].filter((v) => v < S).map((v) => `±${v === 1e-6 ? '1 µm' : v === 1e-3 ? '1 mm' : '1 m'} at ${at(-v)} / ${at(v)}`);
  return `colour-bar positions (0 = left, 1 = right): 0 at 0.50; ${ticks.join('; ')}; ±S at 0 / 1`;
}

/** The Plotly data of the page: radial profiles and per-stage inner RMS of every ablation (zeros left out of log axes). */
function figureData(a: Atlas): unknown {
  const pos = (v: number) => (Number.isFinite(v) && v > 0 ? Number(v.toPrecision(5)) : null);
  const step = a.radialStepM;
  const r = (a.entries[0]?.final.radialRmsMm ?? []).map((_, k) => (k + 0.5) * step);
  return {
    radial: { r, step, lines: a.entries.map((e) => ({ name: e.name, y: e.final.radialRmsMm.map(pos) })) },
    stages: { names: [...ATLAS_STAGES], lines: a.entries.map((e) => ({ name: e.name, y: e.stages.map((s) => pos(s.innerRmsMm)) })) },
    divergenceMm: DIVERGENCE_MM,
    colours: plotlyColorscale(DIVERGING_STOPS),
  };
}

export interface AtlasPageOptions {
  /** How the page loads Plotly: a relative src (default 'plotly.min.js', copied beside the page). */
  plotlySrc?: string;
  /** Relative link to the project README (the real-fixture confusion table), when the folder is inside the project. */
  readmeHref?: string | null;
}

export function atlasHtml(a: Atlas, o: AtlasPageOptions = {}): string {
  const plotlySrc = o.plotlySrc ?? 'plotly.min.js';
  const v = atlasValidation(a);
  const cells = a.entries
    .map(
      (e) => `<figure><img src="${safeUrl(`maps/${e.name}.png`)}" alt="${escapeHtml(e.name)}" width="256"><figcaption><b>${escapeHtml(e.name)}</b><br>
${escapeHtml(e.label)}<br>max |Δ| ${num(e.map.maxAbsM * 1000)} mm · RMS ${num(e.final.floatRmsMm)} mm<br>
<i>${escapeHtml(topDiagnosis(e))}${e.namedFirst === null ? '' : e.namedFirst ? ' ✓' : ' ✗'}</i></figcaption></figure>`,
    )
    .join('\n');
  const masks = maskRows(a);
  const readme = o.readmeHref
    ? `<a href="${safeUrl(`${o.readmeHref}#diagnosing-a-difference-diagnose-compare---diagnose`)}">docs/atlas-and-diagnose.md, “Diagnosing a difference”</a>`
    : 'docs/atlas-and-diagnose.md, “Diagnosing a difference”';
  const data = JSON.stringify(figureData(a)).replace(/</g, '\\u003c');
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>heightbench ablation atlas: ${escapeHtml(a.request)} ${a.size}²</title>
<style>${pageCss(`body{max-width:1500px}.grid{display:flex;flex-wrap:wrap;gap:14px}
figure{margin:0;width:256px;font-size:12px}img{image-rendering:pixelated;border:1px solid #ccc}td,th{padding:2px 6px;font-size:12px}
td.l{text-align:left;max-width:420px}.small{font-size:11px}.note{color:#555;font-size:12px}
.warn{border:2px solid #b2182b;background:#fdecea;padding:.6em 1em;font-weight:600}.row{display:flex;flex-wrap:wrap;gap:8px}`)}</style>
<script src="${safeUrl(plotlySrc)}"></script></head><body>
<p id="plotly-missing" class="warn" hidden>Plotly did not load (this page expects it at ${escapeHtml(plotlySrc)}, relative to the page), so the
radial and per-stage profiles cannot be drawn; the maps and tables below do not need it. Open the atlas where heightbench wrote it.</p>
<h1>Ablation atlas — ${escapeHtml(a.request)} at ${a.size}² (${a.precision})</h1>
<p class="note">Each ablation breaks one convention through the conventions declaration and runs the whole pipeline; every
number compares it with the correct run of the same request, size and precision (a consistency comparison: both sides
come from heightbench). Maps: pre-encode difference (ablation − correct), the signed value of the largest |Δ| in each
${a.entries[0]?.map.block ?? 0}×${a.entries[0]?.map.block ?? 0} block, drawn north-up on one shared signed-logarithmic
diverging scale, t = sign(Δ)·ln(1 + |Δ|/1 µm) / ln(1 + S/1 µm) with S = ${num(a.scaleM * 1000)} mm, the largest |Δ| of the
whole atlas: blue below zero, red above, white at zero; every decade of |Δ| gets the same share of colour. Under each
map: its top diagnosis (✓ / ✗ where a signature is expected).</p>
<p><img src="scale.png" alt="colour scale" width="512" height="12"><br><span class="note">${scaleTicks(a.scaleM)}</span></p>
<div class="grid">
${cells}
</div>
<h2>Sorted by effect (pre-encode float RMS, largest first)</h2>
<table><tr><th>#</th><th>ablation</th><th>exact codes %</th><th>RMS mm (codes)</th><th>max |Δq|</th><th>float RMS mm</th>
<th>float max mm</th><th>first divergent stage</th><th>inner-400 m RMS mm per stage</th><th>diagnose (at the first divergent stage)</th><th>Δq histogram</th></tr>
${a.entries.map((e, k) => entryRow(e, k + 1)).join('\n')}
</table>
<p class="note">A stage diverges when its float RMS against the correct run exceeds ${DIVERGENCE_MM} mm. Codes: the final R16
maps; float: the pre-encode fields. Numbers: atlas.json (metrics.json: the summary DVC tracks; timings.json: wall times).</p>
<h2>Masks</h2>
<p class="note">The compare engine's masks (inner ${M.innerRadius} m disk, central ${M.windowSize} m window, the ${M.ringInner}–${M.ringOuter} m blend ring, outside it):
exact codes and RMS from the final maps, float RMS from the pre-encode fields.</p>
<table>${masks.head}
${masks.rows}
</table>
<h2>Radial profiles and stages</h2>
<p class="note">Left: float RMS of the pre-encode difference in ${a.radialStepM} m rings about the domain centre. Right: inner-400 m
float RMS at each stage (the dashed line is the divergence threshold). Log axes; a ring or stage with no difference is left
out. Click a legend entry to hide a line, double-click to show one alone.</p>
<div class="row"><div id="radial" style="width:720px;height:520px"></div><div id="stages" style="width:720px;height:520px"></div></div>
<h2 id="validation">Validation: does diagnose name the ablation?</h2>
<p>For each ablation, <code>diagnose</code> reads the float difference at the first divergent stage (edge band
${a.edgeBand} px, at most ${ATLAS_FIT_PIXELS} interior fit pixels) and names its top finding. <b>${v.namedFirst} of ${v.withSignature}</b>
ablations with an expected signature are named first. Expected signatures come from the geometry of the broken rule
(a half-texel or kernel-mean shift → <code>shiftX</code>/<code>shiftY</code>; a weight sum → <code>gain</code>; rows reversed →
<code>rowFlip</code>; wrap → <code>edgeBand</code>; a filter left out or a narrower kernel → a blur term).</p>
<table><tr><th>ablation</th><th>expected</th><th>stage read</th><th>top diagnosis</th><th>its share of Σ Δ²</th><th>all terms (R²)</th><th>named first</th></tr>
${confusionRows(a)}
</table>
<h3>Ablations without a clean signature, and why</h3>
<ul>${v.noSignature.map((x) => `<li><b>${escapeHtml(x.name)}</b>: ${escapeHtml(x.why)}.</li>`).join('\n')}</ul>
<h3>Why the others look the way they do</h3>
<ul>${a.entries
    .filter((e) => e.expect !== null)
    .map((e) => `<li><b>${escapeHtml(e.name)}</b>: ${escapeHtml(e.signatureNote ?? '')}.</li>`)
    .join('\n')}</ul>
<p class="note">Independent validation on real elevation data: <code>test/diagnose.test.ts</code> applies shifts of ±0.25 and
±0.5 texel, gains, a blur, a bias, a row flip, a transposition and wrap addressing to two real-elevation fixtures
(nobody in this project made them) with its own code, and checks that diagnose recovers each applied value within a
stated tolerance; its confusion table is in ${readme}. The table above is a consistency check: both runs come from heightbench.</p>
<script id="data" type="application/json">${data}</script>
<script>
if (!window.Plotly) document.getElementById('plotly-missing').hidden = false;
else {
  const D = JSON.parse(document.getElementById('data').textContent);
  const cfg = {responsive: true, displaylogo: false};
  Plotly.newPlot('radial', D.radial.lines.map((l) => ({x: D.radial.r, y: l.y, name: l.name, mode: 'lines', connectgaps: false})),
    {title: {text: 'Float RMS per ' + D.radial.step + ' m ring (pre-encode)'}, xaxis: {title: {text: 'radius from the domain centre (m)'}},
     yaxis: {title: {text: 'RMS (mm)'}, type: 'log'}, legend: {font: {size: 10}}, margin: {t: 40, l: 60, r: 10, b: 50}}, cfg);
  Plotly.newPlot('stages', D.stages.lines.map((l) => ({x: D.stages.names, y: l.y, name: l.name, mode: 'lines+markers'})).concat([
      {x: D.stages.names, y: D.stages.names.map(() => D.divergenceMm), name: 'divergence threshold', mode: 'lines', line: {dash: 'dash', color: '#444'}}]),
    {title: {text: 'Inner-400 m float RMS per stage'}, yaxis: {title: {text: 'RMS (mm)'}, type: 'log'}, legend: {font: {size: 10}},
     margin: {t: 40, l: 60, r: 10, b: 80}}, cfg);
}
</script>
</body></html>
`;
}

/** Refuses an output folder that holds something other than a previous atlas's files (call before the runs). */
export function checkAtlasOut(dir: string): void {
  if (!existsSync(dir)) return;
  if (!statSync(dir).isDirectory()) throw new MismatchError(`--out ${dir}: exists and is not a folder`);
  const present = readdirSync(dir);
  const foreign = present.filter((f) => !ATLAS_FILES.includes(f));
  if (foreign.length > 0) {
    throw new MismatchError(
      `--out ${dir}: the folder holds ${foreign.length} entr${foreign.length === 1 ? 'y' : 'ies'} an atlas does not write (${foreign.slice(0, 3).join(', ')}${foreign.length > 3 ? ', …' : ''}); refusing to replace it (give an empty or new folder, or a previous atlas)`,
    );
  }
}

export interface WriteAtlasOptions {
  /** Link this plotly.min.js (copied there when missing) instead of copying one into the folder. */
  sharedPlotly?: string;
  /** The project README, linked from the validation section when given (relative to the folder). */
  readme?: string;
  /** Whole-command time for timings.json. */
  totalMs?: number;
}

/** Writes the atlas into `dir` (see the header for the temporary-folder rule). Returns the files written, relative. */
export function writeAtlas(dir: string, a: Atlas, o: WriteAtlasOptions = {}): string[] {
  checkAtlasOut(dir);
  const parent = dirname(dir);
  mkdirSync(parent, { recursive: true });
  // Found before anything is written: a missing Plotly must not leave a folder without its page.
  const plotlyFile = plotlyPath();
  const tmp = join(parent, `.${hiddenBase(basename(dir))}.tmp-${process.pid}-${randomBytes(4).toString('hex')}`);
  const files: string[] = [];
  try {
    mkdirSync(join(tmp, 'maps'), { recursive: true });
    for (const e of a.entries) {
      const png = scalarPng(e.map.signedMaxM, e.map.columns, e.map.rows, (v) => scaleColour(v, a.scaleM), true);
      writeFileAtomic(join(tmp, 'maps', `${e.name}.png`), png);
      files.push(`maps/${e.name}.png`);
    }
    const bar = new Float32Array(512 * 12);
    for (let j = 0; j < 12; j++) for (let i = 0; i < 512; i++) bar[j * 512 + i] = (i / 511) * 2 - 1;
    writeFileAtomic(join(tmp, 'scale.png'), scalarPng(bar, 512, 12, diverging, false));
    let plotlySrc = 'plotly.min.js';
    if (o.sharedPlotly) {
      ensureSharedCopy(plotlyFile, o.sharedPlotly, '--shared-plotly');
      plotlySrc = pathHref(relative(dir, o.sharedPlotly).split(sep).join('/'));
    } else {
      copyFileAtomic(plotlyFile, join(tmp, 'plotly.min.js'));
      files.push('plotly.min.js');
    }
    const readmeHref = o.readme && existsSync(o.readme) ? pathHref(relative(dir, o.readme).split(sep).join('/')) : null;
    writeFileAtomic(join(tmp, 'atlas.json'), `${JSON.stringify(atlasJson(a), null, 2)}\n`);
    writeFileAtomic(join(tmp, 'metrics.json'), `${JSON.stringify(atlasMetrics(a), null, 2)}\n`);
    writeFileAtomic(join(tmp, 'timings.json'), `${JSON.stringify(atlasTimings(a, o.totalMs), null, 2)}\n`);
    writeFileAtomic(join(tmp, 'index.html'), atlasHtml(a, { plotlySrc, readmeHref }));
    files.push('scale.png', 'atlas.json', 'metrics.json', 'timings.json', 'index.html');
    // Swap into place: the old atlas (if any) moves aside first, and is removed only after the new one is in place.
    const old = existsSync(dir) ? `${tmp}.old` : null;
    if (old) renameSync(dir, old);
    renameSync(tmp, dir);
    if (old) rmSync(old, { recursive: true, force: true });
  } catch (e) {
    rmSync(tmp, { recursive: true, force: true });
    throw e;
  }
  return files;
}
