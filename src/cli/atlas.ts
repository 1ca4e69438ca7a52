/**
 * `heightbench atlas REQUEST [--size N] --out DIR [--precision f32|f64] [--shared-plotly FILE] [--json]` — runs every
 * ablation in src/experiments/atlas.ts ABLATIONS against the correct run of REQUEST and writes DIR/index.html,
 * DIR/atlas.json, DIR/metrics.json, DIR/timings.json and the difference maps (src/report/atlas-report.ts). Exit 0, 2 on
 * bad input.
 */
import { join } from 'node:path';
import { Option, type Command } from 'commander';
import { buildAtlas } from '../experiments/atlas.js';
import { atlasJson, atlasTimings, checkAtlasOut, writeAtlas } from '../report/atlas-report.js';
import { readingOf } from '../experiments/atlas-validation.js';
import { loadRequest } from '../plan/request.js';
import { projectRoot } from '../project/paths.js';
import type { Precision } from '../core/precision.js';
import { parsePath, parsePositiveInt } from './args.js';
import { CliExit, type CliIO, type CommandInstaller } from './io.js';

export interface AtlasCliOptions {
  size?: number;
  out: string;
  precision: Precision;
  sharedPlotly?: string;
  json?: boolean;
}

export function atlasCommand(request: string, o: AtlasCliOptions, io: CliIO): number {
  const req = loadRequest(request, o.size, io.config);
  checkAtlasOut(o.out);
  const t0 = performance.now();
  const atlas = buildAtlas(req, { precision: o.precision, config: io.config, onRun: (name, ms) => io.err(`atlas: ${name} ${Math.round(ms)} ms\n`) });
  const buildMs = performance.now() - t0;
  writeAtlas(o.out, atlas, { sharedPlotly: o.sharedPlotly, readme: join(projectRoot(), 'docs', 'atlas-and-diagnose.md'), totalMs: buildMs });
  const totalMs = performance.now() - t0;
  if (o.json) {
    io.out(`${JSON.stringify({ ...atlasJson(atlas), timings: atlasTimings(atlas, totalMs), out: o.out, totalMs }, null, 2)}\n`);
    return 0;
  }
  const named = atlas.entries.filter((e) => e.namedFirst).length;
  const expected = atlas.entries.filter((e) => e.expect !== null).length;
  const lines = [
    `ablation atlas ${req.id} at ${req.size}² (${o.precision}): ${atlas.entries.length} ablations in ${(totalMs / 1000).toFixed(1)} s → ${o.out}/index.html`,
    `diagnose names ${named} of ${expected} expected signatures first`,
  ];
  for (const e of atlas.entries) {
    const d = readingOf(e);
    lines.push(
      `  ${e.name}: exact ${e.final.exactPercent.toFixed(4)} %, RMS ${e.final.rmsMm.toPrecision(4)} mm (codes), float RMS ${e.final.floatRmsMm.toPrecision(4)} mm, max |Δq| ${e.final.maxAbsCode}; diverges at ${e.firstDivergentStage ?? 'no stage'}`,
      `    diagnose [${d.stage}]: ${d.summary}${e.namedFirst === null ? '' : e.namedFirst ? ' ✓' : ` ✗ (expected ${e.expect?.join(' or ')})`}`,
    );
  }
  io.out(`${lines.join('\n')}\n`);
  return 0;
}

export const installAtlas: CommandInstaller = (program: Command, io: CliIO) => {
  program
    .command('atlas')
    .description('run every switchable convention broken on purpose against the correct run; maps, metrics and diagnoses in DIR')
    .argument('<request>', 'request id (config/requests/<id>.json) or a request file')
    .option('--size <n>', "output size (default: the request's)", parsePositiveInt)
    .requiredOption('--out <dir>', 'output folder (index.html, atlas.json, metrics.json, timings.json, maps/)', parsePath)
    .addOption(new Option('--precision <p>', 'precision of the correct run and of the ablations').choices(['f32', 'f64']).default('f32'))
    .option('--shared-plotly <file>', 'link this plotly.min.js (copied there when missing) instead of copying one into DIR', parsePath)
    .option('--json', 'print atlas.json (with the timings) to stdout as well')
    .action((request: string, opts: AtlasCliOptions) => {
      throw new CliExit(atlasCommand(request, opts, io));
    });
};
