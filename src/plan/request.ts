/**
 * Fixed requests (data files under config/requests/), and where the project's data folders are.
 * A request names its world, seed, scene-type filter, recipe entry, mission tags (order and duplicates kept),
 * location categories, domain, output size, outer blend band and encoding range.
 */
import { existsSync, readdirSync, statSync } from 'node:fs';
import { homedir } from 'node:os';
import { readInputText } from '../io/read-input.js';
import { dirname, join, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { FormatError, InputRangeError } from '../errors.js';
import { checkArray, checkLiteral, checkNumber, checkObject, checkString, parseJson } from '../io/json-check.js';
import { checkName } from '../core/names.js';
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

/**
 * [R] Where heightbench finds its data. Config (worlds/, requests/): the CLI's `--config DIR`, else
 * `$HEIGHTBENCH_ROOT/config`, else the nearest `config/` holding `worlds/` above the working directory (a clone), else the
 * `config/` shipped inside the installed package. The project root (assets/, references/, params.yaml): HEIGHTBENCH_ROOT,
 * else that nearest folder above the working directory, else the installed package's folder.
 */
export interface ConfigContext {
  /** The config folder, resolved (resolveConfigDir): the CLI's --config DIR. Absent: the search above. */
  readonly configDir?: string;
  /** The folder given to --config: everything the option implies — assets included — is rooted there. */
  readonly configRoot?: string;
}

/** The installed package's own folder (this file is <pkg>/dist/plan/request.js, or <repo>/src/plan/request.ts). */
export function packageRoot(): string {
  return fileURLToPath(new URL('../../', import.meta.url));
}

/** The config folder `--config DIR` names (DIR itself, or DIR/config), checked; for a ConfigContext. */
export function resolveConfigDir(dir: string): string {
  const d = resolve(dir);
  const holds = (p: string) => existsSync(join(p, 'worlds')) || existsSync(join(p, 'requests'));
  if (holds(d)) return d;
  if (holds(join(d, 'config'))) return join(d, 'config');
  else
    throw new FormatError(
      `--config ${JSON.stringify(dir)}: expected a folder holding worlds/ and requests/ (or a folder holding config/), found neither in ${d}`,
    );
}

function nearestProject(): string | null {
  let d = process.cwd();
  for (;;) {
    if (existsSync(join(d, 'config', 'worlds'))) return d;
    const up = dirname(d);
    if (up === d) return null;
    d = up;
  }
}

/** The project root: HEIGHTBENCH_ROOT, else the nearest folder upwards from the working directory holding config/worlds, else the installed package. */
export function projectRoot(): string {
  const env = process.env.HEIGHTBENCH_ROOT;
  if (env) return resolve(env);
  const near = nearestProject();
  if (near) return near;
  const pkg = packageRoot();
  if (existsSync(join(pkg, 'config', 'worlds'))) return pkg;
  throw new FormatError(
    `cannot find heightbench's config/ folder above ${process.cwd()} nor in the package (${pkg}); pass --config DIR or set HEIGHTBENCH_ROOT`,
  );
}

/**
 * [R] Where the static assets of the current config are built and read: with `--config DIR`, DIR/assets — everything
 * --config implies stays under DIR, and another project's assets are never rebuilt; else <project root>/assets. When
 * the project root is the installed package (inside node_modules, which is never written) the default is
 * $XDG_CACHE_HOME/heightbench/assets (else ~/.cache/heightbench/assets); set HEIGHTBENCH_ROOT to choose.
 */
export function defaultAssetsDir(ctx: ConfigContext = {}): string {
  if (ctx.configRoot && ctx.configDir) return join(ctx.configRoot, 'assets');
  const root = projectRoot();
  if (!insideNodeModules(root)) return join(root, 'assets');
  const cache = process.env.XDG_CACHE_HOME ? resolve(process.env.XDG_CACHE_HOME) : join(homedir(), '.cache');
  return join(cache, 'heightbench', 'assets');
}

/** Whether a path lies inside a node_modules folder (an installed package: never written to). */
function insideNodeModules(p: string): boolean {
  return resolve(p).split(sep).includes('node_modules');
}

/**
 * The config folder (worlds/, requests/): the context's (--config DIR), else <project root>/config. [R] A
 * HEIGHTBENCH_ROOT without config/ (an empty folder for a run's data) reads the package's shipped config; one that is
 * not a folder is refused.
 */
export function configDir(ctx: ConfigContext = {}): string {
  if (ctx.configDir) return ctx.configDir;
  const env = process.env.HEIGHTBENCH_ROOT;
  if (env) {
    const root = resolve(env);
    if (!existsSync(root) || !statSync(root).isDirectory())
      throw new FormatError(`HEIGHTBENCH_ROOT=${JSON.stringify(env)}: expected an existing folder, found none at ${root}`);
    const c = join(root, 'config');
    if (existsSync(c)) return c;
    const shipped = join(packageRoot(), 'config');
    if (existsSync(join(shipped, 'worlds'))) return shipped;
    throw new FormatError(`HEIGHTBENCH_ROOT=${JSON.stringify(env)}: no config/ folder in ${root} nor in the package (${packageRoot()})`);
  }
  return join(projectRoot(), 'config');
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
