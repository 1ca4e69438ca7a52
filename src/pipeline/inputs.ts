/**
 * The run's inputs, loaded at the edge: the world file, the asset folder (built first when missing or stale) and, for
 * a draw list that does not embed its assets, the asset files it names. Planning (plan.ts, emit) and execution
 * (execute-cpu.ts, src/gpu) take these loaded values and read no file; the CLI, the notebook API and runPipeline's
 * default call these loaders.
 * Inputs: a request or world name, the config context (request.ts: the CLI's --config, else the default search), an
 * asset folder.
 * Outputs: a WorldConfig, an AssetSet (assets.ts), decoded assets keyed by id.
 * Errors: a missing or malformed file → FormatError naming it; an asset whose bytes or shape differ from the list's
 * record → FormatError / MismatchError with both values.
 */
import { join } from 'node:path';
import { createHash } from 'node:crypto';
import { FormatError } from '../errors.js';
import { checkName, resolveInside } from '../core/names.js';
import {
  assetWorldHash,
  buildAssets,
  checkAssetsMatchWorld,
  loadAssetSet,
  maxAssetBytes,
  readAssetKtx2,
  type AssetSet,
  type HeightAsset,
} from '../assets/assets.js';
import { MAX_JSON_BYTES, inputPresent, readInputFile } from '../io/read-input.js';
import type { PipelineRequest } from '../plan/request.js';
import { configDir, defaultAssetsDir, type ConfigContext } from '../project/paths.js';

export { defaultAssetsDir };
import { loadWorldFile, type WorldConfig } from '../world/world.js';
import { sha256Hex } from '../io/sidecar.js';
import type { DrawList } from '../drawlist/types.js';
import { buildPlan, type Plan } from '../plan/plan.js';
import type { Conventions } from '../conventions/index.js';

/** The world configuration `config/worlds/<name>.json`. */
export function loadWorld(name: string, ctx: ConfigContext = {}): WorldConfig {
  return loadWorldFile(join(configDir(ctx), 'worlds', `${checkName('world', name)}.json`));
}

/** SHA-256 of the world configuration file, stored in the asset index so stale assets are rebuilt. */
export function worldHash(world: WorldConfig, ctx: ConfigContext = {}): string {
  const path = join(configDir(ctx), 'worlds', `${world.name}.json`);
  return createHash('sha256')
    .update(inputPresent(path) ? readInputFile(path, MAX_JSON_BYTES, 'a world file') : JSON.stringify(world))
    .digest('hex');
}

/**
 * Loads the world's asset folder `dir` (with each file's bytes when `keepBytes`: to embed them in a list), building
 * it first when missing or built from another world file.
 */
export function ensureAssetSet(world: WorldConfig, dir?: string, ctx: ConfigContext = {}, opts: { keepBytes?: boolean } = {}): AssetSet {
  dir ??= defaultAssetsDir(ctx);
  const hash = worldHash(world, ctx);
  if (assetWorldHash(dir) !== hash) buildAssets(world, dir, hash);
  const set = loadAssetSet(dir, opts);
  checkAssetsMatchWorld(world, new Map(set.assets), dir);
  return set;
}

/** The decoded assets of ensureAssetSet, keyed by id. */
export function ensureAssets(world: WorldConfig, dir?: string, ctx: ConfigContext = {}): Map<string, HeightAsset> {
  return new Map(ensureAssetSet(world, dir, ctx).assets);
}

/** What a run plans and executes from: the request's world and its loaded asset folder. */
export interface RunInputs {
  world: WorldConfig;
  assets: AssetSet;
}

/** Loads a request's run inputs (the asset folder default <root>/assets, built when missing or stale). */
export function loadRunInputs(req: PipelineRequest, assetsDir?: string, ctx: ConfigContext = {}, opts: { keepBytes?: boolean } = {}): RunInputs {
  const world = loadWorld(req.world, ctx);
  return { world, assets: ensureAssetSet(world, assetsDir, ctx, opts) };
}

/**
 * The assets a draw list names that it does not embed, read from `dir` (SHA-256 checked against the list's record):
 * what an executor is given for a list loaded from a file.
 */
export function loadListAssets(dl: DrawList, dir: string): Map<string, HeightAsset> {
  const out = new Map<string, HeightAsset>();
  for (const a of dl.assets) {
    if (a.embedded) continue;
    // Through the hardened reader: a regular file inside the folder, no larger than the list's asset can be.
    const bytes = new Uint8Array(readInputFile(resolveInside(dir, a.file), maxAssetBytes(a.size), `asset ${a.id} of ${a.size}² with its mip chain`));
    const sha = sha256Hex(bytes);
    if (sha !== a.sha256) throw new FormatError(`draw list asset ${a.id} (${a.file}): SHA-256 ${sha} does not match the list's ${a.sha256}`);
    out.set(a.id, readAssetKtx2(bytes, a.file));
  }
  return out;
}

/**
 * The KTX2 bytes of every asset a draw list does not embed, read from `dir` through the hardened reader (a regular
 * file inside the folder, bounded by the asset's size): what the GPU executor takes (runGpu's assetBytes).
 */
export function readListAssetBytes(dl: DrawList, dir: string): Map<string, Uint8Array> {
  const out = new Map<string, Uint8Array>();
  for (const a of dl.assets) {
    if (a.embedded) continue;
    out.set(a.id, new Uint8Array(readInputFile(resolveInside(dir, a.file), maxAssetBytes(a.size), `asset ${a.id} of ${a.size}² with its mip chain`)));
  }
  return out;
}

/** The request's plan on its loaded world (buildPlan after loadWorld): for callers at the edge (tests, notebooks). */
export function planRequest(req: PipelineRequest, conventions?: Conventions, ctx: ConfigContext = {}): Plan {
  return buildPlan(req, loadWorld(req.world, ctx), conventions);
}
