/**
 * A whole run: plan (planar stages) → base → support → natural stamps → location textures → outer blend → encode.
 * Stages run in the article's order; each field stage reads the previous field and writes its own, so every
 * intermediate can be kept and written by content name. The manifest records counts, per-stage time and the PRNG
 * draws consumed per stage.
 */
import { buildPlan, type Plan } from './plan.js';
import { buildBase } from './base.js';
import type { Field, Precision } from './precision.js';
import type { PipelineRequest } from './request.js';
import type { SmoothingAblation } from './smoothing.js';

export const FIELD_STAGES = ['raster-layer0', 'raster', 'base'] as const;
export type FieldStage = (typeof FIELD_STAGES)[number] | string;

export interface RunOptions {
  precision: Precision;
  /** Field stages to keep (copies are made only for these). */
  keep?: readonly string[];
  ablation?: SmoothingAblation;
  /** Stop after this stage (inclusive). */
  until?: string;
}

export interface RunResult {
  plan: Plan;
  size: number;
  precision: Precision;
  fields: Map<string, Field>;
  manifest: {
    request: string;
    seed: number;
    size: number;
    precision: Precision;
    counts: Record<string, unknown>;
    timingsMs: Record<string, number>;
    drawsByStage: Record<string, number>;
  };
}

export function runPipeline(req: PipelineRequest, opts: RunOptions): RunResult {
  const n = req.size;
  const keep = new Set(opts.keep ?? []);
  const timings: Record<string, number> = {};
  let t0 = performance.now();
  const plan = buildPlan(req);
  timings.plan = performance.now() - t0;
  const fields = new Map<string, Field>();
  t0 = performance.now();
  const base = buildBase(plan, n, opts.precision, { keepLayer0: keep.has('raster-layer0'), ablation: opts.ablation });
  timings.base = performance.now() - t0;
  Object.assign(timings, Object.fromEntries(Object.entries(base.stats.timings).map(([k, v]) => [`base.${k}`, v])));
  if (base.rasterLayer0) fields.set('raster-layer0', base.rasterLayer0);
  if (keep.has('raster')) fields.set('raster', base.raster);
  fields.set('base', base.base);
  return {
    plan,
    size: n,
    precision: opts.precision,
    fields,
    manifest: {
      request: req.id,
      seed: req.seed,
      size: n,
      precision: opts.precision,
      counts: {
        cells: plan.regions.cell_corners.length,
        corners: plan.regions.corner_xy.length / 2,
        locations: plan.layout.counts,
        layer0Triangles: base.stats.layer0.triangles,
        layer100Triangles: base.stats.layer100.triangles,
        reliefCells: base.stats.reliefCells,
        pinnedCorners: base.stats.pinnedCorners,
      },
      timingsMs: timings,
      drawsByStage: { ...plan.stream.drawsByStage },
    },
  };
}
