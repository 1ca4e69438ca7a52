/**
 * CLI wiring of the draw list and the WebGPU backend:
 *  - `heightbench drawlist` writes the same bytes the library serialises, and a file that parses;
 *  - `heightbench run --backend webgpu` writes the CPU run's stage files, each sidecar naming the adapter (progress
 *    per stage only on a terminal, gpu-page-cli.test.ts); its final codes are the CPU's Direct3D encode of its own pre-encode field
 *    (an independent implementation of the rule, in TypeScript, against the WGSL shader);
 *  - usage and environment errors exit 2 with the reason (a missing driver names the package to install).
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cli, tempDir } from './helpers.js';
import { parseDrawList, serialiseDrawList } from '../src/drawlist/serial.js';
import { emitRequestDrawList } from '../src/cli/gpu-run.js';
import { loadRequest } from '../src/plan/request.js';
import { encodeHeightR16 } from '../src/core/encoding.js';
import { FIELD_STAGES } from '../src/pipeline/run.js';
import { readSidecarFor } from '../src/io/sidecar.js';

describe('heightbench drawlist', () => {
  it('writes the serialised draw list of the request (same bytes as the library), which parses back', async () => {
    const dir = tempDir();
    const out = join(dir, 'teaching.json');
    const r = await cli('drawlist', 'teaching-512', '--size', '128', '--out', out);
    expect(r.code, r.err).toBe(0);
    expect(r.out).toMatch(/^teaching-512 \(128²\): \d+ \+ \d+ triangles, 58 support locations, \d+ stamp draws, 58 location draws, \d+ assets; [\d.]+ MB → /);
    const text = readFileSync(out, 'utf8');
    expect(text).toBe(serialiseDrawList(emitRequestDrawList(loadRequest('teaching-512', 128)).drawList));
    const dl = parseDrawList(text, out);
    expect(dl.grid.n).toBe(128);
    expect(dl.assets.some((a) => a.embedded)).toBe(false);
  });
  it('--embed-assets carries every asset’s KTX2 bytes', async () => {
    const out = join(tempDir(), 'e.json');
    const r = await cli('drawlist', 'teaching-512', '--size', '64', '--out', out, '--embed-assets');
    expect(r.code, r.err).toBe(0);
    expect(parseDrawList(readFileSync(out, 'utf8')).assets.every((a) => a.embedded && a.embedded[0] === 0xab)).toBe(true); // KTX2 magic «KTX 20»
  });
  it('refuses an output name that is not .json', async () => {
    const r = await cli('drawlist', 'teaching-512', '--out', join(tempDir(), 'x.txt'));
    expect(r.code).toBe(2);
  });
});

describe('heightbench run --backend webgpu', () => {
  it('writes every stage file with the adapter in each sidecar, no stderr off a terminal, and final = D3D encode of pre-encode', async () => {
    const dir = tempDir();
    const r = await cli('run', 'teaching-512', '--size', '64', '--backend', 'webgpu', '--out', dir);
    expect(r.code, r.err).toBe(0);
    // Progress goes through progress.ts (a terminal only; tested in gpu-page-cli.test.ts): nothing on this stderr.
    expect(r.err).toBe('');
    for (const s of FIELD_STAGES) {
      const file = s === 'final' ? 'final.r16' : `${s}.r32`;
      expect(existsSync(join(dir, file)), file).toBe(true);
      const side = JSON.parse(readFileSync(join(dir, `${file}.json`), 'utf8'));
      expect(side.stage).toBe(s);
      expect(side.grid.columns).toBe(64);
      expect(side.producer.adapter.vendor.length, file).toBeGreaterThan(0);
      expect(Object.keys(side.producer.adapter).sort()).toEqual(['architecture', 'description', 'device', 'host', 'vendor']);
    }
    expect(existsSync(join(dir, 'final.png.json'))).toBe(true);
    // The sidecar reader keeps the adapter (and validates it).
    expect(readSidecarFor(join(dir, 'final.png'))!.producer.adapter!.host).toBe(
      JSON.parse(readFileSync(join(dir, 'final.r16.json'), 'utf8')).producer.adapter.host,
    );
    // The same file names as a CPU run (plus nothing left over from staging).
    const cpu = tempDir();
    expect((await cli('run', 'teaching-512', '--size', '64', '--out', cpu)).code).toBe(0);
    expect(readdirSync(dir).sort()).toEqual(readdirSync(cpu).sort());
    const pre = new Float32Array(new Uint8Array(readFileSync(join(dir, 'pre-encode.r32'))).buffer);
    const codes = new Uint16Array(new Uint8Array(readFileSync(join(dir, 'final.r16'))).buffer);
    const range = loadRequest('teaching-512').encoding;
    let same = 0;
    for (let k = 0; k < pre.length; k++) if (codes[k] === encodeHeightR16(pre[k], range)) same++;
    expect(same).toBe(pre.length);
    const manifest = JSON.parse(readFileSync(join(dir, 'manifest.json'), 'utf8'));
    expect(manifest.backend).toBe('webgpu');
    expect(manifest.encodeRule).toBe('d3d');
  });

  it('usage errors exit 2 with the reason', async () => {
    const out = tempDir();
    const a = await cli('run', 'teaching-512', '--size', '64', '--backend', 'webgpu', '--precision', 'f64', '--out', out);
    expect(a.code).toBe(2);
    expect(a.err).toContain('--precision f64: the webgpu backend computes in the GPU');
    const b = await cli('run', 'teaching-512', '--size', '64', '--gpu-host', 'dawn', '--out', out);
    expect(b.code).toBe(2);
    expect(b.err).toContain('--gpu-host: only with --backend webgpu');
    const c = await cli('run', 'teaching-512', '--size', '60', '--backend', 'webgpu', '--out', out);
    expect(c.code).toBe(2);
    expect(c.err).toContain('divisible by 8');
    expect(readdirSync(out)).toEqual([]);
  });

  it('a missing Vulkan driver exits 2 naming the package to install, and leaves no output', () => {
    // The host is pointed at driver files that do not exist (VK_ICD_FILENAMES names the only file the Vulkan loader
    // may read), so the test holds on a machine with other Vulkan drivers installed too.
    const out = tempDir();
    const r = spawnSync(process.execPath, ['--import', 'tsx', 'src/cli/bin.ts', 'run', 'teaching-512', '--size', '64', '--backend', 'webgpu', '--out', out], {
      env: { ...process.env, HEIGHTBENCH_VK_DIR: join(out, 'no-such-driver'), VK_ICD_FILENAMES: join(out, 'no-such-driver', 'icd.json') },
      encoding: 'utf8',
    });
    expect(r.status, r.stderr).toBe(2);
    expect(r.stderr).toMatch(/heightbench: .*chromium/);
    expect(readdirSync(out)).toEqual([]);
  });
});
