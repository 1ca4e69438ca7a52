import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { codeHeightfield, domainGrid, readHeightfieldFile, writeHeightfieldFile } from '../src/index.js';
import { encodeR16 } from '../src/api/formats.js';
import { cli, tempDir, testRandom } from './helpers.js';

const d = tempDir('hb-cli-');
const rnd = testRandom(21);
const q = Uint16Array.from({ length: 64 * 64 }, () => Math.floor(rnd() * 65536));
const raw = join(d, 'plain.r16');
writeFileSync(raw, encodeR16(q));

describe('heightbench info', () => {
  it('describes a raw file without sidecar using the stated defaults', async () => {
    const r = await cli('info', raw, '--json');
    expect(r.code).toBe(0);
    const j = JSON.parse(r.out);
    expect(j).toMatchObject({ format: 'r16', width: 64, height: 64, bitDepth: 16, endian: 'le', nan: 0, sidecar: null });
    expect(j.minCode).toBe(Math.min(...q));
    expect(j.maxCode).toBe(Math.max(...q));
    expect(j.minMetres).toBeCloseTo((Math.min(...q) * 1000) / 65535 - 500, 9);
  });
  it('prints a readable summary', async () => {
    const r = await cli('info', raw);
    expect(r.out).toMatch(/format +r16, 16-bit, little-endian/);
    expect(r.out).toMatch(/sidecar +none/);
  });
  it('refuses a raw size that does not fit with exit 2 and the arithmetic on one line', async () => {
    const r = await cli('info', raw, '--size', '100x100');
    expect(r.code).toBe(2);
    expect(r.err).toBe(`heightbench: ${raw}: 8192 bytes do not fit 100×100 samples: 100 × 100 × 2 bytes = 20000 bytes\n`);
  });
  it('refuses a missing file and an unknown extension with exit 2', async () => {
    expect((await cli('info', join(d, 'nope.r16'))).err).toMatch(/nope.r16: no such file/);
    const r = await cli('info', join(d, 'map.jp2'));
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/unknown extension "\.jp2", expected \.r16, \.png, \.r32, \.dds, \.exr, \.tif\/\.tiff or \.npy/);
  });
  it('refuses bad usage with exit 2', async () => {
    expect((await cli('info')).code).toBe(2);
    expect((await cli('convert', raw, join(d, 'x.r16'), '--endian', 'middle')).code).toBe(2);
    const r = await cli('convert', raw, join(d, 'x.r16'), '--range', '5,1');
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/expected MAX > MIN, got "5,1"/);
  });
});

describe('heightbench convert', () => {
  it('r16 → png → big-endian r16 keeps every code', async () => {
    const png = join(d, 'a.png');
    const be = join(d, 'a-be.r16');
    expect((await cli('convert', raw, png)).code).toBe(0);
    expect((await cli('convert', png, be, '--endian', 'be')).code).toBe(0);
    const back = readHeightfieldFile(be);
    expect(back.endian).toBe('be');
    expect(back.field.kind === 'codes' && Array.from(back.field.code_px)).toEqual(Array.from(q));
    // The raw bytes really are big-endian.
    const bytes = readFileSync(be);
    expect((bytes[0] << 8) | bytes[1]).toBe(q[0]);
  });
  it('a raw input described by --endian be and --size is read that way', async () => {
    const beRaw = join(d, 'nosidecar-be.r16');
    writeFileSync(beRaw, encodeR16(q.subarray(0, 32 * 16), 'be'));
    const out = join(d, 'from-be.png');
    expect((await cli('convert', beRaw, out, '--endian', 'be', '--size', '32x16')).code).toBe(0);
    const back = readHeightfieldFile(out);
    expect(back.field.kind === 'codes' && Array.from(back.field.code_px)).toEqual(Array.from(q.subarray(0, 32 * 16)));
  });
  it('--grid vertex gives N + 1 samples through world coordinates; --range re-encodes', async () => {
    const src = join(d, 'g.r16');
    writeHeightfieldFile(src, codeHeightfield(domainGrid(64), q));
    const out = join(d, 'g-vertex.r16');
    const r = await cli('convert', src, out, '--grid', 'vertex', '--range', '-1000,1000');
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/resampled from 64x64 texel-centre/);
    const v = readHeightfieldFile(out);
    expect(v.field.grid).toMatchObject({ columns: 65, rows: 65, convention: 'vertex' });
    expect(v.field.kind === 'codes' && v.field.range).toEqual({ min: -1000, max: 1000 });
  });
  it('refuses a --size that contradicts the sidecar, naming both', async () => {
    const src = join(d, 's.r16');
    writeHeightfieldFile(src, codeHeightfield(domainGrid(64), q));
    const r = await cli('convert', src, join(d, 's2.r16'), '--size', '32x128');
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/--size 32x128 contradicts the sidecar's 64x64/);
    expect(existsSync(join(d, 's2.r16'))).toBe(false);
  });
});

describe('the built executable', () => {
  const bin = join(import.meta.dirname, '..', 'bin', 'heightbench.mjs');
  const built = existsSync(join(import.meta.dirname, '..', 'dist', 'cli', 'bin.js'));
  it.runIf(built)('exits 0 with output, and 2 with a one-line reason on bad input', () => {
    const ok = execFileSync(process.execPath, [bin, 'info', raw]).toString();
    expect(ok).toMatch(/size +64 x 64/);
    const bad = spawnSync(process.execPath, [bin, 'info', join(d, 'missing.png')]);
    expect(bad.status).toBe(2);
    expect(bad.stderr.toString()).toMatch(/^heightbench: .*missing.png: no such file\n$/);
  });
});

describe('producer version', () => {
  it('sidecars carry the package version', async () => {
    const { PRODUCER_VERSION } = await import('../src/index.js');
    const pkg = JSON.parse(readFileSync(join(import.meta.dirname, '..', 'package.json'), 'utf8'));
    expect(PRODUCER_VERSION).toBe(pkg.version);
  });
});
