/**
 * heightbench public API — the package root (`import … from 'heightbench'`). It holds what users and notebooks call:
 * the teaching API (the formulas, each a named function), heightfield readers/writers with sidecars, the comparison
 * engine and its reports, diagnose, the pipeline run, and the terrain API. Everything else lives behind documented
 * subpath exports (README "Public API"):
 *   heightbench/pipeline  stage-level building blocks (plan pieces, raster/smoothing chain, assets, draw lists, CPU executor)
 *   heightbench/formats   raw codecs without sidecars (R16, R32, PNG16) and the atomic file writer
 *   heightbench/notebook  every notebook helper (figures, stage session, palettes)
 *   heightbench/cli       the command line as a function (runCli)
 * The names spelled out in the issues are contracts (encodeUnorm16, encodeHeightR16, decodeHeightR16,
 * texelCentreWorld, worldToTexel, resampleSourceCoord, bilinear, compareHeightfields, …) and keep their signatures.
 */
export { PRODUCER_NAME, PRODUCER_VERSION } from './version.js';
export { FormatError, MismatchError, isInputError } from './errors.js';

// Grid, encoding, sampling, resampling: the conventions as functions.
export {
  DEFAULT_RANGE,
  DOMAIN_SIZE,
  DOMAIN_XMIN,
  ROW_DIRECTIONS,
  SAMPLE_CONVENTIONS,
  UNORM16_MAX,
  columnWorldX,
  domainGrid,
  gridDifference,
  metresPerCode,
  rowWorldY,
  sampleSpacing,
  texelCentreWorld,
  validateGrid,
  validateRange,
  vertexWorld,
  worldToColumn,
  worldToRow,
  worldToTexel,
  worldToVertex,
} from './core/grid.js';
export type { GridDescription, HeightRange, RowDirection, SampleConvention } from './core/grid.js';
export { decodeFieldR16, decodeHeightR16, decodeTable, encodeFieldR16, encodeHeightR16, encodeUnorm16, heightToUnorm } from './core/encoding.js';
export type { EncodeCounts } from './core/encoding.js';
export { bilinear, bilinearF32, quantizeFraction8, sampleBilinear, sampleUV } from './core/sampling.js';
export type { SubTexelMode } from './core/sampling.js';
export { asTexelGrid, asVertexGrid, edgeToEdgeSourceCoord, resampleField, resampleSourceCoord } from './core/resample.js';

// Heightfields and their files (every file with its sidecar).
export { codeHeightfield, encodeHeightfield, floatHeightfield, heightsOf } from './core/heightfield.js';
export type { CodeHeightfield, FloatHeightfield, Heightfield } from './core/heightfield.js';
export { containerForPath, readHeightfieldFile, summarizeHeightfield, writeHeightfieldFile } from './io/heightfield-file.js';
export type { LoadedHeightfield, ReadSettings, WriteSettings } from './io/heightfield-file.js';
export { SIDECAR_FORMAT, SIDECAR_VERSION, parseSidecar, readSidecarFor, sidecarPathFor } from './io/sidecar.js';
export type { Container, Endian, HeightEncoding, Sidecar } from './io/sidecar.js';

// Comparison, gates, reports, stage attribution, diagnosis.
export { compareHeightfields, checkComparable, DEFAULT_STRADDLE_EPSILON_CODES } from './compare/compare.js';
export type { ComparisonResult, RegionMetrics, RadialRing, Attribution, CompareOptions, Position } from './compare/compare.js';
export { DEFAULT_MASKS, maskDefinitions } from './compare/regions.js';
export type { MaskDefinition, MaskSettings } from './compare/regions.js';
export { evaluateGates, normaliseGates, GATE_NAMES } from './compare/gates.js';
export type { Gates, GateOutcome } from './compare/gates.js';
export { flattenMetrics, resultJson, summaryMarkdown, verticalExaggeration, writeComparisonReport } from './compare/report.js';
export type { ReportMeta } from './compare/report.js';
export { checkRun, STAGE_DUMPS } from './compare/check.js';
export { attributeStages, attributeRunFolders, attributionSummary, ATTRIBUTION_STAGES } from './compare/attribution.js';
export type { StageAttribution } from './compare/attribution.js';
export { diagnose, diagnosisText } from './compare/diagnose.js';
export type { Diagnosis, DiagnoseOptions, DiagnosisTerm, DirectCheck, Finding } from './compare/diagnose.js';

// The pipeline run: requests, the plan, the whole run.
export { loadRequest, listRequests, requestGrid } from './pipeline/request.js';
export type { PipelineRequest } from './pipeline/request.js';
export { buildPlan, loadWorld } from './pipeline/plan.js';
export type { Plan } from './pipeline/plan.js';
export { runPipeline, ensureAssets, FIELD_STAGES } from './pipeline/run.js';
export type { RunResult, RunOptions, RunManifest } from './pipeline/run.js';
export type { HeightAsset } from './pipeline/assets.js';
export type { Precision, Field } from './pipeline/precision.js';

// The teaching API: each formula of the article and of seed 002 as a named function (notebooks 01–09).
export { minstdRand0, MINSTD_MODULUS, MINSTD_MULTIPLIER } from './core/minstd.js';
export type { MinstdRand0 } from './core/minstd.js';
export {
  accumulateBells,
  accumulateFast,
  accumulateNaive,
  bellGenerators,
  bellHelperReady,
  bellGrid,
  maxRelativeDeviation,
  BELL_DEFAULTS,
} from './bell/accumulate.js';
export type { BellParams, BellPath } from './bell/accumulate.js';
export { applySeaLevel, shadeLightness, shadedPng, SHADING_DEFAULTS } from './bell/shading.js';
export { segmentDistance, segmentProjection, sourceHeight, nearestCentreThenEdge, HEIGHT_SCALE } from './pipeline/sources.js';
export type { Point, SourceShape, SourceRecord } from './pipeline/sources.js';
export { sourceWeight, selfWeight, blendCorner, blendTerms, adjustedDistance } from './pipeline/corners.js';
export type { BlendTerm } from './pipeline/corners.js';
export { selectionProbabilities, weightedPick } from './pipeline/recipe.js';
export type { SelectionCandidate } from './pipeline/recipe.js';
export { categoryAllows, clearanceAccepts, requiredClearance } from './pipeline/layout.js';
export { cellAt, groupAt, nearestCentreCell } from './pipeline/regions.js';
export { barycentric, barycentricHeight, rasterizeTriangles } from './pipeline/raster.js';
export { SMOOTHING_TAPS, impulseResponse } from './pipeline/smoothing.js';
export { smoothstepBlend, outerBlendWeight } from './pipeline/outer.js';
export { supportExtentFactor, parentChildReference } from './pipeline/support.js';
export { compose, chain, rotation, translation, scaling, invert, transformPoint } from './pipeline/transforms.js';
export type { Affine } from './pipeline/transforms.js';
export { mipWeights, sampleTrilinear, footprintLod } from './pipeline/mips.js';
export type { MipWeights } from './pipeline/mips.js';

// Notebook helpers the notebooks call through the root (the full set: heightbench/notebook).
export { plotlyFigure, heatmapTrace, mapLayout, blockMapTrace, radialFigure, checkNumber, rangeOf } from './notebook/figures.js';
export type { Trace } from './notebook/figures.js';
export { stageSession, SQUARE_AXES } from './notebook/session.js';
export type { StageSession } from './notebook/session.js';
export { plotlyColorscale, DIVERGING_STOPS, TERRAIN_STOPS, MAGNITUDE_STOPS } from './compare/pictures.js';

// The terrain API (engine notes, seed 004; issue 20).
export { describeTerrain, TILE_PRESETS } from './terrain/description.js';
export type { TerrainDescription, DerivedNumbers, TileKind } from './terrain/description.js';
export { tileWindow, readTile, maxReduce } from './terrain/tiles.js';
export { LayerStack, EditLayer, CHUNK, LAYER_KINDS } from './terrain/layers.js';
export type { LayerKind, Rect } from './terrain/layers.js';
export { writeStore, readStore, deltaLayer, STORE_VERSION, writeTerrainStore, readTerrainStore, STORE_VERSIONS_READ } from './terrain/store.js';
export { exportTiles } from './terrain/export.js';
export { createTerrain } from './terrain/terrain.js';
export type { Terrain, CreateOptions } from './terrain/terrain.js';
export { TerrainWeights } from './terrain/weights.js';
export { TerrainHoles } from './terrain/holes.js';
export { acceptsBrush, brushRefusal, addKindLayer, stampHill, setLayerVisible, setLayerAlpha, moveLayer, collapseLayer } from './terrain/kinds.js';
export { importLayer, importHeights } from './terrain/import.js';
export type { ImportResult } from './terrain/import.js';
export { resizeTerrain, baseCodeAcrossRanges, deltaStepsAcrossRanges } from './terrain/resize.js';
export type { ResizeOptions, ResizeReport } from './terrain/resize.js';
export { collisionTile, collisionQuadsAlive, COLLISION_NO_HEIGHT } from './terrain/collision.js';
export type { CollisionTile, CollisionOptions, HeightFieldPlacement } from './terrain/collision.js';
export { PatchSelector, PatchList, HeightfieldPatchSource, minimalRanges } from './terrain/cdlod.js';
export type { PatchSource, SelectorSettings } from './terrain/cdlod.js';
// The conventions declaration and the execution context (issue 15, items 1 and 3).
export {
  DEFAULT_CONVENTIONS,
  CONVENTION_SOURCES,
  STAGES,
  resolveConventions,
  conventionPaths,
  conventionValue,
  conventionDifferences,
} from './conventions/index.js';
export type { Conventions, ConventionOverride, ConventionSource, SourceLabel, StageName } from './conventions/index.js';
export { runContext, stageContext, defaultExecutor, kernelRefusals, EXECUTORS } from './pipeline/context.js';
export type { Executor, StageContext } from './pipeline/context.js';
export { lerp2 } from './core/sampling.js';
export { ABLATIONS, ATLAS_EDGE_BAND, ATLAS_STAGES, SIGNATURE_NOTES, buildAtlas, type AblationSpec, type Atlas, type AtlasEntry } from './compare/atlas.js';
