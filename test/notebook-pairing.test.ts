/**
 * Two-way notebook sources (issue 25): notebooks/NAME.nb.ts (jupytext percent format, TypeScript) paired with
 * NAME.ipynb through notebooks/jupytext.toml. In a temporary folder holding a copy of a source and the config,
 * jupytext itself (the venv's CLI; nbformat reads the .ipynb) does the syncing: a cell edited in the .ipynb (as
 * JupyterLab saves it, with an output) appears in the .nb.ts with every other line unchanged, and a cell edited in
 * the .nb.ts appears in the .ipynb, which keeps its outputs. Also: every committed source is in jupytext's canonical
 * form (scripts/notebooks.py check), so syncing a notebook nobody edited rewrites no source.
 */
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdtempSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

const root = resolve(import.meta.dirname, '..');
const py = join(root, '.venv', 'bin', 'python');
const jupytext = join(root, '.venv', 'bin', 'jupytext');
const dir = mkdtempSync(join(tmpdir(), 'hb-pairing-'));
const env = {
  ...process.env,
  JUPYTER_PATH: join(root, 'jupyter'),
  JUPYTER_PLATFORM_DIRS: '1',
  JUPYTER_CONFIG_DIR: join(dir, 'config'),
  JUPYTER_DATA_DIR: join(dir, 'data'),
};
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function run(cmd: string, args: string[]): string {
  if (!existsSync(cmd)) throw new Error(`${cmd} is missing: the project's setup (requirements.txt) installs it`);
  const r = spawnSync(cmd, args, { cwd: dir, env, encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')} failed (${r.status}): ${r.stderr}`);
  return r.stdout;
}

/** Cells of an .ipynb as nbformat reads them: [type, source, number of outputs]. */
function ipynbCells(path: string): [string, string, number][] {
  const out = run(py, [
    '-c',
    'import nbformat,json,sys; nb=nbformat.read(sys.argv[1], as_version=4); print(json.dumps([[c.cell_type, c.source, len(c.get("outputs", []))] for c in nb.cells]))',
    path,
  ]);
  return JSON.parse(out) as [string, string, number][];
}

/** Marks a file as the newer side of the pair (jupytext --sync takes the inputs from the newer file). */
function touchNewer(path: string, secondsAhead: number): void {
  const t = new Date(Date.now() + secondsAhead * 1000);
  utimesSync(path, t, t);
}

describe('jupytext pairing of .nb.ts and .ipynb', () => {
  const name = '09-bell';
  const ts = join(dir, `${name}.nb.ts`);
  const nb = join(dir, `${name}.ipynb`);

  it('the committed sources are in jupytext percent form (notebooks.py check)', () => {
    const r = spawnSync(py, ['scripts/notebooks.py', 'check'], { cwd: root, env, encoding: 'utf8' });
    expect(r.stdout + r.stderr).toBe('');
    expect(r.status).toBe(0);
  });

  it('syncs an edit from each side to the other', { timeout: 120_000 }, () => {
    copyFileSync(join(root, 'notebooks', 'jupytext.toml'), join(dir, 'jupytext.toml'));
    copyFileSync(join(root, 'notebooks', `${name}.nb.ts`), ts);
    const original = readFileSync(ts, 'utf8');
    run(jupytext, ['--sync', ts]);
    const cells = ipynbCells(nb);
    expect(cells.length).toBeGreaterThan(2);
    expect(readFileSync(ts, 'utf8')).toBe(original); // creating the pair leaves the source as it was

    // Edit on the .ipynb side: the first code cell gains a line and an output (as a JupyterLab save would).
    const k = cells.findIndex((c) => c[0] === 'code');
    run(py, [
      '-c',
      [
        'import nbformat,sys',
        'nb=nbformat.read(sys.argv[1], as_version=4)',
        'c=nb.cells[int(sys.argv[2])]',
        'c.source += "\\nconsole.log(\'edited in JupyterLab\');"',
        'c.outputs=[nbformat.v4.new_output("stream", name="stdout", text="edited in JupyterLab\\n")]',
        'nbformat.write(nb, sys.argv[1])',
      ].join('\n'),
      nb,
      String(k),
    ]);
    touchNewer(nb, 10);
    run(jupytext, ['--sync', nb]);
    const afterLab = readFileSync(ts, 'utf8');
    const added = afterLab.split('\n').filter((l) => !original.split('\n').includes(l));
    expect(added).toEqual(["console.log('edited in JupyterLab');"]);
    expect(afterLab.replace("\nconsole.log('edited in JupyterLab');", '')).toBe(original);

    // Edit on the .nb.ts side: a Markdown line changes; the .ipynb takes it and keeps the output above.
    const edited = afterLab.replace(/^(\/\/ # .*)$/m, '$1 (edited in the source)');
    expect(edited).not.toBe(afterLab);
    writeFileSync(ts, edited);
    touchNewer(ts, 20);
    run(jupytext, ['--sync', ts]);
    const back = ipynbCells(nb);
    expect(back[0][0]).toBe('markdown');
    expect(back[0][1].split('\n')[0]).toMatch(/ \(edited in the source\)$/);
    expect(back[k][1].endsWith("console.log('edited in JupyterLab');")).toBe(true);
    expect(back[k][2]).toBe(1);
    expect(readFileSync(ts, 'utf8')).toBe(edited);
  });
});
