/**
 * `heightbench/pipeline`: the pipeline's stage-level building blocks, for tools that run or inspect one stage at a
 * time — region invariants, layout footprints, the raster and smoothing chain, fans and the base field, support,
 * outer blend, stamps, height assets (KTX2), draw lists (build, serialise, parse) and the CPU executor, the seeded
 * stream. The whole run (runPipeline, buildPlan, loadRequest) and the teaching formulas are in the package root.
 */
export { PrngStream } from '../plan/prng.js';
export { placeFootprint, footprintClearance, footprintPointDistance, boxDistance, supportToWorld } from '../plan/layout.js';
export type { PlacedFootprint } from '../plan/layout.js';
export { checkRegionInvariants } from '../plan/cells.js';
export type { RegionMap, Domain, SiteIndex } from '../plan/cells.js';
export { snapFixed, ownsEdge } from '../cpu/raster.js';
export { FILTER_Y_RING, smoothingChain, filterField, downsampleHalf } from '../cpu/smoothing.js';
export type { SmoothingAblation } from '../conventions/ablation.js';
export { fanCentre, buildFans } from '../plan/fans.js';
export { layer0Fans, layer100Fans } from '../plan/layer-fans.js';
export { applyOuterBlend } from '../cpu/outer.js';
export { supportExtent } from '../cpu/support.js';
export { shapeDistance } from '../core/geometry.js';
export { computeSupportTargets } from '../pipeline/support-targets.js';
export { selectStamps, stampMatrix } from '../plan/stamps.js';
export { buildAssets, loadAssets, buildMipChain, readAssetKtx2, writeAssetKtx2, stampHeights, locationHeights } from '../assets/assets.js';
export type { HeightAsset } from '../assets/assets.js';
export { buildDrawList, outerDrawEligible } from '../plan/emit.js';
export { serialiseDrawList, parseDrawList, drawListToJson, drawListFromJson } from '../drawlist/serial.js';
export { DRAWLIST_FORMAT, DRAWLIST_VERSION } from '../drawlist/types.js';
export { DRAWLIST_STAGES } from '../drawlist/serial.js';
export type { DrawList, AssetDraw, StampProgram, LocationProgram, SupportLocation, SupportShape, TriangleLayer, DrawListAsset } from '../drawlist/types.js';
export { executeDrawListCpu } from '../cpu/execute.js';
export type { CpuExecution, CpuExecuteOptions } from '../cpu/execute.js';
export { cropCentre } from '../core/crop.js';
export type { Precision, Field } from '../core/precision.js';
export { buildPlan } from '../plan/plan.js';
export { loadWorld, planRequest, loadRunInputs, ensureAssets } from '../pipeline/inputs.js';
export { MINSTD_MODULUS, MINSTD_MULTIPLIER } from '../core/minstd.js';
export type { MinstdRand0 } from '../core/minstd.js';
export { segmentProjection, nearestCentreThenEdge, HEIGHT_SCALE } from '../plan/sources.js';
export type { Point, SourceShape, SourceRecord } from '../plan/sources.js';
export { blendTerms, adjustedDistance } from '../plan/corners.js';
export type { BlendTerm } from '../plan/corners.js';
export { weightedPick } from '../plan/recipe.js';
export type { SelectionCandidate } from '../plan/recipe.js';
export { categoryAllows } from '../plan/layout.js';
export { cellAt, groupAt, nearestCentreCell } from '../plan/cells.js';
export { barycentricHeight, rasterizeTriangles } from '../cpu/raster.js';
export { compose, chain, rotation, translation, scaling, invert, transformPoint } from '../core/transforms.js';
export type { Affine } from '../core/transforms.js';
export { sampleTrilinear } from '../cpu/mips.js';
export type { MipWeights } from '../cpu/mips.js';
export { runContext, stageContext, defaultExecutor, kernelRefusals, EXECUTORS } from '../cpu/context.js';
export type { Executor, StageContext } from '../cpu/context.js';
// Planning → draw list, the run's conventions and its inputs (loaded at the edge).
export { planDrawList } from '../plan/emit.js';
export type { DrawListOptions, PlanDrawListOptions, PlannedDrawList } from '../plan/emit.js';
export { PLANNING_GROUPS, planningKey, resolveRunConventions } from '../plan/plan.js';
export type { RecipeChoice } from '../plan/plan.js';
export { defaultAssetsDir, ensureAssetSet, loadListAssets } from '../pipeline/inputs.js';
export type { RunInputs } from '../pipeline/inputs.js';
export { loadAssetSet } from '../assets/assets.js';
export type { AssetSet, AssetIndexEntry } from '../assets/assets.js';
export type { QuadCoverage } from '../cpu/execute.js';
