#!/usr/bin/env node
// The heightbench CLI runs from the bundle of the compiled dist/ (built by `make` / `npm run build`:
// tsc, then scripts/bundle-cli.mjs).
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
const entry = new URL('../dist/cli-bundle/heightbench.js', import.meta.url);
if (!existsSync(fileURLToPath(entry))) {
  process.stderr.write('heightbench: dist/cli-bundle/ is missing; run `npm run build` (or `make`) first\n');
  process.exit(1);
}
await import(entry.href);
