/**
 * The planner's branch registry and counts (src/plan/branches.ts) and the coverage over requests (src/sweep/coverage.ts):
 *  - the counts agree with what the planner itself records (corner branches, source branches, layout shapes) and with
 *    the planner's outputs (a source below the margin has height 0, a saturated one the full amplitude; a clamped
 *    projection's distance is the distance to a corner of the reference cell);
 *  - the tundra world's coverage set: seeds 1–20 with and without location category 8 — the branches never
 *    exercised, the unreachable recipes, and the greedy cover (committed here; it is heightbench's own output, so a
 *    regression check, and the invariant that the cover exercises every branch the requests do);
 *  - every [D] sentence is the article's, verbatim (when the article is present: /work/shared/seeds).
 */
import { existsSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { buildPlan, resolveRunConventions } from '../src/plan/plan.js';
import { branchRegistry, planBranchCounts } from '../src/plan/branches.js';
import { loadRequest } from '../src/plan/request.js';
import { loadWorld } from '../src/pipeline/inputs.js';
import { sourceView } from '../src/plan/cells.js';
import { coverageOf } from '../src/sweep/coverage.js';
import { expandSweep, parseVariation } from '../src/sweep/requests.js';
import { cli } from './helpers.js';

const world = loadWorld('tundra');

function planOf(seed: number, categories?: number[]) {
  const base = loadRequest('tundra-r19');
  const req = { ...base, seed, ...(categories ? { locationCategories: categories } : {}) };
  return buildPlan(req, world, resolveRunConventions(req, world));
}

describe('branch counts', () => {
  it.each([1, 2, 3, 19190418])('seed %i: the counts agree with what the planner records and produces', (seed) => {
    const plan = planOf(seed);
    const c = planBranchCounts(plan);
    const n = (id: string) => c[id] ?? 0;
    // Every id counted is in the registry.
    const ids = new Set(branchRegistry(world).map((b) => b.id));
    expect(Object.keys(c).filter((k) => !ids.has(k))).toEqual([]);
    // Corners: the planner's own branch counts.
    expect(n('corners.zero-class')).toBe(plan.corners.counts.zeroClass);
    expect(n('corners.self.inside')).toBe(plan.corners.counts.insideEnvelope);
    expect(n('corners.self.near') + n('corners.self.far')).toBe(plan.corners.counts.blend);
    // Every non-zero-class corner weighs every source once.
    const blended = plan.corners.counts.blend + plan.corners.counts.insideEnvelope;
    expect(n('corners.self-height.reference') + n('corners.self-height.no-reference')).toBe(blended);
    expect(n('layout.category-empty-allow-list') + n('layout.category-shared-id')).toBe(plan.layout.instances.length);
    expect(n('layout.mission-narrowed')).toBe(plan.layout.narrowing.filter((x) => x.pool < x.initial).length);
    expect(n('corners.weight.inside') + n('corners.weight.near') + n('corners.weight.power') + n('corners.weight.beyond-range')).toBe(
      blended * plan.sources.length,
    );
    // Sources: one branch each; the piece agrees with the height the planner computed.
    const src = Object.entries(c).filter(([k]) => /^sources\.(zero|fallback|ordinary\.|negative\.)/.test(k));
    expect(src.reduce((a, [, v]) => a + v, 0)).toBe(plan.sources.length);
    const P = plan.recipe.params.sources;
    const ord = plan.sources.filter((s) => s.branch === 'ordinary');
    expect(ord.filter((s) => s.height === 0).length).toBe(n('sources.ordinary.below-margin'));
    expect(ord.filter((s) => s.edgeDistance >= P.margin + P.transitionWidth).length).toBe(n('sources.ordinary.saturated'));
    // The projection clamp: a clamped nearest point is a corner of the reference cell.
    const view = sourceView(plan.regions);
    const referenced = plan.sources.filter((s) => s.referenceCell >= 0);
    expect(n('sources.segment.interior') + n('sources.segment.clamp-start') + n('sources.segment.clamp-end')).toBe(referenced.length);
    const atCorner = referenced.filter((s) =>
      [...view.cellEdges(s.referenceCell)].some(([a]) => Math.abs(Math.hypot(s.x - a[0], s.y - a[1]) - s.edgeDistance) < 1e-9),
    ).length;
    expect(atCorner).toBe(n('sources.segment.clamp-start') + n('sources.segment.clamp-end'));
    // Layout: the planner's shape counts.
    expect(n('layout.shape-circle')).toBe(plan.layout.counts.circles);
    expect(n('layout.shape-rect')).toBe(plan.layout.counts.rectangles);
    expect(n('layout.relaxed')).toBe(plan.layout.counts.relaxed);
    expect(n('stamps.dropped')).toBe(plan.stamps.dropped);
  });

  it("the article's request: 84 circles and 0 rectangles (the article's numbers), recipe 19/0", () => {
    const c = planBranchCounts(planOf(19190418));
    expect(c['layout.shape-circle']).toBe(84);
    expect(c['layout.shape-rect']).toBeUndefined();
    expect(c['recipe.19/0']).toBe(1);
  });

  it.runIf(existsSync('/work/shared/seeds/000_daa386bcd37d1cc9.txt'))('every [D] entry quotes a sentence of the article verbatim', () => {
    const article = readFileSync('/work/shared/seeds/000_daa386bcd37d1cc9.txt', 'utf8');
    for (const b of branchRegistry(world).filter((x) => x.label === 'D')) {
      const sentence = b.source.replace(/ \(.*\)$/, '');
      expect(article, b.id).toContain(sentence);
    }
  });
});

describe('coverage: the tundra world', () => {
  const base = loadRequest('tundra-r19');
  const { id, ...fields } = base;
  const items = expandSweep({
    base: id,
    request: { format: 'heightbench.request', version: 1, id, ...fields },
    seeds: Array.from({ length: 20 }, (_, k) => k + 1),
    vary: [parseVariation('locationCategories=[1,2,6],[1,2,6,8]')],
    size: base.size,
  });
  const c = coverageOf(items, (w) => loadWorld(w));

  it('never exercised, unreachable, and the greedy cover (capture these)', () => {
    expect(c.never).toEqual(['layout.group-change', 'layout.relaxed']);
    expect(c.unreachable).toEqual([1, 2, 3, 4, 5, 6, 7].map((k) => `recipe.19/${k}`));
    expect(c.cover.map((r) => r.key)).toEqual(['tundra-r19@1@4096@{"locationCategories":[1,2,6,8]}', 'tundra-r19@18@4096@{"locationCategories":[1,2,6]}']);
    // Rectangles need location category 8, not another seed.
    const rect = c.rows.filter((r) => r.counts['layout.shape-rect']).map((r) => r.key);
    expect(rect.length).toBe(20);
    expect(rect.every((k) => k.endsWith('[1,2,6,8]}'))).toBe(true);
  });

  it('the cover exercises every branch the requests exercise, and each request of it adds one', () => {
    const exercised = new Set(c.rows.flatMap((r) => Object.keys(r.counts)));
    const covered = new Set(c.cover.flatMap((r) => Object.keys(c.rows.find((x) => x.key === r.key)!.counts)));
    expect([...exercised].filter((b) => !covered.has(b))).toEqual([]);
    for (const r of c.cover) expect(r.adds.length).toBeGreaterThan(0);
  });

  it('captures: what they cover, and the cover of the rest', () => {
    const first = items[0];
    const withCapture = coverageOf(items, (w) => loadWorld(w), [{ label: 'cap', request: { ...base, ...(first.request as object), id: 'x' } as typeof base }]);
    expect(withCapture.capturedMissing).toContain('layout.shape-rect');
    expect(withCapture.capturedMissing).not.toContain('corners.zero-class');
    const rest = new Set(withCapture.coverAfterCaptured.flatMap((r) => r.adds));
    expect([...rest].sort()).toEqual(withCapture.capturedMissing);
  });

  it('the CLI prints the matrix, the lists and the cover; a malformed seed range exits 2 naming it', async () => {
    const r = await cli('coverage', 'tundra-r19', '--seeds', '1-3');
    expect(r.code).toBe(0);
    expect(r.out).toContain('capture these from the original');
    expect(r.out).toContain('greedy set cover');
    expect(r.out).toMatch(/\[D\] corners\.zero-class +\+\+\+/);
    const bad = await cli('coverage', 'tundra-r19', '--seeds', '3-1');
    expect(bad.code).toBe(2);
    expect(bad.err).toContain('"3-1"');
  });
});
