/**
 * The planning stages' names (the JSON files a run writes before the field stages). Kept in a module of its own so
 * light commands (regress) can name them without loading the pipeline; the field stages are the conventions' STAGES.
 */
export const PLAN_STAGES = ['layout', 'regions', 'sources', 'corners'] as const;
