/**
 * `heightbench assets DIR`, `heightbench bless RUN [--gpu]` (`check` is src/cli/check.ts).
 * bless is the only command that changes references: the use case is src/runs/bless.ts (regenerate into a staged
 * folder, compare, with --yes swap in, record, `dvc commit`); here its settings are loaded, the DVC stage's command is
 * run for it, and its outcome is printed.
 */
import type { Command } from 'commander';
import { buildAssets } from '../assets/assets.js';
import { loadWorld } from '../pipeline/inputs.js';
import { loadRequest } from '../plan/request.js';
import { projectRoot } from '../project/paths.js';
import { FIELD_STAGES, worldHash } from '../pipeline/run.js';
import { blessReason, blessReferences } from '../runs/bless.js';
import { printCheck } from './check.js';
import { loadParams, paramsRun } from '../pipeline/params.js';
import { parsePath } from './args.js';
import { CliExit, type CliIO, type CommandInstaller } from './io.js';
import { PLAN_STAGES, runCommand } from './run.js';
import { gpuRunCommand } from './gpu-run.js';
import { findRepoConfig, loadRepoConfig } from '../runs/repo-config.js';
import { blessDeclared } from '../runs/check-all.js';

/**
 * `bless RUN [--gpu]`: the settings loaded (params.yaml, the run's request), the use case (src/runs/bless.ts) run with
 * the DVC stage's own command, its outcome printed.
 */
async function bless(name: string, o: { yes?: boolean; reason?: string; gpu?: boolean }, io: CliIO): Promise<void> {
  const gpu = o.gpu === true;
  const root = projectRoot();
  const reason = blessReason(name, o);
  const params = loadParams(root);
  const run = paramsRun(params, name, 'bless');
  const request = loadRequest(run.request, run.size, io.config);
  // The regeneration's own lines are not shown (its warnings are); the comparison says what changed.
  const quiet: CliIO = { out: () => undefined, err: (t) => io.err(t), config: io.config };
  const r = await blessReferences({
    root,
    name,
    gpu,
    yes: o.yes === true,
    reason,
    params,
    run,
    request,
    regenerate: async (g) => {
      if (g.backend === 'webgpu') {
        const code = await gpuRunCommand(g.request, { out: g.dir, size: g.size, adapter: g.adapter, inPlace: true }, quiet, PLAN_STAGES, FIELD_STAGES);
        if (code !== 0) throw new CliExit(code);
      } else await runCommand(g.request, { out: g.dir, size: g.size, precision: g.precision, dumpWindow: g.dumpWindow, inPlace: true }, quiet);
    },
    onCleaned: (removed) => {
      if (removed.length)
        io.out(`removed ${removed.length} stale staging folder(s) of an unfinished bless: ${removed.map((p) => p.slice(root.length + 1)).join(', ')}\n`);
    },
    onAdapter: (adapter) =>
      io.out(
        `GPU reference of ${name} on ${adapter ? `${String(adapter.vendor)} ${String(adapter.architecture)} (${String(adapter.description)}) via ${String(adapter.host)}` : 'an unknown adapter'}\n`,
      ),
  });
  if (r.comparison) {
    printCheck(io, `new vs current ${r.reference}`, r.comparison);
    io.out(`difference report: reports/bless-${r.reference}/index.html\n`);
  } else io.out(gpu ? `no current GPU reference for ${name}: creating it\n` : `no current references for ${name}: creating them\n`);
  if (!r.replaced) {
    io.out('nothing replaced; run again with --yes to bless\n');
    return;
  }
  if (r.dvc) io.out(r.dvc.ok ? `dvc.lock updated for ${r.dvc.stage}\n` : `dvc commit failed: ${r.dvc.stderr}\n`);
  io.out(`blessed references/${r.reference}\n`);
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
      await bless(name, o, io);
      throw new CliExit(0);
    });
};
