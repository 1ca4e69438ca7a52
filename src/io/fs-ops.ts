/**
 * The file-system steps heightbench's writers take, each one a point where a fault can be injected.
 *
 * Every writer that must leave no partial output (atomic files, file + sidecar pairs, run folders, references) goes
 * through these functions, so a test can fail the k-th step and check what a reader sees afterwards:
 *  - mode 'error': only that step fails (as ENOSPC or EACCES would); the writer's own clean-up still runs;
 *  - mode 'crash': that step and every later one fail, clean-up included — what a kill (or power loss) leaves.
 * Without a fault plan the steps are plain Node calls.
 */
import { closeSync, existsSync, fsyncSync, mkdirSync, openSync, renameSync, rmSync, statSync, unlinkSync, writeSync } from 'node:fs';
import { dirname } from 'node:path';

export type FsStepKind = 'write' | 'rename' | 'unlink' | 'rm' | 'mkdir' | 'fsync-dir';

export interface FsStep {
  kind: FsStepKind;
  path: string;
  to?: string;
}

export interface FaultPlan {
  /** 0-based index of the step to fail; steps before it succeed. */
  at: number;
  mode: 'error' | 'crash';
  /** errno code of the injected failure (default ENOSPC). */
  code?: string;
}

interface FaultState {
  plan: FaultPlan | null;
  count: number;
  crashed: boolean;
  log: FsStep[];
}

const state: FaultState = { plan: null, count: 0, crashed: false, log: [] };

function injected(step: FsStep, code: string): NodeJS.ErrnoException {
  const e = new Error(`${code}: injected fault at ${step.kind} ${step.path}`) as NodeJS.ErrnoException;
  e.code = code;
  e.syscall = step.kind === 'fsync-dir' ? 'fsync' : step.kind;
  e.path = step.path;
  if (step.to) (e as { dest?: string }).dest = step.to;
  return e;
}

let recording = false;

function before(step: FsStep): void {
  if (recording) state.log.push(step);
  const p = state.plan;
  if (!p) return;
  const i = state.count++;
  if (state.crashed) throw injected(step, 'EIO');
  if (i === p.at) {
    if (p.mode === 'crash') state.crashed = true;
    throw injected(step, p.code ?? 'ENOSPC');
  }
}

/**
 * Runs `fn` with a fault plan (or none: just records the steps) and returns the steps it attempted and whether the
 * fault fired. Test helper; not re-entrant.
 */
export function withFaults<T>(plan: FaultPlan | null, fn: () => T): { steps: FsStep[]; fired: boolean; result?: T; error?: unknown } {
  state.plan = plan;
  state.count = 0;
  state.crashed = false;
  state.log = [];
  recording = true;
  try {
    const result = fn();
    return { steps: state.log, fired: plan !== null && state.count > plan.at, result };
  } catch (error) {
    return { steps: state.log, fired: plan !== null && state.count > plan.at, error };
  } finally {
    state.plan = null;
    state.crashed = false;
    recording = false;
  }
}

/** Async variant of withFaults (for the CLI entry point). */
export async function withFaultsAsync<T>(
  plan: FaultPlan | null,
  fn: () => Promise<T>,
): Promise<{ steps: FsStep[]; fired: boolean; result?: T; error?: unknown }> {
  state.plan = plan;
  state.count = 0;
  state.crashed = false;
  state.log = [];
  recording = true;
  try {
    const result = await fn();
    return { steps: state.log, fired: plan !== null && state.count > plan.at, result };
  } catch (error) {
    return { steps: state.log, fired: plan !== null && state.count > plan.at, error };
  } finally {
    state.plan = null;
    state.crashed = false;
    recording = false;
  }
}

/** Creates `path` (which must not exist), writes all of `bytes`, flushes it to disk and closes it: one step. */
export function writeNewFileDurable(path: string, bytes: Uint8Array): void {
  before({ kind: 'write', path });
  const fd = openSync(path, 'wx', 0o644);
  try {
    let off = 0;
    while (off < bytes.length) off += writeSync(fd, bytes, off, bytes.length - off);
    fsyncSync(fd);
  } catch (e) {
    throw withPath(e, path);
  } finally {
    closeSync(fd);
  }
}

/**
 * A write or fsync on a descriptor fails without a path (ENOSPC, EDQUOT, EIO): the path is added, so the one-line
 * message names the file instead of "(no path)".
 */
export function withPath(e: unknown, path: string): unknown {
  const err = e as NodeJS.ErrnoException;
  if (e instanceof Error && typeof err.code === 'string' && !err.path) err.path = path;
  return e;
}

export function renameStep(from: string, to: string): void {
  before({ kind: 'rename', path: from, to });
  renameSync(from, to);
}

/** Removes a file; a file already gone is fine. */
export function unlinkStep(path: string): void {
  before({ kind: 'unlink', path });
  try {
    unlinkSync(path);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
  }
}

/** Removes a folder tree; one already gone is fine. */
export function rmTreeStep(path: string): void {
  before({ kind: 'rm', path });
  rmSync(path, { recursive: true, force: true });
}

export function mkdirStep(path: string): void {
  before({ kind: 'mkdir', path });
  mkdirTree(path);
}

/**
 * mkdir -p, one level at a time. [R] Not Node's `recursive: true`, which loops forever where a file system answers
 * ENOENT for a child of a folder that exists (procfs: `mkdir /proc/x`); here that ENOENT is thrown.
 */
export function mkdirTree(path: string): void {
  try {
    mkdirSync(path);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'EEXIST' && statSync(path).isDirectory()) return;
    const parent = dirname(path);
    if (code !== 'ENOENT' || parent === path || existsSync(parent)) throw e;
    mkdirTree(parent);
    mkdirSync(path);
  }
}

/** Flushes a folder's entries (the renames in it) to disk; best effort where the platform cannot. */
export function fsyncDirStep(dir: string): void {
  before({ kind: 'fsync-dir', path: dir });
  let fd = -1;
  try {
    fd = openSync(dir, 'r');
    fsyncSync(fd);
  } catch {
    /* not supported here (e.g. some network file systems): the renames are still atomic, only durability waits */
  } finally {
    if (fd >= 0) closeSync(fd);
  }
}

/** What a path names, links followed: a regular file, a folder, or neither (missing, or another kind). */
export function pathKind(p: string): 'file' | 'folder' | null {
  try {
    const s = statSync(p);
    return s.isDirectory() ? 'folder' : s.isFile() ? 'file' : null;
  } catch {
    return null;
  }
}
