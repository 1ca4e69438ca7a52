/**
 * params.yaml, read once and checked: the runs of the reproduce pipeline (name → request and size) and the dump
 * window. Inputs: the project root. Output: a Map keyed by run name (never a plain object: a run named `__proto__`
 * must not reach Object.prototype), every run name and request id checked by checkName (src/core/names.ts), sizes as
 * integers in [16, 16384]. Refusals are FormatError/UsageError (exit 2) naming the key and the value.
 */
import { join } from 'node:path';
import { FormatError } from '../errors.js';
import { checkName } from '../core/names.js';
import { checkNumber, checkObject, checkString } from '../io/json-check.js';
import { parseYamlText } from '../io/yaml-text.js';
import { readInputText } from '../io/read-input.js';

export interface ParamsRun {
  request: string;
  size: number;
}

export interface ProjectParams {
  dumpWindow: number | undefined;
  runs: Map<string, ParamsRun>;
  /** gpu.adapter: the adapter spec the GPU references are made on (swiftshader: reproducible). */
  gpu: { adapter: string | undefined };
}

/** Parses YAML text (a document of at most MAX_JSON_BYTES, aliases and flow nesting bounded): src/io/yaml-text.ts. */
export { parseYamlText };

export function parseParams(v: unknown, what = 'params.yaml'): ProjectParams {
  const o = v === null || v === undefined ? {} : checkObject(what, v);
  const runs = new Map<string, ParamsRun>();
  const r = o.runs === undefined || o.runs === null ? {} : checkObject(`${what}: runs`, o.runs);
  for (const name of Object.keys(r)) {
    checkName('run', name);
    const e = checkObject(`${what}: runs.${name}`, r[name]);
    runs.set(name, {
      request: checkName('request', checkString(`${what}: runs.${name}.request`, e.request)),
      size: checkNumber(`${what}: runs.${name}.size`, e.size, { integer: true, min: 16, max: 16384 }),
    });
  }
  const dumpWindow = o.dumpWindow === undefined || o.dumpWindow === null ? undefined : checkNumber(`${what}: dumpWindow`, o.dumpWindow, { min: 0 });
  const g = o.gpu === undefined || o.gpu === null ? {} : checkObject(`${what}: gpu`, o.gpu);
  const adapter = g.adapter === undefined || g.adapter === null ? undefined : checkString(`${what}: gpu.adapter`, g.adapter);
  return { dumpWindow, runs, gpu: { adapter } };
}

/** Reads and checks <root>/params.yaml. */
export function loadParams(root: string): ProjectParams {
  const path = join(root, 'params.yaml');
  return parseParams(parseYamlText(readInputText(path), path), path);
}

/** The run `name` of params.yaml, or a refusal listing the runs there is (the name itself checked first). */
export function paramsRun(p: ProjectParams, name: string, command: string): ParamsRun {
  checkName('run', name);
  const run = p.runs.get(name);
  if (!run) throw new FormatError(`${command}: no run ${JSON.stringify(name)} in params.yaml; runs: ${[...p.runs.keys()].join(', ')}`);
  return run;
}
