/**
 * The comparison page's interactive viewer, opened in Debian's headless chromium: zoomed in, every differing pixel at
 * full resolution is outlined on the difference panel — a difference of one code as well as the largest — and the
 * count of outlines equals the count the comparison gives.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { chromium, type Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { codeHeightfield } from '../src/core/heightfield.js';
import { CHROMIUM_FLAGS, CHROMIUM_PATH } from '../src/gpu/browser-host.js';
import { writeHeightfieldFile } from '../src/io/heightfield-file.js';
import { cli, tempDir } from './helpers.js';

let browser: Browser;
beforeAll(async () => {
  browser = await chromium.launch({ executablePath: CHROMIUM_PATH, args: CHROMIUM_FLAGS, headless: true });
}, 60_000);
afterAll(async () => {
  await browser?.close();
});

describe('viewer: every differing pixel marked at full zoom', () => {
  it('outlines as many pixels as differ (Δ of 1, 2, −3 and 100 codes, one pair of neighbours)', async () => {
    const d = tempDir('hb-viewer-marks-');
    const n = 48;
    const grid = { xmin: 0, ymin: 0, sizeX: 480, sizeY: 480, columns: n, rows: n, convention: 'texel-centre', rowDirection: 'row0-at-ymin' } as const;
    const ref = new Uint16Array(n * n).map((_, k) => 30000 + (k % 53));
    const gen = ref.slice();
    for (const [k, dq] of [
      [3 * n + 5, 1],
      [3 * n + 6, 1],
      [20 * n + 40, 2],
      [33 * n + 7, -3],
      [47 * n + 47, 100],
    ] as const)
      gen[k] += dq;
    writeHeightfieldFile(join(d, 'gen.r16'), codeHeightfield(grid, gen), { stage: 'final' });
    writeHeightfieldFile(join(d, 'ref.r16'), codeHeightfield(grid, ref), { stage: 'final' });
    const r = await cli('compare', join(d, 'gen.r16'), join(d, 'ref.r16'), '--report', join(d, 'report'));
    expect(r.code, r.err).toBe(0);
    const differing = (JSON.parse(readFileSync(join(d, 'report', 'metrics.json'), 'utf8')) as { differing: number }).differing;
    expect(differing).toBe(5);
    const context = await browser.newContext();
    const page = await context.newPage();
    await page.goto(pathToFileURL(join(d, 'report', 'index.html')).href, { waitUntil: 'load' });
    type Doc = { getElementById(id: string): { dataset: Record<string, string | undefined> } | null };
    type Hb = { HB: { zoomTo(i: number, j: number, s: number): void; tilesLoaded(): number }; document: Doc };
    await page.waitForFunction(() => (globalThis as unknown as Hb).document.getElementById('vdiff')?.dataset.drawn === '1', null, { timeout: 20000 });
    // Zoomed out to 2 screen pixels per map pixel: too small to outline, nothing marked.
    await page.evaluate(() => (globalThis as unknown as Hb).HB.zoomTo(24, 24, 2));
    expect(await page.evaluate(() => (globalThis as unknown as Hb).document.getElementById('vdiff')?.dataset.marked)).toBe('0');
    // Zoomed to 8 screen pixels per map pixel around the centre: the whole 48² map is in view at full resolution.
    await page.evaluate(() => (globalThis as unknown as Hb).HB.zoomTo(24, 24, 8));
    await page.waitForFunction(() => (globalThis as unknown as Hb).HB.tilesLoaded() > 0, null, { timeout: 20000 });
    await page.evaluate(() => (globalThis as unknown as Hb).HB.zoomTo(24, 24, 8));
    const marked = await page.evaluate(() => (globalThis as unknown as Hb).document.getElementById('vdiff')?.dataset.marked);
    expect(Number(marked)).toBe(differing);
    await context.close();
  });
});
