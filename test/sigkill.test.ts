/**
 * A real kill, not an injected fault: `heightbench run` is killed with SIGKILL at spread moments of its life (while
 * the pipeline computes, while the background writer writes the stage dumps, while the pairs are committed, around
 * the folder swap). After every kill the folder a reader opens holds one whole run — the previous one or the new one,
 * every pair verifying against its sidecar — and the next run leaves exactly one folder and no leftovers. The WebGPU
 * backend writes through the same run-folder writer (src/cli/run-folder.ts): killed while it plans, draws on
 * SwiftShader, reads back or writes, it leaves the same guarantee.
 */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readHeightfieldFile } from '../src/index.js';
import { folderForReading } from '../src/io/folder-swap.js';
import { tempDir } from './helpers.js';

const BIN = join(process.cwd(), 'bin', 'heightbench.mjs');
// Large enough that a run lasts ~0.7–1 s here, so that its phases are far apart; small enough for a quick test.
const SIZES = [1536, 2048];

function runArgs(target: string, size: number, backend: 'cpu' | 'webgpu' = 'cpu'): string[] {
  return [BIN, 'run', 'teaching-512', '--size', String(size), '--out', target, '--quiet', ...(backend === 'webgpu' ? ['--backend', 'webgpu'] : [])];
}

/** The size of the one whole run the folder holds; throws when it holds anything else. */
function wholeRun(dir: string): number {
  const manifest = JSON.parse(readFileSync(join(dir, 'manifest.json'), 'utf8')) as { size: number };
  const names = readdirSync(dir).sort();
  for (const f of names.filter((n) => /\.(r16|r32|png)$/.test(n))) {
    const r = readHeightfieldFile(join(dir, f)); // refuses a payload that does not match its sidecar
    if (r.notes.length) throw new Error(`${f}: read through a pending payload (${r.notes.join('; ')})`);
    const cropped = (r.sidecar?.notes as { window?: string } | undefined)?.window !== undefined;
    if (!cropped && r.field.grid.columns !== manifest.size) throw new Error(`${f}: ${r.field.grid.columns} columns in a run of ${manifest.size}`);
  }
  return manifest.size;
}

describe('SIGKILL during heightbench run', () => {
  it('leaves the previous run or the new one, whole, and the next run cleans up', async () => {
    const parent = tempDir('hb-kill-');
    const target = join(parent, 'out');
    const t0 = performance.now();
    const first = spawnSync(process.execPath, runArgs(target, SIZES[0]), { encoding: 'utf8' });
    // Kills spread over a run's life as measured here (not a speed check: the time only places the kills).
    const life = performance.now() - t0;
    expect(first.status, first.stderr).toBe(0);
    const expectedNames = readdirSync(target).sort();
    let current = SIZES[0];
    let killed = 0;
    for (const [k, delay] of [0.08, 0.18, 0.3, 0.42, 0.55, 0.68, 0.8, 0.9].map((f) => Math.round(f * life)).entries()) {
      const size = SIZES[(k + 1) % 2];
      const child = spawn(process.execPath, runArgs(target, size), { stdio: 'ignore' });
      const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
        child.on('exit', (code, signal) => resolve({ code, signal })),
      );
      const timer = setTimeout(() => child.kill('SIGKILL'), delay);
      const r = await exited;
      clearTimeout(timer);
      if (r.signal === 'SIGKILL') killed++;
      else expect(r.code, `run ${k} ended by itself`).toBe(0);
      const dir = folderForReading(target);
      const seen = wholeRun(dir);
      expect([current, size], `after a kill at ${delay} ms`).toContain(seen);
      expect(readdirSync(dir).sort(), `after a kill at ${delay} ms`).toEqual(expectedNames);
      current = seen;
    }
    // The kills must have hit runs in flight, not only finished ones.
    expect(killed).toBeGreaterThanOrEqual(4);
    const last = spawnSync(process.execPath, runArgs(target, SIZES[0]), { encoding: 'utf8' });
    expect(last.status, last.stderr).toBe(0);
    expect(wholeRun(target)).toBe(SIZES[0]);
    expect(readdirSync(parent)).toEqual(['out']);
    expect(existsSync(join(parent, '.out.previous'))).toBe(false);
  }, 120_000);
});

describe('SIGKILL during heightbench run --backend webgpu', () => {
  it('leaves the previous run or the new one, whole, and the next run cleans up (the CPU run’s writer)', async () => {
    const parent = tempDir('hb-kill-gpu-');
    const target = join(parent, 'out');
    const sizes = [64, 128];
    // Each size's life as measured here (the kills are placed in it; not a speed check).
    const life: number[] = [];
    for (const size of sizes) {
      const t0 = performance.now();
      const r = spawnSync(process.execPath, runArgs(target, size, 'webgpu'), { encoding: 'utf8' });
      life.push(performance.now() - t0);
      expect(r.status, r.stderr).toBe(0);
    }
    const expectedNames = readdirSync(target).sort();
    expect(expectedNames).toContain('final.r16');
    let current = sizes[1];
    let killed = 0;
    for (const [k, f] of [0.2, 0.35, 0.55, 0.7, 0.9].entries()) {
      const size = sizes[k % 2];
      const delay = Math.round(f * life[k % 2]);
      const child = spawn(process.execPath, runArgs(target, size, 'webgpu'), { stdio: 'ignore' });
      const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
        child.on('exit', (code, signal) => resolve({ code, signal })),
      );
      const timer = setTimeout(() => child.kill('SIGKILL'), delay);
      const r = await exited;
      clearTimeout(timer);
      if (r.signal === 'SIGKILL') killed++;
      else expect(r.code, `run ${k} ended by itself`).toBe(0);
      const dir = folderForReading(target);
      const seen = wholeRun(dir);
      expect([current, size], `after a kill at ${delay} ms`).toContain(seen);
      expect(readdirSync(dir).sort(), `after a kill at ${delay} ms`).toEqual(expectedNames);
      current = seen;
    }
    expect(killed).toBeGreaterThanOrEqual(3);
    const last = spawnSync(process.execPath, runArgs(target, sizes[0], 'webgpu'), { encoding: 'utf8' });
    expect(last.status, last.stderr).toBe(0);
    expect(wholeRun(target)).toBe(sizes[0]);
    expect(readdirSync(parent)).toEqual(['out']);
  }, 120_000);

  it('refuses an --out holding a file a run does not write, before any work, and leaves it as it was', () => {
    const parent = tempDir('hb-gpu-foreign-');
    const target = join(parent, 'out');
    mkdirSync(target);
    writeFileSync(join(target, 'notes.txt'), 'mine');
    const r = spawnSync(process.execPath, runArgs(target, 64, 'webgpu'), { encoding: 'utf8' });
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/--out .*out: holds 1 entry a run does not write \("notes\.txt"\)/);
    expect(readdirSync(target)).toEqual(['notes.txt']);
    expect(readdirSync(parent)).toEqual(['out']);
  });
});
