#!/usr/bin/env node
// Determinism across machines: after `dvc repro` regenerated them, the assets, the references and the GPU references
// of the given runs must hash exactly as dvc.lock recorded them before the repro (`--against FILE`, a snapshot;
// default: the committed dvc.lock at HEAD — the same thing on a fresh clone). Dependency hashes (e.g. the built code)
// may differ; only outputs are compared.
// [R] A GPU reference (gpu@RUN) depends on the adapter that ran it: its hashes are compared only when the adapter
// recorded in its regenerated manifest is the one its bless record (references/bless/gpu-RUN.json) names; on another
// adapter the bytes legitimately differ, and this script says so instead of failing (or passing) silently.
// Usage: check-determinism.mjs [--against FILE] RUN…
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';

const args = process.argv.slice(2);
const at = args.indexOf('--against');
const against = at >= 0 ? args.splice(at, 2)[1] : null;
const committed = parse(against ? readFileSync(against, 'utf8') : execFileSync('git', ['show', 'HEAD:dvc.lock'], { encoding: 'utf8' })).stages;
const current = parse(readFileSync('dvc.lock', 'utf8')).stages;
const stages = ['assets', ...args.map((r) => `reference@${r}`)];
let bad = 0;
const outs = (lock, s) => (lock[s]?.outs ?? []).map((o) => `${o.path} ${o.md5}`).join(', ');
const compare = (s) => {
  const a = outs(committed, s);
  const b = outs(current, s);
  if (a !== b) {
    bad++;
    console.error(`${s}: recorded ${a || '(none)'}\n${' '.repeat(s.length)}  regenerated ${b || '(none)'}`);
  } else console.log(`${s}: ${b}`);
};
for (const s of stages) compare(s);

/** The fields that identify an adapter (what the GPU reference's bytes can depend on). */
const adapterKey = (a) => (a ? ['vendor', 'architecture', 'device', 'description', 'subpixelBits'].map((k) => String(a[k] ?? '')).join(' | ') : null);
for (const run of args) {
  const s = `gpu@${run}`;
  if (!current[s] && !committed[s]) continue;
  const rec = join('references', 'bless', `gpu-${run}.json`);
  const man = join('references', `gpu-${run}`, 'manifest.json');
  const blessed = existsSync(rec) ? adapterKey(JSON.parse(readFileSync(rec, 'utf8')).adapter) : null;
  const here = existsSync(man) ? adapterKey(JSON.parse(readFileSync(man, 'utf8')).adapter) : null;
  if (!blessed || !here) {
    bad++;
    console.error(`${s}: cannot tell the adapter (${!blessed ? `${rec} names none` : `${man} is missing`})`);
  } else if (blessed !== here) {
    console.log(
      `${s}: not compared — regenerated on adapter "${here}", blessed on "${blessed}"; a GPU reference's bytes depend on the adapter (bless it here to hold this machine to it)`,
    );
  } else compare(s);
}
process.exit(bad ? 1 : 0);
