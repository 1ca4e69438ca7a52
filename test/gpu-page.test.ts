/**
 * The static GPU page (reports/gpu/index.html, `heightbench gpu-page DIR`), opened in Debian's headless chromium on
 * SwiftShader (the flags of shared/notes/webgpu-in-chromium.md) through playwright-core:
 *  - `?list=list.json` (served next to the page on 127.0.0.1): the page runs teaching-512 at 128² and its downloads —
 *    every stage field, the final R16 and their sidecars, fetched by clicking the page's links as a person would —
 *    equal the Dawn host's output for the same list byte for byte (a consistency check: the same executor module on
 *    the same SwiftShader driver through a second WebGPU implementation, Chromium's Dawn), and heightbench's own
 *    reader accepts every file with its sidecar (payload hash, grid, adapter);
 *  - the file button, on the page opened from file:// (as the reports index links it): the same final bytes;
 *  - no console error, and no request beyond the page's own files;
 *  - bad input is shown on the page with its reason: a list without embedded assets, a file that is not a list.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildGpuPage } from '../src/cli/gpu-page.js';
import { emitRequestDrawList } from '../src/cli/gpu-run.js';
import { parseDrawList, serialiseDrawList } from '../src/drawlist/serial.js';
import { CHROMIUM_FLAGS, CHROMIUM_PATH } from '../src/gpu/browser-host.js';
import { FIELD_STAGES, type GpuRunResult } from '../src/gpu/execute.js';
import { runGpu } from '../src/gpu/run.js';
import { readHeightfieldFile } from '../src/io/heightfield-file.js';
import { loadRequest } from '../src/plan/request.js';
import { tempDir } from './helpers.js';

const N = 128;
const dir = tempDir('hb-gpupage-');
let browser: Browser;
let server: ReturnType<typeof createServer>;
let origin = '';
let listText = '';
let dawn: GpuRunResult;
const served: string[] = [];

beforeAll(async () => {
  writeFileSync(join(dir, 'index.html'), await buildGpuPage());
  const { drawList } = emitRequestDrawList(loadRequest('teaching-512', N), { embedAssets: true });
  listText = serialiseDrawList(drawList);
  writeFileSync(join(dir, 'list.json'), listText);
  const { drawList: plain } = emitRequestDrawList(loadRequest('teaching-512', N));
  writeFileSync(join(dir, 'not-embedded.json'), serialiseDrawList(plain));
  // The Dawn host (the CLI's default) on the same text the page reads.
  dawn = await runGpu(parseDrawList(listText), { host: 'dawn' });
  server = createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    served.push(path);
    const files: Record<string, string> = { '/index.html': 'text/html', '/list.json': 'application/json', '/not-embedded.json': 'application/json' };
    if (!files[path]) return void res.writeHead(404).end();
    res.writeHead(200, { 'content-type': files[path] }).end(readFileSync(join(dir, path.slice(1))));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  browser = await chromium.launch({ executablePath: CHROMIUM_PATH, args: CHROMIUM_FLAGS, headless: true });
}, 180_000);

afterAll(async () => {
  await browser?.close();
  server?.close();
});

/** The DOM members the in-page functions touch. */
interface PageWindow {
  document: { body: { dataset: Record<string, string | undefined> }; getElementById(id: string): { textContent: string | null } | null };
}

interface Opened {
  page: Page;
  errors: string[];
  requests: string[];
  close(): Promise<void>;
}

async function open(url: string): Promise<Opened> {
  const context = await browser.newContext({ acceptDownloads: true });
  const page = await context.newPage();
  const errors: string[] = [];
  const requests: string[] = [];
  page.on('console', (m) => {
    if (m.type() === 'error') errors.push(m.text());
  });
  page.on('pageerror', (e) => errors.push(String(e)));
  page.on('request', (r) => requests.push(r.url()));
  await page.goto(url);
  return { page, errors, requests, close: () => context.close() };
}

async function settled(page: Page): Promise<string> {
  // Functions run inside the page; the project compiles without the DOM library, hence the casts.
  await page.waitForFunction(() => ['done', 'error'].includes((globalThis as unknown as PageWindow).document.body.dataset.state ?? ''), null, {
    timeout: 150_000,
  });
  return page.evaluate(() => (globalThis as unknown as PageWindow).document.body.dataset.state ?? '');
}

/** The bytes behind the page's download link for `name` (its blob: URL, read inside the page). */
async function linkBytes(page: Page, name: string): Promise<Buffer> {
  const b64 = await page.$eval(`a[download="${name}"]`, async (a) => {
    const bytes = new Uint8Array(await (await fetch((a as unknown as { href: string }).href)).arrayBuffer());
    let s = '';
    for (let k = 0; k < bytes.length; k += 0x8000) s += String.fromCharCode(...bytes.subarray(k, k + 0x8000));
    return btoa(s);
  });
  return Buffer.from(b64, 'base64');
}

/** Clicks the page's download link for `name` and saves what the browser downloads into `to`. */
async function download(page: Page, name: string, to: string): Promise<Buffer> {
  const [d] = await Promise.all([page.waitForEvent('download'), page.click(`a[download="${name}"]`)]);
  const path = join(to, name);
  await d.saveAs(path);
  return readFileSync(path);
}

const bytesOf = (a: Float32Array | Uint16Array) => Buffer.from(a.buffer, a.byteOffset, a.byteLength);

describe('static GPU page in headless chromium', () => {
  it('?list=list.json: the final R16 equals the Dawn host byte for byte; its sidecar reads back; only the page and the list are requested', async () => {
    const o = await open(`${origin}/index.html?list=list.json`);
    try {
      const state = await settled(o.page);
      expect(state, (await o.page.textContent('#error')) ?? '').toBe('done');
      // The adapter line names SwiftShader (the flags ask for it).
      expect(await o.page.textContent('#adapter')).toMatch(/architecture swiftshader/);
      const out = join(dir, 'downloads-http');
      mkdirSync(out, { recursive: true });
      const final = await download(o.page, 'final.r16', out);
      await download(o.page, 'final.r16.json', out);
      expect(final.length).toBe(N * N * 2);
      expect(final.equals(bytesOf(dawn.codes)), 'final.r16 differs from the Dawn host').toBe(true);
      const f = readHeightfieldFile(join(out, 'final.r16'));
      expect(f.sidecar?.stage).toBe('final');
      expect(f.sidecar?.request).toBe('teaching-512');
      expect(f.sidecar?.producer.adapter?.architecture).toBe('swiftshader');
      expect(f.sidecar?.producer.adapter?.host).toBe('browser');
      expect(f.field.grid.columns).toBe(N);
      const enc = parseDrawList(listText).encoding;
      expect(f.field.kind === 'codes' ? f.field.range : null).toEqual({ min: enc.min, max: enc.max });
      // Every stage row shows a time.
      const times = await o.page.$$eval('#stages tr', (trs) => trs.map((tr) => tr.children[2]?.textContent ?? ''));
      expect(times.length).toBe(8);
      for (const t of times) expect(t).toMatch(/^\d+\.\d+ s$/);
      expect(o.errors).toEqual([]);
      // Requests: the page and the list, nothing else (downloads are blob: URLs made by the page).
      const foreign = o.requests.filter(
        (u) => !u.startsWith('blob:') && !u.startsWith('data:') && ![`${origin}/index.html?list=list.json`, `${origin}/list.json`].includes(u),
      );
      expect(foreign).toEqual([]);
      expect(served.filter((p) => p !== '/index.html' && p !== '/list.json')).toEqual([]);
    } finally {
      await o.close();
    }
  }, 200_000);

  it('file button on the page opened from file://: every stage field and the final R16 equal the Dawn host; every sidecar reads back', async () => {
    const url = pathToFileURL(join(dir, 'index.html')).href;
    const o = await open(url);
    try {
      await o.page.setInputFiles('#list-input', join(dir, 'list.json'));
      expect(await settled(o.page), (await o.page.textContent('#error')) ?? '').toBe('done');
      const out = join(dir, 'downloads-file');
      mkdirSync(out, { recursive: true });
      expect((await download(o.page, 'final.r16', out)).equals(bytesOf(dawn.codes))).toBe(true);
      await download(o.page, 'final.r16.json', out);
      expect(readHeightfieldFile(join(out, 'final.r16')).sidecar?.producer.adapter?.host).toBe('browser');
      // The stage files: the bytes behind each link (chromium asks before more than two downloads from one page, its
      // multiple-download guard; the two above went through the browser's download path).
      for (const s of FIELD_STAGES) {
        const b = await linkBytes(o.page, `${s}.r32`);
        writeFileSync(join(out, `${s}.r32`), b);
        writeFileSync(join(out, `${s}.r32.json`), await linkBytes(o.page, `${s}.r32.json`));
        expect(b.equals(bytesOf(dawn.fields[s]!)), `${s}.r32 differs from the Dawn host`).toBe(true);
        // heightbench's reader: sidecar format, payload size and SHA-256, grid, stage.
        const r = readHeightfieldFile(join(out, `${s}.r32`));
        expect(r.sidecar?.stage).toBe(s);
        expect(r.sidecar?.encoding).toEqual({ kind: 'float32', unit: 'm' });
        expect(r.sidecar?.grid.rowDirection).toBe('row0-at-ymin');
        expect(r.sidecar?.producer.adapter?.architecture).toBe('swiftshader');
      }
      expect(o.errors).toEqual([]);
      expect(o.requests.filter((u) => u !== url && !u.startsWith('blob:') && !u.startsWith('data:'))).toEqual([]);
    } finally {
      await o.close();
    }
  }, 200_000);

  it('shows the reason for bad input on the page: assets not embedded, not a draw list', async () => {
    const o = await open(`${origin}/index.html?list=not-embedded.json`);
    try {
      expect(await settled(o.page)).toBe('error');
      expect(await o.page.textContent('#error')).toMatch(/is not embedded in the draw list.*--embed-assets/);
      await o.page.setInputFiles('#list-input', { name: 'notes.json', mimeType: 'application/json', buffer: Buffer.from('{"format": "something else"}') });
      await o.page.waitForFunction(
        () => /not a heightbench draw list/.test((globalThis as unknown as PageWindow).document.getElementById('error')?.textContent ?? ''),
        null,
        { timeout: 30_000 },
      );
      expect(await o.page.textContent('#error')).toMatch(/notes\.json is not a heightbench draw list: .*format/);
      expect(o.errors).toEqual([]);
    } finally {
      await o.close();
    }
  }, 120_000);
});
