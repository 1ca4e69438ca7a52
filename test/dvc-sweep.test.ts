/**
 * DVC experiments (issue 25), in a temporary clone of this repository's HEAD (node_modules and .venv linked, dist
 * copied from this tree's build):
 *  - `dvc exp run --dry -C dist sweep` works (a dry run happens in a temporary copy, which has no dist/ unless copied);
 *  - a seed sweep at 256²: `dvc exp run --queue -S sweep.seeds=N -C dist sweep` for two seeds (the stage runs
 *    `heightbench sweep`), `dvc queue start -j 2`, then `dvc exp show --json` tabulates each seed's exact % and RMS —
 *    the numbers the comparison engine gives for the same request and seed run in this process (f32 against f64,
 *    final codes);
 *  - every gated `check` in dvc.yaml runs with --strict, so a failed gate fails its stage and its experiment.
 * The queue's workers are stopped in afterAll.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { cpSync, readFileSync, symlinkSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compareHeightfields } from '../src/compare/compare.js';
import { codeHeightfield } from '../src/core/heightfield.js';
import { loadRequest, requestGrid } from '../src/plan/request.js';
import { runPipeline } from '../src/pipeline/run.js';
import { tempDir } from './helpers.js';

const root = resolve(import.meta.dirname, '..');
const dvcBin = join(root, '.venv', 'bin', 'dvc');
const clone = join(tempDir('hb-sweep-'), 'clone');
const env = {
  ...process.env,
  // `dvc queue start` runs its workers as `dvc` from PATH (the Makefile puts .venv/bin first).
  PATH: `${join(root, '.venv', 'bin')}:${process.env.PATH ?? ''}`,
  DVC_NO_ANALYTICS: '1',
  GIT_AUTHOR_NAME: 'test',
  GIT_AUTHOR_EMAIL: 'test@example.invalid',
  GIT_COMMITTER_NAME: 'test',
  GIT_COMMITTER_EMAIL: 'test@example.invalid',
};
const SEEDS = [7, 11];
const SIZE = 256;

function dvc(...args: string[]) {
  return spawnSync(dvcBin, args, { cwd: clone, env, encoding: 'utf8', timeout: 240_000 });
}

beforeAll(() => {
  execFileSync('git', ['clone', '--quiet', root, clone], { env });
  symlinkSync(join(root, 'node_modules'), join(clone, 'node_modules'));
  symlinkSync(join(root, '.venv'), join(clone, '.venv'));
  cpSync(join(root, 'dist'), join(clone, 'dist'), { recursive: true });
}, 60_000);

afterAll(() => {
  dvc('queue', 'stop', '--kill');
});

/** Exact % and RMS of f32 against f64 for the sweep's request with another seed, computed here without DVC or the CLI. */
function expected(seed: number): { exactPercent: number; rmsMm: number } {
  const base = loadRequest('tundra-r19', SIZE);
  const req = { ...base, seed };
  const grid = requestGrid(req);
  const f32 = runPipeline(req, { precision: 'f32' });
  const f64 = runPipeline(req, { precision: 'f64' });
  const r = compareHeightfields(codeHeightfield(grid, f32.codes, req.encoding), codeHeightfield(grid, f64.codes, req.encoding));
  return { exactPercent: r.exactPercent, rmsMm: r.rmsMm };
}

describe('dvc experiments', () => {
  it('every gated check in dvc.yaml fails its stage when a gate fails (--strict)', () => {
    const yaml = readFileSync(join(root, 'dvc.yaml'), 'utf8');
    // A stage's commands: joined by && or, inside scripts/checks.mjs, separated by :::.
    const checks = yaml.split(/&&|:::|\n {4}cmd:/).filter((c) => /--min-exact|--max-code|--max-rms-mm/.test(c));
    expect(checks.length).toBe(2);
    for (const c of checks) expect(c).toMatch(/ --strict\b/);
  });

  it('dvc exp run --dry works', () => {
    // --force: a sweep stage that dvc.lock already records as up to date is still listed as run (what --dry shows).
    const r = dvc('exp', 'run', '--dry', '--force', '-C', 'dist', 'sweep');
    expect(r.stderr).not.toMatch(/ERROR/);
    expect(r.status).toBe(0);
    expect(r.stdout).toContain("Running stage 'sweep'");
  });

  it('a queued seed sweep, two workers, tabulated by dvc exp show (exact % and RMS per seed)', { timeout: 300_000 }, () => {
    for (const seed of SEEDS) {
      const q = dvc('exp', 'run', '--queue', '-S', `sweep.seeds=${seed}`, '-S', `sweep.size=${SIZE}`, '-C', 'dist', 'sweep');
      expect(q.status, q.stderr).toBe(0);
    }
    const start = dvc('queue', 'start', '-j', '2');
    expect(start.status, start.stderr).toBe(0);
    // Wait until no experiment is queued or running.
    // A bounded number of polls, not a clock deadline: a busy machine only makes each poll slower.
    let status = '';
    for (let polls = 0; ; polls++) {
      status = dvc('queue', 'status').stdout;
      if (!/\b(Queued|Running)\b/.test(status)) break;
      if (polls >= 120) throw new Error(`the queue did not finish in ${polls} polls:\n${status}`);
      spawnSync('sleep', ['2']);
    }
    expect(status).not.toMatch(/\bFailed\b/);
    const show = dvc('exp', 'show', '--json');
    expect(show.status, show.stderr).toBe(0);
    type Exp = {
      data?: {
        params?: Record<string, { data?: { sweep?: { seeds: number | string; size: number } } }>;
        metrics?: Record<string, { data?: Record<string, number> }>;
      };
    };
    const rows = (JSON.parse(show.stdout) as { experiments?: { revs?: Exp[] }[] | null }[])
      .flatMap((b) => b.experiments ?? [])
      .flatMap((e) => e.revs ?? [])
      .map((r) => ({ sweep: r.data?.params?.['params.yaml']?.data?.sweep, m: r.data?.metrics?.['reports/sweep/metrics.json']?.data }))
      .filter((r) => r.sweep && r.m);
    for (const seed of SEEDS) {
      const row = rows.find((r) => String(r.sweep!.seeds) === String(seed) && r.sweep!.size === SIZE);
      expect(row, `experiment for seed ${seed}`).toBeDefined();
      const e = expected(seed);
      // One request per experiment: its minimum exact % and largest RMS are that request's.
      expect(row!.m!.requests).toBe(1);
      expect(row!.m!.exactPercentMin).toBe(e.exactPercent);
      expect(row!.m!.rmsMmMax).toBe(e.rmsMm);
      expect(row!.m!.exactPercentMin).toBeGreaterThan(99);
    }
  });
});
