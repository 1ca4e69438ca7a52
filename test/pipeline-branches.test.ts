// Every branch a fixed request should exercise: rectangular footprints in the spacing check (positions and
// orientations), rectangular supports, and the two fates of a corner inside a location envelope (pinned by the flag
// rule, or blended with the negative-distance self term) reaching the raster.
import { describe, expect, it } from 'vitest';
import { loadRequest, requiredClearance, sourceWeight } from '../src/api/notebook.js';
import { planRequest } from '../src/pipeline/inputs.js';
import { footprintClearance, layer0Fans, placeFootprint, shapeDistance, type PlacedFootprint } from '../src/api/pipeline.js';
import { applySupport } from '../src/cpu/support.js';
import { computeSupportTargets } from '../src/pipeline/support-targets.js';
import { cellAt } from '../src/plan/cells.js';
import type { Plan } from '../src/plan/plan.js';

const circle = (x: number, y: number, radius: number): PlacedFootprint => ({ kind: 'circle', x, y, radius, halfSize: [0, 0], angle: 0 });
const rect = (x: number, y: number, hx: number, hy: number, deg: number): PlacedFootprint => ({
  kind: 'rect',
  x,
  y,
  radius: 0,
  halfSize: [hx, hy],
  angle: (deg * Math.PI) / 180,
});

describe('footprint clearance uses shapes, positions and orientations', () => {
  it('circles: centre distance minus both radii', () => {
    expect(footprintClearance(circle(0, 0, 3), circle(6, 8, 2))).toBe(5);
  });
  it('a rectangle turns with its heading: the same circle is 2 m clear of a lying 20 × 4 m rectangle, inside a standing one', () => {
    expect(footprintClearance(rect(0, 0, 10, 2, 0), circle(0, 5, 1))).toBeCloseTo(2, 12); // 5 − 2 − 1
    expect(footprintClearance(rect(0, 0, 10, 2, 90), circle(0, 5, 1))).toBeCloseTo(-3, 12); // inside by 2, minus 1
  });
  it('rectangle pairs: parallel gap, turned gap, corner against a turned square, overlap', () => {
    expect(footprintClearance(rect(0, 0, 10, 2, 0), rect(0, 10, 10, 2, 0))).toBeCloseTo(6, 12);
    expect(footprintClearance(rect(0, 0, 10, 2, 0), rect(0, 20, 10, 2, 90))).toBeCloseTo(8, 12);
    // Square [−1, 1]² against a square of half size 1 turned 45° about (5, 5): corner (1, 1) to the diamond
    // |x − 5| + |y − 5| ≤ √2 is (8 − √2)/√2 = 4√2 − 1 (the axis-aligned pair would be 3√2 apart).
    expect(footprintClearance(rect(0, 0, 1, 1, 0), rect(5, 5, 1, 1, 45))).toBeCloseTo(4 * Math.SQRT2 - 1, 12);
    expect(footprintClearance(rect(0, 0, 1, 1, 0), rect(5, 5, 1, 1, 0))).toBeCloseTo(3 * Math.SQRT2, 12);
    expect(footprintClearance(rect(0, 0, 2, 2, 0), rect(3, 0, 2, 2, 0))).toBeCloseTo(-1, 12);
  });
  it('placeFootprint turns a rectangle by heading + its local angle and leaves a circle as it is', () => {
    const f = placeFootprint({ kind: 'rect', halfSize: [16, 12], angleDeg: 30 }, 5, 6, Math.PI / 2);
    expect(f.angle).toBeCloseTo((120 * Math.PI) / 180, 14);
    expect(placeFootprint({ kind: 'circle', radius: 7 }, 5, 6, 1)).toMatchObject({ kind: 'circle', x: 5, y: 6, radius: 7 });
  });
});

/** Corner ids of the negative-distance branch, split by whether a footprint contains them (computed here directly). */
function envelopeCorners(plan: Plan): { inFootprint: number[]; selfTerm: number[] } {
  const m = plan.regions;
  const inFootprint: number[] = [];
  const selfTerm: number[] = [];
  plan.corners.corner_branch.forEach((b, k) => {
    if (b !== 'blend-inside-envelope') return;
    const x = m.corner_xy[2 * k];
    const y = m.corner_xy[2 * k + 1];
    const inside = plan.layout.instances.some((q) => {
      const f = plan.world.resources[q.resource].footprint;
      if (f.kind === 'circle') return Math.hypot(x - q.x, y - q.y) < f.radius;
      // Rectangle: local coordinates after turning back by heading + local angle.
      const a = q.heading + (f.angleDeg * Math.PI) / 180;
      const lx = Math.cos(a) * (x - q.x) + Math.sin(a) * (y - q.y);
      const ly = -Math.sin(a) * (x - q.x) + Math.cos(a) * (y - q.y);
      return Math.abs(lx) < f.halfSize[0] && Math.abs(ly) < f.halfSize[1];
    });
    (inside ? inFootprint : selfTerm).push(k);
  });
  return { inFootprint, selfTerm };
}

describe.each(['tundra-r19', 'teaching-512'])('corners inside an envelope in %s: both branches reach the raster', (id) => {
  const plan = planRequest(loadRequest(id));
  const { input, fans } = layer0Fans(plan);
  const split = envelopeCorners(plan);
  it('corners inside a footprint are flagged; the others keep the negative-distance self term; both occur', () => {
    expect(split.inFootprint.length).toBeGreaterThan(0);
    expect(split.selfTerm.length).toBeGreaterThan(0);
    const flagged = Array.from(input.corner_flag.keys()).filter((k) => input.corner_flag[k] === 1);
    expect(flagged).toEqual(split.inFootprint);
  });
  it('a self-term corner is Σw·h / (Σw + 1000): no numerator, so it lies below the sources’ own blend', () => {
    for (const k of split.selfTerm) {
      let n = 0;
      let d = 0;
      for (const s of plan.sources) {
        const w = sourceWeight(Math.hypot(plan.regions.corner_xy[2 * k] - s.x, plan.regions.corner_xy[2 * k + 1] - s.y) - s.envelope);
        n += w * s.height;
        d += w;
      }
      expect(plan.corners.corner_height[k]).toBeCloseTo(n / (d + 1000), 12);
      if (n > 0) expect(plan.corners.corner_height[k]).toBeLessThan(n / d);
    }
  });
  it('layer 0 draws each self-term corner at its blended height and each flagged corner at its replacement', () => {
    const seen = new Map<number, number[]>();
    const at = new Map<string, number>();
    for (let k = 0; k < plan.regions.corner_xy.length / 2; k++) at.set(`${plan.regions.corner_xy[2 * k]},${plan.regions.corner_xy[2 * k + 1]}`, k);
    for (let v = 0; v < fans.count * 3; v++) {
      const k = at.get(`${fans.xyh[3 * v]},${fans.xyh[3 * v + 1]}`);
      if (k === undefined) continue; // a fan centre
      seen.set(k, [...(seen.get(k) ?? []), fans.xyh[3 * v + 2]]);
    }
    for (const k of split.selfTerm) for (const h of seen.get(k) ?? []) expect(h).toBe(plan.corners.corner_height[k]);
    for (const k of split.inFootprint) for (const h of seen.get(k) ?? []) expect(h).toBe(input.corner_replacement[k]);
    expect(split.selfTerm.some((k) => (seen.get(k) ?? []).length > 0)).toBe(true);
  });
});

describe('teaching-512: rotated rectangles in spacing and support', () => {
  const plan = planRequest(loadRequest('teaching-512'));
  const world = plan.world;
  const inst = plan.layout.instances;
  const rects = inst.filter((q) => q.supports.some((s) => s.kind === 'rect'));
  it('has rectangular supports and footprints (tundra-r19 has none: its categories do not admit them)', () => {
    expect(plan.layout.counts.rectangles).toBeGreaterThanOrEqual(4);
    expect(rects.length).toBeGreaterThanOrEqual(4);
    expect(inst.filter((q) => world.resources[q.resource].footprint.kind === 'rect').length).toBeGreaterThanOrEqual(2);
    const r19 = planRequest(loadRequest('tundra-r19'));
    expect(r19.layout.counts.rectangles).toBe(0);
  });
  it('rectangles turn with their instance: world angle = heading + local angle', () => {
    for (const q of rects) {
      const local = world.resources[q.resource].supports;
      q.supports.forEach((s, k) => {
        if (s.kind === 'rect') expect(s.angle).toBeCloseTo(q.heading + (local[k].angleDeg * Math.PI) / 180, 12);
      });
    }
  });
  it('every pair of placed footprints keeps the required clearance at its headings (parent–satellite pairs excepted)', () => {
    let rectPairs = 0;
    for (const a of inst) {
      for (const b of inst) {
        if (b.id >= a.id || a.parent === b.id) continue;
        const fa = placeFootprint(world.resources[a.resource].footprint, a.x, a.y, a.heading);
        const fb = placeFootprint(world.resources[b.resource].footprint, b.x, b.y, b.heading);
        const need = (a.relaxed ? 0.5 : 1) * requiredClearance(world.resources[a.resource], world.resources[b.resource], world.placement.clearance);
        expect(footprintClearance(fa, fb)).toBeGreaterThanOrEqual(need - 1e-9);
        if (fa.kind === 'rect' || fb.kind === 'rect') rectPairs++;
      }
    }
    expect(rectPairs).toBeGreaterThan(0);
  });
  it('support writes the target inside a rotated rectangle and nothing beyond its transition; turning it moves the writes', () => {
    const n = 512;
    const g = { xmin: -1024, ymin: -1024, size: 2048, n };
    const q = rects[0];
    const groupOf = (x: number, y: number) => plan.regions.parent_group[plan.regions.cell_parent[cellAt(plan.regions, x, y)]];
    const flat = new Float64Array(n * n).fill(10); // a flat base 10 m high: the target is 10 m plus the stage offset
    const targets = computeSupportTargets(flat, g, [q], world, plan.recipe.params.support, groupOf);
    const field = new Float64Array(n * n);
    const writes = applySupport(field, g, [q], targets, 'f64');
    expect(writes).toBeGreaterThan(0);
    expect(targets[0].target).not.toBe(0);
    const px = 2048 / n;
    let inside = 0;
    q.supports.forEach((s, si) => {
      if (s.kind !== 'rect') return;
      const { width } = targets[0].shapes[si];
      for (let j = 0; j < n; j++) {
        for (let i = 0; i < n; i++) {
          const d = shapeDistance(s, -1024 + (i + 0.5) * px, -1024 + (j + 0.5) * px);
          const others = q.supports
            .filter((t) => t !== s)
            .some((t) => shapeDistance(t, -1024 + (i + 0.5) * px, -1024 + (j + 0.5) * px) < targets[0].shapes[q.supports.indexOf(t)].width);
          if (others) continue;
          if (d <= 0) {
            inside++;
            expect(field[j * n + i]).toBeCloseTo(targets[0].shapes[si].strength * targets[0].target, 9);
          } else if (d >= width) expect(field[j * n + i]).toBe(0);
        }
      }
    });
    expect(inside).toBeGreaterThan(0);
    const turned = { ...q, supports: q.supports.map((s) => (s.kind === 'rect' ? { ...s, angle: s.angle + Math.PI / 2 } : s)) };
    const field2 = new Float64Array(n * n);
    applySupport(field2, g, [turned], targets, 'f64');
    let moved = 0;
    for (let k = 0; k < n * n; k++) if (field2[k] !== field[k]) moved++;
    expect(moved).toBeGreaterThan(0);
  });
});
