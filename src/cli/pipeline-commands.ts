/**
 * `heightbench assets DIR`, `heightbench check GEN_DIR REF_DIR`, `heightbench bless REQUEST`.
 * bless is the only command that changes references: it regenerates them (f64 path) into a staged folder
 * `references/.bless-<run>.stage-*`, prints the difference report against the current references, then (with --yes)
 * swaps the staged folder in (src/io/folder-swap.ts: the old folder is kept as `references/.<run>.previous` until
 * the new one is in place), records the blessing in references/bless/<run>.json and updates dvc.lock through
 * `dvc commit`. Each bless first restores or removes a kept old folder and removes stale staged folders (of a bless
 * killed before it finished, including the older `.bless-<run>-XXXXXX` names).
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Command } from 'commander';
import { parse as parseYaml } from 'yaml';
import { EXIT_GATE, FormatError, UsageError } from '../errors.js';
import { PRODUCER_VERSION } from '../version.js';
import { buildAssets } from '../pipeline/assets.js';
import { loadWorld } from '../pipeline/plan.js';
import { loadRequest, projectRoot } from '../pipeline/request.js';
import { worldHash } from '../pipeline/run.js';
import { checkRun } from '../compare/check.js';
import { writeFileAtomic } from '../io/atomic.js';
import { rmTreeStep } from '../io/fs-ops.js';
import { folderForReading, makeStage, recoverFolder, removeStale, swapFolderIn, type SwapNames } from '../io/folder-swap.js';
import { readInputText } from '../io/read-input.js';
import { parseNumber, parsePath } from './args.js';
import { CliExit, type CliIO, type CommandInstaller } from './io.js';
import { runCommand } from './run.js';

export interface GateOptions {
  minExact?: number;
  maxCode?: number;
  maxRmsMm?: number;
}

/** Staged and kept-old folder names of a run's references (the kept old name is the one readers fall back to). */
export function blessSwapNames(name: string): SwapNames {
  return { stagePrefix: `.bless-${name}.stage-`, previous: `.${name}.previous` };
}

/** Restores or removes a kept old references folder; removes stale staged folders. Returns what was removed. */
export function cleanBlessLeftovers(referencesDir: string, name: string): string[] {
  const target = join(referencesDir, name);
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
  const h = Object.entries(f.histogram).sort((a, b) => Number(a[0]) - Number(b[0])).map(([d, n]) => `${d}: ${n}`).join(', ');
  io.out(`${name}: exact ${f.exactPercent.toFixed(4)} % | histogram {${h}} | max ${f.maxAbsCode} code | RMS ${f.rmsMm.toFixed(4)} mm`);
  if (f.attribution) io.out(` | straddles ${f.attribution.straddle}, deviations ${f.attribution.deviation}`);
  io.out(`\n  stage inner-400 m RMS (mm): ${c.stages.map((s) => `${s.stage} ${s.innerRmsMm.toExponential(2)}`).join(', ')}\n`);
  for (const g of c.gates) io.out(`  gate ${g.name} ${g.limit}: ${g.value} → ${g.passed ? 'pass' : 'FAIL'}\n`);
  if (c.firstDivergentStage) io.out(`  first stage differing beyond rounding: ${c.firstDivergentStage}\n`);
}

export const installPipelineCommands: CommandInstaller = (program: Command, io: CliIO) => {
  program
    .command('assets')
    .description('build the static height assets (KTX2 with mip chains) of a world into DIR')
    .argument('<dir>', 'output folder', parsePath)
    .option('--world <name>', 'world name', 'tundra')
    .action((dir: string, o: { world: string }) => {
      const world = loadWorld(o.world);
      const idx = buildAssets(world, dir, worldHash(world));
      io.out(`wrote ${idx.length} assets (${idx.filter((a) => a.kind === 'stamp').length} stamp keys, ${idx.filter((a) => a.kind === 'location').length} location textures) to ${dir}\n`);
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
    .option('--strict', 'exit 3 when a gate fails (default: report it in metrics.json and exit 0)')
    .action((g: string, r: string, o: GateOptions & { report?: string; title?: string; sharedPlotly?: string; strict?: boolean }) => {
      // A reference folder between the two renames of a swap is read from its kept old copy (read-only).
      const c = checkRun(folderForReading(g), folderForReading(r), { minExactPercent: o.minExact, maxCode: o.maxCode, maxRmsMm: o.maxRmsMm }, o.report, o.title, o.sharedPlotly);
      printCheck(io, o.title ?? g, c);
      throw new CliExit(o.strict && !c.passed ? EXIT_GATE : 0);
    });

  program
    .command('bless')
    .description('regenerate the references of a run (f64 path, settings from params.yaml), show the difference against the current ones, then replace them and update dvc.lock')
    .argument('<run>', 'run name from params.yaml (e.g. tundra-r19, tundra-r19-1024)')
    .option('--yes', 'replace the references (without it, only the difference is shown)')
    .option('--reason <text>', 'why the heights moved (required with --yes; kept in references/bless/RUN.json)')
    .action((name: string, o: { yes?: boolean; reason?: string }) => {
      const root = projectRoot();
      const reason = o.reason?.trim();
      if (o.yes && !reason) throw new UsageError(`bless ${name}: --yes needs --reason "<why the heights moved>" (the bless record keeps it), got ${JSON.stringify(o.reason ?? null)}`);
      const params = parseYaml(readInputText(join(root, 'params.yaml'))) as { dumpWindow?: number; runs?: Record<string, { request: string; size: number }> };
      const run = params.runs?.[name];
      if (!run) throw new FormatError(`bless: no run ${JSON.stringify(name)} in params.yaml; runs: ${Object.keys(params.runs ?? {}).join(', ')}`);
      const req = loadRequest(run.request, run.size);
      const refs = join(root, 'references');
      const target = join(refs, name);
      const names = blessSwapNames(name);
      const removed = cleanBlessLeftovers(refs, name);
      if (removed.length) io.out(`removed ${removed.length} stale staging folder(s) of an unfinished bless: ${removed.map((p) => p.slice(root.length + 1)).join(', ')}\n`);
      const tmp = makeStage(target, names);
      try {
        // Exactly the DVC reference stage's command (`run … --precision f64 --dump-window W`), so what bless writes is
        // what `dvc repro` regenerates and dvc.lock stays consistent.
        const quiet: CliIO = { out: () => undefined, err: (t) => io.err(t) };
        runCommand(run.request, { out: tmp, size: run.size, precision: 'f64', dumpWindow: params.dumpWindow, inPlace: true }, quiet);
        if (existsSync(join(target, 'final.r16'))) {
          const c = checkRun(tmp, target, {}, join(root, 'reports', `bless-${name}`), `bless ${name}: new vs current references`);
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
        writeFileAtomic(join(refs, 'bless', `${name}.json`), `${JSON.stringify(record, null, 2)}\n`);
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
