/**
 * The base height stage: two ADD layers rasterized into one float field, then multilevel smoothing.
 *
 * Inputs: the plan (cells, corners with heights and branches, sources, groups), the output size, precision.
 * Outputs: raster-layer0 (region fans only), raster (both layers), base (smoothed).
 * Layer 0 [D]: one triangle fan per cell, edges in generator order ("Region polygons can be organized into triangle
 *   fans"; "Preserve the generator's edge order"); layers 0 and 100 ADD into one float target ("two layers accumulated
 *   with ADD blending"; "combined layer 0 and layer 100"). [R] Cells are drawn in cell order.
 * Layer 100 [R]: broad relief over parent regions of the second and upland groups — fans over their cells with corner
 *   heights relief.amplitude × the recipe's coordinate field at the corner. It writes only within those cells.
 */
import { buildFans, type FanInput, type TriangleList } from './fans.js';
import { rasterizeTriangles, type RasterStats } from './raster.js';
import { smoothingChain, type SmoothingAblation } from './smoothing.js';
import { runContext } from './context.js';
import { newField, type Field, type Precision } from './precision.js';
import { groupFieldAt } from './regions.js';
import { footprintPointDistance, placeFootprint } from './layout.js';
import type { Plan } from './plan.js';

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

/**
 * Layer 0's fan input. [R] Flag rule: a corner of the negative-distance branch (inside some envelope) is flagged
 * (pinned) when it also lies inside a location's footprint (placed at the instance's position and heading) — the
 * location's own ground; its replacement height is the source height of
 * the location whose footprint it lies deepest inside. Corners inside an envelope but outside every footprint are not
 * flagged: their blended height (the negative-distance self term: weight 1000, no numerator) reaches the raster.
 * Footprints are smaller than envelopes (tundra: envelope = 1.5 × footprint radius), so both cases occur in the fixed
 * requests (test/pipeline-plan.test.ts asserts which corners take which branch).
 */
export function layer0Fans(plan: Plan): { fans: TriangleList; input: FanInput } {
  const m = plan.regions;
  const nc = m.corner_xy.length / 2;
  const corner_flag = new Uint8Array(nc);
  const corner_replacement = new Float64Array(nc);
  const footprints = plan.layout.instances.map((q) => placeFootprint(plan.world.resources[q.resource].footprint, q.x, q.y, q.heading));
  for (let k = 0; k < nc; k++) {
    if (plan.corners.corner_branch[k] !== 'blend-inside-envelope') continue; // a footprint lies inside its envelope
    let best = Infinity;
    plan.sources.forEach((s) => {
      const d = footprintPointDistance(footprints[s.location], m.corner_xy[2 * k], m.corner_xy[2 * k + 1]);
      if (d < 0 && d < best) {
        best = d;
        corner_replacement[k] = s.height;
        corner_flag[k] = 1;
      }
    });
  }
  const input: FanInput = { polygons: m.cell_corners, corner_xy: m.corner_xy, corner_height: plan.corners.corner_height, corner_flag, corner_replacement };
  return { fans: buildFans(input, undefined, plan.conventions?.fans), input };
}

export function layer100Fans(plan: Plan): { fans: TriangleList; cells: number } {
  const m = plan.regions;
  const P = plan.recipe.params;
  const g = plan.world.heightGroups;
  const relief = (c: number) => {
    const grp = m.parent_group[m.cell_parent[c]];
    return grp === g.second || grp === g.upland;
  };
  const nc = m.corner_xy.length / 2;
  const { xmin, ymin, size } = plan.request.domain;
  const h = new Float64Array(nc);
  for (let k = 0; k < nc; k++) {
    h[k] = P.relief.amplitude * groupFieldAt(P.regions.groupField, (m.corner_xy[2 * k] - xmin) / size, (m.corner_xy[2 * k + 1] - ymin) / size);
  }
  const input: FanInput = {
    polygons: m.cell_corners,
    corner_xy: m.corner_xy,
    corner_height: h,
    corner_flag: new Uint8Array(nc),
    corner_replacement: new Float64Array(nc),
  };
  let cells = 0;
  m.cell_corners.forEach((_, c) => {
    if (relief(c)) cells++;
  });
  return { fans: buildFans(input, relief, plan.conventions?.fans), cells };
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
