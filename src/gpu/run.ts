/**
 * runGpu: the Node entry of the WebGPU reference — a draw list in, stage fields and codes out, on the chosen host.
 *
 * Inputs: a DrawList, options (host, adapter spec, asset folder, encode rule, LOD source, per-stage callback, progress).
 * Outputs: { fields, codes, adapter, timings } (GpuRunResult of execute.ts).
 * Hosts [R]: 'dawn' (default) runs the executor in this process on Dawn for Node; 'chromium' runs the same executor
 *   module in Debian's headless chromium through playwright-core (browser-host.ts). Dawn is the default because it
 *   needs no browser process and no copy of every 64 MiB stage field through a page (the chromium host moves them
 *   over a local HTTP connection); both drive the same SwiftShader driver and gave the same pass times in the notes.
 * Assets: each asset's embedded KTX2 bytes when the list carries them, otherwise <assetsDir>/<file>, checked against
 *   the list's SHA-256 before use.
 */
import { GpuInputError } from './context.js';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
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
  /** Folder the list's asset files are relative to (needed unless every asset is embedded). */
  assetsDir?: string;
  /** Which adapter (adapter-select.ts): 'auto', 'swiftshader' (default: the reproducible reference) or a part of a name. */
  adapter?: AdapterSpec;
}

/** Loads and decodes every asset the list names (embedded bytes first, else the file, SHA-256 checked). */
export function loadDrawListAssets(dl: DrawList, assetsDir?: string): Map<string, DecodedAsset> {
  const out = new Map<string, DecodedAsset>();
  for (const a of dl.assets) {
    let bytes = a.embedded;
    if (!bytes) {
      if (!assetsDir) throw new GpuInputError(`asset ${a.id} is not embedded in the draw list and no asset folder was given`);
      const path = join(assetsDir, a.file);
      try {
        bytes = new Uint8Array(readFileSync(path));
      } catch (e) {
        throw new GpuInputError(`asset ${a.id}: cannot read ${path} (${e instanceof Error ? e.message : String(e)})`);
      }
    }
    const sha = createHash('sha256').update(bytes).digest('hex');
    if (sha !== a.sha256) throw new GpuInputError(`asset ${a.id}: SHA-256 ${sha} differs from the draw list's ${a.sha256}`);
    out.set(a.id, decodeAsset(a, bytes));
  }
  return out;
}

export async function runGpu(dl: DrawList, opts: RunGpuOptions = {}): Promise<GpuRunResult> {
  const host = opts.host ?? DEFAULT_GPU_HOST;
  if (!GPU_HOSTS.includes(host)) throw new GpuInputError(`runGpu: host must be one of ${GPU_HOSTS.join(', ')}, got ${JSON.stringify(host)}`);
  const assets = loadDrawListAssets(dl, opts.assetsDir);
  if (host === 'dawn') {
    const ctx = await openDawn(opts.adapter ?? 'swiftshader');
    return executeDrawList(ctx, dl, assets, opts);
  }
  const { runInChromium } = await import('./browser-host.js');
  return runInChromium(dl, assets, opts);
}
