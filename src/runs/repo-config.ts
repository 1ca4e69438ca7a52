/**
 * A repository's heightbench.yaml: the comparisons `check --all` runs and `regress` reviews, declared in the repository
 * that owns them (a researcher's, scaffolded by `heightbench init`, or heightbench's own).
 * Inputs: the nearest heightbench.yaml at or above the working folder. Outputs: the declared comparisons, each with
 * its report folder, bless record and — for a comparison of two folders — the folders and gates `check` uses.
 * Rules: every name is a checked name (it becomes a folder); every path is relative to the repository and stays
 * inside it; unknown keys are refused naming the key; `runs-from: params.yaml` declares, per run of that file, the
 * four comparisons heightbench's own pipeline writes (its GPU references and its f64 consistency check).
 *
 * ```yaml
 * version: 1
 * reports: reports                 # where check --all and regress write (default reports)
 * comparisons:
 *   - name: seed-1                 # report folder reports/seed-1, bless record blessed/seed-1.json
 *     generated: rebuild/seed-1    # your reconstruction's run folder
 *     reference: reference/seed-1  # the imported captures (heightbench import)
 *     gates: { min-exact: 99.79, max-code: 1 }
 *     attribution: true
 * ```
 */
import { createHash } from 'node:crypto';
import { closeSync, existsSync, readdirSync, readSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { parse as parseYaml } from 'yaml';
import type { Gates } from '../compare/gates.js';
import { FormatError } from '../errors.js';
import { checkName, resolveInside } from '../core/names.js';
import { checkArray, checkBoolean, checkNumber, checkObject, checkString } from '../io/json-check.js';
import { openRegular, readInputText } from '../io/read-input.js';
import { loadParams } from '../pipeline/params.js';
import { readPipelineDeclaration, type PipelineDeclaration } from '../pipelines/declaration.js';

export const REPO_CONFIG = 'heightbench.yaml';

export interface DeclaredComparison {
  /** A checked name: the report folder `<reports>/<name>` and the table row. */
  readonly name: string;
  /** The group it is listed under (a request or run of the repository). */
  readonly group: string;
  readonly kind: 'gpu' | 'consistency' | 'check';
  readonly label: string;
  /** Repository-relative path of its report folder. */
  readonly report: string;
  /** Repository-relative path of its bless record: a change of it between two revisions blesses a moved hash. */
  readonly bless: string;
  /** A dvc.lock stage whose first out's hash counts as a bless too (heightbench's reference stages), or null. */
  readonly lockStage: string | null;
  /** Left out of a review when neither side has its report (a GPU comparison a run does not produce). */
  readonly optional: boolean;
  /** For a comparison of two folders: what `check --all` (and `regress` before reading) runs. */
  readonly check: { readonly generated: string; readonly reference: string; readonly gates: Gates; readonly attribution: boolean } | null;
}

export interface RepoConfig {
  readonly root: string;
  readonly file: string;
  readonly reports: string;
  /** `pipeline:`: the declaration of a run folder without pipeline.json in every comparison (null: the seed pipeline's). */
  readonly pipeline: PipelineDeclaration | null;
  readonly comparisons: readonly DeclaredComparison[];
}

/** The folder at or above `start` holding heightbench.yaml, or null. */
export function findRepoConfig(start = process.cwd()): string | null {
  for (let d = resolve(start); ; d = dirname(d)) {
    if (existsSync(join(d, REPO_CONFIG))) return d;
    if (dirname(d) === d) return null;
  }
}

/** A repository-relative path that stays inside the repository (POSIX separators). */
function relPath(root: string, where: string, v: unknown): string {
  const p = checkString(where, v);
  if (p === '' || p.startsWith('/') || /^[A-Za-z]:/.test(p) || p.split(/[\\/]/).includes('..'))
    throw new FormatError(`${where}: ${JSON.stringify(p)} is not a path inside the repository (relative, no "..")`);
  resolveInside(root, p);
  return p.replace(/\\/g, '/').replace(/\/+$/, '');
}

function only(where: string, o: Record<string, unknown>, keys: readonly string[]): void {
  for (const k of Object.keys(o)) if (!keys.includes(k)) throw new FormatError(`${where}: unknown key ${JSON.stringify(k)} (expected ${keys.join(', ')})`);
}

const GATE_KEYS: Record<string, keyof Gates> = { 'min-exact': 'minExact', 'max-code': 'maxCode', 'max-rms-mm': 'maxRmsMm', 'max-nonfinite': 'maxNonFinite' };

function gatesOf(where: string, v: unknown): Gates {
  if (v === undefined) return {};
  const o = checkObject(where, v);
  only(where, o, Object.keys(GATE_KEYS));
  const g: Record<string, number> = {};
  for (const [k, name] of Object.entries(GATE_KEYS)) if (o[k] !== undefined) g[name] = checkNumber(`${where}.${k}`, o[k], { min: 0 });
  return g as Gates;
}

/** heightbench's own comparisons of a params.yaml run (reports/RUN-gpu…, reports/RUN), in report order. */
function paramsComparisons(run: string, reports: string): DeclaredComparison[] {
  checkName('run', run);
  const gpu = { group: run, kind: 'gpu' as const, bless: `references/bless/gpu-${run}.json`, lockStage: `gpu@${run}`, optional: true, check: null };
  return [
    { name: `${run}-gpu`, label: 'CPU f32 (GPU-mimic switches) vs GPU reference', report: `${reports}/${run}-gpu`, ...gpu },
    { name: `${run}-gpu-d3d`, label: 'CPU f32 (Direct3D 16.8 rules) vs GPU reference', report: `${reports}/${run}-gpu-d3d`, ...gpu },
    { name: `${run}-gpu-f64`, label: 'CPU f64 vs GPU reference', report: `${reports}/${run}-gpu-f64`, ...gpu },
    {
      name: run,
      group: run,
      kind: 'consistency',
      label: 'f32 vs our own f64 references (consistency)',
      report: `${reports}/${run}`,
      bless: `references/bless/${run}.json`,
      lockStage: `reference@${run}`,
      optional: false,
      check: null,
    },
  ];
}

/** Parses a heightbench.yaml's text (`root`: the repository it belongs to). */
export function parseRepoConfig(root: string, text: string, file = join(root, REPO_CONFIG)): RepoConfig {
  let doc: unknown;
  try {
    doc = parseYaml(text, { maxAliasCount: 100 });
  } catch (e) {
    throw new FormatError(`${file}: not valid YAML: ${e instanceof Error ? e.message.split('\n')[0] : String(e)}`);
  }
  const o = checkObject(file, doc ?? {});
  only(file, o, ['version', 'pipeline', 'reports', 'comparisons', 'runs-from']);
  if (o.version !== undefined && o.version !== 1) throw new FormatError(`${file}.version: expected 1, found ${JSON.stringify(o.version)}`);
  const reports = o.reports === undefined ? 'reports' : relPath(root, `${file}.reports`, o.reports);
  // Read and checked here: a declaration that is missing or malformed is refused before any comparison runs.
  const pipeline = o.pipeline === undefined ? null : readPipelineDeclaration(join(root, relPath(root, `${file}.pipeline`, o.pipeline)));
  const comparisons: DeclaredComparison[] = [];
  if (o['runs-from'] !== undefined) {
    const p = relPath(root, `${file}.runs-from`, o['runs-from']);
    if (p !== 'params.yaml') throw new FormatError(`${file}.runs-from: expected params.yaml (heightbench's run list), found ${JSON.stringify(p)}`);
    for (const run of loadParams(root).runs.keys()) comparisons.push(...paramsComparisons(run, reports));
  }
  const list = o.comparisons === undefined || o.comparisons === null ? [] : checkArray(`${file}.comparisons`, o.comparisons);
  list.forEach((c, i) => {
    const w = `${file}.comparisons[${i}]`;
    const e = checkObject(w, c);
    only(w, e, ['name', 'generated', 'reference', 'gates', 'attribution', 'label', 'group', 'bless']);
    const name = checkName(`${w}.name`, checkString(`${w}.name`, e.name));
    comparisons.push({
      name,
      group: e.group === undefined ? name : checkString(`${w}.group`, e.group),
      kind: 'check',
      label: e.label === undefined ? `${String(e.generated)} vs ${String(e.reference)}` : checkString(`${w}.label`, e.label),
      report: `${reports}/${name}`,
      bless: e.bless === undefined ? `blessed/${name}.json` : relPath(root, `${w}.bless`, e.bless),
      lockStage: null,
      optional: false,
      check: {
        generated: relPath(root, `${w}.generated`, e.generated),
        reference: relPath(root, `${w}.reference`, e.reference),
        gates: gatesOf(`${w}.gates`, e.gates),
        attribution: e.attribution === undefined ? false : checkBoolean(`${w}.attribution`, e.attribution),
      },
    });
  });
  const seen = new Set<string>();
  for (const c of comparisons) {
    if (seen.has(c.name)) throw new FormatError(`${file}: comparison ${JSON.stringify(c.name)} is declared twice`);
    seen.add(c.name);
  }
  return { root, file, reports, pipeline, comparisons };
}

/** The heightbench.yaml of the repository at `root`, or null when it has none. */
export function loadRepoConfig(root: string): RepoConfig | null {
  const file = join(root, REPO_CONFIG);
  if (!existsSync(file)) return null;
  return parseRepoConfig(root, readInputText(file, 1 << 20), file);
}

const STAGE_FILE = /^(?!timings\.json$)[^.][^/]*\.(r16|r32|png|json)$/;

/**
 * { file: SHA-256 } of the stage outputs in a run folder (sidecars and timings.json left out: a sidecar names the
 * producer's version, timings are never deterministic), sorted by name; null when the folder is absent. The same
 * record scripts/stage-hashes.mjs writes for heightbench's own runs.
 */
export function stageHashes(dir: string): Record<string, string> | null {
  if (!existsSync(dir)) return null;
  const out: Record<string, string> = {};
  for (const f of readdirSync(dir).sort()) {
    if (!STAGE_FILE.test(f) || /\.(r16|r32|png)\.json$/.test(f)) continue;
    out[f] = sha256Of(join(dir, f));
  }
  return out;
}

/** SHA-256 of a regular file (links and devices refused by openRegular), read in 1 MiB chunks. */
function sha256Of(path: string): string {
  const { fd } = openRegular(path);
  try {
    const hash = createHash('sha256');
    const chunk = Buffer.allocUnsafe(1 << 20);
    for (let pos = 0; ;) {
      const got = readSync(fd, chunk, 0, chunk.length, pos);
      if (got === 0) break;
      hash.update(chunk.subarray(0, got));
      pos += got;
    }
    return hash.digest('hex');
  } finally {
    closeSync(fd);
  }
}
