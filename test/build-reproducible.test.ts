/**
 * The build is reproducible across folders and ways (issue 25): `dist` built by scripts/build-dist.mjs (what make
 * build runs) in two folders at different depths — each with node_modules as a symlink to this project's install, as
 * in a worktree — holds the same files with the same bytes (SHA-256 of every file), so the code every DVC stage runs
 * (the stages record the sources, not dist) does not depend on where a clone lives. And the incremental build gives
 * what a build from nothing gives: folder a is built, then edited (a function added to one module, another module
 * deleted) and built again incrementally; folder b gets the edit first and is built once. Each folder gets the build's
 * inputs only (src, the tsconfigs, package.json and its lockfile, scripts/build-dist.mjs, scripts/bundle-cli.mjs and scripts/bundle-pages.mjs,
 * and bin/source-check.mjs, which records the sources).
 */
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

const root = resolve(import.meta.dirname, '..');
const base = mkdtempSync(join(tmpdir(), 'hb-build-'));
afterAll(() => rmSync(base, { recursive: true, force: true }));

function run(cwd: string, args: string[]): Promise<void> {
  return new Promise((done, fail) => {
    const c = spawn(process.execPath, args, { cwd, stdio: ['ignore', 'ignore', 'pipe'] });
    let err = '';
    c.stderr.on('data', (b: Buffer) => (err += b.toString()));
    c.on('exit', (code) => (code === 0 ? done() : fail(new Error(`node ${args.join(' ')} in ${cwd} failed (${code}): ${err}`))));
  });
}

function setUp(dir: string): void {
  mkdirSync(join(dir, 'scripts'), { recursive: true });
  mkdirSync(join(dir, 'bin'), { recursive: true });
  cpSync(join(root, 'src'), join(dir, 'src'), { recursive: true });
  for (const f of [
    'tsconfig.json',
    'tsconfig.build.json',
    'package.json',
    'package-lock.json',
    'scripts/build-dist.mjs',
    'scripts/bundle-cli.mjs',
    'scripts/bundle-pages.mjs',
    'bin/source-check.mjs',
  ])
    cpSync(join(root, f), join(dir, f));
  symlinkSync(join(root, 'node_modules'), join(dir, 'node_modules'));
}

/** The edit: a function added to src/core/text.ts and a new module (the caller also deletes one). */
function edit(dir: string): void {
  const p = join(dir, 'src', 'core', 'text.ts');
  writeFileSync(p, `${readFileSync(p, 'utf8')}\n/** Added by the test. */\nexport function addedByTheTest(x: number): number {\n  return x + 1;\n}\n`);
  writeFileSync(join(dir, 'src', 'core', 'only-for-the-test.ts'), 'export const onlyForTheTest = 1;\n');
}

async function build(dir: string): Promise<Map<string, string>> {
  await run(dir, ['scripts/build-dist.mjs']);
  const files = new Map<string, string>();
  const walk = (d: string) => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      const p = join(d, e.name);
      if (e.isDirectory()) walk(p);
      else files.set(relative(join(dir, 'dist'), p), createHash('sha256').update(readFileSync(p)).digest('hex'));
    }
  };
  walk(join(dir, 'dist'));
  return files;
}

function same(a: Map<string, string>, b: Map<string, string>): void {
  expect([...b.keys()].sort()).toEqual([...a.keys()].sort());
  expect([...a].filter(([k, h]) => b.get(k) !== h).map(([k]) => k)).toEqual([]);
}

describe('reproducible build', () => {
  it('dist is byte-identical built in two folders, and built incrementally after an edit as from nothing', { timeout: 300_000 }, async () => {
    const a = join(base, 'a');
    const b = join(base, 'deeper', 'folder', 'b');
    setUp(a);
    setUp(b);
    // a: with a module that the edit then removes, built from nothing; b: the same sources, built from nothing.
    writeFileSync(join(a, 'src', 'core', 'removed-by-the-test.ts'), 'export const removedByTheTest = 1;\n');
    writeFileSync(join(b, 'src', 'core', 'removed-by-the-test.ts'), 'export const removedByTheTest = 1;\n');
    const [a0, b0] = await Promise.all([build(a), build(b)]);
    expect(a0.size).toBeGreaterThan(100);
    expect([...a0.keys()].some((k) => k.startsWith('cli-bundle/'))).toBe(true);
    same(a0, b0);
    // The edit in both; a rebuilds incrementally, b from nothing.
    for (const d of [a, b]) {
      edit(d);
      rmSync(join(d, 'src', 'core', 'removed-by-the-test.ts'));
    }
    rmSync(join(b, 'dist'), { recursive: true });
    rmSync(join(b, '.cache'), { recursive: true, force: true });
    const [a1, b1] = await Promise.all([build(a), build(b)]);
    expect(a1.has('core/only-for-the-test.js')).toBe(true);
    expect(a1.has('core/removed-by-the-test.js')).toBe(false);
    expect(a1.get('core/text.js')).not.toBe(a0.get('core/text.js'));
    same(a1, b1);
  });
});
