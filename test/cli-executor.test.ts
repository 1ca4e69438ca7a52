/**
 * `heightbench run --executor simd|js-f32|f64`: the caller names the executor; combinations that
 * cannot run are refused with the reason. Consistency checks (the executors against each other), not an independent
 * reference: simd and js-f32 must write the same bytes (the kernels' bit-identity contract); f64 must not.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cli, tempDir } from './helpers.js';

const d = tempDir('hb-exec-');
const run = (out: string, ...extra: string[]) =>
  cli('run', 'tundra-r19', '--size', '64', '--stages', 'pre-encode,final', '--out', join(d, out), '--json', '--quiet', ...extra);
const bytes = (out: string, f: string) => readFileSync(join(d, out, f));

describe('run --executor', () => {
  it('runs the named executor: simd and js-f32 write the same bytes, f64 different pre-encode heights', async () => {
    const runs: Record<string, unknown> = {};
    for (const e of ['simd', 'js-f32', 'f64']) {
      const r = await run(e, '--executor', e);
      expect(r.code, r.err).toBe(0);
      runs[e] = JSON.parse(r.out).executor;
    }
    // The run reports the executor that ran, which is the one named.
    expect(runs).toEqual({ simd: 'simd', 'js-f32': 'js-f32', f64: 'f64' });
    for (const f of ['pre-encode.r32', 'final.r16']) expect(bytes('simd', f).equals(bytes('js-f32', f)), f).toBe(true);
    expect(bytes('f64', 'pre-encode.r32').equals(bytes('js-f32', 'pre-encode.r32'))).toBe(false);
  });

  it('refuses combinations that cannot run, naming the reason', async () => {
    const mixed = await run('mixed', '--executor', 'f64', '--precision', 'f32');
    expect(mixed.code).toBe(2);
    expect(mixed.err).toMatch(/--executor f64 computes in f64, but --precision f32/);
    const gpu = await run('gpu', '--executor', 'simd', '--backend', 'webgpu');
    expect(gpu.code).toBe(2);
    expect(gpu.err).toMatch(/--executor simd: only with --backend cpu/);
    // 48 is not a multiple of 32: the SIMD kernels cannot tile it; js-f32 runs it.
    const odd = await cli('run', 'tundra-r19', '--size', '48', '--stages', 'final', '--out', join(d, 'odd'), '--quiet', '--executor', 'simd');
    expect(odd.code).toBe(2);
    expect(odd.err).toMatch(/executor simd: .*48² field.*multiple of 32/);
    const ok = await cli('run', 'tundra-r19', '--size', '48', '--stages', 'final', '--out', join(d, 'odd'), '--quiet', '--executor', 'js-f32');
    expect(ok.code, ok.err).toBe(0);
  });
});
