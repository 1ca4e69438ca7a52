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
