/**
 * A whole run: plan (planar stages) → base → support → natural stamps → location textures → outer blend → encode.
 * Stages run in the article's order; each field stage transforms the previous field in place, and a copy is kept
 * only for the stages the caller asks to keep, so every intermediate can be written by content name. The manifest
 * records counts, per-stage time and the PRNG draws consumed per stage.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createHash } from 'node:crypto';
import { buildPlan, type Plan } from './plan.js';
import { buildBase } from './base.js';
import { assetWorldHash, buildAssets, loadAssets, type HeightAsset } from './assets.js';
import { applySupport, computeSupportTargets, type SupportTarget } from './support.js';
import { drawStamps, selectStamps, type StampSelection } from './stamps.js';
import { drawLocations } from './locations.js';
import { applyOuterBlend } from './outer.js';
import { cellAt } from './regions.js';
import { projectRoot, type PipelineRequest } from './request.js';
import { encodeFieldR16, type EncodeCounts } from '../core/encoding.js';
import { encodeInArena } from './wasm/encode-kernel.js';
import type { Field, Precision } from './precision.js';
import type { SmoothingAblation } from './smoothing.js';
import type { WorldConfig } from './world.js';

export const FIELD_STAGES = ['raster-layer0', 'raster', 'base', 'after-support', 'after-stamps', 'after-locations', 'pre-encode', 'final'] as const;

export interface RunOptions {
  precision: Precision;
  /** Field stages to keep (copies are made only for these; the last stage reached is always available). */
  keep?: readonly string[];
  ablation?: SmoothingAblation;
  /** Asset folder (default <root>/assets, built when missing or stale). */
  assetsDir?: string;
}

export interface RunResult {
  plan: Plan;
  size: number;
  precision: Precision;
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
  counts: Record<string, unknown>;
  timingsMs: Record<string, number>;
  drawsByStage: Record<string, number>;
}

/** SHA-256 of the world configuration file, stored in the asset index so stale assets are rebuilt. */
export function worldHash(world: WorldConfig): string {
  const path = join(projectRoot(), 'config', 'worlds', `${world.name}.json`);
  return createHash('sha256').update(existsSync(path) ? readFileSync(path) : JSON.stringify(world)).digest('hex');
}

/** Loads the world's assets from `dir`, building them first when the folder is missing or was built from another world file. */
export function ensureAssets(world: WorldConfig, dir = join(projectRoot(), 'assets')): Map<string, HeightAsset> {
  const hash = worldHash(world);
  if (assetWorldHash(dir) !== hash) buildAssets(world, dir, hash);
  return loadAssets(dir);
}

export function runPipeline(req: PipelineRequest, opts: RunOptions): RunResult {
  const n = req.size;
  const keep = new Set(opts.keep ?? []);
  const timings: Record<string, number> = {};
  const fields = new Map<string, Field>();
  const time = <T>(name: string, f: () => T): T => {
    const t0 = performance.now();
    const r = f();
    timings[name] = performance.now() - t0;
    return r;
  };
  const plan = time('plan', () => buildPlan(req));
  const world = plan.world;
  const P = plan.recipe.params;
  const assets = time('assets', () => ensureAssets(world, opts.assetsDir));
  const eligible = req.sceneTypes.some((s) => P.outer.drawEligibleSceneTypes.includes(s));
  // The raster outlives the base stage only as a kept stage or as the eligible outer draw's input.
  const keepRaster = keep.has('raster') || eligible;
  const base = time('base', () => buildBase(plan, n, opts.precision, { keepLayer0: keep.has('raster-layer0'), keepRaster, ablation: opts.ablation }));
  Object.assign(timings, Object.fromEntries(Object.entries(base.stats.timings).map(([k, v]) => [`base.${k}`, v])));
  if (base.rasterLayer0) fields.set('raster-layer0', base.rasterLayer0);
  if (keep.has('raster')) fields.set('raster', base.raster!);
  if (keep.has('base')) fields.set('base', base.base.slice());
  const g = { xmin: req.domain.xmin, ymin: req.domain.ymin, size: req.domain.size, n };
  const field = base.base; // transformed in place from here on

  const inst = plan.layout.instances;
  const groupOf = (x: number, y: number) => plan.regions.parent_group[plan.regions.cell_parent[cellAt(plan.regions, x, y)]];
  const support = time('support', () => computeSupportTargets(field, g, inst, world, P.support, groupOf));
  const supportWrites = time('support.apply', () => applySupport(field, g, inst, support, opts.precision));
  if (keep.has('after-support')) fields.set('after-support', field.slice());

  const stamps = time('stamps.select', () => selectStamps(plan.regions, world, plan.stream));
  const stampDraw = time('stamps.draw', () => drawStamps(field, g, stamps, world, assets, opts.precision));
  if (keep.has('after-stamps')) fields.set('after-stamps', field.slice());

  const loc = time('locations', () => drawLocations(field, g, inst, support, world, assets, opts.precision));
  if (keep.has('after-locations')) fields.set('after-locations', field.slice());

  // An eligible outer draw renders the base relief without local stages; an ineligible one leaves the target's
  // initial value (both rules and the 0 m choice: outer.ts).
  const outerInput: Field | number = eligible ? base.raster! : P.outer.outerInitialHeight;
  const outer = time('outer', () => applyOuterBlend(field, g, req.outerBlend, outerInput, opts.precision));
  fields.set('pre-encode', field);

  // A base field in an arena is encoded there by the SIMD kernel (codes returned as a view); otherwise in JavaScript.
  const { codes, counts: enc } = time('encode', (): { codes: Uint16Array; counts: EncodeCounts } => {
    const simd = field instanceof Float32Array ? encodeInArena(field, req.encoding) : null;
    if (simd) return simd;
    const out = new Uint16Array(n * n);
    return { codes: out, counts: encodeFieldR16(field, out, req.encoding) };
  });

  const shapes = inst.flatMap((q) => q.supports);
  const manifest: RunManifest = {
    request: req.id,
    seed: req.seed,
    size: n,
    precision: opts.precision,
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
      stampPixels: stampDraw.pixels,
      stampLodRange: stampDraw.lodRange,
      locationTextureDraws: loc.draws,
      locationTextures: loc.textures,
      outerDrawEligible: eligible,
      outerBlendedPixels: outer.blendedPixels,
      outerOnlyPixels: outer.fullyOuter,
      clampedLow: enc.clampedLow,
      clampedHigh: enc.clampedHigh,
      nan: enc.nan,
      layer0Triangles: base.stats.layer0.triangles,
      layer100Triangles: base.stats.layer100.triangles,
    },
    timingsMs: timings,
    drawsByStage: { ...plan.stream.drawsByStage },
  };
  return { plan, size: n, precision: opts.precision, fields, codes, support, stamps, manifest };
}
