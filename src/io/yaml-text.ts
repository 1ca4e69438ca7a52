/**
 * The hardened YAML reader: a document's nesting is measured before the parser recurses (flow collections nested 10⁵
 * deep would grow its stack), aliases are bounded (a billion-laughs document is refused) and duplicate keys refused.
 * Inputs: YAML text (already bounded in bytes by readInputText) and a name for messages. Output: the parsed value.
 */
import { parse as parseYaml } from 'yaml';
import { FormatError } from '../errors.js';
import { MAX_JSON_DEPTH, jsonDepth, parseJson } from './json-check.js';

/**
 * Parses YAML text, refusing with the file and the reason. Flow nesting is measured before parsing; block nesting
 * (indentation) cannot be without parsing, so a parser that runs out of stack is refused as nesting too, and the
 * parsed value is measured again (iteratively) before any recursive consumer sees it.
 */
export function parseYamlText(text: string, what: string): unknown {
  const deep = (): FormatError => new FormatError(`${what}: YAML nested deeper than ${MAX_JSON_DEPTH} levels; refused`);
  if (jsonDepth(text) > MAX_JSON_DEPTH) throw new FormatError(`${what}: YAML nested deeper than ${MAX_JSON_DEPTH} levels; refused before parsing`);
  let doc: unknown;
  try {
    doc = parseYaml(text, { maxAliasCount: 100, uniqueKeys: true }) as unknown;
  } catch (e) {
    if (e instanceof Error && /maximum call stack/i.test(e.message)) throw deep();
    throw new FormatError(`${what}: not valid YAML (${(e as Error).message.split('\n')[0]})`);
  }
  if (valueDepth(doc, MAX_JSON_DEPTH) > MAX_JSON_DEPTH) throw deep();
  return doc;
}

/** The nesting depth of a parsed value, measured without recursion; stops counting past `limit`. */
function valueDepth(v: unknown, limit: number): number {
  let max = 0;
  const stack: [unknown, number][] = [[v, 0]];
  while (stack.length > 0) {
    const [x, d] = stack.pop() as [unknown, number];
    if (x === null || typeof x !== 'object') continue;
    if (d + 1 > max) max = d + 1;
    if (max > limit) return max;
    for (const c of Array.isArray(x) ? x : Object.values(x as Record<string, unknown>)) stack.push([c, d + 1]);
  }
  return max;
}

/** JSON for a `.json` name, YAML otherwise (YAML is a superset of JSON, but JSON's own parser gives JSON's messages). */
export function parseDocument(text: string, what: string): unknown {
  return /\.json$/i.test(what) ? parseJson(text, what) : parseYamlText(text, what);
}
