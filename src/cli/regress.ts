/**
 * `heightbench regress [--base REV] [--out DIR] [--json]`: the use case is src/runs/regress.ts (what is compared, the
 * verdicts, the report folder); here its outcome is printed, as Markdown or JSON, and its exit status returned.
 */
import type { Command } from 'commander';
import { regressRepository } from '../runs/regress.js';
import { CliExit, type CliIO, type CommandInstaller } from './io.js';

export function regressCommand(o: { base: string; out?: string; json?: boolean }, io: CliIO): number {
  const { regression: r, brief, status } = regressRepository(o);
  if (o.json) io.out(`${JSON.stringify(r, null, 2)}\n`);
  else io.out(`${brief}\nEvery stage of every comparison: regress/summary.md; difference maps: regress/index.html (under reports/)\n`);
  return status;
}

export const installRegress: CommandInstaller = (program: Command, io: CliIO) => {
  program
    .command('regress')
    .description(
      "compare this tree's regenerated reports (metrics, stage hashes, difference maps) with a base revision's, as Markdown and HTML; fails when a gate fails or a stage hash moved without a bless",
    )
    .option('--base <rev>', 'git revision to compare against', 'HEAD')
    .option('--out <dir>', 'folder for index.html, summary.md, regress.json (default reports/regress)')
    .option('--json', 'print the comparison as JSON instead of Markdown')
    .action((o: { base: string; out?: string; json?: boolean }) => {
      throw new CliExit(regressCommand(o, io));
    });
};
