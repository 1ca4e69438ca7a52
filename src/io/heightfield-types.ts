/**
 * The public types of reading and writing a heightfield file, shared by every container's reader and writer
 * (src/io/heightfield-file.ts, src/io/outside.ts), which the container registry (src/io/containers.ts) names.
 */
import type { GridDescription, HeightRange, RowDirection, SampleConvention } from '../core/grid.js';
import type { FloatSummary } from '../core/summary.js';
import type { Heightfield } from '../core/heightfield.js';
import type { EncodeCounts } from '../core/encoding.js';
import type { ConventionFlags, ConventionSources } from './input-conventions.js';
import type { Container, Endian, GpuAdapterInfo, Sidecar } from './sidecar.js';

/**
 * How to read an input: sizes and byte order of raw files, and the conventions of a file without sidecar
 * (ConventionFlags: extent, row direction, range or `encoding: 'metres'`, and whether they must be stated — see
 * src/io/input-conventions.ts).
 */
export interface ReadSettings extends ConventionFlags {
  /** Size of a raw input without sidecar (ignored for PNG, whose IHDR wins). */
  size?: { width: number; height: number };
  endian?: Endian;
  range?: HeightRange;
  /** Describes an input without sidecar. */
  extent?: { xmin: number; ymin: number; sizeX: number; sizeY: number };
  convention?: SampleConvention;
  rowDirection?: RowDirection;
  pixelLimit?: number;
  /** DDS / EXR / multi-band TIFF: the channel (R, G, B, A; an EXR channel name; a TIFF band). */
  channel?: string;
  /** DDS mip level (default 0). */
  level?: number;
  /** DDS array slice (default 0). */
  slice?: number;
}

export interface LoadedHeightfield {
  path: string;
  container: Container;
  endian: Endian;
  field: Heightfield;
  sidecar: Sidecar | null;
  fileBytes: number;
  interlaced: boolean;
  /** Settings that were overridden by the file itself (e.g. a PNG's size), for the user to see. */
  notes: string[];
  /** Where each convention came from (sidecar, the file, a container default, a flag, heightbench's defaults). */
  conventions: ConventionSources;
  /**
   * The SHA-256 of the file at `path`, when its bytes were checked against the sidecar's payload hash (absent without
   * a sidecar, and when the payload came from an interrupted pair write's pending copy instead).
   */
  verifiedSha256?: string;
}

export interface WriteSettings {
  endian?: Endian;
  /** Range for encoding a float field into a 16-bit container (default: the field's own, else DEFAULT_RANGE). */
  range?: HeightRange;
  interlace?: boolean;
  stage?: string | null;
  request?: string | null;
  notes?: Record<string, unknown>;
  /** GPU output: the adapter that produced the field (sidecar producer.adapter). */
  adapter?: GpuAdapterInfo;
  /**
   * A PNG16 payload's Up-filtered scanlines are written into this buffer (at least (2·columns + 1)·rows bytes, not
   * overlapping the field) instead of a new one: memory the caller has paged in already (encodePng16's `rows`).
   */
  pngRows?: Uint8Array;
}

export interface WrittenHeightfield {
  path: string;
  sidecar: Sidecar;
  /** Present when floats were encoded into codes. */
  encodeCounts: EncodeCounts | null;
}

/** The reductions a summary states: a float field's non-finite counts and finite extremes, or a code field's code range. */
export type FieldStats =
  | { readonly kind: 'codes'; readonly range: HeightRange; readonly codes: { min: number; max: number } | null }
  | { readonly kind: 'float'; readonly floats: FloatSummary };

/** What a summary says of the file besides its samples' reductions. */
export type SummaryFacts = Pick<LoadedHeightfield, 'path' | 'container' | 'endian' | 'interlaced' | 'sidecar' | 'notes'> & { readonly grid: GridDescription };

/** What a streamed summary returns (summarizeHeightfieldFile turns it into `info`'s summary). */
export interface StreamedSummary {
  readonly facts: SummaryFacts;
  readonly stats: FieldStats;
  readonly conventions: ConventionSources;
}
