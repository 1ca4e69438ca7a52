/**
 * Atomic writes of one file, and of a heightfield file with its sidecar as a pair.
 *
 * One file: written to a hidden temporary name in the destination's folder, flushed, then renamed over the real name.
 * An interrupted write leaves, at worst, a hidden temporary file — never a partial file under the real name.
 *
 * A pair (README "Atomicity"): the sidecar is the commit record, and it names the payload's SHA-256.
 *   1. the payload is written and flushed under `.<name>.pending-<first 16 hex of its SHA-256>` (no reader opens it
 *      by that name unless a sidecar names that hash);
 *   2. the sidecar is written and flushed under a temporary name;
 *   3. the sidecar is renamed to `<name>.json` — the commit point;
 *   4. the pending payload is renamed to `<name>`; the folder is flushed.
 * A reader takes `<name>.json`, then `<name>`; when `<name>` is missing or its hash is not the sidecar's, it reads
 * the pending file the sidecar's hash names (hash-checked), else refuses with the reason. So at every instant a reader
 * sees the old pair or the new pair, never a payload without its sidecar nor a payload with another's sidecar.
 * The next write to the same name first finishes a committed pending payload (step 4), then removes leftovers.
 * One writer at a time per name is assumed (heightbench never runs two on the same file).
 */
import { createHash } from 'node:crypto';
import { existsSync, lstatSync, readdirSync, readFileSync, type Stats } from 'node:fs';
import { UsageError } from '../errors.js';
import { basename, dirname, join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { fsyncDirStep, mkdirStep, renameStep, unlinkStep, writeNewFileDurable } from './fs-ops.js';

/** Longest name (bytes) kept as it is inside a hidden working name; file systems allow 255 per component [R]. */
const MAX_KEPT_NAME_BYTES = 200;

/**
 * The part of a hidden working name (temporary, pending, prepared, staged, lock) that stands for `name`: the name
 * itself, or — when it is so long that a suffix would push the component past 255 bytes — a hash of it (the same
 * name always gives the same stand-in, so leftovers are still found by prefix).
 */
export function hiddenBase(name: string): string {
  if (Buffer.byteLength(name, 'utf8') <= MAX_KEPT_NAME_BYTES) return name;
  return `h-${createHash('sha256').update(name).digest('hex').slice(0, 32)}`;
}

/** The temporary name used while `path` is being written (same folder, so the rename stays on one filesystem). */
export function temporaryPathFor(path: string): string {
  return join(dirname(path), `.${hiddenBase(basename(path))}.tmp-${process.pid}-${randomBytes(4).toString('hex')}`);
}

/**
 * Where a payload written ahead of its pair's commit waits (a background writer's file, commitPreparedPair): a hidden
 * name that recoverPair removes as a leftover, except the one being committed.
 */
export function preparedPathFor(path: string): string {
  return join(dirname(path), `.${hiddenBase(basename(path))}.prepared-${process.pid}-${randomBytes(4).toString('hex')}`);
}

/** Where a pair's payload waits between its sidecar's commit and its final rename. */
export function pendingPathFor(path: string, sha256: string): string {
  return join(dirname(path), `.${hiddenBase(basename(path))}.pending-${sha256.slice(0, 16)}`);
}

/** Test hook: called after the temporary file is complete and before the rename. */
export interface AtomicWriteHooks {
  beforeRename?: (temporaryPath: string) => void;
}

function bestEffortUnlink(path: string): void {
  try {
    unlinkStep(path);
  } catch {
    /* a crash or a second failure: the next write of this name removes it */
  }
}

export function writeFileAtomic(path: string, data: Uint8Array | string, hooks: AtomicWriteHooks = {}): void {
  mkdirStep(dirname(path));
  const tmp = temporaryPathFor(path);
  const bytes = typeof data === 'string' ? Buffer.from(data, 'utf8') : data;
  try {
    writeNewFileDurable(tmp, bytes);
    hooks.beforeRename?.(tmp);
    renameStep(tmp, path);
  } catch (e) {
    bestEffortUnlink(tmp);
    throw e;
  }
}

function sha256Of(bytes: Uint8Array): string {
  return createHash('sha256').update(bytes).digest('hex');
}

/**
 * Finishes or clears an earlier interrupted pair write of `dataPath`: a pending payload that the committed sidecar
 * names is moved in (when the payload under the real name is not already it); every other leftover of this name
 * (pending payloads, temporary files) is removed.
 */
export function recoverPair(dataPath: string, committedSha: string | null, keep: string | null = null): void {
  const dir = dirname(dataPath);
  const base = basename(dataPath);
  let entries: string[];
  try {
    entries = readdirSync(dir);
  } catch {
    return;
  }
  const h = (n: string) => `.${hiddenBase(n)}`;
  const prefixes = [`${h(base)}.pending-`, `${h(base)}.tmp-`, `${h(`${base}.json`)}.tmp-`, `${h(base)}.prepared-`];
  const kept = keep === null ? null : basename(keep);
  const leftovers = entries.filter((e) => e !== kept && prefixes.some((p) => e.startsWith(p)));
  if (leftovers.length === 0) return;
  const committed = committedSha ? basename(pendingPathFor(dataPath, committedSha)) : null;
  for (const e of leftovers) {
    const p = join(dir, e);
    if (e === committed) {
      const current = existsSync(dataPath) ? sha256Of(readFileSync(dataPath)) : null;
      if (current !== committedSha && sha256Of(readFileSync(p)) === committedSha) {
        renameStep(p, dataPath);
        continue;
      }
    }
    unlinkStep(p);
  }
}

/**
 * Writes a payload and its sidecar so that a reader sees the old pair or the new pair, never a mix (see the header).
 * `committedSha` reads the SHA-256 named by the sidecar currently at `sidecarPath` (null when none or unreadable).
 */
export function writeFilePairAtomic(
  dataPath: string,
  payload: Uint8Array,
  payloadSha256: string,
  sidecarPath: string,
  sidecarText: string,
  committedSha: () => string | null,
): void {
  commitPair(dataPath, payloadSha256, sidecarPath, sidecarText, committedSha, null, (pending) => writeNewFileDurable(pending, payload));
}

/**
 * writeFilePairAtomic for a payload already written and flushed at `preparedPath` (by a background writer) whose
 * SHA-256 is `payloadSha256`: the prepared file becomes the pending payload (step 1 by a rename), then the pair is
 * committed exactly as writeFilePairAtomic commits it. On a failure before the commit point nothing of the new pair
 * is left, the prepared file included.
 */
export function commitPreparedPair(
  dataPath: string,
  preparedPath: string,
  payloadSha256: string,
  sidecarPath: string,
  sidecarText: string,
  committedSha: () => string | null,
): void {
  commitPair(dataPath, payloadSha256, sidecarPath, sidecarText, committedSha, preparedPath, (pending) => renameStep(preparedPath, pending));
}

/** The pair protocol (see the header); `placePending` puts the flushed payload at the pending name (step 1). */
function commitPair(
  dataPath: string,
  payloadSha256: string,
  sidecarPath: string,
  sidecarText: string,
  committedSha: () => string | null,
  preparedPath: string | null,
  placePending: (pending: string) => void,
): void {
  const dir = dirname(dataPath);
  const pending = pendingPathFor(dataPath, payloadSha256);
  const tmpSidecar = temporaryPathFor(sidecarPath);
  // Before anything of this write exists: a failure here must not touch `pending`, which may be a committed payload
  // of the same bytes that recoverPair is moving in (a rerun after a crash).
  try {
    mkdirStep(dir);
    recoverPair(dataPath, committedSha(), preparedPath);
  } catch (e) {
    if (preparedPath) bestEffortUnlink(preparedPath);
    throw e;
  }
  try {
    placePending(pending);
    writeNewFileDurable(tmpSidecar, Buffer.from(sidecarText, 'utf8'));
    renameStep(tmpSidecar, sidecarPath); // commit point
  } catch (e) {
    bestEffortUnlink(tmpSidecar);
    bestEffortUnlink(pending);
    if (preparedPath) bestEffortUnlink(preparedPath);
    throw e;
  }
  // Committed: from here a failure leaves the new pair readable through its pending payload, and the next write
  // of this name moves it in.
  renameStep(pending, dataPath);
  fsyncDirStep(dir);
}

/** Copies `src` to `dest` by writeFileAtomic: a link planted at `dest` is replaced by the copy, never written through. */
export function copyFileAtomic(src: string, dest: string): void {
  writeFileAtomic(dest, readFileSync(src));
}

/**
 * A file shared by several outputs (one plotly.min.js for every report under a folder): `dest` is kept when it is a
 * regular file, created from `src` (atomically) when nothing is there, and refused when it is a symbolic link —
 * dangling or not — or anything else: heightbench does not write where a link it did not create points.
 */
export function ensureSharedCopy(src: string, dest: string, what: string): void {
  let st: Stats | null = null;
  try {
    st = lstatSync(dest);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
  }
  if (st === null) {
    copyFileAtomic(src, dest);
    return;
  }
  if (st.isSymbolicLink()) throw new UsageError(`${what} ${dest}: is a symbolic link; give the real file (heightbench does not write through links)`);
  if (!st.isFile()) throw new UsageError(`${what} ${dest}: is not a regular file`);
}
