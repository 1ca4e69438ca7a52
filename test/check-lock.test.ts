/**
 * scripts/check-lock.py (make test): the committed dvc.lock must match what this tree builds. Held against locks
 * written here: a `report` stage entry with dvc.yaml's command and the md5 of scripts/report-index.mjs (computed by
 * node:crypto; DVC's md5 of a file is the plain digest of its bytes) passes; the same entry with another digest, or
 * with another command, fails and names the stage and the dependency; a lock without the stage fails.
 */
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { tempDir } from './helpers.js';

const root = resolve(import.meta.dirname, '..');
const py = join(root, '.venv', 'bin', 'python');
const d = tempDir('hb-lock-');
const md5 = createHash('md5')
  .update(readFileSync(join(root, 'scripts', 'report-index.mjs')))
  .digest('hex');

function check(stage: Record<string, unknown> | null) {
  const lock = join(d, 'dvc.lock');
  writeFileSync(lock, stringify({ schema: '2.0', stages: stage ? { report: stage } : {} }));
  return spawnSync(py, ['scripts/check-lock.py', '--lock', lock, '--only', 'report'], { cwd: root, encoding: 'utf8' });
}

describe('check-lock', () => {
  const entry = (digest: string, cmd = 'node scripts/report-index.mjs') => ({ cmd, deps: [{ path: 'scripts/report-index.mjs', hash: 'md5', md5: digest }] });

  it('passes when the recorded hashes and command are the tree’s', () => {
    const r = check(entry(md5));
    expect(r.stdout).toMatch(/^dvc\.lock matches this tree's code and configuration \(1 dependencies hashed\)/);
    expect(r.status).toBe(0);
  });

  it('fails on another hash, another command or a missing stage, naming them', () => {
    const stale = check(entry('0'.repeat(32)));
    expect(stale.status).toBe(1);
    expect(stale.stdout).toContain(`dvc.lock is stale for scripts/report-index.mjs: this tree gives ${md5}, 1 stage(s) recorded ${'0'.repeat(32)} (report)`);
    const cmd = check(entry(md5, 'node scripts/report-index.mjs --old'));
    expect(cmd.status).toBe(1);
    expect(cmd.stdout).toContain('dvc.lock records another command for stage report');
    const none = check(null);
    expect(none.status).toBe(1);
    expect(none.stdout).toContain('dvc.lock has no entry for stage report');
  });
});
