/**
 * `heightbench assets DIR`, `heightbench check GEN_DIR REF_DIR`, `heightbench bless REQUEST`.
 * bless is the only command that changes references: it regenerates them (f64 path) into a staged folder
 * `references/.bless-<run>.stage-*`, prints the difference report against the current references, then (with --yes)
 * swaps the staged folder in (src/io/folder-swap.ts: the old folder is kept as `references/.<run>.previous` until
 * the new one is in place), records the blessing in references/bless/<run>.json and updates dvc.lock through
 * `dvc commit`. `bless RUN --gpu` does the same for the run's GPU reference (`references/gpu-<run>`, the DVC stage
 * gpu@<run>: `run --backend webgpu`), and its record names the adapter that produced it. Each bless first restores or removes a kept old folder and removes stale staged folders (of a bless
 * killed before it finished, including the older `.bless-<run>-XXXXXX` names).
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Command } from 'commander';
import { EXIT_GATE, UsageError } from '../errors.js';
import { PRODUCER_VERSION } from '../version.js';
import { buildAssets } from '../assets/assets.js';
import { loadWorld } from '../pipeline/inputs.js';
import { loadRequest, projectRoot } from '../plan/request.js';
import { worldHash } from '../pipeline/run.js';
import { checkRun } from '../report/check.js';
import { attributionSummary } from '../compare/attribution.js';
import { writeFileAtomic } from '../io/atomic.js';
import { rmTreeStep } from '../io/fs-ops.js';
import { folderForReading, makeStage, recoverFolder, removeStale, swapFolderIn, type SwapNames } from '../io/folder-swap.js';
import { checkName, resolveInside } from '../core/names.js';
import { loadParams, paramsRun } from '../pipeline/params.js';
import { parseNonNegativeNumber, parseNumber, parsePath } from './args.js';
import { CliExit, type CliIO, type CommandInstaller } from './io.js';
import { PLAN_STAGES, runCommand } from './run.js';
import { gpuRunCommand } from './gpu-run.js';
import { FIELD_STAGES } from '../pipeline/run.js';
import { readFileSync } from 'node:fs';

export interface GateOptions {
  minExact?: number;
  maxCode?: number;
  maxRmsMm?: number;
  maxNonfinite?: number;
}

/** Staged and kept-old folder names of a run's references (the kept old name is the one readers fall back to). */
export function blessSwapNames(name: string): SwapNames {
  return { stagePrefix: `.bless-${name}.stage-`, previous: `.${name}.previous` };
}

/** Restores or removes a kept old references folder; removes stale staged folders. Returns what was removed. */
export function cleanBlessLeftovers(referencesDir: string, name: string): string[] {
  const target = resolveInside(referencesDir, checkName('run', name));
  const names = blessSwapNames(name);
  recoverFolder(target, names);
  const removed = removeStale(target, names);
  // Staged folders of earlier heightbench versions: mkdtemp names `.bless-<run>-XXXXXX`.
  const legacy = new RegExp(`^\\.bless-${name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}-[A-Za-z0-9]{6}$`);
  for (const e of readdirSync(referencesDir)) {
    if (legacy.test(e)) {
      rmTreeStep(join(referencesDir, e));
      removed.push(join(referencesDir, e));
    }
  }
  return removed;
}

function printCheck(io: CliIO, name: string, c: ReturnType<typeof checkRun>): void {
  const f = c.final;
  const h = Object.entries(f.histogram)
    .sort((a, b) => Number(a[0]) - Number(b[0]))
    .map(([d, n]) => `${d}: ${n}`)
    .join(', ');
  io.out(`${name}: exact ${f.exactPercent.toFixed(4)} % | histogram {${h}} | max ${f.maxAbsCode} code | RMS ${f.rmsMm.toFixed(4)} mm`);
  if (f.attribution) io.out(` | straddles ${f.attribution.straddle}, deviations ${f.attribution.deviation}`);
  io.out(`\n  stage inner-400 m RMS (mm): ${c.stages.map((s) => `${s.stage} ${s.innerRmsMm.toExponential(2)}`).join(', ')}\n`);
  for (const g of c.gates) io.out(`  gate ${g.name} ${g.limit}: ${g.value} → ${g.passed ? 'pass' : 'FAIL'}\n`);
  if (c.firstDivergentStage) io.out(`  first stage differing beyond rounding: ${c.firstDivergentStage}\n`);
  if (c.stageAttribution)
    io.out(
      `  stage attribution: ${attributionSummary(c.stageAttribution)
        .map((l) => l.trim())
        .join('; ')}\n`,
    );
}

/** The GPU reference folder and DVC stage of a run. */
export function gpuReferenceName(run: string): string {
  return `gpu-${run}`;
}

/**
 * `bless RUN --gpu`: regenerates references/gpu-RUN with exactly the gpu@RUN stage's command (`run --backend webgpu
 * --size N --adapter params.gpu.adapter`, whole stage dumps) into a staged folder, shows the difference against the current GPU reference, and with
 * --yes swaps it in, writes references/bless/gpu-RUN.json (request, size, reason and the adapter: vendor,
 * architecture, device, driver description, host, measured sub-pixel bits) and runs `dvc commit gpu@RUN`.
 * [R] The adapter is part of the record because the GPU reference depends on it: on another adapter the same
 *     command legitimately writes other bytes (check-determinism.mjs compares hashes only on the blessed adapter).
 */
async function blessGpu(name: string, o: { yes?: boolean; reason?: string }, io: CliIO): Promise<void> {
  const root = projectRoot();
  const reason = o.reason?.trim();
  if (o.yes && !reason)
    throw new UsageError(
      `bless ${name} --gpu: --yes needs --reason "<why the heights moved>" (the bless record keeps it), got ${JSON.stringify(o.reason ?? null)}`,
    );
  const params = loadParams(root);
  const run = paramsRun(params, name, 'bless');
  const req = loadRequest(run.request, run.size, io.config);
  const refs = join(root, 'references');
  const gname = gpuReferenceName(name);
  const target = resolveInside(refs, gname);
  const names = blessSwapNames(gname);
  const removed = cleanBlessLeftovers(refs, gname);
  if (removed.length)
    io.out(`removed ${removed.length} stale staging folder(s) of an unfinished bless: ${removed.map((p) => p.slice(root.length + 1)).join(', ')}\n`);
  const tmp = makeStage(target, names);
  try {
    const quiet: CliIO = { out: () => undefined, err: (t) => io.err(t), config: io.config };
    const code = await gpuRunCommand(
      run.request,
      // Whole stage dumps, as the gpu stage writes them: the attribution needs every differing pixel's stages.
      { out: tmp, size: run.size, adapter: params.gpu.adapter ?? 'swiftshader', inPlace: true },
      quiet,
      PLAN_STAGES,
      FIELD_STAGES,
    );
    if (code !== 0) throw new CliExit(code);
    const manifest = JSON.parse(readFileSync(join(tmp, 'manifest.json'), 'utf8')) as { adapter?: Record<string, unknown> };
    const adapter = manifest.adapter ?? null;
    io.out(
      `GPU reference of ${name} on ${adapter ? `${String(adapter.vendor)} ${String(adapter.architecture)} (${String(adapter.description)}) via ${String(adapter.host)}` : 'an unknown adapter'}\n`,
    );
    if (existsSync(join(target, 'final.r16'))) {
      const c = checkRun(tmp, target, {}, resolveInside(join(root, 'reports'), `bless-${gname}`), `bless ${name} --gpu: new vs current GPU reference`);
      printCheck(io, `new vs current ${gname}`, c);
      io.out(`difference report: reports/bless-${gname}/index.html\n`);
    } else io.out(`no current GPU reference for ${name}: creating it\n`);
    if (!o.yes) {
      io.out('nothing replaced; run again with --yes to bless\n');
      return;
    }
    swapFolderIn(tmp, target, names);
    const record = {
      request: req.id,
      size: req.size,
      backend: 'webgpu',
      adapterSpec: params.gpu.adapter ?? 'swiftshader',
      dumpWindow: null,
      producer: PRODUCER_VERSION,
      adapter,
      reason,
    };
    writeFileAtomic(resolveInside(join(refs, 'bless'), `${gname}.json`), `${JSON.stringify(record, null, 2)}\n`);
    const dvc = join(root, '.venv', 'bin', 'dvc');
    if (existsSync(dvc)) {
      const r = spawnSync(dvc, ['commit', '--force', `gpu@${name}`], { cwd: root, encoding: 'utf8' });
      io.out(r.status === 0 ? `dvc.lock updated for gpu@${name}\n` : `dvc commit failed: ${r.stderr}\n`);
    }
    io.out(`blessed references/${gname}\n`);
  } finally {
    if (existsSync(tmp)) {
      try {
        rmTreeStep(tmp);
      } catch {
        /* a crash: the next bless removes it */
      }
    }
  }
}

export const installPipelineCommands: CommandInstaller = (program: Command, io: CliIO) => {
  program
    .command('assets')
    .description('build the static height assets (KTX2 with mip chains) of a world into DIR')
    .argument('<dir>', 'output folder', parsePath)
    .option('--world <name>', 'world name', 'tundra')
    .action((dir: string, o: { world: string }) => {
      const world = loadWorld(o.world, io.config);
      const idx = buildAssets(world, dir, worldHash(world, io.config));
      io.out(
        `wrote ${idx.length} assets (${idx.filter((a) => a.kind === 'stamp').length} stamp keys, ${idx.filter((a) => a.kind === 'location').length} location textures) to ${dir}\n`,
      );
      throw new CliExit(0);
    });

  program
    .command('check')
    .description('compare a run folder with its reference folder: final codes, attribution, every stage dump; gates')
    .argument('<generated-dir>', 'run folder', parsePath)
    .argument('<reference-dir>', 'reference folder', parsePath)
    .option('--report <dir>', 'write the report (index.html, summary.md, metrics.json, stages.json, pictures)', parsePath)
    .option('--title <text>', 'report title')
    .option('--shared-plotly <file>', 'link this plotly.min.js instead of copying one')
    .option('--min-exact <pct>', 'gate: minimum exact-code percentage', parseNumber)
    .option('--max-code <n>', 'gate: maximum |Δq|', parseNumber)
    .option('--max-rms-mm <x>', 'gate: maximum RMS in mm', parseNumber)
    .option(
      '--max-nonfinite <n>',
      'gate: most pixels with a non-finite value (NaN, ±Inf) on either side (default 0 whenever a gate is given)',
      parseNonNegativeNumber,
    )
    .option('--strict', 'exit 3 when a gate fails (default: report it in metrics.json and exit 0)')
    .option('--reference-kind <text>', 'say in the report what kind of reference this is (e.g. "heightbench GPU executor")')
    .option('--attribution', 'attribute every differing final code to the first stage differing by more than ε there')
    .option('--attribution-eps-mm <x>', 'ε of --attribution, mm (default 0.01)', parseNumber)
    .option('--note <text>', 'a line for the report summary (repeatable)', (v: string, prev: string[] = []) => [...prev, v])
    .action(
      (
        g: string,
        r: string,
        o: GateOptions & {
          report?: string;
          title?: string;
          sharedPlotly?: string;
          strict?: boolean;
          referenceKind?: string;
          attribution?: boolean;
          attributionEpsMm?: number;
          note?: string[];
        },
      ) => {
        // A reference folder between the two renames of a swap is read from its kept old copy (read-only).
        const c = checkRun(
          folderForReading(g),
          folderForReading(r),
          { minExact: o.minExact, maxCode: o.maxCode, maxRmsMm: o.maxRmsMm, maxNonFinite: o.maxNonfinite },
          o.report,
          o.title,
          o.sharedPlotly,
          {
            referenceKind: o.referenceKind,
            attribution: o.attribution || o.attributionEpsMm !== undefined,
            attributionEpsilonMm: o.attributionEpsMm,
            notes: o.note,
          },
        );
        printCheck(io, o.title ?? g, c);
        throw new CliExit(o.strict && !c.passed ? EXIT_GATE : 0);
      },
    );

  program
    .command('bless')
    .description(
      'regenerate the references of a run (f64 path, settings from params.yaml), show the difference against the current ones, then replace them and update dvc.lock',
    )
    .argument('<run>', 'run name from params.yaml (e.g. tundra-r19, tundra-r19-1024)')
    .option('--yes', 'replace the references (without it, only the difference is shown)')
    .option('--reason <text>', 'why the heights moved (required with --yes; kept in references/bless/RUN.json)')
    .option('--gpu', "bless the run's GPU reference instead (references/gpu-RUN, `run --backend webgpu`; the record names the adapter)")
    .action(async (name: string, o: { yes?: boolean; reason?: string; gpu?: boolean }) => {
      if (o.gpu) {
        await blessGpu(name, o, io);
        throw new CliExit(0);
      }
      const root = projectRoot();
      const reason = o.reason?.trim();
      if (o.yes && !reason)
        throw new UsageError(
          `bless ${name}: --yes needs --reason "<why the heights moved>" (the bless record keeps it), got ${JSON.stringify(o.reason ?? null)}`,
        );
      const params = loadParams(root);
      const run = paramsRun(params, name, 'bless');
      const req = loadRequest(run.request, run.size, io.config);
      const refs = join(root, 'references');
      const target = resolveInside(refs, name);
      const names = blessSwapNames(name);
      const removed = cleanBlessLeftovers(refs, name);
      if (removed.length)
        io.out(`removed ${removed.length} stale staging folder(s) of an unfinished bless: ${removed.map((p) => p.slice(root.length + 1)).join(', ')}\n`);
      const tmp = makeStage(target, names);
      try {
        // Exactly the DVC reference stage's command (`run … --precision f64 --dump-window W`), so what bless writes is
        // what `dvc repro` regenerates and dvc.lock stays consistent.
        const quiet: CliIO = { out: () => undefined, err: (t) => io.err(t), config: io.config };
        await runCommand(run.request, { out: tmp, size: run.size, precision: 'f64', dumpWindow: params.dumpWindow, inPlace: true }, quiet);
        if (existsSync(join(target, 'final.r16'))) {
          const c = checkRun(tmp, target, {}, resolveInside(join(root, 'reports'), `bless-${name}`), `bless ${name}: new vs current references`);
          printCheck(io, `new vs current ${name}`, c);
          io.out(`difference report: reports/bless-${name}/index.html\n`);
        } else io.out(`no current references for ${name}: creating them\n`);
        if (!o.yes) {
          io.out('nothing replaced; run again with --yes to bless\n');
          throw new CliExit(0);
        }
        swapFolderIn(tmp, target, names);
        // One record per run: blessing one run leaves every other reference stage untouched.
        const record = { request: req.id, size: req.size, precision: 'f64', dumpWindow: params.dumpWindow ?? null, producer: PRODUCER_VERSION, reason };
        writeFileAtomic(resolveInside(join(refs, 'bless'), `${name}.json`), `${JSON.stringify(record, null, 2)}\n`);
        const dvc = join(root, '.venv', 'bin', 'dvc');
        if (existsSync(dvc)) {
          const r = spawnSync(dvc, ['commit', '--force', `reference@${name}`], { cwd: root, encoding: 'utf8' });
          io.out(r.status === 0 ? `dvc.lock updated for reference@${name}\n` : `dvc commit failed: ${r.stderr}\n`);
        }
        io.out(`blessed references/${name}\n`);
      } finally {
        if (existsSync(tmp)) {
          try {
            rmTreeStep(tmp);
          } catch {
            /* a crash: the next bless removes it */
          }
        }
      }
      throw new CliExit(0);
    });
};
