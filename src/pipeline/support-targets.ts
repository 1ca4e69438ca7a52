/**
 * Support targets of location instances straight from a base field: the planner's support section
 * (plan/support-locations.ts) evaluated by the CPU executor's target rule (cpu/support.ts) — what a run computes for the
 * support stage, as one call for tests, notebooks and the API.
 */
import type { Field } from '../core/precision.js';
import type { DrawGrid } from '../drawlist/placement.js';
import type { WorldConfig } from '../world/world.js';
import type { LocationInstance } from '../plan/layout.js';
import { supportLocationsOf, type SupportParams } from '../plan/support-locations.js';
import { supportTargetsFor, type SupportTarget } from '../cpu/support.js';

/** Targets of `instances` from the base field: supportTargetsFor over supportLocationsOf (what a run computes). */
export function computeSupportTargets(
  base: Field,
  g: DrawGrid,
  instances: readonly LocationInstance[],
  world: WorldConfig,
  p: SupportParams,
  groupOf: (x: number, y: number) => number,
): SupportTarget[] {
  return supportTargetsFor(base, g, supportLocationsOf(instances, world, p, groupOf), p.a, p.b);
}
