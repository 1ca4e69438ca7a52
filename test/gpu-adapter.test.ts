/**
 * Which adapter a GPU run takes: `--adapter auto|swiftshader|TEXT`.
 *  - the matching rules on lists of adapter infos such as Dawn, chromium or a desktop report them (a machine with
 *    lavapipe beside SwiftShader, a discrete GPU, a fallback flag, several matches, none);
 *  - Dawn's "Available adapters" text parsed as this machine's Dawn prints it;
 *  - the driver environment per spec: a VK_ICD_FILENAMES the caller set is kept, swiftshader loads SwiftShader only,
 *    auto adds it to the system's drivers;
 *  - the CLI against a deliberately missing driver file (VK_ICD_FILENAMES names a file that does not exist, so no
 *    installed driver can answer): exit 2, naming what was found and how to select one, no output left;
 *  - on this machine: auto and swiftshader both open SwiftShader and record the spec in the manifest.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { adapterMatches, describeCandidates, isSoftwareAdapter, parseAdapterSpec, selectAdapter, type AdapterCandidate } from '../src/gpu/adapter-select.js';
import { chromiumFlags, CHROMIUM_FLAGS } from '../src/gpu/browser-host.js';
import { driverEnv, parseDawnAdapterList, SWIFTSHADER_ICD } from '../src/gpu/dawn-host.js';
import { GpuUnavailableError } from '../src/gpu/context.js';
import { tempDir } from './helpers.js';

const swift: AdapterCandidate = { name: 'SwiftShader Device (Subzero)', backend: 'vulkan' };
const lavapipe: AdapterCandidate = { name: 'llvmpipe (LLVM 15.0.6, 256 bits)', backend: 'vulkan' };
const nvidia: AdapterCandidate = { name: 'NVIDIA GeForce RTX 4070', backend: 'vulkan' };
const intel: AdapterCandidate = { name: 'Intel(R) UHD Graphics 770 (ADL-S GT1)', backend: 'vulkan' };
const chromeSwift: AdapterCandidate = { name: 'swiftshader', vendor: 'google', architecture: 'swiftshader', fallback: true };
const chromeNvidia: AdapterCandidate = { name: 'nvidia', vendor: 'nvidia', architecture: 'lovelace', description: '' };

describe('adapter matching on lists of adapter infos', () => {
  it('auto takes the first hardware adapter, else SwiftShader — never another CPU rasterizer', () => {
    expect(selectAdapter('auto', [lavapipe, swift], '')).toBe(1);
    expect(selectAdapter('auto', [swift, lavapipe, nvidia], '')).toBe(2);
    expect(selectAdapter('auto', [intel, nvidia], '')).toBe(0);
    expect(selectAdapter('auto', [chromeSwift, chromeNvidia], '')).toBe(1);
    expect(() => selectAdapter('auto', [lavapipe], 'HINT')).toThrow(GpuUnavailableError);
  });
  it('swiftshader takes SwiftShader whatever else is installed', () => {
    expect(selectAdapter('swiftshader', [nvidia, lavapipe, swift], '')).toBe(2);
    expect(selectAdapter('swiftshader', [chromeNvidia, chromeSwift], '')).toBe(1);
    expect(() => selectAdapter('swiftshader', [nvidia, lavapipe], '')).toThrow(/no WebGPU adapter matches --adapter swiftshader/);
  });
  it('TEXT matches any name field, case-insensitively, first in the host order', () => {
    expect(selectAdapter('geforce', [intel, nvidia], '')).toBe(1);
    expect(selectAdapter('LLVMPIPE', [swift, lavapipe], '')).toBe(1);
    expect(selectAdapter('lovelace', [chromeSwift, chromeNvidia], '')).toBe(1);
    expect(selectAdapter('Graphics', [intel, { ...intel, name: 'Intel Arc Graphics' }], '')).toBe(0);
  });
  it('the error names every adapter found, marks software ones, and carries the host hint', () => {
    let msg = '';
    try {
      selectAdapter('radeon', [swift, lavapipe, nvidia], 'use VK_ICD_FILENAMES=…');
    } catch (e) {
      msg = (e as Error).message;
      expect((e as GpuUnavailableError).exitCode).toBe(2);
    }
    expect(msg).toContain('"SwiftShader Device (Subzero)" (vulkan) software');
    expect(msg).toContain('"llvmpipe (LLVM 15.0.6, 256 bits)" (vulkan) software');
    expect(msg).toContain('"NVIDIA GeForce RTX 4070" (vulkan). Select one');
    expect(msg).toContain('use VK_ICD_FILENAMES=…');
    expect(describeCandidates([])).toBe('none');
    expect(() => selectAdapter('auto', [], '')).toThrow(/found: none/);
  });
  it('software detection: fallback flag or a known CPU rasterizer name', () => {
    expect([swift, lavapipe, chromeSwift, { name: 'Microsoft Basic Render Driver' }].map(isSoftwareAdapter)).toEqual([true, true, true, true]);
    expect([nvidia, intel, chromeNvidia, { name: 'x', fallback: false }].map(isSoftwareAdapter)).toEqual([false, false, false, false]);
    expect(adapterMatches('auto', lavapipe)).toBe(false);
    expect(adapterMatches('auto', swift)).toBe(true);
  });
  it('parses specs: keywords case-folded, text kept, empty or control characters refused (exit 2)', () => {
    expect(parseAdapterSpec(' Auto ')).toBe('auto');
    expect(parseAdapterSpec('SWIFTSHADER')).toBe('swiftshader');
    expect(parseAdapterSpec('GeForce RTX')).toBe('GeForce RTX');
    for (const bad of ['', '   ', 'a\nb', 'x'.repeat(201)]) expect(() => parseAdapterSpec(bad), JSON.stringify(bad)).toThrow(/--adapter: expected/);
  });
});

describe('hosts', () => {
  it("parses Dawn's adapter list (the text this machine's Dawn prints for an unknown adapter name)", () => {
    const text =
      "no suitable backends found\nAvailable adapters:\n * backend: 'vulkan', name: 'SwiftShader Device (Subzero)'\n * backend: 'vulkan', name: 'llvmpipe (LLVM 15.0.6, 256 bits)'";
    expect(parseDawnAdapterList(text)).toEqual([swift, lavapipe]);
    expect(parseDawnAdapterList('no suitable backends found\nAvailable adapters:\n')).toEqual([]);
  });
  it('driver environment: the caller’s VK_ICD_FILENAMES wins; swiftshader loads only SwiftShader; auto adds it', () => {
    expect(driverEnv('swiftshader', { VK_ICD_FILENAMES: '/x.json' })).toEqual({});
    expect(driverEnv('auto', { VK_ICD_FILENAMES: '/x.json' })).toEqual({});
    expect(driverEnv('swiftshader', {})).toEqual({ VK_ICD_FILENAMES: SWIFTSHADER_ICD });
    expect(driverEnv('auto', {})).toEqual({ VK_ADD_DRIVER_FILES: SWIFTSHADER_ICD });
    expect(driverEnv('nvidia', { VK_ADD_DRIVER_FILES: '/y.json' })).toEqual({ VK_ADD_DRIVER_FILES: `${SWIFTSHADER_ICD}:/y.json` });
  });
  it('chromium is forced onto SwiftShader only for --adapter swiftshader', () => {
    expect(chromiumFlags('swiftshader')).toEqual(CHROMIUM_FLAGS);
    const auto = chromiumFlags('auto');
    expect(auto).not.toContain('--use-webgpu-adapter=swiftshader');
    expect(auto).not.toContain('--use-vulkan=swiftshader');
    expect(auto).toContain('--enable-unsafe-webgpu');
  });
});

describe('heightbench run --backend webgpu --adapter', () => {
  const bin = join(import.meta.dirname, '..', 'bin', 'heightbench.mjs');
  const run = (args: string[], env: Record<string, string> = {}) =>
    spawnSync(process.execPath, [bin, 'run', 'teaching-512', '--size', '64', '--backend', 'webgpu', ...args], {
      encoding: 'utf8',
      env: { ...process.env, ...env },
    });
  it('a deliberately missing driver file: exit 2 naming what was found (none) and VK_ICD_FILENAMES, no output', () => {
    const d = tempDir('hb-adapter-');
    const missing = join(d, 'no-such-driver_icd.json');
    for (const spec of ['auto', 'swiftshader', 'nvidia']) {
      const out = join(d, spec);
      const r = run(['--adapter', spec, '--out', out], { VK_ICD_FILENAMES: missing });
      expect(r.status, r.stderr).toBe(2);
      const own = r.stderr.split('\n').filter((l) => l.startsWith('heightbench: '));
      expect(own.length, r.stderr).toBe(1);
      expect(own[0]).toContain(`no WebGPU adapter matches --adapter ${spec}`);
      expect(own[0]).toContain('found: none');
      expect(own[0]).toContain(`VK_ICD_FILENAMES=${missing}`);
      expect(existsSync(out) ? readdirSync(out) : []).toEqual([]); // nothing left: no run folder, or an empty one
    }
  }, 60_000);
  it('on this machine auto and swiftshader both open SwiftShader; the manifest records the spec and the measured snapping', () => {
    const d = tempDir('hb-adapter-ok-');
    for (const spec of ['auto', 'swiftshader']) {
      const r = run(['--adapter', spec, '--stages', 'final', '--out', join(d, spec)]);
      expect(r.status, r.stderr).toBe(0);
      const m = JSON.parse(readFileSync(join(d, spec, 'manifest.json'), 'utf8'));
      expect(m.adapterSpec).toBe(spec);
      expect(m.adapter.architecture).toBe('swiftshader');
      expect(m.adapter.subpixelBits).toBe(4);
      // Measured here: SwiftShader via Dawn offers no texture-formats-tier1, so the final names the shader rule.
      expect(m.adapter.features).not.toContain('texture-formats-tier1');
      const side = JSON.parse(readFileSync(join(d, spec, 'final.r16.json'), 'utf8'));
      expect(side.notes.unorm16).toBe(
        'compute shader, rule d3d (×65535, +0.5, truncate; float32); the adapter offers no r16unorm render target (no texture-formats-tier1)',
      );
    }
  }, 120_000);
  it('--adapter is refused without --backend webgpu, and an empty one is a usage error', () => {
    const d = tempDir('hb-adapter-u-');
    const a = spawnSync(process.execPath, [bin, 'run', 'teaching-512', '--size', '64', '--adapter', 'auto', '--out', join(d, 'a')], { encoding: 'utf8' });
    expect(a.status).toBe(2);
    expect(a.stderr).toContain('--adapter: only with --backend webgpu');
    const b = run(['--adapter', ' ', '--out', join(d, 'b')]);
    expect(b.status).toBe(2);
    expect(b.stderr).toContain("expected auto, swiftshader or a part of an adapter's name");
  });
  it('--subpixel-bits-from takes the mimic snapping from a bless record; a record without it is refused (exit 2)', () => {
    const d = tempDir('hb-adapter-bits-');
    const rec = join(d, 'gpu-r.json');
    writeFileSync(rec, JSON.stringify({ adapter: { architecture: 'swiftshader', subpixelBits: 4 } }));
    const ok = spawnSync(
      process.execPath,
      [bin, 'run', 'teaching-512', '--size', '64', '--subpixel-bits-from', rec, '--stages', 'raster', '--out', join(d, 'a')],
      {
        encoding: 'utf8',
      },
    );
    expect(ok.status, ok.stderr).toBe(0);
    expect(JSON.parse(readFileSync(join(d, 'a', 'raster.r32.json'), 'utf8')).notes.subpixelBits).toBe(4);
    writeFileSync(rec, JSON.stringify({ adapter: { architecture: 'swiftshader' } }));
    const bad = spawnSync(process.execPath, [bin, 'run', 'teaching-512', '--size', '64', '--subpixel-bits-from', rec, '--out', join(d, 'b')], {
      encoding: 'utf8',
    });
    expect(bad.status).toBe(2);
    expect(bad.stderr).toContain('has no adapter.subpixelBits integer 0…8');
  });
});
