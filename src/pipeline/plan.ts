/**
 * The planar half of a run: recipe → regions → layout → ownership changes → sources → corners.
 * Everything here is resolution-independent (metres), so `--size` changes none of it.
 */
import { PrngStream } from './prng.js';
import { selectionProbabilities, weightedPick } from './recipe.js';
import { applyLayoutGroupChanges, buildRegions, sourceView, type RegionMap } from './regions.js';
import { buildLayout, type Layout } from './layout.js';
import { computeSources, nearestCentreThenEdge, sourceHeight, type SourceRecord } from './sources.js';
import { computeCorners, type CornerField } from './corners.js';
import { loadWorldFile, type RecipeParams, type WorldConfig } from './world.js';
import { configDir, type PipelineRequest } from './request.js';
import { join } from 'node:path';
import { FormatError } from '../errors.js';
import { checkName } from '../core/names.js';
import { DEFAULT_CONVENTIONS, type Conventions } from '../conventions/index.js';

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
  stream: PrngStream;
  recipe: RecipeChoice;
  regions: RegionMap;
  layout: Layout;
  groupChanges: number[];
  sources: SourceRecord[];
  corners: CornerField;
  /** The conventions the plan was built under (corners, fans, draw order: src/conventions). */
  conventions: Conventions;
}

export function loadWorld(name: string): WorldConfig {
  return loadWorldFile(join(configDir(), 'worlds', `${checkName('world', name)}.json`));
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

export function buildPlan(req: PipelineRequest, world: WorldConfig = loadWorld(req.world), conventions: Conventions = DEFAULT_CONVENTIONS): Plan {
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
