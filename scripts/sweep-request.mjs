#!/usr/bin/env node
// The request of a seed sweep (dvc.yaml stage sweep): config/requests/REQUEST.json with its seed replaced, written
// to OUT (id REQUEST-seedSEED). Usage: sweep-request.mjs REQUEST SEED OUT. The seed must be one heightbench accepts
// (an integer 1 … 2147483646: minstd_rand0's range); anything else is refused, naming the value.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

const [request, seedText, out] = process.argv.slice(2);
if (!request || !seedText || !out) {
  console.error('usage: sweep-request.mjs REQUEST SEED OUT');
  process.exit(2);
}
const seed = Number(seedText);
if (!Number.isInteger(seed) || seed < 1 || seed > 2147483646) {
  console.error(`sweep-request: seed ${JSON.stringify(seedText)}: expected an integer 1 … 2147483646`);
  process.exit(2);
}
const req = JSON.parse(readFileSync(join('config', 'requests', `${request}.json`), 'utf8'));
mkdirSync(dirname(out), { recursive: true });
writeFileSync(out, `${JSON.stringify({ ...req, id: `${request}-seed${seed}`, seed }, null, 2)}\n`);
