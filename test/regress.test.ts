// heightbench regress: this tree's reports against a base revision's, in a temporary clone of this repository's HEAD
// whose working tree is then changed the way a code change or a bless would change it.
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { decode, encode } from 'fast-png';
import { beforeAll, describe, expect, it } from 'vitest';
import { tempDir } from './helpers.js';

const root = resolve(import.meta.dirname, '..');
const clone = join(tempDir('hb-regress-'), 'clone');
const RUN = 'tundra-r19-1024';
const env = { ...process.env, HEIGHTBENCH_ROOT: clone };
const regress = (...args: string[]) =>
  spawnSync(process.execPath, [join(root, 'bin', 'heightbench.mjs'), 'regress', ...args], { cwd: clone, env, encoding: 'utf8' });
const file = (p: string) => join(clone, 'reports', RUN, p);
const restore = () => execFileSync('git', ['checkout', '--quiet', '--', '.'], { cwd: clone });

beforeAll(() => {
  execFileSync('git', ['clone', '--quiet', root, clone]);
}, 60_000);

describe('heightbench regress', () => {
  it('passes when this tree matches the base, listing every run', () => {
    const r = regress('--base', 'HEAD');
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(/^# heightbench regress: this tree against HEAD \([0-9a-f]{10}\)/);
    expect(r.stdout).toContain('Verdict: **pass** — 0 of 16 comparisons fail.');
    const m = JSON.parse(readFileSync(file('metrics.json'), 'utf8'));
    expect(r.stdout).toContain(`| ${RUN} | compared | ${m.exactPercent.toFixed(4)} |`);
    const html = readFileSync(join(clone, 'reports', 'regress', 'index.html'), 'utf8');
    expect(html).toContain(`<img src="${RUN}-base-diffmap.png"`);
    expect(html).toContain('blocks whose difference changed: 0');
  });

  it('fails with the gate-failure code when a stage hash moved without a bless, and names the stage', () => {
    const h = JSON.parse(readFileSync(file('hashes.json'), 'utf8'));
    h.generated['after-stamps.r32'] = '0'.repeat(64);
    writeFileSync(file('hashes.json'), JSON.stringify(h));
    const r = regress('--base', 'HEAD');
    expect(r.status).toBe(3);
    expect(r.stdout).toContain(`- **${RUN}**: stage hash moved without a bless: generated after-stamps.r32`);
    expect(r.stdout).toContain('| after-stamps.r32 | ');
    expect(r.stdout).toMatch(/\| after-stamps\.r32 \| [^|]+ \| \*\*moved\*\* \| same \|/);
    // A bless between the base and this tree (its record changed) accepts the move.
    const b = join(clone, 'references', 'bless', `${RUN}.json`);
    writeFileSync(b, JSON.stringify({ ...JSON.parse(readFileSync(b, 'utf8')), reason: 'test: an accepted change' }));
    const ok = regress('--base', 'HEAD');
    expect(ok.status).toBe(0);
    expect(ok.stdout).toMatch(new RegExp(`\\| ${RUN} \\| compared \\|.*\\| 1 \\| yes \\| pass \\|`));
    restore();
  });

  it('fails when a gate fails in this tree, and shows base → this tree values', () => {
    const m = JSON.parse(readFileSync(file('metrics.json'), 'utf8'));
    writeFileSync(file('metrics.json'), JSON.stringify({ ...m, 'gates.passed': 0, rmsMm: 2.5 }));
    const r = regress('--base', 'HEAD', '--json');
    expect(r.status).toBe(3);
    const j = JSON.parse(r.stdout);
    const run = j.runs.find((x: { run: string }) => x.run === RUN);
    expect(run.verdict).toBe('FAIL');
    expect(run.reasons).toEqual(['a gate fails in this tree']);
    const md = readFileSync(join(clone, 'reports', 'regress', 'summary.md'), 'utf8');
    expect(md).toContain(`${m.rmsMm.toFixed(4)} → **2.5000**`);
    restore();
  });

  it('counts the blocks whose colour changed in the difference map', () => {
    const png = decode(readFileSync(file('diffmap.png')));
    const data = Uint8Array.from(png.data);
    for (const k of [0, 1, 2]) data[(5 * png.width + 7) * 3 + k] = 0; // one pixel turned black
    writeFileSync(file('diffmap.png'), encode({ width: png.width, height: png.height, data, depth: 8, channels: 3 }));
    expect(regress('--base', 'HEAD').status).toBe(0); // a picture is not a gate
    const html = readFileSync(join(clone, 'reports', 'regress', 'index.html'), 'utf8');
    expect(html).toContain('blocks whose difference changed: 1');
    const changed = decode(readFileSync(join(clone, 'reports', 'regress', `${RUN}-changed.png`)));
    expect(Array.from(changed.data.subarray((5 * png.width + 7) * 3, (5 * png.width + 7) * 3 + 3))).toEqual([20, 20, 20]);
    restore();
  });

  it('lists the GPU comparisons before the consistency ones, with report links relative to reports/', () => {
    const r = regress('--base', 'HEAD');
    expect(r.status).toBe(0);
    const gpu = r.stdout.indexOf(`| ${RUN}-gpu | compared |`);
    const cons = r.stdout.indexOf(`| ${RUN} | compared |`);
    expect(gpu).toBeGreaterThan(0);
    expect(cons).toBeGreaterThan(gpu);
    expect(r.stdout).toContain(`](${RUN}-gpu/index.html) |`);
    expect(r.stdout).not.toContain(clone); // no absolute local path
    // From reports/regress/ the same links go one folder up, and they resolve there.
    const md = readFileSync(join(clone, 'reports', 'regress', 'summary.md'), 'utf8');
    expect(md).toContain(`](../${RUN}/index.html) |`);
  });

  it('writes a bounded summary to $GITHUB_STEP_SUMMARY whatever the histogram (bins beyond ±8 folded)', () => {
    // This tree's histogram for the run: 20,001 distinct Δq bins (a listing of every bin would be ~300 KB).
    const bins = Array.from({ length: 20001 }, (_, k) => ({ dq: k - 10000, count: k === 10000 ? 1000000 : 1 + (k % 7) }));
    writeFileSync(file('histogram.json'), JSON.stringify(bins));
    const summary = join(clone, 'step-summary.md');
    rmSync(summary, { force: true });
    const r = spawnSync(process.execPath, [join(root, 'bin', 'heightbench.mjs'), 'regress', '--base', 'HEAD'], {
      cwd: clone,
      env: { ...env, GITHUB_STEP_SUMMARY: summary },
      encoding: 'utf8',
    });
    expect(r.status).toBe(0); // a histogram is not a gate
    expect(existsSync(summary)).toBe(true);
    const text = readFileSync(summary, 'utf8');
    expect(Buffer.byteLength(text)).toBeLessThan(60_000);
    expect(text).toContain('# heightbench regress');
    const below = bins.filter((b) => b.dq < -8).reduce((a, b) => a + b.count, 0);
    expect(text).toContain(`folded: ${below} px below −8 (9992 bins, min −10000)`);
    restore();
  });

  it('refuses a revision that does not exist with exit 2', () => {
    const r = regress('--base', 'no-such-branch');
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/regress --base "no-such-branch": not a revision of the git repository/);
  });
});
