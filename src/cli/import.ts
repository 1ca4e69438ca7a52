/**
 * `heightbench import FILE --stage NAME --out RUN_DIR [grid flags] [--request ID] [--source TEXT] [--replace] [--dvc]`
 * `heightbench import --manifest FILE [--out RUN_DIR] [--replace] [--dvc]`
 *
 * Turns captures from outside (DDS, EXR, TIFF, .npy, headerless raw, or heightbench's own files) into a reference run
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
import type { Command } from 'commander';
import { parseRowDirection } from '../core/grid.js';
import {
  MAX_DECLARED_STAGES,
  PIPELINE_FILE,
  encodedStage,
  firstDeclarationDifference,
  pipelineJson,
  readPipelineDeclaration,
  stageFileName as declaredFileName,
  type PipelineDeclaration,
} from '../pipelines/declaration.js';
import { runFolderPipeline } from '../pipelines/run-folder.js';
import { FINAL_PNG_FILE, IMPORTS_FILE, importsJson, type ImportRecord } from '../runs/folder.js';
import { SEED_PIPELINE } from '../pipelines/seed.js';
import { floatHeightfield, heightsOf, withRowDirection, type Heightfield } from '../core/heightfield.js';
import { FormatError, MismatchError, UsageError } from '../errors.js';
import { writeFileAtomic } from '../io/atomic.js';
import { defaultSwapNames, makeStage, realOutputPath, recoverFolder, removeStale, swapFolderIn } from '../io/folder-swap.js';
import { readHeightfieldFileAsync, writeHeightfieldFile, containerForPath } from '../io/heightfield-file.js';
import { checkArray, checkObject, checkString, parseJson } from '../io/json-check.js';
import { parseDocument } from '../io/yaml-text.js';
import { readInputText, sha256OfRegularFile } from '../io/read-input.js';
import { parseExtent, parsePath, parseRange } from './args.js';
import { addInputFlags, readSettingsFrom, type InputFlags } from './input-flags.js';
import { CliExit, type CliIO, type CommandInstaller } from './io.js';
import { dvcAdd, dvcRoot, gitTracks, inside, repositoryRoot } from './dvc.js';

export interface ImportCliOptions extends InputFlags {
  stage?: string;
  out?: string;
  request?: string;
  source?: string;
  manifest?: string;
  pipeline?: string;
  replace?: boolean;
  dvc?: boolean;
}

/** One capture to import: the file, its stage, and its own read flags. */
interface Capture {
  file: string;
  stage: string;
  flags: InputFlags;
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

/**
 * The runs a manifest lists (YAML or JSON): one run { out?, request?, source?, pipeline?, captures: [{ file, stage, …flags }] },
 * or many: { source?, pipeline?, runs: [{ out, request?, source?, pipeline?, captures }] } (each request or seed its own run folder).
 */
function readManifest(path: string, o: ImportCliOptions): ManifestRun[] {
  const text = readInputText(path, 1 << 20);
  const m = checkObject(path, parseDocument(text, path));
  if (m.runs === undefined) return [readRun(path, path, m, o, undefined, undefined)];
  const known = new Set(['runs', 'source', 'pipeline']);
  for (const k of Object.keys(m)) if (!known.has(k)) throw new FormatError(`${path}: unknown key ${JSON.stringify(k)} (expected ${[...known].join(', ')})`);
  const runs = checkArray(`${path}.runs`, m.runs);
  if (runs.length === 0) throw new FormatError(`${path}.runs: expected at least one run`);
  if (runs.length > MAX_MANIFEST_RUNS) throw new FormatError(`${path}.runs: ${runs.length} runs, over the limit of ${MAX_MANIFEST_RUNS}`);
  const source = m.source === undefined ? undefined : checkString(`${path}.source`, m.source);
  const sharedPipeline = m.pipeline === undefined ? undefined : checkString(`${path}.pipeline`, m.pipeline);
  const pipeline = sharedPipeline === undefined || isAbsolute(sharedPipeline) ? sharedPipeline : join(dirname(path), sharedPipeline);
  const list = runs.map((r, i) => {
    const w = `${path}.runs[${i}]`;
    const run = readRun(path, w, checkObject(w, r), o, source, pipeline);
    if (run.out === undefined) throw new FormatError(`${w}.out: each run of a manifest names its run folder (out:)`);
    return run;
  });
  const outs = new Set<string>();
  for (const [i, r] of list.entries()) {
    const key = resolve(dirname(path), r.out ?? '');
    if (outs.has(key)) throw new FormatError(`${path}.runs[${i}].out: ${JSON.stringify(r.out)} is named by an earlier run too`);
    outs.add(key);
  }
  return list;
}

/** One run of a manifest: its folder, its declaration file (absolute or relative to the working folder), its captures. */
interface ManifestRun {
  out: string | undefined;
  pipeline: string | undefined;
  captures: Capture[];
}

/** Most runs one manifest lists [R]: a survey of seeds fits; a list beyond it is more likely a mistake. */
const MAX_MANIFEST_RUNS = 1000;

/** One run of a manifest: `m` is the manifest (one run) or one entry of its `runs`, named `where`. */
function readRun(
  path: string,
  where: string,
  m: Record<string, unknown>,
  o: ImportCliOptions,
  sharedSource: string | undefined,
  sharedPipeline: string | undefined,
): ManifestRun {
  const known = new Set(['out', 'request', 'source', 'pipeline', 'captures']);
  for (const k of Object.keys(m)) if (!known.has(k)) throw new FormatError(`${where}: unknown key ${JSON.stringify(k)} (expected ${[...known].join(', ')})`);
  const base = dirname(path);
  const text_ = (k: string, v: unknown) => (v === undefined ? undefined : checkString(`${where}.${k}`, v));
  const out = text_('out', m.out);
  const pipelineText = text_('pipeline', m.pipeline);
  const pipeline = pipelineText === undefined ? sharedPipeline : isAbsolute(pipelineText) ? pipelineText : join(base, pipelineText);
  const list = checkArray(`${where}.captures`, m.captures);
  if (list.length === 0) throw new FormatError(`${where}.captures: expected at least one capture`);
  // Each stage is imported at most once, so a longer list is refused before any entry is examined.
  if (list.length > MAX_DECLARED_STAGES)
    throw new FormatError(`${where}.captures: ${list.length} captures, more than the ${MAX_DECLARED_STAGES} stages a pipeline may declare`);
  const captureKeys = new Set(['file', 'stage', 'extent', 'rowDirection', 'range', 'encoding', 'channel', 'level', 'slice', 'source', 'request']);
  const captures = list.map((c, i): Capture => {
    const w = `${where}.captures[${i}]`;
    const e = checkObject(w, c);
    for (const k of Object.keys(e))
      if (!captureKeys.has(k)) throw new FormatError(`${w}: unknown key ${JSON.stringify(k)} (expected ${[...captureKeys].join(', ')})`);
    const file = checkString(`${w}.file`, e.file);
    const str = (k: string) => (e[k] === undefined ? undefined : checkString(`${w}.${k}`, e[k]));
    const num = (k: string) => {
      if (e[k] === undefined) return undefined;
      if (typeof e[k] !== 'number' || !Number.isInteger(e[k]) || (e[k] as number) < 0)
        throw new FormatError(`${w}.${k}: expected an integer ≥ 0, found ${JSON.stringify(e[k])}`);
      return e[k] as number;
    };
    const enc = str('encoding');
    if (enc !== undefined && enc !== 'metres' && enc !== 'unorm16')
      throw new FormatError(`${w}.encoding: expected metres or unorm16, found ${JSON.stringify(enc)}`);
    const parsed = <T>(k: string, f: (v: string) => T): T | undefined => {
      const v = str(k);
      if (v === undefined) return undefined;
      try {
        return f(v);
      } catch (err) {
        throw new FormatError(`${w}.${k}: ${err instanceof Error ? err.message : String(err)}`);
      }
    };
    const rd = parsed('rowDirection', parseRowDirection);
    return {
      file: isAbsolute(file) ? file : join(base, file),
      stage: checkString(`${w}.stage`, e.stage),
      flags: {
        ...o,
        extent: parsed('extent', parseExtent) ?? o.extent,
        rowDirection: rd ?? o.rowDirection,
        range: parsed('range', parseRange) ?? o.range,
        encoding: enc ?? o.encoding,
        channel: str('channel') ?? o.channel,
        level: num('level') ?? o.level,
        slice: num('slice') ?? o.slice,
      },
      source: str('source') ?? text_('source', m.source) ?? sharedSource ?? o.source ?? null,
      request: str('request') ?? text_('request', m.request) ?? o.request ?? null,
    };
  });
  return { out, pipeline, captures };
}

/** The declaration in `file`, else the seed pipeline. */
function pipelineOf(file: string | undefined): PipelineDeclaration {
  return file === undefined ? SEED_PIPELINE : readPipelineDeclaration(file);
}

/**
 * The field a stage file holds: codes for final (refusing floats, see the header), float metres otherwise, stored
 * [R] in heightbench's row order (row 0 at ymin) so attribution and check line pixels up with runs the pipeline wrote;
 * the reordering is exact and the note records the capture's own row order.
 */
function stageField(c: Capture, loaded: Heightfield, d: PipelineDeclaration): { field: Heightfield; note: string | null } {
  const f = withRowDirection(loaded, 'row0-at-ymin');
  const reordered = f !== loaded ? `rows reordered exactly from the capture's ${loaded.grid.rowDirection} to row0-at-ymin` : null;
  const { field, note } = stageFieldOf(c, f, d);
  return { field, note: [reordered, note].filter(Boolean).join('; ') || null };
}

function stageFieldOf(c: Capture, f: Heightfield, d: PipelineDeclaration): { field: Heightfield; note: string | null } {
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
function within(base: string, p: string, orSame: boolean): boolean {
  const rel = relative(base, p);
  if (rel === '') return orSame;
  return rel !== '..' && !rel.startsWith(`..${sep}`) && !isAbsolute(rel);
}

/**
 * [R] A manifest's `out:` names a folder inside the manifest's own folder: a manifest travels with the captures it
 * lists (which may lie anywhere the user can read), but what it writes stays beside it; a run folder elsewhere is
 * named on the command line with --out.
 */
function manifestOut(manifest: string, out: string): string {
  // Checked on the real paths (links resolved), the paths the import writes at.
  const base = realOutputPath(dirname(manifest));
  const target = isAbsolute(out) ? out : realOutputPath(join(dirname(manifest), out));
  if (isAbsolute(out) || !within(base, target, false)) {
    throw new UsageError(
      `${manifest}: out ${JSON.stringify(out)} is not a folder inside the manifest's folder ${base}${isAbsolute(out) ? '' : ` (it resolves to ${target})`}; a manifest writes only beside itself — give --out RUN_DIR to write elsewhere`,
    );
  }
  return target;
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

/**
 * Runs the import: one run (FILE --stage, or a manifest of one run) or every run of a manifest's `runs`. Every run is
 * checked (its folder, stages, containers, --dvc) before any is written; each run folder is then swapped in whole.
 */
export async function importCommand(file: string | undefined, o: ImportCliOptions, io: CliIO): Promise<number> {
  let jobs: { out: string | undefined; pipeline: string | undefined; captures: Capture[] }[];
  if (o.manifest) {
    if (file !== undefined)
      throw new UsageError(`import: give FILE with --stage, or --manifest, not both (got ${JSON.stringify(file)} and --manifest ${o.manifest})`);
    const manifest = o.manifest;
    const runs = readManifest(manifest, o);
    if (runs.length > 1 && o.out !== undefined)
      throw new UsageError(`import: --out names one run folder, but ${manifest} lists ${runs.length} runs, each with its own out:`);
    jobs = runs.map((r) => ({
      out: o.out ?? (r.out === undefined ? undefined : manifestOut(manifest, r.out)),
      pipeline: o.pipeline ?? r.pipeline,
      captures: r.captures,
    }));
  } else {
    if (file === undefined) throw new UsageError('import: give FILE --stage NAME, or --manifest FILE');
    const d = pipelineOf(o.pipeline);
    if (!o.stage) throw new UsageError(`import ${file}: --stage NAME is required (one of ${d.stages.map((s) => s.name).join(', ')})`);
    jobs = [{ out: o.out, pipeline: o.pipeline, captures: [{ file, stage: o.stage, flags: o, source: o.source ?? null, request: o.request ?? null }] }];
  }
  const planned = jobs.map((j) => planRun(j.out, j.pipeline, j.captures, o));
  for (const p of planned) await importRun(p, o, io);
  return 0;
}

interface PlannedRun {
  out: string;
  target: string;
  /** The declaration the run's stages are checked against, and the one given (recorded as pipeline.json). */
  decl: PipelineDeclaration;
  given: PipelineDeclaration | null;
  captures: Capture[];
  dvcPlan: { root: string; captures: string[]; inGit: string[] } | null;
}

/** What one run will do, checked before anything is read or written. */
function planRun(out: string | undefined, pipelineFile: string | undefined, captures: Capture[], o: ImportCliOptions): PlannedRun {
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

/** Imports one planned run into its folder (read everything, then swap the folder in whole; then --dvc). */
async function importRun(p: PlannedRun, o: ImportCliOptions, io: CliIO): Promise<void> {
  const { out, target, decl, given, captures, dvcPlan } = p;
  const repo = repositoryRoot(existingAncestor(dirname(target)));

  // Read everything first: a refusal leaves the run folder untouched.
  const loaded = [];
  for (const c of captures) {
    // The capture's hash is taken before and after it is decoded: the recorded SHA-256 is of the bytes decoded.
    const before = sha256OfRegularFile(c.file);
    const l = await readHeightfieldFileAsync(c.file, readSettingsFrom(c.flags, true));
    const sha256 = sha256OfRegularFile(c.file);
    if (sha256 !== before) throw new FormatError(`${c.file}: changed while it was imported (SHA-256 ${before.slice(0, 12)}… then ${sha256.slice(0, 12)}…)`);
    loaded.push({ c, l, ...stageField(c, l.field, decl), sha256 });
  }

  const names = defaultSwapNames(target);
  recoverFolder(target, names);
  removeStale(target, names);
  const existing = existsSync(target) ? (statSync(target).isDirectory() ? readdirSync(target) : null) : [];
  if (existing === null) throw new UsageError(`--out ${out}: is a file, expected a run folder`);
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
  let records: ImportRecord[] = [];
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

  const stage = makeStage(target, names);
  try {
    const replaced = new Set(loaded.map(({ c }) => stageFileName(c.stage, decl)));
    if (given) replaced.add(PIPELINE_FILE);
    for (const e of existing) {
      if (e === IMPORTS_FILE || replaced.has(e) || replaced.has(e.replace(/\.json$/, ''))) continue;
      const p = join(target, e);
      if (!statSync(p).isFile()) throw new UsageError(`--out ${out}: holds ${JSON.stringify(e)}, which is not a file; a run folder holds stage files only`);
      copyFileSync(p, join(stage, e));
    }
    const lines: string[] = [];
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
      lines.push(
        `imported ${c.file} (${l.container}, ${field.grid.columns}×${field.grid.rows}, sha256 ${sha256.slice(0, 12)}…) as ${c.stage} → ${join(out, stageFileName(c.stage, decl))}`,
      );
    }
    if (given) writeFileAtomic(join(stage, PIPELINE_FILE), pipelineJson(given));
    writeFileAtomic(join(stage, IMPORTS_FILE), importsJson(records));
    swapFolderIn(stage, target, names);
    io.out(`${lines.join('\n')}\n`);
  } catch (e) {
    removeStale(target, names);
    throw e;
  }
  if (dvcPlan) {
    dvcAdd(dvcPlan.root, [target, ...dvcPlan.captures]);
    const tracked = dvcPlan.captures.map((c) => `${c}.dvc`);
    io.out(
      `tracked ${target} and ${dvcPlan.captures.length} capture(s) with DVC (${[`${target}.dvc`, ...tracked].join(', ')})` +
        `${dvcPlan.inGit.length ? `; left to git: ${dvcPlan.inGit.join(', ')}` : ''}; \`git add\` the .dvc files, and \`dvc push\` sends the data to the remote\n`,
    );
  }
}

/** The nearest folder at or above `p` that exists (the run folder and its parents may be created by the import). */
function existingAncestor(p: string): string {
  let d = resolve(p);
  while (!existsSync(d) && dirname(d) !== d) d = dirname(d);
  return d;
}

/** What `--dvc` will track, checked before anything is written: the DVC root and the captures not already in git. */
function planDvc(target: string, captures: readonly Capture[]): { root: string; captures: string[]; inGit: string[] } {
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

export const installImport: CommandInstaller = (program: Command, io: CliIO) => {
  const cmd = program
    .command('import')
    .description('import captures (DDS, EXR, TIFF, .npy, raw, heightbench files) as stages of a reference run folder that every command reads')
    .argument('[file]', 'capture to import (or --manifest)', parsePath)
    .option('--stage <name>', `pipeline stage the capture holds (the seed's: ${SEED_PIPELINE.stages.map((s) => s.name).join(', ')}; or --pipeline's)`)
    .option(
      '--pipeline <file>',
      'pipeline declaration (YAML or JSON, docs/pipelines.md) whose stage names the captures take; recorded in the run folder',
      parsePath,
    )
    .option('--out <run-dir>', 'run folder to create or add stages to', parsePath)
    .option('--request <id>', 'request id the capture was made for')
    .option('--source <text>', 'the tool or system the capture came from (recorded in the sidecar)')
    .option('--manifest <file>', 'YAML or JSON mapping captures to stages: one run, or runs: [...] for many requests or seeds', parsePath)
    .option('--replace', 'replace a stage the run folder holds already')
    .option('--dvc', 'track the run folder and the captures with DVC (dvc add; refused outside a DVC project)');
  addInputFlags(cmd, 'captures').action(async (file: string | undefined, opts: ImportCliOptions) => {
    throw new CliExit(await importCommand(file, opts, io));
  });
};
