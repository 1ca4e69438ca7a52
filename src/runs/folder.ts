/**
 * The run folder's contract: the names of the files a run writes (CPU, WebGPU and imported runs alike), the planning
 * stages' names, and the one way to open, commit and discard a run folder for both backends (`run --backend cpu` and
 * `--backend webgpu`).
 *
 * [R] A run owns its --out folder: the run is written into a staged sibling folder and swapped in whole
 *     (src/io/folder-swap.ts), so a killed run leaves the earlier run complete and never a mix of runs, and a reader
 *     sees the old run or the new one, whole. An existing folder is replaced only when everything in it is a name a
 *     run writes; anything else is refused before any work.
 * Inputs: the --out path (and `inPlace` for bless, whose folder is already a fresh staged one).
 * Outputs: a RunFolder (src/io/folder-swap.ts openStagedFolder, the one staged open for every folder written whole).
 */
import { existsSync, readdirSync, statSync } from 'node:fs';
import { resolve } from 'node:path';
import { UsageError } from '../errors.js';
import { defaultSwapNames, openStagedFolder, recoverFolder, removeStale, type StagedFolder, type SwapNames } from '../io/folder-swap.js';
import { STAGES as FIELD_STAGES } from '../conventions/index.js';
import { PIPELINE_FILE } from '../pipelines/declaration.js';
import type { ConventionSources } from '../io/input-conventions.js';
import type { Sidecar } from '../io/sidecar.js';

/**
 * The planning stages' names (the JSON files a run writes before the field stages). Kept apart from the pipeline so
 * light commands (regress) can name them without loading it; the field stages are the conventions' STAGES.
 */
export const PLAN_STAGES = ['layout', 'regions', 'sources', 'corners'] as const;

/** The final map's codes (UNORM16 little-endian): what check, compare and regress read first. */
export const FINAL_CODES_FILE = 'final.r16';
/** The final map as a 16-bit PNG (the same codes). */
export const FINAL_PNG_FILE = 'final.png';
/** The run's deterministic manifest (part of hashed references). */
export const MANIFEST_FILE = 'manifest.json';
/** The run's wall-clock timings (kept out of DVC's hashes by .dvcignore). */
export const TIMINGS_FILE = 'timings.json';
/** An imported run's record of what was imported from where. */
export const IMPORTS_FILE = 'imports.json';

/** The final map's file of the given container (`r16` or `png`). */
export function finalFile(ext: 'r16' | 'png'): string {
  return ext === 'r16' ? FINAL_CODES_FILE : FINAL_PNG_FILE;
}

/** A float field stage's dump (float32 little-endian). */
export function fieldStageFile(stage: string): string {
  return `${stage}.r32`;
}

/** A planning stage's JSON file. */
export function planStageFile(stage: string): string {
  return `${stage}.json`;
}

/** The sidecar beside a heightfield file. */
export function sidecarFile(file: string): string {
  return `${file}.json`;
}

/** Every name a run writes into its folder (a folder holding anything else is not replaced). */
export function runOutputNames(): Set<string> {
  const names = new Set<string>([MANIFEST_FILE, TIMINGS_FILE, PIPELINE_FILE]);
  for (const s of PLAN_STAGES) names.add(planStageFile(s));
  for (const s of FIELD_STAGES) {
    if (s === 'final') continue;
    names.add(fieldStageFile(s)).add(sidecarFile(fieldStageFile(s)));
  }
  for (const f of [FINAL_CODES_FILE, FINAL_PNG_FILE]) names.add(f).add(sidecarFile(f));
  return names;
}

/** Refuses an --out that is a file, or a folder holding anything a run does not write (see the header). */
export function checkRunFolder(out: string): void {
  if (!existsSync(out)) return;
  if (!statSync(out).isDirectory()) throw new UsageError(`--out ${out}: is a file, expected a folder`);
  const known = runOutputNames();
  const foreign = readdirSync(out).filter((e) => !known.has(e) && !/^\..*\.(pending-[0-9a-f]{16}|tmp-.*)$/.test(e));
  if (foreign.length) {
    throw new UsageError(
      `--out ${out}: holds ${foreign.length} entr${foreign.length === 1 ? 'y' : 'ies'} a run does not write (${foreign
        .slice(0, 3)
        .map((e) => JSON.stringify(e))
        .join(', ')}${foreign.length > 3 ? ', …' : ''}); a run replaces its whole folder: give a new or empty folder`,
    );
  }
}

/** A run folder being written: `dir` to write into, `commit()` to swap it in, `dispose()` after a failed run. */
export type RunFolder = StagedFolder;

/**
 * Finishes what an interrupted writer of `target` left: a kept old folder is put back (or removed once the new one
 * is in place) and staged folders are removed. Returns the staged folders removed.
 */
export function recoverStaged(target: string, names: SwapNames = defaultSwapNames(target)): string[] {
  recoverFolder(target, names);
  return removeStale(target, names);
}

/** The one way a folder is opened for writing whole (src/io/folder-swap.ts), for run folders, references, imports. */
export { openStagedFolder };

/** Opens --out for a run: checked, stale stages removed, a fresh stage made (see the header). */
export function openRunFolder(out: string, opts: { inPlace?: boolean } = {}): RunFolder {
  if (out === '') throw new UsageError('--out: expected a folder, got an empty path ""');
  const target = resolve(out);
  if (opts.inPlace) return { target, dir: target, commit: () => undefined, dispose: () => undefined };
  return openStagedFolder(target, { check: checkRunFolder });
}

/**
 * What `heightbench import` records of one imported capture: in the stage file's sidecar (`notes.import`) and, for
 * every stage of the folder, in imports.json.
 */
export interface ImportRecord {
  stage: string;
  file: string;
  path: string;
  pathFrom: 'repository' | 'run folder';
  container: string;
  sha256: string;
  source: string | null;
  request: string | null;
  description: string[];
  conventions: ConventionSources;
}

/** imports.json's text: every stage's import record, in the order they were imported. */
export function importsJson(records: readonly ImportRecord[]): string {
  return `${JSON.stringify({ format: 'heightbench.imports', version: 1, imports: records }, null, 2)}\n`;
}

/**
 * The import record a stage file's sidecar holds, read back field by field: a record another version wrote may lack
 * or mistype any of them (each is `unknown` until the reader checks it). Null when the file was not imported.
 */
export function sidecarImportRecord(sc: Sidecar | null): { readonly [K in keyof ImportRecord]?: unknown } | null {
  const rec = sc?.notes?.import;
  return typeof rec === 'object' && rec !== null ? (rec as { readonly [K in keyof ImportRecord]?: unknown }) : null;
}
