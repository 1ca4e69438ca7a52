/**
 * PNG16: 16-bit greyscale PNG, through fast-png.
 *
 * Seed rules (004, "TerrainHeightmapPng"):
 *  - sixteen bits only: an 8-bit PNG is refused, not widened;
 *  - greyscale only: colour, palette and alpha are refused, not averaged;
 *  - every filter type and Adam7 interlacing decode (files come from other tools); one filter is encoded;
 *  - the PNG's own size overrides any size setting.
 * [R] The header is read and checked before any pixel buffer exists, so an IHDR announcing more pixels than the
 *     configured limit (default 2^28, a 16384² map) is refused before allocation. The chunk layout is walked first so
 *     a truncated file is refused with the reason rather than decoded to zeros.
 */
import { decode, encode } from 'fast-png';
import { FormatError } from '../errors.js';

export const PNG_SIGNATURE = Uint8Array.of(0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a);
export const DEFAULT_PNG_PIXEL_LIMIT = 1 << 28;

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
  const pixels = h.width * h.height;
  if (pixels > pixelLimit) {
    throw new FormatError(`PNG: IHDR announces ${h.width}×${h.height} = ${pixels} pixels, over the limit of ${pixelLimit}`);
  }
}

/** Walks the chunk list: every chunk must fit in the file, IDAT must occur, IEND must close it. */
export function checkPngChunks(bytes: Uint8Array): void {
  let off = 8;
  let sawIdat = false;
  while (off < bytes.length) {
    if (off + 12 > bytes.length) throw new FormatError(`PNG: truncated: chunk header at byte ${off} runs past the end (${bytes.length} bytes)`);
    const len = u32(bytes, off);
    const type = String.fromCharCode(bytes[off + 4], bytes[off + 5], bytes[off + 6], bytes[off + 7]);
    const end = off + 12 + len;
    if (end > bytes.length) {
      throw new FormatError(`PNG: truncated: chunk ${JSON.stringify(type)} at byte ${off} needs ${len} data bytes, the file ends ${end - bytes.length} bytes short`);
    }
    if (type === 'IDAT') sawIdat = true;
    if (type === 'IEND') {
      if (!sawIdat) throw new FormatError('PNG: no IDAT chunk before IEND');
      return;
    }
    off = end;
  }
  throw new FormatError(`PNG: truncated: no IEND chunk in ${bytes.length} bytes`);
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
  checkPngChunks(bytes);
  let png;
  try {
    png = decode(bytes, { checkCrc: true });
  } catch (e) {
    throw new FormatError(`PNG: corrupt: ${(e as Error).message}`);
  }
  const n = header.width * header.height;
  if (png.width !== header.width || png.height !== header.height || png.channels !== 1 || png.depth !== 16) {
    throw new FormatError(`PNG: decoder returned ${png.width}×${png.height}, ${png.channels} channel(s) of ${png.depth} bits; expected ${header.width}×${header.height}, 1 of 16`);
  }
  if (!(png.data instanceof Uint16Array) || png.data.length !== n) {
    throw new FormatError(`PNG: corrupt: decoded ${png.data.length} samples, expected ${n}`);
  }
  return { width: header.width, height: header.height, codes: png.data, interlaced: header.interlace === 1 };
}

export function encodePng16(code_px: Uint16Array, width: number, height: number, opts: { interlace?: boolean } = {}): Uint8Array {
  if (code_px.length !== width * height) {
    throw new RangeError(`encodePng16: ${code_px.length} samples do not fit ${width}×${height} = ${width * height}`);
  }
  return encode(
    { width, height, data: code_px, depth: 16, channels: 1 },
    { interlace: opts.interlace ? 'Adam7' : 'null' },
  );
}
