/**
 * One batch of a sweep in one process: the assets loaded once, then per request the generated run (f32, the
 * precision's default executor), the reference (f64 — consistency; the WebGPU executor — independent of the CPU
 * kernels; or an imported capture folder), the comparison and one record.
 *
 * Inputs: SweepItem[] (src/sweep/requests.ts: each carries its whole request), the reference kind, the detail
 * ('final': the final codes only; 'stages': every float stage kept on both sides, first divergence per stage and the
 * SHA-256 of each stage), the config context and the asset folder.
 * Outputs: one SweepRecord per item, handed to `emit` as soon as it is made.
 * Rules [R]: the library's pipeline (runPipeline), comparison (compareHeightfields) and attribution (attributeStages)
 * do the work; nothing is recomputed here. A stage's SHA-256 is that of its float32 little-endian samples (an f64 field
 * rounded to float32, as a stage dump stores it) and the final's that of its uint16 little-endian codes — the
 * payload hashes of the .r32 and .r16 files `run` writes. A capture folder (--against DIR) holds one run folder per
 * request, named by the record's name, with final.r16 and, for stage detail, any of the stage dumps.
 */
import { hostname } from 'node:os';
import { join } from 'node:path';
import { createHash } from 'node:crypto';
import { FLOAT_STAGES, resolveConventions } from '../conventions/index.js';
import { codeHeightfield } from '../core/heightfield.js';
import { compareHeightfields } from '../compare/compare.js';
import { attributeStages, type RunFields, type StageField } from '../compare/attribution.js';
import { runPipeline, type RunResult } from '../pipeline/run.js';
import { loadRunInputs, readListAssetBytes, type RunInputs } from '../pipeline/inputs.js';
import { parseRequest, requestGrid, type ConfigContext, type PipelineRequest } from '../plan/request.js';
import { planBranchCounts } from '../plan/branches.js';
import type { Plan } from '../plan/plan.js';
import { readHeightfieldFile } from '../io/heightfield-file.js';
import { inputPresent } from '../io/read-input.js';
import { resolveInside } from '../core/names.js';
import { MismatchError, UsageError } from '../errors.js';
import { PRODUCER_VERSION } from '../version.js';
import { canonicalJson, type SweepItem } from './requests.js';

export type Against = { kind: 'f64' } | { kind: 'gpu' } | { kind: 'dir'; dir: string };
export type Detail = 'final' | 'stages';

export const SWEEP_RECORD_FORMAT = 'heightbench.sweep-record';

export interface SweepRecord {
  format: typeof SWEEP_RECORD_FORMAT;
  version: 1;
  key: string;
  name: string;
  request: string;
  seed: number;
  size: number;
  vary: Record<string, unknown>;
  heightbench: string;
  /** SHA-256 of the conventions declaration's canonical JSON (the sweep runs the declared conventions). */
  conventionsHash: string;
  against: string;
  detail: Detail;
  generated: { precision: 'f32'; executor: string };
  final: { pixels: number; exact: number; exactPercent: number; maxAbsCode: number; rmsMm: number; maxAbsMm: number; histogram: Record<string, number> };
  /** First divergent stage → differing final pixels (stage detail only; null otherwise). */
  firstDivergence: Record<string, number> | null;
  /** Cause class → differing final pixels (stage detail only). */
  causes: Record<string, number> | null;
  /** Stage → differing final pixels whose difference originates there (stage detail, when the pipeline declares footprints). */
  origins: Record<string, number> | null;
  /** Stage → SHA-256, each side (the final always; the float stages with stage detail; a capture's stages it holds). */
  sha256: { generated: Record<string, string>; reference: Record<string, string> };
  /** Planner branch id → count (src/plan/branches.ts). */
  branches: Record<string, number>;
  timeMs: { generated: number; reference: number; compare: number; total: number };
  worker: string;
}

/** SHA-256 of the conventions declaration the sweep runs (the key every record carries and gather checks). */
export function conventionsHash(): string {
  return createHash('sha256').update(canonicalJson(resolveConventions())).digest('hex');
}

function sha(view: ArrayBufferView): string {
  return createHash('sha256')
    .update(new Uint8Array(view.buffer, view.byteOffset, view.byteLength))
    .digest('hex');
}

function f32(f: Float32Array | Float64Array): Float32Array {
  return f instanceof Float32Array ? f : Float32Array.from(f);
}

interface Side {
  codes: Uint16Array;
  stages: Map<string, StageField>;
  sha: Record<string, string>;
}

function sideOfRun(r: RunResult, req: PipelineRequest, detail: Detail): Side {
  const grid = requestGrid(req);
  const stages = new Map<string, StageField>();
  const digests: Record<string, string> = {};
  if (detail === 'stages')
    for (const s of FLOAT_STAGES) {
      const f = r.fields.get(s);
      if (!f) continue;
      const h = f32(f);
      stages.set(s, { grid, height_px: h });
      digests[s] = sha(h);
    }
  digests.final = sha(r.codes);
  return { codes: r.codes, stages, sha: digests };
}

function sideOfFolder(dir: string, name: string, req: PipelineRequest, detail: Detail): Side {
  const folder = resolveInside(dir, name);
  const finalPath = join(folder, 'final.r16');
  if (!inputPresent(finalPath)) throw new UsageError(`--against ${dir}: no capture for ${name} (expected ${finalPath})`);
  const fin = readHeightfieldFile(finalPath).field;
  if (fin.kind !== 'codes') throw new MismatchError(`${finalPath}: expected 16-bit codes`);
  const grid = requestGrid(req);
  if (fin.grid.columns !== grid.columns || fin.grid.rows !== grid.rows)
    throw new MismatchError(`${finalPath}: ${fin.grid.columns}×${fin.grid.rows} samples, the request is ${grid.columns}×${grid.rows}`);
  const stages = new Map<string, StageField>();
  const digests: Record<string, string> = { final: sha(fin.code_px) };
  if (detail === 'stages')
    for (const s of FLOAT_STAGES) {
      const p = join(folder, `${s}.r32`);
      if (!inputPresent(p)) continue;
      const f = readHeightfieldFile(p).field;
      if (f.kind !== 'float') throw new MismatchError(`${p}: expected float heights`);
      stages.set(s, { grid: f.grid, height_px: f.height_px });
      digests[s] = sha(f.height_px);
    }
  return { codes: fin.code_px, stages, sha: digests };
}

export interface BatchOptions {
  against: Against;
  detail: Detail;
  config?: ConfigContext;
  assetsDir?: string;
  /** Who ran the batch (the Dask worker's address); default host:pid. */
  worker?: string;
}

/** The reference's name in a record. */
export function againstName(a: Against): string {
  return a.kind === 'dir' ? `dir:${a.dir}` : a.kind;
}

/** Runs the batch; each record goes to `emit` as soon as it is made. */
export async function runBatch(items: readonly SweepItem[], opts: BatchOptions, emit: (r: SweepRecord) => void): Promise<void> {
  const inputs = new Map<string, RunInputs>();
  const conv = conventionsHash();
  const worker = opts.worker ?? `${hostname()}:${process.pid}`;
  const keep = opts.detail === 'stages' ? [...FLOAT_STAGES] : [];
  const gpu = opts.against.kind === 'gpu' ? await import('../gpu/run.js') : null;
  for (const item of items) {
    const t0 = performance.now();
    const req = parseRequest(item.request, `request ${item.name}`);
    let input = inputs.get(req.world);
    if (!input) {
      input = loadRunInputs(req, opts.assetsDir, opts.config);
      inputs.set(req.world, input);
    }
    // One plan for both runs of the request (a plan is a value: reusing it changes no bit).
    const plans = new Map<string, Plan>();
    const gen = runPipeline(req, { precision: 'f32', keep, inputs: input, plans });
    const t1 = performance.now();
    let ref: Side;
    if (opts.against.kind === 'f64') ref = sideOfRun(runPipeline(req, { precision: 'f64', keep, inputs: input, plans }), req, opts.detail);
    else if (opts.against.kind === 'dir') ref = sideOfFolder(opts.against.dir, item.name, req, opts.detail);
    else {
      if (req.size % 8 !== 0) throw new UsageError(`--against gpu: the WebGPU executor needs a size divisible by 8, got ${req.size}`);
      const r = await gpu!.runGpu(gen.drawList, {
        adapter: 'swiftshader',
        assetBytes: readListAssetBytes(gen.drawList, input.assets.dir),
        readBack: () => opts.detail === 'stages',
      });
      const grid = requestGrid(req);
      const stages = new Map<string, StageField>();
      const digests: Record<string, string> = { final: sha(r.codes) };
      for (const s of FLOAT_STAGES) {
        const f = (r.fields as Record<string, Float32Array | undefined>)[s];
        if (!f || opts.detail !== 'stages') continue;
        stages.set(s, { grid, height_px: f });
        digests[s] = sha(f);
      }
      ref = { codes: r.codes, stages, sha: digests };
    }
    const t2 = performance.now();
    const g = sideOfRun(gen, req, opts.detail);
    const grid = requestGrid(req);
    const cmp = compareHeightfields(codeHeightfield(grid, g.codes, req.encoding), codeHeightfield(grid, ref.codes, req.encoding));
    let firstDivergence: Record<string, number> | null = null;
    let causes: Record<string, number> | null = null;
    let origins: Record<string, number> | null = null;
    if (opts.detail === 'stages') {
      const a: RunFields = { stages: g.stages, finalGrid: grid, codes: g.codes };
      const b: RunFields = { stages: ref.stages, finalGrid: grid, codes: ref.codes };
      const att = attributeStages(a, b, { metresPerCode: cmp.metresPerCode });
      firstDivergence = att.byStage;
      causes = att.byCause;
      origins = att.origins?.byStage ?? null;
    }
    const t3 = performance.now();
    emit({
      format: SWEEP_RECORD_FORMAT,
      version: 1,
      key: item.key,
      name: item.name,
      request: item.base,
      seed: item.seed,
      size: item.size,
      vary: item.vary,
      heightbench: PRODUCER_VERSION,
      conventionsHash: conv,
      against: againstName(opts.against),
      detail: opts.detail,
      generated: { precision: 'f32', executor: gen.executor },
      final: {
        pixels: cmp.pixels,
        exact: cmp.exact,
        exactPercent: cmp.exactPercent,
        maxAbsCode: cmp.maxAbsCode,
        rmsMm: cmp.rmsMm,
        maxAbsMm: cmp.maxAbsMm,
        histogram: cmp.histogram,
      },
      firstDivergence,
      causes,
      origins,
      sha256: { generated: g.sha, reference: ref.sha },
      branches: planBranchCounts(gen.plan),
      timeMs: { generated: round(t1 - t0), reference: round(t2 - t1), compare: round(t3 - t2), total: round(t3 - t0) },
      worker,
    });
  }
}

function round(ms: number): number {
  return Math.round(ms * 10) / 10;
}
