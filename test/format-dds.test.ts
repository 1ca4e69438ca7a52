/**
 * decodeDds against files nobody in src/ wrote:
 * - test/peers/write_dds.py packs DDS_HEADER / DDS_PIXELFORMAT / DDS_HEADER_DXT10 field by field after Microsoft's
 *   documentation (numpy for the seeded values) and dumps the expected values of every slice, mip and channel;
 * - test/peers/oiio_dds.py asks OpenImageIO 3.2 for its reading of the same files (a second opinion: it reads
 *   R16_UNORM and L16 with their mips, but only as 8 bits — the high byte of each code — and refuses the float
 *   formats; it has no DDS writer).
 * Refusals are checked on peer-written files with single header fields changed.
 * The peers are required: a missing .venv or module is a setup bug and fails these tests.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { decodeDds, parseDdsHeader, widenFloat16 } from '../src/io/formats/dds.js';
import type { DecodedRaster } from '../src/io/formats/decoded-image.js';
import { FormatError, LimitError } from '../src/errors.js';
import { readF64, sameValues, tempDir } from './helpers.js';

const root = join(import.meta.dirname, '..');
const python = join(root, '.venv', 'bin', 'python');
const dir = tempDir('hb-dds-');
const LIMITS = { pixelLimit: 1 << 26 };

interface Expect {
  slice: number;
  level: number;
  channel: string;
  width: number;
  height: number;
  file: string;
}
interface Case {
  name: string;
  file: string;
  width: number;
  height: number;
  mipCount: number;
  arraySize: number;
  dxgiFormat: number;
  legacy: boolean;
  resourceDimension: number | null;
  channels: string;
  dataOffset: number;
  expects: Expect[];
}

function peer(script: string, ...args: string[]): string {
  const r = spawnSync(python, [join(root, 'test', 'peers', script), ...args], { encoding: 'utf8' });
  if (r.error) throw new Error(`peer ${script} could not start (${python}): ${r.error.message}`);
  if (r.status !== 0) throw new Error(`peer ${script} failed (${r.status}): ${r.stderr}`);
  return r.stdout;
}

let cases: Map<string, Case>;
beforeAll(() => {
  peer('write_dds.py', dir);
  const manifest = JSON.parse(readFileSync(join(dir, 'manifest.json'), 'utf8')) as { cases: Case[] };
  cases = new Map(manifest.cases.map((c) => [c.name, c]));
});

function fileOf(name: string): Uint8Array {
  const c = cases.get(name);
  if (c === undefined) throw new Error(`no peer case ${name}`);
  return new Uint8Array(readFileSync(join(dir, c.file)));
}

function expected(e: Expect): Float64Array {
  return readF64(join(dir, e.file));
}

function decodeFails(bytes: Uint8Array, sel = {}, limits = LIMITS): Error {
  try {
    decodeDds(bytes, 'x.dds', sel, limits);
  } catch (e) {
    return e as Error;
  }
  throw new Error('decodeDds accepted the file');
}

function patched(name: string, offset: number, value: number): Uint8Array {
  const b = fileOf(name).slice();
  new DataView(b.buffer).setUint32(offset, value, true);
  return b;
}

const READ_CASES = [
  'r16_unorm_mips',
  'r16_unorm_array',
  'r32_float_array',
  'r16_float',
  'r16_unorm_nopitch',
  'rg16_unorm',
  'rg16_float',
  'rg32_float',
  'rgb32_float',
  'rgba16_unorm',
  'rgba16_float',
  'rgba32_float',
  'legacy_l16',
  'legacy_g16r16',
  'legacy_r32f',
  'legacy_r16f',
  'legacy_a16b16g16r16',
  'legacy_a16b16g16r16f',
  'legacy_a32b32g32r32f',
];

describe('DDS files packed by the Python peer', () => {
  it.each(READ_CASES)('%s: header fields equal what the peer wrote', (name) => {
    const c = cases.get(name)!;
    const h = parseDdsHeader(fileOf(name), name);
    expect({
      width: h.width,
      height: h.height,
      mipCount: h.mipCount,
      arraySize: h.arraySize,
      dxgiFormat: h.dxgiFormat,
      resourceDimension: h.resourceDimension,
      dataOffset: h.dataOffset,
    }).toEqual({
      width: c.width,
      height: c.height,
      mipCount: c.mipCount,
      arraySize: c.arraySize,
      dxgiFormat: c.dxgiFormat,
      resourceDimension: c.resourceDimension,
      dataOffset: c.dataOffset,
    });
    expect(h.headerKind.startsWith(c.legacy ? 'legacy D3DFMT_' : 'DX10')).toBe(true);
  });

  it.each(READ_CASES)('%s: every slice, mip and channel decodes to the values the peer wrote', (name) => {
    const c = cases.get(name)!;
    const bytes = fileOf(name);
    expect(c.expects.length).toBe(c.arraySize * c.mipCount * c.channels.length);
    for (const e of c.expects) {
      const sel = { level: e.level, slice: e.slice, ...(c.channels.length > 1 ? { channel: e.channel } : {}) };
      const r = decodeDds(bytes, name, sel, LIMITS);
      expect([r.width, r.height]).toEqual([e.width, e.height]);
      sameValues(r.values, expected(e));
      expect(r.container).toBe('dds');
      expect(r.georeference).toBeNull();
      expect(r.nodata).toBeNull();
    }
  });

  it('sample types follow the format: UNORM16 → uint16 with unorm16, floats → Float32Array', () => {
    const kinds: Record<string, [string, boolean, string]> = {
      r16_unorm_mips: ['uint16', true, 'Uint16Array'],
      legacy_l16: ['uint16', true, 'Uint16Array'],
      r32_float_array: ['float32', false, 'Float32Array'],
      legacy_r32f: ['float32', false, 'Float32Array'],
      r16_float: ['float16', false, 'Float32Array'],
      legacy_r16f: ['float16', false, 'Float32Array'],
    };
    for (const [name, [type, unorm, ctor]] of Object.entries(kinds)) {
      const r = decodeDds(fileOf(name), name, {}, LIMITS);
      expect([r.sampleType, r.unorm16, r.values.constructor.name]).toEqual([type, unorm, ctor]);
    }
  });

  it('the description names format, header kind, mip, slice and channel', () => {
    expect(decodeDds(fileOf('r16_unorm_mips'), 'a', {}, LIMITS).description).toBe('DDS DXGI_FORMAT_R16_UNORM (DX10), mip 0 of 6, slice 0 of 1');
    expect(decodeDds(fileOf('r32_float_array'), 'a', { level: 2, slice: 1 }, LIMITS).description).toBe(
      'DDS DXGI_FORMAT_R32_FLOAT (DX10), mip 2 of 3, slice 1 of 2',
    );
    expect(decodeDds(fileOf('rgba16_unorm'), 'a', { channel: 'b' }, LIMITS).description).toBe(
      'DDS DXGI_FORMAT_R16G16B16A16_UNORM (DX10), mip 0 of 2, slice 0 of 1, channel B of RGBA',
    );
    expect(decodeDds(fileOf('legacy_l16'), 'a', { level: 1 }, LIMITS).description).toBe(
      'DDS D3DFMT_L16 (legacy header, read as DXGI_FORMAT_R16_UNORM), mip 1 of 6, slice 0 of 1',
    );
  });

  it('float16 widening is exact for the documented landmarks', () => {
    const w = widenFloat16(new Uint16Array([0x0000, 0x8000, 0x3c00, 0xc000, 0x7bff, 0x0001, 0x03ff, 0x0400, 0x7c00, 0xfc00, 0x7e00]));
    expect(Object.is(w[1], -0)).toBe(true);
    expect(Array.from(w.subarray(2, 10))).toEqual([1, -2, 65504, 2 ** -24, 1023 * 2 ** -24, 2 ** -14, Infinity, -Infinity]);
    expect(Number.isNaN(w[10])).toBe(true);
  });
});

describe('OpenImageIO as a second opinion', () => {
  interface OiioLevel {
    width: number;
    height: number;
    format: string;
    file: string;
  }
  interface OiioReport {
    ok: boolean;
    error?: string;
    version: string;
    canWrite: boolean;
    width?: number;
    height?: number;
    nchannels?: number;
    format?: string;
    bitsPerSample?: number;
    subimages?: number;
    levels?: OiioLevel[];
  }
  function oiio(name: string): OiioReport {
    return JSON.parse(peer('oiio_dds.py', join(dir, cases.get(name)!.file), dir)) as OiioReport;
  }

  it.each(['r16_unorm_mips', 'legacy_l16', 'r16_unorm_array'])(
    '%s: same size and mip chain, and OIIO’s 8-bit reading is the high byte of every decoded code',
    (name) => {
      const c = cases.get(name)!;
      const o = oiio(name);
      expect(o.ok).toBe(true);
      expect([o.width, o.height, o.nchannels, o.levels!.length]).toEqual([c.width, c.height, 1, c.mipCount]);
      // OIIO 3.2 declares 16 bits per sample yet hands back uint8: it keeps only the high byte.
      expect([o.bitsPerSample, o.format]).toEqual([16, 'uint8']);
      const bytes = fileOf(name);
      o.levels!.forEach((lv, k) => {
        const r = decodeDds(bytes, name, { level: k }, LIMITS);
        expect([r.width, r.height]).toEqual([lv.width, lv.height]);
        const theirs = new Uint8Array(readFileSync(lv.file));
        const ours = Uint8Array.from(r.values as Uint16Array, (v) => v >>> 8);
        sameValues(ours, theirs);
      });
    },
  );

  it('OIIO ignores DX10 array slices: its only image is slice 0', () => {
    const o = oiio('r16_unorm_array');
    expect(o.subimages).toBe(1);
    expect(cases.get('r16_unorm_array')!.arraySize).toBe(3);
  });

  it('OIIO refuses the float formats we read (so they rest on the documented layout alone) and cannot write DDS', () => {
    for (const name of ['r32_float_array', 'r16_float', 'legacy_r32f', 'rgba16_unorm']) {
      const o = oiio(name);
      expect(o.ok, `${name}: OIIO ${o.version} now reads it; compare its values instead`).toBe(false);
      expect(o.error).toMatch(/Unsupported (DXGI format|compression type): \d+/);
      expect(o.canWrite).toBe(false);
    }
  });
});

describe('refusals name the value', () => {
  it('R16_UINT: integers with no height mapping, named by name and number', () => {
    const e = decodeFails(fileOf('r16_uint'));
    expect(e).toBeInstanceOf(FormatError);
    expect(e.message).toContain('DXGI_FORMAT_R16_UINT (57)');
    expect(e.message).toContain('no defined height mapping');
    expect(e.message).toContain('R16_UNORM or R32_FLOAT');
  });

  it.each([
    [71, 'DXGI_FORMAT_BC1_UNORM (71)', 'block-compressed'],
    [61, 'DXGI_FORMAT_R8_UNORM (61)', '8 bits'],
    [53, 'DXGI_FORMAT_R16_TYPELESS (53)', 'typeless'],
    [58, 'DXGI_FORMAT_R16_SNORM (58)', 'signed normalized'],
    [42, 'DXGI_FORMAT_R32_UINT (42)', 'integers'],
    [55, 'DXGI_FORMAT_D16_UNORM (55)', 'depth'],
    [0, 'DXGI_FORMAT_UNKNOWN (0)', 'names no format'],
    [777, 'unknown DXGI_FORMAT 777', 'not a DXGI format'],
  ])('dxgiFormat %i is refused as %s (%s)', (code, name, why) => {
    const e = decodeFails(patched('r16_unorm_mips', 128, code));
    expect(e).toBeInstanceOf(FormatError);
    expect(e.message).toContain(name);
    expect(e.message).toContain(why);
  });

  it('a multi-channel format without a channel names the choices; a channel it lacks is refused', () => {
    const rgba = decodeFails(fileOf('rgba16_float'));
    expect(rgba.message).toContain('DXGI_FORMAT_R16G16B16A16_FLOAT (10) has 4 channels');
    expect(rgba.message).toContain('R|G|B|A');
    const rg = decodeFails(fileOf('rg32_float'), { channel: 'B' });
    expect(rg.message).toContain('channel "B" is not in DXGI_FORMAT_R32G32_FLOAT (16); its channels are R|G');
    expect(decodeFails(fileOf('r16_unorm_mips'), { channel: 'G' }).message).toContain('its channels are R');
  });

  it('mip level and slice out of range name the count', () => {
    expect(decodeFails(fileOf('r16_unorm_mips'), { level: 6 }).message).toContain('mip level 6 is out of range: the file has 6 mip levels (0…5)');
    expect(decodeFails(fileOf('r16_unorm_mips'), { level: -1 }).message).toContain('mip level -1');
    expect(decodeFails(fileOf('r32_float_array'), { slice: 2 }).message).toContain('array slice 2 is out of range: the file has 2 slices (0…1)');
  });

  it('truncation at every class of cut point says what was expected and what is there', () => {
    const full = fileOf('r16_unorm_array');
    const c = cases.get('r16_unorm_array')!;
    const dataBytes = 3 * (256 + 64 + 16 + 4 + 1) * 2;
    expect(full.length).toBe(c.dataOffset + dataBytes);
    const cuts: [number, RegExp][] = [
      [0, /0 bytes, shorter than the 128-byte/],
      [3, /3 bytes, shorter than the 128-byte/],
      [100, /100 bytes, shorter than the 128-byte/], // inside DDS_HEADER
      [130, /130 bytes; the FourCC "DX10" needs a 20-byte DDS_HEADER_DXT10 ending at byte 148/], // inside DXT10
      [148, new RegExp(`needs ${dataBytes} bytes of pixel data after the 148-byte header, the file has 0`)], // headers only
      [148 + 100, new RegExp(`needs ${dataBytes} bytes .* the file has 100`)], // inside slice 0, mip 0
      [full.length - 1, new RegExp(`needs ${dataBytes} bytes .* the file has ${dataBytes - 1}`)], // last mip of last slice
    ];
    for (const [cut, re] of cuts) {
      const e = decodeFails(full.subarray(0, cut));
      expect(e).toBeInstanceOf(FormatError);
      expect(e.message).toMatch(re);
    }
  });

  it('a huge declared size is refused against the pixel limit before any allocation', () => {
    let b = patched('r16_unorm_mips', 16, 0xffffffff);
    b = new Uint8Array(b);
    new DataView(b.buffer).setUint32(12, 0xffffffff, true);
    new DataView(b.buffer).setUint32(20, 0, true); // pitch 0, so the size itself is what is judged
    const e = decodeFails(b);
    expect(e).toBeInstanceOf(LimitError);
    expect(e.message).toContain('4294967295×4294967295');
    expect(e.message).toContain(`limit of ${LIMITS.pixelLimit}`);
    // Within the limit but beyond the bytes present: truncated, with the counts.
    const wide = patched('r16_unorm_nopitch', 16, 5000);
    expect(decodeFails(wide).message).toMatch(/5000×3 .* needs 30000 bytes .* the file has 30/);
    // Regression fixture `side-limit-of-a-strip`: within the sample limit, a side over every heightfield's 2^20.
    const strip = new Uint8Array(patched('r16_unorm_nopitch', 16, 2_000_000));
    new DataView(strip.buffer).setUint32(12, 1, true);
    const s = decodeFails(strip);
    expect(s).toBeInstanceOf(LimitError);
    expect(s.message).toContain('2000000x1 has a side over the limit of 1048576');
  });

  it('zero sizes, wrong structure sizes, bad magic, too many mips', () => {
    expect(decodeFails(patched('r16_unorm_mips', 16, 0)).message).toContain('declared size 0×23');
    expect(decodeFails(patched('r16_unorm_mips', 4, 128)).message).toContain('dwSize is 128, expected 124');
    expect(decodeFails(patched('r16_unorm_mips', 76, 40)).message).toContain('DDS_PIXELFORMAT.dwSize is 40, expected 32');
    expect(decodeFails(patched('r16_unorm_mips', 0, 0x474e5089)).message).toContain('no "DDS " magic');
    expect(decodeFails(patched('r16_unorm_mips', 28, 7)).message).toContain('dwMipMapCount 7 exceeds the 6 levels a 37×23 texture has');
  });

  it('a declared data size that overflows is refused even without a pixel limit', () => {
    // Sides at the 2^20 limit every heightfield has, and 2^32 − 1 slices.
    const b = patched('r16_unorm_mips', 16, 1 << 20);
    const dv = new DataView(b.buffer);
    dv.setUint32(12, 1 << 20, true);
    dv.setUint32(20, 0, true);
    dv.setUint32(140, 0xffffffff, true); // arraySize
    const e = decodeFails(b, {}, { pixelLimit: Infinity });
    expect(e).toBeInstanceOf(FormatError);
    expect(e.message).toContain('declared data size overflows (4294967295 slices of');
  });

  it('a legacy DDSD_LINEARSIZE holding the top level byte count is accepted; any other value is not', () => {
    const c = cases.get('r16_unorm_nopitch')!;
    const b = patched('r16_unorm_nopitch', 8, 0x1 | 0x2 | 0x4 | 0x1000 | 0x80000); // flags: LINEARSIZE, no PITCH
    new DataView(b.buffer).setUint32(20, c.width * c.height * 2, true);
    sameValues(decodeDds(b, 'a', {}, LIMITS).values, expected(c.expects[0]));
    new DataView(b.buffer).setUint32(20, 29, true);
    expect(decodeFails(b).message).toContain('declared linear size 29 bytes contradicts');
  });

  it('a declared pitch that contradicts tight rows is refused', () => {
    const e = decodeFails(patched('r16_unorm_mips', 20, 80));
    expect(e.message).toContain('declared pitch 80 bytes contradicts DXGI_FORMAT_R16_UNORM (56) at 37×23: rows are 74 bytes');
  });

  it('volume, cube, 1-D textures and an empty array are refused', () => {
    expect(decodeFails(patched('r16_unorm_mips', 132, 4)).message).toContain('volume texture');
    expect(decodeFails(patched('r16_unorm_mips', 132, 2)).message).toContain('1-D texture');
    expect(decodeFails(patched('r16_unorm_mips', 132, 9)).message).toContain('resourceDimension is 9; expected 3');
    expect(decodeFails(patched('r16_unorm_mips', 136, 4)).message).toContain('cube map');
    expect(decodeFails(patched('r16_unorm_mips', 140, 0)).message).toContain('arraySize is 0');
    expect(decodeFails(patched('legacy_l16', 112, 0x200 | 0xfc00)).message).toContain('cube map (DDSCAPS2_CUBEMAP)');
    expect(decodeFails(patched('legacy_l16', 112, 0x200000)).message).toContain('volume texture');
  });

  it('ambiguous legacy pixel formats are refused with the masks', () => {
    // L16 mask changed to an A8L8-like layout; an unknown FourCC; RGB masks for an 8-bit format.
    expect(decodeFails(patched('legacy_l16', 92, 0xff)).message).toContain('legacy luminance format (bit count 16, masks R 0xff');
    expect(decodeFails(patched('legacy_r32f', 84, 0x31545844)).message).toContain('legacy FourCC "DXT1"');
    expect(decodeFails(patched('legacy_g16r16', 92, 0xff0000)).message).toContain('legacy RGB format (bit count 32, masks R 0xff0000');
  });

  it('a decoded result owns its samples (no view into the file bytes)', () => {
    const bytes = fileOf('r16_unorm_mips');
    const r: DecodedRaster = decodeDds(bytes, 'a', {}, LIMITS);
    expect(r.values.buffer).not.toBe(bytes.buffer);
  });
});

describe('decoders-given-a-node-buffer', () => {
  // A Node Buffer's slice is a view of the whole allocation, not a copy: a decoder that built its output from
  // `bytes.slice(...).buffer` returned the whole allocation's words (wrong count, wrong values) for a Buffer view.
  it.each(['r16_unorm_mips', 'r32_float_array', 'rgba16_unorm', 'rgba32_float'])(
    '%s: a Buffer view inside a larger allocation decodes to the values the peer wrote, every subresource',
    (name) => {
      const c = cases.get(name)!;
      const plain = fileOf(name);
      const pool = Buffer.alloc(plain.length + 24, 0xa5);
      pool.set(plain, 8);
      const view = pool.subarray(8, 8 + plain.length);
      for (const e of c.expects) {
        const r = decodeDds(view, name, { level: e.level, slice: e.slice, ...(c.channels.length > 1 ? { channel: e.channel } : {}) }, LIMITS);
        expect(r.values.length).toBe(e.width * e.height);
        sameValues(r.values, expected(e));
      }
    },
  );
});
