#!/usr/bin/env node
// Determinism across machines: after `dvc repro` regenerated them, the assets and the references of the given runs
// must hash exactly as the committed dvc.lock (HEAD) records. Dependency hashes (e.g. the built code) may differ;
// only outputs are compared. Usage: check-determinism.mjs RUN…
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { parse } from 'yaml';

const committed = parse(execFileSync('git', ['show', 'HEAD:dvc.lock'], { encoding: 'utf8' })).stages;
const current = parse(readFileSync('dvc.lock', 'utf8')).stages;
const stages = ['assets', ...process.argv.slice(2).map((r) => `reference@${r}`)];
let bad = 0;
for (const s of stages) {
  const a = (committed[s]?.outs ?? []).map((o) => `${o.path} ${o.md5}`).join(', ');
  const b = (current[s]?.outs ?? []).map((o) => `${o.path} ${o.md5}`).join(', ');
  if (a !== b) {
    bad++;
    console.error(`${s}: committed ${a || '(none)'}\n${' '.repeat(s.length)}  regenerated ${b || '(none)'}`);
  } else console.log(`${s}: ${b}`);
}
process.exit(bad ? 1 : 0);
