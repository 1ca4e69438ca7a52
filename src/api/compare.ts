/**
 * `heightbench/compare`: the comparison engine's parts — comparability checks, masks, report pieces, run-folder checks,
 * stage attribution, and pipeline declarations (the seed, the bell generator, the engine heightfield, your own:
 * docs/pipelines.md). compareHeightfields, evaluateGates, the reports, attributeRunFolders and diagnose are in the
 * package root.
 */
export { checkComparable, DEFAULT_STRADDLE_EPSILON_CODES } from '../compare/compare.js';
export type { RadialRing, Attribution, Position } from '../compare/compare.js';
export { DEFAULT_MASKS, maskDefinitions } from '../compare/masks.js';
export type { MaskDefinition, MaskSettings } from '../compare/masks.js';
export { flattenMetrics, resultJson } from '../report/metrics.js';
export { verticalExaggeration } from '../report/comparison-report.js';
export type { ReportMeta } from '../report/report-meta.js';
export { checkRun, STAGE_DUMPS } from '../runs/check.js';
export { attributeStages, attributionSummary, ATTRIBUTION_STAGES } from '../compare/attribution.js';
export type { StageAttribution } from '../compare/attribution.js';
export type { DiagnosisTerm, DirectCheck, Finding } from '../compare/diagnose.js';
export {
  parsePipelineDeclaration,
  readPipelineDeclaration,
  firstDeclarationDifference,
  floatStageNames,
  encodedStage,
  stageFileName,
  undeclaredStageFiles,
  pipelineJson,
  PIPELINE_FILE,
} from '../pipelines/declaration.js';
export type { PipelineDeclaration, DeclaredStage, DeclaredMask, DeclaredAnchor, StageHolds, Footprint } from '../pipelines/declaration.js';
export { SEED_PIPELINE } from '../pipelines/seed.js';
export { runFolderPipeline, sharedPipeline } from '../pipelines/run-folder.js';
export { bellPipeline, bellStageFields } from '../bell/pipeline.js';
export { engineHeightfieldPipeline, engineStageFields } from '../terrain/pipeline.js';
