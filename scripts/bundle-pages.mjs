#!/usr/bin/env node
// Bundles the browser scripts that reports inline into their pages (run by scripts/build-dist.mjs after tsc): each
// entry under src/ becomes one classic script defining a global, written as the text of dist/report/page-scripts.json
// ({ name: script }), which src/report/page-scripts.ts reads when it writes a page. [R] Same sources, same bytes: no
// time stamps, no absolute paths (esbuild names each module by its path relative to the package), no minification
// (a person reading a report's page source reads the modules as written, less their types).
import { build } from 'esbuild';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

const root = resolve(import.meta.dirname, '..');
/** Page script name → its entry module and the global it defines. */
const PAGES = {
  comparison: { entry: 'src/report/page/comparison-page.ts', global: 'HBComparisonPage' },
};

const scripts = {};
for (const [name, { entry, global }] of Object.entries(PAGES)) {
  const out = await build({
    entryPoints: [entry],
    absWorkingDir: root,
    bundle: true,
    write: false,
    format: 'iife',
    globalName: global,
    platform: 'browser',
    target: 'es2022',
    charset: 'utf8',
    legalComments: 'none',
    logLevel: 'warning',
  });
  if (out.outputFiles.length !== 1) throw new Error(`bundle-pages: ${name}: esbuild gave ${out.outputFiles.length} files, expected 1`);
  scripts[name] = out.outputFiles[0].text;
}
mkdirSync(join(root, 'dist', 'report'), { recursive: true });
writeFileSync(join(root, 'dist', 'report', 'page-scripts.json'), `${JSON.stringify(scripts, null, 1)}\n`);
