/**
 * The survey report of a sweep (src/report/survey.ts) on records made here: the folded digest per stage is the SHA-256
 * of the "key⇥sha256" lines (computed here with node:crypto) and moves when one request's stage moves; "N of M
 * mismatched" names the keys; the distributions count every request once; every text reaching HTML is escaped. And
 * `sweep --against DIR`: captures written by `heightbench run` (f64) read back as the reference give the digests and
 * metrics of `--against f64`; a request without a capture exits 2 naming the path. `--against gpu`: the reference
 * digest is that of the final `run --backend webgpu` writes (SwiftShader).
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { surveyHtml, surveyMarkdown } from '../src/report/survey.js';
import { surveyOf } from '../src/sweep/survey-figures.js';
import type { SweepRecord } from '../src/sweep/batch.js';
import type { SweepManifest } from '../src/sweep/records.js';
import { cli, tempDir } from './helpers.js';

function record(key: string, exact: number, maxAbsCode: number, finalSha: string): SweepRecord {
  return {
    format: 'heightbench.sweep-record',
    version: 1,
    key,
    name: key.replace(/[^A-Za-z0-9-]/g, '-'),
    request: 'r',
    seed: 1,
    size: 16,
    vary: {},
    heightbench: '0.1.0',
    conventionsHash: 'c',
    against: 'f64',
    detail: 'final',
    generated: { precision: 'f32', executor: 'simd' },
    final: { pixels: 256, exact, exactPercent: (100 * exact) / 256, maxAbsCode, rmsMm: maxAbsCode, maxAbsMm: maxAbsCode, histogram: { '0': exact } },
    firstDivergence: { base: 256 - exact },
    causes: null,
    origins: { base: 256 - exact },
    sha256: { generated: { final: finalSha }, reference: { final: 'ref' } },
    branches: {},
    timeMs: { generated: 1, reference: 1, compare: 1, total: 3 },
    worker: 'w',
  };
}

const manifest = {
  format: 'heightbench.sweep',
  version: 1,
  heightbench: '0.1.0',
  conventionsHash: 'c',
  definition: { base: 'r', request: {}, seeds: '1-3', vary: [], size: 16 },
  against: 'f64',
  detail: 'final',
  shard: null,
  total: 3,
  requests: 3,
} as SweepManifest;

describe('the survey', () => {
  const recs = [record('r@1@16', 256, 0, 'a'), record('r@2@16', 250, 2, 'b'), record('r@<script>@16', 200, 1, 'c')];

  it('folds each stage into one SHA-256 of its key⇥sha256 lines, in the sweep order', () => {
    const s = surveyOf(manifest, recs, []);
    const want = createHash('sha256').update('r@1@16\ta\nr@2@16\tb\nr@<script>@16\tc\n').digest('hex');
    expect(s.foldedDigest.generated.final).toBe(want);
    const moved = surveyOf(manifest, [recs[0], record('r@2@16', 250, 2, 'B'), recs[2]], []);
    expect(moved.foldedDigest.generated.final).not.toBe(want);
    expect(moved.foldedDigest.reference.final).toBe(s.foldedDigest.reference.final);
  });

  it('counts mismatched requests with their keys, the distributions, the worst first, the attribution summed', () => {
    const s = surveyOf(manifest, recs, ['r-s4-n16']);
    expect(s.headline).toBe('2 of 3 requests mismatched (r at 16², f32 against f64); 1 missing');
    expect(s.mismatched.keys).toEqual(['r@2@16', 'r@<script>@16']);
    expect(Object.values(s.exactPercent.bins).reduce((a, b) => a + b, 0)).toBe(3);
    expect(s.maxAbsCode.bins).toMatchObject({ '0': 1, '1': 1, '2': 1 });
    expect(s.worst.map((w) => w.key)).toEqual(['r@2@16', 'r@<script>@16']);
    expect(s.firstDivergence.base).toBe(6 + 56);
    expect(s.origins.base).toBe(6 + 56);
  });

  it('escapes every text in the HTML; Markdown cells cannot split a row', () => {
    const s = surveyOf(manifest, recs, []);
    const html = surveyHtml(s);
    expect(html).not.toContain('<script>');
    expect(html).toContain('r@&lt;script&gt;@16');
    const md = surveyMarkdown(s);
    expect(md).toContain('max \\|Δq\\|');
  });

  it("a worst request's report link holds whatever its path holds (spaces, parentheses, #)", () => {
    const s = surveyOf(manifest, recs, []);
    s.worst[0].check = 'checks/r (2) #1/index.html';
    const md = surveyMarkdown(s);
    const link = /\[report\]\(([^)]*)\)/.exec(md);
    expect(link?.[1]).toBe('checks/r%20%282%29%20%231/index.html');
    expect(decodeURIComponent(new URL(link![1], 'file:///sweep/').pathname)).toBe('/sweep/checks/r (2) #1/index.html');
  });
});

describe('sweep --against DIR (captures)', () => {
  const root = resolve(import.meta.dirname, '..');
  const env: NodeJS.ProcessEnv = { ...process.env, PATH: `${join(root, '.venv', 'bin')}:${process.env.PATH ?? ''}` };
  delete env.DASK_SCHEDULER_ADDRESS;
  const run = (args: string[]) =>
    spawnSync(process.execPath, [join(root, 'bin', 'heightbench.mjs'), ...args], { cwd: root, env, encoding: 'utf8', timeout: 170_000 });

  it('reads one run folder per request as the reference: the f64 captures give the f64 comparison', async () => {
    const d = tempDir('hb-sweep-dir-');
    const caps = join(d, 'caps');
    for (const seed of [2, 3]) {
      const req = { ...JSON.parse(readFileSync(join(root, 'config', 'requests', 'tundra-r19.json'), 'utf8')), id: `tundra-r19-s${seed}`, seed, size: 64 };
      const file = join(d, `req-${seed}.json`);
      await import('node:fs').then((fs) => fs.writeFileSync(file, JSON.stringify(req)));
      expect((await cli('run', file, '--precision', 'f64', '--out', join(caps, `tundra-r19-s${seed}-n64`), '--quiet')).code).toBe(0);
    }
    const a = run(['sweep', 'tundra-r19', '--seeds', '2-3', '--size', '64', '--workers', '1', '--no-report', '--against', caps, '--out', join(d, 'dir')]);
    expect(a.status, a.stderr).toBe(0);
    const b = run(['sweep', 'tundra-r19', '--seeds', '2-3', '--size', '64', '--workers', '1', '--no-report', '--against', 'f64', '--out', join(d, 'f64')]);
    expect(b.status, b.stderr).toBe(0);
    for (const n of ['tundra-r19-s2-n64', 'tundra-r19-s3-n64']) {
      const x = JSON.parse(readFileSync(join(d, 'dir', 'records', `${n}.json`), 'utf8')) as SweepRecord;
      const y = JSON.parse(readFileSync(join(d, 'f64', 'records', `${n}.json`), 'utf8')) as SweepRecord;
      expect(x.against).toBe(`dir:${caps}`);
      expect(x.sha256.reference).toEqual(y.sha256.reference);
      expect(x.final).toEqual(y.final);
      expect(x.firstDivergence).toEqual(y.firstDivergence);
    }
    const missing = run([
      'sweep',
      'tundra-r19',
      '--seeds',
      '2-4',
      '--size',
      '64',
      '--workers',
      '1',
      '--no-report',
      '--against',
      caps,
      '--out',
      join(d, 'miss'),
    ]);
    expect(missing.status).toBe(2);
    expect(missing.stderr).toContain('no capture for tundra-r19-s4-n64');
  }, 240_000);
});

describe('sweep --against gpu', () => {
  it("the reference is heightbench's WebGPU executor: the record's final digest is that of `run --backend webgpu`", async () => {
    const root = resolve(import.meta.dirname, '..');
    const env: NodeJS.ProcessEnv = { ...process.env, PATH: `${join(root, '.venv', 'bin')}:${process.env.PATH ?? ''}` };
    delete env.DASK_SCHEDULER_ADDRESS;
    const d = tempDir('hb-sweep-gpu-');
    const r = spawnSync(
      process.execPath,
      [
        join(root, 'bin', 'heightbench.mjs'),
        'sweep',
        'tundra-r19',
        '--seeds',
        '5',
        '--size',
        '64',
        '--against',
        'gpu',
        '--workers',
        '1',
        '--no-report',
        '--out',
        join(d, 'sw'),
      ],
      { cwd: root, env, encoding: 'utf8', timeout: 170_000 },
    );
    expect(r.status, r.stderr).toBe(0);
    const rec = JSON.parse(readFileSync(join(d, 'sw', 'records', 'tundra-r19-s5-n64.json'), 'utf8')) as SweepRecord;
    expect(rec.against).toBe('gpu');
    const req = { ...JSON.parse(readFileSync(join(root, 'config', 'requests', 'tundra-r19.json'), 'utf8')), id: 'tundra-r19-s5', seed: 5, size: 64 };
    const file = join(d, 'req.json');
    (await import('node:fs')).writeFileSync(file, JSON.stringify(req));
    const g = await cli('run', file, '--backend', 'webgpu', '--adapter', 'swiftshader', '--stages', 'final', '--out', join(d, 'gpu'), '--quiet');
    expect(g.code, g.err).toBe(0);
    const payload = readFileSync(join(d, 'gpu', 'final.r16'));
    expect(rec.sha256.reference.final).toBe(createHash('sha256').update(payload).digest('hex'));
    expect(rec.final.histogram['0']).toBe(rec.final.exact);
  }, 240_000);
});
