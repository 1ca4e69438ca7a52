/**
 * The planner's branches: a registry of every piece of each piecewise rule, each fallback and clamp, each shape kind
 * and each recipe sub-configuration, labelled [D] with the article's sentence or [R] with our reason, and the count of
 * each in one plan.
 *
 * Inputs: a Plan (and its world, for the recipe and stage branches).
 * Outputs: BranchInfo[] (branchRegistry) and branch id → count (planBranchCounts).
 * Rules [R]: the counts are read from what the planner recorded (regions.counts, layout.counts, sources, corner
 * branches, stamps) and, where the planner records a value but not the branch taken (the pieces of the source and
 * corner rules, the projection clamp of the nearest edge, the fans' flagged corners), re-evaluated here on the plan's
 * own values with the planner's own functions and the run's conventions. Nothing here changes the plan: a counted
 * plan and an uncounted one give the same bytes (test/golden.test.ts). test/branches.test.ts holds the re-evaluated
 * counts against the planner's recorded ones where both exist.
 */
import type { Plan } from './plan.js';
import type { WorldConfig } from '../world/world.js';
import { adjustedDistance } from './corners.js';
import { segmentProjection, type Point } from './sources.js';
import { sourceView } from './cells.js';
import { layer0Fans } from './layer-fans.js';

export interface BranchInfo {
  id: string;
  /** The rule it belongs to (regions, layout, sources, corners, fans, stamps, recipe). */
  group: string;
  label: 'D' | 'R';
  /** [D]: the article's sentence; [R]: why heightbench has the branch. */
  source: string;
  /** False when no request of this world can take it (with the reason in `source`). */
  reachable: boolean;
}

const D = (id: string, group: string, source: string): BranchInfo => ({ id, group, label: 'D', source, reachable: true });
const R = (id: string, group: string, source: string): BranchInfo => ({ id, group, label: 'R', source, reachable: true });

const GROUPS_SENTENCE = 'Initial HeightGroup selection may involve coordinate-field sampling and random branches.';
const CHANGE_SENTENCE = 'Subsequent partitioning, ownership, and layout processing can change the groups.';
const ORDINARY_SENTENCE =
  'In the ordinary positive-height branch using the first reference-group type, subtract the configured margin and clamp the distance to be nonnegative.';
const NEGATIVE_SENTENCE = 'A specific branch without the first reference-group type also changes signs, allowing negative sources.';
const SEGMENT_SENTENCE = 'Then inspect only that region’s edges and take the minimum point-to-segment distance.';
const SELF_SENTENCE =
  'For valid finite distances under these branches, the self weight is 1000 below zero; it is (1−d/96)×10, strictly positive, for 0≤d<96; and it switches to 1 at 96 m.';
const WEIGHT_SENTENCE =
  'The distance range controls reach, the sixth power causes rapid attenuation, and the near-distance factor strengthens nearby sources further.';
const STRICT_SENTENCE = 'The strict branch boundary matters: multiply by the near-distance factor when d<96, but skip that multiplication at d=96.';
const FLAG_SENTENCE =
  'In the current base draw path, a particular corner flag causes the last encountered flagged corner to overwrite the center height; edge endpoints have corresponding replacement branches.';
const CATEGORY_SENTENCE = 'An empty candidate allow-list passes this check; a nonempty list must share at least one identifier with [1,2,6].';
const SHAPES_SENTENCE = 'Local circles or rectangles transform into map space with their location instances, defining where to query and adjust the surface.';

/** The fixed branches (every world). */
const FIXED: readonly BranchInfo[] = [
  R('regions.site-rejected', 'regions', 'a site candidate closer than the minimum spacing is rejected (its draws stay consumed)'),
  R('regions.parent-redraw', 'regions', 'a parent seed cell drawn twice is redrawn (the redraw consumes a draw)'),
  R('regions.border-reassigned', 'regions', 'the partition step moves a border cell to a neighbouring parent with a probability'),
  D('regions.group-flip', 'regions', GROUPS_SENTENCE),
  ...[0, 1, 2, 3].map((g) => D(`regions.group-${g}`, 'regions', GROUPS_SENTENCE)),
  D('layout.group-change', 'layout', CHANGE_SENTENCE),
  R('layout.relaxed', 'layout', 'a placement that finds no position in maxAttempts halves the required clearance for another round'),
  D(
    'layout.mission-narrowed',
    'layout',
    'Mission definitions and the mission associations of location resources constrain candidates, which are then checked and sampled.',
  ),
  D('layout.category-empty-allow-list', 'layout', CATEGORY_SENTENCE),
  D('layout.category-shared-id', 'layout', CATEGORY_SENTENCE),
  D('layout.shape-circle', 'layout', SHAPES_SENTENCE),
  D('layout.shape-rect', 'layout', SHAPES_SENTENCE),
  D('sources.zero', 'sources', 'Other conditions may set a source to zero.'),
  D('sources.ordinary.below-margin', 'sources', ORDINARY_SENTENCE),
  D('sources.ordinary.ramp', 'sources', ORDINARY_SENTENCE),
  D('sources.ordinary.saturated', 'sources', ORDINARY_SENTENCE),
  D('sources.negative.below-margin', 'sources', NEGATIVE_SENTENCE),
  D('sources.negative.ramp', 'sources', NEGATIVE_SENTENCE),
  D('sources.negative.saturated', 'sources', NEGATIVE_SENTENCE),
  D(
    'sources.fallback',
    'sources',
    'It first builds a reference-region list: use the first reference-group type if available, otherwise the second; if neither exists, enter the random fallback branch.',
  ),
  D('sources.segment.interior', 'sources', SEGMENT_SENTENCE),
  D('sources.segment.clamp-start', 'sources', SEGMENT_SENTENCE),
  D('sources.segment.clamp-end', 'sources', SEGMENT_SENTENCE),
  D('corners.zero-class', 'corners', 'One corner class is set directly to zero according to its height group, bypassing general blending.'),
  R(
    'corners.self-height.reference',
    'corners',
    "a corner's self height is the ordinary source formula on its distance to the nearest first-type cell of its own or an adjacent parent",
  ),
  R('corners.self-height.no-reference', 'corners', 'a corner with no first-type cell in its own or an adjacent parent has self height 0'),
  D('corners.self.inside', 'corners', SELF_SENTENCE),
  D('corners.self.near', 'corners', SELF_SENTENCE),
  D('corners.self.far', 'corners', SELF_SENTENCE),
  D(
    'corners.weight.inside',
    'corners',
    '[D] The parameters 512, 96, and 10, negative-distance weights, and self term belong to the construction and blending path discussed here.',
  ),
  D('corners.weight.near', 'corners', STRICT_SENTENCE),
  D('corners.weight.power', 'corners', WEIGHT_SENTENCE),
  D('corners.weight.beyond-range', 'corners', WEIGHT_SENTENCE),
  D('fans.flagged-centre', 'fans', FLAG_SENTENCE),
  D('fans.flagged-last-wins', 'fans', FLAG_SENTENCE),
  R('stamps.placed', 'stamps', 'natural stamps are placed at drawn positions with rotation and scale'),
  R('stamps.dropped', 'stamps', 'a stamp position that finds no room after every try is dropped'),
];

/** The registry for a world: the fixed branches, its placement stages and its recipe sub-configurations. */
export function branchRegistry(world: WorldConfig): BranchInfo[] {
  const stages = world.placement.stages.map((s) =>
    R(
      `layout.stage-${s.name}`,
      'layout',
      `the world's placement stage ${s.name} adds instances (the article names mission, extraction, outpost, exploration and satellite stages)`,
    ),
  );
  const recipes = Object.entries(world.recipes).flatMap(([entry, r]) =>
    r.subconfigs.map((s, k): BranchInfo => {
      const why = !s.params ? ' — unreachable: the world gives it no parameters' : !(s.weight > 0) ? ' — unreachable: weight 0' : '';
      return {
        id: `recipe.${entry}/${k}`,
        group: 'recipe',
        label: 'D',
        source: `Selection first determines valid candidates, then performs weighted sampling. (${s.name}, scene type ${s.sceneType}${why})`,
        reachable: why === '',
      };
    }),
  );
  return [...FIXED, ...stages, ...recipes];
}

/** Which piece of h = min(max(d − margin, 0)/width, 1) × amplitude a distance takes. */
function sourcePiece(d: number, margin: number, width: number): 'below-margin' | 'ramp' | 'saturated' {
  const x = Math.max(d - margin, 0) / width;
  return x <= 0 ? 'below-margin' : x < 1 ? 'ramp' : 'saturated';
}

/** The count of every branch the plan took (ids of branchRegistry; a branch not taken is absent). */
export function planBranchCounts(plan: Plan): Record<string, number> {
  const c: Record<string, number> = {};
  const add = (id: string, n = 1) => {
    if (n > 0) c[id] = (c[id] ?? 0) + n;
  };
  const m = plan.regions;
  add('regions.site-rejected', m.counts.rejectedSites);
  add('regions.parent-redraw', m.counts.parentRedraws);
  add('regions.border-reassigned', m.counts.reassignedCells);
  add('regions.group-flip', m.counts.flippedGroups);
  for (const g of m.parent_group) add(`regions.group-${g}`);
  add('layout.group-change', plan.groupChanges.length);
  add('layout.relaxed', plan.layout.counts.relaxed);
  for (const n of plan.layout.narrowing) if (n.pool < n.initial) add('layout.mission-narrowed');
  for (const q of plan.layout.instances) {
    add(`layout.stage-${q.stage}`);
    add(plan.world.resources[q.resource].categories.length === 0 ? 'layout.category-empty-allow-list' : 'layout.category-shared-id');
    for (const s of q.supports) add(s.kind === 'rect' ? 'layout.shape-rect' : 'layout.shape-circle');
  }
  add(`recipe.${plan.recipe.entry}/${plan.recipe.subIndex}`);

  // Sources: the branch the planner recorded, the piece of its rule, and the projection of the nearest edge.
  const P = plan.recipe.params.sources;
  const view = sourceView(m);
  for (const s of plan.sources) {
    if (s.branch === 'zero') add('sources.zero');
    else if (s.branch === 'fallback') add('sources.fallback');
    else add(`sources.${s.branch}.${sourcePiece(s.edgeDistance, P.margin, P.transitionWidth)}`);
    if (s.referenceCell < 0) continue;
    const p: Point = [s.x, s.y];
    let best = Infinity;
    let piece = 'interior';
    for (const [a, b] of view.cellEdges(s.referenceCell)) {
      const r = segmentProjection(p, a, b);
      if (r.distance < best) {
        best = r.distance;
        piece = r.tLine < 0 ? 'clamp-start' : r.tLine > 1 ? 'clamp-end' : 'interior';
      }
    }
    add(`sources.segment.${piece}`);
  }

  // Corners: the recorded branch, the self term's piece and every source weight's piece.
  const k = plan.conventions.corners;
  const nc = m.corner_xy.length / 2;
  for (let i = 0; i < nc; i++) {
    const branch = plan.corners.corner_branch[i];
    if (branch === 'zero-class') {
      add('corners.zero-class');
      continue;
    }
    const x = m.corner_xy[2 * i];
    const y = m.corner_xy[2 * i + 1];
    // The self height's reference (plan.ts: the first-type cells of the corner's own parent and the adjacent ones).
    const own = view.parentOf(m.corner_cells[i][0]);
    const hasReference = [own, ...view.adjacentParents(own)].some((q) => view.cellsOfParent(q).some((cell) => view.cellGroup(cell) === P.firstGroup));
    add(hasReference ? 'corners.self-height.reference' : 'corners.self-height.no-reference');
    let dmin = Infinity;
    for (const s of plan.sources) {
      const d = adjustedDistance(x, y, s);
      if (d < dmin) dmin = d;
      add(d < 0 ? 'corners.weight.inside' : d < k.nearRange ? 'corners.weight.near' : d < k.range ? 'corners.weight.power' : 'corners.weight.beyond-range');
    }
    add(dmin < 0 ? 'corners.self.inside' : dmin < k.nearRange ? 'corners.self.near' : 'corners.self.far');
  }

  // Fans: polygons whose centre a flagged corner overwrites, and those where several compete (the last one wins).
  const { input } = layer0Fans(plan);
  for (const ids of input.polygons) {
    let flagged = 0;
    for (const id of ids) flagged += input.corner_flag[id];
    if (flagged > 0) add('fans.flagged-centre');
    if (flagged > 1) add('fans.flagged-last-wins');
  }
  add('stamps.placed', plan.stamps.instances.length);
  add('stamps.dropped', plan.stamps.dropped);
  return Object.fromEntries(Object.entries(c).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}
