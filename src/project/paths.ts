/**
 * Where the project's data folders are: the config folder (worlds/, requests/), the project root (assets/, references/,
 * params.yaml) and the assets folder. Every command, the planner and the run use cases read them from here.
 */
import { existsSync, statSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { FormatError } from '../errors.js';

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

/** The installed package's own folder (this file is <pkg>/dist/project/paths.js, or <repo>/src/project/paths.ts). */
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
