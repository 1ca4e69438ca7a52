/**
 * PNG16: 16-bit greyscale PNG, decoded and written by heightbench itself (Adam7 included; no PNG library).
 *
 * Seed rules (004, "TerrainHeightmapPng"):
 *  - sixteen bits only: an 8-bit PNG is refused, not widened;
 *  - greyscale only: colour, palette and alpha are refused, not averaged;
 *  - every filter type and Adam7 interlacing decode (files come from other tools); one filter is encoded;
 *  - the PNG's own size overrides any size setting.
 * [R] Hostile files are refused before work, with the reason:
 *  - from the IHDR alone: colour type, bit depth, each side ≤ 2^20 and width × height ≤ the pixel limit (default
 *    2^28, a 16384² map) — before a byte is inflated or a pixel buffer exists;
 *  - every chunk: its length fits the file, its CRC-32 matches; IHDR exactly once and first; PLTE never (greyscale);
 *    an unknown critical chunk refused; IDAT chunks consecutive; IEND empty and last, nothing after it;
 *  - the zlib stream is inflated with a hard output cap equal to what the IHDR allows — rows × (1 + row bytes), summed
 *    over the seven Adam7 passes when interlaced — so a decompression bomb stops at the first byte past the cap
 *    (node:zlib's maxOutputLength, checked as each 16 KiB output chunk is produced); zlib verifies the Adler-32;
 *    too little data, too much data and bytes after the end of the zlib stream are refused; an unknown filter type is
 *    refused with its row.
 * [R] Why not fast-png's decoder: it inflates with pako without an output cap, pads short image data with zeros and
 *     does not verify the Adler-32 (77 mutated files decoded to wrong values), and its unfilter/Adam7 helpers are not
 *     exported. Unfiltering one 16-bit grey channel is short, so the whole decode lives here.
 * [R] Writer (non-interlaced): every row with filter type 2 (Up: each byte minus the byte above; the first row's
 *     "above" is zeros), one deflate stream from node:zlib with strategy Z_RLE, level 6, default window and memLevel,
 *     in IDAT chunks of at most 1 MiB. Why: heightfields change slowly from row to row, so Up leaves mostly small
 *     bytes, and run-length matching of them is fast — measured on tundra-r19's 4096² final map (bench/sections/
 *     formats.ts, figures in docs/speed.md): faster than fast-png's filter-None + fflate level 3, and smaller. Z_RLE only
 *     matches the previous byte (no hash chains), so the bytes do not depend on CPU-specific match finders; like any
 *     deflate output they are pinned to the zlib build (Node's), which golden.test.ts's final.png digest watches.
 *     Adam7 (`--interlace`, rare): the seven passes' rows with filter type 0 (None), one deflate stream as above. No
 *     PNG library is loaded on this path, so no command pays for one at start-up.
 */
import { createRequire } from 'node:module';
import type * as Zlib from 'node:zlib';
import { FormatError, LimitError } from '../errors.js';
import { ensureMemory, instantiateWasm, newWasmMemory, wasmDisabled, type WasmMemory } from '../core/wasm.js';
import { ENCODE_WASM_BASE64 } from '../core/wasm/encode-wasm.js';
import { checkModule } from '../core/wasm/layouts.js';

/**
 * [R] node:zlib, loaded by the first PNG read or write: every command loads this module (through the heightfield
 * reader), most never touch a PNG, and loading zlib up front would add to every command's start.
 */
let zlibLoaded: typeof Zlib | null = null;
function zlib(): typeof Zlib {
  return (zlibLoaded ??= createRequire(import.meta.url)('node:zlib') as typeof Zlib);
}

export const PNG_SIGNATURE = Uint8Array.of(0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a);
export const DEFAULT_PNG_PIXEL_LIMIT = 1 << 28;
/** Largest width or height of any heightfield (the sidecar's limit too). */
export const MAX_PNG_SIDE = 1 << 20;

const COLOUR_TYPE_NAMES: Record<number, string> = {
  0: 'greyscale',
  2: 'truecolour (RGB)',
  3: 'palette (indexed colour)',
  4: 'greyscale with alpha',
  6: 'truecolour with alpha (RGBA)',
};

export interface PngHeader {
  width: number;
  height: number;
  bitDepth: number;
  colourType: number;
  interlace: 0 | 1;
}

export function isPng(bytes: Uint8Array): boolean {
  if (bytes.length < 8) return false;
  for (let i = 0; i < 8; i++) if (bytes[i] !== PNG_SIGNATURE[i]) return false;
  return true;
}

function u32(bytes: Uint8Array, off: number): number {
  return ((bytes[off] << 24) | (bytes[off + 1] << 16) | (bytes[off + 2] << 8) | bytes[off + 3]) >>> 0;
}

/** Reads and checks the signature and IHDR only. */
export function readPngHeader(bytes: Uint8Array): PngHeader {
  if (!isPng(bytes)) throw new FormatError('PNG: missing PNG signature (not a PNG file)');
  if (bytes.length < 33) throw new FormatError(`PNG: truncated: ${bytes.length} bytes, an IHDR needs at least 33`);
  const len = u32(bytes, 8);
  const type = String.fromCharCode(bytes[12], bytes[13], bytes[14], bytes[15]);
  if (type !== 'IHDR' || len !== 13) {
    throw new FormatError(`PNG: first chunk must be a 13-byte IHDR, found ${JSON.stringify(type)} of ${len} bytes`);
  }
  const width = u32(bytes, 16);
  const height = u32(bytes, 20);
  const bitDepth = bytes[24];
  const colourType = bytes[25];
  const interlace = bytes[28];
  if (width === 0 || height === 0) throw new FormatError(`PNG: IHDR size ${width}×${height}, expected both ≥ 1`);
  if (interlace !== 0 && interlace !== 1) throw new FormatError(`PNG: interlace method ${interlace}, expected 0 or 1`);
  if (bytes[26] !== 0) throw new FormatError(`PNG: compression method ${bytes[26]}, expected 0 (deflate)`);
  if (bytes[27] !== 0) throw new FormatError(`PNG: filter method ${bytes[27]}, expected 0`);
  if (!chunkCrcOk(bytes, 8, 13)) throw new FormatError('PNG: corrupt: CRC mismatch in chunk "IHDR" at byte 8');
  return { width, height, bitDepth, colourType, interlace: interlace as 0 | 1 };
}

/** Checks that a header describes a 16-bit greyscale heightfield within the pixel limit. */
export function checkHeightfieldPngHeader(h: PngHeader, pixelLimit = DEFAULT_PNG_PIXEL_LIMIT): void {
  if (h.colourType !== 0) {
    const name = COLOUR_TYPE_NAMES[h.colourType] ?? `unknown colour type ${h.colourType}`;
    throw new FormatError(`PNG: colour type ${h.colourType} (${name}), expected 0 (greyscale): colour, palette and alpha are refused, not averaged`);
  }
  if (h.bitDepth !== 16) {
    throw new FormatError(`PNG: bit depth ${h.bitDepth}, expected 16: a heightfield of fewer bits is refused, not widened`);
  }
  if (h.width > MAX_PNG_SIDE || h.height > MAX_PNG_SIDE) {
    throw new LimitError(`PNG: IHDR announces ${h.width}×${h.height}, a side over the limit of ${MAX_PNG_SIDE}`);
  }
  const pixels = h.width * h.height;
  if (pixels > pixelLimit) {
    throw new LimitError(`PNG: IHDR announces ${h.width}×${h.height} = ${pixels} pixels, over the limit of ${pixelLimit}`);
  }
}

/** Bytes of filtered image data the IHDR allows for a 16-bit greyscale image: rows × (1 + row bytes), per pass. */
export function pngImageDataBytes(h: Pick<PngHeader, 'width' | 'height' | 'interlace'>): number {
  let total = 0;
  for (const p of passesOf(h)) total += p.rows * (1 + 2 * p.columns);
  return total;
}

const ADAM7 = [
  [0, 0, 8, 8],
  [4, 0, 8, 8],
  [0, 4, 4, 8],
  [2, 0, 4, 4],
  [0, 2, 2, 4],
  [1, 0, 2, 2],
  [0, 1, 1, 2],
] as const;

interface Pass {
  x0: number;
  y0: number;
  dx: number;
  dy: number;
  columns: number;
  rows: number;
}

function passesOf(h: Pick<PngHeader, 'width' | 'height' | 'interlace'>): Pass[] {
  if (h.interlace === 0) return [{ x0: 0, y0: 0, dx: 1, dy: 1, columns: h.width, rows: h.height }];
  const out: Pass[] = [];
  for (const [x0, y0, dx, dy] of ADAM7) {
    const columns = h.width > x0 ? Math.ceil((h.width - x0) / dx) : 0;
    const rows = h.height > y0 ? Math.ceil((h.height - y0) / dy) : 0;
    // A pass with no columns or no rows has no bytes at all, not even filter bytes (PNG spec, Adam7).
    if (columns > 0 && rows > 0) out.push({ x0, y0, dx, dy, columns, rows });
  }
  return out;
}

const KNOWN_CRITICAL = new Set(['IHDR', 'PLTE', 'IDAT', 'IEND']);

function chunkCrcOk(bytes: Uint8Array, off: number, len: number): boolean {
  return zlib().crc32(bytes.subarray(off + 4, off + 8 + len)) === u32(bytes, off + 8 + len);
}

/**
 * Walks the chunk list and returns the concatenated IDAT data. Every chunk must fit the file and carry a matching
 * CRC-32; IHDR once and first; no PLTE (greyscale); no unknown critical chunk; consecutive IDATs; an empty IEND last.
 */
export function checkPngChunks(bytes: Uint8Array, header?: PngHeader): Uint8Array {
  const colourType = header?.colourType ?? bytes[25];
  let off = 8;
  let index = 0;
  const idat: Uint8Array[] = [];
  let idatEnded = false;
  while (off < bytes.length) {
    if (off + 12 > bytes.length) throw new FormatError(`PNG: truncated: chunk header at byte ${off} runs past the end (${bytes.length} bytes)`);
    const len = u32(bytes, off);
    const type = String.fromCharCode(bytes[off + 4], bytes[off + 5], bytes[off + 6], bytes[off + 7]);
    if (!/^[A-Za-z]{4}$/.test(type))
      throw new FormatError(`PNG: chunk at byte ${off} has an invalid type ${JSON.stringify(type)} (four ASCII letters expected)`);
    if (len > 0x7fffffff) throw new FormatError(`PNG: chunk ${JSON.stringify(type)} at byte ${off} declares ${len} bytes, over the PNG maximum of 2^31 − 1`);
    const end = off + 12 + len;
    if (end > bytes.length) {
      throw new FormatError(
        `PNG: truncated: chunk ${JSON.stringify(type)} at byte ${off} needs ${len} data bytes, the file ends ${end - bytes.length} bytes short`,
      );
    }
    if (!chunkCrcOk(bytes, off, len)) {
      throw new FormatError(
        `PNG: corrupt: CRC mismatch in chunk ${JSON.stringify(type)} at byte ${off} (stored ${u32(bytes, off + 8 + len)
          .toString(16)
          .padStart(8, '0')}, computed ${zlib()
          .crc32(bytes.subarray(off + 4, off + 8 + len))
          .toString(16)
          .padStart(8, '0')})`,
      );
    }
    const critical = (bytes[off + 4] & 0x20) === 0;
    if (type === 'IHDR' && index > 0) throw new FormatError(`PNG: a second IHDR chunk at byte ${off}`);
    if (type === 'PLTE' && (colourType === 0 || colourType === 4))
      throw new FormatError(`PNG: PLTE chunk at byte ${off} in a greyscale file (a palette is not allowed there)`);
    if (critical && !KNOWN_CRITICAL.has(type))
      throw new FormatError(`PNG: unknown critical chunk ${JSON.stringify(type)} at byte ${off}: it cannot be skipped safely`);
    if (type === 'IDAT') {
      if (idatEnded) throw new FormatError(`PNG: IDAT chunk at byte ${off} after another chunk ended the image data (IDAT chunks must be consecutive)`);
      idat.push(bytes.subarray(off + 8, off + 8 + len));
    } else if (idat.length > 0) idatEnded = true;
    if (type === 'IEND') {
      if (idat.length === 0) throw new FormatError('PNG: no IDAT chunk before IEND');
      if (len !== 0) throw new FormatError(`PNG: IEND chunk at byte ${off} carries ${len} data bytes, expected 0`);
      if (end !== bytes.length) throw new FormatError(`PNG: ${bytes.length - end} bytes after IEND (byte ${end} onwards)`);
      return idat.length === 1 ? idat[0] : Buffer.concat(idat);
    }
    off = end;
    index++;
  }
  throw new FormatError(`PNG: truncated: no IEND chunk in ${bytes.length} bytes`);
}

/** Inflates the zlib stream with a hard cap of `expected` bytes; refuses too much, too little, trailing bytes, bad Adler-32. */
export function inflateImageData(zdata: Uint8Array, expected: number, what: string): Uint8Array {
  let res: { buffer: Buffer; engine: { bytesWritten: number } };
  try {
    res = zlib().inflateSync(zdata, { maxOutputLength: expected, info: true }) as unknown as { buffer: Buffer; engine: { bytesWritten: number } };
  } catch (e) {
    const err = e as NodeJS.ErrnoException;
    if (err.code === 'ERR_BUFFER_TOO_LARGE') {
      throw new FormatError(`PNG: image data inflates past the ${expected} bytes ${what} allows; stopped there (a decompression bomb or a corrupt stream)`);
    }
    if (err.code === 'Z_DATA_ERROR' && /incorrect data check/.test(err.message)) {
      throw new FormatError('PNG: corrupt: zlib Adler-32 checksum of the image data does not match');
    }
    if (err.code === 'Z_BUF_ERROR') throw new FormatError('PNG: truncated: the zlib stream of the image data ends early (no end-of-stream marker)');
    throw new FormatError(`PNG: corrupt: zlib stream of the image data: ${err.message}`);
  }
  if (res.buffer.length !== expected) {
    throw new FormatError(`PNG: image data inflates to ${res.buffer.length} bytes, ${what} needs ${expected}`);
  }
  if (res.engine.bytesWritten < zdata.length) {
    throw new FormatError(`PNG: ${zdata.length - res.engine.bytesWritten} bytes after the end of the zlib stream in IDAT`);
  }
  return res.buffer;
}

/** Reverses the five PNG filters (bytes per pixel 2) and places each pass's samples; codes are big-endian pairs. */
function unfilterInto(raw: Uint8Array, h: PngHeader, code_px: Uint16Array): void {
  let off = 0;
  const maxRow = 2 * h.width;
  let prev = new Uint8Array(maxRow);
  let cur = new Uint8Array(maxRow);
  for (const p of passesOf(h)) {
    const n = 2 * p.columns;
    prev.fill(0, 0, n);
    for (let r = 0; r < p.rows; r++) {
      const f = raw[off];
      const src = off + 1;
      switch (f) {
        case 0:
          for (let i = 0; i < n; i++) cur[i] = raw[src + i];
          break;
        case 1:
          for (let i = 0; i < n; i++) cur[i] = (raw[src + i] + (i >= 2 ? cur[i - 2] : 0)) & 0xff;
          break;
        case 2:
          for (let i = 0; i < n; i++) cur[i] = (raw[src + i] + prev[i]) & 0xff;
          break;
        case 3:
          for (let i = 0; i < n; i++) cur[i] = (raw[src + i] + (((i >= 2 ? cur[i - 2] : 0) + prev[i]) >>> 1)) & 0xff;
          break;
        case 4:
          for (let i = 0; i < n; i++) {
            const a = i >= 2 ? cur[i - 2] : 0;
            const b = prev[i];
            const c = i >= 2 ? prev[i - 2] : 0;
            const pa = Math.abs(b - c);
            const pb = Math.abs(a - c);
            const pc = Math.abs(a + b - 2 * c);
            const pred = pa <= pb && pa <= pc ? a : pb <= pc ? b : c;
            cur[i] = (raw[src + i] + pred) & 0xff;
          }
          break;
        default:
          throw new FormatError(`PNG: corrupt: unknown filter type ${f} at row ${r}${h.interlace ? ` of an Adam7 pass` : ''} (0…4 expected)`);
      }
      const y = p.y0 + r * p.dy;
      let k = y * h.width + p.x0;
      for (let i = 0; i < n; i += 2, k += p.dx) code_px[k] = (cur[i] << 8) | cur[i + 1];
      off += 1 + n;
      const t = prev;
      prev = cur;
      cur = t;
    }
  }
}

export interface DecodedPng16 {
  width: number;
  height: number;
  codes: Uint16Array;
  interlaced: boolean;
}

export function decodePng16(bytes: Uint8Array, opts: { pixelLimit?: number } = {}): DecodedPng16 {
  const header = readPngHeader(bytes);
  checkHeightfieldPngHeader(header, opts.pixelLimit ?? DEFAULT_PNG_PIXEL_LIMIT);
  const zdata = checkPngChunks(bytes, header);
  const expected = pngImageDataBytes(header);
  const raw = inflateImageData(
    zdata,
    expected,
    `a ${header.width}×${header.height} ${header.interlace ? 'Adam7-interlaced' : 'non-interlaced'} 16-bit grey IHDR`,
  );
  const codes = new Uint16Array(header.width * header.height);
  unfilterInto(raw, header, codes);
  return { width: header.width, height: header.height, codes, interlaced: header.interlace === 1 };
}

/**
 * `rows` (non-interlaced only): a caller-owned buffer of at least (2·width + 1)·height bytes, not overlapping the
 * codes, that the Up-filtered scanlines are written into instead of a new one — memory the caller has already paged
 * in (the executor's arena: a first write to each of its 8,000 pages would otherwise fall on this thread).
 */
export function encodePng16(code_px: Uint16Array, width: number, height: number, opts: { interlace?: boolean; rows?: Uint8Array } = {}): Uint8Array {
  if (code_px.length !== width * height) {
    throw new RangeError(`encodePng16: ${code_px.length} samples do not fit ${width}×${height} = ${width * height}`);
  }
  const into = opts.rows && !opts.interlace ? scanlineBuffer(opts.rows, code_px, width, height) : undefined;
  const rows = opts.interlace
    ? adam7Rows(code_px, width, height)
    : (upFilteredRowsWasm(code_px, width, height, into) ?? upFilteredRows(code_px, width, height, into));
  return pngFile(width, height, 16, 0, opts.interlace ? 1 : 0, rows);
}

/** The first (2·width + 1)·height bytes of `rows`, after checking its size and that it does not overlap the codes. */
function scanlineBuffer(rows: Uint8Array, code_px: Uint16Array, width: number, height: number): Uint8Array {
  const need = (2 * width + 1) * height;
  if (rows.length < need) throw new RangeError(`encodePng16: the scanline buffer holds ${rows.length} bytes, ${width}×${height} needs ${need}`);
  const overlaps = rows.buffer === code_px.buffer && rows.byteOffset < code_px.byteOffset + code_px.byteLength && code_px.byteOffset < rows.byteOffset + need;
  if (overlaps) throw new RangeError(`encodePng16: the scanline buffer (bytes ${rows.byteOffset}…${rows.byteOffset + need}) overlaps the codes`);
  return rows.subarray(0, need);
}

/**
 * A PNG file of already filtered scanlines: IHDR (bit depth, colour type, compression 0, filter method 0, interlace
 * method), one deflate stream (node:zlib, Z_RLE, level 6) in IDAT chunks of at most 1 MiB, IEND.
 */
export function pngFile(width: number, height: number, bitDepth: number, colourType: number, interlace: 0 | 1, filteredRows: Uint8Array): Uint8Array {
  // [R] Output chunks of up to 4 MiB instead of node:zlib's 16 KiB: a 4096² map's stream is gathered from one or two
  //     chunks instead of hundreds (the deflate stream does not depend on how its output is chunked: the same bytes).
  const chunkSize = Math.min(1 << 22, Math.max(1 << 14, filteredRows.length));
  const zdata = zlib().deflateSync(filteredRows, { level: 6, strategy: zlib().constants.Z_RLE, chunkSize });
  const ihdr = new Uint8Array(13);
  const v = new DataView(ihdr.buffer);
  v.setUint32(0, width);
  v.setUint32(4, height);
  ihdr[8] = bitDepth;
  ihdr[9] = colourType; // compression 0 and filter method 0 follow
  ihdr[12] = interlace;
  const idatCount = Math.max(1, Math.ceil(zdata.length / IDAT_CHUNK));
  const out = new Uint8Array(PNG_SIGNATURE.length + (12 + 13) + idatCount * 12 + zdata.length + 12);
  out.set(PNG_SIGNATURE, 0);
  let at = writeChunk(out, PNG_SIGNATURE.length, 'IHDR', ihdr);
  for (let c = 0; c < idatCount; c++) at = writeChunk(out, at, 'IDAT', zdata.subarray(c * IDAT_CHUNK, Math.min(zdata.length, (c + 1) * IDAT_CHUNK)));
  at = writeChunk(out, at, 'IEND', new Uint8Array(0));
  return out;
}

/** [R] Largest IDAT chunk written (any size up to 2^31 − 1 is valid; 1 MiB keeps each CRC pass short). */
const IDAT_CHUNK = 1 << 20;

/** Writes one chunk (length, type, data, CRC-32 of type + data) at `at`; returns the offset after it. */
function writeChunk(out: Uint8Array, at: number, type: string, data: Uint8Array): number {
  const v = new DataView(out.buffer, out.byteOffset, out.byteLength);
  v.setUint32(at, data.length);
  for (let i = 0; i < 4; i++) out[at + 4 + i] = type.charCodeAt(i);
  out.set(data, at + 8);
  v.setUint32(at + 8 + data.length, zlib().crc32(out.subarray(at + 4, at + 8 + data.length)));
  return at + 12 + data.length;
}

/** Adam7 scanlines: pass by pass, per row a filter byte 0 (None), then the row's samples as big-endian bytes. */
function adam7Rows(code_px: Uint16Array, width: number, height: number): Uint8Array {
  const passes = passesOf({ width, height, interlace: 1 });
  let total = 0;
  for (const p of passes) total += p.rows * (1 + 2 * p.columns);
  const out = new Uint8Array(total);
  let o = 0;
  for (const p of passes) {
    for (let r = 0; r < p.rows; r++) {
      out[o++] = 0;
      const base = (p.y0 + r * p.dy) * width + p.x0;
      for (let c = 0; c < p.columns; c++) {
        const q = code_px[base + c * p.dx];
        out[o++] = q >> 8;
        out[o++] = q & 255;
      }
    }
  }
  return out;
}

/**
 * The filtered scanlines: per row a filter byte 2 (Up), then each big-endian sample byte minus the same byte of the
 * row above, modulo 256. The high byte of a sample is (q >> 8) and the low byte (q & 255), so the low byte's Up
 * difference is simply (q − q_above) & 255.
 */
interface UpKernel {
  memory: WasmMemory;
  /** encode.wat's `up`: rows [j0, j1) of the codes at `codes` to scanlines at out + j·(1 + 2·width). */
  up(codes: number, out: number, width: number, j0: number, j1: number): void;
}

let upKernel: UpKernel | null | undefined;
const LITTLE_ENDIAN_HOST = new Uint8Array(Uint16Array.of(1).buffer)[0] === 1;
/** Codes copied into the kernel's memory per call (the rows of a block and the row above it). */
const UP_BLOCK_BYTES = 1 << 20;

/** encode.wat on a memory of its own (the kernel the run's executor calls in its arena), or null. */
function loadUpKernel(): UpKernel | null {
  const memory = newWasmMemory(1);
  const k = memory ? instantiateWasm<{ up: UpKernel['up'] }>(ENCODE_WASM_BASE64, { env: { memory } }) : null;
  if (!k || !memory) return null;
  checkModule('encode', k as unknown as Record<string, unknown>);
  return { memory, up: k.up };
}

/**
 * [R] The Up filter on a WebAssembly SIMD kernel (encode.wat's `up`), a block of rows at a time: a one-shot process
 *     runs upFilteredRows in V8's baseline tiers, the largest part of writing a 4096² map after the deflate. Null
 *     where the kernel cannot serve (no WebAssembly, HEIGHTBENCH_NO_WASM=1, a big-endian host: the codes are copied
 *     in as the host stores them); upFilteredRows is the reference it equals byte for byte (test/png16-writer.test.ts).
 */
export function upFilteredRowsWasm(code_px: Uint16Array, width: number, height: number, into?: Uint8Array): Uint8Array | null {
  if (!LITTLE_ENDIAN_HOST || wasmDisabled() || width < 1 || height < 1) return null;
  upKernel ??= loadUpKernel();
  const k = upKernel;
  if (!k) return null;
  const rowBytes = 2 * width;
  const stride = 1 + rowBytes;
  const rowsPer = Math.max(1, Math.min(height, Math.floor(UP_BLOCK_BYTES / rowBytes) - 1));
  // Layout: the block's input rows (the row above first, after the first block) at 0, the scanlines after them on a
  // 16-byte boundary (at least one scanline past the input, so that out − stride below stays in the memory).
  const outAt = Math.ceil(((rowsPer + 1) * rowBytes) / 16) * 16;
  ensureMemory(k.memory, outAt + rowsPer * stride);
  const out = into ?? new Uint8Array(stride * height);
  for (let j0 = 0; j0 < height; j0 += rowsPer) {
    const rows = Math.min(rowsPer, height - j0);
    // The first block is rows 0… of the image (zeros above row 0); a later one is row 1… of its input, the row
    // above at 0, so that its first scanline (row 1) still lands at outAt.
    const above = j0 === 0 ? 0 : 1;
    const input = new Uint16Array(k.memory.buffer, 0, (rows + above) * width);
    input.set(code_px.subarray((j0 - above) * width, (j0 + rows) * width));
    k.up(0, outAt - above * stride, width, above, above + rows);
    out.set(new Uint8Array(k.memory.buffer, outAt, rows * stride), j0 * stride);
  }
  return out;
}

/** The Up-filtered scanlines of a non-interlaced 16-bit grey image (the reference of upFilteredRowsWasm). */
export function upFilteredRows(code_px: Uint16Array, width: number, height: number, into?: Uint8Array): Uint8Array {
  const stride = 1 + 2 * width;
  const out = into ?? new Uint8Array(stride * height);
  for (let j = 0; j < height; j++) {
    const o = j * stride;
    const row = j * width;
    out[o] = 2;
    if (j === 0) {
      for (let i = 0; i < width; i++) {
        const q = code_px[i];
        out[o + 1 + 2 * i] = q >> 8;
        out[o + 2 + 2 * i] = q & 255;
      }
      continue;
    }
    const above = row - width;
    for (let i = 0; i < width; i++) {
      const q = code_px[row + i];
      const u = code_px[above + i];
      out[o + 1 + 2 * i] = ((q >> 8) - (u >> 8)) & 255;
      out[o + 2 + 2 * i] = (q - u) & 255;
    }
  }
  return out;
}
