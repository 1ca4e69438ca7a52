/**
 * scripts/checks.mjs, which runs a DVC stage's checks and its stage hashes in one process: the result must be what the
 * same command lines give as separate processes (the same log, the same report folders byte for byte, the same
 * hashes.json), with the shared reference folder read once and the verified digests lent to stage-hashes; a failed
 * gate's 3 is the exit status while the later jobs still run; a command line of another form is refused (exit 2).
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { cli, tempDir } from './helpers.js';

const ROOT = resolve(import.meta.dirname, '..');
const node = (args: string[]) => spawnSync(process.execPath, args, { cwd: ROOT, encoding: 'utf8' });

/** Every file under `dir` (relative path → bytes). */
function tree(dir: string): Map<string, Buffer> {
  const out = new Map<string, Buffer>();
  const walk = (d: string) => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      const p = join(d, e.name);
      if (e.isDirectory()) walk(p);
      else out.set(relative(dir, p), readFileSync(p));
    }
  };
  walk(dir);
  return out;
}

describe('scripts/checks.mjs', () => {
  const base = tempDir('hb-checks-');
  const f32 = join(base, 'f32');
  const f64 = join(base, 'f64');
  const snapped = join(base, 'snapped');
  beforeAll(async () => {
    expect((await cli('run', 'teaching-512', '--size', '128', '--precision', 'f32', '--quiet', '--out', f32)).code).toBe(0);
    expect((await cli('run', 'teaching-512', '--size', '128', '--precision', 'f64', '--quiet', '--out', f64)).code).toBe(0);
    const s = await cli(
      'run',
      'teaching-512',
      '--size',
      '128',
      '--precision',
      'f32',
      '--subpixel-bits',
      '4',
      '--quad-coverage',
      'snapped',
      '--quiet',
      '--out',
      snapped,
    );
    expect(s.code).toBe(0);
  }, 120_000);

  const jobs = (out: string, gate: string[] = []) => [
    ['node', 'bin/heightbench.mjs', 'check', snapped, f64, '--report', join(out, 'a'), '--attribution', ...gate],
    ['node', 'bin/heightbench.mjs', 'check', f32, f64, '--report', join(out, 'b'), '--attribution', '--title', 'second'],
    ['node', 'scripts/stage-hashes.mjs', snapped, f64, join(out, 'hashes.json')],
  ];

  it('gives the log, reports and hashes of separate processes, reading the shared folder once', () => {
    const one = join(base, 'one');
    const sep = join(base, 'sep');
    const r = node(['scripts/checks.mjs', ...jobs(one).flatMap((j, i) => (i ? [':::', ...j] : j))]);
    expect(r.status, r.stderr).toBe(0);
    let log = '';
    for (const [, ...args] of jobs(sep)) {
      const s = node(args);
      expect(s.status, s.stderr).toBe(0);
      log += s.stdout;
    }
    expect(r.stdout.replaceAll(one, sep)).toBe(log);
    const a = tree(one);
    const b = tree(sep);
    expect([...a.keys()].sort()).toEqual([...b.keys()].sort());
    expect(a.size).toBeGreaterThan(10);
    for (const [k, v] of a) expect(v.toString('latin1').replaceAll(one, sep), k).toBe(b.get(k)!.toString('latin1'));
    // The f64 folder's files were read by the first check and served to the second; every stage dump the checks
    // verified lent its digest (the hashes are the same either way, above).
    const m =
      /checks\.mjs: 3 job\(s\); (\d+) heightfield file\(s\) read, (\d+) read\(s\) served from a file kept for a later check, (\d+) digest\(s\) lent/.exec(
        r.stderr,
      );
    expect(m, r.stderr).not.toBeNull();
    const dumps = (d: string) => readdirSync(d).filter((f) => /\.(r16|r32)$/.test(f)).length;
    expect(Number(m![1])).toBe(dumps(snapped) + dumps(f64) + dumps(f32)); // each file once
    expect(Number(m![2])).toBe(dumps(f64));
    expect(Number(m![3])).toBe(dumps(snapped) + dumps(f64));
  }, 120_000);

  it("exits with a failed gate's 3 after every job ran", () => {
    const out = join(base, 'gate');
    const r = node(['scripts/checks.mjs', ...jobs(out, ['--min-exact', '100', '--strict']).flatMap((j, i) => (i ? [':::', ...j] : j))]);
    expect(r.status).toBe(3);
    expect(r.stdout).toMatch(/gate exact codes % ≥ 100: .* → FAIL/);
    expect(existsSync(join(out, 'b', 'metrics.json'))).toBe(true);
    expect(existsSync(join(out, 'hashes.json'))).toBe(true);
  }, 120_000);

  it('refuses a command line of another form with exit 2, before running anything', () => {
    const out = join(base, 'refused');
    const r = node(['scripts/checks.mjs', ...jobs(out)[0], ':::', 'sh', '-c', 'touch x']);
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(
      /expected "node bin\/heightbench\.mjs check ARGS…" or "node scripts\/stage-hashes\.mjs GEN REF OUT" between ":::", got "sh -c touch x"/,
    );
    expect(existsSync(out)).toBe(false);
  });
});
