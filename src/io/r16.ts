/**
 * Raw R16: headerless 16-bit samples, row-major. Size and byte order are settings, never guessed silently.
 * [R] Little-endian is the default (as World Machine writes .r16). A square size may be inferred from the byte count
 *     when none is given; any byte count that does not fit the size is refused with the arithmetic.
 */
import { FormatError } from '../errors.js';
import type { Endian } from './sidecar.js';

const hostIsLittleEndian = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;

export function expectedR16Bytes(width: number, height: number): number {
  return width * height * 2;
}

/** Side of the square grid `bytes` would hold as R16, or null when it is not a whole square of 2-byte samples. */
export function inferSquareR16Side(bytes: number): number | null {
  if (bytes % 2 !== 0) return null;
  const n = Math.round(Math.sqrt(bytes / 2));
  return n > 0 && n * n * 2 === bytes ? n : null;
}

export function checkR16Size(byteCount: number, width: number, height: number, what = 'R16'): void {
  const expected = expectedR16Bytes(width, height);
  if (byteCount !== expected) {
    throw new FormatError(`${what}: ${byteCount} bytes do not fit ${width}×${height} samples: ${width} × ${height} × 2 bytes = ${expected} bytes`);
  }
}

/**
 * Decodes raw R16 bytes into codes. When the byte order matches the host and the bytes are 2-byte aligned, the result
 * is a view sharing memory with `bytes` (no copy); otherwise a new array.
 */
export function decodeR16(bytes: Uint8Array, width: number, height: number, endian: Endian = 'le'): Uint16Array {
  checkR16Size(bytes.length, width, height);
  const n = width * height;
  const native = (endian === 'le') === hostIsLittleEndian;
  if (native && bytes.byteOffset % 2 === 0) return new Uint16Array(bytes.buffer, bytes.byteOffset, n);
  const out = new Uint16Array(n);
  if (native) {
    new Uint8Array(out.buffer).set(bytes);
  } else {
    for (let i = 0, b = 0; i < n; i++, b += 2) out[i] = (bytes[b] << 8) | bytes[b + 1];
  }
  return out;
}

/** Encodes codes as raw R16 bytes: a byte view of `code_px` in the host's order (no copy), else a new buffer. */
export function encodeR16(code_px: Uint16Array, endian: Endian = 'le'): Uint8Array {
  const n = code_px.length;
  if ((endian === 'le') === hostIsLittleEndian) {
    return new Uint8Array(code_px.buffer, code_px.byteOffset, n * 2);
  }
  const out = new Uint8Array(n * 2);
  for (let i = 0, b = 0; i < n; i++, b += 2) {
    const q = code_px[i];
    out[b] = q >>> 8;
    out[b + 1] = q & 0xff;
  }
  return out;
}
