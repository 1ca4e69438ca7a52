/**
 * `heightbench import FILE --stage NAME --out RUN_DIR [grid flags] [--request ID] [--source TEXT] [--replace] [--dvc]`
 * `heightbench import --manifest FILE [--out RUN_DIR] [--replace] [--dvc]`
 *
 * The flags and the manifest (one run, or `runs:` for many) read into the import's jobs; the use case is
 * src/runs/import.ts (what is written, recorded and refused); its outcome printed here.
 */
import { dirname, isAbsolute, join, resolve } from 'node:path';
import type { Command } from 'commander';
import { parseRowDirection } from '../core/grid.js';
import { MAX_DECLARED_STAGES } from '../pipelines/declaration.js';
import { SEED_PIPELINE } from '../pipelines/seed.js';
import { FormatError, UsageError } from '../errors.js';
import { realOutputPath } from '../io/folder-swap.js';
import { checkArray, checkObject, checkString } from '../io/json-check.js';
import { parseDocument } from '../io/yaml-text.js';
import { readInputText } from '../io/read-input.js';
import { importRun, pipelineOf, planImports, trackImport, within, type ImportJob } from '../runs/import.js';
import { parseExtent, parsePath, parseRange } from './args.js';
import { addInputFlags, readSettingsFrom, type InputFlags } from './input-flags.js';
import { CliExit, type CliIO, type CommandInstaller } from './io.js';

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

/** One capture of a manifest or of FILE --stage: the file, its stage, and its own read flags. */
interface Capture {
  file: string;
  stage: string;
  flags: InputFlags;
  source: string | null;
  request: string | null;
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
    const own = {
      extent: parsed('extent', parseExtent),
      rowDirection: rd,
      range: parsed('range', parseRange),
      encoding: enc as 'metres' | 'unorm16' | undefined,
      channel: str('channel'),
      level: num('level'),
      slice: num('slice'),
    };
    // A command-line flag is every capture's default; a capture stating another value would silently win over it.
    for (const [k, v] of Object.entries(own)) {
      const given = o[k as keyof typeof own];
      if (v !== undefined && given !== undefined && JSON.stringify(v) !== JSON.stringify(given))
        throw new UsageError(
          `${w}.${k}: ${JSON.stringify(e[k])} contradicts --${k.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)} ${JSON.stringify(given)} (a flag is every capture's default; give one of them)`,
        );
    }
    return {
      file: isAbsolute(file) ? file : join(base, file),
      stage: checkString(`${w}.stage`, e.stage),
      flags: {
        ...o,
        extent: own.extent ?? o.extent,
        rowDirection: own.rowDirection ?? o.rowDirection,
        range: own.range ?? o.range,
        encoding: own.encoding ?? o.encoding,
        channel: own.channel ?? o.channel,
        level: own.level ?? o.level,
        slice: own.slice ?? o.slice,
      },
      source: str('source') ?? text_('source', m.source) ?? sharedSource ?? o.source ?? null,
      request: str('request') ?? text_('request', m.request) ?? o.request ?? null,
    };
  });
  return { out, pipeline, captures };
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
 * Runs the import: one run (FILE --stage, or a manifest of one run) or every run of a manifest's `runs`. Every run is
 * checked (its folder, stages, containers, --dvc) before any is written; each run folder is then swapped in whole.
 */
export async function importCommand(file: string | undefined, o: ImportCliOptions, io: CliIO): Promise<number> {
  let jobs: { out: string | undefined; pipeline: string | undefined; captures: Capture[] }[];
  if (o.manifest) {
    if (file !== undefined)
      throw new UsageError(`import: give FILE with --stage, or --manifest, not both (got ${JSON.stringify(file)} and --manifest ${o.manifest})`);
    const manifest = o.manifest;
    // A manifest names each capture's stage: --stage would change nothing.
    if (o.stage !== undefined)
      throw new UsageError(`import --manifest ${manifest}: --stage ${o.stage} names one capture's stage; the manifest states each capture's own`);
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
  const toJob = (j: (typeof jobs)[number]): ImportJob => ({
    out: j.out,
    pipeline: j.pipeline,
    captures: j.captures.map((c) => ({ file: c.file, stage: c.stage, settings: readSettingsFrom(c.flags, true), source: c.source, request: c.request })),
  });
  const planned = planImports(jobs.map(toJob), { manifest: o.manifest, replace: o.replace, dvc: o.dvc });
  for (const p of planned) {
    const r = await importRun(p, { replace: o.replace });
    io.out(
      `${r.imported.map((i) => `imported ${i.file} (${i.container}, ${i.columns}×${i.rows}, sha256 ${i.sha256.slice(0, 12)}…) as ${i.stage} → ${i.written}`).join('\n')}\n`,
    );
    const t = trackImport(p);
    if (t) {
      const tracked = t.captures.map((c) => `${c}.dvc`);
      io.out(
        `tracked ${t.target} and ${t.captures.length} capture(s) with DVC (${[`${t.target}.dvc`, ...tracked].join(', ')})` +
          `${t.inGit.length ? `; left to git: ${t.inGit.join(', ')}` : ''}; \`git add\` the .dvc files, and \`dvc push\` sends the data to the remote\n`,
      );
    }
  }
  return 0;
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
