#!/usr/bin/env node
// Determinism across machines: after `dvc repro` regenerated them, the assets and the references of the given runs
// must hash exactly as dvc.lock recorded them before the repro (`--against FILE`, a snapshot; default: the committed
// dvc.lock at HEAD — the same thing on a fresh clone). Dependency hashes (e.g. the built code) may differ; only
// outputs are compared. Usage: check-determinism.mjs [--against FILE] RUN…
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { parse } from 'yaml';

const args = process.argv.slice(2);
const at = args.indexOf('--against');
const against = at >= 0 ? args.splice(at, 2)[1] : null;
const committed = parse(against ? readFileSync(against, 'utf8') : execFileSync('git', ['show', 'HEAD:dvc.lock'], { encoding: 'utf8' })).stages;
const current = parse(readFileSync('dvc.lock', 'utf8')).stages;
const stages = ['assets', ...args.map((r) => `reference@${r}`)];
let bad = 0;
for (const s of stages) {
  const a = (committed[s]?.outs ?? []).map((o) => `${o.path} ${o.md5}`).join(', ');
  const b = (current[s]?.outs ?? []).map((o) => `${o.path} ${o.md5}`).join(', ');
  if (a !== b) {
    bad++;
    console.error(`${s}: recorded ${a || '(none)'}\n${' '.repeat(s.length)}  regenerated ${b || '(none)'}`);
  } else console.log(`${s}: ${b}`);
}
process.exit(bad ? 1 : 0);
