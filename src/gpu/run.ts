/**
 * runGpu: the Node entry of the WebGPU reference — a draw list in, stage fields and codes out, on the chosen host.
 *
 * Inputs: a DrawList, options (host, adapter spec, asset folder, encode rule, LOD source, per-stage callback, progress).
 * Outputs: { fields, codes, adapter, timings } (GpuRunResult of execute.ts).
 * Hosts [R]: 'dawn' (default) runs the executor in this process on Dawn for Node; 'chromium' runs the same executor
 *   module in Debian's headless chromium through playwright-core (browser-host.ts). Dawn is the default because it
 *   needs no browser process and no copy of every 64 MiB stage field through a page (the chromium host moves them
 *   over a local HTTP connection); both drive the same SwiftShader driver and gave the same pass times in the notes.
 * Assets: each asset's embedded KTX2 bytes when the list carries them, otherwise the caller's loaded bytes
 *   (assetBytes, by asset id: the CLI reads them with readListAssetBytes, src/pipeline/inputs.ts), checked against the
 *   list's SHA-256 before use. This module reads no file: the executor takes loaded inputs.
 */
import { GpuInputError } from './context.js';
import { createHash } from 'node:crypto';
import type { DrawList } from '../drawlist/types.js';
import { decodeAsset, type DecodedAsset } from './assets.js';
import { openDawn } from './dawn-host.js';
import type { AdapterSpec } from './adapter-select.js';
import { executeDrawList, type ExecuteOptions, type GpuRunResult } from './execute.js';

export type GpuHost = 'dawn' | 'chromium';
export const GPU_HOSTS: readonly GpuHost[] = ['dawn', 'chromium'];
export const DEFAULT_GPU_HOST: GpuHost = 'dawn';

export interface RunGpuOptions extends ExecuteOptions {
  host?: GpuHost;
  /** The KTX2 bytes of each asset the list does not embed, by asset id (loaded by the caller). */
  assetBytes?: ReadonlyMap<string, Uint8Array>;
  /** Which adapter (adapter-select.ts): 'auto', 'swiftshader' (default: the reproducible reference) or a part of a name. */
  adapter?: AdapterSpec;
}

/** Decodes every asset the list names (embedded bytes first, else the caller's loaded bytes), SHA-256 checked. */
export function loadDrawListAssets(dl: DrawList, assetBytes?: ReadonlyMap<string, Uint8Array>): Map<string, DecodedAsset> {
  const out = new Map<string, DecodedAsset>();
  for (const a of dl.assets) {
    const bytes = a.embedded ?? assetBytes?.get(a.id);
    if (!bytes) throw new GpuInputError(`asset ${a.id} is not embedded in the draw list and its bytes were not given (assetBytes)`);
    const sha = createHash('sha256').update(bytes).digest('hex');
    if (sha !== a.sha256) throw new GpuInputError(`asset ${a.id}: SHA-256 ${sha} differs from the draw list's ${a.sha256}`);
    out.set(a.id, decodeAsset(a, bytes));
  }
  return out;
}

export async function runGpu(dl: DrawList, opts: RunGpuOptions = {}): Promise<GpuRunResult> {
  const host = opts.host ?? DEFAULT_GPU_HOST;
  if (!GPU_HOSTS.includes(host)) throw new GpuInputError(`runGpu: host must be one of ${GPU_HOSTS.join(', ')}, got ${JSON.stringify(host)}`);
  const assets = loadDrawListAssets(dl, opts.assetBytes);
  if (host === 'dawn') {
    const ctx = await openDawn(opts.adapter ?? 'swiftshader');
    return executeDrawList(ctx, dl, assets, opts);
  }
  const { runInChromium } = await import('./browser-host.js');
  return runInChromium(dl, assets, opts);
}
