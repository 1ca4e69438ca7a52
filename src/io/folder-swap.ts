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
 */
import { existsSync, readdirSync, statSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
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

/** Puts `previous` back when `target` is missing, or removes it when `target` is in place. */
export function recoverFolder(target: string, names = defaultSwapNames(target)): void {
  const prev = join(dirname(target), names.previous);
  if (!existsSync(prev)) return;
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
  if (existsSync(prev)) rmTreeStep(prev);
}

/** The folder a reader should open for `target`: itself, or the kept old folder while a swap is between renames. */
export function folderForReading(target: string, names = defaultSwapNames(target)): string {
  if (existsSync(target)) return target;
  const prev = join(dirname(target), names.previous);
  try {
    if (statSync(prev).isDirectory()) return prev;
  } catch {
    /* none */
  }
  return target;
}
