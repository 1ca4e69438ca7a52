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
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import vm from 'node:vm';
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

/**
 * Loads tslab's TypeScript (9 MB of JavaScript) through V8's code cache, kept in .cache/v8/: parsing it is ~110 ms of
 * every kernel's start, ~40 ms from the cache. [R] The cache is keyed by the file's SHA-256 and Node's version, and
 * V8 checks it again (a rejected cache is rewritten); the module is the same module, put where tslab's require()
 * finds it (require.cache), as the converter above.
 */
export function installCachedTypeScript() {
  const file = createRequire(join(tslabDir, 'package.json')).resolve('@tslab/typescript-for-tslab');
  const source = readFileSync(file, 'utf8');
  const key = createHash('sha256').update(source).update(process.version).digest('hex').slice(0, 16);
  const cacheFile = join(root, '.cache', 'v8', `typescript-for-tslab-${key}.bin`);
  const cached = existsSync(cacheFile) ? readFileSync(cacheFile) : undefined;
  const script = new vm.Script(Module.wrap(source), { filename: file, cachedData: cached });
  const m = new Module(file);
  m.filename = file;
  m.paths = Module._nodeModulePaths(dirname(file));
  script.runInThisContext().call(m.exports, m.exports, createRequire(file), m, file, dirname(file));
  m.loaded = true;
  require.cache[file] = m;
  if (!cached || script.cachedDataRejected) {
    try {
      mkdirSync(dirname(cacheFile), { recursive: true });
      const tmp = `${cacheFile}.${process.pid}.tmp`;
      writeFileSync(tmp, script.createCachedData());
      renameSync(tmp, cacheFile);
    } catch {
      // no cache this time: the next kernel parses again
    }
  }
  return m.exports;
}

if (process.argv[1] && resolve(process.argv[1]) === resolve(import.meta.filename)) {
  const i = process.argv.indexOf('--config-path');
  if (i < 0) throw new Error('usage: tslab-headless.mjs --config-path CONNECTION_FILE');
  installCachedTypeScript();
  installHeadlessConverter();
  const { startKernel } = require(join(tslabDir, 'dist', 'main.js'));
  const { getVersion } = require(join(tslabDir, 'dist', 'util.js'));
  startKernel({ configPath: process.argv[i + 1], enableFindLocal: false, jsKernel: false, globalVersion: getVersion() });
}
