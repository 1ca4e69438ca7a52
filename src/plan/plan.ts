/**
 * Planning: recipe → regions → layout → ownership changes → sources → corners → natural stamp selection.
 * Inputs: the request, its loaded world (src/pipeline/inputs.ts loads it) and the run's resolved conventions.
 * Output: a Plan, a plain value: the request's one random stream (prng.ts) is made, consumed in the fixed stage order
 * and dropped here; the plan keeps only what it drew and how many draws each stage took. No file I/O.
 * Everything here is resolution-independent (metres), so `--size` changes none of it.
 */
import { PrngStream } from './prng.js';
import { selectionProbabilities, weightedPick } from './recipe.js';
import { applyLayoutGroupChanges, buildRegions, sourceView, type RegionMap } from './cells.js';
import { buildLayout, type Layout } from './layout.js';
import { computeSources, nearestCentreThenEdge, sourceHeight, type SourceRecord } from './sources.js';
import { computeCorners, type CornerField } from './corners.js';
import { selectStamps, type StampSelection } from './stamps.js';
import type { RecipeParams, WorldConfig } from '../world/world.js';
import type { PipelineRequest } from './request.js';
import { FormatError } from '../errors.js';
import { DEFAULT_CONVENTIONS, resolveConventions, type ConventionOverride, type Conventions } from '../conventions/index.js';

export interface RecipeChoice {
  entry: number;
  subIndex: number;
  name: string;
  probabilities: number[];
  params: RecipeParams;
}

export interface Plan {
  request: PipelineRequest;
  world: WorldConfig;
  recipe: RecipeChoice;
  regions: RegionMap;
  layout: Layout;
  groupChanges: number[];
  sources: SourceRecord[];
  corners: CornerField;
  /** The natural stamps drawn (the last consumer of the random stream). */
  stamps: StampSelection;
  /** Random draws consumed per stage, in stage order (the run manifest's drawsByStage). */
  drawsByStage: Record<string, number>;
  /** The conventions the plan was built under (corners, fans, draw order: src/conventions). */
  conventions: Conventions;
}

/**
 * [R] The convention groups planning reads: buildPlan reads `corners` (sources, corner weights), the draw list's fans
 * read `fans` (centre, flagged corners, edge order). Every other group acts in the draw list's other sections or in
 * the executor, so two runs whose conventions agree on these groups share one plan (planDrawList's `plans` cache).
 */
export const PLANNING_GROUPS = ['corners', 'fans'] as const satisfies readonly (keyof Conventions)[];

/** The key of a plan in a cache: the planning groups' values (a plan depends on the request, world and these only). */
export function planningKey(c: Conventions): string {
  return JSON.stringify(PLANNING_GROUPS.map((g) => c[g]));
}

/**
 * The conventions one run is drawn and executed under, resolved once: the declaration (src/conventions) with the
 * request's outer band and encoding range and its recipe's outer initial height as the base, then `override` (the
 * ablations) on top — so an override that names the band, the range or the initial height replaces the request's,
 * and one that does not leaves them as the request says. The recipe is selected on a stream of its own (the first
 * stage of the request's stream, so the same choice as the plan's).
 */
export function resolveRunConventions(req: PipelineRequest, world: WorldConfig, override?: ConventionOverride | null): Conventions {
  const recipe = selectRecipe(world, req, new PrngStream(req.seed));
  const base = resolveConventions({
    outer: { inner: req.outerBlend.inner, outer: req.outerBlend.outer, initialHeight: recipe.params.outer.outerInitialHeight },
    encoding: { min: req.encoding.min, max: req.encoding.max },
  });
  return override ? resolveConventions(override, base) : base;
}

export function selectRecipe(world: WorldConfig, req: PipelineRequest, stream: PrngStream): RecipeChoice {
  stream.stage('recipe');
  const entry = world.recipes[String(req.recipeEntry)];
  if (!entry) throw new FormatError(`request ${req.id}: recipe entry ${req.recipeEntry} does not exist in world ${world.name}`);
  const cands = entry.subconfigs.map((s) => ({ weight: s.weight, eligible: req.sceneTypes.includes(s.sceneType) }));
  const k = weightedPick(stream, cands);
  if (k < 0)
    throw new FormatError(`request ${req.id}: no sub-configuration of recipe ${req.recipeEntry} matches scene types ${JSON.stringify(req.sceneTypes)}`);
  const sub = entry.subconfigs[k];
  if (!sub.params) throw new FormatError(`world ${world.name}: recipe ${req.recipeEntry} sub-configuration ${k} (${sub.name}) is eligible but has no params`);
  return { entry: req.recipeEntry, subIndex: k, name: sub.name, probabilities: selectionProbabilities(cands), params: sub.params };
}

/** Plans a request on its loaded world under resolved conventions (see header). */
export function buildPlan(req: PipelineRequest, world: WorldConfig, conventions: Conventions = DEFAULT_CONVENTIONS): Plan {
  const p = planStages(req, world, conventions);
  return finishPlan(p, selectStamps(p.regions, world, p.stream));
}

/** The plan with its stamps: the stream's counts are copied out and the stream dropped. */
export function finishPlan(p: PlanStages, stamps: StampSelection): Plan {
  const { stream, ...rest } = p;
  return { ...rest, stamps, drawsByStage: { ...stream.drawsByStage } };
}

/** The planar stages, before the stamp selection (which consumes `stream` last). */
export type PlanStages = Omit<Plan, 'stamps' | 'drawsByStage'> & { stream: PrngStream };

/** The planar stages (recipe … corners) with the stream they leave for the stamp selection. */
export function planStages(req: PipelineRequest, world: WorldConfig, conventions: Conventions): PlanStages {
  const stream = new PrngStream(req.seed);
  const recipe = selectRecipe(world, req, stream);
  const P = recipe.params;
  const regions = buildRegions(P.regions, req.domain, stream);
  const layout = buildLayout(world, req, stream);
  const missions = layout.instances.filter((q) => q.stage === 'mission').map((q): [number, number] => [q.x, q.y]);
  const groupChanges = applyLayoutGroupChanges(regions, missions, world.heightGroups.zero, world.heightGroups.first);
  const view = sourceView(regions);
  const sources = computeSources(
    view,
    layout.instances.map((q) => ({ x: q.x, y: q.y, zeroSource: world.resources[q.resource].zeroSource, envelope: world.resources[q.resource].envelope })),
    P.sources,
    stream,
    conventions.corners.heightScale,
  );
  // Corner self heights: the ordinary formula on the corner's own distance to its first-type reference boundary.
  const selfShape = { margin: P.corners.margin, transitionWidth: P.corners.transitionWidth, amplitude: P.corners.amplitudeNorm };
  const corners = computeCorners(
    {
      corner_xy: regions.corner_xy,
      corner_cells: regions.corner_cells,
      cellGroup: (c) => view.cellGroup(c),
      selfHeight: (k) => {
        const own = view.parentOf(regions.corner_cells[k][0]);
        const cands = [own, ...view.adjacentParents(own)].flatMap((q) => view.cellsOfParent(q).filter((c) => view.cellGroup(c) === P.sources.firstGroup));
        if (cands.length === 0) return 0;
        const r = nearestCentreThenEdge(view, cands, [regions.corner_xy[2 * k], regions.corner_xy[2 * k + 1]]);
        return sourceHeight(r.distance, selfShape) * conventions.corners.heightScale;
      },
    },
    sources.map((s) => ({ x: s.x, y: s.y, height: s.height, envelope: s.envelope })),
    world.heightGroups.zero,
    conventions.corners,
  );
  return { request: req, world, stream, recipe, regions, layout, groupChanges, sources, corners, conventions };
}
