/**
 * TIFF / GeoTIFF decoder: bytes in, one band of samples plus the file's georeferencing out (DecodedRaster).
 *
 * Inputs: the file as a ByteSource (or its bytes), the path for messages, a selection (channel = a 1-based band index,
 * or R/G/B/A for RGB files; level/slice are not offered) and the pixel limit.
 * Output: the first IFD's samples, row 0 = the first stored row, plus GeoTIFF extent/row direction and GDAL_NODATA.
 *
 * Rules:
 *  - Accepted samples: uint16 (SampleFormat 1), int16 (2), float16/float32/float64 (3), BitsPerSample 16/32/64 as
 *    listed; all samples of a pixel the same type. Anything else is refused naming SampleFormat and BitsPerSample.
 *  - Strips or tiles, chunky or planar; compression none (1), LZW (5), deflate (8, 32946), PackBits (32773),
 *    predictor 1, 2 (horizontal) or 3 (floating point); any other compression is refused by name.
 *  - [R] One parser of the header: readIfd0 below reads the header, IFD 0 and the values of the tags used, once, each
 *    range checked against the file first. A tag used that appears twice is refused (GDAL and tifffile read the
 *    first), as is a field type the tag cannot hold (an integer tag stored as FLOAT/DOUBLE/RATIONAL: GDAL refuses it,
 *    tifffile truncates it). The blocks are decoded here too: deflate through node:zlib (its limit clamped to what
 *    Node accepts), LZW and PackBits with bounded decoders, then the predictor undone and the band assembled.
 *  - Bounded by the data present, before anything is allocated in proportion to the file's claims: width × height
 *    within limits.pixelLimit and 2^20 a side; every strip/tile inside the file, holding enough bytes to decode to its
 *    rows (1× uncompressed, 64× PackBits, 1032× deflate), their byte counts together within the file's size; the
 *    image, its conversion and the blocks in flight within the reader budget (checkReaderMemory). Only IFD 0, the tag
 *    values and the selected band's blocks are read.
 *  - A block whose byte count is 0 is the one empty block TIFF readers define (GDAL's sparse files): read as GDAL
 *    reads it, the no-data value converted to the band's type, else 0.
 *  - GDAL_NODATA is compared in the band's type, as GDAL does: a float32 (or float16, a float32 band to GDAL) band's
 *    no-data is the text's value rounded to float32.
 *  - GeoTIFF: ModelPixelScale + ModelTiepoint, or a ModelTransformation without rotation or shear (refused, naming
 *    the terms). Under PixelIsArea (GTRasterTypeGeoKey 1, the default) the tiepoint ties the corner of pixel (0,0);
 *    under PixelIsPoint (2) it ties the pixel's centre, so the area extent starts half a pixel before it — the shift
 *    GDAL makes too. A positive ModelPixelScale y (y falls as the row grows) is north-up → row0-at-ymax; a negative one,
 *    or a transformation with a positive y step, → row0-at-ymin.
 *  - [R] Samples are handed back in the host's byte order through typed arrays; heightbench assumes a little-endian
 *    host (x86-64, arm64), as its other binary readers do.
 *  - summarizeTiff reads as decodeTiff does but hands each block's rows to a summary stream instead of the field
 *    (`info`), for one float32 band without GDAL_NODATA or empty blocks.
 *  - [R] The byte loops (LZW, predictors 2 and 3, byte order) run on WebAssembly kernels (wasm/tiff-*.wat), each held
 *    equal to its JavaScript loop, which serves where the kernels do not run (HEIGHTBENCH_NO_WASM=1).
 */
import { inflate } from 'node:zlib';
import { constants as bufferConstants } from 'node:buffer';
import { sourceOf, type DecoderInput, type ByteSource } from '../byte-source.js';
import { checkFieldSize, checkReaderMemory } from '../limits.js';
import { MAX_WORLD_COORDINATE } from '../../core/grid.js';
import { FormatError, LimitError } from '../../errors.js';
import { instantiateWasm, wasmDisabled } from '../../core/wasm.js';
import { TIFF_LZW_WASM_BASE64 } from './wasm/tiff-lzw-wasm.js';
import { TIFF_PREDICTOR_WASM_BASE64 } from './wasm/tiff-predictor-wasm.js';
import type { SummaryStream } from '../../core/summary.js';
import type { DecodedRaster, RasterGeoreference, RasterHeader, RasterLimits, RasterSampleType, RasterSelection, RasterValues } from './decoded-image.js';

export { encodeTiff, type TiffEncodeOptions } from './tiff-write.js';

/** The largest maxOutputLength node:zlib accepts. */
const ZLIB_MAX_OUTPUT = bufferConstants.MAX_LENGTH;

/** Compression ids heightbench decodes, with their names; others are named from COMPRESSION_NAMES when refused. */
const SUPPORTED_COMPRESSION: Record<number, string> = { 1: 'none', 5: 'LZW', 8: 'deflate', 32946: 'deflate (old id 32946)', 32773: 'PackBits' };
const COMPRESSION_NAMES: Record<number, string> = {
  2: 'CCITT RLE',
  3: 'CCITT G3',
  4: 'CCITT G4',
  6: 'old-style JPEG',
  7: 'JPEG',
  34661: 'JBIG',
  34676: 'SGILOG',
  34712: 'JPEG 2000',
  34887: 'LERC',
  34925: 'LZMA',
  50000: 'ZSTD',
  50001: 'WebP',
  50002: 'JPEG XL',
};

const T = {
  ImageWidth: 256,
  ImageLength: 257,
  BitsPerSample: 258,
  Compression: 259,
  Photometric: 262,
  StripOffsets: 273,
  SamplesPerPixel: 277,
  RowsPerStrip: 278,
  StripByteCounts: 279,
  PlanarConfiguration: 284,
  Predictor: 317,
  TileWidth: 322,
  TileLength: 323,
  TileOffsets: 324,
  TileByteCounts: 325,
  SampleFormat: 339,
  ModelPixelScale: 33550,
  ModelTiepoint: 33922,
  ModelTransformation: 34264,
  GeoKeyDirectory: 34735,
  GeoDoubleParams: 34736,
  GeoAsciiParams: 34737,
  GdalNodata: 42113,
} as const;

/** Bytes per value of each TIFF field type (TIFF 6.0 + BigTIFF); 0 = unknown type. */
const FIELD_TYPE_SIZE = [0, 1, 1, 2, 4, 8, 1, 1, 2, 4, 8, 4, 8, 4, 0, 0, 8, 8, 8];
const FIELD_TYPE_NAMES = [
  '',
  'BYTE',
  'ASCII',
  'SHORT',
  'LONG',
  'RATIONAL',
  'SBYTE',
  'UNDEFINED',
  'SSHORT',
  'SLONG',
  'SRATIONAL',
  'FLOAT',
  'DOUBLE',
  'IFD',
  '',
  '',
  'LONG8',
  'SLONG8',
  'IFD8',
];

/**
 * What each tag heightbench reads must hold, as libtiff (GDAL) and tifffile read it: integer tags accept the integer
 * field types only (libtiff's TIFFReadDirEntry* refuse FLOAT, DOUBLE and RATIONAL there), non-negative and safe;
 * the GeoTIFF model tags hold DOUBLE (FLOAT accepted); GDAL_NODATA holds ASCII.
 */
type TagKind = 'integer' | 'real' | 'ascii';
const TAG_SPEC: Record<number, { readonly name: string; readonly kind: TagKind }> = {
  [T.ImageWidth]: { name: 'ImageWidth', kind: 'integer' },
  [T.ImageLength]: { name: 'ImageLength', kind: 'integer' },
  [T.BitsPerSample]: { name: 'BitsPerSample', kind: 'integer' },
  [T.Compression]: { name: 'Compression', kind: 'integer' },
  [T.Photometric]: { name: 'PhotometricInterpretation', kind: 'integer' },
  [T.StripOffsets]: { name: 'StripOffsets', kind: 'integer' },
  [T.SamplesPerPixel]: { name: 'SamplesPerPixel', kind: 'integer' },
  [T.RowsPerStrip]: { name: 'RowsPerStrip', kind: 'integer' },
  [T.StripByteCounts]: { name: 'StripByteCounts', kind: 'integer' },
  [T.PlanarConfiguration]: { name: 'PlanarConfiguration', kind: 'integer' },
  [T.Predictor]: { name: 'Predictor', kind: 'integer' },
  [T.TileWidth]: { name: 'TileWidth', kind: 'integer' },
  [T.TileLength]: { name: 'TileLength', kind: 'integer' },
  [T.TileOffsets]: { name: 'TileOffsets', kind: 'integer' },
  [T.TileByteCounts]: { name: 'TileByteCounts', kind: 'integer' },
  [T.SampleFormat]: { name: 'SampleFormat', kind: 'integer' },
  [T.ModelPixelScale]: { name: 'ModelPixelScale', kind: 'real' },
  [T.ModelTiepoint]: { name: 'ModelTiepoint', kind: 'real' },
  [T.ModelTransformation]: { name: 'ModelTransformation', kind: 'real' },
  [T.GeoKeyDirectory]: { name: 'GeoKeyDirectory', kind: 'integer' },
  [T.GeoDoubleParams]: { name: 'GeoDoubleParams', kind: 'real' },
  [T.GeoAsciiParams]: { name: 'GeoAsciiParams', kind: 'ascii' },
  [T.GdalNodata]: { name: 'GDAL_NODATA', kind: 'ascii' },
};
const INTEGER_TYPES = new Set([1, 3, 4, 6, 8, 9, 16, 17]);
const REAL_TYPES = new Set([11, 12]);

type TagValue = Float64Array | string;

interface Ifd0 {
  readonly littleEndian: boolean;
  readonly bigTiff: boolean;
  /** The values of the tags heightbench reads (TAG_SPEC), each decoded once, from the one entry that holds it. */
  readonly tags: Map<number, TagValue>;
  /** IFDs after the first (overviews, masks or further pages), counted while their links stay inside the file. */
  readonly furtherIfds: number;
}

/**
 * The one parser of the TIFF header and IFD 0 [R]: it reads the header, then the directory, then only the values of
 * the tags heightbench uses, each range checked against the file before it is read. A tag heightbench reads that
 * appears twice is refused (libtiff, and so GDAL, and tifffile keep the first; a second copy that disagrees is how a
 * crafted file shows one reader one image and another reader another), as is a field type the tag cannot hold.
 */
function readIfd0(src: ByteSource, where: string): Ifd0 {
  const fail = (what: string): never => {
    throw new FormatError(`${where}: not a readable TIFF: ${what}`);
  };
  if (src.size < 8) fail(`${src.size} bytes, shorter than the 8-byte TIFF header`);
  const head = src.read(0, Math.min(16, src.size), 'the TIFF header');
  const hv = new DataView(head.buffer, head.byteOffset, head.byteLength);
  const bom = hv.getUint16(0, false);
  if (bom !== 0x4949 && bom !== 0x4d4d) fail(`byte-order mark 0x${bom.toString(16).padStart(4, '0')}, expected "II" (0x4949) or "MM" (0x4d4d)`);
  const le = bom === 0x4949;
  const magic = hv.getUint16(2, le);
  if (magic !== 42 && magic !== 43) fail(`version ${magic}, expected 42 (TIFF) or 43 (BigTIFF)`);
  const big = magic === 43;
  if (big && (head.length < 16 || hv.getUint16(4, le) !== 8)) fail('BigTIFF header without an 8-byte offset size');
  const offsetAt = (dv: DataView, at: number): number => {
    if (!big) return dv.getUint32(at, le);
    const v = dv.getBigUint64(at, le);
    return v > BigInt(Number.MAX_SAFE_INTEGER) ? Number.MAX_SAFE_INTEGER : Number(v);
  };
  const entrySize = big ? 20 : 12;
  const countSize = big ? 8 : 2;
  const inline = big ? 8 : 4;
  const first = offsetAt(hv, big ? 8 : 4);
  if (first === 0) fail('the header links to no IFD (offset 0)');
  if (first < 8 || first + countSize > src.size) fail(`IFD 0 at byte ${first}: the offset lies outside the file (${src.size} bytes)`);
  const countBytes = src.read(first, countSize, 'the entry count of IFD 0');
  const cv = new DataView(countBytes.buffer, countBytes.byteOffset, countBytes.byteLength);
  const n = big ? Number(cv.getBigUint64(0, le)) : cv.getUint16(0, le);
  if (n === 0) fail(`IFD 0 at byte ${first} has no entries`);
  const dirLength = n * entrySize + (big ? 8 : 4);
  if (!(first + countSize + dirLength <= src.size))
    fail(`IFD 0 at byte ${first}: ${n} entries need bytes up to ${first + countSize + dirLength}, but the file has ${src.size}`);
  const dir = src.read(first + countSize, dirLength, 'IFD 0');
  const dv = new DataView(dir.buffer, dir.byteOffset, dir.byteLength);
  const tags = new Map<number, TagValue>();
  const seen = new Map<number, number>();
  for (let e = 0; e < n; e++) {
    const at = e * entrySize;
    const tag = dv.getUint16(at, le);
    const type = dv.getUint16(at + 2, le);
    const spec = TAG_SPEC[tag];
    const label = spec ? `${spec.name} (tag ${tag})` : `tag ${tag}`;
    const size = FIELD_TYPE_SIZE[type] ?? 0;
    if (size === 0) fail(`IFD 0 entry ${e}: ${label} has field type ${type}, not a TIFF field type (1–13, 16–18)`);
    if (spec === undefined) continue;
    const before = seen.get(tag);
    if (before !== undefined) {
      fail(`${label} appears twice in IFD 0 (entries ${before} and ${e}); a TIFF directory holds each tag once (GDAL and tifffile would read the first)`);
    }
    seen.set(tag, e);
    const typeOk = spec.kind === 'integer' ? INTEGER_TYPES.has(type) : spec.kind === 'real' ? REAL_TYPES.has(type) : type === 2;
    if (!typeOk) {
      const want = spec.kind === 'integer' ? 'an integer type (BYTE, SHORT, LONG or LONG8)' : spec.kind === 'real' ? 'DOUBLE (or FLOAT)' : 'ASCII';
      fail(`${label} is stored as ${FIELD_TYPE_NAMES[type]} (field type ${type}), expected ${want}`);
    }
    const count = big ? dv.getBigUint64(at + 4, le) : BigInt(dv.getUint32(at + 4, le));
    const length = BigInt(size) * count;
    let raw: Uint8Array;
    if (length <= BigInt(inline)) {
      raw = dir.subarray(at + 4 + (big ? 8 : 4), at + 4 + (big ? 8 : 4) + Number(length));
    } else {
      const valueAt = offsetAt(dv, at + 4 + (big ? 8 : 4));
      if (length > BigInt(src.size) || valueAt + Number(length) > src.size) {
        fail(`${label} declares ${count} values (${length} bytes) at byte ${valueAt}, beyond the end of the file (${src.size} bytes)`);
      }
      raw = src.read(valueAt, Number(length), `the values of ${label}`);
    }
    tags.set(tag, spec.kind === 'ascii' ? asciiOf(raw) : numbersOf(raw, type, Number(count), le, label, where));
  }
  // Count the further IFDs (reported, never read) while their links stay inside the file.
  let further = 0;
  const seenIfd = new Set([first]);
  let next = offsetAt(dv, n * entrySize);
  while (next !== 0 && further < 4096 && !seenIfd.has(next) && next >= 8 && next + countSize <= src.size) {
    seenIfd.add(next);
    const c = src.read(next, countSize, `the entry count of IFD ${further + 1}`);
    const k = big ? Number(new DataView(c.buffer, c.byteOffset, 8).getBigUint64(0, le)) : new DataView(c.buffer, c.byteOffset, 2).getUint16(0, le);
    const linkAt = next + countSize + k * entrySize;
    if (!(linkAt + (big ? 8 : 4) <= src.size)) break;
    further++;
    const link = src.read(linkAt, big ? 8 : 4, `the link after IFD ${further}`);
    next = offsetAt(new DataView(link.buffer, link.byteOffset, link.byteLength), 0);
  }
  return { littleEndian: le, bigTiff: big, tags, furtherIfds: further };
}

function asciiOf(raw: Uint8Array): string {
  let end = raw.indexOf(0);
  if (end < 0) end = raw.length;
  return Buffer.from(raw.buffer, raw.byteOffset, end).toString('latin1');
}

/** A tag's values as numbers; integers must be non-negative and exact (a safe integer). */
function numbersOf(raw: Uint8Array, type: number, count: number, le: boolean, label: string, where: string): Float64Array {
  const dv = new DataView(raw.buffer, raw.byteOffset, raw.byteLength);
  const out = new Float64Array(type === 5 || type === 10 ? count : count);
  for (let i = 0; i < count; i++) {
    let v: number;
    switch (type) {
      case 1:
      case 7:
        v = dv.getUint8(i);
        break;
      case 6:
        v = dv.getInt8(i);
        break;
      case 3:
        v = dv.getUint16(2 * i, le);
        break;
      case 8:
        v = dv.getInt16(2 * i, le);
        break;
      case 4:
      case 13:
        v = dv.getUint32(4 * i, le);
        break;
      case 9:
        v = dv.getInt32(4 * i, le);
        break;
      case 11:
        v = dv.getFloat32(4 * i, le);
        break;
      case 12:
        v = dv.getFloat64(8 * i, le);
        break;
      case 16:
      case 18: {
        const b = dv.getBigUint64(8 * i, le);
        v = b > BigInt(Number.MAX_SAFE_INTEGER) ? Infinity : Number(b);
        break;
      }
      case 17: {
        const b = dv.getBigInt64(8 * i, le);
        v = b > BigInt(Number.MAX_SAFE_INTEGER) || b < -BigInt(Number.MAX_SAFE_INTEGER) ? NaN : Number(b);
        break;
      }
      default:
        v = NaN;
    }
    if (INTEGER_TYPES.has(type) && !(Number.isSafeInteger(v) && v >= 0)) {
      throw new FormatError(`${where}: not a readable TIFF: ${label} value ${i} is ${v}, expected a non-negative integer below 2^53`);
    }
    out[i] = v;
  }
  return out;
}

function parseNodata(text: string, where: string): number {
  const t = text.replace(/\0+$/, '').trim();
  const lower = t.toLowerCase();
  if (lower === 'nan' || lower === '-nan' || lower === '+nan') return NaN;
  if (lower === 'inf' || lower === '+inf' || lower === 'infinity' || lower === '+infinity') return Infinity;
  if (lower === '-inf' || lower === '-infinity') return -Infinity;
  const n = t === '' ? NaN : Number(t);
  if (!Number.isFinite(n)) throw new FormatError(`${where}: GDAL_NODATA (tag 42113) is ${JSON.stringify(t)}, expected a number, nan, inf or -inf`);
  return n;
}

interface SampleKind {
  readonly type: RasterSampleType;
  readonly bytes: number;
}

function sampleKind(format: number, bits: number): SampleKind | null {
  if (format === 1 && bits === 16) return { type: 'uint16', bytes: 2 };
  if (format === 2 && bits === 16) return { type: 'int16', bytes: 2 };
  if (format === 3 && bits === 16) return { type: 'float16', bytes: 2 };
  if (format === 3 && bits === 32) return { type: 'float32', bytes: 4 };
  if (format === 3 && bits === 64) return { type: 'float64', bytes: 8 };
  return null;
}

const SAMPLE_FORMAT_NAMES: Record<number, string> = {
  1: 'unsigned integer',
  2: 'signed integer',
  3: 'IEEE float',
  4: 'undefined',
  5: 'complex integer',
  6: 'complex float',
};

/** Picks the band: a 1-based index, or R/G/B(/A) for an RGB photometric file. */
function pickBand(sel: RasterSelection, spp: number, photometric: number, where: string): number {
  const rgb = photometric === 2 && spp >= 3;
  const letters = rgb ? ['R', 'G', 'B', ...(spp >= 4 ? ['A'] : [])] : [];
  const choices = [...Array.from({ length: spp }, (_, i) => String(i + 1)), ...letters].join(', ');
  const c = sel.channel;
  if (c === undefined || c === '') {
    if (spp === 1) return 0;
    throw new FormatError(`${where}: TIFF has SamplesPerPixel ${spp}; choose a band with a channel (${choices})`);
  }
  const upper = c.toUpperCase();
  if (letters.includes(upper)) return letters.indexOf(upper);
  if (/^[0-9]+$/.test(c)) {
    const b = Number(c);
    if (b >= 1 && b <= spp) return b - 1;
  }
  throw new FormatError(`${where}: TIFF channel ${JSON.stringify(c)} is not available; SamplesPerPixel ${spp}, choices: ${choices}`);
}

/** Widens IEEE half bits to float32 exactly. */
function halfToFloat(h: number): number {
  const s = h & 0x8000 ? -1 : 1;
  const e = (h >> 10) & 0x1f;
  const m = h & 0x3ff;
  if (e === 0) return s * m * 2 ** -24;
  if (e === 31) return m === 0 ? s * Infinity : NaN;
  return s * (1 + m / 1024) * 2 ** (e - 15);
}

function swapWords(b: Uint8Array, size: number): void {
  if (size === 2) {
    for (let i = 0; i + 1 < b.length; i += 2) {
      const t = b[i];
      b[i] = b[i + 1];
      b[i + 1] = t;
    }
  } else {
    for (let i = 0; i + size <= b.length; i += size) {
      for (let a = i, z = i + size - 1; a < z; a++, z--) {
        const t = b[a];
        b[a] = b[z];
        b[z] = t;
      }
    }
  }
}

/** Undoes horizontal differencing (predictor 2) on host-order words, row by row, with wrap-around like libtiff. */
function undoHorizontal(b: Uint8Array, rows: number, rowBytes: number, size: number, stride: number): void {
  if (size === 2 || size === 4) {
    const words = rowBytes / size;
    const w = size === 2 ? new Uint16Array(b.buffer, b.byteOffset, (rows * rowBytes) / 2) : new Uint32Array(b.buffer, b.byteOffset, (rows * rowBytes) / 4);
    for (let r = 0; r < rows; r++) {
      const o = r * words;
      for (let i = stride; i < words; i++) w[o + i] = w[o + i] + w[o + i - stride];
    }
  } else {
    // 64-bit words as (lo, hi) uint32 pairs with carry.
    const w = new Uint32Array(b.buffer, b.byteOffset, (rows * rowBytes) / 4);
    const words = rowBytes / 8;
    for (let r = 0; r < rows; r++) {
      const o = r * words;
      for (let i = stride; i < words; i++) {
        const a = 2 * (o + i);
        const p = 2 * (o + i - stride);
        const lo = w[a] + w[p];
        w[a] = lo >>> 0;
        w[a + 1] = (w[a + 1] + w[p + 1] + (lo > 0xffffffff ? 1 : 0)) >>> 0;
      }
    }
  }
}

/**
 * Undoes the floating-point predictor (3) on one row: byte differences with the pixel stride, then the byte planes
 * (most significant first, whatever the file's byte order) back into little-endian words, written to `out`.
 */
function undoFloatRow(row: Uint8Array, out: Uint8Array, size: number, stride: number): void {
  const n = row.length;
  if (stride === 1) {
    let acc = row[0];
    for (let i = 1; i < n; i++) {
      acc = (acc + row[i]) & 0xff;
      row[i] = acc;
    }
  } else {
    for (let i = stride; i < n; i++) row[i] = row[i] + row[i - stride];
  }
  const wc = n / size;
  for (let b = 0; b < size; b++) {
    const plane = b * wc;
    for (let i = 0, d = size - 1 - b; i < wc; i++, d += size) out[d] = row[plane + i];
  }
}

/**
 * Predictor 3 for one row of single-sample float32/float64 words, written as little-endian uint32 words into `out` from
 * word `at`: byte differences undone, then the planes (most significant first) recombined; only `cols` words are kept.
 */
function floatRowInto(row: Uint8Array, out: Uint32Array, at: number, cols: number, size: number): void {
  const n = row.length;
  let acc = row[0];
  for (let i = 1; i < n; i++) {
    acc = (acc + row[i]) & 0xff;
    row[i] = acc;
  }
  const wc = n / size;
  if (size === 4) {
    for (let i = 0; i < cols; i++) out[at + i] = ((row[i] << 24) | (row[wc + i] << 16) | (row[2 * wc + i] << 8) | row[3 * wc + i]) >>> 0;
  } else {
    for (let i = 0; i < cols; i++) {
      out[at + 2 * i + 1] = ((row[i] << 24) | (row[wc + i] << 16) | (row[2 * wc + i] << 8) | row[3 * wc + i]) >>> 0;
      out[at + 2 * i] = ((row[4 * wc + i] << 24) | (row[5 * wc + i] << 16) | (row[6 * wc + i] << 8) | row[7 * wc + i]) >>> 0;
    }
  }
}

interface PredictorKernel {
  memory: { buffer: ArrayBuffer; grow(pages: number): number };
  rows(rows: number, wc: number, out: number): void;
  horizontal(rows: number, wc: number, size: number, swap: number, sum: number): void;
}
let predictorKernel: PredictorKernel | null | undefined;

function predictorKernelHere(): PredictorKernel | null {
  if (predictorKernel === undefined)
    predictorKernel = wasmDisabled() || !LITTLE_ENDIAN_HOST ? null : instantiateWasm<PredictorKernel>(TIFF_PREDICTOR_WASM_BASE64);
  return predictorKernel;
}

/**
 * swapWords (where `swap`, a big-endian file) and then undoHorizontal (where `sum`, predictor 2) for the first `rows`
 * rows of `rowBytes` bytes of a block of one sample a pixel, 2- or 4-byte words, on the WebAssembly kernel
 * (wasm/tiff-predictor.wat `horizontal`); the words come back as a view on the kernel's memory, valid until its next
 * call. Null where the kernel does not run or does not take the block (the loops then serve). [R] A one-shot process
 * would run the word loops in V8's baseline tiers.
 */
export function horizontalOnKernel(block: Uint8Array, rows: number, rowBytes: number, size: number, swap: boolean, sum: boolean): Uint8Array | null {
  const k = predictorKernelHere();
  if (!k || (size !== 2 && size !== 4) || rowBytes % size !== 0) return null;
  const bytes = rows * rowBytes;
  const need = bytes - k.memory.buffer.byteLength;
  if (need > 0) k.memory.grow(Math.ceil(need / 65536));
  const mem = new Uint8Array(k.memory.buffer, 0, bytes);
  mem.set(block.subarray(0, bytes));
  k.horizontal(rows, rowBytes / size, size, swap ? 1 : 0, sum ? 1 : 0);
  return mem;
}

/** swapWords and undoHorizontal as decodeTiff runs them without the kernel (held equal to horizontalOnKernel by a test). */
export function horizontalLoops(block: Uint8Array, rows: number, rowBytes: number, size: number, swap: boolean, sum: boolean, stride: number): void {
  if (swap) swapWords(block.subarray(0, rows * rowBytes), size);
  if (sum) undoHorizontal(block, rows, rowBytes, size, stride);
}

/**
 * floatRowInto for `rows` float32 rows of a block on the WebAssembly kernel (wasm/tiff-predictor.wat: the running sum
 * and the planes sixteen at a time): the words, `rowBytes` a row, as a view on the kernel's memory valid until its next
 * call; null where the kernel does not run (the loop then serves). [R] A one-shot process would run the byte loops in
 * V8's baseline tiers.
 */
function floatRowsOnKernel(block: Uint8Array, rows: number, rowBytes: number): Uint8Array | null {
  const k = predictorKernelHere();
  if (!k || rowBytes % 4 !== 0) return null;
  const bytes = rows * rowBytes;
  const dst = (bytes + 15) & ~15;
  const need = dst + bytes - k.memory.buffer.byteLength;
  if (need > 0) k.memory.grow(Math.ceil(need / 65536));
  new Uint8Array(k.memory.buffer, 0, bytes).set(block.subarray(0, bytes));
  k.rows(rows, rowBytes / 4, dst);
  return new Uint8Array(k.memory.buffer, dst, bytes);
}

/** Whether typed arrays are little-endian here (the kernel writes little-endian words). */
const LITTLE_ENDIAN_HOST = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;

/** Reads page 0 of a (Geo)TIFF and returns one band of it; see the file header for the rules. */
export async function decodeTiff(input: DecoderInput, where: string, sel: RasterSelection, limits: RasterLimits): Promise<DecodedRaster> {
  const r = (await readTiff(input, where, sel, limits, null)) as { header: RasterHeader; values: RasterValues };
  const h = r.header;
  return {
    container: h.container,
    width: h.width,
    height: h.height,
    sampleType: h.sampleType,
    values: r.values,
    unorm16: h.unorm16,
    georeference: h.georeference,
    nodata: h.nodata,
    description: h.description,
    endian: h.endian,
  };
}

/**
 * decodeTiff's reading without the field, for `info`: the band's float32 samples fed block by block, row by row, to
 * `stream` (sample order within each block's rows, blocks in file order), then the header decodeTiff would give.
 * Null, with nothing read past the header, where the band is not float32 samples of one sample a block pixel without
 * GDAL_NODATA and empty blocks (the caller reads the file whole). Refuses what decodeTiff refuses, by the same steps,
 * except the memory for the whole field (never held here).
 */
export async function summarizeTiff(
  input: DecoderInput,
  where: string,
  sel: RasterSelection,
  limits: RasterLimits,
  stream: SummaryStream<unknown>,
): Promise<RasterHeader | null> {
  const r = await readTiff(input, where, sel, limits, stream);
  return r === null ? null : r.header;
}

async function readTiff(
  input: DecoderInput,
  where: string,
  sel: RasterSelection,
  limits: RasterLimits,
  stream: SummaryStream<unknown> | null,
): Promise<{ header: RasterHeader; values: RasterValues | null } | null> {
  const src = sourceOf(input, where);
  const scan = readIfd0(src, where);
  if (sel.level !== undefined && sel.level !== 0) {
    throw new FormatError(`${where}: TIFF offers no level ${sel.level}; heightbench reads IFD 0 only (level 0)`);
  }
  if (sel.slice !== undefined && sel.slice !== 0) throw new FormatError(`${where}: TIFF offers no slice ${sel.slice}; only slice 0`);
  const tags = scan.tags;
  const nums = (tag: number): number[] | undefined => {
    const v = tags.get(tag);
    return v === undefined || typeof v === 'string' ? undefined : Array.from(v);
  };
  const one = (tag: number, dflt: number, name: string): number => {
    const v = nums(tag);
    if (v === undefined) return dflt;
    if (v.length < 1) throw new FormatError(`${where}: TIFF ${name} (tag ${tag}) has no value`);
    return v[0];
  };

  const width = one(T.ImageWidth, 0, 'ImageWidth');
  const height = one(T.ImageLength, 0, 'ImageLength');
  if (!(width >= 1 && height >= 1)) throw new FormatError(`${where}: TIFF ImageWidth × ImageLength is ${width}×${height}, expected both ≥ 1`);
  if (width * height > limits.pixelLimit) {
    throw new LimitError(`${where}: TIFF ${width}x${height} = ${width * height} samples, over the limit of ${limits.pixelLimit}`);
  }
  checkFieldSize(`${where}: TIFF ImageWidth × ImageLength`, width, height, limits.pixelLimit);

  const spp = one(T.SamplesPerPixel, 1, 'SamplesPerPixel');
  if (!(spp >= 1 && spp <= 64)) throw new FormatError(`${where}: TIFF SamplesPerPixel ${spp}, expected 1 to 64`);
  const bitsList = nums(T.BitsPerSample) ?? [1];
  const formatList = nums(T.SampleFormat) ?? [1];
  const bits = bitsList[0];
  const format = formatList[0];
  for (let s = 0; s < spp; s++) {
    const b = bitsList[Math.min(s, bitsList.length - 1)];
    const f = formatList[Math.min(s, formatList.length - 1)];
    if (b !== bits || f !== format) {
      throw new FormatError(
        `${where}: TIFF samples differ in type (BitsPerSample ${bitsList.join('/')}, SampleFormat ${formatList.join('/')}); expected one type`,
      );
    }
  }
  const kind = sampleKind(format, bits);
  if (kind === null) {
    const fname = SAMPLE_FORMAT_NAMES[format] ?? 'unknown';
    throw new FormatError(
      `${where}: TIFF SampleFormat ${format} (${fname}) with BitsPerSample ${bits} is not supported; expected uint16 (SampleFormat 1, BitsPerSample 16), ` +
        'int16 (2, 16) or float16/float32/float64 (3, 16/32/64)',
    );
  }
  const photometric = one(T.Photometric, 1, 'PhotometricInterpretation');
  const band = pickBand(sel, spp, photometric, where);

  const compression = one(T.Compression, 1, 'Compression');
  const compName = SUPPORTED_COMPRESSION[compression];
  if (compName === undefined) {
    const name = COMPRESSION_NAMES[compression] ?? 'unknown';
    throw new FormatError(
      `${where}: TIFF Compression ${compression} (${name}) is not supported; expected none (1), LZW (5), deflate (8 or 32946) or PackBits (32773)`,
    );
  }
  const predictor = one(T.Predictor, 1, 'Predictor');
  if (predictor !== 1 && predictor !== 2 && predictor !== 3)
    throw new FormatError(`${where}: TIFF Predictor ${predictor} is not supported; expected 1, 2 or 3`);
  if (predictor === 3 && format !== 3) throw new FormatError(`${where}: TIFF Predictor 3 (floating point) on SampleFormat ${format}; expected SampleFormat 3`);
  const planar = one(T.PlanarConfiguration, 1, 'PlanarConfiguration');
  if (planar !== 1 && planar !== 2) throw new FormatError(`${where}: TIFF PlanarConfiguration ${planar}, expected 1 (chunky) or 2 (planar)`);

  const tiled = tags.has(T.TileWidth) || tags.has(T.TileOffsets);
  const bw = tiled ? one(T.TileWidth, 0, 'TileWidth') : width;
  const bh = tiled ? one(T.TileLength, 0, 'TileLength') : Math.min(one(T.RowsPerStrip, 0xffffffff, 'RowsPerStrip'), height);
  if (!(bw >= 1 && bh >= 1)) {
    throw new FormatError(`${where}: TIFF ${tiled ? `TileWidth × TileLength ${bw}×${bh}` : `RowsPerStrip ${bh}`}, expected ≥ 1`);
  }
  const offsets = nums(tiled ? T.TileOffsets : T.StripOffsets);
  const counts = nums(tiled ? T.TileByteCounts : T.StripByteCounts);
  const layoutName = tiled ? 'TileOffsets/TileByteCounts' : 'StripOffsets/StripByteCounts';
  if (offsets === undefined || counts === undefined) throw new FormatError(`${where}: TIFF has no ${layoutName}`);
  const across = Math.ceil(width / bw);
  const down = Math.ceil(height / bh);
  const perPlane = across * down;
  const needed = planar === 2 ? perPlane * spp : perPlane;
  if (offsets.length < needed || counts.length < needed) {
    throw new FormatError(
      `${where}: TIFF ${layoutName} list ${offsets.length}/${counts.length} blocks, expected ${needed} for ${width}×${height} in ${bw}×${bh} blocks`,
    );
  }
  const firstBlock = planar === 2 ? band * perPlane : 0;

  // Bytes of one block row: all samples of a pixel for chunky data, one sample for planar data.
  const sampleBytes = kind.bytes;
  const blockSpp = planar === 2 ? 1 : spp;
  const pixelBytes = blockSpp * sampleBytes;
  const rowBytes = bw * pixelBytes;
  const sampleAt = planar === 2 ? 0 : band * sampleBytes;
  const cap = bh * rowBytes;
  // A block may exceed the image (small images in 256² tiles) but not without bound: 64 MiB or the whole image.
  const maxBlock = Math.max(64 * 2 ** 20, width * height * pixelBytes);
  if (cap > maxBlock) {
    throw new FormatError(
      `${where}: TIFF ${tiled ? `tile ${bw}×${bh}` : `strip of ${bh} rows`} needs ${cap} bytes, over ${maxBlock} for a ${width}×${height} image`,
    );
  }
  // Every block is checked against the bytes present before anything is allocated for the image: it must lie inside
  // the file, and its bytes must be able to hold the rows it covers (deflate expands at most 1032×, PackBits 64×, LZW
  // 3413×: a code of at least 9 bits names a string of at most 3839 bytes).
  const ratio = compression === 1 ? 1 : compression === 32773 ? 64 : compression === 5 ? 3413 : 1032;
  let total = 0;
  let present = 0;
  let largest = 0;
  for (let i = firstBlock; i < firstBlock + perPlane; i++) {
    const name = `${tiled ? 'tile' : 'strip'} ${i}`;
    if (counts[i] > 0 && offsets[i] + counts[i] > src.size) {
      throw new FormatError(
        `${where}: TIFF ${name} at bytes ${offsets[i]}…${offsets[i] + counts[i]} (${layoutName}) lies beyond the end of the file (${src.size} bytes; truncated?)`,
      );
    }
    const by = Math.floor((i - firstBlock) / across);
    const need = (tiled ? bh : Math.min(bh, height - by * bh)) * rowBytes;
    if (counts[i] > 0 && counts[i] * ratio + 64 < need) {
      throw new FormatError(
        `${where}: TIFF ${name} holds ${counts[i]} bytes of ${compression === 1 ? 'uncompressed' : compName} data (${tiled ? 'TileByteCounts' : 'StripByteCounts'}), too few to decode to the ${need} bytes its rows need (truncated or corrupt)`,
      );
    }
    total += counts[i];
    if (counts[i] > 0) present++;
    largest = Math.max(largest, counts[i]);
  }
  if (total > src.size) throw new FormatError(`${where}: TIFF ${layoutName} declare ${total} bytes of data, more than the file's ${src.size} bytes`);

  const nodataText = tags.get(T.GdalNodata);
  const nodataValue = typeof nodataText === 'string' ? parseNodata(nodataText, where) : null;
  // GDAL compares no-data in the band's type; float16 bands are float32 bands to GDAL 3.10.
  const nodata = nodataValue === null ? null : kind.type === 'float32' || kind.type === 'float16' ? Math.fround(nodataValue) : nodataValue;

  const WINDOW = Math.max(1, Math.min(16, Math.floor((256 * 2 ** 20) / cap)));
  const n = width * height;
  const inFlight = Math.min(WINDOW, present) * (cap + largest);
  if (stream !== null) {
    if (kind.type !== 'float32' || nodata !== null || present < perPlane || blockSpp !== 1) return null;
    checkReaderMemory(where, `TIFF ${width}×${height} ${kind.type} (${inFlight} bytes for the blocks in flight)`, inFlight + rowBytes);
  } else {
    checkReaderMemory(
      where,
      `TIFF ${width}×${height} ${kind.type} (${n * sampleBytes} bytes of samples, ${kind.type === 'float32' ? 0 : n * 4} to widen or narrow them, ${inFlight} for the blocks in flight)`,
      n * sampleBytes + (kind.type === 'float32' ? 0 : n * 4) + inFlight + rowBytes,
    );
  }
  const outBytes = new Uint8Array(stream === null ? n * sampleBytes : 0);
  const scratch = new Uint8Array(rowBytes);
  /** Stores `rows` decoded rows of `cols` samples (host order, `stride` bytes apart in `data`) at column x0 of row y0. */
  let place: (data: Uint8Array, stride: number, rows: number, x0: number, y0: number, cols: number) => void;
  let flush = (): void => {};
  if (stream === null) {
    place = (data, stride, rows, x0, y0, cols) => {
      const bytes = cols * sampleBytes;
      if (cols === width && stride === bytes) outBytes.set(data.subarray(0, rows * bytes), y0 * width * sampleBytes);
      else for (let r = 0; r < rows; r++) outBytes.set(data.subarray(r * stride, r * stride + bytes), ((y0 + r) * width + x0) * sampleBytes);
    };
  } else {
    // The rows go to the stream's window, which is summarized each time it fills.
    const win = stream.window;
    const room = win.length - (win.length % 4);
    let fill = 0;
    place = (data, stride, rows, _x0, _y0, cols) => {
      const bytes = cols * 4;
      for (let r = 0; r < rows; r++) {
        for (let at = r * stride, left = bytes; left > 0;) {
          if (fill === room) {
            stream.add(fill / 4);
            fill = 0;
          }
          const k = Math.min(left, room - fill);
          win.set(data.subarray(at, at + k), fill);
          fill += k;
          at += k;
          left -= k;
        }
      }
    };
    flush = () => {
      if (fill > 0) stream.add(fill / 4);
      fill = 0;
    };
  }
  const blockName = (index: number): string => `${tiled ? 'tile' : 'strip'} ${index}`;
  const rowsOf = (by: number): number => (tiled ? bh : Math.min(bh, height - by * bh));
  const deflated = compression === 8 || compression === 32946;
  // From a file, each slot of the window reads its blocks into one buffer (the block before in the slot has settled).
  const slots: Uint8Array[] = [];
  /** Inflates one deflate block to at least the bytes its rows need (sparse blocks: null). */
  const inflateBlock = (index: number, need: number, slot: number): Promise<Uint8Array | null> => {
    const count = counts[index];
    if (count === 0) return Promise.resolve(null);
    const what = blockName(index);
    let data: Uint8Array;
    try {
      if (src.fresh) {
        // The check a fresh read of the block makes, before the slot's buffer is allocated.
        checkReaderMemory(src.where, `TIFF ${what}`, count);
        slots[slot] ??= new Uint8Array(largest);
        data = src.readInto(offsets[index], slots[slot].subarray(0, count), `TIFF ${what}`);
      } else data = src.read(offsets[index], count, `TIFF ${what}`);
    } catch (e) {
      return Promise.reject(e);
    }
    // Asynchronous inflate runs on libuv's thread pool, so several blocks inflate at once. Its limit is clamped to
    // what Node accepts (the block itself is already bounded by maxBlock and the budget). [R] One output chunk one
    // byte over the limit: with Node's 16 KiB default every chunk is a round trip to the pool and the chunks are
    // joined by a copy; a stream inflating past the limit fills the chunk and is refused as before.
    const limit = Math.min(Math.max(need, cap), ZLIB_MAX_OUTPUT);
    const chunkSize = Math.max(64, Math.min(limit + 1, ZLIB_MAX_OUTPUT));
    return new Promise((resolve, reject) => {
      inflate(data, { maxOutputLength: limit, chunkSize }, (err, out) => {
        if (err) reject(new FormatError(`${where}: TIFF ${what}: deflate data is corrupt or inflates past ${limit} bytes (${err.message})`));
        else resolve(out.byteOffset % 8 === 0 ? new Uint8Array(out.buffer, out.byteOffset, out.byteLength) : new Uint8Array(out));
      });
    });
  };
  /**
   * Decodes one block of the other compressions when its turn comes (sparse blocks: null): LZW straight from the file
   * into the kernel's memory, handed back as a view valid until the next block.
   */
  const decodeBlock = (index: number, need: number): Uint8Array | null => {
    const count = counts[index];
    if (count === 0) return null;
    const what = blockName(index);
    const limit = Math.max(need, cap);
    if (compression === 5) {
      // Decoded one byte past the block's size, so that a stream expanding beyond it is refused, as deflate's is.
      const out =
        lzwDecodeBlock(src, offsets[index], count, limit + 1, where, what) ??
        lzwDecode(src.read(offsets[index], count, `TIFF ${what}`), limit + 1, where, what);
      if (out.length > limit) throw new FormatError(`${where}: TIFF ${what}: LZW data is corrupt or decodes past ${limit} bytes (its block's size)`);
      return out;
    }
    const data = src.read(offsets[index], count, `TIFF ${what}`);
    if (compression === 1) {
      if (count < need) throw new FormatError(`${where}: TIFF ${what} holds ${count} bytes, expected ${need} (truncated?)`);
      return src.fresh ? data.subarray(0, need) : Uint8Array.prototype.slice.call(data, 0, need);
    }
    // PackBits output is capped at the block's size: the rows past it are never needed.
    return packBitsDecode(data, limit);
  };
  const jobs: { index: number; bx: number; by: number }[] = [];
  for (let by = 0; by < down; by++) for (let bx = 0; bx < across; bx++) jobs.push({ index: firstBlock + by * across + bx, bx, by });
  // A window of blocks in flight; each settles into a result object so no rejection goes unobserved.
  type Settled = { ok: true; block: Uint8Array | null } | { ok: false; error: unknown };
  const inflight: Promise<Settled>[] = [];
  const start = (j: number): void => {
    if (!deflated) return;
    const job = jobs[j];
    inflight[j] = inflateBlock(job.index, rowsOf(job.by) * rowBytes, j % WINDOW).then(
      (block): Settled => ({ ok: true, block }),
      (error: unknown): Settled => ({ ok: false, error }),
    );
  };
  for (let j = 0; j < Math.min(WINDOW, jobs.length); j++) start(j);
  const sparseBlocks: [number, number, number, number][] = [];
  let failure: unknown = null;
  for (let j = 0; j < jobs.length; j++) {
    let settled: Settled;
    if (deflated) {
      settled = await inflight[j];
      delete inflight[j];
      if (failure !== null) continue;
      if (j + WINDOW < jobs.length) start(j + WINDOW);
    } else {
      if (failure !== null) break;
      try {
        settled = { ok: true, block: decodeBlock(jobs[j].index, rowsOf(jobs[j].by) * rowBytes) };
      } catch (error) {
        settled = { ok: false, error };
      }
    }
    if (!settled.ok) {
      failure = settled.error;
      // Let the blocks already in flight settle (their results are dropped) before reporting.
      continue;
    }
    const { index, bx, by } = jobs[j];
    const rows = rowsOf(by);
    const need = rows * rowBytes;
    const validCols = Math.min(bw, width - bx * bw);
    const validRows = Math.min(rows, height - by * bh);
    const block = settled.block;
    if (block === null) {
      // A block with byte count 0: GDAL (SPARSE_OK) reads it as the no-data value, else 0; filled once the samples
      // are in their final type.
      sparseBlocks.push([bx * bw, by * bh, validCols, validRows]);
      continue;
    }
    if (block.length < need) {
      failure = new FormatError(`${where}: TIFF ${blockName(index)} decodes to ${block.length} bytes, expected ${need} (truncated or corrupt)`);
      continue;
    }
    const swap = predictor !== 3 && !scan.littleEndian && sampleBytes > 1;
    let words = block;
    if (swap || predictor === 2) {
      const onKernel = blockSpp === 1 || predictor !== 2 ? horizontalOnKernel(block, validRows, rowBytes, sampleBytes, swap, predictor === 2) : null;
      if (onKernel !== null) words = onKernel;
      else horizontalLoops(block, rows, rowBytes, sampleBytes, swap, predictor === 2, blockSpp);
    }
    if (predictor === 3 && blockSpp === 1 && (sampleBytes === 4 || sampleBytes === 8)) {
      // The common float GeoTIFF: the planes recombined into words, rows placed from there.
      const planes = sampleBytes === 4 ? floatRowsOnKernel(block, validRows, rowBytes) : null;
      if (planes !== null) {
        place(planes, rowBytes, validRows, bx * bw, by * bh, validCols);
        continue;
      }
      const row32 = new Uint32Array(scratch.buffer, 0, rowBytes / 4);
      for (let r = 0; r < validRows; r++) {
        floatRowInto(block.subarray(r * rowBytes, (r + 1) * rowBytes), row32, 0, validCols, sampleBytes);
        place(scratch, rowBytes, 1, bx * bw, by * bh + r, validCols);
      }
      continue;
    }
    if (blockSpp === 1 && predictor !== 3) {
      place(words, rowBytes, validRows, bx * bw, by * bh, validCols);
      continue;
    }
    for (let r = 0; r < validRows; r++) {
      let row = words.subarray(r * rowBytes, (r + 1) * rowBytes);
      if (predictor === 3) {
        undoFloatRow(row, scratch, sampleBytes, blockSpp);
        row = scratch;
      }
      const dst = ((by * bh + r) * width + bx * bw) * sampleBytes;
      if (blockSpp === 1) {
        place(row, rowBytes, 1, bx * bw, by * bh + r, validCols);
      } else {
        for (let c = 0; c < validCols; c++) {
          const s0 = c * pixelBytes + sampleAt;
          for (let k = 0; k < sampleBytes; k++) outBytes[dst + c * sampleBytes + k] = row[s0 + k];
        }
      }
    }
  }
  if (failure !== null) throw failure;
  flush();

  const values = stream === null ? typedValues(outBytes, kind.type) : null;
  const sparse = sparseBlocks.length;
  const fill = sparseFill(kind.type, nodata);
  if (values !== null)
    for (const [x0, y0, cols, rows] of sparseBlocks) for (let r = 0; r < rows; r++) values.fill(fill, (y0 + r) * width + x0, (y0 + r) * width + x0 + cols);
  const georeference = readGeoreference(nums, tags, width, height, where);
  const geoKeys = georeference === null ? null : geoKeyText(nums(T.GeoKeyDirectory));
  const parts = [
    `TIFF ${kind.type}${scan.littleEndian ? '' : ' big-endian'}${scan.bigTiff ? ' (BigTIFF)' : ''}`,
    tiled ? `tiled ${bw}×${bh}` : `strips of ${bh} row${bh === 1 ? '' : 's'}`,
    compName,
    `predictor ${predictor}`,
    spp === 1 ? '1 band' : `band ${band + 1} of ${spp}${planar === 2 ? ' (planar)' : ''}`,
  ];
  let description = parts.join(', ');
  if (sparse > 0)
    description += `, ${sparse} empty block${sparse === 1 ? '' : 's'} (byte count 0) read as ${fill}${nodata === null ? '' : ', the no-data value'}`;
  if (georeference !== null) description += `; GeoTIFF ${georeference.source}${geoKeys ? `; ${geoKeys}` : ''}`;
  if (nodata !== null && nodataValue !== null)
    description += `; GDAL_NODATA ${nodataValue}${nodata !== nodataValue ? ` (${nodata} in the band's ${kind.type === 'float16' ? 'float32' : kind.type})` : ''}`;
  if (scan.furtherIfds > 0) description += `; IFD 0 read, ${scan.furtherIfds} further IFD${scan.furtherIfds === 1 ? '' : 's'} (overviews or pages) ignored`;
  const endian = scan.littleEndian ? 'le' : 'be';
  return { header: { container: 'tiff', width, height, sampleType: kind.type, unorm16: false, georeference, nodata, description, endian }, values };
}

/**
 * TIFF LZW (codes MSB-first, 9 to 12 bits, the width growing one code early as libtiff writes it), decoding at most
 * `max` bytes. [R] Written here, bounded: a decoder that grows its output without bound can run away on a corrupt
 * stream (a fatal out-of-memory, not an exception).
 */
interface LzwKernel {
  memory: { buffer: ArrayBuffer; grow(pages: number): number };
  lzw(src: number, len: number, out: number, max: number): number;
}
let lzwKernel: LzwKernel | null | undefined;
/** Where the kernel's source bytes start (after its tables and state, wasm/tiff-lzw.wat). */
const LZW_SRC = 41024;

/**
 * lzwDecode on the WebAssembly kernel (wasm/tiff-lzw.wat, code for code the loop below) where it runs. [R] A one-shot
 * process would run the loop in V8's baseline tiers; a refusal is lzwDecode's own message, and the one case the
 * kernel leaves to the loop (a code equal to a full table's next entry) is decoded by the loop.
 */
export function lzwDecodeFast(src: Uint8Array, max: number, where: string, what: string): Uint8Array {
  const k = lzwKernelHere();
  if (!k) return lzwDecode(src, max, where, what);
  const mem = lzwMemory(k, src.length, max);
  mem.set(src, LZW_SRC);
  return lzwOnKernel(k, src.length, max, where, what).slice();
}

/**
 * lzwDecodeFast for a block still in the file: its bytes read straight into the kernel's memory and the decoded bytes
 * handed back as a view on it, valid until the kernel's next call; null where the kernel does not run.
 */
function lzwDecodeBlock(src: ByteSource, offset: number, count: number, max: number, where: string, what: string): Uint8Array | null {
  const k = lzwKernelHere();
  if (!k) return null;
  // The check a fresh read of the block makes before its buffer is allocated.
  if (src.fresh) checkReaderMemory(src.where, `TIFF ${what}`, count);
  const mem = lzwMemory(k, count, max);
  src.readInto(offset, mem.subarray(LZW_SRC, LZW_SRC + count), `TIFF ${what}`);
  return lzwOnKernel(k, count, max, where, what);
}

function lzwKernelHere(): LzwKernel | null {
  if (lzwKernel === undefined) lzwKernel = wasmDisabled() ? null : instantiateWasm<LzwKernel>(TIFF_LZW_WASM_BASE64);
  return lzwKernel;
}

/** Where the kernel writes its output for a source of `len` bytes. */
const lzwOut = (len: number): number => (LZW_SRC + len + 2 + 15) & ~15;

/** The kernel's memory, grown to hold a source of `len` bytes and `max` bytes of output. */
function lzwMemory(k: LzwKernel, len: number, max: number): Uint8Array {
  // 4112 bytes to spare after `max`: the kernel copies a string whole (up to 4096 bytes), sixteen bytes at a time.
  const need = lzwOut(len) + max + 4112 - k.memory.buffer.byteLength;
  if (need > 0) k.memory.grow(Math.ceil(need / 65536));
  return new Uint8Array(k.memory.buffer);
}

/** Runs the kernel on the `len` source bytes at LZW_SRC: a view on its output, or lzwDecode's answer. */
function lzwOnKernel(k: LzwKernel, len: number, max: number, where: string, what: string): Uint8Array {
  const mem = new Uint8Array(k.memory.buffer);
  mem[LZW_SRC + len] = 0;
  mem[LZW_SRC + len + 1] = 0;
  const out = lzwOut(len);
  const o = k.lzw(LZW_SRC, len, out, max);
  if (o === -3) return lzwDecode(mem.slice(LZW_SRC, LZW_SRC + len), max, where, what);
  if (o < 0) {
    const [bit, code, next] = new Int32Array(k.memory.buffer, 40960, 3);
    const why = o === -1 ? `code ${code} right after a clear code` : `code ${code} beyond the table's ${next} entries`;
    throw new FormatError(`${where}: TIFF ${what}: LZW data is corrupt (${why} at bit ${bit})`);
  }
  return mem.subarray(out, out + o);
}

export function lzwDecode(src: Uint8Array, max: number, where: string, what: string): Uint8Array {
  const out = new Uint8Array(max);
  const prefix = new Int16Array(4096);
  const suffix = new Uint8Array(4096);
  const first = new Uint8Array(4096);
  const length = new Uint16Array(4096);
  for (let i = 0; i < 256; i++) {
    prefix[i] = -1;
    suffix[i] = i;
    first[i] = i;
    length[i] = 1;
  }
  const totalBits = src.length * 8;
  let bit = 0;
  let width = 9;
  let next = 258;
  let old = -1;
  let o = 0;
  const corrupt = (why: string): never => {
    throw new FormatError(`${where}: TIFF ${what}: LZW data is corrupt (${why} at bit ${bit})`);
  };
  const emit = (code: number): void => {
    const end = o + length[code];
    for (let p = end - 1, c = code; c >= 0; p--, c = prefix[c]) if (p < max) out[p] = suffix[c];
    o = Math.min(end, max);
  };
  while (o < max && bit + width <= totalBits) {
    const at = bit >>> 3;
    const chunk = (src[at] << 16) | ((src[at + 1] ?? 0) << 8) | (src[at + 2] ?? 0);
    const code = (chunk >>> (24 - (bit & 7) - width)) & ((1 << width) - 1);
    bit += width;
    if (code === 257) break;
    if (code === 256) {
      width = 9;
      next = 258;
      old = -1;
      continue;
    }
    if (old < 0) {
      if (code > 255) corrupt(`code ${code} right after a clear code`);
      emit(code);
      old = code;
      continue;
    }
    let head: number;
    if (code < next) {
      head = first[code];
    } else if (code === next) {
      head = first[old];
    } else {
      return corrupt(`code ${code} beyond the table's ${next} entries`);
    }
    if (next < 4096) {
      prefix[next] = old;
      suffix[next] = head;
      first[next] = first[old];
      length[next] = length[old] + 1;
      next++;
    }
    emit(code);
    old = code;
    if (next + 1 >= 1 << width && width < 12) width++;
  }
  return o === max ? out : out.subarray(0, o);
}

/** PackBits (Apple run-length), decoding at most `max` bytes. */
export function packBitsDecode(src: Uint8Array, max: number): Uint8Array {
  const out = new Uint8Array(max);
  let i = 0;
  let o = 0;
  while (i < src.length && o < max) {
    const h = (src[i++] << 24) >> 24;
    if (h >= 0) {
      const n = Math.min(h + 1, src.length - i, max - o);
      out.set(src.subarray(i, i + n), o);
      i += h + 1;
      o += n;
    } else if (h !== -128) {
      if (i >= src.length) break;
      const n = Math.min(1 - h, max - o);
      out.fill(src[i++], o, o + n);
      o += n;
    }
  }
  return o === max ? out : out.subarray(0, o);
}

/** The value GDAL gives a sparse block's samples: the no-data value converted to the band's type (rounded and clamped for integers, as GDALCopyWords does), else 0. */
function sparseFill(type: RasterSampleType, nodata: number | null): number {
  if (nodata === null) return 0;
  if (type === 'uint16' || type === 'int16') {
    if (Number.isNaN(nodata)) return 0;
    const [lo, hi] = type === 'uint16' ? [0, 65535] : [-32768, 32767];
    return Math.min(hi, Math.max(lo, Math.round(nodata)));
  }
  return nodata;
}

function typedValues(b: Uint8Array, type: RasterSampleType): RasterValues {
  switch (type) {
    case 'uint16':
      return new Uint16Array(b.buffer, b.byteOffset, b.byteLength / 2);
    case 'int16':
      return new Int16Array(b.buffer, b.byteOffset, b.byteLength / 2);
    case 'float32':
      return new Float32Array(b.buffer, b.byteOffset, b.byteLength / 4);
    case 'float64':
      return new Float64Array(b.buffer, b.byteOffset, b.byteLength / 8);
    case 'float16': {
      const h = new Uint16Array(b.buffer, b.byteOffset, b.byteLength / 2);
      const f = new Float32Array(h.length);
      for (let i = 0; i < h.length; i++) f[i] = halfToFloat(h[i]);
      return f;
    }
  }
}

/** GeoKey id → value (only keys stored in the directory itself, location 0). */
function geoKeyValues(dir: number[] | undefined): Map<number, number> {
  const keys = new Map<number, number>();
  if (dir === undefined || dir.length < 4) return keys;
  const n = dir[3];
  for (let k = 0; k < n && 4 + 4 * k + 3 < dir.length; k++) {
    const at = 4 + 4 * k;
    if (dir[at + 1] === 0) keys.set(dir[at], dir[at + 3]);
  }
  return keys;
}

/** The CRS as text, for the report only. */
function geoKeyText(dir: number[] | undefined): string {
  const keys = geoKeyValues(dir);
  const projected = keys.get(3072);
  const geographic = keys.get(2048);
  if (projected !== undefined && projected !== 32767 && projected !== 0) return `EPSG:${projected}`;
  if (geographic !== undefined && geographic !== 32767 && geographic !== 0) return `EPSG:${geographic}`;
  const model = keys.get(1024);
  if (model === 1) return 'user-defined projected CRS';
  if (model === 2) return 'user-defined geographic CRS';
  if (model === 3) return 'geocentric CRS';
  return 'no CRS';
}

function readGeoreference(
  nums: (tag: number) => number[] | undefined,
  tags: Map<number, TagValue>,
  width: number,
  height: number,
  where: string,
): RasterGeoreference | null {
  const scale = nums(T.ModelPixelScale);
  const tie = nums(T.ModelTiepoint);
  const matrix = nums(T.ModelTransformation);
  if (scale === undefined && tie === undefined && matrix === undefined) return null;
  const keys = geoKeyValues(nums(T.GeoKeyDirectory));
  const rasterType = keys.get(1025) ?? 1;
  if (rasterType !== 1 && rasterType !== 2) {
    throw new FormatError(`${where}: GeoTIFF GTRasterTypeGeoKey ${rasterType}, expected 1 (PixelIsArea) or 2 (PixelIsPoint)`);
  }
  const point = rasterType === 2;
  // Raster coordinate of pixel (0,0)'s corner in the file's convention: 0 for area, −0.5 for point (centre-tied).
  const c0 = point ? -0.5 : 0;
  const typeText = point ? 'PixelIsPoint (tiepoint at the centre of pixel (0,0); extent shifted by half a pixel)' : 'PixelIsArea';
  let a: number; // x step per column
  let f: number; // y step per row
  let x0: number; // x of the corner of pixel (0,0)
  let y0: number; // y of the corner of pixel (0,0)
  let source: string;
  if (scale !== undefined && tie !== undefined) {
    if (scale.length < 2 || tie.length < 6) {
      throw new FormatError(`${where}: GeoTIFF ModelPixelScale has ${scale.length} values and ModelTiepoint ${tie.length}; expected ≥ 3 and 6`);
    }
    if (tie.length > 6) throw new FormatError(`${where}: GeoTIFF has ${tie.length / 6} tiepoints (ground control points), expected 1 with ModelPixelScale`);
    const [I, J, , X, Y] = tie;
    a = scale[0];
    f = -scale[1];
    x0 = X + (c0 - I) * a;
    y0 = Y + (c0 - J) * f;
    source = `ModelPixelScale + ModelTiepoint, ${typeText}`;
    // Both georeferencings present: they must say the same (the specification allows one; GDAL reads the tiepoint's).
    if (matrix !== undefined) {
      const same =
        matrix.length >= 16 &&
        matrix[0] === a &&
        matrix[5] === f &&
        matrix[1] === 0 &&
        matrix[4] === 0 &&
        matrix[3] + c0 * a === x0 &&
        matrix[7] + c0 * f === y0;
      if (!same)
        throw new FormatError(
          `${where}: GeoTIFF holds ModelPixelScale + ModelTiepoint (x step ${a}, y step ${f}, corner ${x0}, ${y0}) and a ModelTransformation that says otherwise (${matrix.slice(0, 8).join(', ')}, …); one georeferencing is expected`,
        );
    }
  } else if (matrix !== undefined) {
    if (matrix.length < 16) throw new FormatError(`${where}: GeoTIFF ModelTransformation has ${matrix.length} values, expected 16`);
    const b = matrix[1];
    const e = matrix[4];
    if (b !== 0 || e !== 0) {
      throw new FormatError(
        `${where}: GeoTIFF ModelTransformation is rotated or sheared (row/column terms b = ${b}, e = ${e}); expected b = e = 0 (axis-aligned)`,
      );
    }
    a = matrix[0];
    f = matrix[5];
    x0 = matrix[3] + c0 * a;
    y0 = matrix[7] + c0 * f;
    source = `ModelTransformation, ${typeText}`;
  } else {
    const has = [...tags.keys()]
      .filter((t) => t === T.ModelPixelScale || t === T.ModelTiepoint)
      .map((t) => (t === T.ModelPixelScale ? 'ModelPixelScale' : 'ModelTiepoint'));
    throw new FormatError(`${where}: GeoTIFF has only ${has.join(' and ')}; expected ModelPixelScale + ModelTiepoint, or ModelTransformation`);
  }
  if (!(Number.isFinite(a) && a > 0)) throw new FormatError(`${where}: GeoTIFF x pixel size is ${a}, expected a positive number (columns running toward +x)`);
  if (!(Number.isFinite(f) && f !== 0)) throw new FormatError(`${where}: GeoTIFF y pixel size is ${f}, expected a non-zero number`);
  if (!Number.isFinite(x0) || !Number.isFinite(y0)) throw new FormatError(`${where}: GeoTIFF origin (${x0}, ${y0}) is not finite`);
  const sizeX = width * a;
  const sizeY = height * Math.abs(f);
  const ymin = f < 0 ? y0 + height * f : y0;
  for (const [k, v] of [
    ['x origin', x0],
    ['y origin', ymin],
    ['x extent', sizeX],
    ['y extent', sizeY],
  ] as const) {
    if (!(Math.abs(v) <= MAX_WORLD_COORDINATE))
      throw new FormatError(`${where}: GeoTIFF ${k} is ${v}, expected within ±${MAX_WORLD_COORDINATE} (2^53) map units (${source})`);
  }
  return { xmin: x0, ymin, sizeX, sizeY, rowDirection: f < 0 ? 'row0-at-ymax' : 'row0-at-ymin', source };
}
