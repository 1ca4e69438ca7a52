/**
 * Reading and writing heightfield files, with their sidecars: the readers and writers the container registry
 * (src/io/containers.ts) names. heightbench's own containers are read and written here, synchronously: `.r16` (raw
 * 16-bit), `.png` (PNG16 greyscale), `.r32` (raw float32 LE); the outside ones (.dds, .exr, .tif/.tiff, .npy) by
 * src/io/outside.ts, imported on first use. Each read function is named by what it accepts: readOwnHeightfieldFile
 * (own containers), readAnyHeightfieldFile (every container).
 * Precedence when describing an input [R]:
 *  - a sidecar, when present, is authoritative; a setting that contradicts it is refused, naming both values;
 *  - a PNG's own IHDR size overrides any size setting (004);
 *  - without a sidecar, raw files take their size from the settings, else a square size inferred from the byte count;
 *    the extent defaults to heightbench's domain (2048 m centred on the origin), texel-centre, row 0 at ymin;
 *    the range defaults to −500 … 500 m; byte order to little-endian.
 */
import { closeSync, existsSync } from 'node:fs';
import { Worker } from 'node:worker_threads';
import { basename } from 'node:path';
import { FormatError, isInputError, LimitError, MismatchError, UsageError } from '../errors.js';
import { containerEntryFor, containerForPath, outsideContainerFor, type OwnContainer } from './containers.js';
import { DEFAULT_RANGE, UNORM16_MAX, type GridDescription, type HeightRange } from '../core/grid.js';
import { codeHeightfield, encodeHeightfield, floatHeightfield, heightsOf, type Heightfield } from '../core/heightfield.js';
import { decodeHeightR16, type EncodeCounts } from '../core/encoding.js';
import { commitPreparedPair, pendingPathFor, preparedPathFor } from './atomic.js';
import { unlinkStep } from './fs-ops.js';
import type { BackgroundWriter, WrittenPayload } from './background-writer.js';
import { checkHeightfieldPngHeader, DEFAULT_PNG_PIXEL_LIMIT, decodePng16, encodePng16, pngFile, pngImageDataBytes, readPngHeader } from './png16.js';
import { openRegular, readInputFile, readInputHead } from './read-input.js';
import { startStreamReader } from './stream-worker.js';
import { checkFieldSize, MAX_FIELD_PIXELS } from './limits.js';
import {
  checkConventionFlagsAgainstSidecar,
  resolveInputConventions,
  sidecarSources,
  type ConventionSources,
  type ResolvedConventions,
  type SampleEncoding,
} from './input-conventions.js';
import { decodeR16, encodeR16, inferSquareR16Side, checkR16Size } from './r16.js';
import { codeRange, codeRangeStream, floatSummaryStream, summarizeFloats, type SummaryStream } from '../core/summary.js';
import { fileSource, type ByteSource } from './byte-source.js';
import { createHash } from 'node:crypto';
import { decodeR32, encodeR32, inferSquareR32Side, checkR32Size } from './r32.js';
import {
  makeSidecar,
  makeSidecarForDigest,
  readSidecarFor,
  sidecarPathFor,
  unorm16Encoding,
  sidecarText,
  sha256HexAsync,
  verifyPayload,
  writePayloadWithSidecar,
  type Container,
  type Endian,
  type Sidecar,
} from './sidecar.js';
import type { FieldStats, LoadedHeightfield, ReadSettings, StreamedSummary, SummaryFacts, WriteSettings, WrittenHeightfield } from './heightfield-types.js';
import { namingFile } from './file-named.js';

export type { LoadedHeightfield, ReadSettings, WriteSettings, WrittenHeightfield } from './heightfield-types.js';
export { named, namingFile, sideNamed } from './file-named.js';
export { containerForPath } from './containers.js';
export { writePayloadWithSidecar } from './sidecar.js';

/**
 * Reads a heightfield file of any container, heightbench's own (.r16, .png, .r32: as readOwnHeightfieldFile) or an
 * outside one (.dds, .exr, .tif/.tiff, .npy: src/io/outside.ts, whose TIFF decoder is asynchronous).
 */
export async function readAnyHeightfieldFile(path: string, settings: ReadSettings = {}): Promise<LoadedHeightfield> {
  const outside = outsideContainerFor(path);
  if (!outside) return readOwnHeightfieldFile(path, settings);
  const { readOutsideFile } = await import('./outside.js');
  return readOutsideFile(path, outside, settings);
}

/** Writes a heightfield file of any container heightbench writes (.r16, .png, .r32, .tif/.tiff, .npy) with its sidecar. */
export async function writeAnyHeightfieldFile(path: string, field: Heightfield, s: WriteSettings = {}): Promise<WrittenHeightfield> {
  const outside = outsideContainerFor(path);
  if (!outside) return writeOwnHeightfieldFile(path, field, s);
  const { writeOutsideFile } = await import('./outside.js');
  return writeOutsideFile(path, outside, field, s);
}

/** readAnyHeightfieldFile under its earlier public name. */
export function readHeightfieldFileAsync(path: string, settings: ReadSettings = {}): Promise<LoadedHeightfield> {
  return readAnyHeightfieldFile(path, settings);
}
/** writeAnyHeightfieldFile under its earlier public name. */
export function writeHeightfieldFileAsync(path: string, field: Heightfield, s: WriteSettings = {}): Promise<WrittenHeightfield> {
  return writeAnyHeightfieldFile(path, field, s);
}

/** heightbench's own container of a path; an outside one goes through the asynchronous reader and writer. */
function ownContainer(path: string, what: 'read' | 'write'): OwnContainer {
  const entry = containerEntryFor(path);
  if (entry?.reader === 'own') return entry.container;
  const c = containerForPath(path); // refuses an unknown extension
  throw new UsageError(
    `${path}: a ${c.toUpperCase()} file is ${what === 'read' ? 'read' : 'written'} by ${what === 'read' ? 'readHeightfieldFileAsync' : 'writeHeightfieldFileAsync'} (the synchronous ${what}er takes .r16, .png and .r32)`,
  );
}

/**
 * Reads the payload with its size bounded before reading: a PNG by what its IHDR allows (checked first), a raw file
 * by its sidecar, its --size, or the sample limit.
 */
function readPayload(path: string, container: Container, sidecar: Sidecar | null, s: ReadSettings, alloc?: PayloadAlloc, ahead?: Uint8Array): Uint8Array {
  // A payload a worker already read (readHeightfieldFileAhead): the same count check, then the caller's digest check.
  if (ahead && sidecar && container !== 'png16' && ahead.length === sidecar.payload.bytes) return ahead;
  const pixelLimit = s.pixelLimit ?? (container === 'png16' ? DEFAULT_PNG_PIXEL_LIMIT : MAX_FIELD_PIXELS);
  if (container === 'png16') {
    const header = readPngHeader(readInputHead(path, 33).head);
    checkHeightfieldPngHeader(header, pixelLimit);
    // Filtered image data, plus 1/8 for deflate's worst case and chunk framing, plus 16 MiB of ancillary chunks.
    const data = pngImageDataBytes(header);
    return readInputFile(path, data + Math.ceil(data / 8) + (16 << 20), `a ${header.width}×${header.height} 16-bit grey PNG never needs more`);
  }
  const bps = container === 'r16' ? 2 : 4;
  if (sidecar) return readInputFile(path, sidecar.payload.bytes, "the sidecar's payload.bytes", alloc);
  if (s.size) {
    checkFieldSize(`${path}: --size`, s.size.width, s.size.height, pixelLimit);
    return readInputFile(path, s.size.width * s.size.height * bps, `--size ${s.size.width}x${s.size.height} of ${bps}-byte samples`);
  }
  return readInputFile(path, pixelLimit * bps, `the limit of ${pixelLimit} samples of ${bps} bytes`);
}

/**
 * A sidecar is authoritative: every setting given beside it must agree with it, else the read is refused naming both
 * values (a setting that contradicts the file is never silently dropped). The sidecar must also name this file.
 */
export function checkSettingsAgainstSidecar(path: string, container: Container, sc: Sidecar, s: ReadSettings): void {
  if (container === 'png16' && sc.endian !== 'be') throw new MismatchError(`${path}: sidecar says endian ${sc.endian}, a PNG is big-endian`);
  if (container === 'r32' && sc.endian !== 'le') throw new MismatchError(`${path}: sidecar says endian ${sc.endian}, R32 is little-endian only`);
  if (container === 'r32' && sc.encoding.kind !== 'float32') throw new MismatchError(`${path}: sidecar says ${sc.encoding.kind} samples, an R32 holds float32`);
  if (container !== 'r32' && sc.encoding.kind !== 'unorm16')
    throw new MismatchError(`${path}: sidecar says ${sc.encoding.kind} samples, a 16-bit container holds unorm16`);
  if (s.endian && s.endian !== sc.endian && container !== 'png16') {
    throw new MismatchError(`${path}: --endian ${s.endian} contradicts the sidecar's ${sc.endian}`);
  }
  checkConventionFlagsAgainstSidecar(path, sc, s);
}

/**
 * The payload a sidecar commits to: the file under its real name when its hash matches, else the pending file an
 * interrupted pair write left (src/io/atomic.ts), else a refusal naming the reason.
 */
function readCommittedPayload(
  path: string,
  container: Container,
  sidecar: Sidecar,
  s: ReadSettings,
  notes: string[],
  verify: PayloadCheck,
  alloc?: PayloadAlloc,
  ahead?: Uint8Array,
): { bytes: Uint8Array; fromPath: boolean } {
  let first: unknown;
  try {
    const bytes = readPayload(path, container, sidecar, s, alloc, ahead);
    verify(sidecar, bytes, path);
    return { bytes, fromPath: true };
  } catch (e) {
    if (!(e instanceof FormatError || e instanceof LimitError)) throw e;
    first = e;
  }
  const pending = pendingPathFor(path, sidecar.payload.sha256);
  if (!existsSync(pending)) throw first;
  const bytes = readPayload(pending, container, sidecar, s);
  verifyPayload(sidecar, bytes, pending);
  notes.push(
    `payload read from ${basename(pending)}: a write of this pair was interrupted after its sidecar was committed; the next write of ${basename(path)} moves it in`,
  );
  return { bytes, fromPath: false };
}

/** The grid and encoding of a file without sidecar (src/io/input-conventions.ts), or the sidecar's. */
function describeWithout(path: string, width: number, height: number, samples: 'integer' | 'float', s: ReadSettings): ResolvedConventions {
  return resolveInputConventions(path, width, height, samples, {}, s);
}

/** Reads a heightfield file of heightbench's own containers (.r16/.raw, .png, .r32), synchronously, with its sidecar. */
export function readOwnHeightfieldFile(path: string, settings: ReadSettings = {}): LoadedHeightfield {
  return readHeightfieldFileWith(path, settings, verifyPayload);
}

/** readOwnHeightfieldFile under its earlier public name. */
export function readHeightfieldFile(path: string, settings: ReadSettings = {}): LoadedHeightfield {
  return readOwnHeightfieldFile(path, settings);
}

/** Checks a payload against its sidecar (count and hash), throwing the refusal. */
type PayloadCheck = (sidecar: Sidecar, payload: Uint8Array, file: string) => void;

/** Provides the buffer a sidecar-described payload is read into. */
type PayloadAlloc = (bytes: number) => Buffer;

/** A Buffer over fresh shared memory, which a worker thread can read without a copy. */
function sharedBuffer(bytes: number): Buffer {
  return Buffer.from(new SharedArrayBuffer(bytes), 0, bytes);
}

/**
 * Reads several heightfield files with the same checks and results as readOwnHeightfieldFile, faster: each payload is
 * read once into shared memory and its SHA-256 (the sidecar check) is computed by a worker thread from that same
 * memory (no copy) while the main thread reads the next file and the caller may already start on the data; the
 * returned promise settles only after every digest matched. A file whose fast read throws or whose digest differs (or
 * cannot be computed) is read again by readOwnHeightfieldFile, in the order given, so refusals (and the recovery of an
 * interrupted pair write) are exactly the synchronous reader's.
 */
export async function readHeightfieldFiles(paths: readonly string[], settings: ReadSettings = {}): Promise<LoadedHeightfield[]> {
  return startReadingHeightfieldFiles(paths, settings).verified;
}

/** The files as read, before their digests are known, and the verified result of readHeightfieldFiles. */
export interface EarlyHeightfieldRead {
  /**
   * Each file as read (null where the fast read failed), NOT yet verified — its verifiedSha256 included: work on it
   * may start, but nothing derived from it may be shown or written unless `verified` resolves to these same objects.
   */
  early: (LoadedHeightfield | null)[];
  /** What readHeightfieldFiles returns: an early object where its digest matched, else the synchronous reader's result. */
  verified: Promise<LoadedHeightfield[]>;
}

/**
 * readHeightfieldFiles in two steps: the payloads are read (synchronously) and their digests started; the caller may
 * compute on `early` while the worker hashes, then must await `verified` before using any result.
 */
export function startReadingHeightfieldFiles(paths: readonly string[], settings: ReadSettings = {}): EarlyHeightfieldRead {
  const hasher = startDigestWorker();
  let fast: ({ loaded: LoadedHeightfield; digests: Promise<boolean>[] } | null)[];
  try {
    fast = paths.map((path) => {
      const digests: Promise<boolean>[] = [];
      try {
        const loaded = readHeightfieldFileWith(
          path,
          settings,
          (sidecar, payload, file) => {
            if (payload.length !== sidecar.payload.bytes) verifyPayload(sidecar, payload, file); // throws the count refusal
            // A digest that cannot be computed counts as a mismatch: the synchronous reader then decides.
            digests.push(
              hasher.digest(payload).then(
                (h) => h === sidecar.payload.sha256,
                () => false,
              ),
            );
          },
          sharedBuffer,
        );
        return { loaded, digests };
      } catch {
        return null;
      }
    });
  } catch (e) {
    hasher.close();
    throw e;
  }
  const verify = async (): Promise<LoadedHeightfield[]> => {
    try {
      const out: LoadedHeightfield[] = [];
      for (let k = 0; k < paths.length; k++) {
        const f = fast[k];
        const ok = f !== null && (await Promise.all(f.digests)).every(Boolean);
        out.push(ok ? f.loaded : readOwnHeightfieldFile(paths[k], settings));
      }
      return out;
    } finally {
      hasher.close();
    }
  };
  return { early: fast.map((f) => (f ? f.loaded : null)), verified: verify() };
}

/** A file whose payload a worker thread is reading (readHeightfieldFileAhead). */
export interface HeightfieldReadAhead {
  /** readOwnHeightfieldFile's result for the file, once the worker has read it. */
  finish(): Promise<LoadedHeightfield>;
}

/**
 * Starts reading a sidecar-described R16 or R32 file on a worker thread (stream-worker.ts, `whole`): the payload is
 * read into shared memory and hashed there while this thread reads something else (the other side of a comparison).
 * `finish` gives exactly readOwnHeightfieldFile's result: the payload as read where its digest is the sidecar's, else
 * the synchronous reader's own outcome (its refusal, or the recovery of an interrupted pair write). Null where no
 * worker reads it (no sidecar, another container, a file whose size is not the sidecar's, a grid over the limit,
 * threads not wanted): the caller then reads it the ordinary way.
 */
export function readHeightfieldFileAhead(path: string, settings: ReadSettings = {}): HeightfieldReadAhead | null {
  let fd = -1;
  try {
    const entry = containerEntryFor(path);
    if (entry?.reader !== 'own' || (entry.container !== 'r16' && entry.container !== 'r32')) return null;
    const sidecar = readSidecarFor(path);
    if (!sidecar || sidecar.container !== entry.container) return null;
    const { columns, rows } = sidecar.grid;
    checkFieldSize(`${path}: sidecar grid`, columns, rows); // bounded before the shared memory is allocated
    const bytes = columns * rows * (entry.container === 'r16' ? 2 : 4);
    if (sidecar.payload.bytes !== bytes) return null;
    const opened = openRegular(path);
    fd = opened.fd;
    const reader = opened.size === bytes ? startStreamReader(fd, bytes, { whole: true }) : null;
    if (!reader) {
      closeSync(fd);
      return null;
    }
    const owned = fd;
    return {
      async finish() {
        let payload: Uint8Array | null = null;
        let hex = '';
        try {
          const r = await reader.result();
          payload = r.whole ? reader.payload() : null;
          hex = r.hex;
        } catch {
          payload = null; // the worker failed: the synchronous reader decides
        } finally {
          closeSync(owned);
        }
        if (payload) {
          const read = payload;
          const sameDigest: PayloadCheck = (sc, _bytes, file) => {
            if (sc.payload.sha256 !== hex) throw new FormatError(`${file}: the payload read ahead is not the sidecar's`);
          };
          try {
            return readHeightfieldFileWith(path, settings, sameDigest, undefined, read);
          } catch {
            // Any refusal is the synchronous reader's to give, in its own words.
          }
        }
        return readOwnHeightfieldFile(path, settings);
      },
    };
  } catch (e) {
    if (fd >= 0) closeSync(fd);
    if (isInputError(e)) return null;
    throw e;
  }
}

interface DigestWorker {
  /** Hex SHA-256 of `bytes`; rejects when the worker fails. */
  digest(bytes: Uint8Array): Promise<string>;
  close(): void;
}

/** The worker's whole program: hash the shared bytes it is sent, answer with the hex digest. */
const DIGEST_WORKER_SOURCE = `
const { parentPort } = require('node:worker_threads');
const { createHash } = require('node:crypto');
parentPort.on('message', (m) => {
  const hex = createHash('sha256').update(new Uint8Array(m.buffer, m.offset, m.length)).digest('hex');
  parentPort.postMessage({ id: m.id, hex });
});
`;

/**
 * A worker thread computing SHA-256 of payloads held in shared memory. It starts before the first file is read, so
 * its start-up overlaps the reads. Bytes not in shared memory are hashed through WebCrypto instead (a copy).
 */
function startDigestWorker(): DigestWorker {
  const pending = new Map<number, { resolve: (hex: string) => void; reject: (e: unknown) => void }>();
  let next = 0;
  let failure: unknown = null;
  const fail = (e: unknown): void => {
    failure = e ?? new Error('digest worker stopped');
    for (const p of pending.values()) p.reject(failure);
    pending.clear();
  };
  let worker: Worker | null = null;
  try {
    worker = new Worker(DIGEST_WORKER_SOURCE, { eval: true });
    worker.on('message', (m: { id: number; hex: string }) => {
      const p = pending.get(m.id);
      pending.delete(m.id);
      p?.resolve(m.hex);
    });
    worker.on('error', fail);
    worker.on('exit', () => fail(null));
  } catch (e) {
    failure = e;
  }
  return {
    digest(bytes: Uint8Array): Promise<string> {
      if (!(bytes.buffer instanceof SharedArrayBuffer) || worker === null || failure !== null) return sha256HexAsync(bytes);
      const id = next++;
      const w = worker;
      return new Promise<string>((resolve, reject) => {
        pending.set(id, { resolve, reject });
        w.postMessage({ id, buffer: bytes.buffer, offset: bytes.byteOffset, length: bytes.length });
      });
    },
    close(): void {
      if (worker) void worker.terminate();
    },
  };
}

function readHeightfieldFileWith(path: string, settings: ReadSettings, verify: PayloadCheck, alloc?: PayloadAlloc, ahead?: Uint8Array): LoadedHeightfield {
  return namingFile(path, () => readHeightfieldFileInner(path, settings, verify, alloc, ahead));
}

/** Whether a read asks for a channel, mip level or array slice (outside containers have them; ours hold one of each). */
function selects(s: ReadSettings): boolean {
  return s.channel !== undefined || s.level !== undefined || s.slice !== undefined;
}

function readHeightfieldFileInner(path: string, settings: ReadSettings, verify: PayloadCheck, alloc?: PayloadAlloc, ahead?: Uint8Array): LoadedHeightfield {
  const container = ownContainer(path, 'read');
  // A selection the file cannot act on is refused, never ignored.
  if (selects(settings))
    throw new UsageError(
      `${path}: ${container === 'png16' ? 'a PNG' : `an ${container.toUpperCase()}`} file holds one field (one channel, no mip levels or array slices); --channel, --level and --slice select within DDS, EXR and TIFF files`,
    );
  const sidecar = readSidecarFor(path);
  const notes: string[] = [];
  let bytes: Uint8Array;
  let verifiedSha256: string | undefined;
  if (sidecar) {
    if (sidecar.container !== container) {
      throw new MismatchError(`${path}: sidecar describes a ${sidecar.container} payload, the extension says ${container}`);
    }
    checkSettingsAgainstSidecar(path, container, sidecar, settings);
    const committed = readCommittedPayload(path, container, sidecar, settings, notes, verify, alloc, ahead);
    bytes = committed.bytes;
    if (committed.fromPath) verifiedSha256 = sidecar.payload.sha256;
  } else bytes = readPayload(path, container, null, settings);
  const verified = verifiedSha256 === undefined ? {} : { verifiedSha256 };

  if (container === 'png16') {
    const header = readPngHeader(bytes);
    if (settings.size && (settings.size.width !== header.width || settings.size.height !== header.height)) {
      notes.push(`size setting ${settings.size.width}x${settings.size.height} ignored: the PNG is ${header.width}x${header.height}`);
    }
    const png = decodePng16(bytes, { pixelLimit: settings.pixelLimit });
    const described = sidecar ? sidecarConventions(sidecar, path, settings) : describeWithout(path, png.width, png.height, 'integer', settings);
    const grid = described.grid;
    if (grid.columns !== png.width || grid.rows !== png.height) {
      throw new MismatchError(`${path}: sidecar grid ${grid.columns}×${grid.rows} vs PNG ${png.width}×${png.height}`);
    }
    return {
      path,
      container,
      endian: 'be',
      field: integerField(grid, png.codes, described.encoding),
      sidecar,
      fileBytes: bytes.length,
      interlaced: png.interlaced,
      notes,
      conventions: described.sources,
      ...verified,
    };
  }

  const bytesPerSample = container === 'r16' ? 2 : 4;
  let width: number;
  let height: number;
  if (sidecar) {
    width = sidecar.grid.columns;
    height = sidecar.grid.rows;
  } else if (settings.size) {
    ({ width, height } = settings.size);
  } else {
    const side = container === 'r16' ? inferSquareR16Side(bytes.length) : inferSquareR32Side(bytes.length);
    if (side === null) {
      throw new FormatError(
        `${path}: ${bytes.length} bytes is not a square grid of ${bytesPerSample}-byte samples (${bytes.length} / ${bytesPerSample} = ${bytes.length / bytesPerSample} samples); give --size WxH`,
      );
    }
    width = side;
    height = side;
  }
  if (container === 'r16') checkR16Size(bytes.length, width, height, path);
  else checkR32Size(bytes.length, width, height, path);
  const endian: Endian = sidecar ? sidecar.endian : (settings.endian ?? 'le');
  const samples = container === 'r16' ? 'integer' : 'float';
  const described = sidecar ? sidecarConventions(sidecar, path, settings) : describeWithout(path, width, height, samples, settings);
  const { grid, sources: conventions } = described;
  if (container === 'r16') {
    const field = integerField(grid, decodeR16(bytes, width, height, endian), described.encoding);
    return { path, container, endian, field, sidecar, fileBytes: bytes.length, interlaced: false, notes, conventions, ...verified };
  }
  if (endian !== 'le') throw new FormatError(`${path}: R32 is little-endian only, got ${endian}`);
  return {
    path,
    container,
    endian,
    field: floatHeightfield(grid, decodeR32(bytes, width, height)),
    sidecar,
    fileBytes: bytes.length,
    interlaced: false,
    notes,
    conventions,
    ...verified,
  };
}

/** 16-bit integer samples as a field: UNORM16 codes of a range, or heights in metres (`--encoding metres`). */
function integerField(grid: GridDescription, samples: Uint16Array, encoding: SampleEncoding): Heightfield {
  if (encoding.kind === 'unorm16') return codeHeightfield(grid, samples, encoding.range);
  return floatHeightfield(grid, Float32Array.from(samples));
}

/** A sidecar's conventions: its grid, and its encoding (a 16-bit container must hold UNORM16 codes). */
function sidecarConventions(sidecar: Sidecar, path: string, s: ReadSettings): ResolvedConventions {
  const encoding: SampleEncoding = sidecar.encoding.kind === 'unorm16' ? { kind: 'unorm16', range: sidecar.encoding.range } : { kind: 'metres' };
  if (encoding.kind !== 'unorm16' && sidecar.container !== 'r32') {
    throw new MismatchError(`${path}: sidecar says ${sidecar.encoding.kind} samples, a 16-bit container holds unorm16`);
  }
  return { grid: sidecar.grid, encoding, sources: sidecarSources(sidecarPathFor(path), sidecar, s) };
}

/**
 * Writes `field` to `path` in the container its extension names, atomically, followed by its sidecar.
 * Floats written to a 16-bit container are encoded (clamped and NaN pixels counted); codes written to R32 are decoded.
 */
export function writeOwnHeightfieldFile(path: string, field: Heightfield, s: WriteSettings = {}): WrittenHeightfield {
  const container = ownContainer(path, 'write');
  let payload: Uint8Array;
  let encodeCounts: EncodeCounts | null = null;
  let sidecarFields;
  if (container === 'r32') {
    if (s.endian && s.endian !== 'le') throw new FormatError(`${path}: R32 is little-endian only, got ${s.endian}`);
    payload = encodeR32(heightsOf(field));
    sidecarFields = r32SidecarFields(field.grid);
  } else {
    let codes = field;
    if (field.kind === 'float') {
      const enc = encodeHeightfield(field, s.range ?? DEFAULT_RANGE);
      codes = enc.field;
      encodeCounts = enc.counts;
    } else if (s.range && (s.range.min !== field.range.min || s.range.max !== field.range.max)) {
      // A different target range re-encodes through metres.
      const enc = encodeHeightfield(floatHeightfield(field.grid, heightsOf(field)), s.range);
      codes = enc.field;
      encodeCounts = enc.counts;
    }
    if (codes.kind !== 'codes') throw new Error('unreachable: codes expected');
    const endian: Endian = container === 'png16' ? 'be' : (s.endian ?? 'le');
    payload =
      container === 'png16'
        ? encodePng16(codes.code_px, codes.grid.columns, codes.grid.rows, { interlace: s.interlace, rows: s.pngRows })
        : encodeR16(codes.code_px, endian);
    sidecarFields = { container, endian, grid: codes.grid, encoding: unorm16Encoding(codes.range) };
  }
  const sidecar = makeSidecar(path, payload, { ...sidecarFields, stage: s.stage, request: s.request, notes: s.notes, adapter: s.adapter });
  writePayloadWithSidecar(path, payload, sidecar);
  return { path, sidecar, encodeCounts };
}

/**
 * A code field as a PNG16 file from its Up-filtered scanlines, already written (the run's executor writes them while
 * both threads are free: pngScanlinesInArena): the same bytes and sidecar as writeOwnHeightfieldFile(path, codes,
 * settings), without filtering again. `scanlines` must be upFilteredRows(codes) — the caller's guarantee, not
 * checked here (the run's golden PNG digests hold it).
 */
export function writeScanlinesPng(path: string, codes: Heightfield, scanlines: Uint8Array, s: WriteSettings = {}): WrittenHeightfield {
  if (ownContainer(path, 'write') !== 'png16') throw new FormatError(`${path}: scanlines are written as a PNG16 (.png) file`);
  if (codes.kind !== 'codes') throw new FormatError(`${path}: PNG scanlines are those of a code field, got ${codes.kind}`);
  const { columns, rows } = codes.grid;
  if (scanlines.length !== (2 * columns + 1) * rows) {
    throw new RangeError(`writeScanlinesPng: ${scanlines.length} bytes of scanlines, a ${columns}×${rows} field has ${(2 * columns + 1) * rows}`);
  }
  if (s.interlace || s.endian || (s.range && (s.range.min !== codes.range.min || s.range.max !== codes.range.max))) {
    throw new UsageError(`${path}: scanlines are written as they are (no interlace, endianness or other range)`);
  }
  const payload = pngFile(columns, rows, 16, 0, 0, scanlines);
  const sidecar = makeSidecar(path, payload, {
    container: 'png16',
    endian: 'be',
    grid: codes.grid,
    encoding: unorm16Encoding(codes.range),
    stage: s.stage,
    request: s.request,
    notes: s.notes,
    adapter: s.adapter,
  });
  writePayloadWithSidecar(path, payload, sidecar);
  return { path, sidecar, encodeCounts: null };
}

/** writeOwnHeightfieldFile under its earlier public name. */
export function writeHeightfieldFile(path: string, field: Heightfield, s: WriteSettings = {}): WrittenHeightfield {
  return writeOwnHeightfieldFile(path, field, s);
}

function r32SidecarFields(grid: GridDescription) {
  return { container: 'r32' as const, endian: 'le' as const, grid, encoding: { kind: 'float32' as const, unit: 'm' as const } };
}

/** A heightfield file whose payload a background writer is writing (prepareR32Write, prepareR16Write). */
export interface PreparedHeightfield {
  path: string;
  preparedPath: string;
  written: Promise<WrittenPayload>;
  /** The sidecar's container fields (R32: float32 metres; R16: its endianness and the codes' range). */
  fields: ReturnType<typeof r32SidecarFields> | ReturnType<typeof r16SidecarFields>;
}

function r16SidecarFields(codes: Extract<Heightfield, { kind: 'codes' }>) {
  return { container: 'r16' as const, endian: 'le' as const, grid: codes.grid, encoding: unorm16Encoding(codes.range) };
}

/** Hands `bytes` (copied into shared memory unless they are there already) to the writer under a prepared name. */
function preparePayload(writer: BackgroundWriter, path: string, bytes: Uint8Array): { preparedPath: string; written: Promise<WrittenPayload> } {
  let shared = bytes;
  if (!(bytes.buffer instanceof SharedArrayBuffer)) {
    shared = new Uint8Array(new SharedArrayBuffer(bytes.length));
    shared.set(bytes);
  }
  const preparedPath = preparedPathFor(path);
  return { preparedPath, written: writer.write(preparedPath, shared) };
}

/**
 * Starts writing the float field `heights` on `grid` as the R32 payload of `path`, on the background writer: the
 * payload (copied into shared memory unless it is there already; it must not change until written) is written
 * durably and hashed off this thread under a prepared name.
 * commitPrepared then writes the sidecar and commits the pair — the same files, bytes and sidecar as
 * writeOwnHeightfieldFile(path, floatHeightfield(grid, heights), settings).
 */
export function prepareR32Write(writer: BackgroundWriter, path: string, grid: GridDescription, heights: Float32Array): PreparedHeightfield {
  if (containerForPath(path) !== 'r32') throw new FormatError(`${path}: a prepared write is an R32 (.r32) payload`);
  return { path, ...preparePayload(writer, path, encodeR32(heights)), fields: r32SidecarFields(grid) };
}

/**
 * The same for a code field as a little-endian R16 payload: commitPrepared then gives the files, bytes and
 * sidecar of writeOwnHeightfieldFile(path, codes, settings) (settings without a range or endianness).
 */
export function prepareR16Write(writer: BackgroundWriter, path: string, codes: Heightfield): PreparedHeightfield {
  if (containerForPath(path) !== 'r16') throw new FormatError(`${path}: a prepared code write is an R16 (.r16) payload`);
  if (codes.kind !== 'codes') throw new FormatError(`${path}: a prepared R16 write takes a code field, got ${codes.kind}`);
  return { path, ...preparePayload(writer, path, encodeR16(codes.code_px, 'le')), fields: r16SidecarFields(codes) };
}

/** Commits a prepared write (see prepareR32Write, prepareR16Write) once its payload is on disk. */
export async function commitPrepared(p: PreparedHeightfield, s: WriteSettings = {}): Promise<WrittenHeightfield> {
  let payload: WrittenPayload;
  try {
    payload = await p.written;
  } catch (e) {
    try {
      unlinkStep(p.preparedPath); // a write that failed part-way leaves nothing
    } catch {
      /* the error being thrown says what went wrong */
    }
    throw e;
  }
  const sidecar = makeSidecarForDigest(p.path, payload, {
    ...p.fields,
    stage: s.stage,
    request: s.request,
    notes: s.notes,
    adapter: s.adapter,
  });
  commitPreparedPair(p.path, p.preparedPath, payload.sha256, sidecarPathFor(p.path), sidecarText(sidecar), () => {
    try {
      return readSidecarFor(p.path)?.payload.sha256 ?? null;
    } catch {
      return null;
    }
  });
  return { path: p.path, sidecar, encodeCounts: null };
}

export interface HeightfieldSummary {
  format: Container;
  width: number;
  height: number;
  bitDepth: 16 | 32;
  endian: Endian;
  interlaced: boolean;
  minCode: number | null;
  maxCode: number | null;
  minMetres: number | null;
  maxMetres: number | null;
  nan: number;
  posInf: number;
  negInf: number;
  grid: GridDescription;
  range: HeightRange | null;
  sidecar: Sidecar | null;
  sidecarPath: string | null;
  notes: string[];
}

/** What `heightbench info` prints. Min/max reductions skip NaN and ±Inf, which are counted instead. */
export function summarizeHeightfield(h: LoadedHeightfield): HeightfieldSummary {
  const f = h.field;
  const stats: FieldStats =
    f.kind === 'codes' ? { kind: 'codes', range: f.range, codes: codeRange(f.code_px) } : { kind: 'float', floats: summarizeFloats(f.height_px) };
  return summaryOf({ ...h, grid: f.grid }, stats);
}

/** The summary of a file from its facts and its samples' reductions (summarizeHeightfield, or a streamed read). */
export function summaryOf(h: SummaryFacts, stats: FieldStats): HeightfieldSummary {
  let minCode: number | null = null;
  let maxCode: number | null = null;
  let minMetres: number | null = null;
  let maxMetres: number | null = null;
  let nf = { nan: 0, posInf: 0, negInf: 0 };
  if (stats.kind === 'codes') {
    const r = stats.codes;
    const lo = r ? r.min : UNORM16_MAX;
    const hi = r ? r.max : 0;
    minCode = lo;
    maxCode = hi;
    minMetres = decodeHeightR16(lo, stats.range);
    maxMetres = decodeHeightR16(hi, stats.range);
  } else {
    const sum = stats.floats;
    nf = { nan: sum.nan, posInf: sum.posInf, negInf: sum.negInf };
    minMetres = sum.min;
    maxMetres = sum.max;
  }
  return {
    format: h.container,
    width: h.grid.columns,
    height: h.grid.rows,
    bitDepth: stats.kind === 'codes' ? 16 : 32,
    endian: h.endian,
    interlaced: h.interlaced,
    minCode,
    maxCode,
    minMetres,
    maxMetres,
    ...nf,
    grid: h.grid,
    range: stats.kind === 'codes' ? stats.range : null,
    sidecar: h.sidecar,
    sidecarPath: h.sidecar ? sidecarPathFor(h.path) : null,
    notes: h.notes,
  };
}

/**
 * `info`'s summary of a file, streamed through the summary kernel in windows and never held whole where it can be:
 * without a sidecar, a raw run of samples (a .npy, a one-channel DDS), a float32 TIFF's decoded blocks or an OpenEXR
 * file's decoded rows (src/io/outside.ts streamOutsideSummary); an .r16 or .r32 with its sidecar (streamOwnSummary).
 * Every other file is read (readAnyHeightfieldFile) and summarized. Both give the same summary, conventions and
 * refusals.
 */
export async function summarizeHeightfieldFile(
  path: string,
  settings: ReadSettings = {},
): Promise<{ summary: HeightfieldSummary; conventions: ConventionSources }> {
  const own = streamOwnSummary(path, settings);
  if (own) return { summary: summaryOf(own.facts, own.stats), conventions: own.conventions };
  const outside = outsideContainerFor(path);
  if (outside) {
    const { streamOutsideSummary } = await import('./outside.js');
    const streamed = await streamOutsideSummary(path, outside, settings);
    if (streamed) return { summary: summaryOf(streamed.facts, streamed.stats), conventions: streamed.conventions };
  }
  const loaded = await readAnyHeightfieldFile(path, settings);
  return { summary: summarizeHeightfield(loaded), conventions: loaded.conventions };
}

/**
 * The summary of an .r16 or .r32 with its sidecar, streamed: the payload read in windows into the summary kernel's
 * memory, each window hashed before it is summarized; the digest must be the sidecar's. Null — the caller reads the
 * file whole, which then gives the refusal or the note exactly as it always does — for anything but that plain case:
 * no sidecar, a sidecar or setting that the whole read would refuse or note, a size or digest that differs, a file
 * that changes while it is read, samples read as metres, or a zero extreme (see floatSummaryStream).
 */
function streamOwnSummary(path: string, settings: ReadSettings): StreamedSummary | null {
  const entry = containerEntryFor(path);
  if (entry?.reader !== 'own' || entry.container === 'png16' || selects(settings)) return null;
  const container = entry.container;
  let src: ByteSource | null = null;
  try {
    const sidecar = readSidecarFor(path);
    if (!sidecar || sidecar.container !== container) return null;
    checkSettingsAgainstSidecar(path, container, sidecar, settings);
    const { columns: width, rows: height } = sidecar.grid;
    const bytes = sidecar.payload.bytes;
    if (container === 'r16') checkR16Size(bytes, width, height, path);
    else checkR32Size(bytes, width, height, path);
    const described = sidecarConventions(sidecar, path, settings);
    const endian = sidecar.endian;
    const codes = container === 'r16';
    if (codes ? described.encoding.kind !== 'unorm16' : endian !== 'le') return null;
    src = fileSource(path);
    if (src.size !== bytes) return null;
    const hash = createHash('sha256');
    const size = codes ? 2 : 4;
    const codeStream = codes ? codeRangeStream() : null;
    const floatStream = codes ? null : floatSummaryStream();
    const stream: SummaryStream<unknown> = codeStream ?? floatStream!;
    const step = stream.window.length - (stream.window.length % size);
    for (let at = 0; at < bytes; at += step) {
      const n = Math.min(step, bytes - at);
      hash.update(src.readInto(at, stream.window.subarray(0, n), 'the payload'));
      if (endian === 'be') stream.swap(n, size);
      stream.add(n / size);
    }
    if (hash.digest('hex') !== sidecar.payload.sha256) return null;
    const facts: SummaryFacts = { path, container, endian, interlaced: false, sidecar, notes: [], grid: described.grid };
    if (codeStream) {
      const range = described.encoding.kind === 'unorm16' ? described.encoding.range : DEFAULT_RANGE;
      return { facts, stats: { kind: 'codes', range, codes: codeStream.finish() }, conventions: described.sources };
    }
    const floats = floatStream!.finish();
    return floats ? { facts, stats: { kind: 'float', floats }, conventions: described.sources } : null;
  } catch {
    return null;
  } finally {
    src?.close();
  }
}
