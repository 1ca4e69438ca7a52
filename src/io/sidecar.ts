/**
 * The JSON sidecar written next to every heightfield file, as `<file>.json`.
 *
 * It carries the conventions the pixels need to mean anything: extent, sample counts, sample convention, row
 * direction, height encoding, stage name, request id, producer version and the SHA-256 of the payload bytes.
 * Versioned: the version is checked before anything else and a mismatch is refused with both values.
 */
import { createHash, webcrypto } from 'node:crypto';
import { basename } from 'node:path';
import { FormatError } from '../errors.js';
import {
  MAX_WORLD_COORDINATE,
  ROW_DIRECTIONS,
  SAMPLE_CONVENTIONS,
  metresPerCode,
  validateRange,
  type GridDescription,
  type HeightRange,
} from '../core/grid.js';
import { PRODUCER_NAME, PRODUCER_VERSION } from '../version.js';
import { writeFileAtomic, writeFilePairAtomic } from './atomic.js';
import { inputPresent, readInputText } from './read-input.js';
import { checkLiteral, checkNullableString, checkNumber, checkObject, checkOneOf, checkString, parseJson } from './json-check.js';

export const SIDECAR_FORMAT = 'heightbench.sidecar';
export const SIDECAR_VERSION = 1;

/** heightbench's own containers (r16, png16, r32) and the outside ones it reads (dds, exr, tiff, npy) and writes (tiff, npy). */
export type Container = 'r16' | 'png16' | 'r32' | 'dds' | 'exr' | 'tiff' | 'npy';
export type Endian = 'le' | 'be';
export const CONTAINERS: readonly Container[] = ['r16', 'png16', 'r32', 'dds', 'exr', 'tiff', 'npy'];

export type HeightEncoding =
  { readonly kind: 'unorm16'; readonly range: HeightRange; readonly metresPerCode: number } | { readonly kind: 'float32'; readonly unit: 'm' };

export interface Sidecar {
  readonly format: typeof SIDECAR_FORMAT;
  readonly version: typeof SIDECAR_VERSION;
  /** Payload file name, relative to the sidecar's folder. */
  readonly file: string;
  readonly container: Container;
  /** Byte order of the payload's samples (PNG is always big-endian by its own rules). */
  readonly endian: Endian;
  readonly grid: GridDescription;
  readonly encoding: HeightEncoding;
  /** Pipeline stage that produced the field, or null for imported data. */
  readonly stage: string | null;
  /** Request id, or null. */
  readonly request: string | null;
  readonly producer: { readonly name: string; readonly version: string; readonly adapter?: GpuAdapterInfo };
  readonly payload: { readonly bytes: number; readonly sha256: string };
  /** Free-form, documented per producer (e.g. the bell generator's index mapping). */
  readonly notes?: Readonly<Record<string, unknown>>;
}

/** The GPU adapter a field came from (GPU output only): what WebGPU's adapter info reports, and the host that drove it. */
export interface GpuAdapterInfo {
  readonly vendor: string;
  readonly architecture: string;
  readonly device: string;
  readonly description: string;
  readonly host: string;
}

export function sidecarPathFor(file: string): string {
  return `${file}.json`;
}

export function sha256Hex(bytes: Uint8Array): string {
  return createHash('sha256').update(bytes).digest('hex');
}

/** The same digest computed on libuv's thread pool (WebCrypto), so several can run at once beside the main thread. */
export async function sha256HexAsync(bytes: Uint8Array): Promise<string> {
  return Buffer.from(await webcrypto.subtle.digest('SHA-256', bytes)).toString('hex');
}

export interface SidecarFields {
  container: Container;
  endian: Endian;
  grid: GridDescription;
  encoding: HeightEncoding;
  stage?: string | null;
  request?: string | null;
  notes?: Record<string, unknown>;
  /** GPU output: the adapter that produced it (goes into producer.adapter). */
  adapter?: GpuAdapterInfo;
}

export function makeSidecar(file: string, payload: Uint8Array, f: SidecarFields): Sidecar {
  return makeSidecarForDigest(file, { bytes: payload.length, sha256: sha256Hex(payload) }, f);
}

/** makeSidecar for a payload known by its byte count and SHA-256 (hashed elsewhere, e.g. by a background writer). */
export function makeSidecarForDigest(file: string, payload: { bytes: number; sha256: string }, f: SidecarFields): Sidecar {
  return {
    format: SIDECAR_FORMAT,
    version: SIDECAR_VERSION,
    file: basename(file),
    container: f.container,
    endian: f.endian,
    grid: { ...f.grid },
    encoding: f.encoding,
    stage: f.stage ?? null,
    request: f.request ?? null,
    producer: f.adapter
      ? { name: PRODUCER_NAME, version: PRODUCER_VERSION, adapter: adapterInfo(f.adapter) }
      : { name: PRODUCER_NAME, version: PRODUCER_VERSION },
    payload: { bytes: payload.bytes, sha256: payload.sha256 },
    ...(f.notes ? { notes: f.notes } : {}),
  };
}

function adapterInfo(a: GpuAdapterInfo): GpuAdapterInfo {
  return { vendor: a.vendor, architecture: a.architecture, device: a.device, description: a.description, host: a.host };
}

export function unorm16Encoding(range: HeightRange): HeightEncoding {
  validateRange(range);
  return { kind: 'unorm16', range: { min: range.min, max: range.max }, metresPerCode: metresPerCode(range) };
}

/** Validates a parsed sidecar object; the version is checked first. */
export function parseSidecar(v: unknown, where = 'sidecar'): Sidecar {
  const o = checkObject(where, v);
  checkLiteral(`${where}.format`, o.format, SIDECAR_FORMAT);
  if (o.version !== SIDECAR_VERSION) {
    throw new FormatError(`${where}.version: this heightbench reads sidecar version ${SIDECAR_VERSION}, the file has version ${JSON.stringify(o.version)}`);
  }
  const g = checkObject(`${where}.grid`, o.grid);
  const convention = checkOneOf(`${where}.grid.convention`, g.convention, SAMPLE_CONVENTIONS);
  const minCount = convention === 'vertex' ? 2 : 1;
  const grid: GridDescription = {
    xmin: checkNumber(`${where}.grid.xmin`, g.xmin, { min: -MAX_WORLD_COORDINATE, max: MAX_WORLD_COORDINATE }),
    ymin: checkNumber(`${where}.grid.ymin`, g.ymin, { min: -MAX_WORLD_COORDINATE, max: MAX_WORLD_COORDINATE }),
    sizeX: checkNumber(`${where}.grid.sizeX`, g.sizeX, { min: Number.MIN_VALUE, max: MAX_WORLD_COORDINATE }),
    sizeY: checkNumber(`${where}.grid.sizeY`, g.sizeY, { min: Number.MIN_VALUE, max: MAX_WORLD_COORDINATE }),
    columns: checkNumber(`${where}.grid.columns`, g.columns, { integer: true, min: minCount, max: 1 << 20 }),
    rows: checkNumber(`${where}.grid.rows`, g.rows, { integer: true, min: minCount, max: 1 << 20 }),
    convention,
    rowDirection: checkOneOf(`${where}.grid.rowDirection`, g.rowDirection, ROW_DIRECTIONS),
  };
  const e = checkObject(`${where}.encoding`, o.encoding);
  const kind = checkOneOf(`${where}.encoding.kind`, e.kind, ['unorm16', 'float32'] as const);
  let encoding: HeightEncoding;
  if (kind === 'unorm16') {
    const r = checkObject(`${where}.encoding.range`, e.range);
    const range = { min: checkNumber(`${where}.encoding.range.min`, r.min), max: checkNumber(`${where}.encoding.range.max`, r.max) };
    if (!(range.max > range.min)) {
      throw new FormatError(`${where}.encoding.range: expected max > min, found min ${range.min}, max ${range.max}`);
    }
    const span = range.max - range.min;
    if (!Number.isFinite(span)) throw new FormatError(`${where}.encoding.range: span max − min overflows (min ${range.min}, max ${range.max})`);
    const derived = metresPerCode(range);
    // The stored step must be the one its range gives (a reader using either must get the same heights).
    const mpc = checkNumber(`${where}.encoding.metresPerCode`, e.metresPerCode, { min: Number.MIN_VALUE });
    if (Math.abs(mpc - derived) > 1e-12 * derived) {
      throw new FormatError(`${where}.encoding.metresPerCode: ${mpc} contradicts its range ${range.min},${range.max}, which gives ${derived}`);
    }
    encoding = unorm16Encoding(range);
  } else {
    encoding = { kind: 'float32', unit: checkLiteral(`${where}.encoding.unit`, e.unit, 'm') };
  }
  const p = checkObject(`${where}.producer`, o.producer);
  const pl = checkObject(`${where}.payload`, o.payload);
  const sha = checkString(`${where}.payload.sha256`, pl.sha256);
  if (!/^[0-9a-f]{64}$/.test(sha)) throw new FormatError(`${where}.payload.sha256: expected 64 hex digits, found ${JSON.stringify(sha)}`);
  const notes = o.notes === undefined ? undefined : checkObject(`${where}.notes`, o.notes);
  return {
    format: SIDECAR_FORMAT,
    version: SIDECAR_VERSION,
    file: checkString(`${where}.file`, o.file),
    container: checkOneOf(`${where}.container`, o.container, CONTAINERS),
    endian: checkOneOf(`${where}.endian`, o.endian, ['le', 'be'] as const),
    grid,
    encoding,
    stage: checkNullableString(`${where}.stage`, o.stage),
    request: checkNullableString(`${where}.request`, o.request),
    producer: {
      name: checkString(`${where}.producer.name`, p.name),
      version: checkString(`${where}.producer.version`, p.version),
      ...(p.adapter === undefined ? {} : { adapter: parseAdapter(`${where}.producer.adapter`, p.adapter) }),
    },
    payload: { bytes: checkNumber(`${where}.payload.bytes`, pl.bytes, { integer: true, min: 0 }), sha256: sha },
    ...(notes ? { notes } : {}),
  };
}

function parseAdapter(where: string, v: unknown): GpuAdapterInfo {
  const a = checkObject(where, v);
  const str = (k: string) => checkString(`${where}.${k}`, a[k]);
  return { vendor: str('vendor'), architecture: str('architecture'), device: str('device'), description: str('description'), host: str('host') };
}

/** Reads `<file>.json` if it exists; null when there is none. A present but malformed sidecar is refused. */
export function readSidecarFor(file: string): Sidecar | null {
  const path = sidecarPathFor(file);
  // lstat-based: a dangling or looping sidecar link is refused, never read as "no sidecar" (defaults would apply).
  if (!inputPresent(path)) return null;
  return parseSidecar(parseJson(readInputText(path, 1 << 20), path), basename(path));
}

/** Refuses a payload whose bytes do not match its sidecar's count and hash. */
export function verifyPayload(sidecar: Sidecar, payload: Uint8Array, file: string): void {
  if (payload.length !== sidecar.payload.bytes) {
    throw new FormatError(
      `${file}: sidecar says ${sidecar.payload.bytes} bytes, the file has ${payload.length} (the file changed after its sidecar was written)`,
    );
  }
  const sha = sha256Hex(payload);
  if (sha !== sidecar.payload.sha256) {
    throw new FormatError(`${file}: SHA-256 ${sha} does not match the sidecar's ${sidecar.payload.sha256} (the file changed after its sidecar was written)`);
  }
}

export function sidecarText(s: Sidecar): string {
  return `${JSON.stringify(s, null, 2)}\n`;
}

export function writeSidecar(file: string, s: Sidecar): void {
  writeFileAtomic(sidecarPathFor(file), sidecarText(s));
}

/** Writes a payload and its sidecar as one atomic pair (src/io/atomic.ts), for every container heightbench writes. */
export function writePayloadWithSidecar(path: string, payload: Uint8Array, sidecar: Sidecar): void {
  writeFilePairAtomic(path, payload, sidecar.payload.sha256, sidecarPathFor(path), sidecarText(sidecar), () => {
    try {
      return readSidecarFor(path)?.payload.sha256 ?? null;
    } catch {
      return null;
    }
  });
}
