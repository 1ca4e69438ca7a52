/**
 * Writing a report folder whole (compare --report, check --report, regress, the report index).
 *
 * Inputs: the target folder and a function that writes the report into a fresh staged folder it is given.
 * Output: the target replaced by the staged folder (src/io/folder-swap.ts), so a reader — and a write killed at any
 * moment, or failing on a full disk — leaves the old report whole or the new one whole, never a mix.
 * Rules [R]:
 *   - One writer per folder: a lock file `.<name>.lock` beside the target is created with O_EXCL and holds the
 *     writer's pid; a second writer is refused (exit 2) naming the pid, and a lock whose pid is gone is stale and
 *     taken over. The lock is removed at the end, whatever happened.
 *   - The staged folder is a sibling at the same depth, so relative links written into it (a shared plotly.min.js)
 *     hold once it is swapped in.
 *   - Entries of the old folder the new report does not write (a hashes.json written by another stage, a user's
 *     notes) are carried into the staged folder as hard links before the swap: nothing of the user's is dropped.
 *   - A target that is a symbolic link or a file is refused: the report never replaces something it did not make.
 */
import { closeSync, constants, cpSync, linkSync, lstatSync, openSync, readdirSync, readFileSync, unlinkSync, writeSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { UsageError } from '../errors.js';
import { mkdirStep } from './fs-ops.js';
import { hiddenBase } from './atomic.js';
import { openStagedFolder } from './folder-swap.js';

function lockPathOf(target: string): string {
  return join(dirname(target), `.${hiddenBase(basename(target))}.lock`);
}

function alive(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Takes the folder's lock (see the header) and returns a function that releases it. */
export function lockFolder(target: string): () => void {
  const lock = lockPathOf(target);
  for (let attempt = 0; attempt < 3; attempt++) {
    let fd: number;
    try {
      fd = openSync(lock, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, 0o644);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
      let holder = Number.NaN;
      try {
        holder = Number(readFileSync(lock, 'utf8').trim());
      } catch {
        /* vanished or unreadable: judged stale below */
      }
      if (alive(holder)) {
        throw new UsageError(`${target}: another heightbench (pid ${holder}) is writing this report folder (lock ${lock}); wait for it or remove the lock`);
      }
      try {
        unlinkSync(lock); // stale: its writer is gone
      } catch {
        /* another writer took it over first; try again */
      }
      continue;
    }
    try {
      writeSync(fd, `${process.pid}\n`);
    } finally {
      closeSync(fd);
    }
    return () => {
      try {
        unlinkSync(lock);
      } catch {
        /* already gone */
      }
    };
  }
  throw new UsageError(`${target}: could not take the report folder's lock ${lock} (other writers keep taking it)`);
}

/** Hard-links (or copies) every entry of `from` that `to` does not have into `to`, except the names `owned`. */
function carryOver(from: string, to: string, owned: ReadonlySet<string>): void {
  for (const e of readdirSync(from)) {
    if (owned.has(e)) continue; // the writer's own output: an earlier version of it is never carried
    const src = join(from, e);
    const dst = join(to, e);
    try {
      lstatSync(dst);
      continue; // the new report wrote it
    } catch {
      /* not written: carry it */
    }
    const st = lstatSync(src);
    if (st.isFile()) {
      try {
        linkSync(src, dst);
        continue;
      } catch {
        /* another file system or no hard links: copy */
      }
    }
    cpSync(src, dst, { recursive: true, verbatimSymlinks: true, errorOnExist: true, force: false });
  }
}

/**
 * Writes a report folder whole: `build` writes into a staged sibling folder, which then replaces `target`
 * (see the header). Entries of the old folder the new one lacks are kept, except `owned` names (what this writer
 * produces — an earlier report's tiles or cards would only mislead). Returns what `build` returns.
 */
export function writeFolderWhole<T>(target: string, build: (stage: string) => T, opts: { owned?: readonly string[] } = {}): T {
  const owned = new Set(opts.owned ?? []);
  const abs = resolve(target);
  try {
    const st = lstatSync(abs);
    if (st.isSymbolicLink()) throw new UsageError(`${target}: is a symbolic link; a report folder is replaced whole, so give a real folder or a new name`);
    if (!st.isDirectory()) throw new UsageError(`${target}: is a file, expected a report folder`);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
  }
  mkdirStep(dirname(abs));
  const release = lockFolder(abs);
  try {
    const folder = openStagedFolder(abs);
    try {
      const result = build(folder.dir);
      try {
        if (lstatSync(abs).isDirectory()) carryOver(abs, folder.dir, owned);
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
      }
      folder.commit();
      return result;
    } finally {
      folder.dispose();
    }
  } finally {
    release();
  }
}
