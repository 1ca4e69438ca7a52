/**
 * Browser entry of the WebGPU executor: the page the chromium host (browser-host.ts) opens. It asks navigator.gpu for
 * an adapter (the query's ?adapter= spec, adapter-select.ts), fetches the job (draw list + decoded assets, transfer.ts) from the page's own origin, runs
 * executeDrawList — the same module and WGSL Dawn for Node runs — and posts every stage field, the codes and a
 * summary back to the origin. Any WebGPU browser opening the same page reaches its own GPU this way.
 *
 * Endpoints (relative to the page's origin): GET job/input; POST job/field/<stage>, job/codes, job/progress,
 * job/done (JSON summary), job/error (text).
 */
import { createContext, GpuUnavailableError } from './context.js';
import type { DecodedAsset } from './assets.js';
import { executeDrawList, type ExecuteOptions } from './execute.js';
import { unpackMessage } from './transfer.js';
import { parseAdapterSpec, requestMatchingAdapter } from './adapter-select.js';
import type { DrawList } from '../drawlist/types.js';

export interface PageJob {
  drawList: DrawList;
  assets: Map<string, DecodedAsset>;
  opts: Pick<ExecuteOptions, 'encodeRule' | 'lod' | 'uv'>;
}

const BROWSER_HINT =
  'start chromium with --enable-unsafe-webgpu --enable-features=Vulkan --use-vulkan=swiftshader --use-webgpu-adapter=swiftshader (heightbench does this), or open the page in a browser with WebGPU';

export async function runPage(origin = ''): Promise<void> {
  const post = async (path: string, body: string | ArrayBufferView) => {
    const bytes = typeof body === 'string' ? body : new Uint8Array(body.buffer as ArrayBuffer, body.byteOffset, body.byteLength);
    const r = await fetch(`${origin}${path}`, { method: 'POST', body: bytes });
    if (!r.ok) throw new Error(`POST ${path}: HTTP ${r.status}`);
  };
  try {
    const nav = (globalThis as unknown as { navigator?: { gpu?: GPU } }).navigator;
    if (!nav?.gpu) throw new GpuUnavailableError(`navigator.gpu is missing in this page: ${BROWSER_HINT}`);
    const loc = (globalThis as unknown as { location?: { search: string } }).location;
    const spec = parseAdapterSpec(new URLSearchParams(loc?.search ?? '').get('adapter') ?? 'swiftshader');
    const adapter = await requestMatchingAdapter(nav.gpu, spec, BROWSER_HINT);
    const ctx = await createContext(adapter, 'chromium-playwright', BROWSER_HINT);
    const input = await fetch(`${origin}/job/input`);
    const job = unpackMessage<PageJob>(new Uint8Array(await input.arrayBuffer()));
    const res = await executeDrawList(ctx, job.drawList, job.assets, {
      ...job.opts,
      onStage: (stage, field) => post(`/job/field/${stage}`, field),
      progress: (line) => void post('/job/progress', line).catch(() => {}),
    });
    await post('/job/codes', res.codes);
    await post('/job/done', JSON.stringify({ adapter: res.adapter, timings: res.timings, counts: res.counts }));
  } catch (e) {
    const err = e instanceof Error ? `${e.name}: ${e.message}\n${e.stack ?? ''}` : String(e);
    await post('/job/error', err).catch(() => {});
  }
}
