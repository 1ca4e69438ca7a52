#!/usr/bin/env node
// The main job. Until the pipeline lands, it does what already works end to end: it describes and converts the
// bundled real elevation models into reports/real-data/, each output with its sidecar.
import { spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';

const out = 'reports/real-data';
mkdirSync(out, { recursive: true });
const hb = (...args) => {
  const r = spawnSync(process.execPath, ['bin/heightbench.mjs', ...args], { encoding: 'utf8' });
  if (r.status !== 0) {
    process.stderr.write(r.stderr);
    process.exit(r.status ?? 1);
  }
  return r.stdout;
};
const steps = [
  ['info', 'test/fixtures/real/volcano.png', '--json'],
  ['info', 'test/fixtures/real/jacksboro.r16', '--json'],
  ['convert', 'test/fixtures/real/volcano.png', `${out}/volcano-vertex-88x62.r16`, '--grid', 'vertex'],
  ['convert', 'test/fixtures/real/jacksboro.r16', `${out}/jacksboro.png`],
  ['convert', 'test/fixtures/real/jacksboro.r16', `${out}/jacksboro-1024.r32`, '--resample', '1024x874'],
];
for (const s of steps) {
  const text = hb(...s);
  if (s[0] === 'info') {
    const name = s[1].split('/').pop();
    writeFileSync(`${out}/${name}.info.json`, text);
    const j = JSON.parse(text);
    console.log(`${name}: ${j.width}x${j.height} ${j.format}, ${j.minMetres}..${j.maxMetres} m`);
  } else {
    process.stdout.write(text);
  }
}
console.log(`reproduce: wrote ${out}/`);
