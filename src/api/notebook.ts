/**
 * `heightbench/notebook`: the notebooks' namespace (`import * as hb from './dist/api/notebook.js'`). The package root,
 * the teaching API, every helper the tslab notebooks use — Plotly figures and traces, the stage session that runs a
 * request once and serves its stages, number checks, palettes — and the stage functions, terrain calls and experiments the notebooks
 * show (each also in its own subpath: pipeline, conventions, terrain, experiments).
 */
export * from '../index.js';
// The teaching API: each formula of the article as a named function (notebooks 01–09; the stage-level rest:
// heightbench/pipeline). Kept off the root so that where a formula's code lives is not part of the root's contract.
export { minstdRand0 } from '../core/minstd.js';
export { selectionProbabilities } from '../plan/recipe.js';
export { clearanceAccepts, requiredClearance } from '../plan/layout.js';
export { segmentDistance, sourceHeight } from '../plan/sources.js';
export { blendCorner, selfWeight, sourceWeight } from '../plan/corners.js';
export { barycentric } from '../cpu/raster.js';
export { SMOOTHING_TAPS, impulseResponse } from '../cpu/smoothing.js';
export { parentChildReference, supportExtentFactor } from '../cpu/support.js';
export { mipWeights } from '../cpu/mips.js';
export { footprintLod } from '../drawlist/placement.js';
export { outerBlendWeight, smoothstepBlend } from '../cpu/outer.js';
export { accumulateBells } from '../bell/bell-sum.js';
export { shadeLightness } from '../bell/shading.js';
export {
  plotlyFigure,
  heatmapData,
  heatmapTrace,
  mapLayout,
  blockMapTrace,
  radialFigure,
  missionMarkers,
  symmetricLimit,
  difference,
  referenceStage,
  stageAgainstReference,
  checkNumber,
  rangeOf,
} from '../notebook/figures.js';
export type { Trace } from '../notebook/figures.js';
export { stageSession, SQUARE_AXES } from '../notebook/session.js';
export { readPipelineDeclaration, floatStageNames, stageFileName, PIPELINE_FILE } from '../pipelines/declaration.js';
export { attributionSummary } from '../compare/attribution.js';
export type { PipelineDeclaration } from '../pipelines/declaration.js';
export type { StageSession, StageSessionOptions } from '../notebook/session.js';
export { plotlyColorscale, DIVERGING_STOPS, TERRAIN_STOPS, MAGNITUDE_STOPS } from '../report/pictures.js';
export type { ColourStops, Rgb } from '../report/pictures.js';
export { verticalExaggeration, signedBlockDq } from '../report/comparison-report.js';
// What the notebooks show beyond the root (from the pipeline, conventions, terrain and experiments subpaths).
export { BELL_DEFAULTS, accumulateFast, accumulateNaive, maxRelativeDeviation } from '../bell/bell-sum.js';
export { applySeaLevel } from '../bell/shading.js';
export { ABLATIONS, SIGNATURE_NOTES, buildAtlas } from '../experiments/atlas.js';
export type { AtlasEntry } from '../experiments/atlas.js';
export { columnWorldX, metresPerCode, rowWorldY, vertexWorld, worldToColumn, worldToRow } from '../core/grid.js';
export { sampleBilinear } from '../core/sampling.js';
export type { HeightAsset } from '../assets/assets.js';
export { adjustedDistance, blendTerms } from '../plan/corners.js';
export { ensureAssets } from '../pipeline/inputs.js';
export { categoryAllows } from '../plan/layout.js';
export { barycentricHeight, rasterizeTriangles } from '../cpu/raster.js';
export { cellAt, groupAt, nearestCentreCell } from '../plan/cells.js';
export { HEIGHT_SCALE, nearestCentreThenEdge, segmentProjection } from '../plan/sources.js';
export { chain, rotation, transformPoint, translation } from '../core/transforms.js';
export { HeightfieldPatchSource, PatchList, PatchSelector, minimalRanges } from '../terrain/cdlod.js';
export { collisionTile } from '../terrain/collision.js';
export type { CollisionTile } from '../terrain/collision.js';
export type { TerrainDescription } from '../terrain/description.js';
export { triangleAlive } from '../terrain/holes.js';
export { importLayer } from '../terrain/import-layer.js';
export { addKindLayer, moveLayer, setLayerVisible, stampHill } from '../terrain/kinds.js';
export { baseCodeAcrossRanges, resizeTerrain } from '../terrain/resize.js';
export { readTerrainStore, writeTerrainStore } from '../terrain/store.js';
export { createTerrain } from '../terrain/terrain.js';
export { tileWindow } from '../terrain/tiles.js';
export { TerrainWeights } from '../terrain/weights.js';
