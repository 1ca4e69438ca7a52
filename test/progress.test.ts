// Progress on long work: shown on a terminal only (quiet in logs and with --quiet), one line per finished step.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { formatSeconds, progressEnabled, progressReporter } from '../src/cli/progress.js';
import { tempDir } from './helpers.js';

describe('progress reporter', () => {
  it('is shown on a TTY unless --quiet; HEIGHTBENCH_PROGRESS=1/0 overrides', () => {
    expect(progressEnabled(false, { isTTY: true, write: () => 0 }, {})).toBe(true);
    expect(progressEnabled(true, { isTTY: true, write: () => 0 }, {})).toBe(false);
    expect(progressEnabled(false, { isTTY: false, write: () => 0 }, {})).toBe(false);
    expect(progressEnabled(false, { write: () => 0 }, {})).toBe(false);
    expect(progressEnabled(true, { isTTY: false, write: () => 0 }, { HEIGHTBENCH_PROGRESS: '1' })).toBe(true);
    expect(progressEnabled(false, { isTTY: true, write: () => 0 }, { HEIGHTBENCH_PROGRESS: '0' })).toBe(false);
  });

  it('prints each step with its time and the running total (fake clock)', () => {
    let clock = 1000;
    let out = '';
    const p = progressReporter({ label: 'run x', sink: { isTTY: true, write: (t: string) => (out += t) }, env: {}, now: () => clock });
    clock += 250;
    p.step('base', 250);
    const r = p.time('stamps', () => {
      clock += 1500;
      return 42;
    });
    expect(r).toBe(42);
    p.done('3 files');
    expect(out.split('\n').filter(Boolean)).toEqual([
      `run x: base${' '.repeat(15)}0.250 s   (total 0.250 s)`, // name padded to 16, time right-aligned in 9
      `run x: stamps${' '.repeat(14)}1.50 s   (total 1.75 s)`,
      'run x: done in 1.75 s (2 steps); 3 files',
    ]);
  });

  it('with a total, says how far the work is and estimates the time left from the mean step (fake clock)', () => {
    let clock = 0;
    let out = '';
    const p = progressReporter({ label: 'repro', sink: { isTTY: true, write: (t: string) => (out += t) }, env: {}, now: () => clock, total: 5 });
    clock += 2000;
    p.step('a', 2000); // 1 of 5 done, 4 left at 2 s each
    p.skipped('b'); // counted, no line
    clock += 4000;
    p.step('c', 4000); // 3 of 5, mean (2 + 4) / 2 = 3 s, 2 left
    p.step('d', 1000);
    p.step('e', 1000); // all 5: never 100 % before done
    expect(out.split('\n').filter(Boolean)).toEqual([
      `repro: a${' '.repeat(19)}2.00 s   (total 2.00 s)   [1/5, 20 %, about 8.00 s left]`,
      `repro: c${' '.repeat(19)}4.00 s   (total 6.00 s)   [3/5, 60 %, about 6.00 s left]`,
      `repro: d${' '.repeat(19)}1.00 s   (total 6.00 s)   [4/5, 80 %, about 2.33 s left]`,
      `repro: e${' '.repeat(19)}1.00 s   (total 6.00 s)   [5/5, 99 %]`,
    ]);
  });

  it('writes nothing when not on a terminal', () => {
    let out = '';
    const p = progressReporter({ label: 'q', sink: { isTTY: false, write: (t: string) => (out += t) }, env: {} });
    p.step('a', 1);
    p.note('b');
    p.done();
    expect(out).toBe('');
  });

  it('formats seconds to three significant figures', () => {
    expect(formatSeconds(12.3)).toBe('0.012 s');
    expect(formatSeconds(1234)).toBe('1.23 s');
    expect(formatSeconds(12345)).toBe('12.3 s');
    expect(formatSeconds(123456)).toBe('123 s');
  });
});

describe('heightbench run progress', () => {
  const d = tempDir('hb-prog-');
  const bin = join(import.meta.dirname, '..', 'bin', 'heightbench.mjs');
  it('prints one line per pipeline step, the same steps timings.json records, then writing and done', () => {
    const r = spawnSync(process.execPath, [bin, 'run', 'teaching-512', '--size', '64', '--out', join(d, 'a')], {
      encoding: 'utf8',
      env: { ...process.env, HEIGHTBENCH_PROGRESS: '1' },
    });
    expect(r.status).toBe(0);
    const timings = JSON.parse(readFileSync(join(d, 'a', 'timings.json'), 'utf8')).timingsMs as Record<string, number>;
    const steps = r.stderr
      .split('\n')
      .filter(Boolean)
      .map((l) => /^run teaching-512 64² f32: (\S+)/.exec(l)?.[1]);
    // Planning steps are named by their timings.json key; the executor's steps by the stage they produce (draw list
    // order), then the write and the end.
    // The inputs are loaded first (the world and the assets), then planning runs on them.
    const planning = ['assets', 'plan', 'stamps.select', 'drawlist'];
    for (const k of planning) expect(timings[k]).toBeGreaterThanOrEqual(0);
    expect(steps).toEqual([
      ...planning,
      'raster-layer0',
      'raster',
      'base',
      'support.targets',
      'after-support',
      'after-stamps',
      'after-locations',
      'pre-encode',
      'final',
      'write',
      'done',
    ]);
  });
  it('is quiet with --quiet, and when stderr is not a terminal', () => {
    const q = spawnSync(process.execPath, [bin, 'run', 'teaching-512', '--size', '64', '--out', join(d, 'b'), '--quiet'], {
      encoding: 'utf8',
      env: { ...process.env, HEIGHTBENCH_PROGRESS: '' },
    });
    expect(q.status).toBe(0);
    expect(q.stderr).toBe('');
    const p = spawnSync(process.execPath, [bin, 'run', 'teaching-512', '--size', '64', '--out', join(d, 'c')], {
      encoding: 'utf8',
      env: { ...process.env, HEIGHTBENCH_PROGRESS: '' },
    });
    expect(p.stderr).toBe('');
  });
});
