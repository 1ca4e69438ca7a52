/**
 * Error types shared by the library and the CLI, and the exit codes they map to.
 *
 * Exit codes (README "Exit status"):
 *   0 success · 1 internal failure (a bug: printed with its stack) · 2 the user's input or environment (one line)
 *   · 3 a gate failed (compare, check --strict).
 *
 * Only errors thrown on purpose count as input errors: the `InputError` family (FormatError, MismatchError,
 * UsageError, LimitError, FileSystemError) and the branded `InputRangeError` / `InputTypeError` that public functions
 * throw for bad arguments (they stay `instanceof RangeError` / `TypeError` for library callers). A plain TypeError or
 * RangeError — "Cannot read properties of undefined", "Invalid array length" — comes from inside heightbench and is a
 * bug (exit 1), never disguised as bad input. Node file-system failures (ENOSPC, EACCES, ENOTDIR, …) are the user's
 * environment: exit 2, one line naming the path and the cause.
 */

export const EXIT_OK = 0;
export const EXIT_INTERNAL = 1;
export const EXIT_INPUT = 2;
export const EXIT_GATE = 3;

/** Base of every error caused by the caller's input or environment (exit 2). */
export class InputError extends Error {
  override readonly name: string = 'InputError';
  constructor(message: string) {
    super(message);
  }
}

/** A file that cannot be read as what it claims to be. */
export class FormatError extends InputError {
  override readonly name: string = 'FormatError';
}

/** A request that does not fit the grid or settings it was made against (mismatched sizes, ranges, conventions). */
export class MismatchError extends InputError {
  override readonly name: string = 'MismatchError';
}

/** A command-line value or combination that is not allowed (empty path, bad number). */
export class UsageError extends InputError {
  override readonly name: string = 'UsageError';
}

/** A size, count or step over a documented limit, refused before any work starts. */
export class LimitError extends InputError {
  override readonly name: string = 'LimitError';
}

/** A file-system failure in the user's environment, with the path and the cause. */
export class FileSystemError extends InputError {
  override readonly name: string = 'FileSystemError';
}

/** A RangeError thrown deliberately for a bad argument (a validation, not a bug). */
export class InputRangeError extends RangeError {
  override readonly name: string = 'RangeError';
  readonly deliberate = true;
}

/** A TypeError thrown deliberately for an argument of the wrong type (a validation, not a bug). */
export class InputTypeError extends TypeError {
  override readonly name: string = 'TypeError';
  readonly deliberate = true;
}

const FS_CAUSES: Record<string, string> = {
  ENOENT: 'no such file or folder',
  ENOTDIR: 'a part of the path is a file, not a folder',
  EISDIR: 'is a folder, expected a file',
  EEXIST: 'already exists',
  EACCES: 'permission denied',
  EPERM: 'operation not permitted',
  EROFS: 'read-only file system',
  ENOSPC: 'no space left on the device',
  EDQUOT: 'disk quota exceeded',
  ENOTEMPTY: 'folder is not empty',
  EMFILE: 'too many open files',
  ENFILE: 'too many open files in the system',
  ENAMETOOLONG: 'file name too long',
  ELOOP: 'too many symbolic links',
  EXDEV: 'cross-device rename',
  EBUSY: 'resource busy',
  EIO: 'input/output error',
  EFBIG: 'file too large',
  ENXIO: 'no such device',
  ETXTBSY: 'text file busy',
  EINVAL: 'invalid argument',
};

/**
 * A Node file-system error: the fields of NodeJS.ErrnoException this module reads, declared here so that the published
 * types do not need @types/node.
 */
export interface ErrnoLike extends Error {
  code?: string;
  syscall?: string;
  path?: string;
  errno?: number;
}

/** True for a Node file-system error (an errno code from a syscall). */
export function isFileSystemErrno(e: unknown): e is ErrnoLike {
  if (!(e instanceof Error)) return false;
  const err = e as ErrnoLike;
  return typeof err.code === 'string' && typeof err.syscall === 'string' && err.code in FS_CAUSES;
}

/** One line naming the path and the cause of a file-system error. */
export function fileSystemMessage(e: ErrnoLike): string {
  const cause = FS_CAUSES[e.code ?? ''] ?? e.message;
  const dest = (e as { dest?: string }).dest;
  const where = e.path ? (dest ? `${e.path} → ${dest}` : e.path) : '(no path)';
  return `${where}: ${cause} (${e.code}, ${e.syscall})`;
}

/** True for errors caused by the caller's input or environment rather than by a bug in heightbench. */
export function isInputError(e: unknown): e is Error {
  return e instanceof InputError || e instanceof InputRangeError || e instanceof InputTypeError || isFileSystemErrno(e) || hasInputExitCode(e);
}

/**
 * Modules kept free of imports from the rest of heightbench (src/gpu, the independent reference) mark their input and
 * environment errors with `exitCode = 2` instead of extending InputError.
 */
function hasInputExitCode(e: unknown): boolean {
  return e instanceof Error && (e as { exitCode?: unknown }).exitCode === EXIT_INPUT;
}

/** The one-line message of an input error (file-system errors get path and cause). */
export function inputErrorMessage(e: Error): string {
  return isFileSystemErrno(e) ? fileSystemMessage(e) : e.message;
}

/** The longest rendering of a value in a message [R]: a refusal is one line naming the value, not the value's dump. */
const SHOW_MAX_CHARS = 200;

/**
 * Formats a value for an error message: numbers keep full precision, strings are quoted; long renderings are cut to
 * SHOW_MAX_CHARS. Never throws: a value too deeply nested to render (JSON.stringify and String both overflow the
 * stack on an array nested 10^5 deep, as a hostile document holds) is named by its kind.
 */
export function show(value: unknown): string {
  if (typeof value === 'number') return Object.is(value, -0) ? '-0' : String(value);
  if (value === undefined) return 'undefined';
  let text: string;
  try {
    text = JSON.stringify(value) ?? String(value);
  } catch {
    try {
      text = String(value);
    } catch {
      text = Array.isArray(value) ? 'an array too deeply nested to show' : `a ${typeof value} too deeply nested to show`;
    }
  }
  return text.length > SHOW_MAX_CHARS ? `${text.slice(0, SHOW_MAX_CHARS)}… (${text.length} characters)` : text;
}

export function requireInteger(name: string, value: unknown, min: number, max: number): number {
  if (typeof value !== 'number' || !Number.isInteger(value)) {
    throw new InputTypeError(`${name}: expected an integer in [${min}, ${max}], got ${show(value)}`);
  }
  if (value < min || value > max) {
    throw new InputRangeError(`${name}: expected an integer in [${min}, ${max}], got ${value}`);
  }
  return value;
}

export function requireFinite(name: string, value: unknown): number {
  if (typeof value !== 'number') throw new InputTypeError(`${name}: expected a finite number, got ${show(value)}`);
  if (!Number.isFinite(value)) throw new InputRangeError(`${name}: expected a finite number, got ${show(value)}`);
  return value;
}
