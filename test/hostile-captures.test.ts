/**
 * Hostile captures, third pass: each regression is named after the bug it pins. The verdict of the reference reader
 * of each format (tifffile and rasterio/GDAL for TIFF, OpenEXR for EXR, numpy for .npy) is taken in the test from the
 * project's .venv, never from heightbench: heightbench either reads what the reference reads or refuses with exit 2.
 * Work is counted (bytes read through the ByteSource), never timed.
 */
import { spawnSync } from 'node:child_process';
import { truncateSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { fileSource, memorySource, type ByteSource } from '../src/io/byte-source.js';
import { decodeDds } from '../src/io/formats/dds.js';
import { decodeExr } from '../src/io/formats/exr.js';
import { decodeNpy } from '../src/io/formats/npy.js';
import { decodeTiff } from '../src/io/formats/tiff.js';
import { readOutsideFile } from '../src/io/outside.js';
import { cli, tempDir } from './helpers.js';

const py = join(process.cwd(), '.venv', 'bin', 'python');
const d = tempDir('hb-captures-');
const LIMITS = { pixelLimit: 1 << 28 };

function python(code: string): string {
  const r = spawnSync(py, ['-c', code], { encoding: 'utf8', cwd: d });
  if (r.status !== 0) throw new Error(`python failed: ${r.stderr}`);
  return r.stdout;
}

type Entry = [tag: number, type: number, values: number[] | string];

/**
 * A little-endian classic TIFF: the header, IFD 0 with `entries` in the order given (duplicates kept), their
 * out-of-line values, then `blocks`. StripOffsets/TileOffsets values name indices into `blocks`.
 */
export function tiffFile(entries: Entry[], blocks: Uint8Array[] = []): Buffer {
  const size: Record<number, number> = { 1: 1, 2: 1, 3: 2, 4: 4, 11: 4, 12: 8 };
  const enc = (type: number, v: number[] | string): Buffer => {
    if (typeof v === 'string') return Buffer.from(`${v}\0`, 'latin1');
    const b = Buffer.alloc(size[type] * v.length);
    v.forEach((x, i) => {
      if (type === 1) b.writeUInt8(x, i);
      else if (type === 3) b.writeUInt16LE(x, 2 * i);
      else if (type === 4) b.writeUInt32LE(x, 4 * i);
      else if (type === 11) b.writeFloatLE(x, 4 * i);
      else b.writeDoubleLE(x, 8 * i);
    });
    return b;
  };
  const ifdEnd = 8 + 2 + 12 * entries.length + 4;
  const outOfLine = entries.map(([, t, v]) => enc(t, v).length).filter((n) => n > 4);
  let dataAt = ifdEnd + outOfLine.reduce((a, b) => a + b, 0);
  const blockAt = blocks.map((b) => {
    const at = dataAt;
    dataAt += b.length;
    return at;
  });
  const head = Buffer.alloc(ifdEnd);
  head.write('II', 0, 'latin1');
  head.writeUInt16LE(42, 2);
  head.writeUInt32LE(8, 4);
  head.writeUInt16LE(entries.length, 8);
  const values: Buffer[] = [];
  let valueAt = ifdEnd;
  entries.forEach(([tag, type, v], i) => {
    const vals = (tag === 273 || tag === 324) && Array.isArray(v) ? v.map((k) => blockAt[k] ?? k) : v;
    const b = enc(type, vals);
    const o = 10 + 12 * i;
    head.writeUInt16LE(tag, o);
    head.writeUInt16LE(type, o + 2);
    head.writeUInt32LE(typeof v === 'string' ? b.length : v.length, o + 4);
    if (b.length <= 4) b.copy(head, o + 8);
    else {
      head.writeUInt32LE(valueAt, o + 8);
      values.push(b);
      valueAt += b.length;
    }
  });
  return Buffer.concat([head, ...values, ...blocks]);
}

const f32 = (v: number[]): Uint8Array => new Uint8Array(new Float32Array(v).buffer);
/** A w×h single-band float32 strip image, one strip per `rows` rows. */
function floatStrips(w: number, h: number, rows: number, blocks: Uint8Array[], extra: Entry[] = [], counts?: number[]): Buffer {
  return tiffFile(
    [
      [256, w > 65535 ? 4 : 3, [w]],
      [257, 3, [h]],
      [258, 3, [32]],
      [259, 3, [1]],
      [262, 3, [1]],
      [273, 4, blocks.map((_, i) => i)],
      [277, 3, [1]],
      [278, 3, [rows]],
      [279, 4, counts ?? blocks.map((b) => b.length)],
      [339, 3, [3]],
      ...extra,
    ],
    blocks,
  );
}

const savedBudget = process.env.HEIGHTBENCH_MAX_MEMORY_MB;
afterEach(() => {
  if (savedBudget === undefined) delete process.env.HEIGHTBENCH_MAX_MEMORY_MB;
  else process.env.HEIGHTBENCH_MAX_MEMORY_MB = savedBudget;
});

beforeAll(() => {
  python(`
import sys, numpy as np
sys.path.insert(0, ${JSON.stringify(join(process.cwd(), 'examples', 'external-reconstruction'))})
from reconstruct import write_dds_r16_unorm
write_dds_r16_unorm('small.dds', np.arange(32, dtype='<u2').reshape(4, 8) * 1000)
np.save('small.npy', np.arange(32, dtype='<f4').reshape(4, 8))
`);
}, 60_000);

describe('bounded by the data present: headers first, then only the bytes they name', () => {
  it('dds-sparse-tail-read-whole: an 8×4 DDS followed by a 768 MiB sparse tail is read from its header and its 64 bytes', async () => {
    const f = join(d, 'tail.dds');
    writeFileSync(f, python(`import sys; sys.stdout.write(open('small.dds','rb').read().hex())`).trim(), 'hex');
    truncateSync(f, 768 * 2 ** 20);
    const src = fileSource(f);
    try {
      const r = decodeDds(src, f, {}, LIMITS);
      expect(Array.from(r.values.subarray(0, 3))).toEqual([0, 1000, 2000]);
      expect(src.bytesRead).toBeLessThanOrEqual(4 + 124 + 20 + 64);
    } finally {
      src.close();
    }
    // Under a 64 MiB budget the 768 MiB file still reads: nothing reads it whole.
    process.env.HEIGHTBENCH_MAX_MEMORY_MB = '64';
    const info = await cli('info', f, '--assume-defaults');
    expect(info.err).toBe('');
    expect(info.code).toBe(0);
  });
  it('npy-header-first: a .npy is read as its header and the array it names, nothing else', () => {
    const src = fileSource(join(d, 'small.npy'));
    try {
      const r = decodeNpy(src, 'small.npy', {}, LIMITS);
      expect(Array.from(r.values.subarray(0, 4))).toEqual([0, 1, 2, 3]);
      expect(src.bytesRead).toBeLessThanOrEqual(12 + 65536 + 128);
    } finally {
      src.close();
    }
  });
  it('tiff-zero-bytecounts-ignore-budget: 8192×6144 float64 with byte counts 0 in 134 bytes is refused under HEIGHTBENCH_MAX_MEMORY_MB=256, naming need and budget', async () => {
    const f = join(d, 'sparse-huge.tif');
    const file = tiffFile([
      [256, 3, [8192]],
      [257, 3, [6144]],
      [258, 3, [64]],
      [259, 3, [1]],
      [262, 3, [1]],
      [273, 4, [0]],
      [277, 3, [1]],
      [278, 3, [6144]],
      [279, 4, [0]],
      [339, 3, [3]],
    ]);
    expect(file.length).toBe(134);
    writeFileSync(f, file);
    process.env.HEIGHTBENCH_MAX_MEMORY_MB = '256';
    for (const argv of [
      ['info', f, '--assume-defaults'],
      ['convert', f, join(d, 'x.r32'), '--assume-defaults'],
    ]) {
      const r = await cli(...argv);
      expect(r.code, r.err).toBe(2);
      expect(r.err).toMatch(
        /sparse-huge\.tif: TIFF 8192×6144 float64 .* needs 604045312 bytes \(about 577 MiB\), over the memory budget of 256 MiB \(HEIGHTBENCH_MAX_MEMORY_MB\)/,
      );
    }
  });
  it('tiff-zero-bytecounts-as-gdal: a small all-sparse float32 TIFF with GDAL_NODATA reads as GDAL reads it (every sample no-data)', async () => {
    const f = join(d, 'sparse-small.tif');
    writeFileSync(f, floatStrips(4, 4, 2, [new Uint8Array(0), new Uint8Array(0)], [[42113, 2, '-9999.9']], [0, 0]));
    const gdal = JSON.parse(
      python(`
import json, rasterio
with rasterio.open('sparse-small.tif') as ds: print(json.dumps({"v": ds.read(1).tolist(), "m": ds.read_masks(1).tolist()}))
`),
    ) as { v: number[][]; m: number[][] };
    expect(gdal.v.flat()).toEqual(Array(16).fill(Math.fround(-9999.9)));
    expect(gdal.m.flat()).toEqual(Array(16).fill(0));
    const r = await decodeTiff(new Uint8Array(await import('node:fs').then((fs) => fs.readFileSync(f))), f, {}, LIMITS);
    expect(Array.from(r.values)).toEqual(gdal.v.flat());
    expect(r.nodata).toBe(Math.fround(-9999.9));
    const l = await readOutsideFile(f, 'tiff', { assumeDefaults: true });
    expect(l.field.kind === 'float' && Array.from(l.field.height_px).every(Number.isNaN)).toBe(true);
  });
  it('tiff-64-samples-zlib-limit: a deflate strip whose rows need 8 GiB is refused (exit 2, one line), never a zlib RangeError', async () => {
    const f = join(d, 'wide-spp.tif');
    writeFileSync(
      f,
      tiffFile(
        [
          [256, 4, [1 << 20]],
          [257, 3, [1]],
          [258, 3, Array(64).fill(64)],
          [259, 3, [8]],
          [262, 3, [1]],
          [273, 4, [0]],
          [277, 3, [64]],
          [278, 3, [1]],
          [279, 4, [16]],
          [284, 3, [1]],
          [339, 3, Array(64).fill(3)],
        ],
        [new Uint8Array(16)],
      ),
    );
    const r = await cli('info', f, '--assume-defaults', '--channel', '1');
    expect(r.code, r.err).toBe(2);
    expect(r.err).toMatch(/^heightbench: [^\n]*wide-spp\.tif: TIFF [^\n]+\n$/);
  });
  it('tiff-lzw-expansion-unbounded: an LZW strip that decodes past its strip size is refused naming the size (exit 2), as deflate is', async () => {
    // A 4×2 float32 image in one strip of 32 bytes, whose LZW stream (imagecodecs) decodes to 64 bytes.
    const hex = python(`import sys, imagecodecs; sys.stdout.write(imagecodecs.lzw_encode(bytes(range(64))).hex())`).trim();
    const strip = (bytes: Uint8Array): Buffer =>
      tiffFile(
        [
          [256, 3, [4]],
          [257, 3, [2]],
          [258, 3, [32]],
          [259, 3, [5]],
          [262, 3, [1]],
          [273, 4, [0]],
          [277, 3, [1]],
          [278, 3, [2]],
          [279, 4, [bytes.length]],
          [339, 3, [3]],
        ],
        [bytes],
      );
    const f = join(d, 'lzw-long.tif');
    writeFileSync(f, strip(new Uint8Array(Buffer.from(hex, 'hex'))));
    const r = await cli('info', f, '--assume-defaults');
    expect(r.code, r.err).toBe(2);
    expect(r.err).toMatch(/^heightbench: [^\n]*lzw-long\.tif: TIFF strip 0: LZW data is corrupt or decodes past 32 bytes \(its block's size\)\n$/);
    // The same strip encoded to exactly its 32 bytes reads, every byte.
    const exact = python(`import sys, imagecodecs; sys.stdout.write(imagecodecs.lzw_encode(bytes(range(32))).hex())`).trim();
    const ok = await decodeTiff(new Uint8Array(strip(new Uint8Array(Buffer.from(exact, 'hex')))), 'lzw-exact.tif', {}, LIMITS);
    expect(Buffer.from(ok.values.buffer, ok.values.byteOffset, 32).equals(Buffer.from(Array.from({ length: 32 }, (_, i) => i)))).toBe(true);
    // Before anything is allocated: 16 bytes of LZW cannot hold a 1024×64 float32 strip (a code names ≤ 3839 bytes).
    const tall = tiffFile(
      [
        [256, 3, [1024]],
        [257, 3, [64]],
        [258, 3, [32]],
        [259, 3, [5]],
        [262, 3, [1]],
        [273, 4, [0]],
        [277, 3, [1]],
        [278, 3, [64]],
        [279, 4, [16]],
        [339, 3, [3]],
      ],
      [new Uint8Array(16)],
    );
    await expect(decodeTiff(new Uint8Array(tall), 'lzw-few.tif', {}, LIMITS)).rejects.toThrow(
      /lzw-few\.tif: TIFF strip 0 holds 16 bytes of LZW data \(StripByteCounts\), too few to decode to the 262144 bytes its rows need/,
    );
  });
  it('tiff-2^28-wide-allocates-first: a 2^28-pixel-wide TIFF is refused by its side before anything is allocated', async () => {
    const f = join(d, 'wide.tif');
    writeFileSync(f, floatStrips(2 ** 28, 1, 1, [new Uint8Array(16)]));
    const r = await cli('info', f, '--assume-defaults');
    expect(r.code, r.err).toBe(2);
    expect(r.err).toMatch(/wide\.tif: TIFF ImageWidth × ImageLength: 268435456x1 has a side over the limit of 1048576/);
  });
  it('exr-allocates-before-chunks-checked: a scanline EXR whose last chunk is cut short is refused before any pixel data is read', () => {
    python(`
import OpenEXR, numpy as np
A = np.arange(64 * 64, dtype='f4').reshape(64, 64)
with OpenEXR.File({"compression": OpenEXR.NO_COMPRESSION, "type": OpenEXR.scanlineimage}, {"Y": A}) as f: f.write("cut.exr")
b = open('cut.exr', 'rb').read()
open('cut.exr', 'wb').write(b[:-100])
`);
    const bytes = new Uint8Array(spawnSync('cat', [join(d, 'cut.exr')]).stdout);
    const reads: number[] = [];
    const inner = memorySource(bytes, 'cut.exr');
    const logged: ByteSource = {
      ...inner,
      read(offset, length, what) {
        reads.push(length);
        return inner.read(offset, length, what);
      },
    };
    // 64 uncompressed chunks of one 64-pixel float line (256 bytes); the last one lacks its final 100 bytes.
    expect(() => decodeExr(logged, 'cut.exr', {}, LIMITS)).toThrow(
      /cut\.exr: OpenEXR scanline chunk y=63 at byte \d+ declares 256 bytes, 156 bytes remain in the file/,
    );
    // Only the offset table and the 64 chunk headers were read: no chunk's pixels (the output is allocated after).
    expect(reads.filter((n) => n === 256)).toEqual([]);
    expect(reads.filter((n) => n === 8).length).toBe(64);
    // The whole file still reads, every value.
    python(`
import OpenEXR, numpy as np
A = np.arange(64 * 64, dtype='f4').reshape(64, 64)
with OpenEXR.File({"compression": OpenEXR.NO_COMPRESSION, "type": OpenEXR.scanlineimage}, {"Y": A}) as f: f.write("whole.exr")
`);
    const whole = decodeExr(new Uint8Array(spawnSync('cat', [join(d, 'whole.exr')]).stdout), 'whole.exr', {}, LIMITS);
    expect(Array.from(whole.values.subarray(4094))).toEqual([4094, 4095]);
  });
  it('proc-pagemap-link: a link to /proc/self/pagemap is read as what it holds (no hang, exit 2 naming the file)', async () => {
    const { symlinkSync } = await import('node:fs');
    for (const name of ['pagemap.tif', 'pagemap.npy', 'pagemap.exr', 'pagemap.dds']) {
      symlinkSync('/proc/self/pagemap', join(d, name));
      for (const argv of [
        ['info', join(d, name), '--assume-defaults'],
        ['import', join(d, name), '--stage', 'final', '--out', join(d, `run-${name}`), '--assume-defaults', '--range', '-500,500'],
      ]) {
        const r = await cli(...argv);
        expect(r.code, r.err).toBe(2);
        expect(r.err).toMatch(new RegExp(`${name.replace('.', '\\.')}`));
        expect(r.err).not.toMatch(/\(no path\)/);
      }
    }
  });
});

describe('one parser per header, strict types', () => {
  const A = f32([0, 1, 2, 3]);
  const B = f32([100, 101, 102, 103]);
  it('tiff-duplicate-stripoffsets-last-wins: a second StripOffsets is refused; GDAL and tifffile read the first', async () => {
    const file = tiffFile(
      [
        [256, 3, [2]],
        [257, 3, [2]],
        [258, 3, [32]],
        [259, 3, [1]],
        [262, 3, [1]],
        [273, 4, [0]],
        [273, 4, [1]],
        [277, 3, [1]],
        [278, 3, [2]],
        [279, 4, [16]],
        [339, 3, [3]],
      ],
      [A, B],
    );
    writeFileSync(join(d, 'dup.tif'), file);
    const ref = JSON.parse(
      python(`
import json, tifffile, rasterio
with rasterio.open('dup.tif') as ds: g = ds.read(1).tolist()
print(json.dumps({"tifffile": tifffile.imread('dup.tif').tolist(), "gdal": g}))
`),
    ) as { tifffile: number[][]; gdal: number[][] };
    expect(ref.tifffile.flat()).toEqual([0, 1, 2, 3]);
    expect(ref.gdal.flat()).toEqual([0, 1, 2, 3]);
    await expect(decodeTiff(file, 'dup.tif', {}, LIMITS)).rejects.toThrow(/StripOffsets \(tag 273\) appears twice in IFD 0 \(entries 5 and 6\)/);
    const r = await cli('convert', join(d, 'dup.tif'), join(d, 'dup.r32'), '--assume-defaults');
    expect(r.code).toBe(2);
  });
  it('tiff-rowsperstrip-double: RowsPerStrip stored as DOUBLE 2.5 is refused, as GDAL refuses it', async () => {
    const rows = f32(Array.from({ length: 16 }, (_, i) => i));
    const t = tiffFile(
      [
        [256, 3, [4]],
        [257, 3, [4]],
        [258, 3, [32]],
        [259, 3, [1]],
        [262, 3, [1]],
        [273, 4, [0, 1]],
        [277, 3, [1]],
        [278, 12, [2.5]],
        [279, 4, [32, 32]],
        [339, 3, [3]],
      ],
      [rows.subarray(0, 32), rows.subarray(32)],
    );
    writeFileSync(join(d, 'rps.tif'), t);
    const gdal = python(`
import rasterio
try:
    rasterio.open('rps.tif').read(1); print('read')
except Exception as e: print('refused', e)
`);
    expect(gdal).toMatch(/^refused .*RowsPerStrip/);
    await expect(decodeTiff(t, 'rps.tif', {}, LIMITS)).rejects.toThrow(
      /RowsPerStrip \(tag 278\) is stored as DOUBLE \(field type 12\), expected an integer type/,
    );
  });
  it('exr-channel-list-unchecked: a duplicate channel, an unsorted list and a channels attribute given twice are refused', () => {
    const out = python(`
import OpenEXR, numpy as np, struct, json
A = np.arange(8, dtype='f4').reshape(2, 4)
with OpenEXR.File({"compression": OpenEXR.NO_COMPRESSION, "type": OpenEXR.scanlineimage}, {"A": A, "B": A + 100}) as f: f.write("ab.exr")
b = bytearray(open('ab.exr', 'rb').read())
i = b.find(b'channels\\0chlist\\0'); size = struct.unpack('<i', b[i+16:i+20])[0]
d = bytearray(b); d[d.find(b'B\\0', i + 20)] = ord('A'); open('dupch.exr', 'wb').write(d)
u = bytearray(b); ja = u.find(b'A\\0', i + 20); jb = u.find(b'B\\0', i + 20); u[ja] = ord('B'); u[jb] = ord('A'); open('unsorted.exr', 'wb').write(u)
p = 8
while b[p] != 0:
    n = b.index(0, p); t = b.index(0, n + 1); s = struct.unpack('<i', b[t+1:t+5])[0]; p = t + 5 + s
second = bytes(b[i:i+20+size]).replace(b'B\\0', b'C\\0')
t = bytearray(b[:p]) + second + b[p:]
ot = p + 1 + len(second)
for k in range(2):
    o = struct.unpack('<Q', t[ot+8*k:ot+8*k+8])[0]; t[ot+8*k:ot+8*k+8] = struct.pack('<Q', o + len(second))
open('twice.exr', 'wb').write(t)
seen = {}
for f in ['dupch.exr', 'unsorted.exr', 'twice.exr']:
    try:
        with OpenEXR.File(f) as x: seen[f] = {k: v.pixels.ravel().tolist()[:2] for k, v in x.channels().items()}
    except Exception as e: seen[f] = 'refused'
print(json.dumps(seen))
`);
    // OpenEXR refuses the duplicate, reads the unsorted list in sorted order (A gets the first stored channel's data,
    // not what the list order says) and keeps the first of two channel lists: never what a list-order reader reads.
    expect(JSON.parse(out)).toEqual({ 'dupch.exr': 'refused', 'unsorted.exr': { A: [0, 1], B: [100, 101] }, 'twice.exr': { A: [0, 1], B: [100, 101] } });
    const file = (n: string): Uint8Array => new Uint8Array(spawnSync('cat', [join(d, n)]).stdout);
    expect(() => decodeExr(file('dupch.exr'), 'dupch.exr', { channel: 'A' }, LIMITS)).toThrow(/channel list names "A" twice/);
    expect(() => decodeExr(file('unsorted.exr'), 'unsorted.exr', { channel: 'A' }, LIMITS)).toThrow(/channel list is not sorted \("A" after "B"\)/);
    expect(() => decodeExr(file('twice.exr'), 'twice.exr', { channel: 'A' }, LIMITS)).toThrow(/attribute "channels" appears twice/);
    expect(Array.from(decodeExr(file('ab.exr'), 'ab.exr', { channel: 'B' }, LIMITS).values.subarray(0, 2))).toEqual([100, 101]);
  });
});

describe('no-data as GDAL means it', () => {
  it('nodata-compared-in-float64: a float32 band with GDAL_NODATA "0.1" masks exactly the pixels GDAL masks', async () => {
    const f = join(d, 'nd.tif');
    writeFileSync(f, floatStrips(2, 2, 2, [f32([0.1, 1, 0.1, 2])], [[42113, 2, '0.1']]));
    const gdal = JSON.parse(
      python(`
import json, rasterio
with rasterio.open('nd.tif') as ds: print(json.dumps({"nodata": ds.nodata, "m": ds.read_masks(1).ravel().tolist()}))
`),
    ) as { nodata: number; m: number[] };
    expect(gdal).toEqual({ nodata: Math.fround(0.1), m: [0, 255, 0, 255] });
    const l = await readOutsideFile(f, 'tiff', { assumeDefaults: true });
    const h = l.field.kind === 'float' ? Array.from(l.field.height_px) : [];
    // The field's row 0 is the southern edge; the file's row 0 the northern one: compare the mask as a set per row.
    expect(h.map((v) => (Number.isNaN(v) ? 0 : 255)).sort()).toEqual([...gdal.m].sort());
    expect(h.filter(Number.isNaN).length).toBe(2);
  });
  it('sparse-float16-as-zero: an empty float16 block with GDAL_NODATA -9999.9 reads as no-data, as GDAL reads it', async () => {
    const f = join(d, 'sp16.tif');
    writeFileSync(
      f,
      tiffFile(
        [
          [256, 3, [2]],
          [257, 3, [2]],
          [258, 3, [16]],
          [259, 3, [1]],
          [262, 3, [1]],
          [273, 4, [0, 1]],
          [277, 3, [1]],
          [278, 3, [1]],
          [279, 4, [4, 0]],
          [339, 3, [3]],
          [42113, 2, '-9999.9'],
        ],
        [new Uint8Array(new Uint16Array([0x3c00, 0x4000]).buffer), new Uint8Array(0)],
      ),
    );
    const gdal = JSON.parse(
      python(`
import json, rasterio
with rasterio.open('sp16.tif') as ds: print(json.dumps({"v": ds.read(1).ravel().tolist(), "m": ds.read_masks(1).ravel().tolist()}))
`),
    ) as { v: number[]; m: number[] };
    expect(gdal.m).toEqual([255, 255, 0, 0]);
    const r = await decodeTiff(new Uint8Array((await import('node:fs')).readFileSync(f)), f, {}, LIMITS);
    expect(Array.from(r.values)).toEqual(gdal.v);
    const l = await readOutsideFile(f, 'tiff', { assumeDefaults: true });
    expect(l.field.kind === 'float' ? Array.from(l.field.height_px).filter(Number.isNaN).length : -1).toBe(2);
  });
});

describe('no-data pixels never compared as heights', () => {
  it('nodata-reaches-gate-as-heights: ten float32 no-data pixels ("-9999.9") are counted, shown and fail the gate unless allowed', async () => {
    python(`
import numpy as np, rasterio
from rasterio.transform import from_origin
a = (np.arange(64, dtype='f4').reshape(8, 8) * 0.5).astype('f4')
a.ravel()[[3, 9, 17, 22, 30, 41, 47, 50, 58, 63]] = np.float32(-9999.9)
for name, nd in (('gen-nd.tif', -9999.9), ('ref-nd.tif', None)):
    with rasterio.open(name, 'w', driver='GTiff', width=8, height=8, count=1, dtype='float32', nodata=nd, transform=from_origin(0, 80, 10, 10)) as ds:
        ds.write(a, 1)
`);
    // The reference holds the same numbers as heights: compared as heights, every pixel would be equal and pass.
    const gated = await cli('compare', join(d, 'gen-nd.tif'), join(d, 'ref-nd.tif'), '--max-rms-mm', '1', '--json');
    expect(gated.code, gated.err).toBe(3);
    const j = JSON.parse(gated.out) as { nonFinite: { generated: number; pixelsExcluded: number }; gates: { name: string; passed: boolean }[] };
    expect(j.nonFinite.generated).toBe(10);
    expect(j.nonFinite.pixelsExcluded).toBe(10);
    expect(j.gates.find((g) => g.name === 'non-finite pixels')?.passed).toBe(false);
    const allowed = await cli('compare', join(d, 'gen-nd.tif'), join(d, 'ref-nd.tif'), '--max-rms-mm', '1', '--max-nonfinite', '10');
    expect(allowed.code, allowed.err).toBe(0);
  });
});

describe('checks on the path that acts', () => {
  it('manifest-out-checked-lexically: out: link/run with link pointing outside the manifest folder is refused, nothing written there', async () => {
    const { mkdirSync, symlinkSync, existsSync, readdirSync } = await import('node:fs');
    const home = join(d, 'manifest-home');
    const outside = join(d, 'outside');
    mkdirSync(home);
    mkdirSync(outside);
    symlinkSync(outside, join(home, 'link'));
    writeFileSync(
      join(home, 'm.yaml'),
      `out: link/run\ncaptures:\n  - { file: ${JSON.stringify(join(d, 'small.npy'))}, stage: pre-encode, extent: "0,0,80,40", rowDirection: row0-at-ymax }\n`,
    );
    const r = await cli('import', '--manifest', join(home, 'm.yaml'));
    expect(r.code, r.err).toBe(2);
    expect(r.err).toMatch(/m\.yaml: out "link\/run" is not a folder inside the manifest's folder .* \(it resolves to .*outside\/run\)/);
    expect(readdirSync(outside)).toEqual([]);
    expect(existsSync(join(outside, 'run'))).toBe(false);
  });
  it('previous-link-renamed-into-out: a planted .NAME.previous link is refused, never renamed into --out nor its files carried', async () => {
    const { mkdirSync, symlinkSync, existsSync, readdirSync } = await import('node:fs');
    const victim = join(d, 'victim');
    mkdirSync(victim);
    writeFileSync(join(victim, 'unrelated.txt'), 'not a run');
    const parent = join(d, 'runs');
    mkdirSync(parent);
    symlinkSync(victim, join(parent, '.run.previous'));
    const r = await cli('import', join(d, 'small.npy'), '--stage', 'pre-encode', '--out', join(parent, 'run'), '--assume-defaults');
    expect(r.code, r.err).toBe(2);
    expect(r.err).toMatch(/\.run\.previous: is a symbolic link, where heightbench keeps only a folder it made/);
    expect(existsSync(join(parent, 'run'))).toBe(false);
    expect(readdirSync(victim)).toEqual(['unrelated.txt']);
  });
  it('yaml-nesting-engine-stack: a manifest nested 100000 deep (flow or block) is refused with a clear message', async () => {
    for (const [name, text] of [
      ['flow.yaml', `${'['.repeat(100_000)}${']'.repeat(100_000)}\n`],
      ['block.yaml', `captures:\n  ${'- '.repeat(100_000)}x\n`],
    ]) {
      writeFileSync(join(d, name), text);
      const r = await cli('import', '--manifest', join(d, name), '--out', join(d, `nest-${name}`));
      expect(r.code, r.err).toBe(2);
      expect(r.err).toMatch(new RegExp(`${name.replace('.', '\\.')}: YAML nested deeper than 64 levels`));
    }
  });
});

describe('extreme and null fields in descriptions exit 2, naming the file and the field', () => {
  it('check-extreme-sidecar-grid: run folders whose sidecars put the grid at xmin −1e308, size 1.7e308 exit 2, not 1', async () => {
    const { readdirSync, readFileSync } = await import('node:fs');
    const run = join(d, 'extreme-run');
    expect((await cli('run', 'teaching-512', '--size', '32', '--out', run)).code).toBe(0);
    for (const f of readdirSync(run).filter((n) => n.endsWith('.json'))) {
      const doc = JSON.parse(readFileSync(join(run, f), 'utf8')) as { grid?: Record<string, number> };
      if (doc.grid === undefined) continue;
      Object.assign(doc.grid, { xmin: -1e308, ymin: -1e308, sizeX: 1.7e308, sizeY: 1.7e308 });
      writeFileSync(join(run, f), JSON.stringify(doc));
    }
    const r = await cli('check', run, run);
    expect(r.code, r.err).toBe(2);
    expect(r.err).toMatch(/\.json\.grid\.xmin: expected a number in \[-9007199254740992, 9007199254740992\], found -1e\+308/);
  });
  it('grid-message-names-no-file: a grid refused by the core checks names the side and the file it was built for', async () => {
    const f = join(d, 'small.npy');
    const r = await cli('compare', f, join(d, 'small.npy'), '--extent=-1e308,-1e308,1.7e308,1.7e308', '--row-direction', 'row0-at-ymin');
    expect(r.code, r.err).toBe(2);
    expect(r.err).toBe(`heightbench: reference ${f}: grid.xmin: expected within ±9007199254740992 m (2^53), got -1e+308\n`);
  });
  it('export-tiles-null-range: a store whose description range is null exits 2 naming the field', async () => {
    const { readFileSync } = await import('node:fs');
    const store = join(d, 'null-range.hbt');
    expect((await cli('terrain', 'create', store, '--tile-samples', '16', '--tiles', '1')).code).toBe(0);
    const b = readFileSync(store);
    const jl = b.readUInt32LE(12);
    const header = JSON.parse(b.subarray(16, 16 + jl).toString('utf8')) as { description: { range: unknown } };
    header.description.range = null;
    const text = Buffer.from(JSON.stringify(header));
    const len = Buffer.alloc(4);
    len.writeUInt32LE(text.length);
    writeFileSync(store, Buffer.concat([b.subarray(0, 12), len, text, b.subarray(16 + jl)]));
    const r = await cli('terrain', 'export-tiles', store, join(d, 'tiles'));
    expect(r.code, r.err).toBe(2);
    expect(r.err).toMatch(/header\.description\.range: expected an object/);
  });
});
