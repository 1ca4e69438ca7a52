#!/usr/bin/env node
// The heightbench CLI runs from the compiled dist/ (built by `make` / `npm run build`).
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
const entry = new URL('../dist/cli/bin.js', import.meta.url);
if (!existsSync(fileURLToPath(entry))) {
  process.stderr.write('heightbench: dist/ is missing; run `npm run build` (or `make`) first\n');
  process.exit(1);
}
await import(entry.href);
