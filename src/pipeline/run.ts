/**
 * A whole run: plan (planar stages) → draw list (src/drawlist/emit.ts) → CPU executor (execute-cpu.ts: base →
 * support → natural stamps → location textures → outer blend → encode).
 * Stages run in the article's order; each field stage transforms the previous field in place, and a copy is kept
 * only for the stages the caller asks to keep, so every intermediate can be written by content name. The manifest
 * records counts, per-stage time and the PRNG draws consumed per stage.
 * Conventions (src/conventions): the declaration, or the one `conventions` (and the older `ablation`) changes. The
 * plan reads the corner and fan rules; the draw list records the smoothing taps, weights and N² filter in force
 * (written here after emission) and the draw order (draws.order 'sorted' stable-sorts each draw section by asset
 * key); the executor reads the rest through its context. The executor is `executor`, by default the precision's
 * (context.ts).
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createHash } from 'node:crypto';
import { buildPlan, type Plan } from './plan.js';
import { assetWorldHash, buildAssets, loadAssets, type HeightAsset } from './assets.js';
import type { SupportTarget } from './support.js';
import { selectStamps, type StampSelection } from './stamps.js';
import { configDir, defaultAssetsDir, type PipelineRequest } from './request.js';
import { executeDrawListCpu, type QuadCoverage } from './execute-cpu.js';
import { buildDrawList } from '../drawlist/emit.js';
import type { DrawList } from '../drawlist/types.js';
import type { Field, Precision } from './precision.js';
import { ablationOverride, type SmoothingAblation } from './smoothing.js';
import { mergeOverrides, resolveConventions, STAGES, type ConventionOverride, type Conventions } from '../conventions/index.js';
import type { Executor } from './context.js';
import type { WorldConfig } from './world.js';

/** The field stages in execution order (conventions `stages`). */
export const FIELD_STAGES = STAGES;

export interface RunOptions {
  precision: Precision;
  /** Field stages to keep (copies are made only for these; the last stage reached is always available). */
  keep?: readonly string[];
  /** Older vocabulary for smoothing ablations: folded into `conventions`. */
  ablation?: SmoothingAblation;
  /** Conventions changed from the declaration (ablations), applied to every stage. */
  conventions?: ConventionOverride;
  /** The executor (default: 'f64' for f64; 'simd' for f32 where the kernels can run, else 'js-f32'). */
  executor?: Executor;
  /** [G] Vertex snapping of the layer triangles, fraction bits (default: the draw list's 8); a mimic switch, recorded
   *  in the draw list and the manifest when set. */
  subpixelBits?: number;
  /** [G] Stamp and location quads: 'exact' (centre inside the square, default) or 'snapped' (execute-cpu.ts). */
  quadCoverage?: QuadCoverage;
  /** Asset folder (default <root>/assets, built when missing or stale). */
  assetsDir?: string;
  /** Called as each timed step ends, with its wall-clock time (progress display; never changes the result). */
  onStep?: (name: string, ms: number) => void;
  /** Called with each kept field stage as soon as it is final (see CpuExecuteOptions.onField). */
  onField?: (stage: string, field: Float32Array | Float64Array) => void;
}

export interface RunResult {
  plan: Plan;
  /** What the run drew (src/drawlist/types.ts). */
  drawList: DrawList;
  size: number;
  precision: Precision;
  /**
   * The executor that ran the stages (context.ts). [R] Not in the manifest: the manifest is part of the DVC-tracked
   * references, whose hashes must not move when the executor (not the result) changes.
   */
  executor: Executor;
  fields: Map<string, Field>;
  /** Final R16 codes. */
  codes: Uint16Array;
  support: SupportTarget[];
  stamps: StampSelection;
  manifest: RunManifest;
}

export interface RunManifest {
  request: string;
  seed: number;
  size: number;
  precision: Precision;
  /** Present when the layer triangles snapped to other than 8 fraction bits (a GPU-mimic switch). */
  subpixelBits?: number;
  /** Present when the asset quads' coverage was not 'exact'. */
  quadCoverage?: QuadCoverage;
  counts: Record<string, unknown>;
  timingsMs: Record<string, number>;
  drawsByStage: Record<string, number>;
}

/** SHA-256 of the world configuration file, stored in the asset index so stale assets are rebuilt. */
export function worldHash(world: WorldConfig): string {
  const path = join(configDir(), 'worlds', `${world.name}.json`);
  return createHash('sha256')
    .update(existsSync(path) ? readFileSync(path) : JSON.stringify(world))
    .digest('hex');
}

/** Loads the world's assets from `dir`, building them first when the folder is missing or was built from another world file. */
export function ensureAssets(world: WorldConfig, dir = defaultAssetsDir()): Map<string, HeightAsset> {
  const hash = worldHash(world);
  if (assetWorldHash(dir) !== hash) buildAssets(world, dir, hash);
  return loadAssets(dir);
}

/**
 * Writes the conventions the list can record into it, and applies the draw order (see header). The outer band, the
 * outer initial value and the encoding range come from the request and the world; an override that names them
 * (`named`) replaces them.
 */
export function applyConventionsToList(dl: DrawList, c: Conventions, named: ConventionOverride = {}): DrawList {
  if (named.outer?.inner !== undefined) dl.outer.inner = c.outer.inner;
  if (named.outer?.outer !== undefined) dl.outer.outer = c.outer.outer;
  if (named.outer?.initialHeight !== undefined && dl.outer.input.kind === 'constant') dl.outer.input = { kind: 'constant', height: c.outer.initialHeight };
  if (named.encoding?.min !== undefined) dl.encoding.min = c.encoding.min;
  if (named.encoding?.max !== undefined) dl.encoding.max = c.encoding.max;
  dl.smoothing.offsets = [...c.smoothing.offsets];
  dl.smoothing.weights = [...c.smoothing.weights];
  dl.smoothing.filterFullResolution = c.smoothing.filterFullResolution;
  dl.raster.subpixelBits = c.raster.subpixelBits;
  if (c.draws.order === 'sorted') {
    const byAsset = <T extends { asset: string }>(a: T, b: T) => (a.asset < b.asset ? -1 : a.asset > b.asset ? 1 : 0);
    dl.stamps.draws = [...dl.stamps.draws].sort(byAsset);
    dl.locations.draws = [...dl.locations.draws].sort(byAsset);
  }
  return dl;
}

export function runPipeline(req: PipelineRequest, opts: RunOptions): RunResult {
  const named = mergeOverrides(ablationOverride(opts.ablation), opts.conventions);
  const conventions = resolveConventions(named);
  const n = req.size;
  const timings: Record<string, number> = {};
  const time = <T>(name: string, f: () => T): T => {
    const t0 = performance.now();
    const r = f();
    timings[name] = performance.now() - t0;
    opts.onStep?.(name, timings[name]);
    return r;
  };
  const plan = time('plan', () => buildPlan(req, undefined, conventions));
  const world = plan.world;
  const assetsDir = opts.assetsDir ?? defaultAssetsDir();
  const assets = time('assets', () => ensureAssets(world, assetsDir));
  // The run = plan → draw list → executor: the list says what is drawn, executeDrawListCpu how (issue 16).
  const stamps = time('stamps.select', () => selectStamps(plan.regions, world, plan.stream));
  const drawList = time('drawlist', () => applyConventionsToList(buildDrawList(plan, { size: n, stamps, assets, assetsDir }), conventions, named));
  // The mimic switch wins over the conventions' snapping (both default to 8: [G] Direct3D's 16.8).
  if (opts.subpixelBits !== undefined) drawList.raster.subpixelBits = opts.subpixelBits;
  const exec = executeDrawListCpu(drawList, {
    precision: opts.precision,
    executor: opts.executor,
    keep: opts.keep,
    conventions,
    quadCoverage: opts.quadCoverage,
    assets,
    onStage: opts.onStep,
    onField: opts.onField,
  });
  Object.assign(timings, exec.timingsMs);
  const { fields, codes, support } = exec;
  const { layer0, layer100, supportWrites, encode: enc } = exec.stats;
  const inst = plan.layout.instances;
  const eligible = drawList.outer.input.kind === 'raster';
  const shapes = inst.flatMap((q) => q.supports);
  const manifest: RunManifest = {
    request: req.id,
    seed: req.seed,
    size: n,
    precision: opts.precision,
    // Only a non-default snapping is written: the default manifest (hashed in the references) stays as it was.
    ...(drawList.raster.subpixelBits !== 8 ? { subpixelBits: drawList.raster.subpixelBits } : {}),
    ...(opts.quadCoverage && opts.quadCoverage !== 'exact' ? { quadCoverage: opts.quadCoverage } : {}),
    counts: {
      cells: plan.regions.cell_corners.length,
      corners: plan.regions.corner_xy.length / 2,
      locationDraws: inst.length,
      locationResources: plan.layout.counts.distinctResources,
      supportCircles: shapes.filter((s) => s.kind === 'circle').length,
      supportRectangles: shapes.filter((s) => s.kind === 'rect').length,
      supportFloorApplied: support.filter((s) => s.floorApplied).length,
      supportParentsWithChildren: support.filter((s) => s.children.length > 0).length,
      supportWrites,
      stampInstances: stamps.instances.length,
      stampKeys: Object.keys(stamps.drawsPerKey).length,
      stampDropped: stamps.dropped,
      stampDrawsPerKey: stamps.drawsPerKey,
      stampPixels: exec.stats.stampPixels,
      stampLodRange: exec.stats.stampLodRange,
      locationTextureDraws: exec.stats.locationDraws,
      locationTextures: exec.stats.locationTextures,
      outerDrawEligible: eligible,
      outerBlendedPixels: exec.stats.outerBlendedPixels,
      outerOnlyPixels: exec.stats.outerOnlyPixels,
      clampedLow: enc.clampedLow,
      clampedHigh: enc.clampedHigh,
      nan: enc.nan,
      layer0Triangles: layer0.triangles,
      layer100Triangles: layer100.triangles,
    },
    timingsMs: timings,
    drawsByStage: { ...plan.stream.drawsByStage },
  };
  return { plan, drawList, size: n, precision: opts.precision, executor: exec.executor, fields, codes, support, stamps, manifest };
}
