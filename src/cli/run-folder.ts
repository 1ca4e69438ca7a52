/**
 * The one run-folder writer, for both backends (`run --backend cpu` and `--backend webgpu`).
 *
 * [R] A run owns its --out folder: the run is written into a staged sibling folder and swapped in whole
 *     (src/io/folder-swap.ts), so a killed run leaves the earlier run complete and never a mix of runs, and a reader
 *     sees the old run or the new one, whole. An existing folder is replaced only when everything in it is a name a
 *     run writes; anything else is refused before any work.
 * Inputs: the --out path (and `inPlace` for bless, whose folder is already a fresh staged one).
 * Outputs: a RunFolder: `dir` to write into, `commit()` to swap it in, `dispose()` to remove what a failed run staged.
 */
import { existsSync, readdirSync, statSync } from 'node:fs';
import { resolve } from 'node:path';
import { UsageError } from '../errors.js';
import { rmTreeStep } from '../io/fs-ops.js';
import { defaultSwapNames, makeStage, removeStale, swapFolderIn } from '../io/folder-swap.js';
import { STAGES as FIELD_STAGES } from '../conventions/index.js';
import { PLAN_STAGES } from './stage-names.js';
import { PIPELINE_FILE } from '../pipelines/declaration.js';

/** Every name a run writes into its folder (a folder holding anything else is not replaced). */
export function runOutputNames(): Set<string> {
  const names = new Set<string>(['manifest.json', 'timings.json', PIPELINE_FILE]);
  for (const s of PLAN_STAGES) names.add(`${s}.json`);
  for (const s of FIELD_STAGES) {
    if (s === 'final') continue;
    names.add(`${s}.r32`).add(`${s}.r32.json`);
  }
  for (const f of ['final.r16', 'final.png']) names.add(f).add(`${f}.json`);
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

export interface RunFolder {
  /** The run's --out folder (resolved). */
  target: string;
  /** Where the run writes: a staged sibling of `target`, or `target` itself in place. */
  dir: string;
  /** Swaps the complete staged folder in as `target` (nothing to do in place). */
  commit(): void;
  /** Removes the staged folder if it is still there (a failed run); never throws. */
  dispose(): void;
}

/** Opens --out for a run: checked, stale stages removed, a fresh stage made (see the header). */
export function openRunFolder(out: string, opts: { inPlace?: boolean } = {}): RunFolder {
  if (out === '') throw new UsageError('--out: expected a folder, got an empty path ""');
  const target = resolve(out);
  if (opts.inPlace) return { target, dir: target, commit: () => undefined, dispose: () => undefined };
  checkRunFolder(target);
  removeStale(target);
  const dir = makeStage(target);
  return {
    target,
    dir,
    commit: () => swapFolderIn(dir, target, defaultSwapNames(target)),
    dispose: () => {
      if (!existsSync(dir)) return;
      try {
        rmTreeStep(dir);
      } catch {
        /* a crash: the next run into this folder removes it */
      }
    },
  };
}
