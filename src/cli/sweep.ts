/**
 * `heightbench sweep REQUEST --seeds … [--vary F=a,b]… [--size N] [--against f64|gpu|DIR] --out DIR [--scheduler ADDR]
 *  [--shard I/N] [--resume] [--workers N] [--batch K] [--detail stages|final]`, `heightbench sweep gather DIR… --out DIR`
 * and `heightbench sweep-batch` (one batch: the unit of work of the sweep's Dask tasks).
 *
 * The sweep checks every value here (exit 2 naming it), expands and shards the requests, writes the manifest and
 * hands the pending requests to the Python driver (scripts/sweep_dask.py, the project's .venv: dask.distributed, an
 * embedded LocalCluster unless --scheduler or DASK_SCHEDULER_ADDRESS names one). The driver submits batches, each a
 * `heightbench sweep-batch` process, and writes each record as it arrives (temp, then rename). Then the survey report.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { basename, dirname, join, resolve } from 'node:path';
import { InvalidArgumentError, Option, type Command } from 'commander';
import { EXIT_GATE, FileSystemError, UsageError } from '../errors.js';
import { PRODUCER_VERSION } from '../version.js';
import { loadRequest, parseRequest, type PipelineRequest } from '../plan/request.js';
import { packageRoot, projectRoot } from '../project/paths.js';
import { loadWorld } from '../pipeline/inputs.js';
import { coverageOf, coverageText } from '../sweep/coverage.js';
import { writeFileAtomic } from '../io/atomic.js';
import { readInputText } from '../io/read-input.js';
import { expandSweep, parseSchedulerAddress, parseSeeds, parseShard, parseVariation, shardItems, type SweepItem, type Variation } from '../sweep/requests.js';
import { againstName, conventionsHash, runBatch, type Against, type Detail, type SweepRecord } from '../sweep/batch.js';
import { checkRun } from '../runs/check.js';
import { runCommand } from './run.js';
import { gpuRunCommand } from './gpu-run.js';
import { FINAL_CODES_FILE, IMPORTS_FILE, PLAN_STAGES, sidecarFile } from '../runs/folder.js';
import { FIELD_STAGES } from '../pipeline/run.js';
import {
  gatherSweep,
  manifestItems,
  readManifest,
  readRecords,
  RECORDS_DIR,
  SWEEP_MANIFEST,
  SWEEP_MANIFEST_FORMAT,
  type SweepManifest,
} from '../sweep/records.js';
import { parsePath, parsePositiveInt } from './args.js';
import { CliExit, type CliIO, type CommandInstaller } from './io.js';
import { writeSurveyReport } from '../report/survey.js';
import { surveyOf } from '../sweep/survey-figures.js';
import { canonicalJson } from '../sweep/requests.js';

interface SweepOptions {
  seeds: string;
  vary?: string[];
  size?: number;
  against: string;
  out: string;
  scheduler?: string;
  shard?: string;
  resume?: boolean;
  workers?: number;
  batch?: number;
  detail: Detail;
  /** false: --no-report; a string: the report's folder (default OUT/report). */
  report?: boolean | string;
  worst: number;
}

/** f64, gpu, or an existing folder of captures. */
export function parseAgainst(v: string): Against {
  if (v === 'f64') return { kind: 'f64' };
  if (v === 'gpu') return { kind: 'gpu' };
  if (v.trim() === '') throw new UsageError('--against: expected f64, gpu or a folder of captures, got ""');
  const dir = resolve(v);
  if (!existsSync(dir) || !statSync(dir).isDirectory())
    throw new UsageError(`--against ${JSON.stringify(v)}: expected f64, gpu or an existing folder of captures`);
  return { kind: 'dir', dir };
}

/**
 * The Python that runs the driver: HEIGHTBENCH_PYTHON, else the nearest .venv/bin/python at or above the project (a
 * DVC experiment runs in a copy inside .dvc/tmp, below the project's .venv) or the package, else python3 from PATH
 * (the driver refuses with exit 2 when it has no Dask).
 */
function sweepPython(): string {
  const env = process.env.HEIGHTBENCH_PYTHON;
  if (env) return env;
  for (const start of [projectRoot(), packageRoot()]) {
    for (let d = resolve(start); ; d = dirname(d)) {
      const p = join(d, '.venv', 'bin', 'python');
      if (existsSync(p)) return p;
      if (dirname(d) === d) break;
    }
  }
  return 'python3';
}

/** Prepares the out folder: a new one gets the manifest; an existing one is continued only with --resume and the same sweep. */
function openSweepFolder(out: string, m: SweepManifest, resume: boolean): boolean {
  const mpath = join(out, SWEEP_MANIFEST);
  for (const p of [out, join(out, RECORDS_DIR)])
    if (existsSync(p) && lstatSync(p).isSymbolicLink())
      throw new UsageError(`--out ${JSON.stringify(out)}: ${p} is a symbolic link; a sweep writes only into folders it can own`);
  if (existsSync(out)) {
    if (!statSync(out).isDirectory()) throw new UsageError(`--out ${JSON.stringify(out)}: exists and is not a folder`);
    if (existsSync(mpath)) {
      if (!resume) throw new UsageError(`--out ${JSON.stringify(out)}: holds a sweep already; pass --resume to continue it, or choose another folder`);
      const old = readManifest(out);
      for (const k of ['heightbench', 'conventionsHash', 'against', 'detail', 'definition', 'shard'] as const)
        if (canonicalJson(old[k]) !== canonicalJson(m[k]))
          throw new UsageError(
            `--resume: ${out} holds a sweep of another ${k} (${canonicalJson(old[k]).slice(0, 120)}, now ${canonicalJson(m[k]).slice(0, 120)})`,
          );
      return false;
    }
    if (readdirSync(out).length > 0) throw new UsageError(`--out ${JSON.stringify(out)}: a folder that is not empty and holds no sweep; choose another`);
  }
  const created = !existsSync(out);
  mkdirSync(join(out, RECORDS_DIR), { recursive: true });
  writeFileAtomic(mpath, `${JSON.stringify(m, null, 2)}\n`);
  return created;
}

export async function sweepCommand(request: string, o: SweepOptions, io: CliIO): Promise<number> {
  // Every value is checked before any work (exit 2 naming it).
  const seeds = parseSeeds(o.seeds);
  const vary: Variation[] = (o.vary ?? []).map(parseVariation);
  const shard = o.shard !== undefined ? parseShard(o.shard) : undefined;
  const envAddr = process.env.DASK_SCHEDULER_ADDRESS;
  const scheduler =
    o.scheduler !== undefined ? parseSchedulerAddress(o.scheduler) : envAddr ? parseSchedulerAddress(envAddr, 'DASK_SCHEDULER_ADDRESS') : undefined;
  const against = parseAgainst(o.against);
  if (o.workers !== undefined && o.workers > 1024) throw new UsageError(`--workers ${o.workers}: expected 1 … 1024`);
  if (o.workers !== undefined && scheduler !== undefined)
    throw new UsageError(`--workers ${o.workers}: only for the embedded local cluster; the cluster at ${scheduler} has its own workers`);
  if (o.batch !== undefined && o.batch > 100_000) throw new UsageError(`--batch ${o.batch}: expected 1 … 100000`);
  const base = loadRequest(request, o.size, io.config);
  const { id, ...fields } = base;
  const requestJson: Record<string, unknown> = { format: 'heightbench.request', version: 1, id, ...fields };
  const all = expandSweep({ base: id, request: requestJson, seeds, vary, size: base.size });
  const items = shardItems(all, shard);
  const out = resolve(o.out);
  const manifest: SweepManifest = {
    format: SWEEP_MANIFEST_FORMAT,
    version: 1,
    heightbench: PRODUCER_VERSION,
    conventionsHash: conventionsHash(),
    definition: { base: id, request: requestJson, seeds: o.seeds, vary, size: base.size },
    against: againstName(against),
    detail: o.detail,
    shard: shard ?? null,
    total: all.length,
    requests: items.length,
  };
  const created = openSweepFolder(out, manifest, !!o.resume);
  const done = readRecords(out);
  const pending = items.filter((it) => !done.has(it.name));
  io.err(
    `sweep ${id}: ${items.length} request(s)${shard ? ` (shard ${shard.index}/${shard.count} of ${all.length})` : ''}, ${done.size} recorded, ${pending.length} to run\n`,
  );
  if (pending.length > 0) {
    const workers = o.workers ?? Math.max(1, availableParallelism());
    // [R] Batches: a few per worker so a lost worker costs little and the last batches balance; at most 64 requests.
    const batch = o.batch ?? Math.max(1, Math.min(64, Math.ceil(pending.length / (workers * 4))));
    const plan = {
      out,
      items: pending,
      batch,
      workers,
      scheduler: scheduler ?? null,
      against: against.kind === 'dir' ? `dir:${against.dir}` : against.kind,
      detail: o.detail,
      node: process.execPath,
      bin: join(packageRoot(), 'bin', 'heightbench.mjs'),
      cwd: process.cwd(),
      config: io.config?.configRoot ?? null,
    };
    const planPath = join(out, '.sweep-pending.json');
    writeFileAtomic(planPath, JSON.stringify(plan));
    const py = spawnSync(sweepPython(), [join(packageRoot(), 'scripts', 'sweep_dask.py'), planPath], { stdio: ['ignore', 'inherit', 'inherit'] });
    const failed = py.error ? new FileSystemError(`sweep: cannot start the Python driver (${py.error.message})`) : py.status !== 0 ? (py.status ?? 1) : 0;
    rmSync(planPath, { force: true });
    // A folder this run made and left without a record (an unreachable scheduler, a refused batch) is removed whole.
    if (failed !== 0 && created && readRecords(out).size === 0) rmSync(out, { recursive: true, force: true });
    if (failed instanceof Error) throw failed;
    if (failed !== 0) return failed;
  }
  const records = readRecords(out);
  const missing = items.filter((it) => !records.has(it.name)).map((it) => it.name);
  if (missing.length) {
    io.err(`sweep: ${missing.length} request(s) have no record: ${missing.slice(0, 10).join(', ')}${missing.length > 10 ? ', …' : ''}\n`);
    return EXIT_GATE;
  }
  if (o.report !== false) {
    const ordered = items.map((it) => records.get(it.name)!);
    const dir = typeof o.report === 'string' ? resolve(o.report) : join(out, 'report');
    const s = await writeReportWithChecks(dir, manifest, ordered, [], items, against, o.worst, io);
    io.out(`${s.headline}\nreport: ${join(dir, 'index.html')}\n`);
  }
  return 0;
}

/**
 * The survey report, with a full `check` report (attribution, every stage) for each of the `worst` worst mismatched
 * requests: each is rerun here with every stage dumped (into a temporary folder, removed after; no field dump of
 * any other request is ever written), and its check report lands in the report's worst/NAME/.
 */
async function writeReportWithChecks(
  dir: string,
  m: SweepManifest,
  records: readonly SweepRecord[],
  missing: readonly string[],
  items: readonly SweepItem[],
  against: Against,
  worst: number,
  io: CliIO,
) {
  const chosen = surveyOf(m, records, missing, new Map(), worst).worst;
  const byName = new Map(items.map((it) => [it.name, it]));
  const tmp = mkdtempSync(join(dirname(dir), `.${basename(dir)}-worst-`));
  const quiet: CliIO = { out: () => undefined, err: (t) => io.err(t), config: io.config };
  try {
    const folders = new Map<string, { gen: string; ref: string }>();
    for (const w of chosen) {
      const it = byName.get(w.name);
      if (!it) continue;
      const reqPath = join(tmp, `${w.name}.json`);
      writeFileAtomic(reqPath, JSON.stringify(it.request));
      const gen = join(tmp, w.name, 'gen');
      await runCommand(reqPath, { out: gen, precision: 'f32', quiet: true }, quiet);
      let ref = join(tmp, w.name, 'ref');
      if (against.kind === 'f64') await runCommand(reqPath, { out: ref, precision: 'f64', quiet: true }, quiet);
      else if (against.kind === 'gpu') await gpuRunCommand(reqPath, { out: ref, quiet: true, adapter: 'swiftshader' }, quiet, PLAN_STAGES, FIELD_STAGES);
      else ref = join(against.dir, w.name);
      folders.set(w.name, { gen, ref });
    }
    const links = new Map([...folders.keys()].map((n) => [n, `worst/${n}/index.html`]));
    return writeSurveyReport(
      dir,
      m,
      records,
      missing,
      links,
      (stage) => {
        for (const [name, f] of folders)
          checkRun(f.gen, f.ref, {}, join(stage, 'worst', name), `${name}: f32 against ${m.against}`, join(stage, 'plotly.min.js'), {
            attribution: true,
            referenceKind:
              against.kind === 'f64' ? 'heightbench f64 (consistency)' : against.kind === 'gpu' ? 'heightbench WebGPU executor' : 'imported capture',
          });
      },
      worst,
    );
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}

/** The reference a manifest names ('f64', 'gpu', 'dir:PATH'). */
function againstOf(name: string): Against {
  return name.startsWith('dir:') ? parseAgainst(name.slice(4)) : parseAgainst(name);
}

export async function gatherCommand(dirs: string[], o: { out: string; worst: number }, io: CliIO): Promise<number> {
  const g = gatherSweep(dirs.map((d) => resolve(d)));
  const out = resolve(o.out);
  if (existsSync(out) && (!statSync(out).isDirectory() || readdirSync(out).length > 0))
    throw new UsageError(`--out ${JSON.stringify(o.out)}: exists and is not an empty folder`);
  mkdirSync(join(out, RECORDS_DIR), { recursive: true });
  for (const r of g.records) writeFileAtomic(join(out, RECORDS_DIR, `${r.name}.json`), `${JSON.stringify(r, null, 2)}\n`);
  writeFileAtomic(join(out, SWEEP_MANIFEST), `${JSON.stringify(g.manifest, null, 2)}\n`);
  const items = manifestItems(g.manifest, true);
  const s = await writeReportWithChecks(join(out, 'report'), g.manifest, g.records, g.missing, items, againstOf(g.manifest.against), o.worst, io);
  io.out(`${s.headline}\nreport: ${join(out, 'report', 'index.html')}\n`);
  if (g.missing.length) {
    io.err(
      `sweep gather: ${g.missing.length} of ${g.manifest.total} request(s) missing: ${g.missing.slice(0, 20).join(', ')}${g.missing.length > 20 ? ', …' : ''}\n`,
    );
    return EXIT_GATE;
  }
  return 0;
}

/** The batch entry: {items, against, detail} as JSON on stdin (or a file); one record per line on stdout. */
export async function sweepBatchCommand(spec: string, io: CliIO): Promise<number> {
  const text = spec === '-' ? readFileSync(0, 'utf8') : readInputText(spec);
  const b = JSON.parse(text) as { items: SweepItem[]; against: string; detail: Detail };
  if (!Array.isArray(b.items) || typeof b.against !== 'string' || (b.detail !== 'stages' && b.detail !== 'final'))
    throw new UsageError('sweep-batch: expected {"items": [...], "against": "f64" | "gpu" | "dir:PATH", "detail": "stages" | "final"}');
  const against = againstOf(b.against);
  await runBatch(b.items, { against, detail: b.detail, config: io.config, worker: process.env.HEIGHTBENCH_SWEEP_WORKER || undefined }, (r) =>
    process.stdout.write(`${JSON.stringify(r)}\n`),
  );
  return 0;
}

/** A count ≥ 0 (decimal digits only). */
function parseCount(v: string): number {
  if (!/^\d+$/.test(v.trim()) || Number(v) > 1000) throw new InvalidArgumentError(`expected a count 0 … 1000, got ${JSON.stringify(v)}`);
  return Number(v);
}

function collect(v: string, prev: string[] = []): string[] {
  return [...prev, v];
}

/** The request a capture folder was made for: its request.json, else the request its imports.json or final sidecar names. */
function capturedRequest(dir: string, items: readonly SweepItem[], io: CliIO): PipelineRequest {
  const own = join(dir, 'request.json');
  if (existsSync(own)) return parseRequest(JSON.parse(readInputText(own)) as unknown, own);
  let id: string | null = null;
  const imports = join(dir, IMPORTS_FILE);
  if (existsSync(imports)) {
    const doc = JSON.parse(readInputText(imports)) as { imports?: { request?: string | null }[] };
    id = doc.imports?.find((r) => typeof r.request === 'string')?.request ?? null;
  }
  const sidecar = join(dir, sidecarFile(FINAL_CODES_FILE));
  if (!id && existsSync(sidecar)) {
    const doc = JSON.parse(readInputText(sidecar)) as { request?: unknown };
    id = typeof doc.request === 'string' ? doc.request : null;
  }
  if (!id)
    throw new UsageError(`--captured ${JSON.stringify(dir)}: names no request (expected request.json, or a request in imports.json or final.r16's sidecar)`);
  const item = items.find((it) => it.request.id === id);
  return item ? parseRequest(item.request, `request ${item.name}`) : loadRequest(id, undefined, io.config);
}

export async function coverageCommand(request: string, o: { seeds: string; vary?: string[]; captured?: string[]; json?: boolean }, io: CliIO): Promise<number> {
  const seeds = parseSeeds(o.seeds);
  const vary = (o.vary ?? []).map(parseVariation);
  const base = loadRequest(request, undefined, io.config);
  const { id, ...fields } = base;
  const items = expandSweep({ base: id, request: { format: 'heightbench.request', version: 1, id, ...fields }, seeds, vary, size: base.size });
  const captured = (o.captured ?? []).map((d) => {
    const dir = resolve(d);
    if (!existsSync(dir) || !statSync(dir).isDirectory()) throw new UsageError(`--captured ${JSON.stringify(d)}: expected a capture run folder`);
    return { label: d, request: capturedRequest(dir, items, io) };
  });
  const c = coverageOf(items, (w) => loadWorld(w, io.config), captured);
  io.out(o.json ? `${JSON.stringify(c, null, 2)}\n` : coverageText(c));
  return 0;
}

export const installSweep: CommandInstaller = (program: Command, io: CliIO) => {
  program
    .command('coverage')
    .description(
      "the planner's branches each request exercises: matrix, never-exercised branches, a greedy set cover (requests to capture), what captures cover",
    )
    .argument('<request>', 'request id (config/requests/<id>.json) or a request file')
    .requiredOption('--seeds <spec>', 'seeds: a range a-b, a list, or both (1-1000, 1,7,19190418)')
    .option('--vary <field=a,b>', 'vary a request field over JSON values (repeatable), e.g. locationCategories=[1,2,6],[1,2,6,8]', collect)
    .option('--captured <dirs...>', 'capture run folders already imported (request.json, or the request their imports.json names)')
    .option('--json', 'print JSON')
    .action(async (request: string, o: { seeds: string; vary?: string[]; captured?: string[]; json?: boolean }) => {
      throw new CliExit(await coverageCommand(request, o, io));
    });
  const sweep = program.command('sweep').description('verify many requests (seeds × variations) on Dask: records, survey report; `sweep gather` joins shards');
  sweep
    .command('run', { isDefault: true })
    .description('run a sweep (the default subcommand: `heightbench sweep REQUEST …`)')
    .argument('<request>', 'request id (config/requests/<id>.json) or a request file')
    .requiredOption('--seeds <spec>', 'seeds: a range a-b, a list, or both (1-1000, 1,7,19190418)')
    .option('--vary <field=a,b>', 'vary a request field over JSON values (repeatable), e.g. locationCategories=[1,2,6],[8]', collect)
    .option('--size <n>', 'output size of every request (default: the request file’s)', parsePositiveInt)
    .option('--against <ref>', 'f64 (consistency), gpu (the WebGPU executor) or DIR (captures: DIR/NAME/final.r16 …)', 'f64')
    .requiredOption('--out <dir>', 'sweep folder: sweep.json, records/, report/', parsePath)
    .option('--scheduler <addr>', 'Dask scheduler address (default: $DASK_SCHEDULER_ADDRESS, else an embedded local cluster)')
    .option('--shard <I/N>', 'run only requests k with k mod N = I (0-based I: a CI matrix index or JOB_COMPLETION_INDEX)')
    .option('--resume', 'continue the sweep in --out: requests already recorded are not run again')
    .option('--workers <n>', 'workers of the embedded local cluster (default: the machine’s cores)', parsePositiveInt)
    .option('--batch <k>', 'requests per batch (one Node process; default: a few batches per worker, at most 64)', parsePositiveInt)
    .addOption(
      new Option('--detail <d>', 'stages: every stage compared and hashed; final: the final codes only').choices(['stages', 'final']).default('stages'),
    )
    .option('--report <dir>', 'survey report folder (default OUT/report)', parsePath)
    .option('--no-report', 'write no survey report')
    .option('--worst <k>', 'rerun the k worst mismatched requests with every stage dumped, for a full check report each', parseCount, 3)
    .action(async (request: string, o: SweepOptions) => {
      throw new CliExit(await sweepCommand(request, o, io));
    });
  sweep
    .command('gather')
    .description('join the records of shards (or runs) of one sweep; refuses mixed versions or conventions, names missing requests')
    .argument('<dirs...>', 'sweep folders')
    .requiredOption('--out <dir>', 'gathered sweep folder (new or empty)', parsePath)
    .option('--worst <k>', 'rerun the k worst mismatched requests with every stage dumped, for a full check report each', parseCount, 3)
    .action(async (dirs: string[], o: { out: string; worst: number }) => {
      throw new CliExit(await gatherCommand(dirs, o, io));
    });
  program
    .command('sweep-batch')
    .description('run one batch of sweep requests in this process (what each Dask task runs): JSON on stdin or FILE, one record per line')
    .argument('[spec]', 'batch file, or - for stdin', '-')
    .action(async (spec: string) => {
      throw new CliExit(await sweepBatchCommand(spec, io));
    });
};

export { manifestItems };
