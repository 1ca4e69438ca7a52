#!/usr/bin/env node
// Runs the vitest suite (and, once present, the notebook executions), then prints the plain summary line
// "N passed, N failed". Exit status is non-zero when anything failed or a runner crashed.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs';

const results = '.cache/test-results';
mkdirSync(results, { recursive: true });
const vitestJson = `${results}/vitest.json`;
rmSync(vitestJson, { force: true });
// JUnit XML beside the JSON: CI publishes it as a check (.github/workflows/ci.yml).
const junit = `${results}/junit.xml`;
rmSync(junit, { force: true });
const r = spawnSync(
  process.execPath,
  [
    'node_modules/vitest/vitest.mjs',
    'run',
    '--reporter=default',
    '--reporter=json',
    `--outputFile.json=${vitestJson}`,
    '--reporter=junit',
    `--outputFile.junit=${junit}`,
  ],
  { stdio: 'inherit' },
);
let passed = 0;
let failed = 0;
if (existsSync(vitestJson)) {
  const j = JSON.parse(readFileSync(vitestJson, 'utf8'));
  passed += j.numPassedTests;
  failed += j.numFailedTests;
  // A suite that failed to load has no tests to count: count it as one failure.
  for (const s of j.testResults ?? []) if (s.status === 'failed' && (s.assertionResults ?? []).length === 0) failed++;
} else {
  failed++;
}
// The committed dvc.lock against this tree: every stage's code and configuration dependencies (dist, scripts, config,
// notebooks) hash as recorded, so a fresh clone's make reproduce is a no-op (scripts/check-lock.py; before the
// reduced reproduce below, which would rewrite the lock entries of the stages it reruns).
if (existsSync('dvc.lock')) {
  const lock = spawnSync('.venv/bin/python', ['scripts/check-lock.py'], { stdio: 'inherit' });
  report('the committed dvc.lock matches the code and configuration this tree builds', lock.status === 0);
}
// Reduced-size reproduce (CI): the article's request at 1024² against its GPU reference (WebGPU on the machine's
// adapter) and against its own DVC-tracked f64 references, then the determinism check: regenerated references and
// assets hash exactly as dvc.lock records them (the GPU reference only on the adapter its bless record names).
if (!process.argv.includes('--no-reproduce') && existsSync('dvc.yaml')) {
  const rep = spawnSync(process.execPath, ['scripts/reproduce.mjs', 'gpucompare@tundra-r19-1024', 'compare@tundra-r19-1024'], { stdio: 'inherit' });
  report('reduced reproduce (tundra-r19 at 1024², CPU vs GPU reference and f32 vs f64) passes its gates', rep.status === 0);
  const det = spawnSync(process.execPath, ['scripts/check-determinism.mjs', '--against', '.cache/dvc.lock.before', 'tundra-r19-1024'], { stdio: 'inherit' });
  report('regenerated assets and references hash exactly as dvc.lock recorded them', det.status === 0);
}
// The worked example: a reconstruction heightbench did not make (numpy, rasterio), its captures imported as a reference
// run and verified stage by stage by one dvc repro; the committed dvc.lock must be what this tree produces.
if (!process.argv.includes('--no-reproduce') && existsSync('examples/external-reconstruction/dvc.yaml')) {
  // --force: every stage runs from this tree, so the lock check below holds what the tree produces, not a cached run.
  const ex = spawnSync('dvc', ['repro', '--force', 'examples/external-reconstruction/dvc.yaml'], { stdio: 'inherit' });
  report('examples/external-reconstruction: dvc repro imports the outside captures and verifies them stage by stage', ex.status === 0);
  const lock = spawnSync('git', ['diff', '--quiet', '--', 'examples/external-reconstruction/dvc.lock']);
  report('examples/external-reconstruction/dvc.lock as committed (every stage output hashes the same)', lock.status === 0);
}
// The second worked example: a pipeline of its own stage names (numpy), imported with its declaration and verified in
// its own terms; its committed metrics.json holds the origins (5 planted pixels) the check must find.
if (!process.argv.includes('--no-reproduce') && existsSync('examples/own-pipeline/dvc.yaml')) {
  const ex = spawnSync('dvc', ['repro', '--force', 'examples/own-pipeline/dvc.yaml'], { stdio: 'inherit' });
  report('examples/own-pipeline: dvc repro imports a pipeline of its own names and verifies it in its own terms', ex.status === 0);
  const same = spawnSync('git', ['diff', '--quiet', '--', 'examples/own-pipeline/dvc.lock', 'examples/own-pipeline/metrics.json']);
  report('examples/own-pipeline/dvc.lock and metrics.json as committed (the same outputs, the same origins)', same.status === 0);
}
const extra = `${results}/notebooks.json`;
if (existsSync('scripts/run-notebooks.mjs')) {
  rmSync(extra, { force: true });
  // Exported to reports/notebooks/ as well, so the browser check below opens what a reader opens.
  const nb = spawnSync(process.execPath, ['scripts/run-notebooks.mjs', '--results', extra, '--export', 'reports/notebooks'], { stdio: 'inherit' });
  if (existsSync(extra)) {
    const j = JSON.parse(readFileSync(extra, 'utf8'));
    passed += j.passed;
    failed += j.failed;
  } else if (nb.status !== 0) {
    failed++;
  }
}
// Every generated page in Debian's chromium, offline: reports, the reports index, notebook exports, DVC plots.
if (!process.argv.includes('--no-browser') && existsSync('scripts/browser-check.mjs')) {
  const idx = spawnSync(process.execPath, ['scripts/report-index.mjs'], { stdio: 'inherit' });
  report('reports/index.html written', idx.status === 0);
  const browser = `${results}/browser.json`;
  rmSync(browser, { force: true });
  const b = spawnSync(process.execPath, ['scripts/browser-check.mjs', '--results', browser], { stdio: 'inherit' });
  if (existsSync(browser)) {
    const j = JSON.parse(readFileSync(browser, 'utf8'));
    passed += j.passed;
    failed += j.failed;
  } else report('browser check ran', b.status === 0);
}
function report(name, ok) {
  console.log(`${ok ? '✓' : '✗'} ${name}`);
  if (ok) passed++;
  else failed++;
}
if (r.status !== 0 && failed === 0) failed = 1;
console.log(`${passed} passed, ${failed} failed`);
process.exit(failed > 0 ? 1 : 0);
