#!/usr/bin/env node
// The main job: the DVC pipeline (scripts/repro-parallel.py: `dvc repro` with independent stages at once; assets → generate, mimic, reference and gpu per run → gpucompare and compare → report),
// then a summary per run — the CPU against the GPU reference first, the f32-vs-f64 consistency check below it — and a
// non-zero exit when a gate fails. Usage: reproduce.mjs [--quiet] [dvc stage targets…]
// On a terminal each DVC stage's time is printed as it ends (src/cli/progress.ts; quiet in logs or with --quiet), and
// the stage commands (heightbench run) print their own steps.
import { spawn, spawnSync } from 'node:child_process';
import { createInterface } from 'node:readline';
import { progressReporter } from '../dist/cli/progress.js';
import { foldHistogram, foldedHistogramText } from '../dist/compare/histogram-fold.js';
import { copyFileSync, existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { assertFreshDist } from '../bin/source-check.mjs';

// dist/ must be built from the sources the DVC stages depend on (bin/source-check.mjs).
assertFreshDist('reproduce');

const quiet = process.argv.includes('--quiet');
const targets = process.argv.slice(2).filter((a) => a !== '--quiet');
// The lock as it was before the repro: regenerated outputs must match what it recorded (check-determinism.mjs).
const lockBefore = join('.cache', 'dvc.lock.before');
if (existsSync('dvc.lock')) {
  mkdirSync('.cache', { recursive: true });
  copyFileSync('dvc.lock', lockBefore);
}
// The static GPU reference page (reports/gpu/index.html, heightbench gpu-page), written before the repro so the
// reports index links it; built from this tree every time (a second). An example draw list goes beside it afterwards.
heightbench(['gpu-page', join('reports', 'gpu')]);
console.log(`reproduce: the DVC pipeline ${targets.join(' ') || '(all stages)'} (scripts/repro-parallel.py)`);
const r = await repro(targets);
// A failed stage (a gate that failed under check --strict, or a crash) does not stop the summary below: the tables
// say which gate failed and the reproduce exits non-zero.
let failed = 0;
if (r.status !== 0) {
  console.error(`reproduce: a DVC stage failed (exit ${r.status}); the summary below names the failed gates`);
  failed++;
}
// teaching-512 at 128² with its assets embedded: `?list=teaching-512-128.json` when reports/ is served over HTTP.
if (r.status === 0) heightbench(['drawlist', 'teaching-512', '--size', '128', '--embed-assets', '--out', join('reports', 'gpu', 'teaching-512-128.json')]);
const names = targets.length
  ? [...new Set(targets.map((t) => t.split('@')[1]).filter(Boolean))]
  : Object.keys(parse(readFileSync('params.yaml', 'utf8')).runs ?? {});
// The lead: heightbench's CPU rebuild against its own GPU executor of the same draw list (not the article's
// experiment, which compared its rebuild with the original system's reference), three ways.
// The Δq histogram of a report folder, bins beyond ±8 folded (histogram.json; older metrics.json held the bins).
const hist = (folder, m) => {
  const plot = join('reports', folder, 'histogram.json');
  const h = existsSync(plot)
    ? Object.fromEntries(JSON.parse(readFileSync(plot, 'utf8')).map((b) => [String(b.dq), b.count]))
    : Object.fromEntries(
        Object.keys(m)
          .filter((k) => k.startsWith('histogram.'))
          .map((k) => [k.slice(10), m[k]]),
      );
  return foldedHistogramText(foldHistogram(h));
};
const firstStages = (m) =>
  Object.keys(m)
    .filter((k) => k.startsWith('stageAttribution.firstStage.'))
    .map((k) => `${k.slice(28)} ${m[k]}`)
    .join(', ');
console.log(
  "\nCPU vs heightbench's GPU executor (same draw list) — run / CPU side | exact % | histogram | max code | RMS mm | gates | stage inner-400 m RMS (mm; article vs its original reference: base 0.203, after-support 0.122) | differing codes by first divergent stage",
);
for (const name of names) {
  for (const [suffix, side] of [
    ['-gpu', 'f32 mimic'],
    ['-gpu-d3d', 'f32 (16.8)'],
    ['-gpu-f64', 'f64'],
  ]) {
    const p = join('reports', `${name}${suffix}`, 'stages.json');
    if (!existsSync(p)) continue;
    const s = JSON.parse(readFileSync(p, 'utf8'));
    const m = JSON.parse(readFileSync(join('reports', `${name}${suffix}`, 'metrics.json'), 'utf8'));
    const stages = s.stages.map((x) => `${x.stage} ${x.innerRmsMm.toExponential(2)}`).join(', ');
    console.log(
      `${name} / ${side} | ${m.exactPercent.toFixed(4)} | ${hist(`${name}${suffix}`, m)} | ${m.maxAbsCode} | ${m.rmsMm.toFixed(4)} | ${s.gates.length ? (s.passed ? 'pass' : 'FAIL') : '–'} | ${stages} | ${firstStages(m)}`,
    );
    if (!s.passed) {
      failed++;
      for (const g of s.gates.filter((x) => !x.passed))
        console.error(`  gate failed for ${name}${suffix}: ${g.name} ${g.limit}, measured ${g.value} (report: reports/${name}${suffix}/index.html)`);
    }
  }
}
console.log(
  '\nConsistency check: f32 vs our own f64 references — run | exact % | histogram | max code | RMS mm | straddles/deviations | gates | stage inner-400 m RMS (mm)',
);
for (const name of names) {
  const p = join('reports', name, 'stages.json');
  if (!existsSync(p)) continue;
  const s = JSON.parse(readFileSync(p, 'utf8'));
  const m = JSON.parse(readFileSync(join('reports', name, 'metrics.json'), 'utf8'));
  const stages = s.stages.map((x) => `${x.stage} ${x.innerRmsMm.toExponential(2)}`).join(', ');
  console.log(
    `${name} | ${m.exactPercent.toFixed(4)} | ${hist(name, m)} | ${m.maxAbsCode} | ${m.rmsMm.toFixed(4)} | ${m['attribution.straddle']}/${m['attribution.deviation']} | ${s.passed ? 'pass' : 'FAIL'} | ${stages}`,
  );
  if (!s.passed) {
    failed++;
    for (const g of s.gates.filter((x) => !x.passed))
      console.error(`  gate failed for ${name}: ${g.name} ${g.limit}, measured ${g.value} (report: reports/${name}/index.html)`);
  }
}
// The ablation atlas (dvc.yaml stage atlas), when this repro built it: one line per ablation.
const atlasMetrics = join('reports', 'atlas', 'metrics.json');
if ((targets.length === 0 || targets.includes('atlas')) && existsSync(atlasMetrics)) {
  const a = JSON.parse(readFileSync(atlasMetrics, 'utf8'));
  console.log(`\natlas ${a.request} ${a.size}²: diagnose names ${a.namedFirst} of ${a.withSignature} expected signatures first (reports/atlas/index.html)`);
  console.log('ablation | exact % | RMS mm | first divergent stage | top diagnosis');
  for (const [name, e] of Object.entries(a.ablations))
    console.log(
      `${name} | ${e.exactPercent.toFixed(4)} | ${e.rmsMm.toPrecision(4)} | ${e.firstDivergentStage} | ${e.topDiagnosis}${e.namedFirst === null ? '' : e.namedFirst ? ' ✓' : ' ✗'}`,
    );
}
// Determinism across machines: on a fresh clone dvc repro regenerated the assets and references; their hashes must be
// the ones dvc.lock recorded before the repro.
if (targets.length === 0 && existsSync(lockBefore)) {
  const det = spawnSync(process.execPath, ['scripts/check-determinism.mjs', '--against', lockBefore, ...names], { stdio: 'inherit' });
  if (det.status !== 0) {
    console.error('reproduce: regenerated assets or references differ from the committed dvc.lock (see above)');
    failed++;
  }
}
stageTable(r.times, r.wallMs);
console.log(failed ? `reproduce: ${failed} check(s) failed` : 'reproduce: all gates pass; references match dvc.lock; reports/index.html');
process.exit(failed ? 1 : 0);

/** Runs a heightbench command (the built CLI); a failure ends the reproduce with its exit code. */
function heightbench(args) {
  const c = spawnSync(process.execPath, ['bin/heightbench.mjs', ...args], { stdio: 'inherit' });
  if (c.status !== 0) {
    console.error(`reproduce: heightbench ${args.join(' ')} failed (exit ${c.status})`);
    process.exit(c.status ?? 1);
  }
}

/**
 * The DVC pipeline through scripts/repro-parallel.py: `dvc repro --keep-going`'s plan and stage operations, independent
 * stages run at once (HEIGHTBENCH_REPRO_JOBS, default the number of cores; 1 runs them one at a time), each stage's
 * output printed whole when it ends; on a terminal, one progress line as each stage ends. Returns the exit status,
 * each stage's wall time (ms; null when DVC found it unchanged) in the order they ended, and the wall time of all.
 */
function repro(args) {
  // The plan's stage count comes first ("Plan: N stages"): the progress lines then show the percentage and the time left.
  let progress = progressReporter({ label: 'reproduce', quiet, sink: process.stderr });
  const t0 = performance.now();
  return new Promise((done) => {
    // --keep-going semantics: a stage whose gate fails (check --strict) fails, the stages that do not depend on it still run.
    const child = spawn(join('.venv', 'bin', 'python'), ['scripts/repro-parallel.py', ...args], { stdio: ['inherit', 'pipe', 'inherit'] });
    const times = [];
    createInterface({ input: child.stdout }).on('line', (line) => {
      process.stdout.write(`${line}\n`);
      const plan = /^Plan: ([0-9]+) stages$/.exec(line);
      if (plan) progress = progressReporter({ label: 'reproduce', quiet, sink: process.stderr, total: Number(plan[1]) });
      const ended = /^Finished stage '([^']+)' in ([0-9.]+) s \(([0-9.]+) s of CPU\)$/.exec(line);
      const skipped = /^Stage '([^']+)' didn't change, skipping/.exec(line);
      if (ended) {
        times.push([ended[1], Number(ended[2]) * 1000, Number(ended[3]) * 1000]);
        progress.step(ended[1], Number(ended[2]) * 1000);
      }
      if (skipped) {
        times.push([skipped[1], null]);
        progress.skipped(skipped[1]);
      }
    });
    child.on('close', (status) => {
      progress.done();
      done({ status, times, wallMs: performance.now() - t0 });
    });
  });
}

/**
 * The table of each DVC stage's time, slowest first: wall and CPU seconds (the command and every process it ran), their
 * sums, and the wall time of the whole (stages overlap, so the sum of walls exceeds it).
 */
function stageTable(times, wallMs) {
  if (!times.length) return;
  const ran = times.filter(([, ms]) => ms !== null).sort((a, b) => b[1] - a[1]);
  const total = ran.reduce((a, [, ms]) => a + ms, 0);
  const cpu = ran.reduce((a, [, , c]) => a + c, 0);
  const w = Math.max('DVC stage'.length, 'wall (stages at once)'.length, ...times.map(([s]) => s.length));
  const s = (ms) => (ms / 1000).toFixed(1).padStart(7);
  console.log(`\n${'DVC stage'.padEnd(w)} | seconds |     CPU`);
  for (const [n, ms, c] of ran) console.log(`${n.padEnd(w)} | ${s(ms)} | ${s(c)}`);
  for (const [n] of times.filter(([, ms]) => ms === null)) console.log(`${n.padEnd(w)} |   (unchanged, skipped)`);
  console.log(`${'total'.padEnd(w)} | ${s(total)} | ${s(cpu)}`);
  console.log(`${'wall (stages at once)'.padEnd(w)} | ${s(wallMs)} |`);
}
