/**
 * The build is reproducible across folders (issue 25): `dist` built from this tree's sources in two folders at
 * different depths — each with node_modules as a symlink to this project's install, as in a worktree — holds the same
 * files with the same bytes (SHA-256 of every file), so the code every DVC stage runs — the stages record the sources,
 * not dist — does not depend on where a clone lives. Each folder gets the build's inputs only (src, the tsconfigs,
 * package.json and its lockfile, scripts/bundle-cli.mjs, and bin/source-check.mjs, which records the sources) and runs the Makefile's build commands (tsc -p tsconfig.build.json, then the esbuild bundle).
 */
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
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

async function buildIn(dir: string): Promise<Map<string, string>> {
  mkdirSync(join(dir, 'scripts'), { recursive: true });
  mkdirSync(join(dir, 'bin'), { recursive: true });
  cpSync(join(root, 'src'), join(dir, 'src'), { recursive: true });
  for (const f of ['tsconfig.json', 'tsconfig.build.json', 'package.json', 'package-lock.json', 'scripts/bundle-cli.mjs', 'bin/source-check.mjs'])
    cpSync(join(root, f), join(dir, f));
  symlinkSync(join(root, 'node_modules'), join(dir, 'node_modules'));
  await run(dir, ['node_modules/typescript/bin/tsc', '-p', 'tsconfig.build.json']);
  await run(dir, ['scripts/bundle-cli.mjs']);
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

describe('reproducible build', () => {
  it('dist is byte-identical when built in two folders', { timeout: 240_000 }, async () => {
    const [a, b] = await Promise.all([buildIn(join(base, 'a')), buildIn(join(base, 'deeper', 'folder', 'b'))]);
    expect(a.size).toBeGreaterThan(100);
    expect([...a.keys()].some((k) => k.startsWith('cli-bundle/'))).toBe(true);
    expect([...b.keys()].sort()).toEqual([...a.keys()].sort());
    const differing = [...a].filter(([k, h]) => b.get(k) !== h).map(([k]) => k);
    expect(differing).toEqual([]);
  });
});
