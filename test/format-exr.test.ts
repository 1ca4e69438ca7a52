/**
 * OpenEXR decoder (src/io/formats/exr.ts) against files the official OpenEXR 3.5 Python bindings (and OpenImageIO,
 * for a MIP-mapped file) wrote: test/peers/exr_write.py. Every decoded sample must equal the written one bit for bit
 * (HALF compared with numpy's float16 → float32 widening); bad input must be refused with a FormatError or LimitError
 * naming what is wrong.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { FormatError, InputError, LimitError } from '../src/errors.js';
import { inflateSync } from 'node:zlib';
import { decodeExr, decodeExrBlocks, inflateOnKernel, looksLikeExr, readExrHeader } from '../src/io/formats/exr.js';
import { fileSource } from '../src/io/byte-source.js';
import { PizDecoder, type PizChannel } from '../src/io/formats/exr-piz.js';
import { tempDir, testRandom } from './helpers.js';

interface ManifestEntry {
  file: string;
  layout: 'scanline' | 'tiled';
  ptype: 'half' | 'float' | 'mixed';
  compression: string;
  width: number;
  height: number;
  lineOrder: string;
  channels: Record<string, string>;
  uint?: string[];
  wide?: boolean;
  incompressible?: boolean;
  levels?: number | string;
}

const python = join(process.cwd(), '.venv', 'bin', 'python');
const peer = join(process.cwd(), 'test', 'peers', 'exr_write.py');
const dir = tempDir('hb-exr-');
const limits = { pixelLimit: 1 << 28 };
let manifest: ManifestEntry[] = [];

const file = (name: string): Uint8Array => new Uint8Array(readFileSync(join(dir, name)));
const expectedBits = (name: string): Uint32Array => {
  const b = readFileSync(join(dir, name));
  return new Uint32Array(b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength));
};

beforeAll(() => {
  // The project's setup installs the peers: a missing one is a setup bug, reported loudly.
  if (!existsSync(python)) throw new Error(`Python peer missing: ${python} (the OpenEXR bindings live in the project venv)`);
  const r = spawnSync(python, [peer, dir], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`${peer} failed (${r.status}): ${r.stderr}`);
  manifest = (JSON.parse(readFileSync(join(dir, 'manifest.json'), 'utf8')) as { files: ManifestEntry[] }).files;
}, 120_000);

/** Chunk sizes straight from the offset table (an independent little parser): stored size vs. raw size. */
function chunkStats(bytes: Uint8Array, tiled: boolean, count: number): number[] {
  const dv = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const h = readExrHeader(bytes, 'stats');
  const sizes: number[] = [];
  for (let i = 0; i < count; i++) {
    const off = Number(dv.getBigUint64(h.offsetTableStart + 8 * i, true));
    sizes.push(dv.getInt32(off + (tiled ? 16 : 4), true));
  }
  return sizes;
}

function firstMismatch(got: Uint32Array, want: Uint32Array): string {
  for (let i = 0; i < want.length; i++) {
    if (got[i] !== want[i]) return `sample ${i}: got 0x${got[i].toString(16)}, want 0x${want[i].toString(16)}`;
  }
  return 'none';
}

describe('OpenEXR decode: every value the OpenEXR bindings wrote, bit for bit', () => {
  it('covers {scanline, tiled} × {HALF, FLOAT} × {NONE, RLE, ZIPS, ZIP, PIZ}', () => {
    const combos = new Set(
      manifest
        .filter((m) => m.ptype !== 'mixed' && !m.wide && !m.incompressible && m.levels === undefined)
        .map((m) => `${m.layout}-${m.ptype}-${m.compression}`),
    );
    expect(combos.size).toBe(20);
  });

  it('refuses a mip level or array slice other than 0 (one part is read at full resolution), and reads level 0', () => {
    const m = manifest[0];
    const bytes = file(m.file);
    expect(() => decodeExr(bytes, m.file, { level: 2 }, limits)).toThrow(/offers no level 2/);
    expect(() => decodeExr(bytes, m.file, { slice: 1 }, limits)).toThrow(/offers no slice 1/);
    expect(decodeExr(bytes, m.file, { level: 0, slice: 0 }, limits).width).toBe(m.width);
  });

  it('decodes every channel of every file exactly', () => {
    let checked = 0;
    for (const m of manifest) {
      const bytes = file(m.file);
      for (const [channel, expect_] of Object.entries(m.channels)) {
        const r = decodeExr(bytes, m.file, { channel }, limits);
        expect(r.container).toBe('exr');
        expect([r.width, r.height], m.file).toEqual([m.width, m.height]);
        expect(r.values).toBeInstanceOf(Float32Array);
        const want = expectedBits(expect_);
        const got = new Uint32Array(r.values.buffer, r.values.byteOffset, r.values.length);
        expect(got.length).toBe(want.length);
        expect(firstMismatch(got, want), `${m.file} channel ${channel}`).toBe('none');
        checked++;
      }
    }
    expect(checked).toBeGreaterThan(100);
  });

  it('reports sample type, compression, channel, data and display window and line order', () => {
    const r = decodeExr(file('scanline-half-zip.exr'), 'a.exr', {}, limits);
    expect(r.sampleType).toBe('float16');
    expect(r.description).toBe(
      'OpenEXR scanline, ZIP, channel Y (HALF) from channels B, G, R, Y, data window (-7,13)-(243,209), display window (0,0)-(299,199), lineOrder INCREASING_Y',
    );
    const t = decodeExr(file('tiled-float-piz.exr'), 't.exr', { channel: 'G' }, limits);
    expect(t.sampleType).toBe('float32');
    expect(t.description).toBe(
      'OpenEXR tiled 96x48 ONE_LEVEL, PIZ, channel G (FLOAT) from channels B, G, R, Y, data window (-7,13)-(243,209), display window (0,0)-(299,199), lineOrder RANDOM_Y',
    );
    const d = decodeExr(file('scanline-float-rle.exr'), 'd.exr', {}, limits);
    expect(d.description).toContain('lineOrder DECREASING_Y');
    expect([r.unorm16, r.georeference, r.nodata]).toEqual([false, null, null]);
  });

  it('reads level 0 of a MIPMAP_LEVELS file and says so', () => {
    const m = manifest.find((e) => e.file === 'mip-float-zip.exr');
    expect(m?.levels).toBe(8);
    const r = decodeExr(file('mip-float-zip.exr'), 'mip.exr', {}, limits);
    expect(r.description).toContain('tiled 32x16 MIPMAP_LEVELS (8 levels, ROUND_DOWN; level 0 read)');
  });

  it('reads level 0 of a RIPMAP_LEVELS file and says so', () => {
    const r = decodeExr(file('rip-half-piz.exr'), 'rip.exr', { channel: 'G' }, limits);
    expect(r.description).toContain('tiled 64x32 RIPMAP_LEVELS (9x9 levels, ROUND_UP; level 0 read), PIZ, channel G (HALF)');
    expect(firstMismatch(new Uint32Array(r.values.buffer), expectedBits('expect-half-G.u32'))).toBe('none');
  });

  it('exercises compressed blocks and blocks stored raw (incompressible data)', () => {
    for (const m of manifest) {
      if (m.levels !== undefined || m.compression === 'NONE') continue;
      const h = readExrHeader(file(m.file), m.file);
      const bpp = h.channels.reduce((s, c) => s + (c.pixelType === 1 ? 2 : 4), 0);
      let raw: number[];
      if (h.tiles) {
        const nx = Math.ceil(m.width / h.tiles.xSize);
        const ny = Math.ceil(m.height / h.tiles.ySize);
        raw = [];
        for (let ty = 0; ty < ny; ty++) {
          for (let tx = 0; tx < nx; tx++) {
            raw.push(Math.min(h.tiles.xSize, m.width - tx * h.tiles.xSize) * Math.min(h.tiles.ySize, m.height - ty * h.tiles.ySize) * bpp);
          }
        }
      } else {
        const lines = { RLE: 1, ZIPS: 1, ZIP: 16, PIZ: 32 }[m.compression] ?? 1;
        raw = Array.from({ length: Math.ceil(m.height / lines) }, (_, i) => Math.min(lines, m.height - i * lines) * m.width * bpp);
      }
      const sizes = chunkStats(file(m.file), h.tiled, raw.length);
      const compressed = sizes.filter((s) => !raw.includes(s)).length;
      // Compare chunk by chunk is order-dependent; a raw-stored chunk has exactly one of the raw sizes.
      if (m.incompressible) expect(compressed, m.file).toBe(0);
      else expect(compressed, m.file).toBeGreaterThan(0);
      if (m.wide) expect(compressed, m.file).toBe(sizes.length);
    }
  });

  it("DECREASING_Y files really store the bottom block first (placement by each chunk's own y)", () => {
    const b = file('scanline-float-zip.exr');
    const h = readExrHeader(b, 'd');
    expect(h.lineOrder).toBe('DECREASING_Y');
    const dv = new DataView(b.buffer, b.byteOffset);
    const offsets = Array.from({ length: 13 }, (_, i) => Number(dv.getBigUint64(h.offsetTableStart + 8 * i, true)));
    const firstInFile = Math.min(...offsets);
    expect(dv.getInt32(firstInFile, true)).toBe(13 + 192);
  });

  it('wide PIZ blocks hold more than 2^14 distinct 16-bit words (the 16-bit wavelet path)', () => {
    for (const ptype of ['half', 'float']) {
      const bits = expectedBits(`expect-wide-${ptype}.u32`);
      const w = 2011;
      const words = new Set<number>();
      for (let i = 0; i < 32 * w; i++) {
        if (ptype === 'half') {
          // float32 bits back to the half's 16-bit word (exact for every widened half, NaN payloads too).
          const f = bits[i];
          const sign = (f >>> 16) & 0x8000;
          const exp = (f >>> 23) & 0xff;
          const mant = f & 0x7fffff;
          if (exp === 0xff) words.add(sign | 0x7c00 | (mant >>> 13));
          else if (exp === 0) words.add(sign);
          else if (exp < 113) words.add(sign | ((mant | 0x800000) >>> (126 - exp)));
          else words.add(sign | ((exp - 112) << 10) | (mant >>> 13));
        } else {
          words.add(bits[i] & 0xffff).add(bits[i] >>> 16);
        }
      }
      expect(words.size, ptype).toBeGreaterThan(1 << 14);
    }
  });

  it('picks Y by default, else R, and any channel asked for', () => {
    const y = decodeExr(file('scanline-float-zip.exr'), 'f', {}, limits);
    const yBits = new Uint32Array(y.values.buffer);
    expect(firstMismatch(yBits, expectedBits('expect-float-Y.u32'))).toBe('none');
    const r = decodeExr(file('rgb.exr'), 'rgb.exr', {}, limits);
    expect(r.description).toContain('channel R (FLOAT) from channels B, G, R');
    expect(firstMismatch(new Uint32Array(r.values.buffer), expectedBits('expect-float-R.u32'))).toBe('none');
  });

  it('gives the same bytes for the same input', () => {
    const a = decodeExr(file('tiled-half-piz.exr'), 'a', { channel: 'B' }, limits);
    const b = decodeExr(file('tiled-half-piz.exr'), 'b', { channel: 'B' }, limits);
    expect(Buffer.from(a.values.buffer).equals(Buffer.from(b.values.buffer))).toBe(true);
  });

  it('readExrHeader describes the file for `info`', () => {
    const h = readExrHeader(file('tiled-float-zips.exr'), 'h.exr');
    expect(h.tiled).toBe(true);
    expect(h.compressionName).toBe('ZIPS');
    expect(h.channels.map((c) => `${c.name}:${c.pixelTypeName}`)).toEqual(['B:FLOAT', 'G:FLOAT', 'R:FLOAT', 'Y:FLOAT']);
    expect(h.dataWindow).toEqual({ xMin: -7, yMin: 13, xMax: 243, yMax: 209 });
    expect(h.displayWindow).toEqual({ xMin: 0, yMin: 0, xMax: 299, yMax: 199 });
    expect(h.tiles).toEqual({ xSize: 96, ySize: 48, levelMode: 'ONE_LEVEL', roundingMode: 'ROUND_DOWN' });
    expect(h.lineOrder).toBe('RANDOM_Y');
    expect(h.attributes).toContain('channels (chlist)');
  });
});

/** Decoding must fail with an input error whose message matches; returns the error for further checks. */
function refuse(bytes: Uint8Array, sel: { channel?: string }, pattern: RegExp, pixelLimit = limits.pixelLimit): InputError {
  let caught: unknown = null;
  try {
    decodeExr(bytes, 'bad.exr', sel, { pixelLimit });
  } catch (e) {
    caught = e;
  }
  expect(caught).toBeInstanceOf(InputError);
  expect((caught as Error).message).toMatch(pattern);
  return caught as InputError;
}

/** Byte offset of an attribute's value, found by its name and type. */
function attributeValue(bytes: Uint8Array, name: string, type: string): number {
  const key = Buffer.from(`${name}\0${type}\0`, 'latin1');
  const at = Buffer.from(bytes).indexOf(key);
  expect(at).toBeGreaterThan(0);
  return at + key.length + 4;
}

describe('OpenEXR refusals', () => {
  it('refuses compressions it does not read, naming them', () => {
    refuse(file('pxr24.exr'), {}, /compression PXR24: not supported/);
    refuse(file('b44.exr'), {}, /compression B44: not supported/);
    refuse(file('dwaa.exr'), {}, /compression DWAA: not supported/);
  });

  it('refuses multi-part, deep, sub-sampled and UINT data with the reason', () => {
    refuse(file('multipart.exr'), {}, /multi-part file: not supported/);
    const deep = file('scanline-half-none.exr').slice();
    deep[5] |= 0x08; // the non-image (deep) flag, bit 11 of the version field
    refuse(deep, {}, /deep data file: not supported/);
    refuse(file('subsampled.exr'), {}, /channel "C" is sub-sampled \(2x2\)/);
    refuse(file('uint-y.exr'), {}, /channel "Y" is UINT: not supported/);
    refuse(file('mixed-zip.exr'), { channel: 'B' }, /channel "B" is UINT/);
  });

  it('refuses a missing channel naming the channels present', () => {
    refuse(file('scanline-half-zip.exr'), { channel: 'Z' }, /no channel "Z"; channels present: B, G, R, Y/);
    refuse(file('noyr.exr'), {}, /neither channel "Y" nor "R".*channels present: Z, depth/);
  });

  it('refuses a bad magic number and version', () => {
    const b = file('scanline-half-zip.exr').slice();
    b[0] = 0x89;
    refuse(b, {}, /not an OpenEXR file \(magic number \d+, expected 20000630\)/);
    const v = file('scanline-half-zip.exr').slice();
    v[4] = 3;
    refuse(v, {}, /OpenEXR version 3, expected 2/);
    refuse(new Uint8Array(3), {}, /magic number and version needs 8 bytes at offset 0, the file has 3 bytes/);
  });

  it('refuses a huge data window before allocating (LimitError)', () => {
    const b = file('scanline-half-zip.exr').slice();
    const at = attributeValue(b, 'dataWindow', 'box2i');
    const dv = new DataView(b.buffer);
    dv.setInt32(at + 8, 2_000_000, true);
    dv.setInt32(at + 12, 2_000_000, true);
    const e = refuse(b, {}, /data window \(-7,13\)-\(2000000,2000000\)/);
    expect(e).toBeInstanceOf(LimitError);
    const small = refuse(file('scanline-half-zip.exr'), {}, /251x197 = 49447 samples, over the limit of 1000/, 1000);
    expect(small).toBeInstanceOf(LimitError);
  });

  it('refuses truncated files at several points, naming expected and actual sizes', () => {
    for (const name of ['scanline-float-zip.exr', 'tiled-half-piz.exr', 'scanline-half-rle.exr', 'tiled-float-none.exr']) {
      const b = file(name);
      const h = readExrHeader(b, name);
      const cuts = [4, 40, h.offsetTableStart - 1, h.offsetTableStart + 5, Math.floor(b.length / 2), b.length - 1];
      for (const n of cuts) {
        const e = refuse(b.subarray(0, n), {}, /OpenEXR/);
        expect(e, `${name} cut at ${n}`).toBeInstanceOf(FormatError);
        expect(e.message, `${name} cut at ${n}`).toMatch(/\d+ bytes/);
      }
      refuse(b.subarray(0, b.length - 1), {}, /declares \d+ bytes, \d+ bytes remain in the file|points at byte \d+, expected within/);
    }
  });

  it('refuses an offset table entry outside the file and a chunk placed twice', () => {
    const b = file('scanline-half-zip.exr').slice();
    const h = readExrHeader(b, 'x');
    const dv = new DataView(b.buffer);
    dv.setBigUint64(h.offsetTableStart + 8, BigInt(b.length + 100), true);
    refuse(b, {}, /offset table entry 1 points at byte \d+, expected within/);
    const twice = file('scanline-half-zip.exr').slice();
    const dv2 = new DataView(twice.buffer);
    dv2.setBigUint64(h.offsetTableStart + 8, dv2.getBigUint64(h.offsetTableStart, true), true);
    refuse(twice, {}, /appears twice/);
  });

  it('refuses corrupt PIZ and zlib block headers, naming the value and the bound', () => {
    const piz = file('scanline-half-piz.exr');
    const h = readExrHeader(piz, 'p');
    const dv = new DataView(piz.buffer, piz.byteOffset);
    const data = Number(dv.getBigUint64(h.offsetTableStart, true)) + 8;
    const bitmap = piz.slice();
    new DataView(bitmap.buffer).setUint16(data + 2, 9000, true);
    refuse(bitmap, {}, /PIZ bitmap ends at byte 9000, expected < 8192/);
    const lengthAt = data + 4 + (dv.getUint16(data + 2, true) - dv.getUint16(data, true) + 1);
    const huf = piz.slice();
    new DataView(huf.buffer).setUint32(lengthAt, 0x7fffffff, true);
    refuse(huf, {}, /PIZ Huffman data of 2147483647 bytes, only \d+ present/);
    const range = piz.slice();
    new DataView(range.buffer).setUint32(lengthAt + 4, 70000, true);
    refuse(range, {}, /PIZ Huffman symbol range 70000\.\.\d+, expected within 0\.\.65536/);

    const zip = file('scanline-float-zip.exr');
    const hz = readExrHeader(zip, 'z');
    const zdata = Number(new DataView(zip.buffer, zip.byteOffset).getBigUint64(hz.offsetTableStart, true)) + 8;
    const z = zip.slice();
    z[zdata] = 0x00; // not a zlib header
    refuse(z, {}, /scanline chunk y=\d+ at byte \d+: zlib data does not inflate to \d+ bytes/);
  });

  it('sniffs the magic number', () => {
    expect(looksLikeExr(file('tiled-half-zip.exr'))).toBe(true);
    expect(looksLikeExr(new Uint8Array([0x89, 0x50, 0x4e, 0x47]))).toBe(false);
    expect(looksLikeExr(new Uint8Array([0x76, 0x2f]))).toBe(false);
  });

  it('corrupted chunk data decodes or fails with a FormatError, never anything else', () => {
    const rnd = testRandom(99);
    for (const name of ['scanline-half-piz.exr', 'tiled-float-piz.exr', 'wide-scanline-float-piz.exr', 'scanline-float-zip.exr', 'tiled-half-rle.exr']) {
      const clean = file(name);
      const h = readExrHeader(clean, name);
      let refused = 0;
      for (let k = 0; k < 60; k++) {
        const b = clean.slice();
        const start = h.offsetTableStart + 200;
        for (let j = 0; j < 1 + (k % 4); j++) b[start + Math.floor(rnd() * (b.length - start))] = Math.floor(rnd() * 256);
        try {
          decodeExr(b, name, {}, limits);
        } catch (e) {
          if (!(e instanceof FormatError)) throw e;
          refused++;
        }
      }
      expect(refused, name).toBeGreaterThan(0);
    }
  });
});

describe('ZIP/RLE predictor kernel', () => {
  it('equals the byte loop on blocks of every length class (empty, odd, around 16 and 32 bytes, large)', async () => {
    const { unpredict, unpredictInterleave } = await import('../src/io/formats/exr.js');
    const rnd = testRandom(0xe7);
    for (const n of [0, 1, 2, 3, 15, 16, 17, 31, 32, 33, 47, 64, 1001, 65536, 262144 + 7, 1 << 20]) {
      const t = Uint8Array.from({ length: n }, () => Math.floor(rnd() * 256));
      const a = new Uint8Array(n);
      const b = new Uint8Array(n);
      unpredict(t.slice(), a, n);
      unpredictInterleave(t.slice(), b, n);
      expect(Buffer.from(a).equals(Buffer.from(b)), `n = ${n}`).toBe(true);
    }
  });
});

describe('EXR block kernel (inflate, RLE, predictor, placement)', () => {
  const blockFiles = (): ManifestEntry[] => manifest.filter((m) => ['NONE', 'RLE', 'ZIPS', 'ZIP', 'PIZ'].includes(m.compression));

  /** Every compressed zlib block of a level-0 ZIPS/ZIP file, with its raw size. */
  const zlibBlocks = (m: ManifestEntry): { bytes: Uint8Array; raw: number }[] => {
    const b = file(m.file);
    const h = readExrHeader(b, m.file);
    const dv = new DataView(b.buffer, b.byteOffset);
    const bpp = h.channels.reduce((a, c) => a + (c.pixelType === 1 ? 2 : 4), 0);
    const lines = m.compression === 'ZIP' ? 16 : 1;
    const count = h.tiles ? Math.ceil(m.width / h.tiles.xSize) * Math.ceil(m.height / h.tiles.ySize) : Math.ceil(m.height / lines);
    const out: { bytes: Uint8Array; raw: number }[] = [];
    for (let i = 0; i < count; i++) {
      const off = Number(dv.getBigUint64(h.offsetTableStart + 8 * i, true));
      let bw = m.width;
      let bh: number;
      if (h.tiles) {
        const tx = dv.getInt32(off, true);
        const ty = dv.getInt32(off + 4, true);
        bw = Math.min(h.tiles.xSize, m.width - tx * h.tiles.xSize);
        bh = Math.min(h.tiles.ySize, m.height - ty * h.tiles.ySize);
      } else {
        bh = Math.min(lines, m.height - (dv.getInt32(off, true) - h.dataWindow.yMin));
      }
      const head = h.tiled ? 20 : 8;
      const size = dv.getInt32(off + head - 4, true);
      const raw = bw * bh * bpp;
      if (size < raw) out.push({ bytes: b.subarray(off + head, off + head + size), raw });
    }
    return out;
  };

  /** Both paths on the same input: equal samples and description, or the same FormatError. */
  const bothPaths = (input: Uint8Array, kernelInput: Uint8Array | ReturnType<typeof fileSource>, name: string, channel?: string): 'equal' | 'refused' => {
    const run = (useKernel: boolean): ReturnType<typeof decodeExr> | Error => {
      try {
        return decodeExrBlocks(useKernel ? kernelInput : input, name, channel === undefined ? {} : { channel }, limits, useKernel);
      } catch (e) {
        return e as Error;
      }
    };
    const js = run(false);
    const k = run(true);
    if (js instanceof Error) {
      expect(js, name).toBeInstanceOf(FormatError);
      expect(k, name).toBeInstanceOf(FormatError);
      expect((k as Error).message).toBe(js.message);
      return 'refused';
    }
    expect(k, name).not.toBeInstanceOf(Error);
    const kr = k as ReturnType<typeof decodeExr>;
    expect(kr.description).toBe(js.description);
    expect(firstMismatch(new Uint32Array(kr.values.buffer), new Uint32Array(js.values.buffer)), `${name} ${channel ?? ''}`).toBe('none');
    return 'equal';
  };

  it('decodes every channel of every NONE, RLE, ZIPS, ZIP and PIZ file as the JavaScript path does, from memory and from the file', () => {
    const files = blockFiles();
    const combos = new Set(files.filter((m) => m.ptype !== 'mixed').map((m) => `${m.layout}-${m.ptype}-${m.compression}`));
    expect(combos.size).toBe(20);
    let checked = 0;
    for (const m of files) {
      const bytes = file(m.file);
      for (const channel of Object.keys(m.channels)) {
        expect(bothPaths(bytes, bytes, m.file, channel)).toBe('equal');
        const src = fileSource(join(dir, m.file));
        try {
          expect(bothPaths(bytes, src, m.file, channel)).toBe('equal');
        } finally {
          src.close();
        }
        checked++;
      }
    }
    expect(checked).toBeGreaterThan(50);
  });

  it('decodes 16400-wide blocks (PIZ ones larger than the read window, read on their own) as written', () => {
    const big = join(dir, 'big');
    const script = `
import numpy as np, OpenEXR
rng = np.random.default_rng(1)
a = (np.sin(np.arange(16400)[None, :] / 50.0) * np.cos(np.arange(40)[:, None] / 7.0) * 300 + rng.standard_normal((40, 16400))).astype(np.float32)
a.tofile("${big}-expect.f32")
for name, c in (("zip", OpenEXR.ZIP_COMPRESSION), ("rle", OpenEXR.RLE_COMPRESSION), ("piz", OpenEXR.PIZ_COMPRESSION)):
    OpenEXR.File({"compression": c, "type": OpenEXR.scanlineimage}, {"Y": a}).write("${big}-" + name + ".exr")
`;
    const r = spawnSync(python, ['-c', script], { encoding: 'utf8' });
    expect(r.status, r.stderr).toBe(0);
    const want = new Uint32Array(new Uint8Array(readFileSync(`${big}-expect.f32`)).buffer);
    for (const name of ['zip', 'rle', 'piz']) {
      const path = `${big}-${name}.exr`;
      const bytes = new Uint8Array(readFileSync(path));
      const src = fileSource(path);
      try {
        expect(bothPaths(bytes, src, name)).toBe('equal');
      } finally {
        src.close();
      }
      const got = decodeExr(bytes, name, {}, limits).values;
      expect(firstMismatch(new Uint32Array(got.buffer), want), name).toBe('none');
    }
  });

  it("inflates every zlib block of the OpenEXR-written files itself, to zlib's bytes", () => {
    let blocks = 0;
    for (const m of manifest.filter((e) => e.compression === 'ZIPS' || e.compression === 'ZIP')) {
      for (const { bytes, raw } of zlibBlocks(m)) {
        const want = inflateSync(bytes);
        expect(want.length).toBe(raw);
        const got = inflateOnKernel(bytes, raw);
        if (process.env.HEIGHTBENCH_NO_WASM === '1') {
          expect(got).toBeNull();
          continue;
        }
        expect(got, m.file).not.toBeNull();
        expect(Buffer.from(got as Uint8Array).equals(want), m.file).toBe(true);
        blocks++;
      }
    }
    if (process.env.HEIGHTBENCH_NO_WASM !== '1') expect(blocks).toBeGreaterThan(300);
  });

  it("never takes a corrupted zlib block that zlib refuses, and gives zlib's bytes where it takes one", () => {
    const rnd = testRandom(0x21b);
    const sources = manifest.filter((e) => (e.compression === 'ZIPS' || e.compression === 'ZIP') && !e.incompressible).map(zlibBlocks);
    const tally = { taken: 0, left: 0 };
    for (let k = 0; k < 600; k++) {
      const blocks = sources[k % sources.length];
      const { bytes, raw } = blocks[Math.floor(rnd() * blocks.length)];
      let input: Uint8Array;
      if (k % 4 === 0) {
        // Bytes after the end of the stream, which zlib leaves unread.
        input = new Uint8Array(bytes.length + 1 + (k % 13));
        input.set(bytes);
        for (let j = bytes.length; j < input.length; j++) input[j] = Math.floor(rnd() * 256);
      } else {
        const b = bytes.slice();
        // Mostly the block header and code tables, where a change reaches the most checks; sometimes a cut.
        const span = k % 3 === 0 ? b.length : Math.min(b.length, 80);
        for (let j = 0; j < 1 + (k % 3); j++) b[Math.floor(rnd() * span)] ^= 1 << Math.floor(rnd() * 8);
        input = k % 7 === 0 ? b.subarray(0, Math.floor(rnd() * b.length)) : b;
      }
      let want: Buffer | null;
      try {
        want = inflateSync(input, { maxOutputLength: raw });
        if (want.length !== raw) want = null;
      } catch {
        want = null;
      }
      const got = inflateOnKernel(input, raw);
      if (got === null) {
        tally.left++;
        continue;
      }
      expect(want, `block ${k}`).not.toBeNull();
      expect(Buffer.from(got).equals(want as Buffer), `block ${k}`).toBe(true);
      tally.taken++;
    }
    expect(tally.left).toBeGreaterThan(100);
    if (process.env.HEIGHTBENCH_NO_WASM !== '1') expect(tally.taken).toBeGreaterThan(100);
  });

  it('gives the words or the FormatError of the JavaScript path on corrupted chunks (RLE, ZIPS, ZIP, PIZ; HALF and FLOAT; scanline and tiled)', () => {
    const rnd = testRandom(0xb10c);
    const names = [
      'scanline-half-rle.exr',
      'tiled-float-rle.exr',
      'scanline-float-zips.exr',
      'tiled-half-zips.exr',
      'scanline-half-zip.exr',
      'tiled-float-zip.exr',
      'tiled-half-piz.exr',
      'scanline-float-piz.exr',
    ];
    const tally = { equal: 0, refused: 0 };
    for (let k = 0; k < 120; k++) {
      const name = names[k % names.length];
      const clean = file(name);
      const start = readExrHeader(clean, name).offsetTableStart + 400;
      const b = clean.slice();
      for (let j = 0; j < 1 + (k % 3); j++) b[start + Math.floor(rnd() * (b.length - start))] ^= 1 << Math.floor(rnd() * 8);
      tally[bothPaths(b, b, name)]++;
      // From a file, the kernel inflates two zlib blocks at once where the read window holds both.
      const path = join(dir, `corrupt-${k}.exr`);
      writeFileSync(path, b);
      const src = fileSource(path);
      try {
        tally[bothPaths(b, src, name)]++;
      } finally {
        src.close();
      }
    }
    expect(tally.refused).toBeGreaterThan(40);
    expect(tally.equal + tally.refused).toBe(240);
  });
});

describe('PIZ kernel', () => {
  /** Every PIZ-compressed block of a level-0 file: its bytes and each channel's block size. */
  const pizBlocks = (m: ManifestEntry): { bytes: Uint8Array; channels: PizChannel[] }[] => {
    const b = file(m.file);
    const h = readExrHeader(b, m.file);
    const dv = new DataView(b.buffer, b.byteOffset);
    const sizes = h.channels.map((c) => (c.pixelType === 1 ? 1 : 2));
    const boxes: { bw: number; bh: number }[] = [];
    if (h.tiles) {
      const { xSize, ySize } = h.tiles;
      for (let ty = 0; ty < Math.ceil(m.height / ySize); ty++) {
        for (let tx = 0; tx < Math.ceil(m.width / xSize); tx++) {
          boxes.push({ bw: Math.min(xSize, m.width - tx * xSize), bh: Math.min(ySize, m.height - ty * ySize) });
        }
      }
    } else {
      for (let y = 0; y < m.height; y += 32) boxes.push({ bw: m.width, bh: Math.min(32, m.height - y) });
    }
    const out: { bytes: Uint8Array; channels: PizChannel[] }[] = [];
    boxes.forEach(({ bw, bh }, i) => {
      const off = Number(dv.getBigUint64(h.offsetTableStart + 8 * i, true));
      const head = h.tiled ? 20 : 8;
      const size = dv.getInt32(off + head - 4, true);
      const raw = bw * bh * sizes.reduce((a, s) => a + 2 * s, 0);
      if (size < raw) out.push({ bytes: b.subarray(off + head, off + head + size), channels: sizes.map((size) => ({ nx: bw, ny: bh, size })) });
    });
    return out;
  };

  /** The block through both paths: equal words, or the same FormatError. */
  const both = (bytes: Uint8Array, channels: PizChannel[], only: number): 'equal' | 'refused' => {
    const kernel = new PizDecoder(1);
    const js = new PizDecoder(1);
    let a: { words: Uint16Array; starts: number[] } | Error;
    let b: { words: Uint16Array; starts: number[] } | Error;
    try {
      a = kernel.decode(bytes, 0, bytes.length, channels, only, 'k');
    } catch (e) {
      a = e as Error;
    }
    try {
      b = js.decode(bytes, 0, bytes.length, channels, only, 'k', false);
    } catch (e) {
      b = e as Error;
    }
    if (b instanceof Error) {
      expect(b).toBeInstanceOf(FormatError);
      expect(a).toBeInstanceOf(FormatError);
      expect((a as Error).message).toBe(b.message);
      return 'refused';
    }
    expect(a).not.toBeInstanceOf(Error);
    const ka = a as { words: Uint16Array; starts: number[] };
    const n = channels.reduce((s, c) => s + c.nx * c.ny * c.size, 0);
    expect(ka.starts).toEqual(b.starts);
    expect(Buffer.from(ka.words.buffer, ka.words.byteOffset, 2 * n).equals(Buffer.from(b.words.buffer, b.words.byteOffset, 2 * n))).toBe(true);
    return 'equal';
  };

  it('decodes every block of the OpenEXR-written PIZ files as the JavaScript path does (every channel; HALF, FLOAT, UINT; 14- and 16-bit wavelet)', () => {
    const files = manifest.filter((m) => m.compression === 'PIZ' && m.levels === undefined);
    expect(files.length).toBeGreaterThanOrEqual(7);
    let blocks = 0;
    let kernelBlocks = 0;
    for (const m of files) {
      for (const { bytes, channels } of pizBlocks(m)) {
        for (let only = 0; only < channels.length; only++) {
          const probe = new PizDecoder(1);
          probe.decode(bytes, 0, bytes.length, channels, only, m.file);
          kernelBlocks += probe.kernelBlocks;
          expect(both(bytes, channels, only), m.file).toBe('equal');
          blocks++;
        }
      }
    }
    // Where WebAssembly runs, the kernel decoded every real block (none fell back to the JavaScript path).
    expect(blocks).toBeGreaterThan(50);
    if (process.env.HEIGHTBENCH_NO_WASM !== '1') expect(kernelBlocks).toBe(blocks);
  });

  it('refuses a corrupted block with the FormatError the JavaScript path gives, or decodes it to the same words', () => {
    const rnd = testRandom(0x512);
    const sources = ['scanline-half-piz.exr', 'tiled-float-piz.exr', 'wide-scanline-float-piz.exr', 'wide-tiled-half-piz.exr'].map((name) =>
      pizBlocks(manifest.find((m) => m.file === name) as ManifestEntry),
    );
    const tally = { equal: 0, refused: 0 };
    for (let k = 0; k < 400; k++) {
      const blocks = sources[k % sources.length];
      const { bytes, channels } = blocks[Math.floor(rnd() * blocks.length)];
      const b = bytes.slice();
      // Mostly the Huffman table and the first part of the stream, where a change reaches the kernel's checks.
      const span = k % 3 === 0 ? b.length : Math.min(b.length, 600);
      for (let j = 0; j < 1 + (k % 3); j++) b[Math.floor(rnd() * span)] ^= 1 << Math.floor(rnd() * 8);
      tally[both(k % 5 === 0 ? b.subarray(0, Math.floor(rnd() * b.length)) : b, channels, Math.floor(rnd() * channels.length))]++;
    }
    expect(tally.refused).toBeGreaterThan(100);
    expect(tally.equal + tally.refused).toBe(400);
  });
});
