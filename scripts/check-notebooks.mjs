#!/usr/bin/env node
// Type checks every notebook's code cells once, without executing them, with the type check the ordinary tslab
// kernel gives each cell: tslab's own converter (node_modules/tslab/dist/converter.js, its TypeScript 5.0 program over
// the ES2022 lib, node_modules/@types and dist's .d.ts) converts the cells in order, each seeing the declarations of
// the cells before it as in a kernel, and any diagnostic it reports — the ones that make a cell fail in JupyterLab —
// fails the check. One converter serves all the notebooks (as a fresh kernel each: the previous cells' declarations
// start empty), so the lib and dist's types load once. The cells are split from the .nb.ts as jupytext splits the
// percent format (`// %%` starts a code cell, `// %% [markdown]` a markdown one; the blank lines before the next
// marker are not part of the cell; test/notebook-typecheck.test.ts holds the split to jupytext's). Errors print as
// notebooks/NN-*.nb.ts:LINE:COL - message, with the .nb.ts's line numbers; exit 1 on any.
//
// scripts/run-notebooks.mjs runs this beside executing the notebooks on the headless kernel
// (scripts/tslab-headless.mjs), which does not type check each cell.
//
//   node scripts/check-notebooks.mjs [FILE.nb.ts ...]   (default: notebooks/*.nb.ts)
import { createRequire } from 'node:module';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';

const root = resolve(import.meta.dirname, '..');

/**
 * The code cells of a jupytext percent-format source: their text and the 0-based line of their first line.
 * @param {string} text
 * @returns {{ source: string, line: number }[]}
 */
export function codeCells(text) {
  const lines = text.split('\n');
  const cells = [];
  let cur = null;
  const close = () => {
    if (!cur) return;
    while (cur.lines.length && cur.lines[cur.lines.length - 1].trim() === '') cur.lines.pop();
    if (cur.code) cells.push({ source: cur.lines.join('\n'), line: cur.line });
  };
  for (const [i, l] of lines.entries()) {
    if (/^\/\/ %%( |$)/.test(l)) {
      close();
      cur = { code: !/^\/\/ %% \[(markdown|md|raw)\]/.test(l), line: i + 1, lines: [] };
    } else if (cur) cur.lines.push(l);
  }
  close();
  return cells;
}

/**
 * Type checks the given .nb.ts files cell by cell; returns the error lines (empty when every cell checks).
 * @param {string[]} files
 */
export function checkNotebooks(files) {
  const require = createRequire(join(root, 'package.json'));
  // tslab's converter resolves against the working directory, as in the kernel (kernel.json cds to the root).
  const cwd = process.cwd();
  process.chdir(root);
  try {
    const { createConverter } = require('tslab/dist/converter.js');
    const converter = createConverter({ isJS: false, isBrowser: false });
    const out = [];
    for (const file of files) {
      const rel = relative(root, resolve(cwd, file));
      let prevDecl = '';
      for (const cell of codeCells(readFileSync(resolve(cwd, file), 'utf8'))) {
        const r = converter.convert(prevDecl, cell.source);
        for (const d of r.diagnostics) {
          const where = d.fileName
            ? `${d.fileName}:${d.start.line + 1}:${d.start.character + 1}`
            : `${rel}:${cell.line + d.start.line + 1}:${d.start.character + 1}`;
          out.push(`${where} - ${d.messageText}${d.code ? ` (TS${d.code})` : ''}`);
        }
        if (r.diagnostics.length) break; // the kernel stops at the failing cell
        prevDecl = r.declOutput || '';
      }
    }
    converter.close();
    return out;
  } finally {
    process.chdir(cwd);
  }
}

if (process.argv[1] && resolve(process.argv[1]) === resolve(import.meta.filename)) {
  const args = process.argv.slice(2);
  const files = args.length
    ? args
    : readdirSync(join(root, 'notebooks'))
        .filter((f) => f.endsWith('.nb.ts'))
        .sort()
        .map((f) => join(root, 'notebooks', f));
  const errors = checkNotebooks(files);
  for (const e of errors) console.error(e);
  if (errors.length) {
    console.error(`✗ notebook type check: ${errors.length} error(s) in ${files.length} notebook(s)`);
    process.exit(1);
  }
  console.log(`✓ notebook type check: ${files.length} notebook(s), every code cell as the tslab kernel checks it`);
  process.exit(0); // the converter's file watchers would keep the process alive
}
