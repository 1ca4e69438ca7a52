/**
 * TIFF / GeoTIFF: decodeTiff reads exactly what independent writers wrote, and encodeTiff writes what they read.
 *
 * Peers (the project's venv, run as .venv/bin/python; a missing peer fails the suite): tifffile + imagecodecs and
 * rasterio (GDAL 3.10) write the read matrix (test/peers/tiff_write.py) and read the files encodeTiff made
 * (test/peers/tiff_read.py). The real raster is terra's ex/elev.tif (test/fixtures/real/elev.tif.PROVENANCE.md).
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { deflateSync } from 'node:zlib';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FormatError, LimitError } from '../src/errors.js';
import { decodeTiff, encodeTiff, horizontalLoops, horizontalOnKernel } from '../src/io/formats/tiff.js';
import { fileSource } from '../src/io/byte-source.js';
import type { DecodedRaster, RasterGeoreference } from '../src/io/formats/decoded-image.js';
import { tempDir, testRandom } from './helpers.js';

const root = join(import.meta.dirname, '..');
const python = join(root, '.venv', 'bin', 'python');
const peers = join(root, 'test', 'peers');
const LIMITS = { pixelLimit: 1 << 28 };

function peer(script: string, args: string[]): unknown {
  const r = spawnSync(python, [join(peers, script), ...args], { encoding: 'utf8', maxBuffer: 64 << 20 });
  if (r.error) throw new Error(`peer ${script} could not start (${python}): ${r.error.message}`);
  if (r.status !== 0) throw new Error(`peer ${script} failed (${r.status}): ${r.stderr}`);
  return JSON.parse(r.stdout);
}

interface Written {
  file: string;
  writer: 'tifffile' | 'rasterio';
  dtype: string;
  width: number;
  height: number;
  bands: number;
  options: { layout: string; compression: string; predictor: number; byteorder?: string };
  bounds?: [number, number, number, number];
  transform?: [number, number, number, number, number, number];
  nodata?: number | string | null;
}

interface ReadBack {
  file: string;
  rasterio: {
    width: number;
    height: number;
    count: number;
    dtype: string;
    bounds: [number, number, number, number];
    transform: [number, number, number, number, number, number];
    nodata: number | string | null;
    crs: string | null;
    area_or_point: string | null;
  };
  tifffile: {
    compression: number;
    predictor: number;
    tiled: boolean;
    tile: number[] | null;
    rowsperstrip: number;
    dtype: string;
    shape: number[];
    pages: number;
  };
  warnings: string[];
}

const jsonNumber = (v: number | string | null | undefined): number | null => {
  if (v === null || v === undefined) return null;
  if (v === 'nan') return NaN;
  if (v === 'inf') return Infinity;
  if (v === '-inf') return -Infinity;
  return Number(v);
};

const sampleBytes = (raster: DecodedRaster): Uint8Array => new Uint8Array(raster.values.buffer, raster.values.byteOffset, raster.values.byteLength);

/** Compares sample bytes exactly (NaN payloads and −0 included) and reports the first difference. */
function expectSameBytes(got: Uint8Array, want: Uint8Array, what: string): void {
  expect(got.length, `${what}: byte length`).toBe(want.length);
  const at = got.findIndex((b, i) => b !== want[i]);
  expect(at, `${what}: first differing byte`).toBe(-1);
}

/** The extent rasterio's bounds and transform say: left edge, lower edge, sizes, and row direction from the y step. */
function extentFromRasterio(bounds: number[], transform: number[]): Omit<RasterGeoreference, 'source'> {
  const [left, bottom, right, top] = bounds;
  return {
    xmin: left,
    ymin: Math.min(bottom, top),
    sizeX: right - left,
    sizeY: Math.abs(top - bottom),
    rowDirection: transform[4] < 0 ? 'row0-at-ymax' : 'row0-at-ymin',
  };
}

function expectExtent(g: RasterGeoreference | null, want: Omit<RasterGeoreference, 'source'>, what: string): void {
  expect(g, `${what}: georeference`).not.toBeNull();
  const r = g as RasterGeoreference;
  const tol = 1e-9 * Math.max(1, Math.abs(want.xmin), Math.abs(want.ymin), want.sizeX, want.sizeY);
  expect(Math.abs(r.xmin - want.xmin), `${what}: xmin ${r.xmin} vs ${want.xmin}`).toBeLessThanOrEqual(tol);
  expect(Math.abs(r.ymin - want.ymin), `${what}: ymin ${r.ymin} vs ${want.ymin}`).toBeLessThanOrEqual(tol);
  expect(Math.abs(r.sizeX - want.sizeX), `${what}: sizeX`).toBeLessThanOrEqual(tol);
  expect(Math.abs(r.sizeY - want.sizeY), `${what}: sizeY`).toBeLessThanOrEqual(tol);
  expect(r.rowDirection, `${what}: rowDirection`).toBe(want.rowDirection);
}

let dir = '';
let written: Written[] = [];
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'hb-tiff-'));
  written = peer('tiff_write.py', [dir]) as Written[];
});
afterAll(() => {
  if (dir !== '') rmSync(dir, { recursive: true, force: true });
});

const read = (name: string, sel = {}): Promise<DecodedRaster> => decodeTiff(new Uint8Array(readFileSync(join(dir, name))), name, sel, LIMITS);

describe('decodeTiff reads what tifffile and GDAL wrote', () => {
  it('covers the whole matrix: 4 sample types × strips/tiles × none/deflate/LZW × every predictor, both byte orders', () => {
    const key = (w: Written): string =>
      `${w.writer} ${w.dtype} ${w.options.layout} ${w.options.compression} p${w.options.predictor} ${w.options.byteorder ?? ''}`;
    const keys = new Set(written.map(key));
    for (const dtype of ['uint16', 'int16', 'float32', 'float64']) {
      for (const layout of ['strips', 'tiles']) {
        for (const comp of ['none', 'deflate', 'lzw']) {
          const floats = dtype.startsWith('float');
          const preds = comp === 'none' ? [1] : floats ? [1, 3] : [1, 2];
          for (const p of preds) for (const bo of ['<', '>']) expect(keys.has(`tifffile ${dtype} ${layout} ${comp} p${p} ${bo}`)).toBe(true);
          for (const p of comp === 'none' ? [1] : floats ? [1, 2, 3] : [1, 2]) expect(keys.has(`rasterio ${dtype} ${layout} ${comp} p${p} `)).toBe(true);
        }
      }
    }
    expect(written.length).toBeGreaterThanOrEqual(128);
  });

  it('returns exactly the written samples, type, size and layout for every file', async () => {
    for (const w of written) {
      const r = await read(w.file, w.bands > 1 ? { channel: '2' } : {});
      const what = `${w.file} (${r.description})`;
      expect(r.container).toBe('tiff');
      expect([r.width, r.height], what).toEqual([w.width, w.height]);
      expect(r.sampleType, what).toBe(w.dtype);
      expect(r.unorm16).toBe(false);
      expectSameBytes(sampleBytes(r), new Uint8Array(readFileSync(join(dir, `${w.file}.raw`))), what);
      const comp = { none: 'none', deflate: 'deflate', lzw: 'LZW', packbits: 'PackBits' }[w.options.compression] as string;
      expect(r.description, what).toContain(comp);
      expect(r.description, what).toContain(`predictor ${w.options.predictor}`);
      expect(r.description, what).toContain(w.options.layout === 'tiles' ? 'tiled 16×16' : 'strips of');
    }
  });

  it('reads every file from the file (blocks read into reused buffers, LZW into its kernel) exactly as from its bytes', async () => {
    for (const w of written) {
      const sel = w.bands > 1 ? { channel: '2' } : {};
      const src = fileSource(join(dir, w.file));
      try {
        const r = await decodeTiff(src, w.file, sel, LIMITS);
        const m = await read(w.file, sel);
        expectSameBytes(sampleBytes(r), new Uint8Array(readFileSync(join(dir, `${w.file}.raw`))), `${w.file} from the file`);
        expect(r.description, w.file).toBe(m.description);
      } finally {
        src.close();
      }
    }
  });

  it('float16 samples widen exactly to float32', async () => {
    const r = await read('tf_float16_deflate_p3.tif');
    expect(r.sampleType).toBe('float16');
    expect(r.values).toBeInstanceOf(Float32Array);
    expect(Array.from(r.values.subarray(0, 6))).toEqual([NaN, Infinity, -Infinity, -0, 1.1920928955078125e-7, 65504]);
  });

  it('picks a band of a multi-sample file by 1-based index or R/G/B, chunky and planar', async () => {
    const green = new Uint8Array(readFileSync(join(dir, 'tf_rgb_contig.tif.raw')));
    for (const f of ['tf_rgb_contig.tif', 'tf_rgb_planar.tif']) {
      expectSameBytes(sampleBytes(await read(f, { channel: 'G' })), green, `${f} G`);
      expectSameBytes(sampleBytes(await read(f, { channel: '2' })), green, `${f} 2`);
      expect((await read(f, { channel: 'B' })).description).toContain('band 3 of 3');
      await expect(read(f)).rejects.toThrow(/SamplesPerPixel 3; choose a band with a channel \(1, 2, 3, R, G, B\)/);
      await expect(read(f, { channel: '4' })).rejects.toThrow(/channel "4" is not available; SamplesPerPixel 3/);
    }
    await expect(read('tf_nogeo.tif', { channel: 'R' })).rejects.toThrow(/channel "R" is not available; SamplesPerPixel 1, choices: 1/);
    await expect(read('tf_nogeo.tif', { level: 1 })).rejects.toThrow(/no level 1/);
  });

  it('gives the extent and row direction rasterio reports, and GDAL_NODATA', async () => {
    const geo = written.filter((w) => w.bounds !== undefined);
    expect(geo.length).toBeGreaterThan(40);
    for (const w of geo) {
      const r = await read(w.file);
      expectExtent(r.georeference, extentFromRasterio(w.bounds as number[], w.transform as number[]), w.file);
      const nd = jsonNumber(w.nodata);
      expect(Object.is(r.nodata, nd) || r.nodata === nd, `${w.file}: nodata ${r.nodata} vs ${nd}`).toBe(true);
    }
    const south = await read('gd_south_up.tif');
    expect(south.georeference?.rowDirection).toBe('row0-at-ymin');
    expect(south.georeference?.source).toContain('ModelTransformation');
    expect(south.nodata).toBeNaN();
    const point = await read('gd_point.tif');
    expect(point.georeference?.source).toContain('PixelIsPoint');
    // GDAL wrote the tiepoint (1005, 1995) at the centre of pixel (0,0); the area starts half a 10 m pixel before.
    expect([point.georeference?.xmin, point.georeference?.ymin]).toEqual([1000, 2000 - 37 * 10]);
    expect(point.nodata).toBe(-Infinity);
    expect((await read('gd_nocrs.tif')).nodata).toBe(Infinity);
    const southPoint = await read('gd_south_point.tif');
    expect(southPoint.georeference?.source).toMatch(/^ModelTransformation, PixelIsPoint/);
    expect([southPoint.georeference?.xmin, southPoint.georeference?.ymin, southPoint.georeference?.rowDirection]).toEqual([10, -30, 'row0-at-ymin']);
    // Raster (10, 5) tied to (1000, 2000) with 2 × 3 pixels: column 0 starts 20 to the west, row 0 15 to the north.
    const og = (await read('tf_tiepoint_offset.tif')).georeference as RasterGeoreference;
    expect([og.xmin, og.ymin + og.sizeY, og.rowDirection]).toEqual([980, 2015, 'row0-at-ymax']);
    expect((await read('gd_float32_tiles_deflate_p3.tif')).description).toContain('EPSG:32633');
    expect((await read('tf_nogeo.tif')).georeference).toBeNull();
  });
});

describe('the real raster: terra ex/elev.tif', () => {
  it('reads the same int16 values, bounds and nodata as rasterio', async () => {
    const path = join(root, 'test', 'fixtures', 'real', 'elev.tif');
    const copy = join(dir, 'elev.tif');
    writeFileSync(copy, readFileSync(path));
    const [rb] = peer('tiff_read.py', [copy]) as ReadBack[];
    const r = await decodeTiff(new Uint8Array(readFileSync(path)), 'elev.tif', {}, LIMITS);
    expect([r.width, r.height, r.sampleType]).toEqual([95, 90, 'int16']);
    expect(rb.rasterio.dtype).toBe('int16');
    expectSameBytes(sampleBytes(r), new Uint8Array(readFileSync(`${copy}.rio.raw`)), 'elev.tif vs rasterio');
    expectExtent(r.georeference, extentFromRasterio(rb.rasterio.bounds, rb.rasterio.transform), 'elev.tif');
    expect(r.nodata).toBe(jsonNumber(rb.rasterio.nodata));
    expect(r.description).toContain('EPSG:4326');
    // The file's own GDAL_METADATA says STATISTICS_MINIMUM 141 and STATISTICS_MAXIMUM 547 (metres, Luxembourg).
    const valid = Array.from(r.values).filter((v) => v !== r.nodata);
    expect([Math.min(...valid), Math.max(...valid)]).toEqual([141, 547]);
  });
});

describe('decoders-given-a-node-buffer', () => {
  it('elev.tif as a Buffer view inside a larger allocation decodes exactly as the plain bytes (geotiff reads the IFD from copies, not views)', async () => {
    const plain = new Uint8Array(readFileSync(join(root, 'test', 'fixtures', 'real', 'elev.tif')));
    const pool = Buffer.alloc(plain.length + 24, 0x4d);
    pool.set(plain, 8);
    const r = await decodeTiff(pool.subarray(8, 8 + plain.length), 'elev.tif', {}, LIMITS);
    const want = await decodeTiff(plain, 'elev.tif', {}, LIMITS);
    expect([r.width, r.height, r.values.length]).toEqual([95, 90, 95 * 90]);
    expectSameBytes(sampleBytes(r), sampleBytes(want), 'Buffer view vs plain bytes');
    expect(r.georeference).toEqual(want.georeference);
  });
});

describe('decodeTiff refuses what it cannot read, naming the value', () => {
  it('sample types other than 16-bit integers and floats', async () => {
    await expect(read('bad_uint8.tif')).rejects.toThrow(/SampleFormat 1 \(unsigned integer\) with BitsPerSample 8 is not supported/);
    await expect(read('bad_uint32.tif')).rejects.toThrow(/SampleFormat 1 \(unsigned integer\) with BitsPerSample 32/);
    await expect(read('bad_int32.tif')).rejects.toThrow(/SampleFormat 2 \(signed integer\) with BitsPerSample 32/);
    await expect(read('bad_complex64.tif')).rejects.toThrow(/SampleFormat 6 \(complex float\) with BitsPerSample 64/);
    await expect(read('bad_uint8.tif')).rejects.toBeInstanceOf(FormatError);
  });

  it('compressions other than none, LZW, deflate and PackBits', async () => {
    await expect(read('bad_zstd.tif')).rejects.toThrow(/Compression 50000 \(ZSTD\) is not supported/);
    await expect(read('bad_lerc.tif')).rejects.toThrow(/Compression 34887 \(LERC\) is not supported/);
  });

  it('a rotated ModelTransformation, naming the terms', async () => {
    await expect(read('bad_rotated.tif')).rejects.toThrow(/rotated or sheared \(row\/column terms b = 0.5, e = 0.25\)/);
  });

  it('regression fixture both-georeferencings: pixel scale + tiepoint and a ModelTransformation that disagree are refused', async () => {
    await expect(read('bad_both_georef.tif')).rejects.toThrow(
      /ModelPixelScale \+ ModelTiepoint \(x step 2, .*\) and a ModelTransformation that says otherwise/,
    );
  });

  it('a truncated file, at every cut, with a FormatError', async () => {
    const whole = new Uint8Array(readFileSync(join(dir, 'gd_float32_tiles_deflate_p3.tif')));
    const cuts = [0, 4, 7, 8, 9, 100, 300, Math.floor(whole.length / 2), whole.length - 1];
    for (const cut of cuts) {
      const e = await decodeTiff(whole.slice(0, cut), 'cut.tif', {}, LIMITS).then(
        () => null,
        (x: unknown) => x,
      );
      expect(e, `cut at ${cut}`).toBeInstanceOf(FormatError);
      expect((e as Error).message, `cut at ${cut}`).toMatch(/^cut\.tif: /);
    }
    await expect(decodeTiff(whole.slice(0, whole.length - 1), 'cut.tif', {}, LIMITS)).rejects.toThrow(
      /lies beyond the end of the file \(\d+ bytes; truncated\?\)/,
    );
  });

  it('random corruption (header, IFD or compressed data) never escapes as anything but a FormatError or LimitError', async () => {
    let seed = 7;
    const rnd = (): number => (seed = (seed * 1103515245 + 12345) >>> 0) / 2 ** 32;
    for (const f of [
      'tf_le_uint16_strips_lzw_p2.tif',
      'gd_float32_tiles_deflate_p3.tif',
      'tf_rgb_planar.tif',
      'tf_uint16_packbits.tif',
      'tf_be_float64_tiles_lzw_p3.tif',
    ]) {
      const whole = new Uint8Array(readFileSync(join(dir, f)));
      let refused = 0;
      for (let k = 0; k < 150; k++) {
        const b = whole.slice();
        // Half the trials hit the first 400 bytes (header and IFD), half anywhere (mostly compressed data).
        const span = k % 2 === 0 ? Math.min(b.length, 400) : b.length;
        for (let n = 0; n < 4; n++) b[Math.floor(rnd() * span)] = Math.floor(rnd() * 256);
        const e = await decodeTiff(b, 'noise.tif', { channel: f.includes('rgb') ? '2' : undefined }, LIMITS).then(
          () => null,
          (x: unknown) => x,
        );
        if (e !== null) {
          refused++;
          expect(e instanceof FormatError || e instanceof LimitError, `${f} trial ${k}: ${String(e)}`).toBe(true);
          expect((e as Error).message, `${f} trial ${k}`).toMatch(/^noise\.tif: /);
        }
      }
      expect(refused, `${f}: some corruptions are detected`).toBeGreaterThan(0);
    }
  });

  it('a huge declared size: over the pixel limit before anything is allocated, else beyond the bytes present', async () => {
    const b = encodeTiff({ width: 20, height: 10, values: new Uint16Array(200), georeference: null, compression: 'none' });
    const dv = new DataView(b.buffer);
    const n = dv.getUint16(8, true);
    const setLong = (tag: number, v: number): void => {
      for (let i = 0; i < n; i++) if (dv.getUint16(10 + 12 * i, true) === tag) dv.setUint32(10 + 12 * i + 8, v, true);
    };
    setLong(256, 100000);
    setLong(257, 100000);
    await expect(decodeTiff(b, 'huge.tif', {}, LIMITS)).rejects.toThrow(/huge\.tif: TIFF 100000x100000 = 10000000000 samples, over the limit of 268435456/);
    await expect(decodeTiff(b, 'huge.tif', {}, LIMITS)).rejects.toBeInstanceOf(LimitError);
    setLong(256, 4000);
    setLong(257, 4000);
    await expect(decodeTiff(b, 'big.tif', {}, LIMITS)).rejects.toThrow(
      /big\.tif: TIFF StripOffsets\/StripByteCounts list 1\/1 blocks, expected 400 for 4000×4000 in 4000×10 blocks/,
    );
    // An IFD entry claiming 2^30 values is refused before geotiff would allocate them.
    const c = encodeTiff({ width: 20, height: 10, values: new Uint16Array(200), georeference: null, compression: 'none' });
    const cv = new DataView(c.buffer);
    for (let i = 0; i < n; i++) if (cv.getUint16(10 + 12 * i, true) === 273) cv.setUint32(10 + 12 * i + 4, 1 << 30, true);
    await expect(decodeTiff(c, 'count.tif', {}, LIMITS)).rejects.toThrow(
      /tag 273\)? declares 1073741824 values \(4294967296 bytes\) at byte \d+, beyond the end of the file/,
    );
  });
});

describe('a deflate block is inflated to its size and no further', () => {
  /** A 20×10 uint16 deflate file whose one strip is `stream`, appended after the file's own bytes. */
  const withStrip = (stream: Uint8Array): Uint8Array => {
    const b = encodeTiff({ width: 20, height: 10, values: new Uint16Array(200), georeference: null });
    const out = new Uint8Array(b.length + stream.length);
    out.set(b);
    out.set(stream, b.length);
    const dv = new DataView(out.buffer);
    const n = dv.getUint16(8, true);
    for (let i = 0; i < n; i++) {
      const at = 10 + 12 * i;
      const tag = dv.getUint16(at, true);
      if (tag !== 273 && tag !== 279) continue;
      expect([dv.getUint16(at + 2, true), dv.getUint32(at + 4, true)], `tag ${tag}: one LONG`).toEqual([4, 1]);
      dv.setUint32(at + 8, tag === 273 ? b.length : stream.length, true);
    }
    return out;
  };

  it('a strip inflating to exactly its 400 bytes is read; one byte more is refused naming the size, from bytes and from a file', async () => {
    const fill = Uint8Array.from({ length: 401 }, (_, i) => (i * 7) & 0xff);
    const exact = withStrip(deflateSync(fill.subarray(0, 400)));
    const over = withStrip(deflateSync(fill));
    const tmp = tempDir('hb-tiff-bomb-');
    for (const [name, bytes] of [
      ['exact.tif', exact],
      ['over.tif', over],
    ] as const)
      writeFileSync(join(tmp, name), bytes);
    const fromFile = async (name: string) => {
      const src = fileSource(join(tmp, name));
      try {
        return await decodeTiff(src, name, {}, LIMITS);
      } finally {
        src.close();
      }
    };
    // Predictor 2 undone on the 20-sample rows of the stream's bytes.
    const want = new Uint16Array(fill.buffer.slice(0, 400));
    for (let r = 0; r < 10; r++) for (let c = 1; c < 20; c++) want[r * 20 + c] = (want[r * 20 + c] + want[r * 20 + c - 1]) & 0xffff;
    for (const got of [await decodeTiff(exact, 'exact.tif', {}, LIMITS), await fromFile('exact.tif')]) expect(Array.from(got.values)).toEqual(Array.from(want));
    const refusal = /over\.tif: TIFF strip 0: deflate data is corrupt or inflates past 400 bytes/;
    await expect(decodeTiff(over, 'over.tif', {}, LIMITS)).rejects.toThrow(refusal);
    await expect(fromFile('over.tif')).rejects.toThrow(refusal);
    await expect(fromFile('over.tif')).rejects.toBeInstanceOf(FormatError);
  });
});

describe('predictor kernel', () => {
  it('swaps byte order and undoes horizontal differencing exactly as the loops do: 2- and 4-byte words, odd widths and tails', () => {
    const rnd = testRandom(0x9e2);
    let onKernel = 0;
    for (const size of [2, 4]) {
      for (const wc of [1, 2, 3, 4, 5, 7, 8, 9, 15, 16, 17, 31, 33, 53, 256, 257]) {
        for (const rows of [1, 3]) {
          for (const swap of [false, true]) {
            for (const sum of [false, true]) {
              const rowBytes = wc * size;
              const block = Uint8Array.from({ length: rows * rowBytes + 8 }, () => Math.floor(rnd() * 256));
              const loops = block.slice();
              horizontalLoops(loops, rows, rowBytes, size, swap, sum, 1);
              const got = horizontalOnKernel(block, rows, rowBytes, size, swap, sum);
              if (process.env.HEIGHTBENCH_NO_WASM === '1') {
                expect(got).toBeNull();
                continue;
              }
              expect(got, `size ${size} wc ${wc}`).not.toBeNull();
              const what = `size ${size}, ${wc} words × ${rows} rows, swap ${swap}, sum ${sum}`;
              expect(Buffer.from(got as Uint8Array).equals(Buffer.from(loops.subarray(0, rows * rowBytes))), what).toBe(true);
              onKernel++;
            }
          }
        }
      }
    }
    if (process.env.HEIGHTBENCH_NO_WASM !== '1') expect(onKernel).toBe(2 * 16 * 2 * 4);
  });
});

describe('encodeTiff writes what GDAL and tifffile read', () => {
  const W = 45;
  const H = 29;
  const u16 = new Uint16Array(W * H).map((_, i) => (i * 2654435761) >>> 16);
  const f32 = new Float32Array(W * H).map((_, i) => Math.sin(i / 7) * 800 + i * 0.125);
  f32.set([NaN, Infinity, -Infinity, -0, 1e-40], 0);
  const north: RasterGeoreference = { xmin: 350000, ymin: 5600000, sizeX: W * 30, sizeY: H * 30, rowDirection: 'row0-at-ymax', source: 'test' };
  const south: RasterGeoreference = { xmin: -512, ymin: -256, sizeX: W * 2, sizeY: H * 4, rowDirection: 'row0-at-ymin', source: 'test' };
  const cases = [
    { name: 'u16_strips_deflate', values: u16, georeference: north, nodata: 0, compression: 'deflate' as const, tile: null },
    { name: 'u16_tiles_none', values: u16, georeference: south, nodata: 65535, compression: 'none' as const, tile: 16 },
    { name: 'f32_tiles_deflate', values: f32, georeference: south, nodata: NaN, compression: 'deflate' as const, tile: 32 },
    { name: 'f32_strips_none', values: f32, georeference: north, nodata: -9999, compression: 'none' as const, tile: null },
    { name: 'f32_nogeo', values: f32, georeference: null, nodata: null, compression: 'deflate' as const, tile: null },
  ];

  /** The field's row order mapped to the file's: row0-at-ymin fields are written north-up (flipped). */
  const fileOrder = (v: Uint16Array | Float32Array, g: RasterGeoreference | null): Uint8Array => {
    const out = v.slice();
    if (g?.rowDirection === 'row0-at-ymin') for (let r = 0; r < H; r++) out.set(v.subarray((H - 1 - r) * W, (H - r) * W), r * W);
    return new Uint8Array(out.buffer);
  };

  it('values, bounds, transform, nodata and compression as GDAL and tifffile read them, with no GDAL warning', async () => {
    const paths = cases.map((c) => {
      const p = join(dir, `enc_${c.name}.tif`);
      writeFileSync(p, encodeTiff({ width: W, height: H, ...c, description: `heightbench test ${c.name}` }));
      return p;
    });
    const back = peer('tiff_read.py', paths) as ReadBack[];
    for (const [i, c] of cases.entries()) {
      const rb = back[i];
      const what = c.name;
      expect(rb.warnings, what).toEqual([]);
      expect([rb.rasterio.width, rb.rasterio.height, rb.rasterio.count, rb.rasterio.dtype], what).toEqual([
        W,
        H,
        1,
        c.values instanceof Float32Array ? 'float32' : 'uint16',
      ]);
      const want = fileOrder(c.values, c.georeference);
      expectSameBytes(new Uint8Array(readFileSync(`${paths[i]}.rio.raw`)), want, `${what} via rasterio`);
      expectSameBytes(new Uint8Array(readFileSync(`${paths[i]}.tf.raw`)), want, `${what} via tifffile`);
      expect(rb.tifffile.compression, what).toBe(c.compression === 'deflate' ? 8 : 1);
      expect(rb.tifffile.predictor, what).toBe(c.compression === 'deflate' ? (c.values instanceof Float32Array ? 3 : 2) : 1);
      expect(rb.tifffile.tiled, what).toBe(c.tile !== null);
      if (c.tile !== null) expect(rb.tifffile.tile, what).toEqual([c.tile, c.tile]);
      const nd = jsonNumber(rb.rasterio.nodata);
      expect(Object.is(nd, c.nodata) || nd === c.nodata, `${what}: nodata ${nd}`).toBe(true);
      const g = c.georeference;
      if (g === null) {
        expect(rb.rasterio.transform, what).toEqual([1, 0, 0, 0, 1, 0]); // GDAL's identity for no georeferencing
      } else {
        expect(rb.rasterio.bounds, what).toEqual([g.xmin, g.ymin, g.xmin + g.sizeX, g.ymin + g.sizeY]);
        expect(rb.rasterio.transform, what).toEqual([g.sizeX / W, 0, g.xmin, 0, -g.sizeY / H, g.ymin + g.sizeY]);
        expect(rb.rasterio.area_or_point, what).toBe('Area');
        expect(rb.rasterio.crs, what).toMatch(/^LOCAL_CS\["unnamed"|^ENGCRS\["unnamed"/);
      }
      // And heightbench's own reader: the same samples in file order and the same extent (north-up after the flip).
      const r = await decodeTiff(new Uint8Array(readFileSync(paths[i])), what, {}, LIMITS);
      expectSameBytes(sampleBytes(r), want, `${what} via decodeTiff`);
      if (g !== null) expectExtent(r.georeference, { ...g, rowDirection: 'row0-at-ymax' }, what);
      else expect(r.georeference).toBeNull();
      expect(Object.is(r.nodata, c.nodata)).toBe(true);
    }
  });

  it('is deterministic and refuses values it cannot write', () => {
    const o = { width: W, height: H, values: f32, georeference: north, nodata: NaN, tile: 16 };
    expect(Buffer.from(encodeTiff(o)).equals(Buffer.from(encodeTiff(o)))).toBe(true);
    expect(() => encodeTiff({ ...o, tile: 20 })).toThrow(/tile 20, expected a multiple of 16/);
    expect(() => encodeTiff({ ...o, nodata: 0.1 })).toThrow(/nodata 0.1 is not representable as float32/);
    expect(() => encodeTiff({ ...o, values: u16, nodata: -1 })).toThrow(/nodata -1 is not representable as uint16/);
    expect(() => encodeTiff({ ...o, width: W + 1 })).toThrow(/1305 values for 46×29, expected 1334/);
  });
});

describe('LZW kernel', () => {
  it('decodes what imagecodecs encoded exactly as the loop does: short, long (table resets), cut at max, and refusals', async () => {
    const { lzwDecode, lzwDecodeFast } = await import('../src/io/formats/tiff.js');
    const rnd = testRandom(0x12a);
    const inputs = [
      new Uint8Array(0),
      Uint8Array.of(7),
      new Uint8Array(5000).fill(3),
      Uint8Array.from({ length: 300_000 }, (_, i) => (i * 7 + ((i >> 9) & 3)) & 0xff), // long strings, table resets
      Uint8Array.from({ length: 200_000 }, () => Math.floor(rnd() * 256)), // incompressible: full tables
    ];
    const dir = tempDir('hb-lzw-');
    inputs.forEach((b, k) => writeFileSync(join(dir, `${k}.raw`), b));
    const py = spawnSync(
      join(import.meta.dirname, '..', '.venv', 'bin', 'python'),
      [
        '-c',
        'import sys, imagecodecs\nfor p in sys.argv[1:]:\n    open(p + ".lzw", "wb").write(imagecodecs.lzw_encode(open(p, "rb").read()))',
        ...inputs.map((_, k) => join(dir, `${k}.raw`)),
      ],
      { encoding: 'utf8' },
    );
    expect(py.status, py.stderr).toBe(0);
    for (const [k, raw] of inputs.entries()) {
      const enc = new Uint8Array(readFileSync(join(dir, `${k}.raw.lzw`)));
      for (const max of [raw.length, Math.floor(raw.length / 3), Math.min(1, raw.length), Math.min(17, raw.length), Math.max(0, raw.length - 1)]) {
        const fast = lzwDecodeFast(enc, max, 'x', 'strip 0');
        expect(Buffer.from(fast).equals(Buffer.from(lzwDecode(enc, max, 'x', 'strip 0'))), `input ${k}, max ${max}`).toBe(true);
        expect(Buffer.from(fast).equals(Buffer.from(raw.subarray(0, max))), `input ${k}, max ${max}: imagecodecs' bytes`).toBe(true);
      }
    }
    // Corrupt streams: the same refusal (or the same bytes) from both.
    for (let t = 0; t < 200; t++) {
      const enc = new Uint8Array(readFileSync(join(dir, '3.raw.lzw')).subarray(0, 2000));
      enc[Math.floor(rnd() * enc.length)] ^= 1 << Math.floor(rnd() * 8);
      const outcome = (f: typeof lzwDecode) => {
        try {
          return Buffer.from(f(enc, 8000, 'x', 'strip 0')).toString('hex');
        } catch (e) {
          return (e as Error).message;
        }
      };
      expect(outcome(lzwDecodeFast)).toBe(outcome(lzwDecode));
    }
  });
});
