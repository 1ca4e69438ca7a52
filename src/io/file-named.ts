/**
 * Errors that name the file they are about: a refusal of the core's checks ("grid.xmin: …") says which file, and
 * which side of a two-file command, it came from.
 */
import { InputError, InputRangeError, InputTypeError } from '../errors.js';

/**
 * Runs a read of `path`; an input error whose message does not name the file (a grid built from flags and the file's
 * size, refused by the core's checks as "grid.xmin: …") is thrown again, of the same class, with the file named first.
 */
export function namingFile<T>(path: string, read: () => T): T {
  try {
    return read();
  } catch (e) {
    throw named(path, e);
  }
}

/**
 * The error of reading one side of a two-file command, the side named first ("generated side PATH: …", "reference
 * PATH: …"), so that a refusal says which side even when both sides are the same file.
 */
export function sideNamed(side: string, path: string, e: unknown): unknown {
  const n = named(path, e);
  if (!(n instanceof InputError || n instanceof InputRangeError || n instanceof InputTypeError) || n.message.startsWith(side)) return n;
  const Same = n.constructor as new (message: string) => Error;
  return new Same(`${side} ${n.message}`);
}

/** The error with `path` named first when it is an input error that does not name it. */
export function named(path: string, e: unknown): unknown {
  const ours = e instanceof InputError || e instanceof InputRangeError || e instanceof InputTypeError;
  if (!ours || e.message.includes(path)) return e;
  const Same = e.constructor as new (message: string) => Error;
  return new Same(`${path}: ${e.message}`);
}
