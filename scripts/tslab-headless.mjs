#!/usr/bin/env node
// The headless notebook kernel (jupyter/headless/kernels/tslab-headless, what scripts/run-notebooks.mjs executes the
// notebooks on): tslab's own kernel — its Jupyter handler, executor and converter — with the converter's TypeScript
// program cut down to the cell and the previous cells' declarations: no lib, no @types, no module resolution
// (noLib, noResolve, types: []), and only the cell's syntax errors (plus the top-level-await marker, code 1308, that
// tslab reads) reported. tslab still emits each cell through the TypeScript program (the previous cells' names become
// `exports.NAME`, the last expression is shown, top-level await is wrapped) — what it no longer does is load the
// ES2022 lib, @types/node and dist's .d.ts and type check every cell against them (about 1.5 s of a kernel's start and
// 0.05–1 s a cell). [R] The type check moved to scripts/check-notebooks.mjs, once over every notebook with tslab's
// compiler and options, run by run-notebooks.mjs before the notebooks execute. JupyterLab (make lab) keeps the
// ordinary tslab kernel (jupyter/kernels/tslab), which type checks each cell as it runs.
//
// tslab's converter (node_modules/tslab/dist/converter.js) has no switch for this, so this file reads its source,
// applies the replacements below and registers the result in the module cache under the converter's own
// filename before tslab's main.js loads it; a replacement that does not find its text (a different tslab) stops the
// kernel with a message instead of running an unpatched converter.
import Module, { createRequire } from 'node:module';
import { readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';

const root = resolve(import.meta.dirname, '..');
const require = createRequire(join(root, 'package.json'));
const tslabDir = dirname(require.resolve('tslab/package.json'));
const converterPath = join(tslabDir, 'dist', 'converter.js');

/** [text in tslab 1.0.22's converter.js, its replacement] */
const PATCHES = [
  [
    'lib: transpileLib.map((lib) => `lib.${lib}.d.ts`),',
    // No lib, no @types, no imports followed: the program holds the cell and __prev__.d.ts only.
    'noLib: true, noResolve: true, types: [],',
  ],
  [
    'const diag = convertDiagnostics(getPreEmitDiagnosticsWithDependencies(builder, srcFile));',
    'const diag = convertDiagnostics(headlessDiagnostics(builder, srcFile));',
  ],
  [
    // Emitted through the program with forceDtsEmit: without the lib, a cell's declarations can name a type the
    // program cannot see (Record, Float32Array, hb.Plan), and the declaration emit would be blocked, dropping every
    // name the next cells need from __prev__.d.ts (tslab reads the names from it, not the types).
    'builder.emit(builder.getSourceFile(dep), (fileName, data) => {',
    'builder.getProgram().emit(builder.getSourceFile(dep), (fileName, data) => {',
  ],
  ['lastExpressionVar = name;\n            }));', 'lastExpressionVar = name;\n            }), /*forceDtsEmit*/ true);'],
  ['const diags = ts.getPreEmitDiagnostics(builder.getProgram(), file);', 'const diags = builder.getProgram().getSyntacticDiagnostics(file);'],
];
const HEADLESS_DIAGNOSTICS = `
/** The cell's syntax errors, and the 1308 diagnostics by which tslab finds a top-level await (scripts/tslab-headless.mjs). */
function headlessDiagnostics(builder, srcFile) {
    const program = builder.getProgram();
    return [...program.getSyntacticDiagnostics(srcFile), ...program.getSemanticDiagnostics(srcFile).filter((d) => d.code === 1308)];
}
`;

/** tslab's converter source with the headless replacements (exported for test/notebook-typecheck.test.ts). */
export function headlessConverterSource() {
  let src = readFileSync(converterPath, 'utf8');
  for (const [from, to] of PATCHES) {
    if (src.split(from).length !== 2) {
      throw new Error(
        `tslab-headless: ${converterPath} does not contain exactly one "${from}" (tslab changed?); run the notebooks on the tslab kernel (HEIGHTBENCH_NOTEBOOK_KERNEL=tslab) or update scripts/tslab-headless.mjs`,
      );
    }
    src = src.replace(from, to);
  }
  return src + HEADLESS_DIAGNOSTICS;
}

/** Puts the headless converter into the module cache where tslab's main.js and executor.js will look for it. */
export function installHeadlessConverter() {
  const m = new Module(converterPath);
  m.filename = converterPath;
  m.paths = Module._nodeModulePaths(dirname(converterPath));
  m._compile(headlessConverterSource(), converterPath);
  m.loaded = true;
  require.cache[converterPath] = m;
  return m.exports;
}

if (process.argv[1] && resolve(process.argv[1]) === resolve(import.meta.filename)) {
  const i = process.argv.indexOf('--config-path');
  if (i < 0) throw new Error('usage: tslab-headless.mjs --config-path CONNECTION_FILE');
  installHeadlessConverter();
  const { startKernel } = require(join(tslabDir, 'dist', 'main.js'));
  const { getVersion } = require(join(tslabDir, 'dist', 'util.js'));
  startKernel({ configPath: process.argv[i + 1], enableFindLocal: false, jsKernel: false, globalVersion: getVersion() });
}
