/**
 * Replacing a whole folder (a run's outputs, a run's references) by a complete staged one.
 *
 * [R] Linux cannot exchange two non-empty folders with one rename from Node (renameat2's RENAME_EXCHANGE is not
 *     exposed), so the swap is two renames with the old folder kept until the new one is in place:
 *       1. the staged folder is complete and flushed (the caller wrote it);
 *       2. `target` is renamed to its `previous` name (a sibling hidden folder);
 *       3. the staged folder is renamed to `target` — from here the new folder is in place;
 *       4. the parent folder is flushed and `previous` removed.
 *     Between 2 and 3 `target` is briefly absent: `folderForReading` then answers `previous` (read-only, no write),
 *     so a reader always finds the old folder or the new one, complete. The next swap of the same target (or
 *     `recoverFolder`) restores `previous` when `target` is missing, and removes it when `target` is present.
 *     Staged folders of a run that did not finish are removed by the next run (`removeStale`).
 * [R] `previous` is only ever a folder this module made: anything else under its name (a symbolic link planted there,
 *     a file) is refused, never renamed into `target` nor read, so a link cannot carry its target's files into a run.
 */
import { existsSync, lstatSync, readdirSync, realpathSync } from 'node:fs';
import { FormatError } from '../errors.js';
import { basename, dirname, join, resolve } from 'node:path';
import { randomBytes } from 'node:crypto';
import { fsyncDirStep, mkdirStep, renameStep, rmTreeStep } from './fs-ops.js';
import { hiddenBase } from './atomic.js';

export interface SwapNames {
  /** Prefix of staged folders of this target (siblings of the target). */
  stagePrefix: string;
  /** Name of the old folder kept during the swap (a sibling of the target). */
  previous: string;
}

export function defaultSwapNames(target: string): SwapNames {
  const b = hiddenBase(basename(target));
  return { stagePrefix: `.${b}.stage-`, previous: `.${b}.previous` };
}

/** Whether the kept folder is there: true for a real folder, false when nothing is; anything else is refused. */
function keptFolderPresent(prev: string): boolean {
  let st;
  try {
    st = lstatSync(prev);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return false;
    throw e;
  }
  if (st.isDirectory()) return true;
  const what = st.isSymbolicLink() ? 'a symbolic link' : 'not a folder';
  throw new FormatError(`${prev}: is ${what}, where heightbench keeps only a folder it made while replacing ${basename(prev)}; refused (remove it)`);
}

/** Puts `previous` back when `target` is missing, or removes it when `target` is in place. */
export function recoverFolder(target: string, names = defaultSwapNames(target)): void {
  const prev = join(dirname(target), names.previous);
  if (!keptFolderPresent(prev)) return;
  if (existsSync(target)) rmTreeStep(prev);
  else renameStep(prev, target);
}

/** Removes staged folders left by runs that did not finish (every sibling whose name starts with the stage prefix). */
export function removeStale(target: string, names = defaultSwapNames(target)): string[] {
  const parent = dirname(target);
  let entries: string[] = [];
  try {
    entries = readdirSync(parent);
  } catch {
    return [];
  }
  const stale = entries.filter((e) => e.startsWith(names.stagePrefix)).map((e) => join(parent, e));
  for (const s of stale) rmTreeStep(s);
  return stale;
}

/** A fresh staged folder next to `target` (same file system, so the swap is a rename). */
export function makeStage(target: string, names = defaultSwapNames(target)): string {
  const stage = join(dirname(target), `${names.stagePrefix}${process.pid}-${randomBytes(4).toString('hex')}`);
  mkdirStep(stage);
  return stage;
}

/** Replaces `target` by the complete folder `stage` (see the header for the steps and what a reader sees). */
export function swapFolderIn(stage: string, target: string, names = defaultSwapNames(target)): void {
  const parent = dirname(target);
  const prev = join(parent, names.previous);
  recoverFolder(target, names);
  fsyncDirStep(stage);
  if (existsSync(target)) renameStep(target, prev);
  renameStep(stage, target);
  fsyncDirStep(parent);
  if (keptFolderPresent(prev)) rmTreeStep(prev);
}

/** A folder being written whole: `dir` is its staged sibling, `commit()` swaps it in, `dispose()` removes it if left. */
export interface StagedFolder {
  /** The folder replaced (resolved). */
  target: string;
  /** Where the writer writes: a staged sibling of `target` (or `target` itself for a writer given a fresh stage). */
  dir: string;
  /** Swaps the complete staged folder in as `target`. */
  commit(): void;
  /** Removes the staged folder if it is still there (a failed write); never throws. */
  dispose(): void;
}

/**
 * The one way a folder is opened for writing whole (run folders, references, imports, reports): a kept old folder of
 * an interrupted swap is put back (or removed), `check` refuses the target before any work, stale staged folders are
 * removed and a fresh one is made.
 */
export function openStagedFolder(target: string, opts: { names?: SwapNames; check?: (target: string) => void } = {}): StagedFolder {
  const names = opts.names ?? defaultSwapNames(target);
  recoverFolder(target, names);
  opts.check?.(target);
  removeStale(target, names);
  const dir = makeStage(target, names);
  return {
    target,
    dir,
    commit: () => swapFolderIn(dir, target, names),
    dispose: () => {
      try {
        if (lstatSync(dir)) rmTreeStep(dir);
      } catch {
        /* swapped in, or a crash: the next writer of this folder removes a stale stage */
      }
    },
  };
}

/** The folder a reader should open for `target`: itself, or the kept old folder while a swap is between renames. */
export function folderForReading(target: string, names = defaultSwapNames(target)): string {
  if (existsSync(target)) return target;
  const prev = join(dirname(target), names.previous);
  return keptFolderPresent(prev) ? prev : target;
}

/**
 * The path an output folder will really be written at: `path` made absolute with its deepest existing ancestor
 * resolved through every symbolic link (realpath), the parts not yet made appended. A containment check made on
 * this path is made on the path the writer acts on; one made on the text of `path` is not (`link/run`, with `link`
 * pointing elsewhere, reads as inside and writes outside).
 */
export function realOutputPath(path: string): string {
  let existing = resolve(path);
  const rest: string[] = [];
  for (;;) {
    try {
      return join(realpathSync(existing), ...rest);
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      const parent = dirname(existing);
      if ((code !== 'ENOENT' && code !== 'ENOTDIR') || parent === existing) throw e;
      rest.unshift(basename(existing));
      existing = parent;
    }
  }
}
