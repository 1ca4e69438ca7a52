/**
 * `heightbench diagnose GENERATED REFERENCE [--generated-float F] [--json]` — explains Δ = generated − reference as a
 * least-squares combination of signatures of the reference (shift, gain, blur, bias, edge band) and checks flips and a
 * transposition directly (src/compare/diagnose.ts). Exit 0 with a diagnosis (also when nothing explains Δ), 2 on bad input.
 */
import type { Command } from 'commander';
import { diagnose, diagnosisText, DEFAULT_EDGE_BAND, DEFAULT_EXPLAINED_THRESHOLD, type Diagnosis } from '../compare/diagnose.js';
import { gridDifference } from '../core/grid.js';
import { MismatchError, UsageError } from '../errors.js';
import { statSync } from 'node:fs';
import { readHeightfieldFileAsync, type ReadSettings } from '../io/heightfield-file.js';
import { addInputFlags, addSideFlags, conventionLines, readSides, sideSettings, warnDefaults, type InputFlags, type SideFlags } from './input-flags.js';
import type { ConventionSources } from '../io/input-conventions.js';
import { idleOptions, parseNumber } from './args.js';
import { CliExit, type CliIO, type CommandInstaller } from './io.js';
import { withRowDirection, type Heightfield } from '../core/heightfield.js';
import { InvalidArgumentError } from 'commander';

export interface DiagnoseCliOptions extends InputFlags, SideFlags {
  generatedFloat?: string;
  json?: boolean;
  edgeBand?: number;
  threshold?: number;
}

/** Reads the --generated-float file and checks it lies on the generated map's grid. */
export async function readGeneratedFloat(path: string, gen: Heightfield, settings: ReadSettings): Promise<Float32Array> {
  const f = withRowDirection((await readHeightfieldFileAsync(path, settings)).field, gen.grid.rowDirection);
  const d = gridDifference(f.grid, gen.grid);
  if (d) throw new MismatchError(`--generated-float grid differs from the generated map's in ${d}`);
  if (f.kind !== 'float') throw new MismatchError(`--generated-float ${path}: expected a float field (.r32), found 16-bit codes`);
  return f.height_px;
}

/** A diagnosis and, per side, where its conventions came from (for --json, the text and stderr). */
export interface DiagnosedFiles {
  diagnosis: Diagnosis;
  inputs: { generated: ConventionSources; reference: ConventionSources };
}

/**
 * [R] Both files state their row direction (a sidecar, the file, or flags): a generated side stored in the other row
 * order is reordered exactly to the reference's first, so a flip diagnosed here is a flip of the data, not of storage.
 */
export async function diagnoseFiles(generated: string, reference: string, o: DiagnoseCliOptions): Promise<DiagnosedFiles> {
  const sides = sideSettings(o, true);
  const { generated: genFile, reference: refFile } = await readSides(generated, reference, sides);
  const genSettings = sides.generated;
  const ref = refFile.field;
  const gen = withRowDirection(genFile.field, ref.grid.rowDirection);
  const generatedFloat = o.generatedFloat ? await readGeneratedFloat(o.generatedFloat, gen, genSettings) : null;
  return {
    diagnosis: diagnose(gen, ref, { generatedFloat, edgeBand: o.edgeBand, explainedThreshold: o.threshold }),
    inputs: { generated: genFile.conventions, reference: refFile.conventions },
  };
}

/** Whether `path` is a folder (a link to one counts; anything missing is left to the reader's refusal). */
function isFolder(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

/**
 * `diagnose RUN_DIR REF_DIR`: the folders compared as `check --diagnose` does — the final map and every stage that
 * differs diagnosed, and the warning when a stage differs grossly while a neighbour agrees.
 */
async function diagnoseFolders(g: string, r: string, o: DiagnoseCliOptions, io: CliIO): Promise<number> {
  const [{ checkRun }, { folderForReading }] = await Promise.all([import('../runs/check.js'), import('../io/folder-swap.js')]);
  const c = checkRun(folderForReading(g), folderForReading(r), {}, undefined, undefined, undefined, { diagnose: true });
  const diagnoses = c.diagnoses ?? [];
  if (o.json) {
    io.out(`${JSON.stringify({ diagnoses, warnings: c.warnings, firstDivergentStage: c.firstDivergentStage }, null, 2)}\n`);
    return 0;
  }
  for (const w of c.warnings) io.out(`warning: ${w}\n`);
  if (!diagnoses.length) io.out('diagnosis: the final map and every stage dump agree exactly: nothing to explain.\n');
  for (const d of diagnoses) io.out(`## ${d.scope}\n${diagnosisText(d.diagnosis)}\n`);
  return 0;
}

function parseBand(v: string): number {
  const n = Number(v);
  if (!Number.isInteger(n) || n < 0) throw new InvalidArgumentError(`expected an integer ≥ 0 (texels), got ${JSON.stringify(v)}`);
  return n;
}

export const installDiagnose: CommandInstaller = (program: Command, io: CliIO) => {
  const cmd = program
    .command('diagnose')
    .description('name the likely cause of a difference: shift, gain, blur, bias, edge band, flipped rows or transposition')
    .argument('<generated>', 'generated heightfield file, or run folder (then every differing stage is diagnosed)')
    .argument('<reference>', 'reference heightfield file, or reference run folder')
    .option('--generated-float <file>', "the generated side's pre-encode float field (.r32): Δ is taken from it")
    .option('--json', 'print the diagnosis as JSON')
    .option('--edge-band <k>', `width of the edge-band signature, texels (default ${DEFAULT_EDGE_BAND})`, parseBand)
    .option('--threshold <r2>', `R² below which nothing is said to explain Δ (default ${DEFAULT_EXPLAINED_THRESHOLD})`, parseNumber);
  addSideFlags(addInputFlags(cmd)).action(async (g: string, r: string, opts: DiagnoseCliOptions, command: Command) => {
    const folders = [g, r].map(isFolder);
    if (folders[0] !== folders[1])
      throw new UsageError(`diagnose: ${folders[0] ? g : r} is a folder and ${folders[0] ? r : g} a file; give two heightfield files or two run folders`);
    if (folders[0]) {
      // Two run folders are diagnosed as `check --diagnose` does, from their own files and settings.
      const idle = idleOptions(command, (k) => k === 'json');
      if (idle.length)
        throw new UsageError(
          `diagnose RUN_DIR REF_DIR: ${idle.join(', ')} ${idle.length > 1 ? 'act' : 'acts'} on two heightfield files; two run folders are diagnosed from their own sidecars with the default settings`,
        );
      throw new CliExit(await diagnoseFolders(g, r, opts, io));
    }
    const { diagnosis, inputs } = await diagnoseFiles(g, r, opts);
    warnDefaults(io, [
      ['generated', g, inputs.generated],
      ['reference', r, inputs.reference],
    ]);
    const lines = conventionLines([
      { label: 'generated side', conventions: inputs.generated },
      { label: 'reference', conventions: inputs.reference },
    ]);
    io.out(opts.json ? `${JSON.stringify({ ...diagnosis, inputs }, null, 2)}\n` : `${diagnosisText(diagnosis)}\n${lines.join('\n')}\n`);
    throw new CliExit(0);
  });
};
