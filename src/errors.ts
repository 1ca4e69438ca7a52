/**
 * Error types shared by the library and the CLI.
 *
 * Public functions throw RangeError / TypeError for bad arguments (expected vs actual in the message).
 * Files that cannot be read as what they claim to be throw FormatError. The CLI maps all three to exit code 2
 * ("bad input"); anything else is an internal failure (exit code 1).
 */
export class FormatError extends Error {
  override readonly name = 'FormatError';
  constructor(message: string) {
    super(message);
  }
}

/** A request that does not fit the grid or settings it was made against (mismatched sizes, ranges, conventions). */
export class MismatchError extends Error {
  override readonly name = 'MismatchError';
  constructor(message: string) {
    super(message);
  }
}

/** True for errors caused by the caller's input rather than by a bug in heightbench. */
export function isInputError(e: unknown): e is Error {
  return e instanceof FormatError || e instanceof MismatchError || e instanceof RangeError || e instanceof TypeError;
}

/** Formats a value for an error message: numbers keep full precision, strings are quoted. */
export function show(value: unknown): string {
  if (typeof value === 'string') return JSON.stringify(value);
  if (typeof value === 'number') return Object.is(value, -0) ? '-0' : String(value);
  if (value === undefined) return 'undefined';
  try {
    return JSON.stringify(value);
  } catch {
    return String(value);
  }
}

export function requireInteger(name: string, value: unknown, min: number, max: number): number {
  if (typeof value !== 'number' || !Number.isInteger(value)) {
    throw new TypeError(`${name}: expected an integer in [${min}, ${max}], got ${show(value)}`);
  }
  if (value < min || value > max) {
    throw new RangeError(`${name}: expected an integer in [${min}, ${max}], got ${value}`);
  }
  return value;
}

export function requireFinite(name: string, value: unknown): number {
  if (typeof value !== 'number') throw new TypeError(`${name}: expected a finite number, got ${show(value)}`);
  if (!Number.isFinite(value)) throw new RangeError(`${name}: expected a finite number, got ${show(value)}`);
  return value;
}
