/**
 * Raw R32: headerless little-endian float32 samples, row-major, for stage dumps.
 * NaN and ±Inf are legal float values here; they are counted and reported, never hidden.
 */
import { FormatError } from '../errors.js';

const hostIsLittleEndian = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;

export function checkR32Size(byteCount: number, width: number, height: number, what = 'R32'): void {
  const expected = width * height * 4;
  if (byteCount !== expected) {
    throw new FormatError(`${what}: ${byteCount} bytes do not fit ${width}×${height} samples: ${width} × ${height} × 4 bytes = ${expected} bytes`);
  }
}

export function inferSquareR32Side(bytes: number): number | null {
  if (bytes % 4 !== 0) return null;
  const n = Math.round(Math.sqrt(bytes / 4));
  return n > 0 && n * n * 4 === bytes ? n : null;
}

/** Decodes R32 bytes; a view sharing memory with `bytes` when they are 4-byte aligned on a little-endian host. */
export function decodeR32(bytes: Uint8Array, width: number, height: number): Float32Array {
  checkR32Size(bytes.length, width, height);
  const n = width * height;
  if (hostIsLittleEndian && bytes.byteOffset % 4 === 0) return new Float32Array(bytes.buffer, bytes.byteOffset, n);
  const out = new Float32Array(n);
  if (hostIsLittleEndian) {
    new Uint8Array(out.buffer).set(bytes);
  } else {
    const dv = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    for (let i = 0; i < n; i++) out[i] = dv.getFloat32(i * 4, true);
  }
  return out;
}

/** R32 bytes of a field: a byte view (no copy) on a little-endian host. */
export function encodeR32(height_px: Float32Array): Uint8Array {
  if (hostIsLittleEndian) {
    return new Uint8Array(height_px.buffer, height_px.byteOffset, height_px.length * 4);
  }
  const out = new Uint8Array(height_px.length * 4);
  const dv = new DataView(out.buffer);
  for (let i = 0; i < height_px.length; i++) dv.setFloat32(i * 4, height_px[i], true);
  return out;
}

export interface NonFiniteCounts {
  nan: number;
  posInf: number;
  negInf: number;
}

export function countNonFinite(values: ArrayLike<number>): NonFiniteCounts {
  let nan = 0;
  let posInf = 0;
  let negInf = 0;
  for (let i = 0; i < values.length; i++) {
    const v = values[i];
    if (v !== v) nan++;
    else if (v === Infinity) posInf++;
    else if (v === -Infinity) negInf++;
  }
  return { nan, posInf, negInf };
}
