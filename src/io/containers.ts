/**
 * The container registry: every file extension heightbench reads or writes, the container it names, which reader and
 * writer take it, and the lazy import of an outside container's decoder (loaded only when such a file is read).
 *
 * Readers: heightbench's own containers (.r16/.raw, .png, .r32) are read and written synchronously
 * (src/io/heightfield-file.ts); the outside ones (.dds, .exr, .tif/.tiff, .npy) asynchronously (src/io/outside.ts), as
 * the TIFF decoder is; heightbench writes .tif and .npy among them. Nothing here imports a reader or a writer, so both
 * can consult the registry.
 */
import { extname } from 'node:path';
import { FormatError } from '../errors.js';
import type { DecoderInput } from './byte-source.js';
import type { DecodedRaster, RasterHeader, RasterLimits, RasterSelection, RawSampleRun } from './formats/decoded-image.js';
import type { SummaryStream } from '../core/summary.js';
import type { Container } from './sidecar.js';

/** heightbench's own containers: read and written synchronously. */
export type OwnContainer = 'r16' | 'png16' | 'r32';
/** The containers researchers bring: read asynchronously through a decoder of src/io/formats/. */
export type OutsideContainer = 'dds' | 'exr' | 'tiff' | 'npy';

/** An outside container's decoder: bytes (read through the hardened reader) to one band of stored samples. */
export type Decoder = (input: DecoderInput, where: string, sel: RasterSelection, limits: RasterLimits) => DecodedRaster | Promise<DecodedRaster>;
/**
 * The header checks of a decoder whose file may store the samples as one uncompressed run: the run, or null where this
 * file's samples are not one (the decoder reads it). Refuses exactly what the decoder refuses before its samples.
 */
export type RawRunReader = (input: DecoderInput, where: string, sel: RasterSelection, limits: RasterLimits) => RawSampleRun | null;
/**
 * A decoder that can feed its float32 samples to a summary stream block by block instead of holding the field: the
 * header the decoder would give, or null where this file is not read that way (the decoder reads it).
 */
export type BlockSummaryReader = (
  input: DecoderInput,
  where: string,
  sel: RasterSelection,
  limits: RasterLimits,
  stream: SummaryStream<unknown>,
) => Promise<RasterHeader | null>;

/**
 * A decoder that hands its float samples over as float32 bits, a band of whole rows at a time (row 0 first), instead of
 * one array; it refuses exactly what the decoder refuses and returns the decoder's header.
 */
export type RowStreamDecoder = (
  input: DecoderInput,
  where: string,
  sel: RasterSelection,
  limits: RasterLimits,
  rows: (words: Uint32Array) => void,
) => RasterHeader;

interface OwnEntry {
  readonly container: OwnContainer;
  readonly extensions: readonly string[];
  /** Read by readOwnHeightfieldFile, written by writeOwnHeightfieldFile (synchronous). */
  readonly reader: 'own';
  readonly writes: true;
}

interface OutsideEntry {
  readonly container: OutsideContainer;
  readonly extensions: readonly string[];
  /** Read by readAnyHeightfieldFile through src/io/outside.ts (asynchronous). */
  readonly reader: 'outside';
  /** Whether writeAnyHeightfieldFile writes it (src/io/outside.ts writeOutsideFile). */
  readonly writes: boolean;
  readonly decoder: () => Promise<Decoder>;
  /** Where the format can hold its samples as one raw run: its header checks (src/io/formats/decoded-image.ts RawSampleRun). */
  readonly rawRun?: () => Promise<RawRunReader>;
  /** Where the format's samples are compressed in blocks: the decoder's summary stream (BlockSummaryReader). */
  readonly blockSummary?: () => Promise<BlockSummaryReader>;
  /** Where the decoder can hand its float samples over row band by row band (RowStreamDecoder). */
  readonly floatRows?: () => Promise<RowStreamDecoder>;
}

export type ContainerEntry = OwnEntry | OutsideEntry;

export const CONTAINERS: readonly ContainerEntry[] = [
  { container: 'r16', extensions: ['.r16', '.raw'], reader: 'own', writes: true },
  { container: 'png16', extensions: ['.png'], reader: 'own', writes: true },
  { container: 'r32', extensions: ['.r32'], reader: 'own', writes: true },
  {
    container: 'dds',
    extensions: ['.dds'],
    reader: 'outside',
    writes: false,
    decoder: async () => (await import('./formats/dds.js')).decodeDds,
    rawRun: async () => (await import('./formats/dds.js')).ddsRawRun,
  },
  {
    container: 'exr',
    extensions: ['.exr'],
    reader: 'outside',
    writes: false,
    decoder: async () => (await import('./formats/exr.js')).decodeExr,
    floatRows: async () => (await import('./formats/exr.js')).decodeExrRows,
  },
  {
    container: 'tiff',
    extensions: ['.tif', '.tiff'],
    reader: 'outside',
    writes: true,
    decoder: async () => (await import('./formats/tiff.js')).decodeTiff,
    blockSummary: async () => (await import('./formats/tiff.js')).summarizeTiff,
  },
  {
    container: 'npy',
    extensions: ['.npy'],
    reader: 'outside',
    writes: true,
    decoder: async () => (await import('./formats/npy.js')).decodeNpy,
    rawRun: async () => (await import('./formats/npy.js')).npyRawRun,
  },
];

/** The registry's entry for a path's extension (case-insensitive), or null. */
export function containerEntryFor(path: string): ContainerEntry | null {
  const ext = extname(path).toLowerCase();
  return CONTAINERS.find((c) => c.extensions.includes(ext)) ?? null;
}

/** The container a path's extension names; an unknown extension is refused, naming it and the known ones. */
export function containerForPath(path: string): Container {
  const entry = containerEntryFor(path);
  if (entry) return entry.container;
  throw new FormatError(`${path}: unknown extension ${JSON.stringify(extname(path).toLowerCase())}, expected .r16, .png, .r32, .dds, .exr, .tif/.tiff or .npy`);
}

/** The outside container an extension names, or null. */
export function outsideContainerFor(path: string): OutsideContainer | null {
  const entry = containerEntryFor(path);
  return entry?.reader === 'outside' ? entry.container : null;
}

/** The registry's entry of an outside container. */
function outsideEntry(container: OutsideContainer): OutsideEntry {
  const entry = CONTAINERS.find((c) => c.container === container);
  if (entry?.reader !== 'outside') throw new Error(`unreachable: ${container} is an outside container`);
  return entry;
}

/** The raw-run reader of an outside container that has one, imported on first use; null for the others. */
export function rawRunReaderFor(container: OutsideContainer): Promise<RawRunReader> | null {
  return outsideEntry(container).rawRun?.() ?? null;
}

/** The block summary reader of an outside container that has one, imported on first use; null for the others. */
export function blockSummaryReaderFor(container: OutsideContainer): Promise<BlockSummaryReader> | null {
  return outsideEntry(container).blockSummary?.() ?? null;
}

/** The row-streaming decoder of an outside container that has one, imported on first use; null for the others. */
export function rowStreamDecoderFor(container: OutsideContainer): Promise<RowStreamDecoder> | null {
  return outsideEntry(container).floatRows?.() ?? null;
}

/** The decoder of an outside container, imported on first use. */
export function decoderFor(container: OutsideContainer): Promise<Decoder> {
  return outsideEntry(container).decoder();
}
