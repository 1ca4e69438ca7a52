/**
 * The bless use case, the only one that changes references: the run's references (`references/<run>`, f64 path) or
 * its GPU reference (`references/gpu-<run>`, `run --backend webgpu`) are regenerated into a staged folder
 * `references/.bless-<ref>.stage-*`, compared with the current ones, and only when asked swapped in (the old folder is
 * kept as `references/.<ref>.previous` until the new one is in place), recorded in references/bless/<ref>.json, and
 * committed to dvc.lock through `dvc commit`. Each bless first restores or removes a kept old folder and removes stale
 * staged folders (of a bless killed before it finished, in either naming: the stage's or mkdtemp's `.bless-<ref>-XXXXXX`).
 * [R] The regeneration is exactly the DVC stage's command (reference@RUN or gpu@RUN), so what bless writes is what
 *     `dvc repro` regenerates and dvc.lock stays consistent; the caller runs it (`regenerate`) with the settings given.
 * [R] A GPU record names the adapter: on another adapter the same command legitimately writes other bytes.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { UsageError } from '../errors.js';
import { PRODUCER_VERSION } from '../version.js';
import { writeFileAtomic } from '../io/atomic.js';
import { rmTreeStep } from '../io/fs-ops.js';
import type { SwapNames } from '../io/folder-swap.js';
import { checkName, resolveInside } from '../core/names.js';
import type { ParamsRun, ProjectParams } from '../pipeline/params.js';
import type { PipelineRequest } from '../plan/request.js';
import { checkRun, type RunCheck } from './check.js';
import { FINAL_CODES_FILE, MANIFEST_FILE, openStagedFolder, recoverStaged } from './folder.js';

/** Staged and kept-old folder names of a run's references (readers fall back to the kept-old folder). */
export function blessSwapNames(name: string): SwapNames {
  return { stagePrefix: `.bless-${name}.stage-`, previous: `.${name}.previous` };
}

/** Restores or removes a kept old references folder; removes stale staged folders. Returns what was removed. */
export function cleanBlessLeftovers(referencesDir: string, name: string): string[] {
  const target = resolveInside(referencesDir, checkName('run', name));
  const removed = recoverStaged(target, blessSwapNames(name));
  // Staged folders of earlier heightbench versions: mkdtemp names `.bless-<run>-XXXXXX`.
  const legacy = new RegExp(`^\\.bless-${name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}-[A-Za-z0-9]{6}$`);
  for (const e of readdirSync(referencesDir)) {
    if (legacy.test(e)) {
      rmTreeStep(join(referencesDir, e));
      removed.push(join(referencesDir, e));
    }
  }
  return removed;
}

/** The GPU reference folder and DVC stage of a run. */
export function gpuReferenceName(run: string): string {
  return `gpu-${run}`;
}

/** The reason a bless with `yes` records (trimmed), refused when missing; checked before any settings are loaded. */
export function blessReason(name: string, o: { yes?: boolean; reason?: string; gpu?: boolean }): string | undefined {
  const reason = o.reason?.trim();
  if (o.yes && !reason)
    throw new UsageError(
      `bless ${name}${o.gpu ? ' --gpu' : ''}: --yes needs --reason "<why the heights moved>" (the bless record keeps it), got ${JSON.stringify(o.reason ?? null)}`,
    );
  return reason;
}

/** What the DVC stage runs, for `regenerate` to run into `dir` (written in place: `dir` is already a fresh stage). */
export type BlessRegeneration =
  | { backend: 'cpu'; dir: string; request: string; size: number; precision: 'f64'; dumpWindow: number | undefined }
  | { backend: 'webgpu'; dir: string; request: string; size: number; adapter: string };

export interface BlessSettings {
  /** The project root (params.yaml, references/, reports/, .venv/bin/dvc). */
  root: string;
  /** The run's name in params.yaml. */
  name: string;
  /** Bless the run's GPU reference instead of its references. */
  gpu: boolean;
  /** Replace the references (else only compare). */
  yes: boolean;
  /** Why the heights moved (blessReason; required with `yes`). */
  reason: string | undefined;
  params: ProjectParams;
  /** The run's entry in params.yaml. */
  run: ParamsRun;
  /** The run's request, loaded at the run's size. */
  request: PipelineRequest;
  /** Runs the regeneration (the caller owns the executors). */
  regenerate(r: BlessRegeneration): Promise<void>;
  /** Told the stale staged folders removed, before the regeneration. */
  onCleaned?(removed: readonly string[]): void;
  /** Told the GPU reference's adapter (from its manifest) once it is regenerated. */
  onAdapter?(adapter: Record<string, unknown> | null): void;
}

export interface BlessResult {
  /** The references folder's name under references/ (`<run>` or `gpu-<run>`). */
  reference: string;
  /** New vs current (report in reports/bless-<reference>/), or null when there were no current references. */
  comparison: RunCheck | null;
  /** Whether the new references were swapped in and recorded. */
  replaced: boolean;
  /** `dvc commit` of the reference stage (null when not replaced or no .venv/bin/dvc). */
  dvc: { stage: string; ok: boolean; stderr: string } | null;
}

/** Regenerates, compares and (with `yes`) replaces a run's references: see the header. */
export async function blessReferences(s: BlessSettings): Promise<BlessResult> {
  const { root, name, params, run, request: req } = s;
  const refs = join(root, 'references');
  const reference = s.gpu ? gpuReferenceName(name) : name;
  const target = resolveInside(refs, reference);
  const names = blessSwapNames(reference);
  const removed = cleanBlessLeftovers(refs, reference);
  s.onCleaned?.(removed);
  const adapterSpec = params.gpu.adapter ?? 'swiftshader';
  const folder = openStagedFolder(target, { names });
  try {
    const tmp = folder.dir;
    let adapter: Record<string, unknown> | null = null;
    if (s.gpu) {
      // Whole stage dumps, as the gpu stage writes them: the attribution needs every differing pixel's stages.
      await s.regenerate({ backend: 'webgpu', dir: tmp, request: run.request, size: run.size, adapter: adapterSpec });
      const manifest = JSON.parse(readFileSync(join(tmp, MANIFEST_FILE), 'utf8')) as { adapter?: Record<string, unknown> };
      adapter = manifest.adapter ?? null;
      s.onAdapter?.(adapter);
    } else {
      // Exactly the DVC reference stage's command (`run … --precision f64 --dump-window W`).
      await s.regenerate({ backend: 'cpu', dir: tmp, request: run.request, size: run.size, precision: 'f64', dumpWindow: params.dumpWindow });
    }
    const comparison = existsSync(join(target, FINAL_CODES_FILE))
      ? checkRun(
          tmp,
          target,
          {},
          resolveInside(join(root, 'reports'), `bless-${reference}`),
          s.gpu ? `bless ${name} --gpu: new vs current GPU reference` : `bless ${name}: new vs current references`,
        )
      : null;
    if (!s.yes) return { reference, comparison, replaced: false, dvc: null };
    folder.commit();
    // One record per run: blessing one run leaves every other reference stage untouched.
    const record = s.gpu
      ? { request: req.id, size: req.size, backend: 'webgpu', adapterSpec, dumpWindow: null, producer: PRODUCER_VERSION, adapter, reason: s.reason }
      : { request: req.id, size: req.size, precision: 'f64', dumpWindow: params.dumpWindow ?? null, producer: PRODUCER_VERSION, reason: s.reason };
    writeFileAtomic(resolveInside(join(refs, 'bless'), `${reference}.json`), `${JSON.stringify(record, null, 2)}\n`);
    const dvcBin = join(root, '.venv', 'bin', 'dvc');
    let dvc: BlessResult['dvc'] = null;
    if (existsSync(dvcBin)) {
      const stage = `${s.gpu ? 'gpu' : 'reference'}@${name}`;
      const r = spawnSync(dvcBin, ['commit', '--force', stage], { cwd: root, encoding: 'utf8' });
      dvc = { stage, ok: r.status === 0, stderr: r.stderr };
    }
    return { reference, comparison, replaced: true, dvc };
  } finally {
    folder.dispose();
  }
}
