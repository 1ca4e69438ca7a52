/**
 * Refusals that point the way when a command is given the other kind of path: a folder to a command of files
 * (compare, info, diagnose, convert), a file to `check` (which compares run folders), or a folder of outside captures
 * to `check` (which reads heightbench's run folders: `import` makes one).
 * Inputs: the paths as given. Outputs: nothing, or a UsageError naming the path and the command to use.
 * Rules: only what exists is judged (a missing path is left to the command's own message); links are followed, as
 * the commands follow them.
 */
import { readdirSync, statSync } from 'node:fs';
import { FINAL_CODES_FILE } from '../runs/folder.js';
import { join } from 'node:path';
import { UsageError } from '../errors.js';

function kind(p: string): 'file' | 'folder' | null {
  try {
    const s = statSync(p);
    return s.isDirectory() ? 'folder' : s.isFile() ? 'file' : null;
  } catch {
    return null;
  }
}

/** A command of files given a folder: name `check` for run folders. */
export function refuseFolders(command: string, paths: readonly string[]): void {
  for (const p of paths) {
    if (kind(p) === 'folder')
      throw new UsageError(`${command}: ${p} is a folder; ${command} reads heightfield files — for two run folders use \`heightbench check GEN_DIR REF_DIR\``);
  }
}

/** Captures heightbench reads but a run folder does not hold under their own names. */
const OUTSIDE = /\.(npy|dds|exr|tif|tiff|png|r16|r32|raw)$/i;

/** `check` given files, or a folder of outside captures without final.r16: name `compare` or `import`. */
export function refuseNonRunFolders(paths: readonly string[]): void {
  for (const p of paths) {
    const k = kind(p);
    if (k === 'file') throw new UsageError(`check: ${p} is a file; check compares run folders — for two heightfield files use \`heightbench compare A B\``);
    if (k !== 'folder' || kind(join(p, FINAL_CODES_FILE)) !== null) continue;
    let entries: string[];
    try {
      entries = readdirSync(p);
    } catch {
      continue;
    }
    const captures = entries.filter((e) => OUTSIDE.test(e)).sort();
    if (captures.length) {
      const shown = captures.slice(0, 3).join(', ') + (captures.length > 3 ? `, … (${captures.length})` : '');
      throw new UsageError(
        `check: ${p} holds no final.r16 but captures (${shown}); check reads run folders — make one first with \`heightbench import --manifest FILE\` (or \`heightbench import FILE --stage NAME --out RUN_DIR\`)`,
      );
    }
  }
}
