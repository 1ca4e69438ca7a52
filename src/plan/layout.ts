/**
 * Location layout, planar only: XY, heading, resource (article: "Recipe Selection and Pixel Calculation",
 * "Why Support Parameters Also Affect Early Placement").
 *
 * Inputs: the request (mission tags in order, duplicates kept; location categories; scene types), the world's
 * resources and placement stages, the stream.
 * Outputs: location instances (id, resource, XY, heading, tags, stage, parent instance, support shapes in map
 * space) and the per-tag narrowing report (initial candidates → selection pool).
 * Seed rules [D]:
 *  - mission candidates: resources associated with the tag ("Mission definitions and the mission associations of
 *    location resources constrain candidates, which are then checked and sampled"), narrowed by the category
 *    allow-list ("An empty candidate allow-list passes this check; a nonempty list must share at least one
 *    identifier") and the scene type ("Scene type … affect[s] resource and location selection"); then a weighted pick
 *    among the eligible only; [R] a positive weight is part of eligibility;
 *  - spacing ("uses both footprints, positions, and orientations, together with support flags, coefficients, and
 *    global parameters"): the required clearance depends on both footprints and the support coefficients; a candidate
 *    whose actual clearance is below it is rejected (required 10: 9 rejected, 10 and 11 accepted);
 *  - later stages (extraction, outpost, exploration, satellite) add the rest ("instances added during extraction,
 *    outpost, exploration, and satellite stages"). [R] The survey stage (category 8 only) is heightbench's, for
 *    teaching-512's rectangles.
 * [R] Actual clearance = the signed gap between the two footprints placed at their positions and headings (circles:
 *     centre distance − r_a − r_b; a rectangle turns with its instance's heading plus its local angle; gaps between
 *     shapes that overlap are negative), see footprintClearance; required = supportFactor·(coef_a·w_a + coef_b·w_b) +
 *     global, w = the widest support transition of each. A placement draws its heading first, then tries
 *     `maxAttempts` positions with it (each attempt's draws stay consumed); when all fail, the fallback halves the
 *     required clearance for another round.
 *     Extraction, outpost and exploration draw every resource of their pool once, in weighted order; satellites
 *     attach to a mission or outpost instance at a drawn distance and angle.
 */
import type { PrngStream } from './prng.js';
import { weightedPick } from './recipe.js';
import type { Footprint, LocationResource, SupportShape, WorldConfig } from '../world/world.js';
import type { PipelineRequest } from './request.js';
import { InputRangeError } from '../errors.js';
import { boxDistance } from '../core/geometry.js';

/** Category admission: an empty allow-list passes; otherwise it must share at least one id with the request. */
export function categoryAllows(allowList: readonly number[], requested: readonly number[]): boolean {
  return allowList.length === 0 || allowList.some((c) => requested.includes(c));
}

/** The spacing rule itself: accepted when the actual clearance reaches the required one. */
export function clearanceAccepts(actual: number, required: number): boolean {
  return actual >= required;
}

export interface ClearanceParams {
  supportFactor: number;
  global: number;
}

function widestTransition(r: LocationResource): number {
  return r.supports.reduce((m, s) => Math.max(m, s.transitionWidth), 0);
}

export function requiredClearance(a: LocationResource, b: LocationResource, p: ClearanceParams): number {
  return p.supportFactor * (a.supportCoefficient * widestTransition(a) + b.supportCoefficient * widestTransition(b)) + p.global;
}

/** A footprint placed in the map: circle (radius) or rectangle (half sizes, world angle in radians). */
export interface PlacedFootprint {
  kind: 'circle' | 'rect';
  x: number;
  y: number;
  radius: number;
  halfSize: [number, number];
  angle: number;
}

/** The footprint of a resource at (x, y) with `heading`: a rectangle turns with the heading plus its local angle. */
export function placeFootprint(f: Footprint, x: number, y: number, heading: number): PlacedFootprint {
  if (f.kind === 'circle') return { kind: 'circle', x, y, radius: f.radius, halfSize: [0, 0], angle: 0 };
  return { kind: 'rect', x, y, radius: 0, halfSize: [f.halfSize[0], f.halfSize[1]], angle: heading + (f.angleDeg * Math.PI) / 180 };
}

export { boxDistance };

/** Signed distance from a point to a placed footprint (negative inside). */
export function footprintPointDistance(f: PlacedFootprint, px: number, py: number): number {
  if (f.kind === 'circle') return Math.hypot(px - f.x, py - f.y) - f.radius;
  return boxDistance(f.x, f.y, f.angle, f.halfSize[0], f.halfSize[1], px, py);
}

function rectCorners(f: PlacedFootprint): [number, number][] {
  const c = Math.cos(f.angle);
  const sn = Math.sin(f.angle);
  const [hx, hy] = f.halfSize;
  return [
    [1, 1],
    [-1, 1],
    [-1, -1],
    [1, -1],
  ].map(([a, b]): [number, number] => [f.x + a * hx * c - b * hy * sn, f.y + a * hx * sn + b * hy * c]);
}

/**
 * Signed clearance between two placed footprints. Circle–circle: centre distance − r_a − r_b (in that order).
 * Circle–rectangle: the rectangle's distance to the centre − r. Rectangle–rectangle: when the separating-axis test
 * (the four edge normals) finds a gap, the smallest distance from a corner of one to the other (exact for convex
 * polygons); when they overlap, minus the smallest overlap over those axes.
 */
export function footprintClearance(a: PlacedFootprint, b: PlacedFootprint): number {
  if (a.kind === 'circle' && b.kind === 'circle') return Math.hypot(b.x - a.x, b.y - a.y) - a.radius - b.radius;
  if (a.kind === 'circle') return footprintPointDistance(b, a.x, a.y) - a.radius;
  if (b.kind === 'circle') return footprintPointDistance(a, b.x, b.y) - b.radius;
  let overlap = Infinity;
  for (const f of [a, b]) {
    for (const ang of [f.angle, f.angle + Math.PI / 2]) {
      const ux = Math.cos(ang);
      const uy = Math.sin(ang);
      const extent = (g: PlacedFootprint) =>
        g.halfSize[0] * Math.abs(Math.cos(g.angle) * ux + Math.sin(g.angle) * uy) + g.halfSize[1] * Math.abs(-Math.sin(g.angle) * ux + Math.cos(g.angle) * uy);
      const o = extent(a) + extent(b) - Math.abs((b.x - a.x) * ux + (b.y - a.y) * uy);
      overlap = Math.min(overlap, o);
    }
  }
  if (overlap > 0) return -overlap;
  let d = Infinity;
  for (const [px, py] of rectCorners(a)) d = Math.min(d, footprintPointDistance(b, px, py));
  for (const [px, py] of rectCorners(b)) d = Math.min(d, footprintPointDistance(a, px, py));
  return d;
}

export interface WorldSupport {
  kind: 'circle' | 'rect';
  x: number;
  y: number;
  radius: number;
  halfSize: [number, number];
  /** Rectangle orientation in the world, radians. */
  angle: number;
  strength: number;
  transitionWidth: number;
}

export interface LocationInstance {
  id: number;
  resource: number;
  resourceId: string;
  stage: string;
  x: number;
  y: number;
  /** Heading, radians; local +X turns to (cos, sin). */
  heading: number;
  tags: number[];
  parent: number;
  supports: WorldSupport[];
  /** True when the placement needed the relaxed-clearance fallback. */
  relaxed: boolean;
}

export interface NarrowingReport {
  tag: number;
  initial: number;
  pool: number;
  picked: string;
}

export interface Layout {
  instances: LocationInstance[];
  narrowing: NarrowingReport[];
  counts: { draws: number; distinctResources: number; circles: number; rectangles: number; attempts: number; relaxed: number };
}

/** Local shape → map space: rotate the local offset by the heading, then translate to the instance (offsets kept). */
export function supportToWorld(s: SupportShape, x: number, y: number, heading: number): WorldSupport {
  const c = Math.cos(heading);
  const sn = Math.sin(heading);
  return {
    kind: s.kind,
    x: x + c * s.offset[0] - sn * s.offset[1],
    y: y + sn * s.offset[0] + c * s.offset[1],
    radius: s.radius,
    halfSize: [s.halfSize[0], s.halfSize[1]],
    angle: heading + (s.angleDeg * Math.PI) / 180,
    strength: s.strength,
    transitionWidth: s.transitionWidth,
  };
}

export function buildLayout(world: WorldConfig, req: PipelineRequest, stream: PrngStream): Layout {
  const res = world.resources;
  const P = world.placement;
  const instances: LocationInstance[] = [];
  const narrowing: NarrowingReport[] = [];
  let attempts = 0;
  let relaxedCount = 0;
  const sceneOk = (r: LocationResource) => r.sceneTypes.some((t) => req.sceneTypes.includes(t));

  const fits = (ri: number, here: PlacedFootprint, scale: number, ignore: number): boolean => {
    for (const other of instances) {
      if (other.id === ignore) continue;
      const actual = footprintClearance(here, placeFootprint(res[other.resource].footprint, other.x, other.y, other.heading));
      if (!clearanceAccepts(actual, scale * requiredClearance(res[ri], res[other.resource], P.clearance))) return false;
    }
    return true;
  };
  const place = (ri: number, stage: string, tags: number[], propose: () => [number, number], parent = -1): void => {
    let chosen: [number, number] | null = null;
    let relaxed = false;
    // The heading comes first: a rectangular footprint's clearance depends on it.
    const heading = 2 * Math.PI * stream.uniform();
    for (const scale of [1, 0.5]) {
      for (let a = 0; a < P.maxAttempts && !chosen; a++) {
        attempts++;
        const [x, y] = propose();
        if (fits(ri, placeFootprint(res[ri].footprint, x, y, heading), scale, parent)) chosen = [x, y];
      }
      if (chosen) break;
      relaxed = true;
    }
    if (!chosen) throw new InputRangeError(`layout: no position for ${res[ri].id} (${stage}) after ${2 * P.maxAttempts} attempts`);
    if (relaxed) relaxedCount++;
    const [x, y] = chosen;
    instances.push({
      id: instances.length,
      resource: ri,
      resourceId: res[ri].id,
      stage,
      x,
      y,
      heading,
      tags,
      parent,
      supports: res[ri].supports.map((s) => supportToWorld(s, x, y, heading)),
      relaxed,
    });
  };
  const ringProposal = (ring: [number, number]) => (): [number, number] => {
    const r = ring[0] + (ring[1] - ring[0]) * stream.uniform();
    const t = 2 * Math.PI * stream.uniform();
    const cx = req.domain.xmin + req.domain.size / 2;
    const cy = req.domain.ymin + req.domain.size / 2;
    return [cx + r * Math.cos(t), cy + r * Math.sin(t)];
  };

  for (const st of P.stages) {
    stream.stage(`layout-${st.name}`);
    if (st.name === 'mission') {
      for (const tag of req.missionTags) {
        const associated = res.map((r, i) => ({ r, i })).filter(({ r }) => r.missions.includes(tag));
        const cands = associated.map(({ r }) => ({ weight: r.weight, eligible: categoryAllows(r.categories, req.locationCategories) && sceneOk(r) }));
        const pool = cands.filter((c) => c.eligible && c.weight > 0).length;
        const k = weightedPick(stream, cands);
        if (k < 0) throw new InputRangeError(`layout: mission tag ${tag} has no eligible candidate (${associated.length} associated)`);
        const ri = associated[k].i;
        narrowing.push({ tag, initial: associated.length, pool, picked: res[ri].id });
        place(ri, 'mission', [tag], ringProposal(st.ring ?? [100, 500]));
      }
    } else if (st.attachTo.length > 0) {
      const parents = instances.filter((q) => st.attachTo.includes(q.stage)).map((q) => q.id);
      const pool = res.map((r, i) => ({ r, i })).filter(({ r }) => r.stage === st.name && sceneOk(r));
      const cands = pool.map(({ r }) => ({ weight: r.weight, eligible: categoryAllows(r.categories, req.locationCategories) }));
      for (let n = 0; n < (st.count ?? 0); n++) {
        const parent = parents[stream.below(parents.length)];
        const k = weightedPick(stream, cands);
        if (k < 0) throw new InputRangeError(`layout: stage ${st.name} has no eligible resource`);
        const [d0, d1] = st.distance ?? [40, 90];
        const q = instances[parent];
        place(
          pool[k].i,
          st.name,
          [],
          () => {
            const d = d0 + (d1 - d0) * stream.uniform();
            const t = 2 * Math.PI * stream.uniform();
            return [q.x + d * Math.cos(t), q.y + d * Math.sin(t)];
          },
          parent,
        );
      }
    } else {
      const pool = res.map((r, i) => ({ r, i })).filter(({ r }) => r.stage === st.name && sceneOk(r) && categoryAllows(r.categories, req.locationCategories));
      const left = pool.map(({ r }) => ({ weight: r.weight, eligible: true }));
      const n = Math.min(st.count ?? pool.length, pool.length);
      for (let c = 0; c < n; c++) {
        const k = weightedPick(stream, left);
        if (k < 0) break;
        left[k] = { ...left[k], eligible: false }; // without replacement within the stage
        place(pool[k].i, st.name, [], ringProposal(st.ring ?? [50, 600]));
      }
    }
  }
  const circles = instances.reduce((s, q) => s + q.supports.filter((x) => x.kind === 'circle').length, 0);
  const rectangles = instances.reduce((s, q) => s + q.supports.filter((x) => x.kind === 'rect').length, 0);
  return {
    instances,
    narrowing,
    counts: {
      draws: instances.length,
      distinctResources: new Set(instances.map((q) => q.resource)).size,
      circles,
      rectangles,
      attempts,
      relaxed: relaxedCount,
    },
  };
}
