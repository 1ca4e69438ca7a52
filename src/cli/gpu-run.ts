/**
 * `heightbench run REQUEST --backend webgpu [--size N] --out DIR` and `heightbench drawlist REQUEST --out FILE.json`
 * (issue 16, items 1 and 4).
 *
 * run --backend webgpu: plan → draw list (src/drawlist/emit.ts) → the WebGPU executor (src/gpu/run.ts, runGpu), then
 * the same stage files as the CPU run — raster-layer0, raster, base, after-support, after-stamps, after-locations,
 * pre-encode (.r32) and final (.r16 and .png), each with a sidecar whose producer carries the adapter (vendor,
 * architecture, device, description, host) — plus the plan's JSON stages, manifest.json and timings.json.
 * Progress: one line per step with its time (draw list, each executor stage, write) through progress.ts — on a terminal
 * only, quiet with --quiet. Stages not asked for with --stages are computed but not read back. Memory: each stage field is written as soon as it is read back (a staging
 * folder inside DIR); when the run is complete the sidecars gain the adapter and every pair moves into DIR, so a
 * failed run leaves no partial output.
 * Errors: no adapter, a missing browser or driver, or a missing npm package → exit 2 with what to install.
 */
import { mkdirSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { InvalidArgumentError, Option, type Command } from 'commander';
import { UsageError } from '../errors.js';
import { buildPlan, type Plan } from '../pipeline/plan.js';
import { defaultAssetsDir, loadRequest, requestGrid, type PipelineRequest } from '../pipeline/request.js';
import { ensureAssets } from '../pipeline/run.js';
import { selectStamps } from '../pipeline/stamps.js';
import { writeStageJson } from '../pipeline/outputs.js';
import { buildDrawList } from '../drawlist/emit.js';
import { serialiseDrawList } from '../drawlist/serial.js';
import type { DrawList } from '../drawlist/types.js';
import { codeHeightfield, floatHeightfield } from '../core/heightfield.js';
import { cropCentre } from '../core/crop.js';
import { writeHeightfieldFile } from '../io/heightfield-file.js';
import { writeFileAtomic } from '../io/atomic.js';
import { sidecarPathFor, type GpuAdapterInfo } from '../io/sidecar.js';
import { parsePositiveInt } from './args.js';
import { CliExit, type CliIO, type CommandInstaller } from './io.js';
import { progressReporter } from './progress.js';

export const BACKENDS = ['cpu', 'webgpu'] as const;
export type Backend = (typeof BACKENDS)[number];
export const GPU_HOST_CHOICES = ['dawn', 'chromium'] as const;
export const ENCODE_RULE_CHOICES = ['d3d', 'pack2x16unorm'] as const;
export const LOD_CHOICES = ['derivatives', 'list'] as const;

/** Plan → stamp selection → draw list for a request (assets built when missing or stale). */
export function emitRequestDrawList(
  req: PipelineRequest,
  opts: { embedAssets?: boolean; assetsDir?: string } = {},
): { plan: Plan; drawList: DrawList; assetsDir: string } {
  const plan = buildPlan(req);
  const assetsDir = opts.assetsDir ?? defaultAssetsDir();
  const assets = ensureAssets(plan.world, assetsDir);
  const stamps = selectStamps(plan.regions, plan.world, plan.stream);
  const drawList = buildDrawList(plan, { size: req.size, stamps, assets, assetsDir, embedAssets: opts.embedAssets });
  return { plan, drawList, assetsDir };
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
  const req = loadRequest(request, o.size);
  if (req.size % 8 !== 0) throw new UsageError(`--size: the webgpu backend needs a size divisible by 8 (three halvings), got ${req.size}`);
  const stages = o.stages ?? [...planStages, ...fieldStages];
  const t0 = performance.now();
  const progress = progressReporter({ label: `run ${req.id} ${req.size}² webgpu`, quiet: o.quiet });
  const { plan, drawList, assetsDir } = progress.time('drawlist', () => emitRequestDrawList(req));
  progress.note(
    `draw list: ${drawList.raster.layers[0].count} + ${drawList.raster.layers[1].count} triangles, ${drawList.support.locations.length} support locations, ${drawList.stamps.draws.length} stamps, ${drawList.locations.draws.length} location textures`,
  );
  const grid = requestGrid(req);
  const staging = join(o.out, `.gpu-staging-${process.pid}`);
  rmSync(staging, { recursive: true, force: true });
  mkdirSync(staging, { recursive: true });
  const staged: string[] = [];
  const notes = { backend: 'webgpu', storedAs: 'float32', encodeRule: o.encodeRule ?? 'd3d', lod: o.lod ?? 'derivatives' };
  try {
    const gpu = await loadGpu();
    let result;
    try {
      result = await gpu.runGpu(drawList, {
        host: o.gpuHost,
        assetsDir,
        encodeRule: o.encodeRule,
        lod: o.lod,
        onProgress: (e) => {
          if (e.phase === 'done') progress.step(e.stage, e.ms);
        },
        readBack: (stage) => stages.includes(stage),
        onStage: (stage, field) => {
          const name = `${stage}.r32`;
          const crop = o.dumpWindow && stage !== 'pre-encode' ? cropCentre(field, grid, o.dumpWindow) : null;
          const f = crop ? floatHeightfield(crop.grid, crop.data) : floatHeightfield(grid, field);
          writeHeightfieldFile(join(staging, name), f, { stage, request: req.id, notes: crop ? { ...notes, window: `central ${o.dumpWindow} m` } : notes });
          staged.push(name);
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
    // The sidecars gain the adapter, then every pair moves into DIR.
    const tWrite = performance.now();
    const written: string[] = [];
    for (const name of staged) {
      const side = JSON.parse(readFileSync(sidecarPathFor(join(staging, name)), 'utf8')) as { producer: Record<string, unknown> };
      side.producer = { ...side.producer, adapter };
      renameSync(join(staging, name), join(o.out, name));
      writeFileAtomic(sidecarPathFor(join(o.out, name)), `${JSON.stringify(side, null, 2)}\n`);
      written.push(join(o.out, name));
    }
    if (stages.includes('final')) {
      const codes = codeHeightfield(grid, result.codes, req.encoding);
      for (const ext of ['r16', 'png']) {
        const path = join(o.out, `final.${ext}`);
        writeHeightfieldFile(path, codes, { stage: 'final', request: req.id, notes, adapter });
        written.push(path);
      }
    }
    for (const s of planStages) if (stages.includes(s)) written.push(writeStageJson(o.out, plan, s as 'layout' | 'regions' | 'sources' | 'corners'));
    const manifest = {
      request: req.id,
      seed: req.seed,
      size: req.size,
      backend: 'webgpu',
      adapter: result.adapter,
      encodeRule: notes.encodeRule,
      lod: notes.lod,
      counts: {
        ...result.counts,
        stampDraws: drawList.stamps.draws.length,
        locationTextureDraws: drawList.locations.draws.length,
        assets: drawList.assets.length,
      },
      drawsByStage: { ...plan.stream.drawsByStage },
    };
    writeFileAtomic(join(o.out, 'manifest.json'), `${JSON.stringify(manifest, null, 2)}\n`);
    writeFileAtomic(
      join(o.out, 'timings.json'),
      `${JSON.stringify({ request: req.id, size: req.size, backend: 'webgpu', timingsMs: result.timings }, null, 2)}\n`,
    );
    written.push(join(o.out, 'manifest.json'), join(o.out, 'timings.json'));
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
    rmSync(staging, { recursive: true, force: true });
  }
}

export interface DrawListCliOptions {
  out: string;
  size?: number;
  embedAssets?: boolean;
}

export function drawListCommand(request: string, o: DrawListCliOptions, io: CliIO): number {
  if (!o.out.endsWith('.json')) throw new InvalidArgumentError(`--out: expected a .json file name, got ${JSON.stringify(o.out)}`);
  const req = loadRequest(request, o.size);
  const { drawList: dl } = emitRequestDrawList(req, { embedAssets: o.embedAssets });
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

/** The run command's options for the WebGPU backend and the CPU's GPU-mimic switches (added to `run`). */
export function addGpuRunOptions(cmd: Command): Command {
  return cmd
    .addOption(new Option('--backend <b>', 'executor: cpu (TypeScript, f32 or f64) or webgpu (WGSL on a WebGPU adapter)').choices([...BACKENDS]).default('cpu'))
    .addOption(new Option('--gpu-host <h>', 'webgpu host: dawn (npm webgpu, in-process) or chromium (headless Debian chromium)').choices([...GPU_HOST_CHOICES]))
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
        '--quad-coverage <c>',
        'cpu backend: stamp/location quads cover pixel centres inside the square (exact, default) or inside its corners snapped to --subpixel-bits (snapped, as a rasterizer does)',
      ).choices(['exact', 'snapped']),
    )
    .addOption(
      new Option('--lod <src>', 'webgpu asset draws: level of detail from screen-space derivatives or the draw list’s explicit lod').choices([...LOD_CHOICES]),
    );
}
