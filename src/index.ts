/**
 * heightbench public API. Notebooks and external checks import from here; the names spelled out in the issues are
 * contracts (encodeUnorm16, encodeHeightR16, decodeHeightR16, texelCentreWorld, worldToTexel, resampleSourceCoord,
 * bilinear, …) and keep their signatures.
 */
export { PRODUCER_NAME, PRODUCER_VERSION } from './version.js';
export { FormatError, MismatchError, isInputError } from './errors.js';
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
export {
  decodeFieldR16,
  decodeHeightR16,
  decodeTable,
  encodeFieldR16,
  encodeHeightR16,
  encodeUnorm16,
  heightToUnorm,
} from './core/encoding.js';
export type { EncodeCounts } from './core/encoding.js';
export { bilinear, bilinearF32, quantizeFraction8, sampleBilinear, sampleUV } from './core/sampling.js';
export type { SubTexelMode } from './core/sampling.js';
export { asTexelGrid, asVertexGrid, edgeToEdgeSourceCoord, resampleField, resampleSourceCoord } from './core/resample.js';
export { codeHeightfield, encodeHeightfield, floatHeightfield, heightsOf } from './core/heightfield.js';
export type { CodeHeightfield, FloatHeightfield, Heightfield } from './core/heightfield.js';
export { writeFileAtomic } from './io/atomic.js';
export { decodeR16, encodeR16, inferSquareR16Side } from './io/r16.js';
export { countNonFinite, decodeR32, encodeR32 } from './io/r32.js';
export { decodePng16, encodePng16, readPngHeader } from './io/png16.js';
export {
  SIDECAR_FORMAT,
  SIDECAR_VERSION,
  parseSidecar,
  readSidecarFor,
  sidecarPathFor,
} from './io/sidecar.js';
export type { Container, Endian, HeightEncoding, Sidecar } from './io/sidecar.js';
export {
  containerForPath,
  readHeightfieldFile,
  summarizeHeightfield,
  writeHeightfieldFile,
} from './io/heightfield-file.js';
export type { LoadedHeightfield, ReadSettings, WriteSettings } from './io/heightfield-file.js';
export { runCli } from './cli/main.js';
export { compareHeightfields, checkComparable, DEFAULT_STRADDLE_EPSILON_CODES } from './compare/compare.js';
export type { ComparisonResult, RegionMetrics, RadialRing, Attribution, CompareOptions, Position } from './compare/compare.js';
export { DEFAULT_MASKS, maskDefinitions } from './compare/regions.js';
export type { MaskDefinition, MaskSettings } from './compare/regions.js';
export { evaluateGates } from './compare/gates.js';
export type { Gates, GateOutcome } from './compare/gates.js';
export { flattenMetrics, resultJson, summaryMarkdown, writeComparisonReport } from './compare/report.js';
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
export { categoryAllows, clearanceAccepts, requiredClearance, supportToWorld, placeFootprint, footprintClearance, footprintPointDistance, boxDistance } from './pipeline/layout.js';
export type { PlacedFootprint } from './pipeline/layout.js';
export { PrngStream } from './pipeline/prng.js';
export { loadRequest, listRequests, requestGrid } from './pipeline/request.js';
export type { PipelineRequest } from './pipeline/request.js';
export { buildPlan, loadWorld } from './pipeline/plan.js';
export type { Plan } from './pipeline/plan.js';
export { cellAt, groupAt, nearestCentreCell, checkRegionInvariants } from './pipeline/regions.js';
export { barycentric, barycentricHeight, rasterizeTriangles, snapFixed, ownsEdge } from './pipeline/raster.js';
export { SMOOTHING_TAPS, FILTER_Y_RING, smoothingChain, filterField, impulseResponse, downsampleHalf } from './pipeline/smoothing.js';
export type { SmoothingAblation } from './pipeline/smoothing.js';
export { fanCentre, buildFans } from './pipeline/fans.js';
export { buildBase } from './pipeline/base.js';
export type { Precision, Field } from './pipeline/precision.js';
export { smoothstepBlend, outerBlendWeight, applyOuterBlend } from './pipeline/outer.js';
export { supportExtentFactor, supportExtent, parentChildReference, shapeDistance } from './pipeline/support.js';
export { compose, chain, rotation, translation, scaling, invert, transformPoint } from './pipeline/transforms.js';
export type { Affine } from './pipeline/transforms.js';
export { mipWeights, sampleTrilinear, footprintLod } from './pipeline/mips.js';
export type { MipWeights } from './pipeline/mips.js';
export { buildAssets, loadAssets, buildMipChain, readAssetKtx2, writeAssetKtx2, stampHeights, locationHeights } from './pipeline/assets.js';
export type { HeightAsset } from './pipeline/assets.js';
export { runPipeline, ensureAssets, FIELD_STAGES } from './pipeline/run.js';
export type { RunResult, RunOptions, RunManifest } from './pipeline/run.js';
export { cropCentre } from './core/crop.js';
export { plotlyFigure, heatmapData, heatmapTrace, missionMarkers, symmetricLimit, difference, referenceStage, stageAgainstReference, mapLayout, blockMapTrace, radialFigure } from './notebook/figures.js';
export { verticalExaggeration, signedBlockDq } from './compare/report.js';
export { plotlyColorscale, DIVERGING_STOPS, TERRAIN_STOPS, MAGNITUDE_STOPS } from './compare/pictures.js';
export type { Trace } from './notebook/figures.js';
export { checkRun, STAGE_DUMPS } from './compare/check.js';
export { selectStamps, stampMatrix } from './pipeline/stamps.js';
export { computeSupportTargets } from './pipeline/support.js';
export { layer0Fans, layer100Fans } from './pipeline/base.js';
export { checkNumber, rangeOf } from './notebook/figures.js';
export { describeTerrain, TILE_PRESETS } from './terrain/description.js';
export type { TerrainDescription, DerivedNumbers, TileKind } from './terrain/description.js';
export { tileWindow, readTile, maxReduce } from './terrain/tiles.js';
export { LayerStack, EditLayer, CHUNK } from './terrain/layers.js';
export { writeStore, readStore, deltaLayer, STORE_VERSION } from './terrain/store.js';
export { exportTiles } from './terrain/export.js';
export { stageSession, SQUARE_AXES } from './notebook/session.js';
export type { StageSession } from './notebook/session.js';
export { buildDrawList, outerDrawEligible } from './drawlist/emit.js';
export { serialiseDrawList, parseDrawList, drawListToJson, drawListFromJson } from './drawlist/serial.js';
export { DRAWLIST_FORMAT, DRAWLIST_VERSION, DRAWLIST_STAGES } from './drawlist/types.js';
export type { DrawList, AssetDraw, StampProgram, LocationProgram, SupportLocation, SupportShape, TriangleLayer, DrawListAsset } from './drawlist/types.js';
export { executeDrawListCpu } from './pipeline/execute-cpu.js';
export type { CpuExecution, CpuExecuteOptions } from './pipeline/execute-cpu.js';
export { attributeStages, attributeRunFolders, attributionSummary, ATTRIBUTION_STAGES } from './compare/attribution.js';
export type { StageAttribution } from './compare/attribution.js';
export { LAYER_KINDS } from './terrain/layers.js';
export type { LayerKind, Rect } from './terrain/layers.js';
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
export { writeTerrainStore, readTerrainStore, STORE_VERSIONS_READ } from './terrain/store.js';
export { PatchSelector, PatchList, HeightfieldPatchSource, minimalRanges } from './terrain/cdlod.js';
export type { PatchSource, SelectorSettings } from './terrain/cdlod.js';
export { ABLATIONS, ATLAS_EDGE_BAND, ATLAS_STAGES, SIGNATURE_NOTES, buildAtlas, type AblationSpec, type Atlas, type AtlasEntry } from './compare/atlas.js';
