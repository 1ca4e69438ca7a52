/**
 * Random access to the bytes of one input file, bounded by the bytes present and the reader budget.
 *
 * Inputs: a path (a regular file, opened through openRegular: links to devices, FIFOs and /proc files are refused by
 * what they are, before a byte is read) or bytes already in memory. Output: `read(offset, length, what)` returns
 * exactly the bytes asked for.
 * Rules [R]:
 *  - decoders read their headers first, then only the ranges those headers name; nothing reads a whole file to find
 *    its header;
 *  - every read is checked against the size taken when the file was opened (a range past the end is a FormatError
 *    naming the file, what the range was for and both figures) and against the reader budget before its buffer is
 *    allocated; a file that shrinks while it is read is refused;
 *  - a memory source hands back views (no copy); a file source hands back fresh buffers the caller owns.
 */
import { closeSync, readSync } from 'node:fs';
import { FileSystemError, FormatError, fileSystemMessage, isFileSystemErrno } from '../errors.js';
import { checkReaderMemory } from './limits.js';
import { openRegular } from './read-input.js';

export interface ByteSource {
  /** The file's name for messages. */
  readonly where: string;
  /** Its size in bytes when it was opened. */
  readonly size: number;
  /** `length` bytes from `offset`; refused when the range is not all inside the file or over the reader budget. */
  read(offset: number, length: number, what: string): Uint8Array;
  /** Fills `into` with the bytes from `offset` (a buffer reused across reads); refused as read() refuses a range. */
  readInto(offset: number, into: Uint8Array, what: string): Uint8Array;
  /** The first min(n, size) bytes (a header whose length is not known yet). */
  head(n: number): Uint8Array;
  /** True when read() returns buffers the caller owns and may modify (a file source); false for views (memory). */
  readonly fresh: boolean;
  /** Bytes of the file read so far (for the report and for tests that count work). */
  readonly bytesRead: number;
  /** The open file's descriptor, for a helper thread that reads ranges the caller has checked (a file source). */
  readonly fd?: number;
  close(): void;
}

function checkRange(where: string, size: number, offset: number, length: number, what: string): void {
  if (!(Number.isSafeInteger(offset) && Number.isSafeInteger(length) && offset >= 0 && length >= 0)) {
    throw new FormatError(`${where}: ${what}: byte range ${offset} + ${length} is not a valid range`);
  }
  if (offset + length > size) {
    throw new FormatError(`${where}: ${what} needs bytes ${offset}…${offset + length}, beyond the end of the file (${size} bytes; truncated?)`);
  }
}

/** A source over bytes already in memory (a decoder's Uint8Array input). Views, no copies. */
export function memorySource(bytes: Uint8Array, where: string): ByteSource {
  const b = new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let bytesRead = 0;
  return {
    where,
    size: b.length,
    fresh: false,
    read(offset, length, what) {
      checkRange(where, b.length, offset, length, what);
      bytesRead += length;
      return b.subarray(offset, offset + length);
    },
    readInto(offset, into, what) {
      checkRange(where, b.length, offset, into.length, what);
      bytesRead += into.length;
      into.set(b.subarray(offset, offset + into.length));
      return into;
    },
    head(n) {
      const k = Math.min(Math.max(0, n), b.length);
      bytesRead += k;
      return b.subarray(0, k);
    },
    get bytesRead() {
      return bytesRead;
    },
    close() {},
  };
}

/** A source over a regular file, read with positioned reads; close() it when done (a finally). */
export function fileSource(path: string): ByteSource {
  const { fd, size } = openRegular(path);
  let bytesRead = 0;
  let open = true;
  const pread = (offset: number, length: number, what: string, into?: Uint8Array): Uint8Array => {
    if (into === undefined) checkReaderMemory(path, what, length);
    // Aligned to 8 bytes (a fresh ArrayBuffer): decoders view samples as typed arrays without another copy.
    const out = into ?? new Uint8Array(length);
    let off = 0;
    try {
      while (off < length) {
        const got = readSync(fd, out, off, length - off, offset + off);
        if (got === 0) break;
        off += got;
      }
    } catch (e) {
      if (isFileSystemErrno(e)) {
        if (!e.path) e.path = path;
        throw new FileSystemError(fileSystemMessage(e));
      }
      throw e;
    }
    if (off !== length) throw new FormatError(`${path}: the file shrank while it was read (${what}: ${off} of ${length} bytes at byte ${offset})`);
    bytesRead += length;
    return out;
  };
  return {
    where: path,
    size,
    fd,
    fresh: true,
    read(offset, length, what) {
      checkRange(path, size, offset, length, what);
      return pread(offset, length, what);
    },
    readInto(offset, into, what) {
      checkRange(path, size, offset, into.length, what);
      return pread(offset, into.length, what, into);
    },
    head(n) {
      return pread(0, Math.min(Math.max(0, n), size), 'the header');
    },
    get bytesRead() {
      return bytesRead;
    },
    close() {
      if (open) closeSync(fd);
      open = false;
    },
  };
}

/** A decoder's input: bytes in memory or a source. */
export type DecoderInput = Uint8Array | ByteSource;

export function sourceOf(input: DecoderInput, where: string): ByteSource {
  return input instanceof Uint8Array ? memorySource(input, where) : input;
}
