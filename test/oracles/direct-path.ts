/**
 * The direct path, kept as a test oracle: the base stage (buildBase) and the natural stamps (drawStamps) computed
 * straight from the plan with the CPU kernels, without the draw list — the way the pipeline ran before the draw list
 * existed. test/drawlist.test.ts runs it beside planDrawList → executeDrawListCpu and asserts the same fields, so a
 * slip in emitting the list (an operand, an order, a transform) shows as a difference; test/smoothing.test.ts and the
 * pipeline bench use buildBase for the base stage alone. Not part of the package.
 */
import type { HeightAsset } from '../../src/assets/assets.js';
import { newField, type Field, type Precision } from '../../src/core/precision.js';
import { runContext } from '../../src/cpu/context.js';
import { drawAsset, footprintQuery, type DrawProgram } from '../../src/cpu/draw.js';
import { rasterizeTriangles, type RasterStats } from '../../src/cpu/raster.js';
import { smoothingChain } from '../../src/cpu/smoothing.js';
import type { SmoothingAblation } from '../../src/conventions/ablation.js';
import type { DrawGrid } from '../../src/drawlist/placement.js';
import { InputRangeError } from '../../src/errors.js';
import { layer0Fans, layer100Fans } from '../../src/plan/layer-fans.js';
import type { Plan } from '../../src/plan/plan.js';
import { stampMatrix, type StampSelection } from '../../src/plan/stamps.js';
import type { WorldConfig } from '../../src/world/world.js';

export interface BaseStage {
  rasterLayer0: Field | null;
  /** Both layers before smoothing; null when the caller did not ask to keep it (keepRaster: false). */
  raster: Field | null;
  base: Field;
  stats: {
    layer0: RasterStats;
    layer100: RasterStats;
    reliefCells: number;
    pinnedCorners: number;
    overwrittenCentres: number;
    timings: Record<string, number>;
  };
}

export function buildBase(
  plan: Plan,
  n: number,
  precision: Precision,
  opts: { keepLayer0?: boolean; keepRaster?: boolean; ablation?: SmoothingAblation } = {},
): BaseStage {
  const keepRaster = opts.keepRaster ?? true;
  const grid = { xmin: plan.request.domain.xmin, ymin: plan.request.domain.ymin, size: plan.request.domain.size, n };
  let t0 = performance.now();
  // Without keepRaster, the arena composes the base over the raster (one 64 MiB field less at 4096²).
  const ctx = runContext({ precision, conventions: plan.conventions, n, baseOverRaster: !keepRaster });
  const raster = ctx.arena ? ctx.arena.rasterView : newField(precision, n * n);
  const l0 = layer0Fans(plan);
  const s0 = rasterizeTriangles(l0.fans, grid, raster, ctx);
  const rasterLayer0 = opts.keepLayer0 ? raster.slice() : null;
  const l100 = layer100Fans(plan);
  const s100 = rasterizeTriangles(l100.fans, grid, raster, ctx);
  const rasterMs = performance.now() - t0;
  t0 = performance.now();
  const { base, timings } = smoothingChain(raster, n, ctx, undefined, opts.ablation);
  timings.raster = rasterMs;
  timings.smoothing = performance.now() - t0;
  let overwritten = 0;
  for (const ids of plan.regions.cell_corners) if (ids.some((c) => l0.input.corner_flag[c])) overwritten++;
  return {
    rasterLayer0,
    raster: keepRaster ? raster : null,
    base,
    stats: {
      layer0: s0,
      layer100: s100,
      reliefCells: l100.cells,
      pinnedCorners: l0.input.corner_flag.reduce((a, b) => a + b, 0),
      overwrittenCentres: overwritten,
      timings,
    },
  };
}

/** Draws every instance in order into `field` (in place). */
export function drawStamps(
  field: Field,
  g: DrawGrid,
  sel: StampSelection,
  world: WorldConfig,
  assets: ReadonlyMap<string, HeightAsset>,
  precision: Precision,
): { pixels: number; lodRange: [number, number] } {
  const R = precision === 'f32' ? Math.fround : (x: number) => x;
  const infos = new Map(world.stamps.infos.map((i) => [i.id, i]));
  const kinds = new Map(world.stamps.keys.map((k) => [k.key, k.kind]));
  let pixels = 0;
  let lodLo = Infinity;
  let lodHi = -Infinity;
  for (const inst of sel.instances) {
    const info = infos.get(inst.info)!;
    const asset = assets.get(inst.key);
    if (!asset) throw new InputRangeError(`stamp asset ${inst.key} is missing from the asset folder`);
    const m = stampMatrix(inst, info);
    const q = footprintQuery(field, g, asset, m);
    const k = info.program.strength;
    const sMax = kinds.get(inst.key) === 'depression' ? -4 : 6;
    let program: DrawProgram;
    switch (info.blend) {
      case 'add':
        program = { mode: 'add', k };
        break;
      case 'max':
        program = { mode: 'max', k, c: R(R(q.hmin) + R(info.program.bias)) };
        break;
      case 'min':
        program = { mode: 'min', k, c: q.hmax };
        break;
      case 'lerp':
        program = { mode: 'lerp', k, c: q.centre, a: info.program.lerpAlpha, sMax };
        break;
    }
    const r = drawAsset(field, g, asset, m, R, program);
    pixels += r.pixels;
    lodLo = Math.min(lodLo, r.lod);
    lodHi = Math.max(lodHi, r.lod);
  }
  return { pixels, lodRange: [lodLo, lodHi] };
}
