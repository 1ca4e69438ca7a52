/**
 * Small path-aware checks for JSON documents (sidecars, configuration, requests).
 * Every refusal names the JSON path, what was expected and what was found, e.g.
 *   `grid.columns: expected an integer in [1, 1048576], found -3`.
 */
import { FormatError, show } from '../errors.js';

/** Longest JSON text parsed (characters; the file readers bound bytes the same way) [R]. */
export const MAX_JSON_TEXT = 16 * 1024 * 1024;

export type JsonObject = { [k: string]: unknown };

function fail(path: string, expected: string, found: unknown): never {
  throw new FormatError(`${path}: expected ${expected}, found ${show(found)}`);
}

export function checkObject(path: string, v: unknown): JsonObject {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) fail(path, 'an object', v);
  return v as JsonObject;
}

export function checkArray(path: string, v: unknown): unknown[] {
  if (!Array.isArray(v)) fail(path, 'an array', v);
  return v;
}

export function checkString(path: string, v: unknown): string {
  if (typeof v !== 'string') fail(path, 'a string', v);
  return v;
}

export function checkNullableString(path: string, v: unknown): string | null {
  if (v === null || v === undefined) return null;
  return checkString(path, v);
}

export function checkNumber(path: string, v: unknown, opts: { min?: number; max?: number; integer?: boolean } = {}): number {
  const { min = -Infinity, max = Infinity, integer = false } = opts;
  const what = `${integer ? 'an integer' : 'a number'}${Number.isFinite(min) || Number.isFinite(max) ? ` in [${min}, ${max}]` : ''}`;
  if (typeof v !== 'number' || !Number.isFinite(v)) fail(path, what, v);
  if (integer && !Number.isInteger(v)) fail(path, what, v);
  if (v < min || v > max) fail(path, what, v);
  return v;
}

export function checkOneOf<T extends string>(path: string, v: unknown, allowed: readonly T[]): T {
  if (typeof v !== 'string' || !(allowed as readonly string[]).includes(v)) {
    fail(path, `one of ${allowed.map((a) => JSON.stringify(a)).join(', ')}`, v);
  }
  return v as T;
}

export function checkLiteral<T extends string | number>(path: string, v: unknown, expected: T): T {
  if (v !== expected) fail(path, show(expected), v);
  return expected;
}

export function checkBoolean(path: string, v: unknown): boolean {
  if (typeof v !== 'boolean') fail(path, 'true or false', v);
  return v;
}

/** Deepest nesting of arrays and objects a JSON document may have [R]: real documents here nest under 10. */
export const MAX_JSON_DEPTH = 64;

/**
 * The nesting depth of JSON text, measured without parsing (strings skipped, escapes honoured); stops counting at
 * `limit` + 1. The parser itself recurses, so a document nested 10⁵ deep must be refused before it is parsed.
 */
export function jsonDepth(text: string, limit = MAX_JSON_DEPTH): number {
  let depth = 0;
  let max = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c) i++;
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x5b || c === 0x7b) {
      depth++;
      if (depth > max) {
        max = depth;
        if (max > limit) return max;
      }
    } else if (c === 0x5d || c === 0x7d) depth--;
  }
  return max;
}

/**
 * Parses JSON text, refusing with the file name and the parser's reason; documents nested deeper than
 * MAX_JSON_DEPTH or longer than MAX_JSON_TEXT characters are refused before parsing.
 */
export function parseJson(text: string, what: string): unknown {
  if (text.length > MAX_JSON_TEXT) throw new FormatError(`${what}: ${text.length} characters of JSON, over the limit of ${MAX_JSON_TEXT}`);
  if (jsonDepth(text) > MAX_JSON_DEPTH) throw new FormatError(`${what}: JSON nested deeper than ${MAX_JSON_DEPTH} levels; refused before parsing`);
  try {
    return JSON.parse(text) as unknown;
  } catch (e) {
    throw new FormatError(`${what}: not valid JSON (${(e as Error).message})`);
  }
}
