/**
 * `heightbench/pipeline`: the pipeline's stage-level building blocks, for tools that run or inspect one stage at a
 * time — region invariants, layout footprints, the raster and smoothing chain, fans and the base field, support,
 * outer blend, stamps, height assets (KTX2), draw lists (build, serialise, parse) and the CPU executor, the seeded
 * stream. The whole run (runPipeline, buildPlan, loadRequest) and the teaching formulas are in the package root.
 */
export { PrngStream } from '../pipeline/prng.js';
export { placeFootprint, footprintClearance, footprintPointDistance, boxDistance, supportToWorld } from '../pipeline/layout.js';
export type { PlacedFootprint } from '../pipeline/layout.js';
export { checkRegionInvariants } from '../pipeline/regions.js';
export type { RegionMap, Domain, SiteIndex } from '../pipeline/regions.js';
export { snapFixed, ownsEdge } from '../pipeline/raster.js';
export { FILTER_Y_RING, smoothingChain, filterField, downsampleHalf } from '../pipeline/smoothing.js';
export type { SmoothingAblation } from '../pipeline/smoothing.js';
export { fanCentre, buildFans } from '../pipeline/fans.js';
export { buildBase, layer0Fans, layer100Fans } from '../pipeline/base.js';
export { applyOuterBlend } from '../pipeline/outer.js';
export { supportExtent, shapeDistance, computeSupportTargets } from '../pipeline/support.js';
export { selectStamps, stampMatrix } from '../pipeline/stamps.js';
export { buildAssets, loadAssets, buildMipChain, readAssetKtx2, writeAssetKtx2, stampHeights, locationHeights } from '../pipeline/assets.js';
export type { HeightAsset } from '../pipeline/assets.js';
export { buildDrawList, outerDrawEligible } from '../pipeline/emit.js';
export { serialiseDrawList, parseDrawList, drawListToJson, drawListFromJson } from '../drawlist/serial.js';
export { DRAWLIST_FORMAT, DRAWLIST_VERSION } from '../drawlist/types.js';
export { DRAWLIST_STAGES } from '../drawlist/serial.js';
export type { DrawList, AssetDraw, StampProgram, LocationProgram, SupportLocation, SupportShape, TriangleLayer, DrawListAsset } from '../drawlist/types.js';
export { executeDrawListCpu } from '../pipeline/execute-cpu.js';
export type { CpuExecution, CpuExecuteOptions } from '../pipeline/execute-cpu.js';
export { cropCentre } from '../core/crop.js';
export type { Precision, Field } from '../pipeline/precision.js';
export { buildPlan } from '../pipeline/plan.js';
export { loadWorld, planRequest, loadRunInputs, ensureAssets } from '../pipeline/inputs.js';
export { MINSTD_MODULUS, MINSTD_MULTIPLIER } from '../core/minstd.js';
export type { MinstdRand0 } from '../core/minstd.js';
export { segmentProjection, nearestCentreThenEdge, HEIGHT_SCALE } from '../pipeline/sources.js';
export type { Point, SourceShape, SourceRecord } from '../pipeline/sources.js';
export { blendTerms, adjustedDistance } from '../pipeline/corners.js';
export type { BlendTerm } from '../pipeline/corners.js';
export { weightedPick } from '../pipeline/recipe.js';
export type { SelectionCandidate } from '../pipeline/recipe.js';
export { categoryAllows } from '../pipeline/layout.js';
export { cellAt, groupAt, nearestCentreCell } from '../pipeline/regions.js';
export { barycentricHeight, rasterizeTriangles } from '../pipeline/raster.js';
export { compose, chain, rotation, translation, scaling, invert, transformPoint } from '../pipeline/transforms.js';
export type { Affine } from '../pipeline/transforms.js';
export { sampleTrilinear } from '../pipeline/mips.js';
export type { MipWeights } from '../pipeline/mips.js';
export { runContext, stageContext, defaultExecutor, kernelRefusals, EXECUTORS } from '../pipeline/context.js';
export type { Executor, StageContext } from '../pipeline/context.js';
// Planning → draw list, the run's conventions and its inputs (loaded at the edge).
export { planDrawList } from '../pipeline/emit.js';
export type { DrawListOptions, PlanDrawListOptions, PlannedDrawList } from '../pipeline/emit.js';
export { PLANNING_GROUPS, planningKey, resolveRunConventions } from '../pipeline/plan.js';
export type { RecipeChoice } from '../pipeline/plan.js';
export { defaultAssetsDir, ensureAssetSet, loadListAssets } from '../pipeline/inputs.js';
export type { RunInputs } from '../pipeline/inputs.js';
export { loadAssetSet } from '../pipeline/assets.js';
export type { AssetSet, AssetIndexEntry } from '../pipeline/assets.js';
export type { QuadCoverage } from '../pipeline/execute-cpu.js';
