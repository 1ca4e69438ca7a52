/**
 * `heightbench assets DIR`, `heightbench bless REQUEST` (`check` is src/cli/check.ts).
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
import { FINAL_CODES_FILE, MANIFEST_FILE } from '../runs/folder.js';
import { join } from 'node:path';
import type { Command } from 'commander';
import { UsageError } from '../errors.js';
import { PRODUCER_VERSION } from '../version.js';
import { buildAssets } from '../assets/assets.js';
import { loadWorld } from '../pipeline/inputs.js';
import { loadRequest } from '../plan/request.js';
import { projectRoot } from '../project/paths.js';
import { worldHash } from '../pipeline/run.js';
import { checkRun } from '../runs/check.js';
import { printCheck } from './check.js';
import { writeFileAtomic } from '../io/atomic.js';
import { rmTreeStep } from '../io/fs-ops.js';
import { makeStage, recoverFolder, removeStale, swapFolderIn, type SwapNames } from '../io/folder-swap.js';
import { checkName, resolveInside } from '../core/names.js';
import { loadParams, paramsRun } from '../pipeline/params.js';
import { parsePath } from './args.js';
import { CliExit, type CliIO, type CommandInstaller } from './io.js';
import { PLAN_STAGES, runCommand } from './run.js';
import { gpuRunCommand } from './gpu-run.js';
import { FIELD_STAGES } from '../pipeline/run.js';
import { findRepoConfig, loadRepoConfig } from './repo-config.js';
import { blessDeclared } from './check-all.js';
import { readFileSync } from 'node:fs';

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
    const manifest = JSON.parse(readFileSync(join(tmp, MANIFEST_FILE), 'utf8')) as { adapter?: Record<string, unknown> };
    const adapter = manifest.adapter ?? null;
    io.out(
      `GPU reference of ${name} on ${adapter ? `${String(adapter.vendor)} ${String(adapter.architecture)} (${String(adapter.description)}) via ${String(adapter.host)}` : 'an unknown adapter'}\n`,
    );
    if (existsSync(join(target, FINAL_CODES_FILE))) {
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
    .command('bless')
    .description(
      'regenerate the references of a run (f64 path, settings from params.yaml), show the difference against the current ones, then replace them and update dvc.lock',
    )
    .argument('<run>', 'run name from params.yaml (e.g. tundra-r19, tundra-r19-1024), or a comparison heightbench.yaml declares')
    .option('--yes', 'replace the references (without it, only the difference is shown)')
    .option('--reason <text>', 'why the heights moved (required with --yes; kept in references/bless/RUN.json)')
    .option('--gpu', "bless the run's GPU reference instead (references/gpu-RUN, `run --backend webgpu`; the record names the adapter)")
    .action(async (name: string, o: { yes?: boolean; reason?: string; gpu?: boolean }) => {
      // A comparison the repository declares (heightbench.yaml) is blessed by recording its hashes.
      const declared = findRepoConfig();
      const cfg = declared === null ? null : loadRepoConfig(declared);
      const own = cfg?.comparisons.find((c) => c.name === name && c.check !== null);
      if (cfg && own) throw new CliExit(blessDeclared(cfg, own, o, io));
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
        if (existsSync(join(target, FINAL_CODES_FILE))) {
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
