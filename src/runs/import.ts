/**
 * The import use case (`heightbench import`, src/cli/import.ts, parses the flags and the manifest and prints):
 * turns captures from outside (DDS, EXR, TIFF, .npy, headerless raw, or heightbench's own files) into a reference run
 * folder in heightbench's format, so `check`, attribution, `diagnose`, `regress` and the reports work on it unchanged:
 *  - the final map (stage `final`) must hold UNORM16 codes (a render-target readback) and is written as final.r16; a
 *    float field is refused there — encoding it here would be an approximate CPU encoding, which the article says does
 *    not prove codewise equivalence; import it as `pre-encode` instead;
 *  - every other stage is written as `<stage>.r32` (float32 metres; codes are decoded exactly);
 *  - each sidecar records the import: original file name and container, the capture's SHA-256, the source tool, what
 *    was selected (channel, level, slice) and where each convention came from; `imports.json` lists every import;
 *  - conventions must be stated (sidecar, georeferencing, flags or --assume-defaults), as for a comparison;
 *  - an existing run folder gains stages; a stage already there is replaced only with --replace; the folder is built
 *    staged and swapped in whole (a reader sees the old run or the new one);
 *  - each record names the capture by its base name (`file`) and by its path relative to the repository holding the
 *    run folder (`path`, POSIX separators; relative to the run folder when no repository holds it: `pathFrom`);
 *  - `--dvc` tracks the run folder and the captures themselves with `dvc add` (each .dvc file beside what it tracks;
 *    a capture git already tracks stays in git). It is refused before anything is written when DVC is missing, when
 *    the run folder is not inside a DVC project (quoting DVC's reason) or when a capture lies outside that project;
 *  - `--pipeline FILE` (or a manifest's `pipeline:`) names the pipeline declaration (docs/pipelines.md) whose stage
 *    names the captures take; the run folder records it as pipeline.json. Without one, the folder's own pipeline.json
 *    is used, else the seed pipeline. A declaration that differs from the one the folder records is refused, naming
 *    the first difference. The stage holding codes (the seed's `final`) must be codes over the declared range.
 */
import { copyFileSync, existsSync, lstatSync, readdirSync, readlinkSync, statSync } from 'node:fs';
import { basename, dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import {
  PIPELINE_FILE,
  encodedStage,
  firstDeclarationDifference,
  pipelineJson,
  readPipelineDeclaration,
  stageFileName as declaredFileName,
  type PipelineDeclaration,
} from '../pipelines/declaration.js';
import { runFolderPipeline } from '../pipelines/run-folder.js';
import { SEED_PIPELINE } from '../pipelines/seed.js';
import { floatHeightfield, heightsOf, withRowDirection, type Heightfield } from '../core/heightfield.js';
import { FormatError, MismatchError, UsageError } from '../errors.js';
import { writeFileAtomic } from '../io/atomic.js';
import { defaultSwapNames, realOutputPath } from '../io/folder-swap.js';
import { readHeightfieldFileAsync, writeHeightfieldFile, containerForPath, type LoadedHeightfield, type ReadSettings } from '../io/heightfield-file.js';
import { checkArray, checkObject, checkString, parseJson } from '../io/json-check.js';
import { readInputText, sha256OfRegularFile } from '../io/read-input.js';
import { FINAL_PNG_FILE, IMPORTS_FILE, importsJson, openStagedFolder, type ImportRecord } from './folder.js';
import { dvcAdd, dvcRoot, gitTracks, inside, repositoryRoot } from './dvc.js';

/** What the import is asked beside its runs: --replace, --dvc, and the manifest (named in refusals). */
export interface ImportOptions {
  manifest?: string;
  replace?: boolean;
  dvc?: boolean;
}

/** One run folder to import into: its --out, its declaration file, its captures. */
export interface ImportJob {
  out: string | undefined;
  pipeline: string | undefined;
  captures: ImportCapture[];
}

/** One capture to import: the file, its stage, and how it is read (its conventions required). */
export interface ImportCapture {
  file: string;
  stage: string;
  settings: ReadSettings;
  source: string | null;
  request: string | null;
}

/** The name a stage of `d` is stored under in a run folder (checked by checkStage first). */
function stageFileName(stage: string, d: PipelineDeclaration): string {
  return declaredFileName(d.stages.find((s) => s.name === stage)!);
}

function checkStage(stage: string, where: string, d: PipelineDeclaration): string {
  if (!d.stages.some((s) => s.name === stage)) {
    throw new UsageError(
      `${where}: stage ${JSON.stringify(stage)} is not one of the pipeline's stages: ${d.stages.map((s) => s.name).join(', ')} (pipeline ${JSON.stringify(d.name)}${d === SEED_PIPELINE ? '; give --pipeline FILE to import the stages of your own pipeline: docs/pipelines.md' : ''})`,
    );
  }
  return stage;
}

/** The declaration in `file`, else the seed pipeline. */
export function pipelineOf(file: string | undefined): PipelineDeclaration {
  return file === undefined ? SEED_PIPELINE : readPipelineDeclaration(file);
}

/**
 * The field a stage file holds: codes for final (refusing floats, see the header), float metres otherwise, stored
 * [R] in heightbench's row order (row 0 at ymin) so attribution and check line pixels up with runs the pipeline wrote;
 * the reordering is exact and the note records the capture's own row order.
 */
function stageField(c: ImportCapture, loaded: Heightfield, d: PipelineDeclaration): { field: Heightfield; note: string | null } {
  const f = withRowDirection(loaded, 'row0-at-ymin');
  const reordered = f !== loaded ? `rows reordered exactly from the capture's ${loaded.grid.rowDirection} to row0-at-ymin` : null;
  const { field, note } = stageFieldOf(c, f, d);
  return { field, note: [reordered, note].filter(Boolean).join('; ') || null };
}

function stageFieldOf(c: ImportCapture, f: Heightfield, d: PipelineDeclaration): { field: Heightfield; note: string | null } {
  const enc = encodedStage(d);
  if (c.stage === enc.name) {
    if (f.kind !== 'codes') {
      throw new MismatchError(
        `${c.file}: stage ${enc.name} holds R16 codes read back from the render target; this file holds float heights — import it as ${enc.encodedFrom ?? 'a float stage'}, or bring the R16_UNORM readback (a CPU encoding here would not prove codewise equivalence)`,
      );
    }
    // The codes mean heights only over the declared range: a capture read over another range is refused.
    if (enc.holds.kind === 'codes' && d !== SEED_PIPELINE && (f.range.min !== enc.holds.min || f.range.max !== enc.holds.max))
      throw new MismatchError(
        `${c.file}: stage ${enc.name} of pipeline ${d.name} holds codes over ${enc.holds.min},${enc.holds.max}; the capture's range is ${f.range.min},${f.range.max} (give --range ${enc.holds.min},${enc.holds.max})`,
      );
    return { field: f, note: null };
  }
  if (f.kind === 'codes')
    return { field: floatHeightfield(f.grid, heightsOf(f)), note: `UNORM16 codes of range ${f.range.min},${f.range.max} decoded to metres` };
  return { field: f, note: null };
}

/** The stage files a run folder of `d` holds (final.r16, <stage>.r32): an existing --out must hold one, or imports.json. */
const runStageFiles = (d: PipelineDeclaration) => new Set<string>([...d.stages.map(declaredFileName), FINAL_PNG_FILE, PIPELINE_FILE]);

/** Whether `p` lies inside folder `base` (or is `base` itself, when `orSame`); both absolute. */
export function within(base: string, p: string, orSame: boolean): boolean {
  const rel = relative(base, p);
  if (rel === '') return orSame;
  return rel !== '..' && !rel.startsWith(`..${sep}`) && !isAbsolute(rel);
}

/**
 * [R] The --out folder is replaced whole by a rename (src/io/folder-swap.ts), so it must be a folder this command may
 * swap: not a symbolic link (the swap would replace the link by a folder, leaving its target as it was), not the
 * current folder or one holding it (a process inside it would be left in a removed folder), and not named like the
 * swap's own staged or kept folders (`.NAME.stage-…`, `.NAME.previous`, which a later import of NAME removes).
 */
function checkOutFolder(out: string): string {
  const target = resolve(out);
  let link: string | null = null;
  try {
    if (lstatSync(target).isSymbolicLink()) link = readlinkSync(target);
  } catch {
    /* absent: created by the swap */
  }
  if (link !== null) throw new UsageError(`--out ${out}: is a symbolic link (to ${link}); give the folder it names, or a new folder`);
  // The folder the swap acts on: its parent resolved through links (the target itself is not a link, checked above).
  const real = join(realOutputPath(dirname(target)), basename(target));
  if (within(real, realOutputPath(process.cwd()), true)) {
    throw new UsageError(`--out ${out}: is the current folder or holds it (${target}); the import replaces --out whole, so give a run folder inside it`);
  }
  if (/^\..+\.(stage-.*|previous)$/.test(basename(target))) {
    throw new UsageError(
      `--out ${out}: ${JSON.stringify(basename(target))} is named like a staged or kept folder of a swap, which a later import removes; give another name`,
    );
  }
  return real;
}

export interface PlannedRun {
  out: string;
  target: string;
  /** The declaration the run's stages are checked against, and the one given (recorded as pipeline.json). */
  decl: PipelineDeclaration;
  given: PipelineDeclaration | null;
  captures: ImportCapture[];
  dvcPlan: { root: string; captures: string[]; inGit: string[] } | null;
}

/** What one run will do, checked before anything is read or written. */
function planRun(out: string | undefined, pipelineFile: string | undefined, captures: ImportCapture[], o: ImportOptions): PlannedRun {
  if (!out) throw new UsageError('import: --out RUN_DIR is required (or `out:` in the manifest)');
  const target = checkOutFolder(out);
  // The declaration: the one given, else the folder's own (pipeline.json), else the seed's; a given one must be the folder's.
  const given = pipelineFile === undefined ? null : readPipelineDeclaration(pipelineFile);
  const recorded = existsSync(target) && statSync(target).isDirectory() ? runFolderPipeline(target) : SEED_PIPELINE;
  const recordsOne = existsSync(join(target, PIPELINE_FILE));
  if (given && recordsOne) {
    const diff = firstDeclarationDifference(recorded, given);
    if (diff !== null)
      throw new UsageError(`--out ${out}: records pipeline ${JSON.stringify(recorded.name)}, and ${pipelineFile} differs from it; first difference: ${diff}`);
  }
  const decl = given ?? recorded;
  captures.forEach((c, i) => checkStage(c.stage, o.manifest ? `${o.manifest}.captures[${i}]` : '--stage', decl));
  if (captures.length > decl.stages.length)
    throw new FormatError(
      `${o.manifest}.captures: ${captures.length} captures, more than the ${decl.stages.length} stages a run of ${decl.name} holds (${decl.stages.map((s) => s.name).join(', ')})`,
    );
  const seen = new Set<string>();
  for (const c of captures) {
    if (seen.has(c.stage)) throw new UsageError(`import: stage ${c.stage} is given twice`);
    seen.add(c.stage);
    containerForPath(c.file); // refuses an unknown extension before anything is read
  }
  // --dvc is settled before anything is read or written: DVC present, a project holding the run folder and the captures.
  const dvcPlan = o.dvc ? planDvc(target, captures) : null;
  return { out, target, decl, given, captures, dvcPlan };
}

/** Imports one planned run into its folder: read everything, then swap the folder in whole (--dvc: trackImport). */
export async function importRun(p: PlannedRun, o: ImportOptions): Promise<ImportedRun> {
  const { out, target, decl, given, captures } = p;
  const repo = repositoryRoot(existingAncestor(dirname(target)));

  // Read everything first: a refusal leaves the run folder untouched.
  const loaded: { c: ImportCapture; l: LoadedHeightfield; field: Heightfield; note: string | null; sha256: string }[] = [];
  for (const c of captures) {
    // The capture's hash is taken before and after it is decoded: the recorded SHA-256 is of the bytes decoded.
    const before = sha256OfRegularFile(c.file);
    const l = await readHeightfieldFileAsync(c.file, c.settings);
    const sha256 = sha256OfRegularFile(c.file);
    if (sha256 !== before) throw new FormatError(`${c.file}: changed while it was imported (SHA-256 ${before.slice(0, 12)}… then ${sha256.slice(0, 12)}…)`);
    loaded.push({ c, l, ...stageField(c, l.field, decl), sha256 });
  }

  // The folder as it is (an interrupted swap recovered first), refused unless a run folder, new or empty.
  let existing: string[] = [];
  let records: ImportRecord[] = [];
  const folder = openStagedFolder(target, {
    names: defaultSwapNames(target),
    check: () => {
      const found = existsSync(target) ? (statSync(target).isDirectory() ? readdirSync(target) : null) : [];
      if (found === null) throw new UsageError(`--out ${out}: is a file, expected a run folder`);
      existing = found;
      const runFiles = runStageFiles(decl);
      if (existing.length && !existing.some((e) => e === IMPORTS_FILE || runFiles.has(e))) {
        throw new UsageError(
          `--out ${out}: a folder holding ${existing.length} entries but no stage file or imports.json, so not a run folder; the import replaces its --out whole, so give a new or empty folder, or a run folder`,
        );
      }
      for (const { c } of loaded) {
        if (existing.includes(stageFileName(c.stage, decl)) && !o.replace) {
          throw new UsageError(`--out ${out}: already holds stage ${c.stage} (${stageFileName(c.stage, decl)}); give --replace to replace it`);
        }
      }
      if (existing.includes(IMPORTS_FILE)) {
        const where = join(target, IMPORTS_FILE);
        const prev = checkObject(where, parseJson(readInputText(where, 1 << 20), where));
        // Each earlier record is kept as it is, once it is an object naming its stage (the key a new import replaces by).
        records = checkArray(`${where}.imports`, prev.imports).map((r, i) => {
          const o = checkObject(`${where}.imports[${i}]`, r);
          checkString(`${where}.imports[${i}].stage`, o.stage);
          return o as unknown as ImportRecord;
        });
      }
    },
  });
  const stage = folder.dir;
  try {
    const replaced = new Set(loaded.map(({ c }) => stageFileName(c.stage, decl)));
    if (given) replaced.add(PIPELINE_FILE);
    for (const e of existing) {
      if (e === IMPORTS_FILE || replaced.has(e) || replaced.has(e.replace(/\.json$/, ''))) continue;
      const p = join(target, e);
      if (!statSync(p).isFile()) throw new UsageError(`--out ${out}: holds ${JSON.stringify(e)}, which is not a file; a run folder holds stage files only`);
      copyFileSync(p, join(stage, e));
    }
    const imported: ImportedStage[] = [];
    for (const { c, l, field, note, sha256 } of loaded) {
      const record: ImportRecord = {
        stage: c.stage,
        file: basename(c.file),
        ...recordedPath(c.file, repo, target),
        container: l.container,
        sha256,
        source: c.source,
        request: c.request,
        description: [...l.notes, ...(note ? [note] : [])],
        conventions: l.conventions,
      };
      writeHeightfieldFile(join(stage, stageFileName(c.stage, decl)), field, {
        stage: c.stage,
        request: c.request,
        notes: { import: record },
      });
      records = records.filter((r) => r.stage !== c.stage).concat([record]);
      imported.push({
        file: c.file,
        stage: c.stage,
        container: l.container,
        columns: field.grid.columns,
        rows: field.grid.rows,
        sha256,
        written: join(out, stageFileName(c.stage, decl)),
      });
    }
    if (given) writeFileAtomic(join(stage, PIPELINE_FILE), pipelineJson(given));
    writeFileAtomic(join(stage, IMPORTS_FILE), importsJson(records));
    folder.commit();
    return { target, imported };
  } finally {
    folder.dispose();
  }
}

/** One capture written into the run folder. */
export interface ImportedStage {
  /** The capture as given. */
  file: string;
  stage: string;
  container: string;
  columns: number;
  rows: number;
  sha256: string;
  /** The stage file, under --out as given. */
  written: string;
}

/** One run folder imported: its resolved path and its stages, in the order given. */
export interface ImportedRun {
  target: string;
  imported: ImportedStage[];
}

/** What `--dvc` tracked: the run folder, the captures given to `dvc add`, and those left to git. */
export interface DvcTracked {
  target: string;
  captures: string[];
  inGit: string[];
}

/** `--dvc` after the import: `dvc add` of the run folder and the captures git does not track (planned by planRun). */
export function trackImport(p: PlannedRun): DvcTracked | null {
  const { target, dvcPlan } = p;
  if (!dvcPlan) return null;
  dvcAdd(dvcPlan.root, [target, ...dvcPlan.captures]);
  return { target, captures: dvcPlan.captures, inGit: dvcPlan.inGit };
}

/**
 * Plans every run (folder, declaration, stages, containers, --dvc) before any capture is read or any folder written.
 */
export function planImports(jobs: readonly ImportJob[], o: ImportOptions): PlannedRun[] {
  return jobs.map((j) => planRun(j.out, j.pipeline, j.captures, o));
}

/** The nearest folder at or above `p` that exists (the run folder and its parents may be created by the import). */
function existingAncestor(p: string): string {
  let d = resolve(p);
  while (!existsSync(d) && dirname(d) !== d) d = dirname(d);
  return d;
}

/** What `--dvc` will track, checked before anything is written: the DVC root and the captures not already in git. */
function planDvc(target: string, captures: readonly ImportCapture[]): { root: string; captures: string[]; inGit: string[] } {
  const root = dvcRoot(existingAncestor(dirname(target)));
  const files = [...new Set(captures.map((c) => resolve(c.file)))];
  for (const f of files) {
    if (!inside(root, f))
      throw new UsageError(
        `--dvc: capture ${f} lies outside the DVC project at ${root}, so DVC cannot track it; copy it into the project, or import without --dvc`,
      );
  }
  const inGit = files.filter((f) => existsSync(f) && gitTracks(f));
  return { root, captures: files.filter((f) => !inGit.includes(f)), inGit };
}

/** A capture's path as imports.json records it: relative to the repository, else to the run folder; POSIX separators. */
function recordedPath(file: string, repo: string | null, target: string): { path: string; pathFrom: 'repository' | 'run folder' } {
  const abs = resolve(file);
  const from = repo !== null && inside(repo, abs) ? repo : target;
  return { path: relative(from, abs).split(sep).join('/'), pathFrom: from === target ? 'run folder' : 'repository' };
}
