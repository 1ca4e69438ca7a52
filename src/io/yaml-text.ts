/**
 * The hardened YAML reader: a document's nesting is measured before the parser recurses (flow collections nested 10⁵
 * deep would grow its stack), aliases are bounded (a billion-laughs document is refused) and duplicate keys refused.
 * Inputs: YAML text (already bounded in bytes by readInputText) and a name for messages. Output: the parsed value.
 */
import { parse as parseYaml } from 'yaml';
import { FormatError } from '../errors.js';
import { MAX_JSON_DEPTH, jsonDepth, parseJson } from './json-check.js';

/** Parses YAML text, refusing with the file and the reason. */
export function parseYamlText(text: string, what: string): unknown {
  if (jsonDepth(text) > MAX_JSON_DEPTH) throw new FormatError(`${what}: YAML nested deeper than ${MAX_JSON_DEPTH} levels; refused before parsing`);
  try {
    return parseYaml(text, { maxAliasCount: 100, uniqueKeys: true }) as unknown;
  } catch (e) {
    throw new FormatError(`${what}: not valid YAML (${(e as Error).message.split('\n')[0]})`);
  }
}

/** JSON for a `.json` name, YAML otherwise (YAML is a superset of JSON, but JSON's own parser gives JSON's messages). */
export function parseDocument(text: string, what: string): unknown {
  return /\.json$/i.test(what) ? parseJson(text, what) : parseYamlText(text, what);
}
