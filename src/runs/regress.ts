/**
 * The regress use case (`heightbench regress`, src/cli/regress.ts, prints): this tree's regenerated outputs against a
 * base revision's, for a CI log or a pull-request comment.
 * Inputs: per run of params.yaml, its comparisons — first against the independent GPU reference (reports/RUN-gpu,
 * gated; RUN-gpu-d3d and RUN-gpu-f64), then the f32-vs-f64 consistency check (reports/RUN) — each folder's
 * {metrics.json, histogram.json, hashes.json, diffmap.png} (written by the gpucompare and compare stages of
 * `make reproduce` / `make test`) and the same files committed at REV (git show); dvc.lock and the bless records
 * (references/bless/RUN.json, references/bless/gpu-RUN.json) on both sides. Outputs: Markdown on stdout (and
 * DIR/summary.md; appended to $GITHUB_STEP_SUMMARY when that is set), DIR/index.html with both difference maps per
 * comparison and the pixels where they differ, DIR/regress.json. Links in the Markdown are relative to reports/ (the
 * folder CI uploads as its artefact). [R] The Markdown stays under 60 KB whatever the histograms: bins beyond ±8 are
 * folded (histogram-fold.ts), unchanged comparisons take one line, and a longer text is cut with a pointer to the
 * full summary.
 * [R] Verdict per comparison: FAIL when a gate fails in this tree, or when a stage hash (generated or reference) moved
 * while its reference was not re-blessed between REV and this tree (its bless record or its dvc.lock reference hash
 * differs). A comparison whose reports are missing on one side is reported, not failed.
 * The comparisons reviewed are the ones the repository declares in its heightbench.yaml (src/runs/repo-config.ts;
 * heightbench's own declares `runs-from: params.yaml`, the four per run listed above): a comparison of two folders
 * is first checked here (`check --all`'s code, writing its report folder and hashes.json), then read as above. Without
 * a heightbench.yaml, a clone of heightbench reviews its params.yaml runs; anything else is told to run `init`.
 * Outputs go under the repository regress runs in (its reports folder, default reports/regress).
 * Exit: 0 all comparisons pass; the gate-failure code when one fails; 2 for a bad revision or a tree outside git.
 */
import { execFileSync } from 'node:child_process';
import { appendFileSync, existsSync, lstatSync } from 'node:fs';
import { join } from 'node:path';
import { SEED_PIPELINE } from '../pipelines/seed.js';
import { EXIT_GATE, FormatError, UsageError } from '../errors.js';
import { writeFileAtomic } from '../io/atomic.js';
import { writeFolderWhole } from '../io/report-folder.js';
import { projectRoot } from '../project/paths.js';
import { parseYamlText } from '../pipeline/params.js';
import { ownEntry, resolveInside } from '../core/names.js';
import { terminalText } from '../core/text.js';
import { checkArray, checkNumber, checkObject, parseJson } from '../io/json-check.js';
import { MAX_JSON_BYTES, readInputFile } from '../io/read-input.js';
import {
  boundMarkdown,
  changedPixels,
  regressionFigure,
  regressionMarkdown,
  regressionPage,
  regressionSection,
  type Metrics,
  type Regression,
  type RunRegression,
  type StageRow,
} from '../report/regress-report.js';
import { PLAN_STAGES } from './folder.js';
import { findRepoConfig, loadRepoConfig, parseRepoConfig, type DeclaredComparison } from './repo-config.js';
import { runDeclared } from './check-all.js';

export const REGRESS_FAILED_EXIT = EXIT_GATE;

interface Hashes {
  generated: Record<string, string> | null;
  references: Record<string, string> | null;
}

/**
 * Report order of a run's files: the planning stages, the field stages of the reproduce pipeline's declaration (the
 * seed's), then the manifest; a file of no declared stage is still listed (first, by name), never dropped.
 */
const DECLARED_ORDER: readonly string[] = [...PLAN_STAGES, ...SEED_PIPELINE.stages.map((s) => s.name), 'manifest'];
const stageRank = (s: string) => DECLARED_ORDER.indexOf(s);

function git(root: string, args: string[]): string {
  return execFileSync('git', args, { cwd: root, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], maxBuffer: 64 << 20 });
}

function gitShow(root: string, rev: string, path: string): Buffer | null {
  try {
    return execFileSync('git', ['show', `${rev}:${path}`], { cwd: root, stdio: ['ignore', 'pipe', 'ignore'], maxBuffer: 64 << 20 });
  } catch {
    return null;
  }
}

/** Upper bound on a difference map read by regress (a PNG of a run's blocks is a few kB) [R]. */
const MAX_DIFFMAP_BYTES = 64 * 1024 * 1024;

/**
 * A file of this tree, or null when nothing is at the path. Anything present goes through the hardened reader
 * (regular files only, size bounded): a dangling link or a FIFO is refused, never read as absent or waited on.
 */
function readHere(root: string, path: string, maxBytes = MAX_JSON_BYTES): Buffer | null {
  const p = join(root, path);
  try {
    lstatSync(p);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw e;
  }
  return readInputFile(p, maxBytes, 'a report file read by regress');
}

/** A JSON object (metrics, hashes), depth- and size-bounded, or a FormatError naming where it came from. */
function json<T>(b: Buffer | null, what: string): T | null {
  if (!b) return null;
  return checkObject(what, parseJson(b.toString('utf8'), what)) as T;
}

/** A metrics.json: a flat object of numbers (null allowed); anything else is refused naming the key. */
export function parseMetricsJson(b: Buffer | null, what: string): Metrics | null {
  const m = json<Record<string, unknown>>(b, what);
  if (!m) return null;
  for (const [k, v] of Object.entries(m)) {
    if (v !== null && typeof v !== 'number')
      throw new FormatError(`${what}: ${JSON.stringify(k)}: expected a number, found ${JSON.stringify(v)?.slice(0, 80)}`);
  }
  return m as Metrics;
}

/** A hashes.json: { generated, references }, each null or an object of strings. */
export function parseHashesJson(b: Buffer | null, what: string): Hashes | null {
  const h = json<Record<string, unknown>>(b, what);
  if (!h) return null;
  const side = (k: 'generated' | 'references'): Record<string, string> | null => {
    const v = h[k];
    if (v === null || v === undefined) return null;
    const o = checkObject(`${what}: ${k}`, v);
    for (const [f, x] of Object.entries(o)) if (typeof x !== 'string') throw new FormatError(`${what}: ${k}.${JSON.stringify(f)}: expected a hash string`);
    return o as Record<string, string>;
  };
  return { generated: side('generated'), references: side('references') };
}

/** The dvc.lock hash of a lock stage's first out (reference@RUN, gpu@RUN), or null; own stage keys only. */
function referenceLockHash(lock: string | null, stage: string): string | null {
  if (!lock) return null;
  const l = parseYamlText(lock, 'dvc.lock') as { stages?: Record<string, { outs?: { path: string; md5?: string }[] }> } | null;
  const md5 = ownEntry(l?.stages, stage)?.outs?.[0]?.md5;
  return typeof md5 === 'string' ? md5 : null;
}

/**
 * A histogram from histogram.json ([{dq, count}], depth- and size-bounded, each row an integer Δq and a count), else
 * from the `histogram.<Δq>` keys older metrics.json files had. Own keys only: the result is built with fromEntries.
 */
export function histogramOf(plot: Buffer | null, m: Metrics | null, what = 'histogram.json'): Record<string, number> | null {
  if (plot) {
    const rows = checkArray(what, parseJson(plot.toString('utf8'), what));
    return Object.fromEntries(
      rows.map((r, i) => {
        const row = checkObject(`${what}[${i}]`, r);
        const dq = checkNumber(`${what}[${i}].dq`, row.dq, { integer: true });
        return [String(dq), checkNumber(`${what}[${i}].count`, row.count, { min: 0 })];
      }),
    );
  }
  if (!m) return null;
  const keys = Object.keys(m).filter((k) => k.startsWith('histogram.') && typeof m[k] === 'number');
  return keys.length ? Object.fromEntries(keys.map((k) => [k.slice(10), m[k]])) : null;
}

function compareHashes(a: Record<string, string> | null, b: Record<string, string> | null, file: string): StageRow['generated'] {
  if (!a && !b) return '–';
  const x = ownEntry(a, file);
  const y = ownEntry(b, file);
  if (x === undefined && y === undefined) return '–';
  if (x === undefined) return 'new';
  if (y === undefined) return 'gone';
  return x === y ? 'same' : 'moved';
}

const stageOf = (file: string) => file.replace(/\.(r16|r32|png|json)$/, '');

/** The comparisons a repository declares: its heightbench.yaml, else (a clone of heightbench) its params.yaml runs. */
export function declaredComparisons(root: string): readonly DeclaredComparison[] {
  return (loadRepoConfig(root) ?? parseRepoConfig(root, 'runs-from: params.yaml\n')).comparisons;
}

export function regress(root: string, base: string, failedChecks: ReadonlyMap<string, string> = new Map()): Regression {
  let baseCommit: string;
  // A revision is never read as an option of git (`--output=…`), however it is spelled.
  if (base.startsWith('-') || base.length > 256 || terminalText(base) !== base) {
    throw new UsageError(
      `regress --base ${JSON.stringify(base.slice(0, 80))}: not a revision name (it starts with '-', has control bytes or is over 256 characters)`,
    );
  }
  try {
    baseCommit = git(root, ['rev-parse', '--verify', '--quiet', `${base}^{commit}`]).trim();
  } catch {
    throw new FormatError(`regress --base ${JSON.stringify(base)}: not a revision of the git repository at ${root}`);
  }
  const comparisons = declaredComparisons(root);
  const lockHere = readHere(root, 'dvc.lock')?.toString('utf8') ?? null;
  const lockBase = gitShow(root, baseCommit, 'dvc.lock')?.toString('utf8') ?? null;
  const all: RunRegression[] = [];
  for (const c of comparisons) {
    const run = c.name;
    const request = c.group;
    const dir = c.report;
    const here = parseMetricsJson(readHere(root, `${dir}/metrics.json`), `${dir}/metrics.json`);
    const baseM = parseMetricsJson(gitShow(root, baseCommit, `${dir}/metrics.json`), `${base}:${dir}/metrics.json`);
    const hHere = parseHashesJson(readHere(root, `${dir}/hashes.json`), `${dir}/hashes.json`);
    const hBase = parseHashesJson(gitShow(root, baseCommit, `${dir}/hashes.json`), `${base}:${dir}/hashes.json`);
    const blessHere = readHere(root, c.bless);
    const blessBase = gitShow(root, baseCommit, c.bless);
    const blessed =
      (blessHere?.toString() ?? '') !== (blessBase?.toString() ?? '') ||
      (c.lockStage !== null && referenceLockHash(lockHere, c.lockStage) !== referenceLockHash(lockBase, c.lockStage));
    const histogram: RunRegression['histogram'] = [
      histogramOf(gitShow(root, baseCommit, `${dir}/histogram.json`), baseM, `${base}:${dir}/histogram.json`),
      histogramOf(readHere(root, `${dir}/histogram.json`), here, `${dir}/histogram.json`),
    ];
    const files = new Set<string>();
    for (const h of [hHere, hBase]) for (const side of [h?.generated, h?.references]) for (const f of Object.keys(side ?? {})) files.add(f);
    const stages: StageRow[] = [...files]
      .sort((a, b) => stageRank(stageOf(a)) - stageRank(stageOf(b)) || a.localeCompare(b))
      .map((f) => {
        const key = `stages.${stageOf(f)}.innerRmsMm`;
        return {
          stage: f,
          innerRmsMm: [ownEntry(baseM, key) ?? null, ownEntry(here, key) ?? null],
          generated: compareHashes(hBase?.generated ?? null, hHere?.generated ?? null, f),
          reference: compareHashes(hBase?.references ?? null, hHere?.references ?? null, f),
        };
      });
    const movedHashes = stages.flatMap((s) => [
      ...(s.generated === 'moved' ? [`generated ${s.stage}`] : []),
      ...(s.reference === 'moved' ? [`reference ${s.stage}`] : []),
    ]);
    const gatesPassed = here ? ownEntry(here, 'gates.passed') === 1 : null;
    const reasons: string[] = [];
    let verdict: RunRegression['verdict'] = 'n/a';
    let status: RunRegression['status'] = 'compared';
    if (!here) status = 'missing here';
    else if (!baseM) status = 'new run';
    if (here) {
      verdict = 'pass';
      if (gatesPassed === false) reasons.push('a gate fails in this tree');
    }
    const failedCheck = failedChecks.get(c.name);
    if (failedCheck !== undefined) {
      reasons.push(`its check could not run here: ${failedCheck}`);
      verdict = 'FAIL';
    }
    if (here) {
      if (movedHashes.length && !blessed) reasons.push(`stage hash moved without a bless: ${movedHashes.join(', ')}`);
      if (reasons.length) verdict = 'FAIL';
    }
    // A GPU comparison this tree's params do not produce at all (no report on either side) is left out.
    if (!here && !baseM && c.optional) continue;
    all.push({
      run,
      request,
      kind: c.kind,
      report: c.report,
      label: c.label,
      histogram,
      status,
      base: baseM,
      here,
      gatesPassed,
      blessed,
      movedHashes,
      stages,
      verdict,
      reasons,
    });
  }
  const runs = [...all.filter((x) => x.kind === 'gpu'), ...all.filter((x) => x.kind === 'consistency'), ...all.filter((x) => x.kind === 'check')];
  return { base, baseCommit, runs, failed: runs.some((r) => r.verdict === 'FAIL') };
}

/**
 * Writes DIR/index.html, summary.md, regress.json and the pictures, whole (src/io/report-folder.ts: staged, swapped
 * in, one writer at a time). Every picture's name is a checked run name, resolved inside the staged folder; every
 * string of the page goes through escapeHtml (src/core/html.ts), every src through safeUrl.
 */
export function writeRegressionReport(root: string, out: string, r: Regression, md: string): void {
  writeFolderWhole(out, (stage) => {
    const sections: string[] = [];
    for (const x of r.runs) {
      // The folder and name are those of a declared comparison (checked names and paths), never read from elsewhere.
      const c = declaredComparisons(root).find((d) => d.name === x.run && d.report === x.report);
      if (c === undefined) throw new FormatError(`regress: ${JSON.stringify(x.run.slice(0, 120))} is not a comparison this repository declares`);
      const run = c.name;
      const a = gitShow(root, r.baseCommit, `${c.report}/diffmap.png`);
      const b = readHere(root, `${c.report}/diffmap.png`, MAX_DIFFMAP_BYTES);
      if (!a && !b) continue;
      const figs: string[] = [];
      const picture = (file: string, bytes: Uint8Array, alt: string, caption: string) => {
        writeFileAtomic(resolveInside(stage, file), bytes);
        figs.push(regressionFigure(file, alt, caption));
      };
      if (a) picture(`${run}-base-diffmap.png`, a, `${run} difference map at ${r.base}`, `${r.base}: signed Δq per block`);
      if (b) picture(`${run}-diffmap.png`, b, `${run} difference map in this tree`, 'this tree: signed Δq per block');
      const ch = changedPixels(a, b, `${c.report}/diffmap.png`);
      if (ch) picture(`${run}-changed.png`, ch.png, `${run} blocks whose colour changed`, `blocks whose difference changed: ${ch.changed}`);
      sections.push(regressionSection(run, x.label, figs));
    }
    const html = regressionPage(r.base, md, sections);
    writeFileAtomic(join(stage, 'index.html'), html);
    writeFileAtomic(join(stage, 'summary.md'), md);
    writeFileAtomic(join(stage, 'regress.json'), `${JSON.stringify(r, null, 2)}\n`);
  });
}

/**
 * The repository regress reviews: HEIGHTBENCH_ROOT when set; else the nearest heightbench.yaml's folder; else a
 * heightbench clone (its params.yaml). Anything else (an installed package) is told to run init.
 */
function regressRoot(): string {
  const declared = process.env.HEIGHTBENCH_ROOT ? null : findRepoConfig();
  if (declared !== null) return declared;
  let root: string | null = null;
  try {
    root = projectRoot();
  } catch {
    /* no project: refused below */
  }
  if (root === null || (!existsSync(join(root, 'heightbench.yaml')) && !existsSync(join(root, 'params.yaml'))))
    throw new UsageError(
      `regress: no heightbench.yaml at or above ${process.cwd()}; regress reviews the comparisons a repository declares there — run \`heightbench init\` to scaffold one`,
    );
  return root;
}

/** What `heightbench regress` did: the regression, its brief Markdown (what is printed), and its exit status. */
export interface RegressOutcome {
  regression: Regression;
  brief: string;
  status: number;
}

/**
 * Reviews the repository (see the header): its comparisons of two folders checked first, then read on both sides;
 * the report folder written (`out`, default <reports>/regress), the brief appended to $GITHUB_STEP_SUMMARY when set.
 */
export function regressRepository(o: { base: string; out?: string }): RegressOutcome {
  const root = regressRoot();
  const cfg = loadRepoConfig(root);
  // Comparisons of two folders are checked here first (their report folders are what is read below).
  const failedChecks = new Map<string, string>();
  if (cfg) {
    for (const c of cfg.comparisons) {
      if (!c.check) continue;
      const row = runDeclared(cfg, c);
      if (row.error !== null) failedChecks.set(c.name, row.error);
    }
  }
  const r = regress(root, o.base, failedChecks);
  const out = o.out ?? join(root, cfg?.reports ?? 'reports', 'regress');
  writeRegressionReport(root, out, r, regressionMarkdown(r, true, '../'));
  const brief = boundMarkdown(regressionMarkdown(r, false));
  // GitHub Actions: the job's summary page shows this Markdown (links relative to the uploaded reports/ artefact).
  const summary = process.env.GITHUB_STEP_SUMMARY;
  if (summary) appendFileSync(summary, `${brief}\n`);
  return { regression: r, brief, status: r.failed ? REGRESS_FAILED_EXIT : 0 };
}
