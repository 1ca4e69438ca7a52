/**
 * The support section of the draw list: what the support stage knows of each location before any height is read
 * (article: "Location Support Establishes Targets for Local Ground"; the rules and [R] choices are stated in
 * src/cpu/support.ts, which computes the targets from the base field and applies the shapes).
 * Inputs: the layout's location instances, the world's resources, the recipe's support parameters, the region map's
 * height group at a point. Output: one SupportLocation per instance (shapes with strengths, children, offset, floor).
 */
import { shapeRadius } from '../core/geometry.js';
import type { SupportLocation } from '../drawlist/types.js';
import type { WorldConfig } from '../world/world.js';
import type { LocationInstance } from './layout.js';

export interface SupportParams {
  a: number;
  b: number;
  strength: number;
  stageOffsets: Record<string, number>;
  regionFloor: Record<string, number>;
}

/**
 * What the support stage knows of each location before any height is read — the draw list's support section: shapes
 * (with their strengths, shape × wrapper × recipe, clamped to 1), participating children and their weights, the
 * stage offset, the region floor. `normalize` is applied to every number written (the draw list's −0 → 0).
 */
export function supportLocationsOf(
  instances: readonly LocationInstance[],
  world: WorldConfig,
  p: SupportParams,
  groupOf: (x: number, y: number) => number,
  normalize: (x: number) => number = (x) => x,
): SupportLocation[] {
  const z = normalize;
  const groupNames = ['zero', 'first', 'second', 'upland'];
  return instances.map((q, idx) => {
    const res = world.resources[q.resource];
    const children = instances.filter((c) => c.parent === q.id && Math.hypot(c.x - q.x, c.y - q.y) <= 150 && world.resources[c.resource].parentWeight > 0);
    const floor = p.regionFloor[groupNames[groupOf(q.x, q.y)] ?? 'upland'];
    return {
      location: idx,
      resource: q.resourceId,
      stage: q.stage,
      x: z(q.x),
      y: z(q.y),
      shapes: q.supports.map((s) => ({
        kind: s.kind,
        x: z(s.x),
        y: z(s.y),
        radius: z(s.radius),
        halfSize: [z(s.halfSize[0]), z(s.halfSize[1])] as [number, number],
        angle: z(s.angle),
        boundRadius: z(shapeRadius(s)),
        transitionWidth: z(s.transitionWidth),
        strength: z(Math.min(1, s.strength * res.wrapperStrength * p.strength)),
      })),
      children: children.map((c) => ({ location: c.id, weight: world.resources[c.resource].parentWeight })),
      offset: z(p.stageOffsets[q.stage] ?? 0),
      floor: floor === undefined || !Number.isFinite(floor) ? null : z(floor),
    };
  });
}
