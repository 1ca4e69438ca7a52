/**
 * scripts/jobs.mjs, which runs the three checks of a gpucompare stage at once: every job runs, each log is printed
 * whole in the given order whatever order they end in, and the exit status is the first failing job's (a failed
 * gate's 3 stays 3), so a DVC stage fails exactly when one of its checks fails.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const script = join(import.meta.dirname, '..', 'scripts', 'jobs.mjs');
const run = (args: string[], env: Record<string, string> = {}) =>
  spawnSync(process.execPath, [script, ...args], { encoding: 'utf8', env: { ...process.env, HEIGHTBENCH_JOBS: '2', ...env } });
const job = (text: string, ms: number, status: number) => ['sh', '-c', `sleep ${ms / 1000}; echo ${text}; echo ${text}-err >&2; exit ${status}`];

describe('scripts/jobs.mjs', () => {
  it('prints each log whole in the given order and exits 0 when all succeed', () => {
    const r = run([...job('first', 400, 0), ':::', ...job('second', 0, 0), ':::', ...job('third', 0, 0)]);
    expect(r.status).toBe(0);
    expect(r.stdout).toBe('first\nsecond\nthird\n');
    expect(r.stderr).toBe('first-err\nsecond-err\nthird-err\n');
  });

  it("exits with the first failing job's status, after every job ran", () => {
    const r = run([...job('a', 0, 0), ':::', ...job('b', 300, 3), ':::', ...job('c', 0, 1)]);
    expect(r.status).toBe(3);
    expect(r.stdout).toBe('a\nb\nc\n');
  });

  it('runs jobs at once: the first waits for a file only the second creates', () => {
    const d = mkdtempSync(join(tmpdir(), 'hb-jobs-'));
    const flag = join(d, 'flag');
    const r = spawnSync(
      process.execPath,
      [script, 'sh', '-c', `while [ ! -f ${flag} ]; do sleep 0.05; done; echo waited`, ':::', 'sh', '-c', `touch ${flag}; echo made`],
      {
        encoding: 'utf8',
        env: { ...process.env, HEIGHTBENCH_JOBS: '2' },
        timeout: 20_000, // one after the other, the first job would wait for ever
      },
    );
    rmSync(d, { recursive: true, force: true });
    expect(r.status).toBe(0);
    expect(r.stdout).toBe('waited\nmade\n');
  });

  it('a job killed by a signal fails the run with 128 + its number (SIGTERM: 143), as a shell reports it', () => {
    const r = run([...job('ok', 0, 0), ':::', 'sh', '-c', 'kill -TERM $$']);
    expect(r.status).toBe(143);
  });

  it('refuses an empty command (exit 2) and reports a command that cannot start', () => {
    expect(run(['echo', 'a', ':::']).status).toBe(2);
    const r = run(['/nonexistent/cmd']);
    expect(r.status).not.toBe(0);
    expect(r.stderr).toMatch(/cannot start \/nonexistent\/cmd/);
  });
});
