/**
 * A whole run: plan (planar stages) → draw list (src/plan/emit.ts) → CPU executor (execute-cpu.ts: base →
 * support → natural stamps → location textures → outer blend → encode).
 * Stages run in the article's order; each field stage transforms the previous field in place, and a copy is kept
 * only for the stages the caller asks to keep, so every intermediate can be written by content name. The manifest
 * records counts, per-stage time and the PRNG draws consumed per stage.
 * Conventions (src/conventions): resolved once per run (plan.ts: resolveRunConventions — the declaration, the
 * request's band, range and initial height, then `conventions`, `ablation` (named convention breaks) and
 * `subpixelBits`). The plan reads the corner and fan rules; the draw list records what it can (smoothing taps,
 * weights, N² filter, draw order, outer band, encoding range, snapping); the executor reads the rest. The executor
 * is `executor`, by default the precision's (context.ts).
 * Inputs are loaded at the edge (inputs.ts): pass `inputs`, or runPipeline loads them before planning.
 */
import type { Plan } from '../plan/plan.js';
import { resolveRunConventions } from '../plan/plan.js';
import type { SupportTarget } from '../cpu/support.js';
import type { StampSelection } from '../plan/stamps.js';
import type { ConfigContext, PipelineRequest } from '../plan/request.js';
import { executeDrawListCpu, type QuadCoverage } from '../cpu/execute.js';
import { planDrawList } from '../plan/emit.js';
import type { DrawList } from '../drawlist/types.js';
import type { Field, Precision } from '../core/precision.js';
import { ablationOverride, type SmoothingAblation } from '../conventions/ablation.js';
import { mergeOverrides, STAGES, type ConventionOverride } from '../conventions/index.js';
import type { Executor } from '../cpu/context.js';
import { loadRunInputs, type RunInputs } from './inputs.js';

export { ensureAssets, worldHash } from './inputs.js';

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
  /** The loaded world and asset folder (src/pipeline/inputs.ts); without them, loadRunInputs(req, assetsDir) loads them. */
  inputs?: RunInputs;
  /** Asset folder when `inputs` is not given (default <root>/assets, built when missing or stale). */
  assetsDir?: string;
  /** Where the world file is read when `inputs` is not given (the CLI's --config; default the search of request.ts). */
  config?: ConfigContext;
  /** Plans already made for this request (planDrawList's cache): two runs of one request plan once; no bit changes. */
  plans?: Map<string, Plan>;
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
  /** Paged-in room for the final map's PNG scanlines (CpuExecution.pngRows), when the executor holds one. */
  pngRows?: Uint8Array;
  /** The final map's Up-filtered PNG scanlines of `codes` (CpuExecution.pngScanlines), when the executor wrote them. */
  pngScanlines?: Uint8Array;
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

function subpixelOverride(bits: number | undefined): ConventionOverride | undefined {
  return bits === undefined ? undefined : { raster: { subpixelBits: bits } };
}

export function runPipeline(req: PipelineRequest, opts: RunOptions): RunResult {
  const n = req.size;
  const timings: Record<string, number> = {};
  const step = (name: string, ms: number) => {
    timings[name] = ms;
    opts.onStep?.(name, ms);
  };
  const time = <T>(name: string, f: () => T): T => {
    const t0 = performance.now();
    const r = f();
    step(name, performance.now() - t0);
    return r;
  };
  // Edge: the world and the assets are loaded once (unless given); planning and execution read no file.
  const { world, assets } = opts.inputs ?? time('assets', () => loadRunInputs(req, opts.assetsDir, opts.config));
  // The run's conventions, resolved once: the declaration, the request's, then `conventions` (and `ablation`,
  // named convention breaks); the mimic switch `subpixelBits` wins over the conventions' snapping (both default to
  // 8: [G] Direct3D's 16.8).
  const override = mergeOverrides(mergeOverrides(ablationOverride(opts.ablation), opts.conventions), subpixelOverride(opts.subpixelBits));
  const conventions = resolveRunConventions(req, world, override);
  // The run = plan → draw list → executor: the list says what is drawn, executeDrawListCpu how.
  const { plan, drawList } = planDrawList(req, conventions, assets, { world, size: n, onStep: step, plans: opts.plans });
  const exec = executeDrawListCpu(drawList, {
    precision: opts.precision,
    executor: opts.executor,
    keep: opts.keep,
    conventions,
    quadCoverage: opts.quadCoverage,
    assets: assets.assets,
    onStage: opts.onStep,
    onField: opts.onField,
  });
  Object.assign(timings, exec.timingsMs);
  const { fields, codes, support } = exec;
  const { layer0, layer100, supportWrites, encode: enc } = exec.stats;
  const stamps = plan.stamps;
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
    drawsByStage: { ...plan.drawsByStage },
  };
  const pngRows = exec.pngRows ?? undefined;
  const pngScanlines = exec.pngScanlines ?? undefined;
  return { plan, drawList, size: n, precision: opts.precision, executor: exec.executor, fields, codes, pngRows, pngScanlines, support, stamps, manifest };
}
