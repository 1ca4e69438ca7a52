// History DVC can diff: every run's metrics.json and plot data are committed, so `dvc metrics diff REV` and
// `dvc plots diff REV` show both sides, and the plots page loads vega from the project's node_modules (no CDN).
// Runs in a temporary clone of this repository's HEAD, with one more commit that changes a metric and a plot.
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parse } from 'yaml';
import { beforeAll, describe, expect, it } from 'vitest';
import { tempDir } from './helpers.js';

const root = resolve(import.meta.dirname, '..');
const dvc = join(root, '.venv', 'bin', 'dvc');
const clone = join(tempDir('hb-dvc-'), 'clone');
const runs = Object.keys(parse(readFileSync(join(root, 'params.yaml'), 'utf8')).runs as Record<string, unknown>);
const env = {
  ...process.env,
  DVC_NO_ANALYTICS: '1',
  GIT_AUTHOR_NAME: 'test',
  GIT_AUTHOR_EMAIL: 'test@example.invalid',
  GIT_COMMITTER_NAME: 'test',
  GIT_COMMITTER_EMAIL: 'test@example.invalid',
};
const git = (...a: string[]) => execFileSync('git', a, { cwd: clone, env, encoding: 'utf8' });
const RUN = 'tundra-r19-1024';
let oldMetrics: Record<string, number>;
let oldHistogram: { dq: number; count: number }[];

beforeAll(() => {
  execFileSync('git', ['clone', '--quiet', root, clone], { env });
  oldMetrics = JSON.parse(git('show', `HEAD:reports/${RUN}/metrics.json`));
  oldHistogram = JSON.parse(git('show', `HEAD:reports/${RUN}/histogram.json`));
  // A later commit: this run's RMS doubled and 7 more pixels at +1.
  const m = { ...oldMetrics, rmsMm: oldMetrics.rmsMm * 2 };
  writeFileSync(join(clone, 'reports', RUN, 'metrics.json'), `${JSON.stringify(m, null, 2)}\n`);
  writeFileSync(
    join(clone, 'reports', RUN, 'histogram.json'),
    `${JSON.stringify(
      oldHistogram.map((h) => (h.dq === 1 ? { ...h, count: h.count + 7 } : h)),
      null,
      1,
    )}\n`,
  );
  git('commit', '--quiet', '-am', 'a later commit');
}, 60_000);

describe('dvc metrics diff against an earlier commit', () => {
  it('shows old and new values for every run of params.yaml, and the change', () => {
    const r = spawnSync(dvc, ['metrics', 'diff', 'HEAD~1', '--all', '--json'], { cwd: clone, env, encoding: 'utf8' });
    expect(r.error).toBeUndefined();
    expect(r.stderr).not.toMatch(/failed to load/);
    expect(r.status).toBe(0);
    const d = JSON.parse(r.stdout) as Record<string, Record<string, { old: number | null; new: number | null; diff?: number }>>;
    for (const run of runs) {
      const f = d[`reports/${run}/metrics.json`];
      expect(f, run).toBeDefined();
      expect(typeof f.exactPercent.old).toBe('number');
      expect(typeof f.exactPercent.new).toBe('number');
    }
    const rms = d[`reports/${RUN}/metrics.json`].rmsMm;
    expect(rms.old).toBe(oldMetrics.rmsMm);
    expect(rms.new).toBeCloseTo(oldMetrics.rmsMm * 2, 12);
  });
});

describe('dvc plots diff against an earlier commit', () => {
  it('writes both revisions into a page that loads vega from node_modules, never from the network', () => {
    const r = spawnSync(dvc, ['plots', 'diff', 'HEAD~1', '-o', 'dvc_plots'], { cwd: clone, env, encoding: 'utf8' });
    expect(r.status, r.stderr).toBe(0);
    const html = readFileSync(join(clone, 'dvc_plots', 'index.html'), 'utf8');
    expect(html).not.toMatch(/<script[^>]*src="https?:/);
    const srcs = [...html.matchAll(/<script src="([^"]+)"/g)].map((m) => m[1]);
    expect(srcs).toEqual([
      '../node_modules/vega/build/vega.min.js',
      '../node_modules/vega-lite/build/vega-lite.min.js',
      '../node_modules/vega-embed/build/vega-embed.min.js',
    ]);
    // The page sits in <project>/dvc_plots/, so ../node_modules is the project's: every script is there.
    for (const s of srcs) expect(existsSync(join(root, 'dvc_plots', s))).toBe(true);
    // Both sides of the histogram: the earlier count at +1 and the later one.
    const plus = oldHistogram.find((h) => h.dq === 1)!.count;
    expect(html).toMatch(new RegExp(`"dq": 1, "count": ${plus}, "rev": "HEAD~1"`));
    expect(html).toMatch(new RegExp(`"dq": 1, "count": ${plus + 7}, "rev": "workspace"`));
    // The Δq histograms as bars on a log count axis (.dvc/plots/histogram_log.json), one per declared histogram.
    const declared = (readFileSync(join(root, 'dvc.yaml'), 'utf8').match(/template: histogram_log/g) ?? []).length;
    expect(declared).toBe(2);
    expect(
      (html.match(/"y": \{"field": "count", "type": "quantitative", "title": "pixels \(log scale\)", "scale": \{"type": "log", "domainMin": 0.5\}\}/g) ?? [])
        .length,
    ).toBe(runs.length * declared);
    expect(html).toContain('"mark": {"type": "bar", "tooltip": true}');
    // The difference map of every run, at both revisions.
    const pngs = readdirSync(join(clone, 'dvc_plots', 'static')).filter((f) => f.endsWith('_diffmap.png'));
    for (const run of runs) for (const rev of ['HEAD~1', 'workspace']) expect(pngs).toContain(`${rev}_reports_${run}_diffmap.png`);
  });
});
