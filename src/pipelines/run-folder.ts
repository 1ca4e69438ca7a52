/**
 * The declaration a run folder records (`pipeline.json`), and the rule for two folders compared: they must declare the
 * same pipeline.
 * Inputs: run folder paths. Outputs: the folder's declaration — its pipeline.json, or the seed pipeline when it has
 * none (every run folder written before declarations existed is a seed run) — and the stage files it holds that the
 * declaration does not name.
 * [R] Presence by lstat (inputPresent): a dangling link named pipeline.json is refused, never read as "absent".
 */
import { statSync } from 'node:fs';
import { join } from 'node:path';
import { FileSystemError, MismatchError } from '../errors.js';
import { inputPresent } from '../io/read-input.js';
import { PIPELINE_FILE, firstDeclarationDifference, readPipelineDeclaration, undeclaredStageFiles, type PipelineDeclaration } from './declaration.js';
import { SEED_PIPELINE } from './seed.js';

/** The declaration of run folder `dir`: its pipeline.json, else `fallback` (the seed pipeline unless a caller names one). */
export function runFolderPipeline(dir: string, fallback: PipelineDeclaration = SEED_PIPELINE): PipelineDeclaration {
  // An absent folder is said as such (not read as a seed run whose pipeline then differs from the other side's).
  let isFolder = false;
  try {
    isFolder = statSync(dir).isDirectory();
  } catch {
    /* absent: refused below */
  }
  if (!isFolder) throw new FileSystemError(`${dir}: no such run folder`);
  const p = join(dir, PIPELINE_FILE);
  return inputPresent(p) ? readPipelineDeclaration(p) : fallback;
}

/** The one declaration two run folders share, or a refusal naming the first difference. */
export function sharedPipeline(dirA: string, dirB: string, fallback: PipelineDeclaration = SEED_PIPELINE): PipelineDeclaration {
  const a = runFolderPipeline(dirA, fallback);
  const b = runFolderPipeline(dirB, fallback);
  const d = firstDeclarationDifference(a, b);
  if (d !== null)
    throw new MismatchError(
      `${dirA} declares pipeline ${JSON.stringify(a.name)} and ${dirB} pipeline ${JSON.stringify(b.name)}, and they differ; first difference: ${d} (a folder without ${PIPELINE_FILE} is ${fallback === SEED_PIPELINE ? 'the seed pipeline' : `pipeline ${JSON.stringify(fallback.name)}, heightbench.yaml's`})`,
    );
  return a;
}

/** One line per folder holding heightfield files its declaration does not name (empty when there are none). */
export function undeclaredNotes(sides: readonly (readonly [string, string])[], d: PipelineDeclaration): string[] {
  return sides.flatMap(([side, dir]) => {
    const extra = undeclaredStageFiles(dir, d);
    return extra.length
      ? [
          `The ${side} folder holds ${extra.length} stage file${extra.length === 1 ? '' : 's'} pipeline ${JSON.stringify(d.name)} does not declare, not compared: ${extra.join(', ')}.`,
        ]
      : [];
  });
}
