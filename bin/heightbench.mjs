#!/usr/bin/env node
// The heightbench CLI runs from the bundle of the compiled dist/ (built by `make` / `npm run build`:
// tsc, then scripts/bundle-cli.mjs). In a checkout it first checks that dist/ was built from src/ (source-check.mjs).
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { assertFreshDist } from './source-check.mjs';
const entry = new URL('../dist/cli-bundle/heightbench.js', import.meta.url);
if (!existsSync(fileURLToPath(entry))) {
  process.stderr.write('heightbench: dist/cli-bundle/ is missing; run `npm run build` (or `make`) first\n');
  process.exit(1);
}
assertFreshDist();
await import(entry.href);
