/**
 * TIFF / GeoTIFF writer: one band of uint16 or float32 samples to the bytes of a baseline little-endian TIFF that GDAL,
 * tifffile and decodeTiff read back exactly.
 *
 * Inputs: width, height, the samples row-major (row 0 first), an optional georeference, nodata, compression, tile size
 * and ImageDescription text. Output: the file's bytes; the same input gives the same bytes (no timestamps, no software
 * tag, fixed deflate level).
 *
 * Rules [R]:
 *  - Layout: header, IFD 0, its out-of-line values, then the strips or tiles in order. Strips hold as many rows as fit in
 *    64 KiB (at least one); tiles are `tile`×`tile`, a multiple of 16 as TIFF 6.0 requires, edge tiles padded with 0.
 *  - Compression 'deflate' (the default) is Compression 8 through node:zlib at level 6 with predictor 2 (horizontal) for
 *    uint16 and 3 (floating point) for float32, GDAL's recommended pairs; 'none' is Compression 1 without predictor.
 *  - GeoTIFF: ModelPixelScale + ModelTiepoint (PixelIsArea, tiepoint = corner of pixel (0,0)) and a GeoKeyDirectory
 *    with GTModelTypeGeoKey = 32767 (user-defined) and GTRasterTypeGeoKey = 1 (PixelIsArea). No CRS is known, so none
 *    is claimed: GDAL 3.10 reads this as a local (engineering) CRS "unnamed" with unknown units, without a warning. A row0-at-ymin field is written flipped (the
 *    file's row 0 is the field's last row) so every file is north-up; GDAL also reads a ModelTransformation with a
 *    positive y step, but many other GeoTIFF readers assume north-up pixel-scale files.
 *  - GDAL_NODATA (tag 42113) as text when nodata is given: the shortest decimal that reads back as the same number,
 *    "nan", "inf" or "-inf". It must be representable in the sample type.
 *  - The samples' typed arrays are taken as little-endian (the host order on x86-64 and arm64).
 */
import { deflateSync } from 'node:zlib';
import { InputRangeError, InputTypeError } from '../../errors.js';
import type { RasterGeoreference } from './decoded-image.js';

export interface TiffEncodeOptions {
  readonly width: number;
  readonly height: number;
  readonly values: Uint16Array | Float32Array;
  readonly georeference: RasterGeoreference | null;
  readonly nodata?: number | null;
  readonly compression?: 'none' | 'deflate';
  /** Tile side (multiple of 16) for a tiled file; strips when null or absent. */
  readonly tile?: number | null;
  /** ImageDescription text (UTF-8, no NUL). */
  readonly description?: string;
}

const SHORT = 3;
const LONG = 4;
const DOUBLE = 12;
const ASCII = 2;

interface Entry {
  readonly tag: number;
  readonly type: number;
  readonly count: number;
  /** The value bytes, little-endian, before alignment. */
  readonly data: Uint8Array;
}

function shorts(tag: number, v: number[]): Entry {
  const d = new Uint8Array(v.length * 2);
  const dv = new DataView(d.buffer);
  v.forEach((x, i) => dv.setUint16(i * 2, x, true));
  return { tag, type: SHORT, count: v.length, data: d };
}
function longs(tag: number, v: number[]): Entry {
  const d = new Uint8Array(v.length * 4);
  const dv = new DataView(d.buffer);
  v.forEach((x, i) => dv.setUint32(i * 4, x, true));
  return { tag, type: LONG, count: v.length, data: d };
}
function doubles(tag: number, v: number[]): Entry {
  const d = new Uint8Array(v.length * 8);
  const dv = new DataView(d.buffer);
  v.forEach((x, i) => dv.setFloat64(i * 8, x, true));
  return { tag, type: DOUBLE, count: v.length, data: d };
}
function ascii(tag: number, text: string): Entry {
  const body = new TextEncoder().encode(text);
  const d = new Uint8Array(body.length + 1);
  d.set(body);
  return { tag, type: ASCII, count: d.length, data: d };
}

/** GDAL_NODATA text that GDAL (CPLAtof) and decodeTiff read back as the same number. */
export function nodataText(v: number): string {
  if (Number.isNaN(v)) return 'nan';
  if (v === Infinity) return 'inf';
  if (v === -Infinity) return '-inf';
  return String(v);
}

/** Applies horizontal differencing (predictor 2) to one row of uint16 words, right to left. */
function diffRow16(row: Uint16Array): void {
  for (let i = row.length - 1; i > 0; i--) row[i] = row[i] - row[i - 1];
}

/** Floating-point predictor (3) for one row of float32: byte planes most significant first, then byte differences. */
function floatPredictRow(src: Uint8Array, out: Uint8Array): void {
  const wc = src.length / 4;
  for (let b = 0; b < 4; b++) {
    const plane = b * wc;
    const from = 3 - b;
    for (let i = 0; i < wc; i++) out[plane + i] = src[i * 4 + from];
  }
  for (let i = out.length - 1; i > 0; i--) out[i] = out[i] - out[i - 1];
}

/** Encodes one band as a (Geo)TIFF; see the file header for the layout and the choices. */
export function encodeTiff(o: TiffEncodeOptions): Uint8Array {
  const { width, height, values } = o;
  if (!Number.isInteger(width) || !Number.isInteger(height) || width < 1 || height < 1 || width > 0xffffffff || height > 0xffffffff) {
    throw new InputRangeError(`encodeTiff: width × height ${width}×${height}, expected positive integers`);
  }
  const float = values instanceof Float32Array;
  if (!float && !(values instanceof Uint16Array)) throw new InputTypeError('encodeTiff: values must be a Uint16Array or a Float32Array');
  if (values.length !== width * height) throw new InputRangeError(`encodeTiff: ${values.length} values for ${width}×${height}, expected ${width * height}`);
  const compression = o.compression ?? 'deflate';
  if (compression !== 'none' && compression !== 'deflate')
    throw new InputRangeError(`encodeTiff: compression ${JSON.stringify(compression)}, expected "none" or "deflate"`);
  const tile = o.tile ?? null;
  if (tile !== null && !(Number.isInteger(tile) && tile >= 16 && tile % 16 === 0 && tile <= 65536)) {
    throw new InputRangeError(`encodeTiff: tile ${tile}, expected a multiple of 16 from 16 to 65536 (TIFF 6.0)`);
  }
  const sampleBytes = float ? 4 : 2;
  const nodata = o.nodata ?? null;
  if (nodata !== null) {
    const ok = float ? Number.isNaN(nodata) || Math.fround(nodata) === nodata : Number.isInteger(nodata) && nodata >= 0 && nodata <= 65535;
    if (!ok) throw new InputRangeError(`encodeTiff: nodata ${nodata} is not representable as ${float ? 'float32' : 'uint16'}`);
  }
  const geo = o.georeference;
  if (geo !== null) {
    for (const k of ['xmin', 'ymin', 'sizeX', 'sizeY'] as const) {
      if (!Number.isFinite(geo[k])) throw new InputRangeError(`encodeTiff: georeference.${k} is ${geo[k]}, expected a finite number`);
    }
    if (!(geo.sizeX > 0 && geo.sizeY > 0)) throw new InputRangeError(`encodeTiff: georeference size ${geo.sizeX}×${geo.sizeY}, expected positive`);
  }
  if (o.description !== undefined && o.description.includes('\0')) throw new InputRangeError('encodeTiff: description contains a NUL character');

  // The file's row r is the field's row r, or its row height-1-r when the field is row0-at-ymin (written north-up).
  const flip = geo !== null && geo.rowDirection === 'row0-at-ymin';
  const bytesLE = new Uint8Array(values.buffer, values.byteOffset, values.byteLength);
  const bw = tile ?? width;
  const bh = tile ?? Math.max(1, Math.min(height, Math.floor(65536 / (width * sampleBytes))));
  const across = Math.ceil(width / bw);
  const down = Math.ceil(height / bh);
  const rowBytes = bw * sampleBytes;
  const deflate = compression === 'deflate';
  const blocks: Uint8Array[] = [];
  const scratch = new Uint8Array(rowBytes);
  for (let by = 0; by < down; by++) {
    const rows = tile !== null ? bh : Math.min(bh, height - by * bh);
    for (let bx = 0; bx < across; bx++) {
      const block = new Uint8Array(rows * rowBytes);
      const cols = Math.min(bw, width - bx * bw);
      for (let r = 0; r < rows; r++) {
        const y = by * bh + r;
        if (y >= height) break;
        const srcRow = flip ? height - 1 - y : y;
        const from = (srcRow * width + bx * bw) * sampleBytes;
        block.set(bytesLE.subarray(from, from + cols * sampleBytes), r * rowBytes);
      }
      if (deflate) {
        for (let r = 0; r < rows; r++) {
          if (float) {
            scratch.set(block.subarray(r * rowBytes, (r + 1) * rowBytes));
            floatPredictRow(scratch, block.subarray(r * rowBytes, (r + 1) * rowBytes));
          } else {
            diffRow16(new Uint16Array(block.buffer, r * rowBytes, bw));
          }
        }
        blocks.push(new Uint8Array(deflateSync(block, { level: 6 })));
      } else {
        blocks.push(block);
      }
    }
  }

  const entries: Entry[] = [longs(256, [width]), longs(257, [height]), shorts(258, [sampleBytes * 8]), shorts(259, [deflate ? 8 : 1]), shorts(262, [1])];
  if (o.description !== undefined) entries.push(ascii(270, o.description));
  entries.push(shorts(277, [1]));
  if (tile === null) entries.push(longs(278, [bh]));
  entries.push(shorts(284, [1]));
  if (deflate) entries.push(shorts(317, [float ? 3 : 2]));
  if (tile !== null) entries.push(longs(322, [tile]), longs(323, [tile]));
  entries.push(shorts(339, [float ? 3 : 1]));
  if (geo !== null) {
    const sx = geo.sizeX / width;
    const sy = geo.sizeY / height;
    entries.push(doubles(33550, [sx, sy, 0]));
    entries.push(doubles(33922, [0, 0, 0, geo.xmin, geo.ymin + geo.sizeY, 0]));
    // Version 1.1.0, 2 keys: GTModelTypeGeoKey = 32767 (user-defined), GTRasterTypeGeoKey = 1 (PixelIsArea).
    entries.push(shorts(34735, [1, 1, 0, 2, 1024, 0, 1, 32767, 1025, 0, 1, 1]));
  }
  if (nodata !== null) entries.push(ascii(42113, nodataText(nodata)));
  // Offsets and byte counts: placeholders of the right size, filled in once the layout is known.
  const offTag = tile !== null ? 324 : 273;
  const cntTag = tile !== null ? 325 : 279;
  entries.push(
    longs(
      offTag,
      blocks.map(() => 0),
    ),
  );
  entries.push(
    longs(
      cntTag,
      blocks.map((b) => b.length),
    ),
  );
  entries.sort((p, q) => p.tag - q.tag);

  const ifdAt = 8;
  const ifdSize = 2 + entries.length * 12 + 4;
  let at = ifdAt + ifdSize;
  const valueAt = new Map<number, number>();
  for (const e of entries) {
    if (e.data.length > 4) {
      at += at & 1; // word alignment (TIFF 6.0)
      valueAt.set(e.tag, at);
      at += e.data.length;
    }
  }
  at += at & 1;
  const blockAt: number[] = [];
  for (const b of blocks) {
    blockAt.push(at);
    at += b.length;
  }
  if (at > 0xffffffff) throw new InputRangeError(`encodeTiff: the file would be ${at} bytes, over the 4 GiB of a classic TIFF`);
  const offEntry = entries.findIndex((e) => e.tag === offTag);
  entries[offEntry] = longs(offTag, blockAt);

  const out = new Uint8Array(at);
  const dv = new DataView(out.buffer);
  out[0] = 0x49;
  out[1] = 0x49;
  dv.setUint16(2, 42, true);
  dv.setUint32(4, ifdAt, true);
  dv.setUint16(ifdAt, entries.length, true);
  entries.forEach((e, i) => {
    const p = ifdAt + 2 + i * 12;
    dv.setUint16(p, e.tag, true);
    dv.setUint16(p + 2, e.type, true);
    dv.setUint32(p + 4, e.count, true);
    const v = valueAt.get(e.tag);
    if (v === undefined) {
      out.set(e.data, p + 8);
    } else {
      dv.setUint32(p + 8, v, true);
      out.set(e.data, v);
    }
  });
  dv.setUint32(ifdAt + 2 + entries.length * 12, 0, true);
  blocks.forEach((b, i) => out.set(b, blockAt[i]));
  return out;
}
