/** What a comparison report is told beyond the comparison: its sides, gates, stages, diagnoses and notes. */
import type { StageAttribution } from '../compare/attribution.js';
import type { GateOutcome } from '../compare/gates.js';
import type { Diagnosis } from '../compare/diagnose.js';
import type { PipelineDeclaration } from '../pipelines/declaration.js';
import type { ReportStages } from './report-stages.js';

export interface ReportMeta {
  generated: string;
  reference: string;
  title?: string;
  gates?: GateOutcome[];
  /** Path of an existing plotly.min.js to link instead of copying one into the report folder. */
  sharedPlotly?: string;
  /** Inline Plotly into index.html (one file to send; ~4.7 MB) instead of linking it. */
  selfContained?: boolean;
  /** What kind of reference this is, in words (stated under the title). */
  referenceKind?: string;
  /** Per-stage float differences (check.ts), shown beside the article's anchors. */
  stages?: readonly { stage: string; innerRmsMm: number; innerMaxAbsMm: number; rmsMm: number; maxAbsMm: number; differing?: number }[];
  /** Stage attribution (attribution.ts), with per-pixel stages for the first-divergence map and the gallery. */
  stageAttribution?: StageAttribution;
  /** The pipeline compared (default the seed's): its masks, anchors and 3D view are shown, and only those. */
  pipeline?: PipelineDeclaration;
  /** Stage maps and gallery crops fed by the caller (check.ts), stage by stage. */
  reportStages?: ReportStages;
  /** Further numbers for metrics.json (check: per-stage metrics, attribution counts, gates). */
  extraMetrics?: Record<string, number>;
  /** Further Markdown lines (e.g. the GPU-mimic switches of the generated side). */
  notes?: string[];
  /** Diagnoses (src/compare/diagnose.ts) per scope — "final", a stage name, "comparison" — shown in a section of their own. */
  diagnoses?: readonly { scope: string; diagnosis: Diagnosis }[];
  /** Warnings shown under the headline (e.g. a stage that differs grossly while the next agrees). */
  warnings?: readonly string[];
}
