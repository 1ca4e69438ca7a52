#!/usr/bin/env node
// Executes every notebook headless from its .nb.ts source through scripts/notebooks.py, two kernels at a time
// (HEIGHTBENCH_NOTEBOOK_JOBS), with the Jupyter folders kept in the project. --results FILE: pass/fail counts
// for the test summary. --export DIR: also write HTML into DIR.
//
// [R] The kernel is tslab-headless (jupyter/headless/kernels, scripts/tslab-headless.mjs): tslab without the per-cell
// type check, which costs most of a kernel's compile time; the notebooks are type checked once instead, cell by cell
// with tslab's own converter (scripts/check-notebooks.mjs), beside the execution, and a type error fails the run as it
// fails the cell in a kernel (it is an entry of --results). HEIGHTBENCH_NOTEBOOK_KERNEL=tslab runs them as before:
// on the ordinary tslab kernel (jupyter/kernels/tslab, JupyterLab's), each cell type checked as it runs, no separate
// check.
import { spawn } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { delimiter, dirname, join, resolve } from 'node:path';
import { typecheckKey } from './notebook-inputs.mjs';
import { assertFreshDist } from '../bin/source-check.mjs';

// dist/ must be built from the sources the DVC stages depend on (bin/source-check.mjs).
assertFreshDist('run-notebooks');

const root = resolve(import.meta.dirname, '..');
const env = {
  ...process.env,
  // jupyter/headless first: the headless kernel is found only here, not by make lab's JupyterLab.
  JUPYTER_PATH: [join(root, 'jupyter', 'headless'), join(root, 'jupyter')].join(delimiter),
  JUPYTER_CONFIG_DIR: join(root, 'jupyter', 'config'),
  JUPYTER_DATA_DIR: join(root, '.cache', 'jupyter-data'),
  JUPYTER_RUNTIME_DIR: join(root, '.cache', 'jupyter-runtime'),
  JUPYTER_PLATFORM_DIRS: '1',
  IPYTHONDIR: join(root, '.cache', 'ipython'),
};
const py = join(root, '.venv', 'bin', 'python');
const arg = (name) => {
  const i = process.argv.indexOf(name);
  return i >= 0 ? process.argv[i + 1] : undefined;
};
const kernel = process.env.HEIGHTBENCH_NOTEBOOK_KERNEL ?? 'tslab-headless';
if (kernel !== 'tslab' && kernel !== 'tslab-headless') {
  console.error(`HEIGHTBENCH_NOTEBOOK_KERNEL=${kernel}: expected tslab-headless (the default) or tslab`);
  process.exit(2);
}
// The type check runs beside the notebooks' execution (its own process; its output is held until the end).
// [R] Its verdict depends only on its inputs — the notebook sources, dist's declaration files (what the cells import),
// the installed tslab and TypeScript (package-lock.json) and the checker itself — so a pass is recorded under their
// SHA-256 (.cache/notebook-typecheck.json) and not repeated while they are unchanged: an edit of an implementation
// under src/ leaves every .d.ts as it was. HEIGHTBENCH_NOTEBOOK_TYPECHECK=always checks regardless.
const typecheckRecord = join(root, '.cache', 'notebook-typecheck.json');
const key = kernel === 'tslab-headless' ? typecheckKey(root) : null;
const recorded = key && existsSync(typecheckRecord) ? JSON.parse(readFileSync(typecheckRecord, 'utf8')) : null;
const typecheck =
  kernel !== 'tslab-headless'
    ? undefined
    : recorded?.key === key && process.env.HEIGHTBENCH_NOTEBOOK_TYPECHECK !== 'always'
      ? Promise.resolve({
          ok: true,
          text: `✓ notebook type check: passed before on these inputs (notebooks, dist's .d.ts, tslab; SHA-256 ${key.slice(0, 12)}), not repeated\n`,
        })
      : new Promise((done) => {
          const p = spawn(process.execPath, ['scripts/check-notebooks.mjs'], { cwd: root, env, stdio: ['ignore', 'pipe', 'pipe'] });
          let text = '';
          p.stdout.on('data', (d) => (text += d));
          p.stderr.on('data', (d) => (text += d));
          p.on('close', (code) => {
            if (code === 0) {
              mkdirSync(dirname(typecheckRecord), { recursive: true });
              writeFileSync(`${typecheckRecord}.tmp`, `${JSON.stringify({ key })}\n`);
              renameSync(`${typecheckRecord}.tmp`, typecheckRecord);
            }
            done({ ok: code === 0, text });
          });
        });

const executed = join(root, '.cache', 'notebooks-executed');
// One Python process: the jupytext form check (--check), the execution, and the HTML export, each notebook's made in
// the pool as soon as it has executed (--export), into a staging folder copied to DIR only when everything passed.
const staged = join(root, '.cache', 'notebooks-html');
const jobs = process.env.HEIGHTBENCH_NOTEBOOK_JOBS ?? '2';
const args = ['scripts/notebooks.py', 'execute', executed, '--check', '--jobs', jobs, '--kernel', kernel];
const results = arg('--results');
// [R] With --results (make test) notebook 01 also runs a second time and must give the same file (determinism); the
// reproduce (--export alone) runs each notebook once.
if (results) args.push('--results', results, '--twice', '01');
const html = arg('--export');
if (html) {
  rmSync(staged, { recursive: true, force: true });
  args.push('--export', staged);
}
const r = await new Promise((done) => spawn(py, args, { cwd: root, env, stdio: 'inherit' }).on('close', (code) => done(code)));
let status = r ?? 1;
if (typecheck) {
  const tc = await typecheck;
  process.stdout.write(tc.text);
  if (!tc.ok) status = 1;
  if (results && existsSync(results)) {
    const j = JSON.parse(readFileSync(results, 'utf8'));
    const error = tc.ok ? null : tc.text.slice(-3000);
    j.notebooks.push({ notebook: 'type check of every code cell (scripts/check-notebooks.mjs)', ok: tc.ok, error });
    if (tc.ok) j.passed++;
    else j.failed++;
    writeFileSync(results, JSON.stringify(j, null, 1) + '\n');
  }
}
if (html && status === 0) {
  mkdirSync(html, { recursive: true });
  for (const f of readdirSync(staged).sort()) {
    copyFileSync(join(staged, f), join(html, `${f}.tmp`));
    renameSync(join(html, `${f}.tmp`), join(html, f));
    console.log(`exported ${join(html, f)}`);
  }
}
process.exit(status);
