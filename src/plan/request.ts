/**
 * Fixed requests (data files under config/requests/).
 * A request names its world, seed, scene-type filter, recipe entry, mission tags (order and duplicates kept),
 * location categories, domain, output size, outer blend band and encoding range.
 */
import { existsSync, readdirSync } from 'node:fs';
import { readInputText } from '../io/read-input.js';
import { join } from 'node:path';
import { FormatError, InputRangeError } from '../errors.js';
import { checkArray, checkLiteral, checkNumber, checkObject, checkString, parseJson } from '../io/json-check.js';
import { checkName } from '../core/names.js';
import { configDir, type ConfigContext } from '../project/paths.js';
export type { ConfigContext } from '../project/paths.js';
import type { GridDescription, HeightRange } from '../core/grid.js';

export interface PipelineRequest {
  id: string;
  world: string;
  seed: number;
  sceneTypes: number[];
  recipeEntry: number;
  missionTags: number[];
  locationCategories: number[];
  domain: { xmin: number; ymin: number; size: number };
  size: number;
  outerBlend: { inner: number; outer: number };
  encoding: HeightRange;
}

export function parseRequest(v: unknown, where = 'request'): PipelineRequest {
  const o = checkObject(where, v);
  checkLiteral(`${where}.format`, o.format, 'heightbench.request');
  if (o.version !== 1) throw new FormatError(`${where}.version: this heightbench reads request version 1, the file has ${JSON.stringify(o.version)}`);
  const ints = (k: string) => checkArray(`${where}.${k}`, o[k]).map((x, i) => checkNumber(`${where}.${k}[${i}]`, x, { integer: true, min: 0 }));
  const d = checkObject(`${where}.domain`, o.domain);
  const ob = checkObject(`${where}.outerBlend`, o.outerBlend);
  const e = checkObject(`${where}.encoding`, o.encoding);
  const inner = checkNumber(`${where}.outerBlend.inner`, ob.inner, { min: 0 });
  const outer = checkNumber(`${where}.outerBlend.outer`, ob.outer, { min: inner + Number.EPSILON });
  const min = checkNumber(`${where}.encoding.min`, e.min);
  const max = checkNumber(`${where}.encoding.max`, e.max, { min: min + Number.EPSILON });
  return {
    // Both reach paths and sidecars: names, bounded (src/core/names.ts).
    id: checkName(`${where}.id: request`, checkString(`${where}.id`, o.id)),
    world: checkName(`${where}.world: world`, checkString(`${where}.world`, o.world)),
    seed: checkNumber(`${where}.seed`, o.seed, { integer: true, min: 1, max: 2147483646 }),
    sceneTypes: ints('sceneTypes'),
    recipeEntry: checkNumber(`${where}.recipeEntry`, o.recipeEntry, { integer: true, min: 0 }),
    missionTags: ints('missionTags'),
    locationCategories: ints('locationCategories'),
    domain: {
      xmin: checkNumber(`${where}.domain.xmin`, d.xmin),
      ymin: checkNumber(`${where}.domain.ymin`, d.ymin),
      size: checkNumber(`${where}.domain.size`, d.size, { min: Number.MIN_VALUE }),
    },
    size: checkNumber(`${where}.size`, o.size, { integer: true, min: 16, max: 16384 }),
    outerBlend: { inner, outer },
    encoding: { min, max },
  };
}

export function listRequests(ctx: ConfigContext = {}): string[] {
  return readdirSync(join(configDir(ctx), 'requests'))
    .filter((f) => f.endsWith('.json'))
    .map((f) => f.slice(0, -5))
    .sort();
}

/** Loads config/requests/<id>.json (or a path to a request file), optionally at another output size. */
export function loadRequest(idOrPath: string, size?: number, ctx: ConfigContext = {}): PipelineRequest {
  const path = idOrPath.endsWith('.json') ? idOrPath : join(configDir(ctx), 'requests', `${checkName('request', idOrPath)}.json`);
  if (!existsSync(path)) {
    const known = idOrPath.endsWith('.json') ? '' : `; known requests: ${listRequests(ctx).join(', ')}`;
    throw new FormatError(`request ${JSON.stringify(idOrPath)}: no such request file (${path})${known}`);
  }
  const r = parseRequest(parseJson(readInputText(path), path), path.split('/').pop() ?? path);
  if (size !== undefined) {
    if (!Number.isInteger(size) || size < 16 || size > 16384) throw new InputRangeError(`--size: expected an integer in [16, 16384], got ${size}`);
    return { ...r, size };
  }
  return r;
}

/** The output grid of a request: texel-centre, row 0 at ymin. */
export function requestGrid(r: PipelineRequest, size = r.size): GridDescription {
  return {
    xmin: r.domain.xmin,
    ymin: r.domain.ymin,
    sizeX: r.domain.size,
    sizeY: r.domain.size,
    columns: size,
    rows: size,
    convention: 'texel-centre',
    rowDirection: 'row0-at-ymin',
  };
}
