/**
 * The notebooks' type check moved out of the kernel (issue 25, the loop): scripts/run-notebooks.mjs executes the
 * notebooks on tslab-headless (scripts/tslab-headless.mjs: tslab without the per-cell type check) and type checks
 * every code cell once with tslab's own converter (scripts/check-notebooks.mjs). Held here: the headless converter
 * emits what tslab's emits for every committed cell (and keeps its top-level await and syntax errors); the check's
 * cells are jupytext's; the committed notebooks check; a type error in a cell fails the check with the ordinary
 * kernel's message at the .nb.ts's line, although the headless kernel itself would run that cell; and run-notebooks,
 * in a scratch project holding such a notebook, exits 1 with the check as the failed --results entry and exports no
 * HTML.
 */
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import Module, { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

const root = resolve(import.meta.dirname, '..');
const py = join(root, '.venv', 'bin', 'python');
const dir = mkdtempSync(join(tmpdir(), 'hb-nbcheck-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

interface Converted {
  output?: string;
  declOutput?: string;
  hasToplevelAwait?: boolean;
  lastExpressionVar?: string;
  diagnostics: { messageText: string; start: { line: number } }[];
}
interface Converter {
  convert(prevDecl: string, src: string): Converted;
  close(): void;
}
type CreateConverter = (o: { isJS: boolean; isBrowser: boolean }) => Converter;

const require = createRequire(join(root, 'package.json'));
const converterPath = require.resolve('tslab/dist/converter.js');

/** tslab's converter and the headless one (its source patched by scripts/tslab-headless.mjs), both working from the root. */
async function converters(): Promise<{ normal: CreateConverter; headless: CreateConverter }> {
  const { headlessConverterSource } = (await import(join(root, 'scripts', 'tslab-headless.mjs'))) as { headlessConverterSource: () => string };
  const m = new Module(converterPath) as Module & { _compile(src: string, file: string): void; paths: string[] };
  m.filename = converterPath;
  m.paths = (Module as unknown as { _nodeModulePaths(d: string): string[] })._nodeModulePaths(resolve(converterPath, '..'));
  m._compile(headlessConverterSource(), converterPath);
  return {
    normal: (require(converterPath) as { createConverter: CreateConverter }).createConverter,
    headless: (m.exports as { createConverter: CreateConverter }).createConverter,
  };
}

/** Runs fn with the working directory at the project root (tslab's converter compiles cells as <cwd>/__tslab__.ts). */
function inRoot<T>(fn: () => T): T {
  const cwd = process.cwd();
  process.chdir(root);
  try {
    return fn();
  } finally {
    process.chdir(cwd);
  }
}

const sources = readdirSync(join(root, 'notebooks'))
  .filter((f) => f.endsWith('.nb.ts'))
  .sort();

/** Code cells of every committed notebook as jupytext reads them (scripts/notebooks.py read_source). */
function jupytextCells(): Record<string, string[]> {
  const r = spawnSync(
    py,
    [
      '-c',
      'import sys, json; sys.path.insert(0, "scripts"); import notebooks as n; print(json.dumps({n.stem(s): [c.source for c in n.read_source(s).cells if c.cell_type == "code"] for s in n.sources()}))',
    ],
    { cwd: root, encoding: 'utf8' },
  );
  if (r.status !== 0) throw new Error(r.stderr);
  return JSON.parse(r.stdout) as Record<string, string[]>;
}

// A notebook whose second cell runs but does not type check (a number where the annotation says string).
const BAD = `// -*- coding: utf-8 -*-
// %% [markdown]
// # 99 — a type error

// %%
import * as hb from './dist/api/notebook.js';
const shape = { margin: 4, transitionWidth: 256, amplitude: 35 };

// %%
const h: string = hb.sourceHeight(104, shape);
console.log(h);
`;
const BAD_LINE = 10; // 1-based line of `const h: string = …` in BAD

describe('notebook type check (scripts/check-notebooks.mjs) and the headless kernel', () => {
  it('the headless converter emits the same JS as tslab’s for every committed code cell', async () => {
    const { normal, headless } = await converters();
    const cells = jupytextCells();
    inRoot(() => {
      const n = normal({ isJS: false, isBrowser: false });
      const h = headless({ isJS: false, isBrowser: false });
      for (const [name, srcs] of Object.entries(cells)) {
        let pn = '';
        let ph = '';
        for (const [i, src] of srcs.entries()) {
          const a = n.convert(pn, src);
          const b = h.convert(ph, src);
          expect(a.diagnostics, `${name} cell ${i}`).toEqual([]);
          expect(b.diagnostics, `${name} cell ${i}`).toEqual([]);
          expect([b.output, b.hasToplevelAwait, b.lastExpressionVar], `${name} cell ${i}`).toEqual([a.output, a.hasToplevelAwait, a.lastExpressionVar]);
          pn = a.declOutput ?? '';
          ph = b.declOutput ?? '';
        }
      }
      n.close();
      h.close();
    });
  }, 120_000);

  it('the headless converter keeps tslab’s top-level await, its nested-await error and syntax errors', async () => {
    const { normal, headless } = await converters();
    const cases = ['const x = await Promise.resolve(1);\nx', 'function f() { await 1; }', 'const y = (1;'];
    const seen = inRoot(() =>
      [normal, headless].map((create) => {
        const c = create({ isJS: false, isBrowser: false });
        const r = cases.map((src) => {
          const o = c.convert('', src);
          return [o.output, o.hasToplevelAwait, o.diagnostics.map((d) => d.messageText)];
        });
        c.close();
        return r;
      }),
    );
    expect(seen[1]).toEqual(seen[0]);
    expect(seen[1][0][1]).toBe(true);
    expect(seen[1][1][2]).toEqual(["'await' expressions are only allowed within async functions and at the top levels of modules."]);
    expect(seen[1][2][2]).toEqual(["')' expected."]);
  });

  it('splits the .nb.ts into the code cells jupytext reads', async () => {
    const { codeCells } = (await import(join(root, 'scripts', 'check-notebooks.mjs'))) as { codeCells: (t: string) => { source: string }[] };
    const cells = jupytextCells();
    expect(Object.keys(cells).sort()).toEqual(sources.map((f) => f.slice(0, -'.nb.ts'.length)));
    for (const [name, srcs] of Object.entries(cells)) {
      expect(
        codeCells(readFileSync(join(root, 'notebooks', `${name}.nb.ts`), 'utf8')).map((c) => c.source),
        name,
      ).toEqual(srcs);
    }
  });

  it('the committed notebooks type check', () => {
    const r = spawnSync(process.execPath, ['scripts/check-notebooks.mjs'], { cwd: root, encoding: 'utf8' });
    expect(r.stderr).toBe('');
    expect(r.stdout).toContain(`✓ notebook type check: ${sources.length} notebook(s)`);
    expect(r.status).toBe(0);
  }, 120_000);

  it('a type error in a cell fails the check with the kernel’s message at the .nb.ts line; the headless kernel alone would run the cell', async () => {
    const file = join(dir, '99-bad.nb.ts');
    writeFileSync(file, BAD);
    const r = spawnSync(process.execPath, ['scripts/check-notebooks.mjs', file], { cwd: root, encoding: 'utf8' });
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(new RegExp(`99-bad\\.nb\\.ts:${BAD_LINE}:7 - Type 'number' is not assignable to type 'string'\\. \\(TS2322\\)`));
    expect(r.stderr).toContain('✗ notebook type check: 1 error(s) in 1 notebook(s)');
    // The same cell in tslab's converter (the ordinary kernel) and in the headless one.
    const { normal, headless } = await converters();
    const [cell1, cell2] = BAD.split('// %%\n').slice(1);
    inRoot(() => {
      for (const [create, errors] of [
        [normal, ["Type 'number' is not assignable to type 'string'."]],
        [headless, []],
      ] as const) {
        const c = create({ isJS: false, isBrowser: false });
        const first = c.convert('', cell1.trim());
        expect(first.diagnostics).toEqual([]);
        expect(c.convert(first.declOutput ?? '', cell2.trim()).diagnostics.map((d) => d.messageText)).toEqual(errors);
        c.close();
      }
    });
  }, 120_000);

  it('run-notebooks fails on it: the type check is the failed --results entry and no HTML is exported', () => {
    // A scratch project: this tree's scripts, kernels, dist and dependencies, and the one notebook.
    const proj = join(dir, 'proj');
    mkdirSync(join(proj, 'notebooks'), { recursive: true });
    cpSync(join(root, 'scripts'), join(proj, 'scripts'), { recursive: true, filter: (s) => !s.includes('__pycache__') });
    cpSync(join(root, 'package-lock.json'), join(proj, 'package-lock.json')); // part of the type check's record key
    for (const link of ['dist', 'node_modules', '.venv', 'jupyter', 'bin']) {
      if (!existsSync(join(root, link))) throw new Error(`${link} is missing (make build / make setup)`);
      symlinkSync(join(root, link), join(proj, link));
    }
    writeFileSync(join(proj, 'notebooks', '99-bad.nb.ts'), BAD);
    const results = join(dir, 'results.json');
    const html = join(dir, 'html');
    const env = { ...process.env, HEIGHTBENCH_NOTEBOOK_KERNEL: undefined };
    const r = spawnSync(process.execPath, [join(proj, 'scripts', 'run-notebooks.mjs'), '--results', results, '--export', html], {
      cwd: proj,
      env,
      encoding: 'utf8',
    });
    expect(r.status, r.stdout + r.stderr).toBe(1);
    expect(r.stdout).toContain('✓ notebook 99-bad.ipynb'); // the headless kernel ran it
    expect(r.stdout).toContain("Type 'number' is not assignable to type 'string'.");
    const j = JSON.parse(readFileSync(results, 'utf8')) as { passed: number; failed: number; notebooks: { notebook: string; ok: boolean }[] };
    expect([j.passed, j.failed]).toEqual([1, 1]);
    expect(j.notebooks.find((n) => !n.ok)?.notebook).toMatch(/type check/);
    expect(existsSync(html)).toBe(false);
  }, 180_000);
});

describe("the type check's record (scripts/notebook-inputs.mjs typecheckKey)", () => {
  it('changes with a notebook, a declaration file, the lockfile or the checker — not with compiled JavaScript', async () => {
    // @ts-expect-error plain JavaScript module
    const { typecheckKey } = (await import('../scripts/notebook-inputs.mjs')) as { typecheckKey: (root: string) => string };
    const r = mkdtempSync(join(tmpdir(), 'hb-tckey-'));
    afterAll(() => rmSync(r, { recursive: true, force: true }));
    for (const d of ['notebooks', 'dist/api', 'scripts']) mkdirSync(join(r, d), { recursive: true });
    const put = (f: string, t: string) => writeFileSync(join(r, f), t);
    put('notebooks/01-a.nb.ts', '// %%\nconst x = 1;\n');
    put('dist/api/notebook.d.ts', 'export declare const a: number;\n');
    put('dist/api/notebook.js', 'export const a = 1;\n');
    put('package-lock.json', '{}\n');
    put('scripts/check-notebooks.mjs', '// checker\n');
    const k0 = typecheckKey(r);
    put('dist/api/notebook.js', 'export const a = 2;\n');
    expect(typecheckKey(r)).toBe(k0);
    const changes: [string, string][] = [
      ['dist/api/notebook.d.ts', 'export declare const a: string;\n'],
      ['dist/api/extra.d.ts', 'export {};\n'],
      ['notebooks/01-a.nb.ts', '// %%\nconst x: string = 1;\n'],
      ['package-lock.json', '{"tslab":"2"}\n'],
      ['scripts/check-notebooks.mjs', '// checker 2\n'],
    ];
    const seen = new Set([k0]);
    for (const [f, t] of changes) {
      put(f, t);
      const k = typecheckKey(r);
      expect(seen.has(k), f).toBe(false);
      seen.add(k);
    }
  });
});
