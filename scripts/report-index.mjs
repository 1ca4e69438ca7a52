#!/usr/bin/env node
// Writes reports/index.html. It leads with heightbench's CPU rebuild against its own GPU executor (reports/RUN-gpu: f32 with
// the GPU-mimic switches, gated; RUN-gpu-d3d: f32 as generated; RUN-gpu-f64: f64), then the f32-vs-f64 consistency
// check (reports/RUN): one row per comparison (exact %, histogram, max code, RMS, gates, per-stage inner-400 m RMS)
// linking its report, a link to the static GPU page (reports/gpu/, written by reproduce.mjs), the ablation atlas
// (reports/atlas: a list, not a table — the browser check reads every table row as a run), and links to the executed
// notebooks under reports/notebooks/.
// Every string goes through the project's one escape (dist/core/html.js, built by `make build`), every link through
// safeUrl; run names come from params.yaml through the checked loader (names are names), JSON through the bounded
// reader; the page is written by writeFileAtomic (a temporary file renamed: a planted link is replaced, not followed).
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { foldHistogram, foldedHistogramText } from '../dist/compare/histogram-fold.js';
import { escapeHtml as esc, safeUrl } from '../dist/core/html.js';
import { writeFileAtomic } from '../dist/io/atomic.js';
import { parseJson } from '../dist/io/json-check.js';
import { readInputText } from '../dist/io/read-input.js';
import { loadParams } from '../dist/pipeline/params.js';
import { isInputError, inputErrorMessage } from '../dist/errors.js';
import { terminalText } from '../dist/core/text.js';
import { pageCss } from '../dist/report/page-style.js';
import { assertFreshDist } from '../bin/source-check.mjs';

// dist/ must be built from the sources the DVC stages depend on (bin/source-check.mjs).
assertFreshDist('report-index');

const root = 'reports';
const readJson = (p) => parseJson(readInputText(p), p);
let params;
try {
  params = loadParams('.');
} catch (e) {
  if (!isInputError(e)) throw e;
  process.stderr.write(`report-index: ${terminalText(inputErrorMessage(e))}\n`);
  process.exit(2);
}
const runNames = [...params.runs.keys()].sort();
// The runs of params.yaml only: other report folders (a bless's difference report, reports/bless-RUN) are not part of
// the reproduce, and listing them made the index depend on what a working tree happened to hold.
const runs = runNames.filter((name) => existsSync(join(root, name, 'stages.json')));
/** One table row of a report folder: its metrics, gates and per-stage inner RMS, plus the comparison's kind and a note. */
function reportRow(folder, kind, note) {
  const m = readJson(join(root, folder, 'metrics.json'));
  const s = readJson(join(root, folder, 'stages.json'));
  // Bins from histogram.json (metrics.json's histogram.* keys where it is absent), folded beyond ±8 as in summary.md.
  const hj = join(root, folder, 'histogram.json');
  const bins = existsSync(hj)
    ? Object.fromEntries(readJson(hj).map((b) => [String(b.dq), b.count]))
    : Object.fromEntries(
        Object.keys(m)
          .filter((k) => k.startsWith('histogram.'))
          .map((k) => [k.slice(10), m[k]]),
      );
  const hist = foldedHistogramText(foldHistogram(bins)).replace(/^\{|\}(?=;|$)/g, '');
  const stages = s.stages.map((x) => `${esc(x.stage)} ${esc(Number(x.innerRmsMm).toExponential(2))}`).join('<br>');
  const gates = s.gates && s.gates.length === 0 ? '–' : s.passed ? 'pass' : '<b>FAIL</b>';
  const fixed = (v, d) => esc(Number(v).toFixed(d));
  return `<tr><td><a href="${safeUrl(`${folder}/index.html`)}">${esc(folder)}</a></td><td>${fixed(m.exactPercent, 4)}</td><td>${esc(hist)}</td><td>${esc(m.maxAbsCode)}</td><td>${fixed(m.rmsMm, 4)}</td><td style="text-align:left">${esc(kind)}</td><td>${gates}</td><td style="text-align:left">${stages}</td><td style="text-align:left">${note(m)}</td></tr>`;
}
const rows = runs.map((name) =>
  reportRow(name, 'f32 vs our own f64 references (consistency)', (m) =>
    esc(`straddles / deviations: ${m['attribution.straddle'] ?? '–'} / ${m['attribution.deviation'] ?? '–'}`),
  ),
);
const gpuPage = existsSync(join(root, 'gpu', 'index.html'));
const firstStages = (m) =>
  Object.keys(m)
    .filter((k) => k.startsWith('stageAttribution.firstStage.'))
    .map((k) => esc(`${k.slice(28)} ${m[k]}`))
    .join('<br>');
const gpuRows = [];
for (const name of runNames) {
  for (const [suffix, side] of [
    ['-gpu', 'f32, GPU-mimic switches'],
    ['-gpu-d3d', 'f32 as generated (16.8)'],
    ['-gpu-f64', 'f64'],
  ]) {
    const dir = join(root, `${name}${suffix}`);
    if (!existsSync(join(dir, 'stages.json'))) continue;
    gpuRows.push(reportRow(`${name}${suffix}`, `CPU ${side} vs GPU executor`, firstStages));
  }
}
// The ablation atlas (dvc.yaml stage atlas): its committed metrics.json, and a link once the page has been built.
const atlasMetrics = join(root, 'atlas', 'metrics.json');
let atlas = '<p>No ablation atlas yet (<code>make reproduce</code> builds reports/atlas).</p>';
if (existsSync(atlasMetrics)) {
  const a = readJson(atlasMetrics);
  const items = Object.entries(a.ablations ?? {})
    .sort((x, y) => y[1].floatRmsMm - x[1].floatRmsMm)
    .map(
      ([name, e]) =>
        `<li><b>${esc(name)}</b>: exact ${esc(Number(e.exactPercent).toFixed(4))} %, RMS ${esc(Number(e.rmsMm).toPrecision(4))} mm, first divergent stage ${esc(e.firstDivergentStage)}, top diagnosis ${esc(e.topDiagnosis)}${e.namedFirst === null ? '' : e.namedFirst ? ' ✓' : ' ✗'}</li>`,
    );
  const page = existsSync(join(root, 'atlas', 'index.html'));
  atlas = `<p>${page ? '<a href="atlas/index.html">' : ''}${esc(a.request)} at ${esc(a.size)}² (${esc(a.precision)}): ${esc(a.ablationCount)} ablations${page ? '</a>' : ' (page not built here: metrics from the committed reports/atlas/metrics.json)'};
diagnose names ${esc(a.namedFirst)} of the ${esc(a.withSignature)} expected signatures first. Sorted by effect:</p>
<ul>${items.join('')}</ul>`;
}
const nbDir = join(root, 'notebooks');
const notebooks = existsSync(nbDir)
  ? readdirSync(nbDir)
      .filter((f) => f.endsWith('.html'))
      .sort()
  : [];
const html = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>heightbench reports</title>
<style>${pageCss()}</style></head><body>
<h1>heightbench — reproduce reports</h1>
<p><b>First, heightbench's CPU rebuild against its own GPU executor</b>. The article compared its rebuild (written through an R16_UNORM render target and read back) with the original system's reference for the same request, which is not available here; heightbench compares its CPU pipeline with its second executor: the same draw list executed by the WGSL executor on a WebGPU adapter (its rasterizer, texture and blend units decide coverage, sampling and blending; each report names the adapter). Both take the draw list from the shared planner, so this checks execution, not planning (README, "What the GPU comparison can and cannot catch"). Three rows per run: f32 with the GPU-mimic switches (RUN-gpu, gated), f32 as generated (RUN-gpu-d3d), f64 (RUN-gpu-f64). Stage anchors [D], for scale only: the article's inner-400 m RMS against the original's reference, base 0.203 mm, after support 0.122 mm. Gates [R]: the article's 99.7904 % exact and RMS 0.699 mm, borrowed as a yardstick (its "every other pixel ±1" is shown, not gated yet).</p>
<p><b>Then the consistency check</b> (rows named by the run alone): the f32 pipeline against its DVC-tracked f64 references — the same TypeScript code unrounded, so it shows float32 rounding, not that the rules are right.</p>
<table><tr><th>report</th><th>exact %</th><th>Δq histogram</th><th>max |Δq|</th><th>RMS mm</th><th>comparison</th><th>gates</th><th>stage inner-400 m RMS (mm)</th><th>attribution</th></tr>
${gpuRows.join('\n')}
${rows.join('\n')}
</table>
<h2>GPU reference in your browser</h2>
${gpuPage ? `<p><a href="gpu/index.html">The GPU page</a> runs heightbench's WebGPU executor on this browser's GPU: give it a draw list (<code>heightbench drawlist REQUEST --embed-assets --out FILE.json</code>; make reproduce writes <code>gpu/teaching-512-128.json</code> beside it) and download every stage field with a sidecar naming the adapter.</p>` : '<p>No GPU page yet (<code>heightbench gpu-page reports/gpu</code>; make reproduce writes it).</p>'}
<h2>Ablation atlas</h2>
${atlas}
<h2>Notebooks</h2>
${notebooks.length ? `<ul>${notebooks.map((f) => `<li><a href="${safeUrl(`notebooks/${f}`)}">${esc(f.replace(/\.html$/, ''))}</a></li>`).join('')}</ul>` : '<p>No executed notebooks yet.</p>'}
</body></html>
`;
writeFileAtomic(join(root, 'index.html'), html);
console.log(`reports/index.html: ${runs.length} runs, ${existsSync(atlasMetrics) ? 'the atlas, ' : ''}${notebooks.length} notebooks`);
