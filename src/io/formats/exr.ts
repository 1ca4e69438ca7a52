/**
 * OpenEXR decoder: one channel of a single-part scanline or tiled image, as a pure function over the file's bytes.
 *
 * Input: the whole file (the caller reads it through src/io/read-input.ts), a name for messages, the channel to read
 * and the pixel limit. Output: a DecodedRaster (src/io/formats/decoded-image.ts) with the data window's samples, row 0 = the
 * data window's yMin row (the top of the image), HALF widened exactly to float32 bits, FLOAT copied bit for bit.
 *
 * Rules, after the OpenEXR file-layout description (magic 20000630, version 2, attributes, offset table, chunks):
 * - [R] Read: scanline and tiled single-part files; tiled MIPMAP/RIPMAP files give level 0 and say so. Compressions
 *   NONE, RLE, ZIPS, ZIP (zlib + predictor + byte split) and PIZ (src/io/formats/exr-piz.ts). Channel types HALF
 *   and FLOAT. Refused with the reason: multi-part, deep, UINT channels, sub-sampled channels, other compressions.
 * - [R] Channel: sel.channel, else `Y`, else `R`; a missing one is refused naming the channels present.
 * - [R] Each chunk is placed by its own y (scanline) or tile coordinates, so every lineOrder reads the same; each
 *   chunk must appear exactly once.
 * - [R] Hardened: attribute names ≤ 255 bytes, every size checked against the bytes present, the pixel limit and the
 *   memory estimate checked before allocating, offset-table entries checked to lie in the file, each block inflated
 *   with its expected size as the cap and its actual size checked. A block whose stored size equals its raw size is
 *   stored uncompressed (OpenEXR writes a block raw when compressing would not make it smaller).
 * - [R] A large zlib file read from disk shares its blocks with a helper thread (src/io/formats/exr-helper.ts) that
 *   runs the same block kernel; `info` takes the samples a band of rows at a time (decodeExrRows) and never holds the
 *   field. Both give the values and refusals of the one-thread whole decode (tested).
 */
import { inflateSync } from 'node:zlib';
import { FormatError } from '../../errors.js';
import { compiledWasm, instantiateWasm, wasmDisabled, type WasmMemory } from '../../core/wasm.js';
import { HELPER_FROM, HELPER_MAX_BLOCK, helperWanted, prestartInflateHelper, startInflateHelper, type InflateHelper } from './exr-helper.js';
import { EXR_PREDICTOR_WASM_BASE64 } from './wasm/exr-predictor-wasm.js';
import { sourceOf, type ByteSource, type DecoderInput } from '../byte-source.js';
import { checkFieldSize, checkReaderMemory } from '../limits.js';
import { PizDecoder } from './exr-piz.js';
import type { DecodedRaster, RasterHeader, RasterLimits, RasterSelection } from './decoded-image.js';

const MAGIC = 20000630;
/** Typed-array views read the host's byte order; the fast paths that use them need little-endian (EXR's order). */
const LITTLE_ENDIAN = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;
const MAX_NAME_BYTES = 255;

/** Compression codes in the order the OpenEXR 3.5 bindings number them. */
const COMPRESSION_NAMES = ['NONE', 'RLE', 'ZIPS', 'ZIP', 'PIZ', 'PXR24', 'B44', 'B44A', 'DWAA', 'DWAB', 'HTJ2K256', 'HTJ2K32', 'LJ2K', 'ZSTD'] as const;
const SUPPORTED_COMPRESSIONS = new Set([0, 1, 2, 3, 4]);
/** Scanlines per chunk of a scanline file, by compression. */
const LINES_PER_BLOCK: Readonly<Record<number, number>> = { 0: 1, 1: 1, 2: 1, 3: 16, 4: 32 };
const PIXEL_TYPE_NAMES = ['UINT', 'HALF', 'FLOAT'] as const;
const PIXEL_TYPE_BYTES = [4, 2, 4] as const;
const LINE_ORDER_NAMES = ['INCREASING_Y', 'DECREASING_Y', 'RANDOM_Y'] as const;
const LEVEL_MODE_NAMES = ['ONE_LEVEL', 'MIPMAP_LEVELS', 'RIPMAP_LEVELS'] as const;

export interface ExrBox {
  readonly xMin: number;
  readonly yMin: number;
  readonly xMax: number;
  readonly yMax: number;
}

export interface ExrChannel {
  readonly name: string;
  /** 0 UINT, 1 HALF, 2 FLOAT. */
  readonly pixelType: number;
  readonly pixelTypeName: string;
  readonly xSampling: number;
  readonly ySampling: number;
}

export interface ExrTiles {
  readonly xSize: number;
  readonly ySize: number;
  readonly levelMode: string;
  readonly roundingMode: 'ROUND_DOWN' | 'ROUND_UP';
}

/** What the header of a single-part OpenEXR file says, for `info` and for the decoder. */
export interface ExrHeader {
  readonly tiled: boolean;
  readonly channels: readonly ExrChannel[];
  readonly compression: number;
  readonly compressionName: string;
  readonly dataWindow: ExrBox;
  readonly displayWindow: ExrBox;
  readonly lineOrder: string;
  readonly tiles: ExrTiles | null;
  /** Every attribute as `name (type)`, in file order. */
  readonly attributes: readonly string[];
  /** Byte offset of the offset table (just past the header's terminating null byte). */
  readonly offsetTableStart: number;
}

/** The header ran past the bytes read so far (`upTo` bytes would hold what was asked for). */
class ExrShortHeader extends FormatError {
  constructor(
    message: string,
    readonly upTo: number,
  ) {
    super(message);
  }
}

/** Little-endian reads with bounds checks against the bytes present. */
class Reader {
  pos: number;
  constructor(
    private readonly b: Uint8Array,
    private readonly where: string,
    start: number,
  ) {
    this.pos = start;
  }
  need(n: number, what: string): void {
    if (this.pos + n > this.b.length) {
      throw new ExrShortHeader(`${this.where}: OpenEXR ${what} needs ${n} bytes at offset ${this.pos}, the file has ${this.b.length} bytes`, this.pos + n);
    }
  }
  u8(): number {
    return this.b[this.pos++];
  }
  i32(): number {
    const v = this.b[this.pos] | (this.b[this.pos + 1] << 8) | (this.b[this.pos + 2] << 16) | (this.b[this.pos + 3] << 24);
    this.pos += 4;
    return v;
  }
  u32(): number {
    return this.i32() >>> 0;
  }
  /** A uint64 as a number; values ≥ 2^53 come back as Infinity (always past the end of any file we read). */
  u64(): number {
    const lo = this.u32();
    const hi = this.u32();
    return hi >= 1 << 21 ? Infinity : hi * 4294967296 + lo;
  }
  /** A null-terminated name of at most MAX_NAME_BYTES bytes (an empty name is returned as ''). */
  name(what: string): string {
    const start = this.pos;
    const limit = Math.min(this.b.length, start + MAX_NAME_BYTES + 1);
    let i = start;
    while (i < limit && this.b[i] !== 0) i++;
    if (i >= limit) {
      if (limit === this.b.length)
        throw new ExrShortHeader(
          `${this.where}: OpenEXR ${what} at offset ${start} runs past the end of the file (${this.b.length} bytes)`,
          start + MAX_NAME_BYTES + 1,
        );
      throw new FormatError(`${this.where}: OpenEXR ${what} at offset ${start} is longer than ${MAX_NAME_BYTES} bytes`);
    }
    this.pos = i + 1;
    return Buffer.from(this.b.buffer, this.b.byteOffset + start, i - start).toString('latin1');
  }
}

function readBox(b: Uint8Array, where: string, at: number): ExrBox {
  const r = new Reader(b, where, at);
  return { xMin: r.i32(), yMin: r.i32(), xMax: r.i32(), yMax: r.i32() };
}

function boxText(w: ExrBox): string {
  return `(${w.xMin},${w.yMin})-(${w.xMax},${w.yMax})`;
}

/** True when the bytes start with the OpenEXR magic number (for sniffing a container; decodeExr checks the rest). */
export function looksLikeExr(bytes: Uint8Array): boolean {
  return bytes.length >= 4 && bytes[0] === 0x76 && bytes[1] === 0x2f && bytes[2] === 0x31 && bytes[3] === 0x01;
}

/**
 * The header read from a source: the first 64 KiB, more only while an attribute runs past what was read, so a header
 * is found without reading the file whole.
 */
function readExrHeaderFrom(src: ByteSource, where: string): ExrHeader {
  let n = src.fresh ? Math.min(src.size, 1 << 16) : src.size;
  for (;;) {
    try {
      return readExrHeader(src.head(n), where);
    } catch (e) {
      if (!(e instanceof ExrShortHeader) || n >= src.size) throw e;
      n = Math.min(src.size, Math.max(2 * n, e.upTo));
    }
  }
}

/**
 * Parses and checks the header of a single-part OpenEXR file; refuses multi-part and deep files naming why, and, as
 * the OpenEXR library requires, an attribute named twice and a channel list that is not sorted or not unique.
 */
export function readExrHeader(bytes: Uint8Array, where: string): ExrHeader {
  const r = new Reader(bytes, where, 0);
  r.need(8, 'magic number and version');
  const magic = r.u32();
  if (magic !== MAGIC) throw new FormatError(`${where}: not an OpenEXR file (magic number ${magic}, expected ${MAGIC})`);
  const version = r.u32();
  if ((version & 0xff) !== 2) throw new FormatError(`${where}: OpenEXR version ${version & 0xff}, expected 2`);
  const flags = version >>> 8;
  if (flags & 0x10) throw new FormatError(`${where}: OpenEXR multi-part file: not supported (extract one part first)`);
  if (flags & 0x8) throw new FormatError(`${where}: OpenEXR deep data file: not supported (only flat images are read)`);
  if (flags & ~0x6)
    throw new FormatError(`${where}: OpenEXR version flags 0x${(flags << 8).toString(16)}, expected only the tiled (0x200) and long-names (0x400) flags`);
  const tiled = (flags & 0x2) !== 0;

  const attributes: string[] = [];
  const names = new Set<string>();
  let channels: ExrChannel[] | null = null;
  let compression: number | null = null;
  let dataWindow: ExrBox | null = null;
  let displayWindow: ExrBox | null = null;
  let lineOrder: number | null = null;
  let tiles: ExrTiles | null = null;
  let type: string | null = null;
  for (;;) {
    r.need(1, 'header');
    const name = r.name('attribute name');
    if (name === '') break;
    const typeName = r.name(`type of attribute "${name}"`);
    r.need(4, `size of attribute "${name}"`);
    const size = r.i32();
    if (size < 0) throw new FormatError(`${where}: OpenEXR attribute "${name}" has size ${size}, expected ≥ 0`);
    const at = r.pos;
    r.need(size, `attribute "${name}" (${typeName})`);
    r.pos += size;
    if (names.has(name)) throw new FormatError(`${where}: OpenEXR attribute "${name}" appears twice in the header; each attribute is given once`);
    names.add(name);
    attributes.push(`${name} (${typeName})`);
    const expectSize = (n: number): void => {
      if (size !== n) throw new FormatError(`${where}: OpenEXR attribute "${name}" (${typeName}) has size ${size}, expected ${n}`);
    };
    const expectType = (t: string): void => {
      if (typeName !== t) throw new FormatError(`${where}: OpenEXR attribute "${name}" has type "${typeName}", expected "${t}"`);
    };
    switch (name) {
      case 'channels':
        expectType('chlist');
        channels = readChannels(bytes, where, at, size);
        break;
      case 'compression':
        expectType('compression');
        expectSize(1);
        compression = bytes[at];
        break;
      case 'dataWindow':
      case 'displayWindow': {
        expectType('box2i');
        expectSize(16);
        const box = readBox(bytes, where, at);
        if (box.xMax < box.xMin || box.yMax < box.yMin) throw new FormatError(`${where}: OpenEXR ${name} ${boxText(box)} is empty (max < min)`);
        if (name === 'dataWindow') dataWindow = box;
        else displayWindow = box;
        break;
      }
      case 'lineOrder':
        expectType('lineOrder');
        expectSize(1);
        lineOrder = bytes[at];
        if (lineOrder > 2) throw new FormatError(`${where}: OpenEXR lineOrder ${lineOrder}, expected 0, 1 or 2`);
        break;
      case 'tiles': {
        expectType('tiledesc');
        expectSize(9);
        const t = new Reader(bytes, where, at);
        const xSize = t.u32();
        const ySize = t.u32();
        const mode = t.u8();
        const levelMode = mode & 0xf;
        const rounding = mode >> 4;
        if (xSize < 1 || ySize < 1) throw new FormatError(`${where}: OpenEXR tile size ${xSize}x${ySize}, expected ≥ 1 each way`);
        if (levelMode > 2) throw new FormatError(`${where}: OpenEXR tile level mode ${levelMode}, expected 0 (ONE_LEVEL), 1 (MIPMAP) or 2 (RIPMAP)`);
        if (rounding > 1) throw new FormatError(`${where}: OpenEXR tile rounding mode ${rounding}, expected 0 or 1`);
        tiles = { xSize, ySize, levelMode: LEVEL_MODE_NAMES[levelMode], roundingMode: rounding === 0 ? 'ROUND_DOWN' : 'ROUND_UP' };
        break;
      }
      case 'type':
        expectType('string');
        type = Buffer.from(bytes.buffer, bytes.byteOffset + at, size).toString('latin1');
        break;
      default:
        break;
    }
  }
  if (type === 'deepscanline' || type === 'deeptile')
    throw new FormatError(`${where}: OpenEXR deep data (type "${type}"): not supported (only flat images are read)`);
  if (type !== null && type !== (tiled ? 'tiledimage' : 'scanlineimage')) {
    throw new FormatError(`${where}: OpenEXR type "${type}" contradicts the version flags (${tiled ? 'tiledimage' : 'scanlineimage'})`);
  }
  const missing = [
    channels === null ? 'channels' : '',
    compression === null ? 'compression' : '',
    dataWindow === null ? 'dataWindow' : '',
    displayWindow === null ? 'displayWindow' : '',
    lineOrder === null ? 'lineOrder' : '',
    tiled && tiles === null ? 'tiles' : '',
  ].filter((s) => s !== '');
  if (missing.length > 0 || channels === null || compression === null || dataWindow === null || displayWindow === null || lineOrder === null) {
    throw new FormatError(`${where}: OpenEXR header lacks the required attribute(s) ${missing.join(', ')}`);
  }
  return {
    tiled,
    channels,
    compression,
    compressionName: COMPRESSION_NAMES[compression] ?? `compression code ${compression}`,
    dataWindow,
    displayWindow,
    lineOrder: LINE_ORDER_NAMES[lineOrder],
    tiles: tiled ? tiles : null,
    attributes,
    offsetTableStart: r.pos,
  };
}

function readChannels(bytes: Uint8Array, where: string, at: number, size: number): ExrChannel[] {
  // Parse within the attribute's own bytes.
  const r = new Reader(bytes.subarray(0, at + size), where, at);
  const out: ExrChannel[] = [];
  for (;;) {
    r.need(1, 'channel list');
    const name = r.name('channel name');
    if (name === '') break;
    r.need(16, `channel "${name}"`);
    const pixelType = r.i32();
    r.pos += 4; // pLinear + 3 reserved bytes
    const xSampling = r.i32();
    const ySampling = r.i32();
    const prev = out.length > 0 ? out[out.length - 1].name : null;
    if (prev !== null && name <= prev) {
      throw new FormatError(
        name === prev
          ? `${where}: OpenEXR channel list names "${name}" twice; channel names are unique`
          : `${where}: OpenEXR channel list is not sorted ("${name}" after "${prev}"); OpenEXR stores channels in ascending name order`,
      );
    }
    if (pixelType < 0 || pixelType > 2)
      throw new FormatError(`${where}: OpenEXR channel "${name}" has pixel type ${pixelType}, expected 0 (UINT), 1 (HALF) or 2 (FLOAT)`);
    out.push({ name, pixelType, pixelTypeName: PIXEL_TYPE_NAMES[pixelType], xSampling, ySampling });
  }
  if (r.pos !== at + size) throw new FormatError(`${where}: OpenEXR channel list ends at byte ${r.pos - at}, its size is ${size}`);
  return out;
}

let halfBits: Uint32Array | null = null;

/** float32 bit patterns of all 65536 halves: exact widening, NaN payloads kept (mantissa shifted by 13). */
function halfToFloatBits(): Uint32Array {
  if (halfBits !== null) return halfBits;
  const t = new Uint32Array(65536);
  for (let h = 0; h < 65536; h++) {
    const sign = (h & 0x8000) << 16;
    const exp = (h >> 10) & 0x1f;
    let mant = h & 0x3ff;
    if (exp === 0) {
      if (mant === 0) {
        t[h] = sign;
      } else {
        // Subnormal half: normalise into a float32 exponent.
        let e = -1;
        do {
          mant <<= 1;
          e++;
        } while ((mant & 0x400) === 0);
        t[h] = (sign | ((112 - e) << 23) | ((mant & 0x3ff) << 13)) >>> 0;
      }
    } else if (exp === 31) {
      t[h] = (sign | 0x7f800000 | (mant << 13)) >>> 0;
    } else {
      t[h] = (sign | ((exp + 112) << 23) | (mant << 13)) >>> 0;
    }
  }
  halfBits = t;
  return t;
}

function levelCount(size: number, roundUp: boolean): number {
  // floor or ceil of log2(size), plus one.
  let n = 0;
  let s = size;
  if (roundUp) {
    while (1 << n < size && n < 31) n++;
    return n + 1;
  }
  while (s > 1) {
    s >>>= 1;
    n++;
  }
  return n + 1;
}

interface WordViews {
  readonly u16: Uint16Array;
  readonly u32: Uint32Array;
}

/** One chunk of level 0, as its header places it: its pixel rectangle and stored byte range. */
interface ExrChunk {
  /** Its place in level 0: tile ty * nx + tx, or scanline block (y − yMin) / lines. */
  readonly index: number;
  readonly x0: number;
  readonly y0: number;
  readonly bw: number;
  readonly bh: number;
  readonly size: number;
  readonly start: number;
  readonly expected: number;
}

/** 16- and 32-bit views of a byte array's whole buffer (indexed by buffer byte offset / 2 or / 4), little-endian hosts only. */
function viewsOf(b: Uint8Array): WordViews | null {
  if (!LITTLE_ENDIAN || b.length === 0) return null;
  const buf = b.buffer;
  return { u16: new Uint16Array(buf, 0, buf.byteLength >>> 1), u32: new Uint32Array(buf, 0, buf.byteLength >>> 2) };
}

/** Decodes one channel of a single-part OpenEXR file (see the file header for what is read and refused). */
export function decodeExr(input: DecoderInput, where: string, sel: RasterSelection, limits: RasterLimits): DecodedRaster {
  return decodeExrBlocks(input, where, sel, limits, true);
}

/**
 * decodeExr, with NONE, RLE, ZIPS and ZIP blocks decoded and every block placed on the block kernel or (`useKernel`
 * false, or no WebAssembly) in JavaScript: the tests hold the two paths equal. `helperFrom`: the stored zlib bytes
 * from which a file source's blocks are shared with a helper thread (Infinity: none; 0: always, whatever the load).
 */
export function decodeExrBlocks(
  input: DecoderInput,
  where: string,
  sel: RasterSelection,
  limits: RasterLimits,
  useKernel: boolean,
  helperFrom = HELPER_FROM,
): DecodedRaster {
  const { header, values } = decodeChannel(input, where, sel, limits, useKernel, null, helperFrom);
  if (values === null) throw new Error('unreachable: a whole decode holds its samples');
  return { ...header, values };
}

/**
 * decodeExr's samples handed to `rows` as float32 bits, a band of whole rows at a time (row 0 first), instead of one
 * array: the same checks and refusals (the memory estimate included), the same values, without holding the field.
 */
export function decodeExrRows(
  input: DecoderInput,
  where: string,
  sel: RasterSelection,
  limits: RasterLimits,
  rows: (words: Uint32Array) => void,
  useKernel = true,
  helperFrom = HELPER_FROM,
): RasterHeader {
  return decodeChannel(input, where, sel, limits, useKernel, rows, helperFrom).header;
}

function decodeChannel(
  input: DecoderInput,
  where: string,
  sel: RasterSelection,
  limits: RasterLimits,
  useKernel: boolean,
  rows: ((words: Uint32Array) => void) | null,
  helperFrom: number,
): { header: RasterHeader; values: Float32Array | null } {
  const src = sourceOf(input, where);
  // One part, its full-resolution level: a mip level or array slice asked for would be ignored, so it is refused.
  if (sel.level !== undefined && sel.level !== 0)
    throw new FormatError(`${where}: OpenEXR offers no level ${sel.level}; heightbench reads level 0 of one part`);
  if (sel.slice !== undefined && sel.slice !== 0) throw new FormatError(`${where}: OpenEXR offers no slice ${sel.slice}; only slice 0`);
  const h = readExrHeaderFrom(src, where);
  if (!SUPPORTED_COMPRESSIONS.has(h.compression)) {
    throw new FormatError(`${where}: OpenEXR compression ${h.compressionName}: not supported (NONE, RLE, ZIPS, ZIP and PIZ are read)`);
  }
  const names = h.channels.map((c) => c.name);
  const present = names.length > 0 ? names.join(', ') : 'none';
  let chIndex: number;
  if (sel.channel !== undefined) {
    chIndex = names.indexOf(sel.channel);
    if (chIndex < 0) throw new FormatError(`${where}: OpenEXR has no channel "${sel.channel}"; channels present: ${present}`);
  } else {
    chIndex = names.indexOf('Y');
    if (chIndex < 0) chIndex = names.indexOf('R');
    if (chIndex < 0)
      throw new FormatError(`${where}: OpenEXR has neither channel "Y" nor "R" (choose one with a channel selection); channels present: ${present}`);
  }
  for (const c of h.channels) {
    if (c.xSampling !== 1 || c.ySampling !== 1) {
      throw new FormatError(`${where}: OpenEXR channel "${c.name}" is sub-sampled (${c.xSampling}x${c.ySampling}): not supported, expected 1x1`);
    }
  }
  const ch = h.channels[chIndex];
  if (ch.pixelType === 0) throw new FormatError(`${where}: OpenEXR channel "${ch.name}" is UINT: not supported (HALF and FLOAT are read)`);
  // A file that will likely share its zlib blocks with a helper thread starts it while the chunk headers are read.
  if (useKernel && (h.compression === 2 || h.compression === 3) && src.fd !== undefined && src.size >= helperFrom && (helperFrom === 0 || helperWanted()))
    prestartInflateHelper(helperFrom === 0);

  const dw = h.dataWindow;
  const width = dw.xMax - dw.xMin + 1;
  const height = dw.yMax - dw.yMin + 1;
  checkFieldSize(`${where}: OpenEXR data window ${boxText(dw)}`, width, height, limits.pixelLimit);

  // Bytes per pixel across all channels, and the selected channel's byte offset within a line of a block.
  let pixelBytes = 0;
  let chBefore = 0;
  for (let i = 0; i < h.channels.length; i++) {
    if (i === chIndex) chBefore = pixelBytes;
    pixelBytes += PIXEL_TYPE_BYTES[h.channels[i].pixelType];
  }

  let blockW: number;
  let blockH: number;
  let nx = 1;
  let ny: number;
  let kind: string;
  if (h.tiles !== null) {
    blockW = Math.min(h.tiles.xSize, width);
    blockH = Math.min(h.tiles.ySize, height);
    nx = Math.ceil(width / h.tiles.xSize);
    ny = Math.ceil(height / h.tiles.ySize);
    kind = `tiled ${h.tiles.xSize}x${h.tiles.ySize} ${h.tiles.levelMode}`;
    if (h.tiles.levelMode !== 'ONE_LEVEL') {
      const up = h.tiles.roundingMode === 'ROUND_UP';
      const lx = levelCount(width, up);
      const ly = levelCount(height, up);
      const levels = h.tiles.levelMode === 'MIPMAP_LEVELS' ? `${Math.max(lx, ly)} levels` : `${lx}x${ly} levels`;
      kind += ` (${levels}, ${h.tiles.roundingMode}; level 0 read)`;
    }
  } else {
    blockW = width;
    blockH = Math.min(LINES_PER_BLOCK[h.compression], height);
    ny = Math.ceil(height / LINES_PER_BLOCK[h.compression]);
    kind = 'scanline';
  }
  const chunks = nx * ny;
  const maxBlockBytes = blockW * blockH * pixelBytes;
  const tableEnd = h.offsetTableStart + chunks * 8;
  if (tableEnd > src.size) {
    throw new FormatError(`${where}: OpenEXR offset table of ${chunks} chunks needs bytes ${h.offsetTableStart}..${tableEnd}, the file has ${src.size} bytes`);
  }
  checkReaderMemory(
    where,
    `OpenEXR ${width}x${height} (${width * height * 4} bytes of samples, ${maxBlockBytes}-byte blocks)`,
    width * height * 4 +
      chunks * 24 +
      maxBlockBytes * (h.compression === 4 ? 8 : 5) +
      width * blockH * 4 +
      HALF_TABLE_BYTES +
      2 * INFLATE_TABLE_BYTES +
      64 +
      READ_WINDOW,
  );
  const chunkHeader = h.tiled ? 20 : 8;
  const table = new Reader(src.read(h.offsetTableStart, chunks * 8, 'the OpenEXR offset table'), where, 0);
  const offsets = new Float64Array(chunks);
  for (let i = 0; i < chunks; i++) {
    const off = table.u64();
    if (off < tableEnd || off + chunkHeader > src.size) {
      throw new FormatError(
        `${where}: OpenEXR offset table entry ${i} points at byte ${off}, expected within ${tableEnd}..${src.size - chunkHeader} of the file's ${src.size} bytes (truncated or incomplete file?)`,
      );
    }
    offsets[i] = off;
  }

  // Every chunk's header, placement and byte range checked against the bytes present before the output is allocated:
  // a file whose chunks are missing or truncated is refused without reserving its declared size.
  const seen = new Uint8Array(chunks);
  const lines = LINES_PER_BLOCK[h.compression];
  /** Chunk i's placement: columns x0..x0+bw, rows y0..y0+bh of the data window, from its index in level 0. */
  const placed = (i: number, index: number, size: number): ExrChunk => {
    let x0 = 0;
    let y0: number;
    let bw = width;
    let bh: number;
    if (h.tiles !== null) {
      const tx = index % nx;
      const ty = (index - tx) / nx;
      x0 = tx * h.tiles.xSize;
      y0 = ty * h.tiles.ySize;
      bw = Math.min(h.tiles.xSize, width - x0);
      bh = Math.min(h.tiles.ySize, height - y0);
    } else {
      y0 = index * lines;
      bh = Math.min(lines, height - y0);
    }
    return { index, x0, y0, bw, bh, size, start: offsets[i] + chunkHeader, expected: bw * bh * pixelBytes };
  };
  /** Chunk i's name in messages (made only for one). */
  const labelOf = (i: number, index: number): string =>
    h.tiles !== null
      ? `tile (${index % nx},${Math.floor(index / nx)}) at byte ${offsets[i]}`
      : `scanline chunk y=${dw.yMin + index * lines} at byte ${offsets[i]}`;
  // A file's chunk headers are read into one buffer (bytes in memory are viewed where they are).
  const header = src.fresh ? new Uint8Array(chunkHeader) : null;
  const chunkAt = (i: number): ExrChunk => {
    const what = `OpenEXR chunk ${i}'s header`;
    const r = new Reader(header !== null ? src.readInto(offsets[i], header, what) : src.read(offsets[i], chunkHeader, what), where, 0);
    let index: number;
    if (h.tiles !== null) {
      const tx = r.i32();
      const ty = r.i32();
      const lx = r.i32();
      const ly = r.i32();
      const label = `tile (${tx},${ty}) at byte ${offsets[i]}`;
      if (lx !== 0 || ly !== 0)
        throw new FormatError(`${where}: OpenEXR ${label} is of level (${lx},${ly}), expected level (0,0) in the first ${chunks} chunks`);
      if (tx < 0 || tx >= nx || ty < 0 || ty >= ny) throw new FormatError(`${where}: OpenEXR ${label} lies outside the ${nx}x${ny} tiles of level 0`);
      index = ty * nx + tx;
    } else {
      const y = r.i32();
      const rel = y - dw.yMin;
      if (rel < 0 || rel >= height || rel % lines !== 0) {
        throw new FormatError(
          `${where}: OpenEXR scanline chunk y=${y} at byte ${offsets[i]}: expected a y of ${dw.yMin} + a multiple of ${lines} within ${dw.yMin}..${dw.yMax}`,
        );
      }
      index = rel / lines;
    }
    const c = placed(i, index, r.i32());
    const { size, start, expected, bw, bh } = c;
    if (seen[index] !== 0) throw new FormatError(`${where}: OpenEXR ${labelOf(i, index)} appears twice`);
    seen[index] = 1;
    if (size < 0 || start + size > src.size) {
      throw new FormatError(`${where}: OpenEXR ${labelOf(i, index)} declares ${size} bytes, ${src.size - start} bytes remain in the file`);
    }
    if (size > expected || (h.compression === 0 && size !== expected)) {
      throw new FormatError(
        `${where}: OpenEXR ${labelOf(i, index)} holds ${size} bytes, expected ${h.compression === 0 ? '' : 'at most '}${expected} (${bw}x${bh} pixels of ${pixelBytes} bytes)`,
      );
    }
    return c;
  };
  // One pass over the headers; the chunks are then decoded in placement order (for a file written in increasing y,
  // its own order), each from what its header said.
  const chunkOf = new Int32Array(chunks);
  const sizeOf = new Int32Array(chunks);
  let allRaw = true;
  for (let i = 0; i < chunks; i++) {
    const c = chunkAt(i);
    chunkOf[c.index] = i;
    sizeOf[i] = c.size;
    if (c.size !== c.expected) allRaw = false;
  }

  // Streamed, the output is one band of rows, handed over once whole.
  const values = rows === null ? new Float32Array(width * height) : null;
  const out = values !== null ? new Uint32Array(values.buffer) : new Uint32Array(width * blockH);
  const emit = rows ?? ((words: Uint32Array, y0: number): void => out.set(words, y0 * width));
  const half = ch.pixelType === 1 ? halfToFloatBits() : null;
  const piz = h.compression === 4 ? new PizDecoder(blockW * blockH * (pixelBytes >> 1)) : null;
  const pizChannels = h.channels.map((c) => ({ nx: 0, ny: 0, size: PIXEL_TYPE_BYTES[c.pixelType] >> 1 }));
  // FLOAT samples of the only channel in whole rows, every chunk stored raw: each chunk is its rows, handed over where
  // it lies (the block kernel would be compiled only to copy them).
  const rowsRaw = LITTLE_ENDIAN && allRaw && h.tiles === null && half === null && chBefore === 0 && pixelBytes === 4;
  const block = useKernel && !rowsRaw ? blockKernel(maxBlockBytes, half, width * blockH * 4) : null;
  const scratch = new Uint8Array(block !== null || h.compression === 0 || h.compression === 4 ? 0 : maxBlockBytes);
  const scratchView = viewsOf(scratch);
  const rleOut = new Uint8Array(block === null && h.compression === 1 ? maxBlockBytes : 0);
  const chunks_ = chunkReader(src, tableEnd, block?.window);
  // A zlib block inflated together with the one before it (on the kernel), and the kernel's result for it.
  let paired = -1;
  let pairedResult = -1;

  const helper =
    block !== null && (h.compression === 2 || h.compression === 3)
      ? zlibHelper(src, chunks, (p) => placed(chunkOf[p], p, sizeOf[chunkOf[p]]), maxBlockBytes, helperFrom)
      : null;
  /** Inflates zlib block q (unless the helper has it) to the second output area, as the pairing below does. */
  const sideInflate = (q: number): void => {
    if (block === null || helper === null || q >= chunks) return;
    const c = placed(chunkOf[q], q, sizeOf[chunkOf[q]]);
    if (c.size >= c.expected || !helper.claim(q)) return;
    const b = chunks_.read(c.start, c.size, () => `OpenEXR ${labelOf(chunkOf[q], q)}`);
    let at = b.byteOffset;
    if (b.buffer !== block.mem.buffer) {
      at = block.src;
      block.mem.set(b, at);
      block.mem.fill(0, at + c.size, at + c.size + 16);
    }
    pairedResult = block.k.inflate(at, c.size, block.out2, c.expected, block.tabs);
    paired = q;
  };
  try {
    for (let p = 0; p < chunks; p++) {
      const i = chunkOf[p];
      const { x0, y0, bw, bh, size, start, expected } = placed(i, p, sizeOf[i]);
      const label = (): string => `OpenEXR ${labelOf(i, p)}`;
      helper?.release(p);
      // A block the helper thread decoded is not read here; while it still decodes this one, the next is inflated here.
      const decoded = helper?.take(p, () => sideInflate(p + 1)) ?? null;
      const bytes = decoded !== null ? decoded : chunks_.read(start, size, label);

      if (block !== null) {
        const { k, mem, blk } = block;
        // A chunk read into the kernel's window is used where it lies; one from elsewhere is copied in.
        let at = bytes.byteOffset;
        if (decoded === null && bytes.buffer !== mem.buffer) {
          at = block.src;
          mem.set(bytes, at);
          mem.fill(0, at + size, at + size + 16);
        }
        // The selected channel's first sample in the decoded block, and the bytes from one of its lines to the next.
        let from = blk + chBefore * bw;
        let line = bw * pixelBytes;
        if (decoded !== null) {
          mem.set(decoded, blk);
        } else if (size === expected) {
          if (half === null && chBefore === 0 && line === 4 * width && (at & 3) === 0) {
            // FLOAT samples of one channel in whole rows, stored raw: the chunk is the rows, where it lies.
            emit(new Uint32Array(mem.buffer, at, width * bh), y0);
            continue;
          }
          // Placed from where it lies (the kernel's loads need no alignment).
          from = at + chBefore * bw;
        } else if (piz !== null) {
          for (const c of pizChannels) {
            c.nx = bw;
            c.ny = bh;
          }
          const { words, starts } = piz.decode(bytes, 0, size, pizChannels, chIndex, `${where}: ${label()}`);
          // PIZ gives each channel's words apart: the selected one's lines follow each other.
          line = 2 * bw * pizChannels[chIndex].size;
          mem.set(new Uint8Array(words.buffer, words.byteOffset + 2 * starts[chIndex], line * bh), blk);
          from = blk;
        } else if (h.compression === 1) {
          rleStatus(k.unrle(at, size, 0, expected), expected, () => `${where}: ${label()}`);
          k.unpredict(expected, blk);
        } else {
          let r: number;
          if (paired === p) {
            r = pairedResult;
            if (r === expected) mem.copyWithin(0, block.out2, block.out2 + expected);
          } else {
            // With the next block in the window too, both are inflated at once (two streams keep the CPU busier).
            const q = p + 1 < chunks && bytes.buffer === mem.buffer ? placed(chunkOf[p + 1], p + 1, sizeOf[chunkOf[p + 1]]) : null;
            const next = q !== null && q.size < q.expected ? chunks_.held(q.start, q.size) : null;
            if (q !== null && next !== null && (helper === null || helper.claim(p + 1))) {
              k.inflate2(at, size, 0, expected, next.byteOffset, q.size, block.out2, q.expected, block.tabs);
              r = block.words[(block.tabs + INFLATE_RESULT) >>> 2];
              paired = p + 1;
              pairedResult = block.words[(block.tabs2 + INFLATE_RESULT) >>> 2];
            } else {
              r = k.inflate(at, size, 0, expected, block.tabs);
            }
          }
          // Anything the kernel does not take is inflated by node's zlib, whose bytes or refusal are the reference.
          if (r !== expected) mem.set(inflateBlock(bytes, expected, `${where}: ${label()}`), 0);
          k.unpredict(expected, blk);
        }
        if (half === null && from === blk && line === 4 * width) {
          // FLOAT samples in whole rows, one after another: the block is the rows.
          emit(block.blkWords.subarray(0, width * bh), y0);
          continue;
        }
        k.place(from, bw, bh, line, half === null ? 0 : block.table, block.band + 4 * x0, 4 * width);
        // The band holds whole rows once its last block is placed (blocks come in placement order).
        if (x0 + bw === width) emit(block.bandWords.subarray(0, width * bh), y0);
        continue;
      }

      if (rowsRaw && (bytes.byteOffset & 3) === 0) {
        emit(new Uint32Array(bytes.buffer, bytes.byteOffset, width * bh), y0);
        continue;
      }
      const what = `${where}: ${label()}`;
      // The block's first row in `out`: the field's, or the band's.
      const top = rows === null ? y0 : 0;
      if (piz !== null && size < expected) {
        for (const c of pizChannels) {
          c.nx = bw;
          c.ny = bh;
        }
        const { words, starts } = piz.decode(bytes, 0, size, pizChannels, chIndex, what);
        let src = starts[chIndex];
        const step = bw * pizChannels[chIndex].size;
        // A 32-bit sample is its low word then its high word: on a little-endian machine, the words' own bytes.
        const words32 = half === null && LITTLE_ENDIAN && (src & 1) === 0 ? new Uint32Array(words.buffer, words.byteOffset, words.length >> 1) : null;
        for (let row = 0; row < bh; row++, src += step) {
          let o = (top + row) * width + x0;
          if (half !== null) {
            for (let x = 0; x < bw; x++) out[o++] = half[words[src + x]];
          } else if (words32 !== null) {
            out.set(words32.subarray(src >> 1, (src >> 1) + bw), o);
          } else {
            for (let x = 0, s = src; x < bw; x++, s += 2) out[o++] = (words[s] | (words[s + 1] << 16)) >>> 0;
          }
        }
        if (rows !== null && x0 + bw === width) rows(out.subarray(0, width * bh));
        continue;
      }

      let raw: Uint8Array;
      let base: number;
      if (size === expected) {
        raw = bytes;
        base = 0;
      } else {
        raw = scratch;
        base = 0;
        if (h.compression === 1) {
          unRle(bytes, 0, size, rleOut, expected, what);
          unpredict(rleOut, scratch, expected);
        } else {
          unpredict(inflateBlock(bytes, expected, what), scratch, expected);
        }
      }
      const lineBytes = bw * pixelBytes;
      const view = raw === scratch ? scratchView : viewsOf(raw);
      for (let row = 0; row < bh; row++) {
        let s = base + row * lineBytes + chBefore * bw;
        let o = (top + row) * width + x0;
        const at = raw.byteOffset + s;
        if (view !== null && half === null && (at & 3) === 0) {
          out.set(view.u32.subarray(at >>> 2, (at >>> 2) + bw), o);
        } else if (view !== null && half !== null && (at & 1) === 0) {
          const u16 = view.u16;
          for (let x = 0, i = at >>> 1; x < bw; x++) out[o++] = half[u16[i++]];
        } else if (half !== null) {
          for (let x = 0; x < bw; x++, s += 2) out[o++] = half[raw[s] | (raw[s + 1] << 8)];
        } else {
          for (let x = 0; x < bw; x++, s += 4) out[o++] = (raw[s] | (raw[s + 1] << 8) | (raw[s + 2] << 16) | (raw[s + 3] << 24)) >>> 0;
        }
      }
      if (rows !== null && x0 + bw === width) rows(out.subarray(0, width * bh));
    }
  } finally {
    helper?.stop();
  }

  const raster: RasterHeader = {
    container: 'exr',
    width,
    height,
    sampleType: ch.pixelType === 1 ? 'float16' : 'float32',
    unorm16: false,
    georeference: null,
    nodata: null,
    endian: 'le', // OpenEXR is little-endian throughout
    description:
      `OpenEXR ${kind}, ${h.compressionName}, channel ${ch.name} (${ch.pixelTypeName}) from channels ${present}, ` +
      `data window ${boxText(dw)}, display window ${boxText(h.displayWindow)}, lineOrder ${h.lineOrder}`,
  };
  return { header: raster, values };
}

/** Bytes of chunk data read at once from a file: consecutive chunks are sliced out of one read. */
const READ_WINDOW = 1 << 20;
const HALF_TABLE_BYTES = 65536 * 4;
const INFLATE_TABLE_BYTES = 16384;
const KERNEL_MEMORY_LIMIT = 1 << 30;
/** Where inflate2 leaves a block's result: offset 52 of the stream state at the end of its tables. */
const INFLATE_RESULT = 16320 + 52;

/**
 * Chunk data by byte range: a file is read a window at a time (forward from a chunk, or backward from its end when the
 * chunks come in decreasing file order) and the chunks are views of it; bytes in memory are views already.
 */
interface ChunkReader {
  /** `what` names the range in a refusal (made only for one). */
  read(start: number, size: number, what: () => string): Uint8Array;
  /** The range's bytes if the window read last holds them (a view valid until the next read), else null. */
  held(start: number, size: number): Uint8Array | null;
}

function chunkReader(src: ByteSource, first: number, window?: Uint8Array): ChunkReader {
  if (!src.fresh) return { read: (start, size, what) => src.read(start, size, what()), held: () => null };
  let at = 0;
  let win: Uint8Array = new Uint8Array(0);
  // One buffer for every window: a fresh one per read would be paged in anew each time.
  let buf: Uint8Array | null = window ?? null;
  const held = (start: number, size: number): Uint8Array | null =>
    start >= at && start + size <= at + win.length ? win.subarray(start - at, start - at + size) : null;
  const read = (start: number, size: number, what: () => string): Uint8Array => {
    const h = held(start, size);
    if (h !== null) return h;
    if (size >= READ_WINDOW) return src.read(start, size, what());
    const from = start < at ? Math.max(first, start + size - READ_WINDOW) : start;
    buf ??= new Uint8Array(READ_WINDOW);
    win = src.readInto(from, buf.subarray(0, Math.min(src.size - from, READ_WINDOW)), what());
    at = from;
    return win.subarray(start - from, start - from + size);
  };
  return { read, held };
}

/**
 * A helper thread for the zlib blocks of a file source (src/io/formats/exr-helper.ts), where the blocks to inflate
 * hold `from` stored bytes or more; null otherwise.
 */
function zlibHelper(src: ByteSource, chunks: number, chunk: (p: number) => ExrChunk, maxBlockBytes: number, from: number): InflateHelper | null {
  if (src.fd === undefined || maxBlockBytes > HELPER_MAX_BLOCK || (from > 0 && !helperWanted())) return null;
  const blocks = {
    starts: new Float64Array(chunks),
    sizes: new Int32Array(chunks),
    expected: new Int32Array(chunks),
    eligible: new Uint8Array(chunks),
  };
  let total = 0;
  for (let p = 0; p < chunks; p++) {
    const c = chunk(p);
    blocks.starts[p] = c.start;
    blocks.sizes[p] = c.size;
    blocks.expected[p] = c.expected;
    if (c.size < c.expected) {
      blocks.eligible[p] = 1;
      total += c.size;
    }
  }
  if (total < from) return null;
  const module = compiledWasm(EXR_PREDICTOR_WASM_BASE64);
  return module ? startInflateHelper(module, src.fd, blocks, maxBlockBytes) : null;
}

/** A zlib block inflated to exactly `expected` bytes; more output is refused before it is produced. */
function inflateBlock(bytes: Uint8Array, expected: number, what: string): Uint8Array {
  let inflated: Buffer;
  try {
    // One output chunk of the expected size: no concatenation, and more output is an error.
    inflated = inflateSync(bytes, { maxOutputLength: expected, chunkSize: Math.max(64, expected) });
  } catch (e) {
    throw new FormatError(`${what}: zlib data does not inflate to ${expected} bytes (${e instanceof Error ? e.message : String(e)})`);
  }
  if (inflated.length !== expected) throw new FormatError(`${what}: zlib data inflates to ${inflated.length} bytes, expected ${expected}`);
  return new Uint8Array(inflated.buffer, inflated.byteOffset, inflated.length);
}

interface BlockKernel {
  memory: WasmMemory;
  unpredict(n: number, dst: number): void;
  unrle(src: number, size: number, dst: number, expected: number): number;
  inflate(src: number, size: number, dst: number, cap: number, tabs: number): number;
  inflate2(a: number, an: number, aDst: number, aCap: number, b: number, bn: number, bDst: number, bCap: number, tabs: number): void;
  place(src: number, bw: number, bh: number, line: number, table: number, dst: number, stride: number): void;
}

/** A block kernel instance with its memory laid out for one decode. */
interface BlockArea {
  readonly k: BlockKernel;
  readonly mem: Uint8Array;
  /** The decoded block (the predictor's output, or a block stored raw); the predictor's input is at 0. */
  readonly blk: number;
  /** A block's stored bytes (RLE or zlib), with 16 bytes after them for the inflate's reads ahead. */
  readonly src: number;
  /** The inflate's code tables and state (16 KiB), and a second set with an output area for a second block. */
  readonly tabs: number;
  readonly tabs2: number;
  readonly out2: number;
  /** The whole memory as 32-bit words (inflate2's results). */
  readonly words: Int32Array;
  /** The half → float32 table (HALF channels). */
  readonly table: number;
  readonly blkWords: Uint32Array;
  /** Whole rows of the output, filled block by block. */
  readonly band: number;
  readonly bandWords: Uint32Array;
  /** The file's chunk data, a window at a time (with 32 bytes after it, for the inflate's reads ahead). */
  readonly window: Uint8Array;
}

/**
 * The block kernel (wasm/exr-predictor.wat) with room for blocks of `maxBlock` bytes and a band of `bandBytes`, or
 * null where WebAssembly is off or unavailable. [R] It keeps a one-shot process out of V8's baseline tiers for the
 * RLE runs, the predictor and the per-sample widening; the JavaScript path stays the reference it equals.
 */
function blockKernel(maxBlock: number, half: Uint32Array | null, bandBytes: number): BlockArea | null {
  if (wasmDisabled()) return null;
  // Blocks too large for a 32-bit memory of a comfortable size go the JavaScript way.
  if (maxBlock > KERNEL_MEMORY_LIMIT / 8 || bandBytes > KERNEL_MEMORY_LIMIT / 2) return null;
  const k = instantiateWasm<BlockKernel>(EXR_PREDICTOR_WASM_BASE64);
  if (!k) return null;
  const a = (maxBlock + 15) & ~15;
  const tabs = 3 * a + 32;
  // The second block's tables follow the first's (inflate2 finds them there).
  const tabs2 = tabs + INFLATE_TABLE_BYTES;
  const table = tabs2 + INFLATE_TABLE_BYTES;
  const band = table + (half === null ? 0 : HALF_TABLE_BYTES);
  const window = (band + bandBytes + 15) & ~15;
  const out2 = window + READ_WINDOW + 32;
  if (out2 + a + 16 > KERNEL_MEMORY_LIMIT) return null;
  const need = out2 + a + 16 - k.memory.buffer.byteLength;
  if (need > 0) k.memory.grow(Math.ceil(need / 65536));
  const buf = k.memory.buffer;
  if (half !== null) new Uint32Array(buf, table, 65536).set(half);
  return {
    k,
    mem: new Uint8Array(buf),
    blk: a,
    blkWords: new Uint32Array(buf, a, a >>> 2),
    src: 2 * a,
    tabs,
    tabs2,
    out2,
    words: new Int32Array(buf, 0, buf.byteLength >>> 2),
    table,
    band,
    bandWords: new Uint32Array(buf, band, bandBytes >>> 2),
    window: new Uint8Array(buf, window, READ_WINDOW),
  };
}

let testArea: BlockArea | null = null;

/**
 * A zlib block inflated on the block kernel alone: its bytes, or null where the kernel does not take the block (or
 * WebAssembly is off), for the tests that hold the kernel to node's zlib.
 */
export function inflateOnKernel(bytes: Uint8Array, expected: number): Uint8Array | null {
  // One instance while blocks fit, so that each block's tables are built over the last one's.
  const size = Math.max(expected, bytes.length);
  if (testArea === null || testArea.blk < size) testArea = blockKernel(Math.max(size, 1 << 16), null, 0);
  const area = testArea;
  if (area === null) return null;
  area.mem.set(bytes, area.src);
  if (area.k.inflate(area.src, bytes.length, 0, expected, area.tabs) !== expected) return null;
  return area.mem.slice(0, expected);
}

/** The kernel's RLE result as unRle's refusals. */
function rleStatus(r: number, expected: number, what: () => string): void {
  if (r === expected) return;
  if (r === -1) throw new FormatError(`${what()}: RLE data decodes past the ${expected} bytes expected`);
  if (r === -2) throw new FormatError(`${what()}: RLE repeat run lacks its byte at the end of the chunk`);
  if (r < 0) throw new FormatError(`${what()}: RLE literal run of ${-16 - r} bytes passes the end of the chunk`);
  throw new FormatError(`${what()}: RLE data decodes to ${r} bytes, expected ${expected}`);
}

/** EXR's RLE: a signed count byte; negative → that many literal bytes, else the next byte repeated count + 1 times. */
function unRle(src: Uint8Array, start: number, size: number, dst: Uint8Array, expected: number, what: string): void {
  let p = start;
  const end = start + size;
  let o = 0;
  while (p < end) {
    const n = (src[p++] << 24) >> 24;
    if (n < 0) {
      const count = -n;
      if (p + count > end) throw new FormatError(`${what}: RLE literal run of ${count} bytes passes the end of the chunk`);
      if (o + count > expected) throw new FormatError(`${what}: RLE data decodes past the ${expected} bytes expected`);
      dst.set(src.subarray(p, p + count), o);
      p += count;
      o += count;
    } else {
      const count = n + 1;
      if (p >= end) throw new FormatError(`${what}: RLE repeat run lacks its byte at the end of the chunk`);
      if (o + count > expected) throw new FormatError(`${what}: RLE data decodes past the ${expected} bytes expected`);
      dst.fill(src[p++], o, o + count);
      o += count;
    }
  }
  if (o !== expected) throw new FormatError(`${what}: RLE data decodes to ${o} bytes, expected ${expected}`);
}

interface PredictorKernel {
  memory: { buffer: ArrayBuffer; grow(pages: number): number };
  unpredict(n: number, dst: number): void;
}
let predictor: PredictorKernel | null | undefined;

/**
 * unpredictInterleave on the WebAssembly kernel (wasm/exr-predictor.wat: the running sum sixteen bytes at a time),
 * where it runs: the block is copied into its memory and the result out. [R] A one-shot process would run the byte
 * loop below in V8's baseline tiers; the loop stays the reference the kernel equals (test/format-exr.test.ts).
 */
export function unpredict(t: Uint8Array, dst: Uint8Array, n: number): void {
  if (predictor === undefined) predictor = wasmDisabled() ? null : instantiateWasm<PredictorKernel>(EXR_PREDICTOR_WASM_BASE64);
  const k = predictor;
  if (!k || n === 0) return unpredictInterleave(t, dst, n);
  const at = (n + 15) & ~15;
  const need = at + n - k.memory.buffer.byteLength;
  if (need > 0) k.memory.grow(Math.ceil(need / 65536));
  new Uint8Array(k.memory.buffer, 0, n).set(t.subarray(0, n));
  k.unpredict(n, at);
  dst.set(new Uint8Array(k.memory.buffer, at, n));
}

/**
 * Undoes the ZIP/RLE pre-pass: the byte-delta predictor (d[i] = t[i] − t[i−1] + 128, running over the whole block),
 * then the split that put even-indexed bytes in the first half and odd-indexed ones in the second. `t` is modified.
 */
export function unpredictInterleave(t: Uint8Array, dst: Uint8Array, n: number): void {
  if (n === 0) return;
  const half = (n + 1) >> 1;
  let v = t[0];
  for (let i = 1; i < half; i++) {
    v = (v + t[i] - 128) & 0xff;
    t[i] = v;
  }
  const pairs = n >> 1;
  if (LITTLE_ENDIAN && (dst.byteOffset & 1) === 0) {
    // Byte 2k from the first half, byte 2k+1 from the second: one 16-bit store per pair.
    const d16 = new Uint16Array(dst.buffer, dst.byteOffset, pairs);
    for (let k = 0; k < pairs; k++) {
      v = (v + t[half + k] - 128) & 0xff;
      d16[k] = t[k] | (v << 8);
    }
  } else {
    for (let k = 0; k < pairs; k++) {
      v = (v + t[half + k] - 128) & 0xff;
      dst[2 * k] = t[k];
      dst[2 * k + 1] = v;
    }
  }
  if ((n & 1) !== 0) dst[n - 1] = t[half - 1];
}
