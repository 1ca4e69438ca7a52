#!/usr/bin/env node
// Executes every notebook headless (tslab kernel) from its .nb.ts source through scripts/notebooks.py, two kernels at
// a time (HEIGHTBENCH_NOTEBOOK_JOBS), with the Jupyter folders kept in the project. --results FILE: pass/fail counts
// for the test summary. --export DIR: also write HTML into DIR.
import { spawnSync } from 'node:child_process';
import { join, resolve } from 'node:path';

const root = resolve(import.meta.dirname, '..');
const env = {
  ...process.env,
  JUPYTER_PATH: join(root, 'jupyter'),
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
const executed = join(root, '.cache', 'notebooks-executed');
const sync = spawnSync(py, ['scripts/notebooks.py', 'check'], { cwd: root, env, stdio: 'inherit' });
const jobs = process.env.HEIGHTBENCH_NOTEBOOK_JOBS ?? '2';
const args = ['scripts/notebooks.py', 'execute', executed, '--twice', '01', '--jobs', jobs];
if (arg('--results')) args.push('--results', arg('--results'));
const r = spawnSync(py, args, { cwd: root, env, stdio: 'inherit' });
let status = r.status ?? 1;
if (sync.status !== 0) status = 1;
const html = arg('--export');
if (html && status === 0) {
  const e = spawnSync(py, ['scripts/notebooks.py', 'export', executed, html], { cwd: root, env, stdio: 'inherit' });
  if (e.status !== 0) status = e.status ?? 1;
}
process.exit(status);
