import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  blendCorner,
  clearanceAccepts,
  loadRequest,
  requiredClearance,
  segmentDistance,
  selectionProbabilities,
  selfWeight,
  sourceHeight,
  sourceWeight,
} from '../src/api/notebook.js';
import { planRequest, loadWorld } from '../src/pipeline/inputs.js';
import { categoryAllows } from '../src/plan/layout.js';
import { cellAt, groupAt, nearestCentreCell } from '../src/plan/cells.js';
import { HEIGHT_SCALE, nearestCentreThenEdge, type Point } from '../src/plan/sources.js';
import { checkRegionInvariants, PrngStream } from '../src/api/pipeline.js';
import { buildRegions } from '../src/plan/cells.js';
import { buildLayout } from '../src/plan/layout.js';
import { selectRecipe } from '../src/plan/plan.js';
import { parseWorld } from '../src/world/world.js';
import { cli, tempDir } from './helpers.js';

describe('source heights (article: S, regions A and B)', () => {
  const S: Point = [0, 0];
  it('measures clamped point-to-segment distances: 104 m, ≈ 111.4271 m, and the segment end (5, not 3)', () => {
    expect(segmentDistance(S, [104, -40], [104, 40])).toBe(104);
    expect(segmentDistance(S, [104, 40], [184, 40])).toBeCloseTo(111.4271, 4);
    expect(segmentDistance([14, 3], [0, 0], [10, 0])).toBe(5);
    expect(segmentDistance([3, 4], [7, 7], [7, 7])).toBe(5); // a zero-length edge is its point, never NaN
  });
  it('selects the nearest centre (A at 144 m, not B at 300 m) and then only that region’s edges', () => {
    const rect = (x0: number, x1: number, y0: number, y1: number): Point[] => [
      [x0, y0],
      [x1, y0],
      [x1, y1],
      [x0, y1],
    ];
    const polys = [rect(104, 184, -40, 40), rect(-20, 20, 20, 580)];
    const view = {
      cellCentre: (c: number): Point => (c === 0 ? [144, 0] : [0, 300]),
      *cellEdges(c: number): Iterable<[Point, Point]> {
        const p = polys[c];
        for (let k = 0; k < 4; k++) yield [p[k], p[(k + 1) % 4]];
      },
    };
    const r = nearestCentreThenEdge(view as never, [0, 1], S);
    expect(r.cell).toBe(0);
    expect(r.distance).toBe(104);
  });
  it('ordinary branch: 13.671875 m and its one-parameter variants', () => {
    const base = { margin: 4, transitionWidth: 256, amplitude: 35 };
    expect(sourceHeight(104, base)).toBe(13.671875);
    expect(sourceHeight(104, { ...base, margin: 20 })).toBe(11.484375);
    expect(sourceHeight(104, { ...base, transitionWidth: 512 })).toBe(6.8359375);
    expect(sourceHeight(104, { ...base, amplitude: 70 })).toBe(27.34375);
    expect(sourceHeight(20, base)).toBe(2.1875); // B's edge, the wrong region
    expect([0, 4, 104, 260, 400].map((d) => sourceHeight(d, base))).toEqual([0, 0, 13.671875, 35, 35]);
  });
  it('keeps normalized heights apart from metres (scale 512)', () => {
    expect(35 / HEIGHT_SCALE).toBe(0.068359375);
    expect(sourceHeight(104, { margin: 4, transitionWidth: 256, amplitude: 35 / HEIGHT_SCALE })).toBe(0.026702880859375);
  });
});

describe('corner weights and blending (article: C₁, C₂)', () => {
  it('sixth-power attenuation at 128, 256, 384 m', () => {
    expect(sourceWeight(128)).toBe(0.177978515625);
    expect(sourceWeight(256)).toBe(0.015625);
    expect(sourceWeight(384)).toBe(0.000244140625);
    expect(sourceWeight(512)).toBe(0);
  });
  it('near enhancement strictly below 96 m: ×10 at 0, ×5 at 48, none at 96 (the discontinuity is kept)', () => {
    expect(sourceWeight(0)).toBe(10);
    expect(sourceWeight(48)).toBe((1 - 48 / 512) ** 6 * 5);
    expect(sourceWeight(96)).toBe((1 - 96 / 512) ** 6);
    expect(sourceWeight(95.999)).toBeLessThan(0.01);
    expect(sourceWeight(96) - sourceWeight(95.999)).toBeGreaterThan(0.28);
    expect(sourceWeight(-5)).toBeCloseTo(1000 * (1 + 5 / 96) * 10, 9); // the strong negative branch
  });
  it('self weight: 1000 inside, (1 − d/96)·10 near, 1 beyond', () => {
    expect([selfWeight(-0.1), selfWeight(0), selfWeight(48), selfWeight(96), selfWeight(300)]).toEqual([1000, 10, 5, 1, 1]);
  });
  it('C₁ ≈ 6.227612 m, C₂ ≈ 5.132180 m, C₁ without the zero source ≈ 6.310217 m', () => {
    const S = 13.671875;
    const c1 = blendCorner(
      [
        { height: S, weight: sourceWeight(128) },
        { height: 0, weight: sourceWeight(256) },
      ],
      { height: 5, weight: 1 },
    );
    const c2 = blendCorner(
      [
        { height: S, weight: sourceWeight(256) },
        { height: 0, weight: sourceWeight(384) },
      ],
      { height: 5, weight: 1 },
    );
    expect(c1.toFixed(6)).toBe('6.227612');
    expect(c2.toFixed(6)).toBe('5.132180');
    expect(blendCorner([{ height: S, weight: sourceWeight(128) }], { height: 5, weight: 1 }).toFixed(6)).toBe('6.310217');
    // The printed numerators and denominators.
    expect(sourceWeight(128) * S + 5).toBeCloseTo(7.4333000183, 9);
    expect(sourceWeight(128) + sourceWeight(256) + 1).toBe(1.193603515625);
    expect(sourceWeight(256) * S + 5).toBe(5.213623046875);
    expect(sourceWeight(256) + sourceWeight(384) + 1).toBe(1.015869140625);
  });
  it('normalizes the self term together with the sources: 7.5 m, not 15 m; a zero-height source still counts', () => {
    expect(
      blendCorner(
        [
          { height: 20, weight: 1 },
          { height: 0, weight: 1 },
        ],
        { height: 5, weight: 2 },
      ),
    ).toBe(7.5);
    expect(
      blendCorner(
        [
          { height: 20, weight: 1 },
          { height: 0, weight: 1 },
        ],
        { weight: 0 },
      ),
    ).toBe(10);
    expect(blendCorner([{ height: 20, weight: 1 }], { weight: 0 })).toBe(20);
    // A self term without height adds weight only.
    expect(blendCorner([{ height: 20, weight: 1 }], { weight: 3 })).toBe(5);
  });
});

describe('selection and admission', () => {
  it('weights 2, 1, 7 with the third excluded give 2/3 and 1/3', () => {
    expect(
      selectionProbabilities([
        { weight: 2, eligible: true },
        { weight: 1, eligible: true },
        { weight: 7, eligible: false },
      ]),
    ).toEqual([2 / 3, 1 / 3, 0]);
  });
  it('category allow-lists: [2,5] passes, [4,5] does not, [] is unrestricted', () => {
    expect(categoryAllows([2, 5], [1, 2, 6])).toBe(true);
    expect(categoryAllows([4, 5], [1, 2, 6])).toBe(false);
    expect(categoryAllows([], [1, 2, 6])).toBe(true);
  });
  it('clearance: required 10 rejects 9 and accepts 10 and 11; support coefficients change what is required', () => {
    expect([9, 10, 11].map((a) => clearanceAccepts(a, 10))).toEqual([false, true, true]);
    const world = loadWorld('tundra');
    const [a, b] = world.resources;
    const p = world.placement.clearance;
    const r1 = requiredClearance(a, b, p);
    const r2 = requiredClearance({ ...a, supportCoefficient: a.supportCoefficient * 2 }, b, p);
    expect(r2).toBeGreaterThan(r1);
  });
});

describe('tundra-r19 plan', () => {
  const plan = planRequest(loadRequest('tundra-r19'));
  it('selects recipe 19 sub-configuration 0, the only eligible of eight', () => {
    expect(plan.recipe.subIndex).toBe(0);
    expect(plan.recipe.probabilities).toEqual([1, 0, 0, 0, 0, 0, 0, 0]);
  });
  it('lays out 54 location draws from 44 resources with 84 circles and 0 rectangles', () => {
    expect(plan.layout.counts).toMatchObject({ draws: 54, distinctResources: 44, circles: 84, rectangles: 0 });
  });
  it('narrows the mission candidates 8→4, 8→4, 2→2, 11→5, 11→5, 1→1 in tag order, duplicates kept', () => {
    expect(plan.layout.narrowing.map((n) => [n.tag, n.initial, n.pool])).toEqual([
      [128, 8, 4],
      [128, 8, 4],
      [104, 2, 2],
      [99, 11, 5],
      [99, 11, 5],
      [96, 1, 1],
    ]);
    expect(plan.layout.narrowing[0].picked).not.toBe(plan.layout.narrowing[1].picked);
  });
  it('keeps the region invariants (corners shared, parents own their seed cells)', () => {
    expect(checkRegionInvariants(plan.regions)).toEqual([]);
    const shared = plan.regions.corner_cells.filter((c) => c.length >= 2).length;
    expect(shared).toBeGreaterThan(plan.regions.corner_cells.length * 0.9);
  });
  it('the ownership query follows stored relationships, not the nearest centre', () => {
    const m = plan.regions;
    let found = 0;
    for (let k = 0; k < 20000 && !found; k++) {
      const x = -1000 + (k % 200) * 10 + 0.37;
      const y = -1000 + Math.floor(k / 200) * 20 + 0.11;
      const c = cellAt(m, x, y);
      const nc = nearestCentreCell(m, x, y);
      if (c !== nc && m.parent_group[m.cell_parent[c]] !== m.parent_group[m.cell_parent[nc]]) {
        found++;
        expect(groupAt(m, x, y)).toBe(m.parent_group[m.cell_parent[c]]);
      }
    }
    expect(found).toBe(1);
  });
  it('every source branch occurs and heights stay in metres', () => {
    const branches = new Set(plan.sources.map((s) => s.branch));
    expect(branches).toEqual(new Set(['ordinary', 'negative', 'zero', 'fallback']));
    for (const s of plan.sources) expect(Math.abs(s.height)).toBeLessThanOrEqual(35 + 1e-9);
  });
  it('corner heights lie between the extremes of their inputs (a weighted average cannot create a peak)', () => {
    const hs = plan.sources.map((s) => s.height);
    const lo = Math.min(0, ...hs);
    const hi = Math.max(30, ...hs);
    for (const h of plan.corners.corner_height) {
      expect(h).toBeGreaterThanOrEqual(lo - 1e-9);
      expect(h).toBeLessThanOrEqual(hi + 1e-9);
    }
  });
});

describe('PRNG state flows through the stages', () => {
  it('one extra draw before placement changes the downstream layout', () => {
    const req = loadRequest('tundra-r19');
    const world = loadWorld('tundra');
    const lay = (extra: number) => {
      const s = new PrngStream(req.seed);
      const recipe = selectRecipe(world, req, s);
      buildRegions(recipe.params.regions, req.domain, s);
      for (let k = 0; k < extra; k++) s.uniform(); // e.g. a fallback that consumed one more value
      return buildLayout(world, req, s).instances;
    };
    const a = lay(0);
    const b = lay(1);
    expect(a.map((q) => q.x)).not.toEqual(b.map((q) => q.x));
    expect(lay(0).map((q) => q.x)).toEqual(a.map((q) => q.x)); // and the same state gives the same layout
  });
  it('the same request gives the same plan; another seed another one', () => {
    const a = planRequest(loadRequest('tundra-r19'));
    const b = planRequest(loadRequest('tundra-r19'));
    expect(Array.from(b.corners.corner_height)).toEqual(Array.from(a.corners.corner_height));
    const c = planRequest(loadRequest('tundra-seed2'));
    expect(c.layout.instances[0].x).not.toBe(a.layout.instances[0].x);
  });
});

describe('configuration is data, checked by a schema', () => {
  const text = readFileSync(join(import.meta.dirname, '..', 'config', 'worlds', 'tundra.json'), 'utf8');
  it('names the JSON path and the bad value', () => {
    const w = JSON.parse(text);
    w.resources[3].footprint = -2;
    expect(() => parseWorld(w)).toThrow('world.resources[3].footprint: expected a number in [5e-324, Infinity], found -2');
    const v = JSON.parse(text);
    v.stamps.infos[0].blend = 'multiply';
    expect(() => parseWorld(v)).toThrow('world.stamps.infos[0].blend: expected one of "add", "max", "min", "lerp", found "multiply"');
    const u = JSON.parse(text);
    u.resources[0].texture = 'nope';
    expect(() => parseWorld(u)).toThrow('world.resources[0].texture: expected a key of locationTextures, found "nope"');
  });
  it('names the path and value in every section (recipes, textures, placement, stamp lists, scalars), first fault first', () => {
    const refuse = (edit: (w: Record<string, any>) => void) => {
      const w = JSON.parse(text);
      edit(w);
      return () => parseWorld(w);
    };
    expect(refuse((w) => (w.recipes['19'].subconfigs[0].params.regions.groupThresholds = [1, 2]))).toThrow(
      'world.recipes.19.subconfigs[0].params.regions.groupThresholds: expected 3 numbers, found 2',
    );
    expect(refuse((w) => (w.locationTextures[0].decode.metresPerCode = 0))).toThrow(
      'world.locationTextures[0].decode.metresPerCode: expected a number in [5e-324, Infinity], found 0',
    );
    expect(refuse((w) => (w.placement.stages[0].ring = [120]))).toThrow('world.placement.stages[0].ring: expected 2 numbers, found 1');
    expect(refuse((w) => (w.stamps.groups[0].infos[2] = 'info-99'))).toThrow(
      'world.stamps.groups[0].infos[2]: expected an id of stamps.infos, found "info-99"',
    );
    expect(refuse((w) => (w.stamps.zoneItems[0].stampGroups[1] = 'group-x'))).toThrow(
      'world.stamps.zoneItems[0].stampGroups[1]: expected an id of stamps.groups, found "group-x"',
    );
    expect(refuse((w) => (w.stamps.zoneItems[0].countRange = [4, 2]))).toThrow(
      'world.stamps.zoneItems[0].countRange: expected integers 0 ≤ a ≤ b ≤ 1000, found [4,2]',
    );
    expect(refuse((w) => (w.heightGroups.upland = 256))).toThrow('world.heightGroups.upland: expected an integer in [0, 255], found 256');
    expect(refuse((w) => (w.stamps.maxAttempts = 0.5))).toThrow('world.stamps.maxAttempts: expected an integer in [1, 10000], found 0.5');
    // Two faults: the earlier section (resources) is reported, not the later scalar (heightGroups).
    expect(
      refuse((w) => {
        w.heightGroups.upland = 256;
        w.resources[1].weight = -1;
      }),
    ).toThrow('world.resources[1].weight: expected a number in [0, Infinity], found -1');
  });
  it('refuses an unknown request with the known ones listed', () => {
    expect(() => loadRequest('tundra-r20')).toThrow(/no such request file .* known requests: .*tundra-r19/);
  });
});

describe('heightbench run (planar stages)', () => {
  it('writes layout, sources and corners and prints the counts', async () => {
    const d = tempDir('hb-run-');
    const r = await cli('run', 'tundra-r19', '--stages', 'layout,sources,corners', '--out', d);
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/54 location draws from 44 resources, 84 circles, 0 rectangles/);
    const layout = JSON.parse(readFileSync(join(d, 'layout.json'), 'utf8'));
    expect(layout).toMatchObject({ format: 'heightbench.stage', stage: 'layout', request: 'tundra-r19' });
    expect(layout.instances).toHaveLength(54);
    const r2 = await cli('run', 'tundra-r19', '--stages', 'nope', '--out', d);
    expect(r2.code).toBe(2);
  });
});
