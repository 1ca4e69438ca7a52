/**
 * Issue 30, class 1 — names are names. A run, request, world or branch name that reaches a path is checked once
 * (src/core/names.ts: safe alphabet, length, no leading '.' or '-', no reserved object key) and every destination
 * derived from one is resolved inside its folder before anything is written or removed. Each case runs the real
 * command against a throw-away project and then lists the folders around it: nothing may have been written.
 */
import { execFileSync } from 'node:child_process';
import { cpSync, mkdirSync, readdirSync, readFileSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { checkName, nameProblem, ownEntry, resolveInside } from '../src/core/names.js';
import { cli, tempDir } from './helpers.js';

const repo = resolve(import.meta.dirname, '..');

/** Every path under `dir` with its size and mtime: a fingerprint that any write or removal changes. */
function snapshot(dir: string): string[] {
  const out: string[] = [];
  const walk = (d: string) => {
    for (const e of readdirSync(d).sort()) {
      const p = join(d, e);
      const st = statSync(p, { throwIfNoEntry: false });
      out.push(`${p.slice(dir.length)} ${st ? `${st.size}` : 'dangling'}`);
      if (st?.isDirectory()) walk(p);
    }
  };
  walk(dir);
  return out;
}

/** A throw-away project root: the real config/, a params.yaml with the given runs, empty references/ and reports/. */
function project(runs: Record<string, { request: string; size: number }>): { outer: string; root: string } {
  const outer = tempDir('hb-names-');
  const root = join(outer, 'project');
  mkdirSync(join(root, 'references', 'bless'), { recursive: true });
  mkdirSync(join(root, 'reports'), { recursive: true });
  cpSync(join(repo, 'config'), join(root, 'config'), { recursive: true });
  const lines = [
    'dumpWindow: 1024',
    'runs:',
    ...Object.entries(runs).flatMap(([k, v]) => [`  ${JSON.stringify(k)}:`, `    request: ${v.request}`, `    size: ${v.size}`]),
  ];
  writeFileSync(join(root, 'params.yaml'), `${lines.join('\n')}\n`);
  mkdirSync(join(outer, 'elsewhere'));
  return { outer, root };
}

let savedRoot: string | undefined;
beforeEach(() => {
  savedRoot = process.env.HEIGHTBENCH_ROOT;
});
afterEach(() => {
  if (savedRoot === undefined) delete process.env.HEIGHTBENCH_ROOT;
  else process.env.HEIGHTBENCH_ROOT = savedRoot;
});

describe('checkName and resolveInside', () => {
  it('names-alphabet: the documented alphabet passes; separators, dots, flags, control bytes, reserved keys and 101 characters are refused', () => {
    for (const ok of ['tundra-r19', 'tundra-r19-1024', 'a', 'A_b.c-9', 'x'.repeat(100)]) expect(nameProblem(ok)).toBeNull();
    const bad = ['', '.', '..', '../x', 'a/b', 'a\\b', '.hidden', '-rf', 'a b', 'a\nb', 'a\u001b[31m', 'é', 'x'.repeat(101)];
    const reserved = ['__proto__', 'constructor', 'prototype', 'toString', 'hasOwnProperty', 'valueOf', 'isPrototypeOf', '__defineGetter__'];
    for (const v of [...bad, ...reserved]) expect(() => checkName('run', v), JSON.stringify(v)).toThrow(/run name/);
    expect(() => checkName('run', '..')).toThrow(`run name ".." starts with '.' or '-'`);
    expect(() => checkName('run', '__proto__')).toThrow('run name "__proto__" is a reserved object key');
  });

  it('resolve-inside-escape: .., absolute paths, the folder itself and a planted symlinked folder are refused', () => {
    const d = tempDir('hb-inside-');
    const out = join(d, 'out');
    mkdirSync(out);
    mkdirSync(join(d, 'outside'));
    symlinkSync(join(d, 'outside'), join(out, 'link'));
    expect(resolveInside(out, 'a.png')).toBe(join(out, 'a.png'));
    expect(resolveInside(out, 'new/deeper/a.png')).toBe(join(out, 'new', 'deeper', 'a.png'));
    for (const child of ['..', '../x', '/etc/passwd', '', '.', 'link/a.png', 'sub/../../x']) {
      expect(() => resolveInside(out, child), JSON.stringify(child)).toThrow(/leads outside/);
    }
  });

  it('own-entry-proto: a lookup by a user name never answers an inherited property', () => {
    const rec: Record<string, number> = { a: 1 };
    expect(ownEntry(rec, 'a')).toBe(1);
    for (const k of ['__proto__', 'constructor', 'toString', 'hasOwnProperty']) expect(ownEntry(rec, k)).toBeUndefined();
  });
});

describe('bless', () => {
  it('bless-dotdot-run-name: a run named .. is refused with exit 2 and nothing is written', async () => {
    const { outer, root } = project({ '..': { request: 'teaching-512', size: 16 } });
    process.env.HEIGHTBENCH_ROOT = root;
    const before = snapshot(outer);
    const r = await cli('bless', '..', '--yes', '--reason', 'x');
    expect(r.code).toBe(2);
    expect(r.err).toContain('run name ".."');
    expect(r.err.trim().split('\n')).toHaveLength(1);
    expect(snapshot(outer)).toEqual(before);
  });

  it('bless-escaping-run-name: a run named ../../elsewhere/x is refused with exit 2 and nothing is written outside', async () => {
    const { outer, root } = project({ '../../elsewhere/x': { request: 'teaching-512', size: 16 } });
    process.env.HEIGHTBENCH_ROOT = root;
    const before = snapshot(outer);
    for (const gpu of [[], ['--gpu']]) {
      const r = await cli('bless', '../../elsewhere/x', '--yes', '--reason', 'x', ...gpu);
      expect(r.code).toBe(2);
      expect(r.err).toContain('"../../elsewhere/x"');
    }
    expect(snapshot(outer)).toEqual(before);
  });

  it('bless-proto-run-name: bless __proto__ / constructor / toString exit 2 naming the value (not 1)', async () => {
    const { outer, root } = project({ 'teaching-16': { request: 'teaching-512', size: 16 } });
    process.env.HEIGHTBENCH_ROOT = root;
    const before = snapshot(outer);
    for (const name of ['__proto__', 'constructor', 'toString', 'hasOwnProperty']) {
      const r = await cli('bless', name);
      expect(r.code, `${name}: ${r.err}`).toBe(2);
      expect(r.err).toContain(`run name "${name}" is a reserved object key`);
    }
    // A safe name that params.yaml does not have: exit 2 listing the runs there are.
    const r = await cli('bless', 'nope');
    expect(r.code).toBe(2);
    expect(r.err).toContain('no run "nope" in params.yaml; runs: teaching-16');
    expect(snapshot(outer)).toEqual(before);
  });

  it('params-request-escape: a params.yaml run whose request is a path is refused before it is read', async () => {
    const { outer, root } = project({ ok: { request: '../../../elsewhere/req', size: 16 } });
    process.env.HEIGHTBENCH_ROOT = root;
    const before = snapshot(outer);
    const r = await cli('bless', 'ok');
    expect(r.code).toBe(2);
    expect(r.err).toContain('request name "../../../elsewhere/req"');
    expect(snapshot(outer)).toEqual(before);
  });
});

describe('requests and worlds', () => {
  it('run-request-name-escape: run ../x and a request whose world is a path exit 2 naming the value', async () => {
    const d = tempDir('hb-req-');
    const r = await cli('run', '../../etc/passwd', '--out', join(d, 'out'), '--quiet');
    expect(r.code).toBe(2);
    expect(r.err).toContain('request name "../../etc/passwd"');
    const req = JSON.parse(readFileSync(join(repo, 'config', 'requests', 'teaching-512.json'), 'utf8'));
    writeFileSync(join(d, 'w.json'), JSON.stringify({ ...req, world: '../../../tmp/x' }));
    const w = await cli('run', join(d, 'w.json'), '--out', join(d, 'out2'), '--quiet');
    expect(w.code).toBe(2);
    expect(w.err).toContain('world name "../../../tmp/x"');
    expect(readdirSync(d).sort()).toEqual(['w.json']);
  });

  it('request-id-megabytes: a 1.2 MB request id is refused at the boundary (exit 2), so no sidecar exceeds its read limit', async () => {
    const d = tempDir('hb-reqid-');
    const req = JSON.parse(readFileSync(join(repo, 'config', 'requests', 'teaching-512.json'), 'utf8'));
    writeFileSync(join(d, 'big.json'), JSON.stringify({ ...req, id: 'x'.repeat(1_200_000) }));
    const r = await cli('run', join(d, 'big.json'), '--size', '16', '--out', join(d, 'out'), '--quiet');
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/request name "x{120}… \(1200000 characters\)" is 1200000 characters, over the limit of 100/);
    expect(r.err.length).toBeLessThan(600);
    expect(readdirSync(d)).toEqual(['big.json']);
  });
});

describe('regress', () => {
  it('regress-run-name-escape: a params.yaml run named ../../x is refused (exit 2); nothing is written outside --out, nor --out itself', async () => {
    const { outer, root } = project({ '../../elsewhere/x': { request: 'teaching-512', size: 16 } });
    execFileSync('git', ['init', '--quiet'], { cwd: root });
    execFileSync('git', ['-c', 'user.email=t@t', '-c', 'user.name=t', 'commit', '--quiet', '--allow-empty', '-m', 'base'], { cwd: root });
    process.env.HEIGHTBENCH_ROOT = root;
    const before = snapshot(join(outer, 'elsewhere'));
    const r = await cli('regress', '--base', 'HEAD', '--out', join(outer, 'out'));
    expect(r.code).toBe(2);
    expect(r.err).toContain('run name "../../elsewhere/x"');
    expect(snapshot(join(outer, 'elsewhere'))).toEqual(before);
    expect(readdirSync(outer).sort()).toEqual(['elsewhere', 'project']);
    // A base revision spelled as an option is never handed to git as one.
    const o = await cli('regress', '--base', '--output=/tmp/hb-x', '--out', join(outer, 'out'));
    expect(o.code).toBe(2);
  });
});
