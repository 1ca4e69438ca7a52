/**
 * A sidecar-described R16 file read a chunk at a time, hashed as it is read: the input of a comparison that needs no
 * whole field in memory (`heightbench compare` without --report, --diagnose, --resample or --generated-float).
 *
 * Input: a path and the read settings. Output: an R16CodeStream — grid and range from the sidecar, `fill` (codes of a
 * pixel range, in ascending adjacent chunks) and `verified` (whether exactly the committed payload was read).
 * The checks before the first byte are readHeightfieldFile's own (sidecar, settings against it, a regular file of the
 * committed size); the SHA-256 is computed over the chunks as they are read. Where this reader does not apply — no
 * sidecar, another container or byte order, a size that differs, any refusal — openR16Stream answers null, and where
 * the digest or the byte count differs `verified` answers false: the caller then reads the files the ordinary way
 * (readHeightfieldFile), which gives the refusal, or the recovery of an interrupted pair write, exactly as before.
 * [R] Streaming keeps 64 MiB of a 4096² pair out of memory: no page is faulted in and freed, and hashing and
 *     comparing run on data still in the cache. With `reader: 'worker'` a worker thread reads and hashes the file
 *     ahead of the caller (stream-worker.ts), so two files are hashed on two cores.
 */
import { closeSync, readSync } from 'node:fs';
import { createHash, type Hash } from 'node:crypto';
import { isInputError } from '../errors.js';
import type { GridDescription, HeightRange } from '../core/grid.js';
import { checkSettingsAgainstSidecar, type ReadSettings } from './heightfield-file.js';
import { containerForPath } from './containers.js';
import { openRegular } from './read-input.js';
import { checkFieldSize } from './limits.js';
import { startStreamReader, type StreamReader } from './stream-worker.js';
import { readSidecarFor } from './sidecar.js';
import { DEFAULTS_NOTE } from './input-conventions.js';

const hostIsLittleEndian = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;

export interface R16CodeStream {
  readonly path: string;
  readonly grid: GridDescription;
  readonly range: HeightRange;
  /** Writes codes [start, start + count) into slot[0, count); chunks must come in order, each after the last. */
  fill(slot: Uint16Array, start: number, count: number): void;
  /** After the last chunk: true when every committed byte was read, no more, and its SHA-256 is the sidecar's. Closes the file. */
  verified(): Promise<boolean>;
  /** Closes the file (idempotent). */
  close(): void;
}

export interface StreamOptions {
  /** 'worker': a worker thread reads and hashes the file ahead of the caller (stream-worker.ts); default this thread. */
  reader?: 'this-thread' | 'worker';
}

/** Opens `path` for streaming, or null where the ordinary reader must decide (see the header). */
export function openR16Stream(path: string, settings: ReadSettings, options: StreamOptions = {}): R16CodeStream | null {
  let fd = -1;
  try {
    // A selection (channel, level, slice) is the ordinary reader's to refuse.
    if (
      containerForPath(path) !== 'r16' ||
      !hostIsLittleEndian ||
      settings.channel !== undefined ||
      settings.level !== undefined ||
      settings.slice !== undefined
    )
      return null;
    const sidecar = readSidecarFor(path);
    if (!sidecar || sidecar.container !== 'r16' || sidecar.endian !== 'le' || sidecar.encoding.kind !== 'unorm16') return null;
    if (sidecar.notes?.[DEFAULTS_NOTE] !== undefined) return null; // conventions that were defaults: the ordinary reader decides
    checkSettingsAgainstSidecar(path, 'r16', sidecar, settings);
    const { columns, rows } = sidecar.grid;
    checkFieldSize(`${path}: sidecar grid`, columns, rows); // the ordinary reader's limit (refused there, with the reason)
    const bytes = columns * rows * 2;
    if (sidecar.payload.bytes !== bytes) return null;
    const opened = openRegular(path);
    fd = opened.fd;
    if (opened.size !== bytes) {
      closeSync(fd);
      return null;
    }
    const reader = options.reader === 'worker' ? startStreamReader(fd, bytes) : null;
    return new Stream(path, fd, sidecar.grid, sidecar.encoding.range, bytes, sidecar.payload.sha256, reader);
  } catch (e) {
    if (fd >= 0) closeSync(fd);
    if (isInputError(e)) return null;
    throw e;
  }
}

class Stream implements R16CodeStream {
  /** The digest when this thread reads; null when a worker reads and hashes (`reader`). */
  private readonly hash: Hash | null;
  private next = 0;
  private intact = true;
  private open = true;

  constructor(
    readonly path: string,
    private readonly fd: number,
    readonly grid: GridDescription,
    readonly range: HeightRange,
    private readonly bytes: number,
    private readonly sha256: string,
    private readonly reader: StreamReader | null,
  ) {
    this.hash = reader ? null : createHash('sha256');
  }

  fill(slot: Uint16Array, start: number, count: number): void {
    const view = new Uint8Array(slot.buffer, slot.byteOffset, 2 * count);
    if (!this.open || start * 2 !== this.next || 2 * count > this.bytes - this.next) {
      this.intact = false;
      view.fill(0);
      return;
    }
    if (this.reader) {
      if (!this.reader.read(view)) {
        this.intact = false;
        view.fill(0);
      }
      this.next += view.length;
      return;
    }
    let off = 0;
    while (off < view.length) {
      const got = readSync(this.fd, view, off, view.length - off, this.next + off);
      if (got === 0) break;
      off += got;
    }
    if (off !== view.length) {
      this.intact = false; // the file shrank while it was read
      view.fill(0, off);
    }
    this.hash!.update(view);
    this.next += view.length;
  }

  async verified(): Promise<boolean> {
    if (!this.open) return false;
    try {
      if (!this.intact || this.next !== this.bytes) return false;
      if (this.reader) {
        // The worker checked the file's end and hashed exactly what it handed over.
        const r = await this.reader.result();
        return r.whole && r.hex === this.sha256;
      }
      // Exactly the committed bytes: all of them read, none after them (the file did not grow), the same digest.
      return readSync(this.fd, new Uint8Array(1), 0, 1, this.bytes) === 0 && this.hash!.digest('hex') === this.sha256;
    } catch {
      return false; // the worker failed: the ordinary reader decides
    } finally {
      this.close();
    }
  }

  close(): void {
    this.reader?.stop();
    this.closeFile();
  }

  private closeFile(): void {
    if (this.open) {
      this.open = false;
      closeSync(this.fd);
    }
  }
}
