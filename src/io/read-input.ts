/**
 * Reading an input file with its size bounded before any byte is read.
 *
 * [R] Only regular files are read. The file is opened non-blocking (a FIFO opened for reading would otherwise wait
 *     for a writer forever) and its type is taken from fstat of the open descriptor, so a symbolic link to /dev/zero,
 *     a FIFO, a socket or a folder is refused by what it is, before a byte is read. The size from the same fstat is
 *     checked against the caller's limit, then exactly that many bytes are read; a file that changes size while it is
 *     read is refused.
 */
import { createHash } from 'node:crypto';
import { closeSync, constants, fstatSync, lstatSync, openSync, readSync, statSync, type Stats } from 'node:fs';
import { FileSystemError, FormatError, LimitError, isFileSystemErrno, fileSystemMessage } from '../errors.js';

/** Upper bound on a JSON document (sidecar, request, world, params) [R]. */
export const MAX_JSON_BYTES = 16 * 1024 * 1024;

function kindOf(st: Stats): string {
  if (st.isDirectory()) return 'a folder';
  if (st.isFIFO()) return 'a FIFO (named pipe)';
  if (st.isCharacterDevice()) return 'a character device';
  if (st.isBlockDevice()) return 'a block device';
  if (st.isSocket()) return 'a socket';
  return 'not a regular file';
}

/** Opens a regular file (refusing anything else by what it is) and returns its descriptor and size. */
export function openRegular(path: string): { fd: number; size: number } {
  let fd: number;
  try {
    fd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK);
  } catch (e) {
    const err = e as NodeJS.ErrnoException;
    if (err.code === 'ENOENT') throw new FormatError(`${path}: no such file`);
    if (err.code === 'EISDIR') throw new FormatError(`${path}: is a folder, expected a file`);
    if (isFileSystemErrno(err)) throw new FileSystemError(fileSystemMessage(err));
    throw e;
  }
  try {
    const st = fstatSync(fd);
    if (!st.isFile()) throw new FormatError(`${path}: is ${kindOf(st)}, expected a regular file`);
    return { fd, size: st.size };
  } catch (e) {
    closeSync(fd);
    throw e;
  }
}

/** The size and first `n` bytes of a regular file (fewer when the file is shorter). */
export function readInputHead(path: string, n: number): { size: number; head: Uint8Array } {
  const { fd, size } = openRegular(path);
  try {
    const head = new Uint8Array(Math.min(n, size));
    let off = 0;
    while (off < head.length) {
      const got = readSync(fd, head, off, head.length - off, off);
      if (got === 0) break;
      off += got;
    }
    return { size, head: head.subarray(0, off) };
  } finally {
    closeSync(fd);
  }
}

/**
 * Reads a whole regular file of at most `maxBytes` bytes. `limitReason` explains the limit in the refusal
 * (e.g. "a 4096×4096 R16 is 33554432 bytes"). `alloc`, when given, provides the buffer (e.g. shared memory that a
 * worker thread can hash without a copy).
 */
export function readInputFile(path: string, maxBytes: number, limitReason = 'the limit for this kind of file', alloc?: (bytes: number) => Buffer): Buffer {
  const { fd, size } = openRegular(path);
  try {
    if (size > maxBytes) {
      throw new LimitError(`${path}: ${size} bytes, over ${maxBytes} bytes (${limitReason}); refused before reading`);
    }
    const buf = alloc ? alloc(size) : Buffer.allocUnsafe(size);
    let off = 0;
    while (off < size) {
      const got = readSync(fd, buf, off, size - off, off);
      if (got === 0) break;
      off += got;
    }
    if (off !== size) throw new FormatError(`${path}: the file shrank while it was read (${off} of ${size} bytes)`);
    const extra = readSync(fd, Buffer.alloc(1), 0, 1, size);
    if (extra !== 0) throw new FormatError(`${path}: the file grew while it was read (more than ${size} bytes)`);
    return buf;
  } catch (e) {
    if (!(e instanceof FormatError || e instanceof LimitError) && isFileSystemErrno(e)) {
      if (!e.path) e.path = path;
      throw new FileSystemError(fileSystemMessage(e));
    }
    throw e;
  } finally {
    closeSync(fd);
  }
}

/**
 * The SHA-256 of a regular file, read in 1 MiB chunks up to the size fstat gave when it was opened (memory stays at
 * one chunk; a /proc file or a device that reports one size and streams another is never read past it). A file that
 * is shorter or longer than that size when read is refused.
 */
export function sha256OfRegularFile(path: string): string {
  const { fd, size } = openRegular(path);
  try {
    const hash = createHash('sha256');
    const chunk = Buffer.allocUnsafe(Math.min(1 << 20, Math.max(1, size)));
    let pos = 0;
    while (pos < size) {
      const got = readSync(fd, chunk, 0, Math.min(chunk.length, size - pos), pos);
      if (got === 0) throw new FormatError(`${path}: the file shrank while it was read (${pos} of ${size} bytes)`);
      hash.update(chunk.subarray(0, got));
      pos += got;
    }
    if (size > 0 && readSync(fd, Buffer.alloc(1), 0, 1, size) !== 0)
      throw new FormatError(`${path}: the file grew while it was read (more than ${size} bytes)`);
    return hash.digest('hex');
  } catch (e) {
    if (!(e instanceof FormatError) && isFileSystemErrno(e)) {
      if (!e.path) e.path = path;
      throw new FileSystemError(fileSystemMessage(e));
    }
    throw e;
  } finally {
    closeSync(fd);
  }
}

/** Reads a UTF-8 text file (JSON, YAML) of at most MAX_JSON_BYTES. */
export function readInputText(path: string, maxBytes = MAX_JSON_BYTES): string {
  return readInputFile(path, maxBytes, 'a JSON or YAML document').toString('utf8');
}

/**
 * Whether something is at `path`, judged by lstat: false only when nothing is there. A symbolic link whose target
 * is missing or loops is refused (FormatError), never reported as absent — `existsSync` answers false for a dangling
 * link, which made a planted sidecar link read as "no sidecar" and the file read with default conventions.
 */
export function inputPresent(path: string): boolean {
  let st: Stats;
  try {
    st = lstatSync(path);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return false;
    if (isFileSystemErrno(e)) throw new FileSystemError(fileSystemMessage(e));
    throw e;
  }
  if (st.isSymbolicLink()) {
    try {
      statSync(path);
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      const why = code === 'ELOOP' ? 'loops' : code === 'ENOENT' ? 'points to nothing (dangling)' : `cannot be followed (${code})`;
      throw new FormatError(`${path}: is a symbolic link that ${why}; refused rather than read as absent`);
    }
  }
  return true;
}
