/**
 * Refusals that point the way when a command is given the other kind of path: a folder to a command of files
 * (compare, info, diagnose, convert). (`check` given files or captures: src/runs/check-folders.ts.)
 * Inputs: the paths as given. Outputs: nothing, or a UsageError naming the path and the command to use.
 * Rules: only what exists is judged (a missing path is left to the command's own message); links are followed, as
 * the commands follow them.
 */
import { pathKind as kind } from '../io/fs-ops.js';
import { UsageError } from '../errors.js';

/** A command of files given a folder: name `check` for run folders. */
export function refuseFolders(command: string, paths: readonly string[]): void {
  for (const p of paths) {
    if (kind(p) === 'folder')
      throw new UsageError(`${command}: ${p} is a folder; ${command} reads heightfield files — for two run folders use \`heightbench check GEN_DIR REF_DIR\``);
  }
}
