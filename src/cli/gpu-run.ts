/**
 * `heightbench run REQUEST --backend webgpu [--size N] --out DIR` and `heightbench drawlist REQUEST --out FILE.json`.
 *
 * run --backend webgpu: plan → draw list (src/plan/emit.ts) → the WebGPU executor (src/gpu/run.ts, runGpu), then
 * the same stage files as the CPU run — raster-layer0, raster, base, after-support, after-stamps, after-locations,
 * pre-encode (.r32) and final (.r16 and .png), each with a sidecar whose producer carries the adapter (vendor,
 * architecture, device, description, host) — plus the plan's JSON stages, manifest.json and timings.json.
 * Progress: one line per step with its time (draw list, each executor stage, write) through progress.ts — on a terminal
 * only, quiet with --quiet. Stages not asked for with --stages are computed but not read back. Memory: each stage
 * field is written as soon as it is read back. Output: the CPU run's writer (run-folder.ts) — the run is written into
 * a staged sibling of DIR (the sidecars gain the adapter when the run is complete) and swapped in whole, so DIR holds
 * the earlier run or this one, never a mix, and a folder holding anything a run does not write is refused first.
 * Errors: no adapter, a missing browser or driver, or a missing npm package → exit 2 with what to install.
 */
import { readFileSync } from 'node:fs';
import { basename, join, resolve } from 'node:path';
import { InvalidArgumentError, Option, type Command } from 'commander';
import { UsageError } from '../errors.js';
import { resolveRunConventions, type Plan } from '../plan/plan.js';
import { loadRequest, requestGrid, type ConfigContext, type PipelineRequest } from '../plan/request.js';
import { loadRunInputs, readListAssetBytes } from '../pipeline/inputs.js';
import { writeStageJson } from '../pipeline/outputs.js';
import { planDrawList } from '../plan/emit.js';
import { serialiseDrawList } from '../drawlist/serial.js';
import { STAGES } from '../conventions/index.js';
import type { DrawList } from '../drawlist/types.js';
import { codeHeightfield, floatHeightfield, type Heightfield } from '../core/heightfield.js';
import { cropCentre } from '../core/crop.js';
import { writeHeightfieldFile } from '../io/heightfield-file.js';
import { writeFileAtomic } from '../io/atomic.js';
import { PIPELINE_FILE, pipelineJson } from '../pipelines/declaration.js';
import { SEED_PIPELINE } from '../pipelines/seed.js';
import type { GpuAdapterInfo } from '../io/sidecar.js';
import { parsePositiveInt } from './args.js';
import { CliExit, type CliIO, type CommandInstaller } from './io.js';
import { progressReporter } from './progress.js';
import { MANIFEST_FILE, TIMINGS_FILE, checkRunFolder, fieldStageFile, finalFile, openRunFolder } from '../runs/folder.js';
import { parseAdapterSpec } from '../gpu/adapter-select.js';

export const BACKENDS = ['cpu', 'webgpu'] as const;
export type Backend = (typeof BACKENDS)[number];
export const GPU_HOST_CHOICES = ['dawn', 'chromium'] as const;
export const ENCODE_RULE_CHOICES = ['d3d', 'pack2x16unorm'] as const;
export const LOD_CHOICES = ['derivatives', 'list'] as const;

/**
 * A request's draw list under the declared conventions (planDrawList), its inputs loaded here at the edge (the world;
 * the asset folder, built when missing or stale).
 */
export function emitRequestDrawList(
  req: PipelineRequest,
  opts: { embedAssets?: boolean; assetsDir?: string; config?: ConfigContext } = {},
): { plan: Plan; drawList: DrawList; assetsDir: string } {
  const { world, assets } = loadRunInputs(req, opts.assetsDir, opts.config, { keepBytes: opts.embedAssets });
  const { plan, drawList } = planDrawList(req, resolveRunConventions(req, world), assets, { world, size: req.size, embedAssets: opts.embedAssets });
  return { plan, drawList, assetsDir: assets.dir };
}

export interface GpuRunCliOptions {
  stages?: string[];
  out: string;
  size?: number;
  json?: boolean;
  dumpWindow?: number;
  gpuHost?: (typeof GPU_HOST_CHOICES)[number];
  encodeRule?: (typeof ENCODE_RULE_CHOICES)[number];
  lod?: (typeof LOD_CHOICES)[number];
  quiet?: boolean;
  adapter?: string;
  /** Internal (bless): `out` is already a fresh staged folder; write into it directly. */
  inPlace?: boolean;
}

/** The WebGPU module, loaded only when the backend is asked for (a CPU run never loads Dawn). */
async function loadGpu(): Promise<typeof import('../gpu/run.js')> {
  try {
    return await import('../gpu/run.js');
  } catch (e) {
    const msg = e instanceof Error ? e.message : String(e);
    throw new GpuBackendError(
      `the webgpu backend could not be loaded (${msg}); run \`npm ci\` (it installs the npm packages \`webgpu\` and \`playwright-core\`) and \`make setup\` (Debian's chromium, which ships SwiftShader)`,
    );
  }
}

/** The user's environment lacks what the GPU backend needs (exit 2). */
export class GpuBackendError extends Error {
  override readonly name = 'GpuBackendError';
  readonly exitCode = 2;
}

function isEnvironmentError(e: unknown): e is Error {
  return e instanceof Error && (e as { exitCode?: unknown }).exitCode === 2;
}

export async function gpuRunCommand(
  request: string,
  o: GpuRunCliOptions,
  io: CliIO,
  planStages: readonly string[],
  fieldStages: readonly string[],
): Promise<number> {
  const req = loadRequest(request, o.size, io.config);
  if (req.size % 8 !== 0) throw new UsageError(`--size: the webgpu backend needs a size divisible by 8 (three halvings), got ${req.size}`);
  if (o.out === '') throw new UsageError('--out: expected a folder, got an empty path ""');
  if (!o.inPlace) checkRunFolder(resolve(o.out)); // before any work (openRunFolder checks again when it stages)
  const stages = o.stages ?? [...planStages, ...fieldStages];
  const t0 = performance.now();
  // The steps: the draw list, the executor's stages (STAGES: raster-layer0 … final) and the write; with the total each
  // line shows the percentage done and an estimate of the time left.
  const progress = progressReporter({ label: `run ${req.id} ${req.size}² webgpu`, quiet: o.quiet, total: STAGES.length + 2 });
  const { plan, drawList, assetsDir } = progress.time('drawlist', () => emitRequestDrawList(req, { config: io.config }));
  progress.note(
    `draw list: ${drawList.raster.layers[0].count} + ${drawList.raster.layers[1].count} triangles, ${drawList.support.locations.length} support locations, ${drawList.stamps.draws.length} stamps, ${drawList.locations.draws.length} location textures`,
  );
  const grid = requestGrid(req);
  const folder = openRunFolder(o.out, { inPlace: o.inPlace });
  const staging = folder.dir;
  // The stage fields wait for the adapter (known when the run ends): every file is written once, sidecar and payload
  // as a pair, with the adapter in its producer.
  const staged: { name: string; field: Heightfield; settings: { stage: string; request: string; notes: Record<string, unknown> } }[] = [];
  const notes = { backend: 'webgpu', storedAs: 'float32', encodeRule: o.encodeRule ?? 'd3d', lod: o.lod ?? 'derivatives', adapterSpec: o.adapter ?? 'auto' };
  try {
    const gpu = await loadGpu();
    let result;
    try {
      result = await gpu.runGpu(drawList, {
        host: o.gpuHost,
        adapter: o.adapter ?? 'auto',
        assetBytes: readListAssetBytes(drawList, assetsDir),
        encodeRule: o.encodeRule,
        lod: o.lod,
        onProgress: (e) => {
          if (e.phase === 'done') progress.step(e.stage, e.ms);
        },
        readBack: (stage) => stages.includes(stage),
        onStage: (stage, field) => {
          const crop = o.dumpWindow && stage !== 'pre-encode' ? cropCentre(field, grid, o.dumpWindow) : null;
          const f = crop ? floatHeightfield(crop.grid, crop.data) : floatHeightfield(grid, field);
          staged.push({
            name: fieldStageFile(stage),
            field: f,
            settings: { stage, request: req.id, notes: crop ? { ...notes, window: `central ${o.dumpWindow} m` } : notes },
          });
        },
      });
    } catch (e) {
      if (isEnvironmentError(e)) throw new GpuBackendError(e.message);
      throw e;
    }
    const adapter: GpuAdapterInfo = {
      vendor: result.adapter.vendor,
      architecture: result.adapter.architecture,
      device: result.adapter.device,
      description: result.adapter.description,
      host: result.adapter.host,
    };
    // Every file names the adapter in its sidecar; the folder is then swapped in whole.
    const tWrite = performance.now();
    const written: string[] = [];
    for (const { name, field, settings } of staged.splice(0)) {
      writeHeightfieldFile(join(staging, name), field, { ...settings, adapter });
      written.push(join(o.out, name));
    }
    if (stages.includes('final')) {
      const codes = codeHeightfield(grid, result.codes, req.encoding);
      for (const ext of ['r16', 'png'] as const) {
        const path = join(staging, finalFile(ext));
        // [G] Which float → UNORM16 conversion made the codes: the article's path is an r16unorm render target, which
        // WebGPU offers only with texture-formats-tier1; the executor encodes in a compute shader, so the rule is named.
        const tier1 = result.adapter.features.includes('texture-formats-tier1');
        const unorm16 = `compute shader, rule ${notes.encodeRule}${notes.encodeRule === 'd3d' ? ' (×65535, +0.5, truncate; float32)' : ' (WGSL pack2x16unorm: round half to even)'}; ${tier1 ? 'the adapter offers texture-formats-tier1 (r16unorm render targets), not used yet' : 'the adapter offers no r16unorm render target (no texture-formats-tier1)'}`;
        writeHeightfieldFile(path, codes, { stage: 'final', request: req.id, notes: { ...notes, unorm16 }, adapter });
        written.push(join(o.out, finalFile(ext)));
      }
    }
    for (const s of planStages)
      if (stages.includes(s)) written.push(join(o.out, basename(writeStageJson(staging, plan, s as 'layout' | 'regions' | 'sources' | 'corners'))));
    const manifest = {
      request: req.id,
      seed: req.seed,
      size: req.size,
      backend: 'webgpu',
      adapter: result.adapter,
      adapterSpec: notes.adapterSpec,
      encodeRule: notes.encodeRule,
      lod: notes.lod,
      counts: {
        ...result.counts,
        stampDraws: drawList.stamps.draws.length,
        locationTextureDraws: drawList.locations.draws.length,
        assets: drawList.assets.length,
      },
      drawsByStage: { ...plan.drawsByStage },
    };
    writeFileAtomic(join(staging, MANIFEST_FILE), `${JSON.stringify(manifest, null, 2)}\n`);
    writeFileAtomic(
      join(staging, TIMINGS_FILE),
      `${JSON.stringify({ request: req.id, size: req.size, backend: 'webgpu', timingsMs: result.timings }, null, 2)}\n`,
    );
    writeFileAtomic(join(staging, PIPELINE_FILE), pipelineJson(SEED_PIPELINE));
    written.push(join(o.out, MANIFEST_FILE), join(o.out, TIMINGS_FILE), join(o.out, PIPELINE_FILE));
    folder.commit();
    progress.step('write', performance.now() - tWrite);
    progress.done(`${written.length} file(s) in ${o.out}`);
    const ms = Math.round(performance.now() - t0);
    if (o.json) io.out(`${JSON.stringify({ request: req.id, size: req.size, backend: 'webgpu', adapter: result.adapter, runMs: ms, written }, null, 2)}\n`);
    else
      io.out(
        `${req.id} (${req.size}²) on WebGPU: ${adapter.vendor} ${adapter.architecture} ${adapter.device} (${adapter.description}) via ${adapter.host}; ${ms} ms; wrote ${written.length} file(s) to ${o.out}\n`,
      );
    return 0;
  } catch (e) {
    if (isEnvironmentError(e)) {
      io.err(`heightbench: ${e.message.replace(/\s*\n\s*/g, ' ')}\n`);
      return 2;
    }
    throw e;
  } finally {
    folder.dispose();
  }
}

export interface DrawListCliOptions {
  out: string;
  size?: number;
  embedAssets?: boolean;
}

export function drawListCommand(request: string, o: DrawListCliOptions, io: CliIO): number {
  if (!o.out.endsWith('.json')) throw new InvalidArgumentError(`--out: expected a .json file name, got ${JSON.stringify(o.out)}`);
  const req = loadRequest(request, o.size, io.config);
  const { drawList: dl } = emitRequestDrawList(req, { embedAssets: o.embedAssets, config: io.config });
  const text = serialiseDrawList(dl);
  writeFileAtomic(o.out, text);
  io.out(
    `${req.id} (${req.size}²): ${dl.raster.layers[0].count} + ${dl.raster.layers[1].count} triangles, ${dl.support.locations.length} support locations, ` +
      `${dl.stamps.draws.length} stamp draws, ${dl.locations.draws.length} location draws, ${dl.assets.length} assets${o.embedAssets ? ' (embedded)' : ''}; ` +
      `${(text.length / 1e6).toFixed(2)} MB → ${o.out}\n`,
  );
  return 0;
}

export const installDrawList: CommandInstaller = (program: Command, io: CliIO) => {
  program
    .command('drawlist')
    .description('write the draw list of a request (what every executor draws) as versioned JSON')
    .argument('<request>', 'request id (config/requests/<id>.json) or a request file')
    .requiredOption('--out <file.json>', 'output file')
    .option('--size <n>', 'output size (the same world at another resolution)', parsePositiveInt)
    .option('--embed-assets', 'embed every used asset (KTX2 bytes) so the list is self-contained (e.g. for the browser page)')
    .action((request: string, opts: DrawListCliOptions) => {
      throw new CliExit(drawListCommand(request, opts, io));
    });
};

/** `--subpixel-bits`: a decimal integer 0…8 ("4.0", "0x4", "9" refused). */
export function parseSubpixelBits(v: string): number {
  const t = v.trim();
  const n = /^\d+$/.test(t) ? Number(t) : NaN;
  if (!(n >= 0 && n <= 8)) throw new InvalidArgumentError(`expected an integer 0…8 (fraction bits of the vertex snap), got ${JSON.stringify(v)}`);
  return n;
}

/** `--adapter`: auto, swiftshader or a part of an adapter's name (adapter-select.ts rules). */
export function parseAdapterOption(v: string): string {
  try {
    return parseAdapterSpec(v);
  } catch (e) {
    throw new InvalidArgumentError(e instanceof Error ? e.message.replace(/^--adapter: /, '') : String(e));
  }
}

/** `--subpixel-bits-from FILE`: adapter.subpixelBits of a GPU bless record or GPU manifest (the adapter's measurement). */
export function subpixelBitsFromRecord(file: string): number {
  let rec: unknown;
  try {
    rec = JSON.parse(readFileSync(file, 'utf8'));
  } catch (e) {
    throw new UsageError(`--subpixel-bits-from: cannot read ${file} as JSON (${e instanceof Error ? e.message : String(e)})`);
  }
  const bits = (rec as { adapter?: { subpixelBits?: unknown } } | null)?.adapter?.subpixelBits;
  if (typeof bits !== 'number' || !Number.isInteger(bits) || bits < 0 || bits > 8)
    throw new UsageError(
      `--subpixel-bits-from: ${file} has no adapter.subpixelBits integer 0…8 (the adapter's measured snapping), got ${JSON.stringify(bits)}`,
    );
  return bits;
}

/** The run command's options for the WebGPU backend and the CPU's GPU-mimic switches (added to `run`). */
export function addGpuRunOptions(cmd: Command): Command {
  return cmd
    .addOption(new Option('--backend <b>', 'executor: cpu (TypeScript, f32 or f64) or webgpu (WGSL on a WebGPU adapter)').choices([...BACKENDS]).default('cpu'))
    .addOption(new Option('--gpu-host <h>', 'webgpu host: dawn (npm webgpu, in-process) or chromium (headless Debian chromium)').choices([...GPU_HOST_CHOICES]))
    .addOption(
      new Option(
        '--adapter <a>',
        "webgpu adapter: auto (a hardware adapter when there is one, else SwiftShader; default), swiftshader (the reproducible reference), or a part of an adapter's name",
      ).argParser(parseAdapterOption),
    )
    .addOption(
      new Option(
        '--encode-rule <r>',
        "webgpu encode shader's float → UNORM16 rule: d3d (×65535, +0.5, truncate) or pack2x16unorm (WGSL, ties to even)",
      ).choices([...ENCODE_RULE_CHOICES]),
    )
    .addOption(
      new Option(
        '--subpixel-bits <n>',
        "cpu backend: snap the layer triangles' vertices to 2^-n pixel (0…8; default 8 = Direct3D's 16.8; SwiftShader snaps to 4)",
      ).argParser(parseSubpixelBits),
    )
    .addOption(
      new Option(
        '--subpixel-bits-from <record.json>',
        "cpu backend: take --subpixel-bits from a GPU bless record or GPU manifest (adapter.subpixelBits, the adapter's measured snapping)",
      ),
    )
    .addOption(
      new Option(
        '--quad-coverage <c>',
        'cpu backend: stamp/location quads cover pixel centres inside the square (exact, default) or inside its corners taken through float32 clip space and the viewport transform and snapped to --subpixel-bits (snapped, as the GPU executor’s rasterizer does)',
      ).choices(['exact', 'snapped']),
    )
    .addOption(
      new Option('--lod <src>', 'webgpu asset draws: level of detail from screen-space derivatives or the draw list’s explicit lod').choices([...LOD_CHOICES]),
    );
}
