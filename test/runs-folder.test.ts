/**
 * The run folder's contract (src/runs/folder.ts): the names it declares are the files a CPU run, a WebGPU run and an
 * import write; the import record an imported stage's sidecar holds is the one imports.json lists; and a folder left
 * between the two renames of a swap (the old folder kept aside, the target gone) is recovered by every command that
 * writes a run folder.
 */
import { existsSync, readdirSync, readFileSync, renameSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cli, tempDir } from './helpers.js';
import {
  FINAL_CODES_FILE,
  FINAL_PNG_FILE,
  IMPORTS_FILE,
  MANIFEST_FILE,
  PLAN_STAGES,
  TIMINGS_FILE,
  fieldStageFile,
  planStageFile,
  runOutputNames,
  sidecarFile,
  sidecarImportRecord,
} from '../src/runs/folder.js';
import { STAGES } from '../src/conventions/index.js';
import { PIPELINE_FILE } from '../src/pipelines/declaration.js';
import { defaultSwapNames } from '../src/io/folder-swap.js';
import { readSidecarFor } from '../src/io/sidecar.js';

/** The names declared one by one (not through runOutputNames), so the two are checked against each other. */
function declaredNames(): string[] {
  const heightfields = [...STAGES.filter((s) => s !== 'final').map(fieldStageFile), FINAL_CODES_FILE, FINAL_PNG_FILE];
  return [...heightfields, ...heightfields.map(sidecarFile), ...PLAN_STAGES.map(planStageFile), MANIFEST_FILE, TIMINGS_FILE, PIPELINE_FILE].sort();
}

/** Leaves `dir` as a swap interrupted between its renames leaves it: the old folder kept aside, the target gone. */
function interruptSwap(dir: string): string {
  const kept = join(dirname(dir), defaultSwapNames(dir).previous);
  renameSync(dir, kept);
  return kept;
}

describe('the run folder (src/runs/folder.ts)', () => {
  it('names every file a CPU run writes, and a full run writes every name', async () => {
    expect([...runOutputNames()].sort()).toEqual(declaredNames());
    const out = join(tempDir(), 'cpu');
    const r = await cli('run', 'teaching-512', '--size', '64', '--out', out, '--quiet');
    expect(r.code, r.err).toBe(0);
    expect(readdirSync(out).sort()).toEqual(declaredNames());
  });

  it('names every file a WebGPU run writes, each stage sidecar naming the adapter', async () => {
    const out = join(tempDir(), 'gpu');
    const r = await cli('run', 'teaching-512', '--size', '64', '--backend', 'webgpu', '--out', out, '--quiet');
    expect(r.code, r.err).toBe(0);
    expect(readdirSync(out).sort()).toEqual(declaredNames());
    for (const s of STAGES.filter((x) => x !== 'final')) expect(readSidecarFor(join(out, fieldStageFile(s)))?.producer.adapter?.host).toBeTruthy();
  });

  it('an import writes the stage file, its sidecar and imports.json, which lists the record the sidecar holds', async () => {
    const dir = tempDir();
    const run = join(dir, 'run');
    expect((await cli('run', 'teaching-512', '--size', '64', '--stages', 'final', '--out', run, '--quiet')).code).toBe(0);
    const out = join(dir, 'imported');
    const r = await cli('import', join(run, FINAL_CODES_FILE), '--stage', 'final', '--out', out);
    expect(r.code, r.err).toBe(0);
    expect(readdirSync(out).sort()).toEqual([FINAL_CODES_FILE, sidecarFile(FINAL_CODES_FILE), IMPORTS_FILE].sort());
    const record = sidecarImportRecord(readSidecarFor(join(out, FINAL_CODES_FILE)));
    expect(record?.stage).toBe('final');
    expect(record?.file).toBe(FINAL_CODES_FILE);
    const listed = JSON.parse(readFileSync(join(out, IMPORTS_FILE), 'utf8')) as { format: string; imports: unknown[] };
    expect(listed.format).toBe('heightbench.imports');
    expect(listed.imports).toEqual([record]);
  });

  it('every command that writes a run folder recovers a swap interrupted between its renames', async () => {
    const dir = tempDir();
    const run = join(dir, 'run');
    const args = ['run', 'teaching-512', '--size', '64', '--quiet', '--out', run];
    expect((await cli(...args)).code).toBe(0);
    const kept = interruptSwap(run);
    expect((await cli(...args)).code).toBe(0);
    expect(existsSync(kept)).toBe(false);
    expect(readdirSync(run)).toContain(FINAL_CODES_FILE);

    const imported = join(dir, 'imported');
    const imp = (stage: string, file: string) => cli('import', file, '--stage', stage, '--out', imported);
    expect((await imp('final', join(run, FINAL_CODES_FILE))).code).toBe(0);
    const keptImport = interruptSwap(imported);
    // The second import adds to the recovered folder: the first import's record is kept beside the new one.
    const second = await imp('pre-encode', join(run, fieldStageFile('pre-encode')));
    expect(second.code, second.err).toBe(0);
    expect(existsSync(keptImport)).toBe(false);
    const listed = JSON.parse(readFileSync(join(imported, IMPORTS_FILE), 'utf8')) as { imports: { stage: string }[] };
    expect(listed.imports.map((r) => r.stage)).toEqual(['final', 'pre-encode']);
  });
});
