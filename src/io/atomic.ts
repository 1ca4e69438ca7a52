/**
 * Atomic file writes: write a temporary file in the destination's folder, flush it, then rename it over the real
 * name. An interrupted write leaves, at worst, a hidden temporary file — never a partial file under the real name.
 */
import { closeSync, fsyncSync, openSync, renameSync, unlinkSync, writeSync, mkdirSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { randomBytes } from 'node:crypto';

/** The temporary name used while `path` is being written (same folder, so the rename stays on one filesystem). */
export function temporaryPathFor(path: string): string {
  return join(dirname(path), `.${basename(path)}.tmp-${process.pid}-${randomBytes(4).toString('hex')}`);
}

/** Test hook: called after the temporary file is complete and before the rename. */
export interface AtomicWriteHooks {
  beforeRename?: (temporaryPath: string) => void;
}

export function writeFileAtomic(path: string, data: Uint8Array | string, hooks: AtomicWriteHooks = {}): void {
  mkdirSync(dirname(path), { recursive: true });
  const tmp = temporaryPathFor(path);
  const bytes = typeof data === 'string' ? Buffer.from(data, 'utf8') : data;
  let fd = -1;
  try {
    fd = openSync(tmp, 'wx', 0o644);
    let off = 0;
    while (off < bytes.length) off += writeSync(fd, bytes, off, bytes.length - off);
    fsyncSync(fd);
    closeSync(fd);
    fd = -1;
    hooks.beforeRename?.(tmp);
    renameSync(tmp, path);
  } catch (e) {
    if (fd >= 0) closeSync(fd);
    try {
      unlinkSync(tmp);
    } catch {
      /* already gone */
    }
    throw e;
  }
}
