/**
 * `heightbench run REQUEST [--stages a,b,…] --out DIR [--size N] [--precision f32|f64] [--json]`
 * Regenerates the request's stages and writes the requested stage outputs (named by content) into DIR.
 */
import { Option, type Command } from 'commander';
import { InvalidArgumentError } from 'commander';
import { buildPlan, type Plan } from '../plan/plan.js';
import { loadWorld } from '../pipeline/inputs.js';
import { loadRequest } from '../plan/request.js';
import { writeStageJson } from '../pipeline/outputs.js';
import { FIELD_STAGES, runPipeline, type RunResult } from '../pipeline/run.js';
import { requestGrid } from '../plan/request.js';
import { codeHeightfield, floatHeightfield } from '../core/heightfield.js';
import { cropCentre } from '../core/crop.js';
import { LayerStack } from '../terrain/layers.js';
import { deltaLayer, writeStore } from '../terrain/store.js';
import { commitPrepared, prepareR16Write, prepareR32Write, writeHeightfieldFile, writeScanlinesPng, type PreparedHeightfield } from '../io/heightfield-file.js';
import { startBackgroundWriter, type BackgroundWriter } from '../io/background-writer.js';
import type { GridDescription } from '../core/grid.js';
import { writeFileAtomic } from '../io/atomic.js';
import { PIPELINE_FILE, pipelineJson } from '../pipelines/declaration.js';
import { SEED_PIPELINE } from '../pipelines/seed.js';
import { basename, join } from 'node:path';
import { UsageError } from '../errors.js';
import { checkMemoryEstimate } from '../io/limits.js';
import { idleOptions, parsePath, parsePositiveInt, parsePositiveNumber } from './args.js';
import { CliExit, type CliIO, type CommandInstaller } from './io.js';
import { addGpuRunOptions, gpuRunCommand, subpixelBitsFromRecord, type GpuRunCliOptions } from './gpu-run.js';
import { progressReporter } from './progress.js';
import { MANIFEST_FILE, PLAN_STAGES, TIMINGS_FILE, fieldStageFile, finalFile, openRunFolder, type RunFolder } from '../runs/folder.js';
import { EXECUTORS, prepareExecutor, type Executor } from '../cpu/context.js';
import { FLOAT_STAGES } from '../conventions/index.js';

export { PLAN_STAGES };
export const ALL_STAGES: readonly string[] = [...PLAN_STAGES, ...FIELD_STAGES];

function parseStages(v: string): string[] {
  const list = v
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  for (const s of list)
    if (!ALL_STAGES.includes(s)) throw new InvalidArgumentError(`unknown stage ${JSON.stringify(s)}; expected some of ${ALL_STAGES.join(', ')}`);
  return [...new Set(list)]; // a stage named twice is written once
}

export interface RunCliOptions {
  store?: string;
  dumpWindow?: number;
  stages?: string[];
  out: string;
  size?: number;
  precision: 'f32' | 'f64';
  /** The executor, named explicitly (default: the precision's — simd where the kernels can run, else js-f32; f64). */
  executor?: Executor;
  json?: boolean;
  /** Internal (bless): `out` is already a fresh staged folder; write into it directly. */
  inPlace?: boolean;
  /** No progress lines on stderr (they are shown only on a terminal anyway; see progress.ts). */
  quiet?: boolean;
  /** [G] Vertex snapping of the layer triangles, fraction bits (default 8, Direct3D's 16.8). */
  subpixelBits?: number;
  /** [G] Stamp and location quads' coverage: exact (default) or snapped like a rasterizer's. */
  quadCoverage?: 'exact' | 'snapped';
}

export { checkRunFolder, runOutputNames } from '../runs/folder.js';

/** Whether stage `s` is dumped cropped: the pre-encode field is always written whole (attribution reads every pixel). */
function cropped(s: string, dumpWindow?: number): dumpWindow is number {
  return dumpWindow !== undefined && dumpWindow > 0 && s !== 'pre-encode';
}

/** What a kept field stage is written as: the whole field in float32, or its central window (--dump-window). */
function stageDump(f: Float32Array | Float64Array, s: string, grid: GridDescription, dumpWindow?: number): { grid: GridDescription; heights: Float32Array } {
  if (cropped(s, dumpWindow)) {
    const crop = cropCentre(f, grid, dumpWindow);
    return { grid: crop.grid, heights: crop.data };
  }
  return { grid, heights: f instanceof Float32Array ? f : Float32Array.from(f) };
}

/** A stage dump's sidecar notes. */
function stageNotes(s: string, notes: Record<string, unknown>, dumpWindow?: number): Record<string, unknown> {
  return cropped(s, dumpWindow) ? { ...notes, window: `central ${dumpWindow} m` } : notes;
}

/** Sidecar notes of a run's outputs; the GPU-mimic switches are named only when not the default (default outputs keep their bytes). */
function outputNotes(result: Pick<RunResult, 'precision' | 'drawList' | 'manifest'>) {
  const snap = {
    ...(result.drawList.raster.subpixelBits !== 8 ? { subpixelBits: result.drawList.raster.subpixelBits } : {}),
    ...(result.manifest.quadCoverage ? { quadCoverage: result.manifest.quadCoverage } : {}),
  };
  return { snap, stage: { precision: result.precision, storedAs: 'float32', ...snap } };
}

/**
 * Writes the kept field stages (R32 + sidecar), the final map (R16 and PNG16 + sidecars) and the manifest. A stage
 * whose payload a background writer already wrote (`prepared`, started while the pipeline ran) is committed from it —
 * the same bytes and sidecar as a write here.
 */
export async function writeFieldOutputs(
  out: string,
  req: ReturnType<typeof loadRequest>,
  result: RunResult,
  stages: readonly string[],
  dumpWindow?: number,
  prepared: ReadonlyMap<string, PreparedHeightfield> = new Map(),
  writer: BackgroundWriter | null = null,
): Promise<string[]> {
  const grid = requestGrid(req);
  const written: string[] = [];
  const { snap, stage: notes } = outputNotes(result);
  for (const s of stages) {
    if (s === 'final') continue;
    const f = result.fields.get(s);
    if (!f) continue;
    const path = join(out, fieldStageFile(s));
    const settings = { stage: s, request: req.id, notes: stageNotes(s, notes, dumpWindow) };
    const ahead = prepared.get(s);
    if (ahead) await commitPrepared(ahead, settings);
    else {
      const d = stageDump(f, s, grid, dumpWindow);
      writeHeightfieldFile(path, floatHeightfield(d.grid, d.heights), settings);
    }
    written.push(path);
  }
  if (stages.includes('final')) {
    const codes = codeHeightfield(grid, result.codes, req.encoding);
    const settings = { stage: 'final', request: req.id, notes: { precision: result.precision, ...snap } };
    // [R] With a writer, the R16 payload is hashed and written on its thread while this one encodes the PNG.
    const r16 = join(out, finalFile('r16'));
    const ahead = writer ? prepareR16Write(writer, r16, codes) : null;
    const png = join(out, finalFile('png'));
    try {
      if (!ahead) writeHeightfieldFile(r16, codes, settings);
      if (result.pngScanlines) writeScanlinesPng(png, codes, result.pngScanlines, settings);
      else writeHeightfieldFile(png, codes, { ...settings, pngRows: result.pngRows });
    } catch (e) {
      await ahead?.written.catch(() => undefined); // the PNG's error is the one to report; the staging folder goes
      throw e;
    }
    if (ahead) await commitPrepared(ahead, settings);
    written.push(r16, png);
  }
  // The manifest is deterministic (it is part of hashed references); wall-clock timings go to timings.json, which
  // .dvcignore keeps out of DVC's hashes.
  const { timingsMs, ...deterministic } = result.manifest;
  const mpath = join(out, MANIFEST_FILE);
  writeFileAtomic(mpath, `${JSON.stringify(deterministic, null, 2)}\n`);
  writeFileAtomic(join(out, TIMINGS_FILE), `${JSON.stringify({ request: req.id, size: req.size, precision: result.precision, timingsMs }, null, 2)}\n`);
  written.push(mpath, join(out, TIMINGS_FILE));
  // The run records the pipeline it is a run of (docs/pipelines.md): check, attribution and regress read it.
  writeFileAtomic(join(out, PIPELINE_FILE), pipelineJson(SEED_PIPELINE));
  written.push(join(out, PIPELINE_FILE));
  return written;
}

/** The float stages a run store holds: the declared float stages from the smoothed base on (base, then one delta per stage). */
const STORE_STAGES: readonly string[] = FLOAT_STAGES.slice(FLOAT_STAGES.indexOf('base'));

/** Base plus one sparse signed delta layer per local stage, in a versioned binary store (terrain/store.ts). */
export function writeRunStore(
  path: string,
  req: ReturnType<typeof loadRequest>,
  result: RunResult,
): { bytes: number; rawBytes: number; layers: { name: string; chunks: number }[] } {
  const need = STORE_STAGES;
  for (const s of need) if (!result.fields.get(s)) throw new Error(`run store: stage ${s} was not kept`);
  const n = req.size;
  const f = (s: string) => result.fields.get(s)!;
  const stack = new LayerStack(n, n, Float32Array.from(f('base')), { min: -1e6, max: 1e6 });
  const layers: { name: string; chunks: number }[] = [];
  for (let k = 1; k < need.length; k++) layers.push({ name: need[k], chunks: deltaLayer(stack, need[k], f(need[k - 1]), f(need[k])) });
  const bytes = writeStore(stack, { request: req.id, size: n, precision: result.precision, grid: requestGrid(req), stages: need });
  writeFileAtomic(path, bytes);
  return { bytes: bytes.length, rawBytes: need.length * n * n * 4, layers };
}

export async function runCommand(request: string, o: RunCliOptions, io: CliIO): Promise<number> {
  if (o.out === '') throw new UsageError('--out: expected a folder, got an empty path ""');
  const req = loadRequest(request, o.size, io.config);
  const folder = openRunFolder(o.out, { inPlace: o.inPlace });
  try {
    return await runInto(folder, req, o, io);
  } finally {
    folder.dispose();
  }
}

/**
 * [R] Memory a run needs, estimated before it starts: every kept field stage, plus five working fields (raster,
 * smoothing levels, the field being composed), in the precision's sample size, plus the encoded outputs (codes and
 * one serialized payload), plus the float32 copies the background writer may hold until written (in f32 the two
 * stages that live in the arena, raster and pre-encode; in f64 every kept stage). Conservative: measured peaks are
 * lower (README "Limits").
 */
export function runMemoryEstimate(size: number, precision: 'f32' | 'f64', keep: readonly string[]): number {
  const n = size * size;
  const bps = precision === 'f64' ? 8 : 4;
  const kept = keep.filter((s) => (FIELD_STAGES as readonly string[]).includes(s)).length;
  const writerCopies = precision === 'f64' ? kept : Math.min(kept, 2);
  return (kept + 5) * n * bps + n * 2 + n * 4 + writerCopies * n * 4;
}

async function runInto(folder: RunFolder, req: ReturnType<typeof loadRequest>, o: RunCliOptions, io: CliIO): Promise<number> {
  const stage = folder.dir;
  const stages = o.stages ?? [...ALL_STAGES];
  const t0 = process.hrtime.bigint();
  const wantsFields = o.store !== undefined || stages.some((s) => !(PLAN_STAGES as readonly string[]).includes(s));
  const keep = o.store ? [...new Set([...stages, ...STORE_STAGES])] : stages;
  if (wantsFields)
    checkMemoryEstimate(`run ${req.id} at ${req.size}² (${o.precision}, ${keep.length} stages kept)`, runMemoryEstimate(req.size, o.precision, keep));
  // A field run's steps: 4 planning (plan, assets, stamps.select, drawlist), the executor's 9 (raster-layer0 … final)
  // and the write; with a total, each progress line shows the percentage and the time left.
  const progress = progressReporter({ label: `run ${req.id} ${req.size}² ${o.precision}`, quiet: o.quiet, total: wantsFields ? 14 : undefined });
  // [R] Each kept field stage is handed to a background writer as soon as the pipeline has it: its digest and durable
  //     write overlap the later stages (src/io/background-writer.ts). Without threads every write happens after.
  const writer = wantsFields ? startBackgroundWriter() : null;
  if (wantsFields) prepareExecutor({ precision: o.precision, executor: o.executor, n: req.size, keep, pngRows: stages.includes('final') });
  const prepared = new Map<string, PreparedHeightfield>();
  const grid = requestGrid(req);
  try {
    const result = wantsFields
      ? runPipeline(req, {
          config: io.config,
          precision: o.precision,
          executor: o.executor,
          keep,
          subpixelBits: o.subpixelBits,
          quadCoverage: o.quadCoverage,
          onStep: (name, stepMs) => progress.step(name, stepMs),
          onField: (s, f) => {
            if (!writer || !stages.includes(s)) return;
            const d = stageDump(f, s, grid, o.dumpWindow);
            prepared.set(s, prepareR32Write(writer, join(stage, fieldStageFile(s)), d.grid, d.heights));
          },
        })
      : null;
    const plan = result ? result.plan : buildPlan(req, loadWorld(req.world, io.config));
    const ms = Number(process.hrtime.bigint() - t0) / 1e6;
    const staged: string[] = [];
    for (const s of PLAN_STAGES) if (stages.includes(s)) staged.push(writeStageJson(stage, plan, s));
    if (result) {
      const w0 = performance.now();
      staged.push(...(await writeFieldOutputs(stage, req, result, stages, o.dumpWindow, prepared, writer)));
      progress.step('write outputs', performance.now() - w0);
    }
    folder.commit();
    return finishRun(staged, result, plan, ms, req, o, io, progress);
  } finally {
    await writer?.close(); // every write settled before the caller removes or keeps the staging folder
  }
}

function finishRun(
  staged: string[],
  result: RunResult | null,
  plan: Plan,
  ms: number,
  req: ReturnType<typeof loadRequest>,
  o: RunCliOptions,
  io: CliIO,
  progress: ReturnType<typeof progressReporter>,
): number {
  const written = staged.map((p) => join(o.out, basename(p)));
  progress.done(`${written.length} file(s) in ${o.out}`);
  if (o.store) {
    if (!result) throw new InvalidArgumentError('--store needs the field stages (leave --stages out, or include base and the later stages)');
    const s = writeRunStore(o.store, req, result);
    written.push(o.store);
    io.out(
      `run store ${o.store}: ${(s.bytes / 1e6).toFixed(1)} MB (base + ${s.layers.map((l) => `${l.name} ${l.chunks} chunks`).join(', ')}) vs ${(s.rawBytes / 1e6).toFixed(1)} MB of raw float32 stage dumps\n`,
    );
  }
  const counts = {
    request: req.id,
    seed: req.seed,
    size: req.size,
    recipe: `${plan.recipe.entry}/${plan.recipe.subIndex} (${plan.recipe.name})`,
    cells: plan.regions.cell_corners.length,
    corners: plan.regions.corner_xy.length / 2,
    parents: plan.regions.parent_group.length,
    locations: plan.layout.counts,
    narrowing: plan.layout.narrowing.map((n) => `${n.tag}: ${n.initial}→${n.pool}`),
    sourceBranches: plan.sources.reduce<Record<string, number>>((a, s) => ({ ...a, [s.branch]: (a[s.branch] ?? 0) + 1 }), {}),
    cornerBranches: plan.corners.counts,
    drawsByStage: plan.drawsByStage,
    runMs: Math.round(ms * 10) / 10,
    executor: result?.executor,
    manifest: result?.manifest.counts,
    written,
  };
  if (o.json) io.out(`${JSON.stringify(counts, null, 2)}\n`);
  else {
    io.out(
      [
        `${req.id} (seed ${req.seed}, ${req.size}²): recipe ${counts.recipe}`,
        `regions: ${counts.cells} cells, ${counts.corners} corners, ${counts.parents} parents`,
        `layout: ${plan.layout.counts.draws} location draws from ${plan.layout.counts.distinctResources} resources, ${plan.layout.counts.circles} circles, ${plan.layout.counts.rectangles} rectangles`,
        `mission narrowing: ${counts.narrowing.join(', ')}`,
        `sources: ${Object.entries(counts.sourceBranches)
          .map(([k, v]) => `${k} ${v}`)
          .join(', ')}`,
        `corners: zero class ${plan.corners.counts.zeroClass}, blended ${plan.corners.counts.blend}, inside an envelope ${plan.corners.counts.insideEnvelope}`,
        ...(result
          ? [
              `natural stamps: ${result.stamps.instances.length} instances over ${Object.keys(result.stamps.drawsPerKey).length} keys; location textures: ${result.manifest.counts.locationTextureDraws} draws of ${result.manifest.counts.locationTextures} assets`,
              `encoding: clamped low ${result.manifest.counts.clampedLow}, high ${result.manifest.counts.clampedHigh}; precision ${o.precision}; ${Math.round(ms)} ms`,
            ]
          : []),
        `PRNG draws: ${Object.entries(plan.drawsByStage)
          .map(([k, v]) => `${k} ${v}`)
          .join(', ')}`,
        `wrote ${written.length} file(s) to ${o.out}`,
      ].join('\n') + '\n',
    );
  }
  return 0;
}

/** The flags that act on the computed fields (a run of plan stages alone computes none). */
const FIELD_FLAGS = new Set(['executor', 'precision', 'subpixelBits', 'subpixelBitsFrom', 'quadCoverage', 'dumpWindow']);

/**
 * Field flags on a run that computes no field (plan stages only, no --store), and --dump-window where no kept stage is
 * cropped (it crops the stage dumps, not pre-encode or final): refused, naming the stages.
 */
function refuseIdleFieldFlags(opts: RunCliOptions, command: Command): void {
  const stages = opts.stages ?? [...ALL_STAGES];
  const fields = stages.filter((s) => !(PLAN_STAGES as readonly string[]).includes(s));
  if (!fields.length && opts.store === undefined) {
    const idle = idleOptions(command, (k) => !FIELD_FLAGS.has(k));
    if (idle.length)
      throw new UsageError(
        `run --stages ${stages.join(',')}: ${idle.join(', ')} ${idle.length > 1 ? 'act' : 'acts'} on computed fields, and these plan stages compute none`,
      );
  }
  if (opts.dumpWindow !== undefined && !fields.some((s) => s !== 'final' && s !== 'pre-encode'))
    throw new UsageError(
      `run --dump-window ${opts.dumpWindow}: it crops the stage dumps, and --stages ${stages.join(',')} keeps none of them (pre-encode and final are always written whole)`,
    );
}

export const installRun: CommandInstaller = (program: Command, io: CliIO) => {
  const cmd = program
    .command('run')
    .description('regenerate a fixed request stage by stage and write the stage outputs')
    .argument('<request>', 'request id (config/requests/<id>.json) or a request file')
    .option('--stages <list>', `comma-separated stages (default: all): ${ALL_STAGES.join(', ')}`, parseStages)
    .requiredOption('--out <dir>', 'output folder (a run replaces it whole)', parsePath)
    .option('--size <n>', 'output size (the same world at another resolution)', parsePositiveInt)
    .addOption(new Option('--precision <p>', 'f32 (GPU rounding) or f64 (reference)').choices(['f32', 'f64']).default('f32'))
    .addOption(
      new Option('--executor <e>', 'who runs the stages: simd (WebAssembly kernels, f32), js-f32 (JavaScript, f32) or f64 (JavaScript, reference)').choices([
        ...EXECUTORS,
      ]),
    )
    .option('--json', 'print counts as JSON')
    .option('--quiet', 'no stage-by-stage progress on stderr (shown only on a terminal)')
    .option('--store <file>', 'also keep the run as base + one sparse delta layer per local stage (versioned binary store)', parsePath)
    .option('--dump-window <m>', 'crop stage dumps (not pre-encode, not final) to the central window, metres', parsePositiveNumber);
  addGpuRunOptions(cmd).action(
    async (request: string, opts: RunCliOptions & GpuRunCliOptions & { backend: 'cpu' | 'webgpu'; subpixelBitsFrom?: string }, command: Command) => {
      if (opts.executor !== undefined) {
        if (opts.backend === 'webgpu') throw new UsageError(`--executor ${opts.executor}: only with --backend cpu (the webgpu backend is its own executor)`);
        const p = opts.executor === 'f64' ? 'f64' : 'f32';
        if (command.getOptionValueSource('precision') === 'cli' && opts.precision !== p)
          throw new UsageError(`--executor ${opts.executor} computes in ${p}, but --precision ${opts.precision} was given; leave --precision out`);
        opts.precision = p;
      }
      if (opts.backend === 'webgpu') {
        if (command.getOptionValueSource('precision') === 'cli' && opts.precision !== 'f32')
          throw new UsageError(`--precision ${opts.precision}: the webgpu backend computes in the GPU's float32; leave --precision out`);
        if (opts.quadCoverage !== undefined)
          throw new UsageError(`--quad-coverage ${opts.quadCoverage}: only with --backend cpu (the GPU's rasterizer decides its quads' coverage)`);
        if (opts.subpixelBits !== undefined)
          throw new UsageError(
            `--subpixel-bits ${opts.subpixelBits}: only with --backend cpu (the GPU's rasterizer snaps as it does; its measured value is recorded in the sidecars)`,
          );
        if (opts.subpixelBitsFrom !== undefined) throw new UsageError(`--subpixel-bits-from ${opts.subpixelBitsFrom}: only with --backend cpu`);
        if (opts.store) throw new UsageError('--store: not available with --backend webgpu (write the stage files, then build a store from a CPU run)');
        throw new CliExit(await gpuRunCommand(request, opts, io, PLAN_STAGES, FIELD_STAGES));
      }
      if (opts.subpixelBitsFrom !== undefined) {
        if (opts.subpixelBits !== undefined) throw new UsageError('--subpixel-bits and --subpixel-bits-from: give one of them');
        opts.subpixelBits = subpixelBitsFromRecord(opts.subpixelBitsFrom);
      }
      for (const k of ['gpuHost', 'encodeRule', 'lod', 'adapter'] as const) {
        if (opts[k] !== undefined) throw new UsageError(`--${k.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}: only with --backend webgpu`);
      }
      refuseIdleFieldFlags(opts, command);
      throw new CliExit(await runCommand(request, opts, io));
    },
  );
};
