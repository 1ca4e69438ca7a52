/**
 * Host 2: Debian's chromium in headless mode, driven through playwright-core (no browser download), running the same
 * executor module and WGSL as the Dawn host, on the same SwiftShader driver.
 *
 * Inputs: a draw list, its decoded assets, execute options.
 * Outputs: GpuRunResult, as executeDrawList gives it in-process.
 * How [R]: a small HTTP server on 127.0.0.1 (an ephemeral port; a localhost origin is a secure context, which
 *   navigator.gpu requires) serves the page, the executor's ES modules (src/gpu/*.js; when running from TypeScript
 *   sources, each .ts is transpiled on request with the typescript package) and the job as one binary message; the
 *   page posts each stage field back as raw float32 bytes. Fields never pass through the DevTools protocol.
 * Chromium: HEIGHTBENCH_CHROMIUM or /usr/bin/chromium, flags --headless=new --no-sandbox --enable-unsafe-webgpu
 *   --enable-features=Vulkan, plus --use-vulkan=swiftshader --use-webgpu-adapter=swiftshader for --adapter swiftshader
 *   (shared/notes). For auto or TEXT those two are left out, and the page chooses among the adapters chromium gives
 *   (adapter-select.ts requestMatchingAdapter; the spec travels in the page's query string).
 */
import { existsSync, readFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { dirname, join, normalize } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { DrawList } from '../drawlist/types.js';
import type { DecodedAsset } from './assets.js';
import { GpuUnavailableError, type AdapterRecord } from './context.js';
import { FIELD_STAGES, type ExecuteOptions, type FieldStage, type GpuRunResult } from './execute.js';
import { packMessage } from './transfer.js';
import type { AdapterSpec } from './adapter-select.js';

export const CHROMIUM_PATH = process.env.HEIGHTBENCH_CHROMIUM ?? '/usr/bin/chromium';
export const CHROMIUM_FLAGS = [
  '--headless=new',
  '--no-sandbox',
  '--enable-unsafe-webgpu',
  '--enable-features=Vulkan',
  '--use-vulkan=swiftshader',
  '--use-webgpu-adapter=swiftshader',
];

/** Chromium's flags for an adapter spec: SwiftShader forced for 'swiftshader', the machine's own GPU otherwise. */
export function chromiumFlags(spec: AdapterSpec): string[] {
  return spec === 'swiftshader' ? [...CHROMIUM_FLAGS] : CHROMIUM_FLAGS.filter((f) => !/^--use-(vulkan|webgpu-adapter)=swiftshader$/.test(f));
}
export const CHROMIUM_INSTALL_HINT = "install Debian's chromium (`sudo apt-get install chromium`, or `make setup`, which runs scripts/ensure-chromium.sh)";

const here = dirname(fileURLToPath(import.meta.url));
const transpiled = new Map<string, string>();

/** The JavaScript of module `rel` (e.g. 'gpu/execute.js'): the built .js beside this file, or the .ts transpiled. */
async function moduleSource(rel: string): Promise<string | null> {
  const root = join(here, '..');
  const js = normalize(join(root, rel));
  if (!js.startsWith(root) || !js.endsWith('.js')) return null;
  if (existsSync(js)) return readFileSync(js, 'utf8');
  const ts = `${js.slice(0, -3)}.ts`;
  if (!existsSync(ts)) return null;
  let out = transpiled.get(ts);
  if (out === undefined) {
    const tsc = (await import('typescript')).default;
    out = tsc.transpileModule(readFileSync(ts, 'utf8'), {
      compilerOptions: { module: tsc.ModuleKind.ESNext, target: tsc.ScriptTarget.ES2022 },
      fileName: ts,
    }).outputText;
    transpiled.set(ts, out);
  }
  return out;
}

const PAGE = `<!doctype html><meta charset="utf-8"><title>heightbench GPU reference</title>
<script type="module">import { runPage } from '/gpu/page.js'; runPage();</script>`;

function readBody(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const parts: Buffer[] = [];
    req.on('data', (c: Buffer) => parts.push(c));
    req.on('end', () => resolve(Buffer.concat(parts)));
    req.on('error', reject);
  });
}

function floats(b: Buffer): Float32Array {
  const copy = new Uint8Array(b.byteLength);
  copy.set(b);
  return new Float32Array(copy.buffer);
}

export interface ChromiumOptions extends ExecuteOptions {
  /** Whole-job limit, ms (default 10 minutes). */
  timeoutMs?: number;
  /** Which adapter (adapter-select.ts; default 'swiftshader'). */
  adapter?: AdapterSpec;
}

export async function runInChromium(dl: DrawList, assets: ReadonlyMap<string, DecodedAsset>, opts: ChromiumOptions = {}): Promise<GpuRunResult> {
  if (!existsSync(CHROMIUM_PATH)) throw new GpuUnavailableError(`no chromium at ${CHROMIUM_PATH}: ${CHROMIUM_INSTALL_HINT}`);
  const spec = opts.adapter ?? 'swiftshader';
  const job = packMessage({ drawList: dl, assets: new Map(assets), opts: { encodeRule: opts.encodeRule, lod: opts.lod, uv: opts.uv } });
  const fields: Partial<Record<FieldStage, Float32Array>> = {};
  let codes: Uint16Array | null = null;
  let settle!: {
    resolve: (s: { adapter: AdapterRecord; timings: Record<string, number>; counts: GpuRunResult['counts'] }) => void;
    reject: (e: Error) => void;
  };
  const done = new Promise<{ adapter: AdapterRecord; timings: Record<string, number>; counts: GpuRunResult['counts'] }>(
    (resolve, reject) => (settle = { resolve, reject }),
  );
  // The page may report an error while page.goto() is still pending, before `done` is awaited: mark it handled here
  // (it is still awaited below and throws there) so an early rejection is not an unhandled one.
  done.catch(() => undefined);
  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const url = req.url ?? '/';
    if (req.method === 'GET' && (url === '/' || url.startsWith('/?'))) return void res.writeHead(200, { 'content-type': 'text/html' }).end(PAGE);
    if (req.method === 'GET' && url === '/job/input') return void res.writeHead(200, { 'content-type': 'application/octet-stream' }).end(job);
    if (req.method === 'GET') {
      const src = await moduleSource(url.slice(1));
      if (src === null) return void res.writeHead(404).end();
      return void res.writeHead(200, { 'content-type': 'text/javascript' }).end(src);
    }
    const body = await readBody(req);
    res.writeHead(204).end();
    if (url.startsWith('/job/field/')) {
      const stage = url.slice('/job/field/'.length) as FieldStage;
      if (!FIELD_STAGES.includes(stage)) return;
      const f = floats(body);
      if (opts.onStage) await opts.onStage(stage, f);
      else fields[stage] = f;
    } else if (url === '/job/codes') {
      const c = new Uint8Array(body.byteLength);
      c.set(body);
      codes = new Uint16Array(c.buffer);
    } else if (url === '/job/progress') opts.progress?.(body.toString('utf8'));
    else if (url === '/job/done') settle.resolve(JSON.parse(body.toString('utf8')));
    else if (url === '/job/error') {
      const text = body.toString('utf8');
      settle.reject(
        text.startsWith('GpuUnavailableError')
          ? new GpuUnavailableError(`chromium: ${text.split('\n')[0]}`)
          : new Error(`GPU executor in chromium failed: ${text}`),
      );
    }
  };
  const server = createServer((req, res) => {
    handle(req, res).catch((e) => settle.reject(e instanceof Error ? e : new Error(String(e))));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as AddressInfo).port;
  const { chromium } = await import('playwright-core');
  let browser;
  try {
    browser = await chromium.launch({ executablePath: CHROMIUM_PATH, args: chromiumFlags(spec), headless: true });
  } catch (e) {
    server.close();
    throw new GpuUnavailableError(
      `chromium at ${CHROMIUM_PATH} did not start (${e instanceof Error ? e.message.split('\n')[0] : String(e)}); ${CHROMIUM_INSTALL_HINT}`,
    );
  }
  const timer = setTimeout(
    () => settle.reject(new Error(`chromium host: no result within ${(opts.timeoutMs ?? 600_000) / 1000} s`)),
    opts.timeoutMs ?? 600_000,
  );
  try {
    const page = await browser.newPage();
    page.on('pageerror', (e) => settle.reject(new Error(`chromium page error: ${e.message}`)));
    await page.goto(`http://127.0.0.1:${port}/?adapter=${encodeURIComponent(spec)}`);
    const summary = await done;
    if (!codes) throw new Error('chromium host: the page finished without posting the codes');
    return { fields, codes, adapter: summary.adapter, timings: summary.timings, counts: summary.counts };
  } finally {
    clearTimeout(timer);
    await browser.close();
    server.close();
  }
}
