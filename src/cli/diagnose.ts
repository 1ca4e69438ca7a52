/**
 * `heightbench diagnose GENERATED REFERENCE [--generated-float F] [--json]` — explains Δ = generated − reference as a
 * least-squares combination of signatures of the reference (shift, gain, blur, bias, edge band) and checks flips and a
 * transposition directly (src/compare/diagnose.ts). Exit 0 with a diagnosis (also when nothing explains Δ), 2 on bad input.
 */
import { Option, type Command } from 'commander';
import { diagnose, diagnosisText, DEFAULT_EDGE_BAND, DEFAULT_EXPLAINED_THRESHOLD, type Diagnosis } from '../compare/diagnose.js';
import { gridDifference } from '../core/grid.js';
import { MismatchError } from '../errors.js';
import { readHeightfieldFile, type ReadSettings } from '../io/heightfield-file.js';
import { parseEndian, parseNumber, parseRange, parseSize } from './args.js';
import { CliExit, type CliIO, type CommandInstaller } from './io.js';
import type { Heightfield } from '../core/heightfield.js';
import { InvalidArgumentError } from 'commander';

export interface DiagnoseCliOptions extends ReadSettings {
  generatedFloat?: string;
  json?: boolean;
  edgeBand?: number;
  threshold?: number;
}

/** Reads the --generated-float file and checks it lies on the generated map's grid. */
export function readGeneratedFloat(path: string, gen: Heightfield, settings: ReadSettings): Float32Array {
  const f = readHeightfieldFile(path, settings).field;
  const d = gridDifference(f.grid, gen.grid);
  if (d) throw new MismatchError(`--generated-float grid differs from the generated map's in ${d}`);
  if (f.kind !== 'float') throw new MismatchError(`--generated-float ${path}: expected a float field (.r32), found 16-bit codes`);
  return f.height_px;
}

export function diagnoseFiles(generated: string, reference: string, o: DiagnoseCliOptions): Diagnosis {
  const settings: ReadSettings = { size: o.size, endian: o.endian, range: o.range };
  const ref = readHeightfieldFile(reference, settings).field;
  const gen = readHeightfieldFile(generated, settings).field;
  const generatedFloat = o.generatedFloat ? readGeneratedFloat(o.generatedFloat, gen, settings) : null;
  return diagnose(gen, ref, { generatedFloat, edgeBand: o.edgeBand, explainedThreshold: o.threshold });
}

function parseBand(v: string): number {
  const n = Number(v);
  if (!Number.isInteger(n) || n < 0) throw new InvalidArgumentError(`expected an integer ≥ 0 (texels), got ${JSON.stringify(v)}`);
  return n;
}

export const installDiagnose: CommandInstaller = (program: Command, io: CliIO) => {
  program
    .command('diagnose')
    .description('name the likely cause of a difference: shift, gain, blur, bias, edge band, flipped rows or transposition')
    .argument('<generated>')
    .argument('<reference>')
    .option('--generated-float <file>', "the generated side's pre-encode float field (.r32): Δ is taken from it")
    .option('--json', 'print the diagnosis as JSON')
    .option('--edge-band <k>', `width of the edge-band signature, texels (default ${DEFAULT_EDGE_BAND})`, parseBand)
    .option('--threshold <r2>', `R² below which nothing is said to explain Δ (default ${DEFAULT_EXPLAINED_THRESHOLD})`, parseNumber)
    .option('--size <WxH>', 'size of raw inputs without sidecar', parseSize)
    .addOption(new Option('--endian <le|be>', 'byte order of raw inputs without sidecar').argParser(parseEndian))
    .option('--range <MIN,MAX>', 'height range of 16-bit inputs without sidecar', parseRange)
    .action((g: string, r: string, opts: DiagnoseCliOptions) => {
      const d = diagnoseFiles(g, r, opts);
      io.out(opts.json ? `${JSON.stringify(d, null, 2)}\n` : diagnosisText(d));
      throw new CliExit(0);
    });
};
