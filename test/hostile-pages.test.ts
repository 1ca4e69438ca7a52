/**
 * Issue 30, class 2 — every HTML writer escapes through one function (src/core/html.ts: escapeHtml for text and
 * attributes, safeUrl for href/src). Every page kind is rendered with hostile strings in every field a user or a
 * file controls — the compare report (file names, sidecar strings, --title, a --shared-plotly path with quotes), the
 * check report (title, reference kind, notes, the reference sidecar's adapter strings), regress (a branch named
 * `"><svg/onload=…>`, stage names from hashes.json), the atlas (request, ablation names, labels, diagnoses), the
 * report index (stage names, atlas metrics, notebook file names) and the GPU page (?list=) — and opened in Debian's
 * Chromium (playwright-core). The assertion: no injected script ran (window.__x stays undefined, no dialog opened)
 * and no element the payloads would create exists.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { encode } from 'fast-png';
import { chromium, type Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildGpuPage } from '../src/cli/gpu-page.js';
import { buildAtlas } from '../src/experiments/atlas.js';
import { atlasHtml } from '../src/report/atlas-report.js';
import { codeHeightfield } from '../src/core/heightfield.js';
import { CHROMIUM_FLAGS, CHROMIUM_PATH } from '../src/gpu/browser-host.js';
import { writeHeightfieldFile } from '../src/io/heightfield-file.js';
import { loadRequest } from '../src/plan/request.js';
import { cli, tempDir } from './helpers.js';

const repo = resolve(import.meta.dirname, '..');
/** Payloads that run script when a writer forgets to escape text, an attribute or a URL. */
const SLASHLESS = `"><img src=x onerror=window.__x=1>'><svg onload=window.__x=2>`;
const PAYLOADS = [SLASHLESS, '<script>window.__x=3</script>', `javascript:window.__x=4//`, `'"><iframe src="javascript:alert(5)"></iframe>`];
const ALL = PAYLOADS.join(' ');

let browser: Browser;
beforeAll(async () => {
  browser = await chromium.launch({ executablePath: CHROMIUM_PATH, args: CHROMIUM_FLAGS, headless: true });
}, 60_000);
afterAll(async () => {
  await browser?.close();
});

/** Opens a page, lets it settle, and reports whether any payload ran or created its element. */
async function probe(url: string): Promise<{ ran: unknown; dialogs: string[]; injected: number; text: string }> {
  const context = await browser.newContext();
  const page = await context.newPage();
  const dialogs: string[] = [];
  page.on('dialog', (d) => {
    dialogs.push(d.message());
    void d.dismiss();
  });
  await page.goto(url, { waitUntil: 'load' });
  await page.waitForTimeout(300);
  const ran = await page.evaluate(() => (globalThis as unknown as { __x?: unknown }).__x);
  const injected = await page.evaluate(
    () =>
      (globalThis as unknown as { document: { querySelectorAll(s: string): { length: number } } }).document.querySelectorAll(
        'img[src="x"], svg[onload], iframe, img[onerror]',
      ).length,
  );
  const text = await page.evaluate(() => (globalThis as unknown as { document: { body: { innerText: string } } }).document.body.innerText);
  await context.close();
  return { ran, dialogs, injected, text };
}

async function expectInert(url: string, mustShow: string): Promise<void> {
  const r = await probe(url);
  expect(r.ran, `script ran on ${url}`).toBeUndefined();
  expect(r.dialogs).toEqual([]);
  expect(r.injected).toBe(0);
  // The hostile text is shown as text (proves the field reached the page, escaped).
  expect(r.text).toContain(mustShow);
}

/** Two small code heightfields whose file names and sidecar strings carry the payloads. */
function fields(dir: string, names = [`gen ${SLASHLESS}.r16`, `ref ${SLASHLESS}.r16`]): { gen: string; ref: string } {
  const n = 64;
  const grid = { xmin: 0, ymin: 0, sizeX: 640, sizeY: 640, columns: n, rows: n, convention: 'texel-centre', rowDirection: 'row0-at-ymin' } as const;
  const a = new Uint16Array(n * n).map((_, k) => 30000 + (k % 97));
  const b = a.map((v, k) => (k % 13 === 0 ? v + 1 : v));
  for (const f of names) mkdirSync(join(dir, f, '..'), { recursive: true });
  const gen = join(dir, names[0]);
  const ref = join(dir, names[1]);
  writeHeightfieldFile(gen, codeHeightfield(grid, a), { stage: 'final', request: 'hostile', notes: { note: ALL } });
  writeHeightfieldFile(ref, codeHeightfield(grid, b), { stage: 'final', request: 'hostile', notes: { note: ALL } });
  return { gen, ref };
}

describe('no hostile string runs script on any page', () => {
  it('compare-report-script: file names, --title and a --shared-plotly path with quotes stay text', async () => {
    const d = tempDir('hb-page-cmp-');
    const { gen, ref } = fields(join(d, 'in'));
    const shared = join(d, `lib "'><img src=x onerror=window.__x=9>`, 'plotly.min.js');
    const r = await cli('compare', gen, ref, '--report', join(d, 'report'), '--title', ALL, '--shared-plotly', shared);
    expect(r.code, r.err).toBe(0);
    await expectInert(pathToFileURL(join(d, 'report', 'index.html')).href, '<script>window.__x=3</script>');
    // The shared copy was placed where asked and the page loads it (Plotly drew the figures).
    expect(readFileSync(shared).length).toBeGreaterThan(1e6);
  }, 60_000);

  it('check-report-script: title, reference kind, notes and the reference sidecar adapter strings stay text', async () => {
    const d = tempDir('hb-page-chk-');
    fields(d, ['gen/final.r16', 'ref/final.r16']);
    for (const side of ['gen', 'ref']) {
      const car = JSON.parse(readFileSync(join(d, side, 'final.r16.json'), 'utf8'));
      car.producer.adapter = { vendor: ALL, architecture: SLASHLESS, device: SLASHLESS, description: ALL, host: SLASHLESS };
      writeFileSync(join(d, side, 'final.r16.json'), JSON.stringify(car));
    }
    const r = await cli('check', join(d, 'gen'), join(d, 'ref'), '--report', join(d, 'report'), '--title', ALL, '--reference-kind', ALL, '--note', ALL);
    expect(r.code, r.err).toBe(0);
    await expectInert(pathToFileURL(join(d, 'report', 'index.html')).href, 'Reference adapter:');
  }, 60_000);

  it('regress-branch-script: a base branch named "><svg/onload=…> and hostile stage names stay text', async () => {
    const d = tempDir('hb-page-reg-');
    const root = join(d, 'project');
    mkdirSync(join(root, 'reports', 'r1'), { recursive: true });
    cpSync(join(repo, 'config'), join(root, 'config'), { recursive: true });
    writeFileSync(join(root, 'params.yaml'), 'runs:\n  r1:\n    request: teaching-512\n    size: 512\n');
    const png = encode({ width: 8, height: 8, data: new Uint8Array(8 * 8 * 3).fill(200), depth: 8, channels: 3 });
    writeFileSync(join(root, 'reports', 'r1', 'diffmap.png'), png);
    writeFileSync(join(root, 'reports', 'r1', 'metrics.json'), JSON.stringify({ exactPercent: 100, 'gates.passed': 1 }));
    writeFileSync(join(root, 'reports', 'r1', 'hashes.json'), JSON.stringify({ generated: { [`${SLASHLESS}.r32`]: 'a' }, references: null }));
    const git = (...a: string[]) => execFileSync('git', ['-c', 'user.email=t@t', '-c', 'user.name=t', ...a], { cwd: root, stdio: 'pipe' });
    git('init', '--quiet');
    git('add', '-A');
    git('commit', '--quiet', '-m', 'base');
    const branch = `"><svg/onload=alert(1)>`;
    git('branch', branch);
    writeFileSync(join(root, 'reports', 'r1', 'hashes.json'), JSON.stringify({ generated: { [`${SLASHLESS}.r32`]: 'b' }, references: null }));
    const saved = process.env.HEIGHTBENCH_ROOT;
    process.env.HEIGHTBENCH_ROOT = root;
    try {
      const r = await cli('regress', '--base', branch, '--out', join(d, 'out'));
      expect(r.code, r.err).toBe(3); // the stage hash moved without a bless
    } finally {
      if (saved === undefined) delete process.env.HEIGHTBENCH_ROOT;
      else process.env.HEIGHTBENCH_ROOT = saved;
    }
    await expectInert(pathToFileURL(join(d, 'out', 'index.html')).href, `${branch}: signed Δq per block`);
  }, 60_000);

  it('atlas-page-script: request, ablation names, labels and diagnoses stay text', async () => {
    const d = tempDir('hb-page-atlas-');
    const a = buildAtlas(loadRequest('teaching-512', 64), {
      ablations: [{ name: 'only-renorm', label: 'renormalised', option: { ablation: { renormalize: true } }, expect: ['gain'] }],
    });
    a.request = ALL;
    for (const e of a.entries) {
      e.name = SLASHLESS;
      e.label = ALL;
      e.signatureNote = ALL;
      e.firstDivergentStage = SLASHLESS;
      for (const s of e.stages) s.stage = SLASHLESS;
    }
    mkdirSync(join(d, 'atlas'));
    cpSync(join(repo, 'node_modules', 'plotly.js-dist-min', 'plotly.min.js'), join(d, 'atlas', 'plotly.min.js'));
    writeFileSync(join(d, 'atlas', 'index.html'), atlasHtml(a, { readmeHref: 'javascript:window.__x=7' }));
    await expectInert(pathToFileURL(join(d, 'atlas', 'index.html')).href, '<script>window.__x=3</script>');
    expect(readFileSync(join(d, 'atlas', 'index.html'), 'utf8')).not.toContain('href="javascript:');
  }, 120_000);

  it('index-page-script: stage names, atlas metrics and notebook file names stay text (scripts/report-index.mjs)', async () => {
    const d = tempDir('hb-page-idx-');
    mkdirSync(join(d, 'reports', 'r1'), { recursive: true });
    mkdirSync(join(d, 'reports', 'atlas'), { recursive: true });
    mkdirSync(join(d, 'reports', 'notebooks'), { recursive: true });
    writeFileSync(join(d, 'params.yaml'), 'runs:\n  r1:\n    request: teaching-512\n    size: 512\n');
    const m = { exactPercent: 99, maxAbsCode: SLASHLESS, rmsMm: 0.1, 'histogram.0': 5, 'attribution.straddle': ALL };
    writeFileSync(join(d, 'reports', 'r1', 'metrics.json'), JSON.stringify(m));
    writeFileSync(join(d, 'reports', 'r1', 'stages.json'), JSON.stringify({ stages: [{ stage: ALL, innerRmsMm: 0.1 }], gates: [], passed: true }));
    writeFileSync(
      join(d, 'reports', 'atlas', 'metrics.json'),
      JSON.stringify({
        request: ALL,
        size: SLASHLESS,
        precision: ALL,
        ablationCount: SLASHLESS,
        namedFirst: 1,
        withSignature: 1,
        ablations: { [ALL]: { exactPercent: 1, rmsMm: 1, floatRmsMm: 1, firstDivergentStage: ALL, topDiagnosis: ALL, namedFirst: null } },
      }),
    );
    writeFileSync(join(d, 'reports', 'notebooks', `${SLASHLESS}.html`), '<p>nb</p>');
    const r = spawnSync(process.execPath, [join(repo, 'scripts', 'report-index.mjs')], { cwd: d, encoding: 'utf8' });
    expect(r.status, r.stderr).toBe(0);
    await expectInert(pathToFileURL(join(d, 'reports', 'index.html')).href, '<script>window.__x=3</script>');
  }, 60_000);

  it('gpu-page-script: a hostile ?list= value is shown as text, never run', async () => {
    const html = await buildGpuPage();
    const server = createServer((req, res) => {
      if ((req.url ?? '/').split('?')[0] === '/index.html') res.writeHead(200, { 'content-type': 'text/html' }).end(html);
      else res.writeHead(404).end();
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    try {
      const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      for (const p of [SLASHLESS, 'javascript:window.__x=8', '<script>window.__x=3</script>']) {
        const r = await probe(`${origin}/index.html?list=${encodeURIComponent(p)}`);
        expect(r.ran, p).toBeUndefined();
        expect(r.dialogs).toEqual([]);
        expect(r.injected).toBe(0);
      }
    } finally {
      server.close();
    }
  }, 120_000);
});
