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
  let value: unknown;
  try {
    value = JSON.parse(text) as unknown;
  } catch (e) {
    throw new FormatError(`${what}: not valid JSON (${(e as Error).message})`);
  }
  const dup = duplicateKey(text);
  if (dup)
    throw new FormatError(
      `${what}: key ${JSON.stringify(dup.key)} appears twice in one object (the second at character ${dup.at}); which value holds is ambiguous`,
    );
  return value;
}

/**
 * The first key that one object of valid JSON `text` names twice, or null. [R] JSON.parse keeps the last silently; a
 * sidecar or record saying two things is refused instead. One pass over the text: a set of keys per open object, a
 * string being a key when a colon follows it (escaped keys decoded, so "a" and "\u0061" are one key).
 */
export function duplicateKey(text: string): { key: string; at: number } | null {
  const open: (Set<string> | null)[] = [];
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x22) {
      const start = i;
      let escaped = false;
      for (i++; i < text.length; i++) {
        const d = text.charCodeAt(i);
        if (d === 0x5c) {
          escaped = true;
          i++;
        } else if (d === 0x22) break;
      }
      let j = i + 1;
      while (j < text.length && (text.charCodeAt(j) === 0x20 || text.charCodeAt(j) === 0x0a || text.charCodeAt(j) === 0x0d || text.charCodeAt(j) === 0x09)) j++;
      const keys = open[open.length - 1];
      if (text.charCodeAt(j) === 0x3a && keys) {
        const key = escaped ? (JSON.parse(text.slice(start, i + 1)) as string) : text.slice(start + 1, i);
        if (keys.has(key)) return { key, at: start };
        keys.add(key);
      }
    } else if (c === 0x7b) open.push(new Set());
    else if (c === 0x5b) open.push(null);
    else if (c === 0x7d || c === 0x5d) open.pop();
  }
  return null;
}
