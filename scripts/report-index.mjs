#!/usr/bin/env node
// Writes reports/index.html. It leads with the CPU against the independent GPU reference (reports/RUN-gpu: f32 with
// the GPU-mimic switches, gated; RUN-gpu-d3d: f32 as generated; RUN-gpu-f64: f64), then the f32-vs-f64 consistency
// check (reports/RUN): one row per comparison (exact %, histogram, max code, RMS, gates, per-stage inner-400 m RMS)
// linking its report, a link to the static GPU page (reports/gpu/, written by reproduce.mjs), the ablation atlas
// (reports/atlas: a list, not a table — the browser check reads every table row as a run), and links to the executed
// notebooks under reports/notebooks/.
import { existsSync, readdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import YAML from 'yaml';

const root = 'reports';
const esc = (s) => String(s).replace(/&/g, '&amp;').replace(/</g, '&lt;');
// The runs of params.yaml only: other report folders (a bless's difference report, reports/bless-RUN) are not part of
// the reproduce, and listing them made the index depend on what a working tree happened to hold.
const runs = Object.keys(YAML.parse(readFileSync('params.yaml', 'utf8')).runs ?? {})
  .filter((name) => existsSync(join(root, name, 'stages.json')))
  .sort();
/** One table row of a report folder: its metrics, gates and per-stage inner RMS, plus the comparison's kind and a note. */
function reportRow(folder, kind, note) {
  const m = JSON.parse(readFileSync(join(root, folder, 'metrics.json'), 'utf8'));
  const s = JSON.parse(readFileSync(join(root, folder, 'stages.json'), 'utf8'));
  // The Δq bins: histogram.json (plot data) beside metrics.json; older metrics.json files held them as histogram.<Δq>.
  const plot = join(root, folder, 'histogram.json');
  const bins = existsSync(plot)
    ? JSON.parse(readFileSync(plot, 'utf8')).map((b) => [b.dq, b.count])
    : Object.keys(m)
        .filter((k) => k.startsWith('histogram.'))
        .map((k) => [Number(k.slice(10)), m[k]]);
  const hist = bins
    .filter(([, c]) => c > 0)
    .sort((a, b) => a[0] - b[0])
    .map(([d, c]) => `${d}: ${c}`)
    .join(', ');
  const stages = s.stages.map((x) => `${x.stage} ${x.innerRmsMm.toExponential(2)}`).join('<br>');
  const gates = s.gates && s.gates.length === 0 ? '–' : s.passed ? 'pass' : '<b>FAIL</b>';
  return `<tr><td><a href="${folder}/index.html">${esc(folder)}</a></td><td>${m.exactPercent.toFixed(4)}</td><td>${esc(hist)}</td><td>${m.maxAbsCode}</td><td>${m.rmsMm.toFixed(4)}</td><td style="text-align:left">${kind}</td><td>${gates}</td><td style="text-align:left">${stages}</td><td style="text-align:left">${note(m)}</td></tr>`;
}
const rows = runs.map((name) =>
  reportRow(
    name,
    'f32 vs our own f64 references (consistency)',
    (m) => `straddles / deviations: ${m['attribution.straddle'] ?? '–'} / ${m['attribution.deviation'] ?? '–'}`,
  ),
);
const gpuPage = existsSync(join(root, 'gpu', 'index.html'));
const firstStages = (m) =>
  Object.keys(m)
    .filter((k) => k.startsWith('stageAttribution.firstStage.'))
    .map((k) => `${k.slice(28)} ${m[k]}`)
    .join('<br>');
const gpuRows = [];
for (const name of Object.keys(YAML.parse(readFileSync('params.yaml', 'utf8')).runs ?? {}).sort()) {
  for (const [suffix, side] of [
    ['-gpu', 'f32, GPU-mimic switches'],
    ['-gpu-d3d', 'f32 as generated (16.8)'],
    ['-gpu-f64', 'f64'],
  ]) {
    const dir = join(root, `${name}${suffix}`);
    if (!existsSync(join(dir, 'stages.json'))) continue;
    gpuRows.push(reportRow(`${name}${suffix}`, `CPU ${esc(side)} vs GPU reference (independent)`, firstStages));
  }
}
// The ablation atlas (dvc.yaml stage atlas): its committed metrics.json, and a link once the page has been built.
const atlasMetrics = join(root, 'atlas', 'metrics.json');
let atlas = '<p>No ablation atlas yet (<code>make reproduce</code> builds reports/atlas).</p>';
if (existsSync(atlasMetrics)) {
  const a = JSON.parse(readFileSync(atlasMetrics, 'utf8'));
  const items = Object.entries(a.ablations ?? {})
    .sort((x, y) => y[1].floatRmsMm - x[1].floatRmsMm)
    .map(
      ([name, e]) =>
        `<li><b>${esc(name)}</b>: exact ${e.exactPercent.toFixed(4)} %, RMS ${e.rmsMm.toPrecision(4)} mm, first divergent stage ${esc(e.firstDivergentStage)}, top diagnosis ${esc(e.topDiagnosis)}${e.namedFirst === null ? '' : e.namedFirst ? ' ✓' : ' ✗'}</li>`,
    );
  const page = existsSync(join(root, 'atlas', 'index.html'));
  atlas = `<p>${page ? '<a href="atlas/index.html">' : ''}${esc(a.request)} at ${a.size}² (${esc(a.precision)}): ${a.ablationCount} ablations${page ? '</a>' : ' (page not built here: metrics from the committed reports/atlas/metrics.json)'};
diagnose names ${a.namedFirst} of the ${a.withSignature} expected signatures first. Sorted by effect:</p>
<ul>${items.join('')}</ul>`;
}
const nbDir = join(root, 'notebooks');
const notebooks = existsSync(nbDir)
  ? readdirSync(nbDir)
      .filter((f) => f.endsWith('.html'))
      .sort()
  : [];
const html = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>heightbench reports</title>
<style>body{font-family:system-ui,sans-serif;margin:1.5em}table{border-collapse:collapse}td,th{border:1px solid #ccc;padding:3px 8px;font-size:13px;text-align:right;vertical-align:top}th{background:#f3f3f3}</style></head><body>
<h1>heightbench — reproduce reports</h1>
<p><b>First, the CPU against the GPU reference (independent)</b> — the article's comparison: a CPU rebuild against what a GPU produced. The GPU reference is the draw list executed by the WGSL executor on a WebGPU adapter (its rasterizer, texture and blend units, not our code; each report names the adapter). Three rows per run: f32 with the GPU-mimic switches (RUN-gpu, gated), f32 as generated (RUN-gpu-d3d), f64 (RUN-gpu-f64). Stage anchors [D]: the article's inner-400 m RMS, base 0.203 mm, after support 0.122 mm. Gates [R]: the article's 99.7904 % exact and RMS 0.699 mm on the mimic run (its "every other pixel ±1" is shown, not gated yet).</p>
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
${notebooks.length ? `<ul>${notebooks.map((f) => `<li><a href="notebooks/${f}">${esc(f.replace(/\.html$/, ''))}</a></li>`).join('')}</ul>` : '<p>No executed notebooks yet.</p>'}
</body></html>
`;
writeFileSync(join(root, 'index.html.tmp'), html);
renameSync(join(root, 'index.html.tmp'), join(root, 'index.html'));
console.log(`reports/index.html: ${runs.length} runs, ${existsSync(atlasMetrics) ? 'the atlas, ' : ''}${notebooks.length} notebooks`);
