/**
 * Location support (article: "Location Support Establishes Targets for Local Ground" through "Transition Width and
 * Height Strength Are Different Parameters").
 *
 * Inputs: the base field, location instances with their support shapes in map space, resources, support parameters.
 * Outputs: per location: domain envelopes (hmin, hmax), reference height, target; the field after support.
 * Rules [D]:
 *  - circles and rectangles move with their instance, local offsets kept ("Local circles or rectangles transform into
 *    map space with their location instances"; "a rectangle also depends on orientation") — done at layout
 *    (supportToWorld);
 *  - domain queries read the base field over the domain ("height queries and upper/lower envelopes"), not a centre
 *    sample;
 *  - parent–child weighting: (self + Σ w·h) / (1 + Σ w) over children that meet the conditions (the article's formula);
 *  - configured offsets and a region height floor follow ("Region height overrides, configured offsets … may follow";
 *    "A region height floor can limit a result");
 *  - extent: t = min(log(1 + a·R), 1); relief = min((max(hmax, T) − hmin)/b, 1); k = (1 − t) + t·relief multiplies the
 *    outward transition width ("k multiplies an outward transition-width term"); strength comes from shape ×
 *    location-wrapper coefficients ("a combination of support-shape and location-wrapper coefficients"), apart from
 *    extent;
 *  - writes raise or lower ("It can raise or lower the surface").
 * [R] Choices, labelled: the self reference height is the mid-envelope (hmin + hmax)/2 of the location's domain;
 *     children are satellites within 150 m of their parent with a positive parent weight (their resource's
 *     parentWeight); offsets are per placement stage; the region floor is per height group. Targets are computed from
 *     the base field for every location first, then shapes are applied in draw order (instance order, shape order):
 *     h ← h + s·w·(T − h), w = 1 inside the shape and 1 − smoothstep(d / (k·width)) outside it (d = distance to the
 *     shape), s = shape strength × wrapper strength × recipe strength, clamped to 1. In f32 mode the distance d, d/width,
 *     the smoothstep and the write are rounded to float32 step by step (the shape distance itself is evaluated in
 *     float64 from the pixel centre, then rounded once).
 */
import type { Field, Precision } from '../core/precision.js';
import { DEFAULT_CONVENTIONS } from '../conventions/index.js';
import { shapeDistance, shapeRadius, type ShapeGeometry } from '../core/geometry.js';
import type { SupportLocation } from '../drawlist/types.js';
import { type DrawGrid } from '../drawlist/placement.js';
import { pixelRange } from '../drawlist/placement.js';

/** k = (1 − t) + t·relief. */
export function supportExtentFactor(t: number, relief: number): number {
  return 1 - t + t * relief;
}

/** The whole extent calculation from radius, envelopes, target and the coefficients a, b. */
export function supportExtent(R: number, hmin: number, hmax: number, T: number, a: number, b: number): { t: number; relief: number; k: number } {
  const t = Math.min(Math.log(1 + a * R), 1);
  const relief = Math.min((Math.max(hmax, T) - hmin) / b, 1);
  return { t, relief, k: supportExtentFactor(t, relief) };
}

/** (self + Σ w·h) / (1 + Σ w) over the participating children. */
export function parentChildReference(self: number, children: readonly { height: number; weight: number }[]): number {
  let n = self;
  let d = 1;
  for (const c of children) {
    n += c.weight * c.height;
    d += c.weight;
  }
  return n / d;
}

export interface SupportTarget {
  location: number;
  hmin: number;
  hmax: number;
  reference: number;
  /** After parent–child weighting. */
  weighted: number;
  target: number;
  children: number[];
  floorApplied: boolean;
  shapes: { t: number; relief: number; k: number; width: number; strength: number }[];
}

/** Pixel centre offset (conventions grid.pixelCentre); the pipeline passes the one in force. */
const PC = DEFAULT_CONVENTIONS.grid.pixelCentre;

/** The pixels (i0, i1, j0, j1; empty when i0 > i1 or j0 > j1) whose centres lie within `reach` of a shape's centre box. */
export function shapePixelBox(s: ShapeGeometry, reach: number, g: DrawGrid, pc: number): [number, number, number, number] {
  const px = g.size / g.n;
  const [i0, i1] = pixelRange(s.x - reach, s.x + reach, g.xmin, px, g.n, pc);
  const [j0, j1] = pixelRange(s.y - reach, s.y + reach, g.ymin, px, g.n, pc);
  return [i0, i1, j0, j1];
}

export function domainEnvelope(field: Field, g: DrawGrid, shapes: readonly ShapeGeometry[], pc: number = PC): { hmin: number; hmax: number } {
  const px = g.size / g.n;
  let hmin = Infinity;
  let hmax = -Infinity;
  for (const s of shapes) {
    const [i0, i1, j0, j1] = shapePixelBox(s, shapeRadius(s), g, pc);
    for (let j = j0; j <= j1; j++) {
      const y = g.ymin + (j + pc) * px;
      for (let i = i0; i <= i1; i++) {
        if (shapeDistance(s, g.xmin + (i + pc) * px, y) > 0) continue;
        const h = field[j * g.n + i];
        if (h < hmin) hmin = h;
        if (h > hmax) hmax = h;
      }
    }
  }
  if (!Number.isFinite(hmin)) {
    // A domain smaller than a pixel: fall back to the nearest pixel of its first shape.
    const s = shapes[0];
    const i = Math.min(g.n - 1, Math.max(0, Math.floor((s.x - g.xmin) / px)));
    const j = Math.min(g.n - 1, Math.max(0, Math.floor((s.y - g.ymin) / px)));
    hmin = hmax = field[j * g.n + i];
  }
  return { hmin, hmax };
}

/**
 * Every location's support target from the base field (all targets first, before any shape is applied): domain
 * envelope, mid-envelope reference, parent–child weighting, offset, floor, and each shape's extent.
 */
export function supportTargetsFor(base: Field, g: DrawGrid, locs: readonly SupportLocation[], a: number, b: number, pc: number = PC): SupportTarget[] {
  const env = locs.map((l) => domainEnvelope(base, g, l.shapes, pc));
  const refs = env.map((e) => (e.hmin + e.hmax) / 2);
  return locs.map((l, idx) => {
    const weighted = parentChildReference(
      refs[idx],
      l.children.map((c) => ({ height: refs[c.location], weight: c.weight })),
    );
    let target = weighted + l.offset;
    const floorApplied = l.floor !== null && target < l.floor;
    if (floorApplied) target = l.floor!;
    const shapes = l.shapes.map((s) => {
      const e = supportExtent(s.boundRadius, env[idx].hmin, env[idx].hmax, target, a, b);
      return { ...e, width: s.transitionWidth * e.k, strength: s.strength };
    });
    return {
      location: idx,
      hmin: env[idx].hmin,
      hmax: env[idx].hmax,
      reference: refs[idx],
      weighted,
      target,
      children: l.children.map((c) => c.location),
      floorApplied,
      shapes,
    };
  });
}

/** Applies every shape in draw order to `field` (in place). Returns the number of pixel writes. */
export function applySupport(
  field: Field,
  g: DrawGrid,
  instances: readonly { readonly supports: readonly ShapeGeometry[] }[],
  targets: readonly Pick<SupportTarget, 'target' | 'shapes'>[],
  precision: Precision,
  pc: number = PC,
): number {
  const R = precision === 'f32' ? Math.fround : (x: number) => x;
  const px = g.size / g.n;
  let writes = 0;
  instances.forEach((q, idx) => {
    const T = R(targets[idx].target);
    q.supports.forEach((s, si) => {
      const { width, strength } = targets[idx].shapes[si];
      const W = R(width);
      const [i0, i1, j0, j1] = shapePixelBox(s, shapeRadius(s) + width, g, pc);
      for (let j = j0; j <= j1; j++) {
        const y = g.ymin + (j + pc) * px;
        for (let i = i0; i <= i1; i++) {
          const d = R(shapeDistance(s, g.xmin + (i + pc) * px, y));
          let w: number;
          if (d <= 0) w = 1;
          else if (d < W) {
            const t = R(d / W);
            w = R(1 - R(R(t * t) * R(3 - R(2 * t))));
          } else continue;
          const k = j * g.n + i;
          const h = field[k];
          field[k] = R(h + R(R(strength * w) * R(T - h)));
          writes++;
        }
      }
    });
  });
  return writes;
}
