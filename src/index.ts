/**
 * heightbench public API — the package root (`import … from 'heightbench'`): what users and notebooks call. Requests
 * and the whole run; heightfield readers and writers with their sidecars; the comparison engine, gates, reports and
 * diagnose; and the conventions' named contracts (UNORM16, texel centres, bilinear, resampling). Everything else is
 * behind a documented subpath (README "Public API"; every name and signature of each entry point is listed in
 * api/exports.txt):
 *   heightbench/pipeline     planning, the draw list, the CPU executor, stage-level building blocks, run inputs
 *   heightbench/conventions  the conventions declaration, grid/encoding/sampling/resampling functions
 *   heightbench/formats      raw codecs without sidecars (R16, R32, PNG16), sidecars, the atomic file writer
 *   heightbench/compare      the comparison engine's parts: masks, report pieces, stage attribution, run checks
 *   heightbench/experiments  the ablation atlas and the bell accumulation
 *   heightbench/terrain      the engine heightfield (tiles, layers, stores, collision, CDLOD)
 *   heightbench/notebook     the notebooks' namespace: this root, the teaching API (each formula of the article as a
 *                            named function), the notebook helpers and what the notebooks show
 *   heightbench/cli          the command line as a function (runCli)
 */
export { PRODUCER_VERSION } from './version.js';
export { FormatError, MismatchError, isInputError } from './errors.js';

// Heightfields and their files (every file with its sidecar).
export { codeHeightfield, floatHeightfield, heightsOf } from './core/heightfield.js';
export type { CodeHeightfield, FloatHeightfield, Heightfield } from './core/heightfield.js';
export { readHeightfieldFile, readHeightfieldFileAsync, summarizeHeightfield, writeHeightfieldFile, writeHeightfieldFileAsync } from './io/heightfield-file.js';
export type { LoadedHeightfield, ReadSettings, WriteSettings } from './io/heightfield-types.js';
export { readSidecarFor } from './io/sidecar.js';
export type { Sidecar } from './io/sidecar.js';

// The conventions' named contracts (the rest: heightbench/conventions).
export { domainGrid, texelCentreWorld, worldToTexel } from './core/grid.js';
export type { GridDescription, HeightRange } from './core/grid.js';
export { decodeHeightR16, encodeHeightR16, encodeUnorm16, heightToUnorm } from './core/encoding.js';
export { bilinear } from './core/sampling.js';
export { resampleSourceCoord } from './core/resample.js';
export { DEFAULT_CONVENTIONS, resolveConventions } from './conventions/index.js';
export type { ConventionOverride, Conventions } from './conventions/index.js';

// Comparison, gates, reports, attribution of two runs, diagnosis.
export { compareHeightfields } from './compare/compare.js';
export { alignExactly } from './core/align.js';
export type { CompareOptions, ComparisonResult, RegionMetrics } from './compare/compare.js';
export { evaluateGates, normaliseGates } from './compare/gates.js';
export type { GateOutcome, Gates } from './compare/gates.js';
export { summaryMarkdown } from './report/summary-markdown.js';
export { writeComparisonReport } from './report/comparison-report.js';
export { attributeRunFolders } from './compare/attribution.js';
export { diagnose, diagnosisText } from './compare/diagnose.js';
export type { DiagnoseOptions, Diagnosis } from './compare/diagnose.js';

// Requests and the whole run.
export { listRequests, loadRequest, requestGrid } from './plan/request.js';
export type { PipelineRequest } from './plan/request.js';
export { FIELD_STAGES, runPipeline } from './pipeline/run.js';
export type { RunManifest, RunOptions, RunResult } from './pipeline/run.js';
export type { Plan } from './plan/plan.js';
export type { Precision } from './core/precision.js';
