/**
 * `heightbench/compare`: the comparison engine's parts — comparability checks, masks, report pieces, run-folder checks
 * and stage attribution. compareHeightfields, evaluateGates, the reports, attributeRunFolders and diagnose are in the
 * package root.
 */
export { checkComparable, DEFAULT_STRADDLE_EPSILON_CODES } from '../compare/compare.js';
export type { RadialRing, Attribution, Position } from '../compare/compare.js';
export { DEFAULT_MASKS, maskDefinitions } from '../compare/regions.js';
export type { MaskDefinition, MaskSettings } from '../compare/regions.js';
export { flattenMetrics, resultJson, verticalExaggeration } from '../report/report.js';
export type { ReportMeta } from '../report/report.js';
export { checkRun, STAGE_DUMPS } from '../report/check.js';
export { attributeStages, attributionSummary, ATTRIBUTION_STAGES } from '../compare/attribution.js';
export type { StageAttribution } from '../compare/attribution.js';
export type { DiagnosisTerm, DirectCheck, Finding } from '../compare/diagnose.js';
