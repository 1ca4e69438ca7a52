/**
 * `heightbench/conventions`: the conventions declaration (every rule the pipeline follows, with its source label:
 * [D] the article, [R] ours, [G] GPU behaviour) and the grid, encoding, sampling and resampling functions that
 * implement it. The named contracts (texelCentreWorld, worldToTexel, encodeUnorm16, bilinear, resampleSourceCoord,
 * DEFAULT_CONVENTIONS, resolveConventions) are in the package root.
 */
export {
  DEFAULT_RANGE,
  DOMAIN_SIZE,
  DOMAIN_XMIN,
  ROW_DIRECTIONS,
  SAMPLE_CONVENTIONS,
  UNORM16_MAX,
  columnWorldX,
  gridDifference,
  metresPerCode,
  rowWorldY,
  sampleSpacing,
  validateGrid,
  validateRange,
  vertexWorld,
  worldToColumn,
  worldToRow,
  worldToVertex,
} from '../core/grid.js';
export type { RowDirection, SampleConvention } from '../core/grid.js';
export { decodeFieldR16, decodeTable, encodeFieldR16 } from '../core/encoding.js';
export type { EncodeCounts } from '../core/encoding.js';
export { bilinearF32, quantizeFraction8, sampleBilinear, sampleUV } from '../core/sampling.js';
export type { SubTexelMode } from '../core/sampling.js';
export { asTexelGrid, asVertexGrid, edgeToEdgeSourceCoord, resampleField } from '../core/resample.js';
export { CONVENTION_SOURCES, STAGES, conventionPaths, conventionValue, conventionDifferences } from '../conventions/index.js';
export type { ConventionSource, SourceLabel, StageName } from '../conventions/index.js';
export { DEFAULT_CONVENTIONS, mergeOverrides, resolveConventions } from '../conventions/index.js';
export type { ConventionOverride, Conventions } from '../conventions/index.js';
