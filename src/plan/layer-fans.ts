/**
 * The base height stage's triangles: two ADD layers of fans, which the executors rasterize into one float field
 * before the multilevel smoothing.
 *
 * Inputs: the plan (cells, corners with heights and branches, sources, groups).
 * Outputs: layer 0's and layer 100's triangle lists (the draw list's triangle layers).
 * Layer 0 [D]: one triangle fan per cell, edges in generator order ("Region polygons can be organized into triangle
 *   fans"; "Preserve the generator's edge order"); layers 0 and 100 ADD into one float target ("two layers accumulated
 *   with ADD blending"; "combined layer 0 and layer 100"). [R] Cells are drawn in cell order.
 * Layer 100 [R]: broad relief over parent regions of the second and upland groups — fans over their cells with corner
 *   heights relief.amplitude × the recipe's coordinate field at the corner. It writes only within those cells.
 */
import { buildFans, type FanInput, type TriangleList } from './fans.js';
import { groupFieldAt } from './cells.js';
import { footprintPointDistance, placeFootprint } from './layout.js';
import type { Plan } from './plan.js';

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
