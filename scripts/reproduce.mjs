#!/usr/bin/env node
// The main job: `dvc repro` (assets → generate and reference per run → compare → report), then a summary per run
// and a non-zero exit when a gate fails. Usage: reproduce.mjs [dvc stage targets…]
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';

const targets = process.argv.slice(2);
const dvc = join('.venv', 'bin', 'dvc');
// The lock as it was before the repro: regenerated outputs must match what it recorded (check-determinism.mjs).
const lockBefore = join('.cache', 'dvc.lock.before');
if (existsSync('dvc.lock')) {
  mkdirSync('.cache', { recursive: true });
  copyFileSync('dvc.lock', lockBefore);
}
console.log(`reproduce: dvc repro ${targets.join(' ') || '(all stages)'}`);
const r = spawnSync(dvc, ['repro', ...targets], { stdio: 'inherit' });
if (r.status !== 0) {
  console.error(`reproduce: dvc repro failed (exit ${r.status})`);
  process.exit(r.status ?? 1);
}
let failed = 0;
const names = targets.length ? targets.map((t) => t.split('@')[1]).filter(Boolean) : Object.keys(parse(readFileSync('params.yaml', 'utf8')).runs ?? {});
console.log('\nrun | exact % | histogram | max code | RMS mm | straddles/deviations | gates | stage inner-400 m RMS (mm)');
for (const name of names) {
  const p = join('reports', name, 'stages.json');
  if (!existsSync(p)) continue;
  const s = JSON.parse(readFileSync(p, 'utf8'));
  const m = JSON.parse(readFileSync(join('reports', name, 'metrics.json'), 'utf8'));
  const hist = Object.keys(m).filter((k) => k.startsWith('histogram.')).map((k) => `${k.slice(10)}: ${m[k]}`).join(', ');
  const stages = s.stages.map((x) => `${x.stage} ${x.innerRmsMm.toExponential(2)}`).join(', ');
  console.log(`${name} | ${m.exactPercent.toFixed(4)} | ${hist} | ${m.maxAbsCode} | ${m.rmsMm.toFixed(4)} | ${m['attribution.straddle']}/${m['attribution.deviation']} | ${s.passed ? 'pass' : 'FAIL'} | ${stages}`);
  if (!s.passed) {
    failed++;
    for (const g of s.gates.filter((x) => !x.passed)) console.error(`  gate failed for ${name}: ${g.name} ${g.limit}, measured ${g.value} (report: reports/${name}/index.html)`);
  }
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
console.log(failed ? `reproduce: ${failed} check(s) failed` : 'reproduce: all gates pass; references match dvc.lock; reports/index.html');
process.exit(failed ? 1 : 0);
