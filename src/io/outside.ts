/**
 * Reading and writing heightfields in the containers researchers bring: DDS (frame-capture render targets), OpenEXR,
 * TIFF/GeoTIFF, NumPy .npy. The decoders (src/io/formats/) turn bytes into one band of stored samples; this module
 * reads the bytes through the hardened reader, gives the samples their grid and meaning, and writes TIFF and .npy.
 *
 * Inputs: a path, read settings (flags for conventions the file does not carry). Output: a LoadedHeightfield, the
 * same value the .r16/.png/.r32 reader returns, with `conventions` saying where each convention came from.
 * Rules:
 *  - [R] bytes read are bounded before reading: without a sidecar the decoder reads the file's headers first, then only
 *    the ranges they name (src/io/byte-source.ts), each checked against the bytes present and the reader budget;
 *    with a sidecar the payload it names is read whole (to verify its digest), within the same budget;
 *  - a heightbench sidecar beside the file is authoritative (as for every container); without one, conventions come
 *    from the file (GeoTIFF georeferencing; DDS R16_UNORM says its samples are codes; int16 samples are metres), from
 *    flags, or from stated defaults only where allowed (src/io/input-conventions.ts);
 *  - [R] frame captures (DDS, EXR) default to row 0 at ymax: a render target's row 0 is the top of the viewport
 *    (Direct3D, Vulkan, Metal and WebGPU framebuffer coordinates all start at the top-left), and a top-down
 *    orthographic height pass maps world +y to the top of the viewport, so the first stored row is the northern edge;
 *    a capture made with the opposite projection says so with --row-direction row0-at-ymin;
 *  - samples equal to a no-data value (GDAL_NODATA) become NaN; integer samples with no-data are read as heights in
 *    metres (float) when they are metres, and refused when they are UNORM16 codes (a code field cannot hold NaN);
 *  - float64 samples are narrowed to float32 (heightbench's float fields), and the note says so.
 */
import { codeHeightfield, floatHeightfield, heightsOf, withRowDirection, type Heightfield } from '../core/heightfield.js';
import { encodeHeightfield } from '../core/heightfield.js';
import { DEFAULT_RANGE, type GridDescription, type HeightRange } from '../core/grid.js';
import { FormatError, MismatchError } from '../errors.js';
import { checkReaderMemory, MAX_FIELD_PIXELS } from './limits.js';
import { fileSource, type ByteSource, type DecoderInput } from './byte-source.js';
import { readInputFile } from './read-input.js';
import { makeSidecar, readSidecarFor, sidecarPathFor, unorm16Encoding, verifyPayload, writePayloadWithSidecar, type Sidecar } from './sidecar.js';
import {
  checkConventionFlagsAgainstSidecar,
  resolveInputConventions,
  sameExtent,
  sidecarSources,
  type FileConventions,
  type ResolvedConventions,
  type SampleEncoding,
} from './input-conventions.js';
import type { DecodedRaster, RasterHeader, RasterSelection, RawSampleRun } from './formats/decoded-image.js';
import type { LoadedHeightfield, ReadSettings, StreamedSummary, SummaryFacts, WriteSettings, WrittenHeightfield } from './heightfield-types.js';
import { named } from './file-named.js';
import {
  blockSummaryReaderFor,
  decoderFor,
  rawRunReaderFor,
  rowStreamDecoderFor,
  type BlockSummaryReader,
  type OutsideContainer,
  type RowStreamDecoder,
} from './containers.js';
import { codeRangeStream, floatSummaryStream, type FloatSummary, type SummaryStream } from '../core/summary.js';
import type { EncodeCounts } from '../core/encoding.js';

export { outsideContainerFor, type OutsideContainer } from './containers.js';

/** Containers whose row 0 defaults to ymax (frame captures; see the header). */
const CAPTURE_ROW_REASON =
  "a render target's row 0 is the top of the viewport, where a top-down orthographic height pass puts world +y; give --row-direction if the capture's projection differs";

async function decode(container: OutsideContainer, bytes: DecoderInput, where: string, sel: RasterSelection, pixelLimit: number): Promise<DecodedRaster> {
  const decoder = await decoderFor(container);
  return decoder(bytes, where, sel, { pixelLimit });
}

/** What the decoded file itself says about its conventions. */
function carriedConventions(r: RasterHeader): FileConventions {
  const out: { -readonly [K in keyof FileConventions]: FileConventions[K] } = {};
  if (r.georeference) {
    const g = r.georeference;
    out.extent = { value: { xmin: g.xmin, ymin: g.ymin, sizeX: g.sizeX, sizeY: g.sizeY }, why: g.source };
    out.rowDirection = { value: g.rowDirection, origin: 'file', why: g.source };
    out.convention = 'texel-centre';
  } else if (r.container === 'dds' || r.container === 'exr') {
    out.rowDirection = { value: 'row0-at-ymax', origin: 'container', why: CAPTURE_ROW_REASON };
  }
  if (r.unorm16) out.encoding = { kind: 'unorm16', why: `${r.description}: the format's samples are UNORM16 codes` };
  else if (r.sampleType === 'int16') out.encoding = { kind: 'metres', why: 'signed 16-bit samples cannot be UNORM16 codes: heights in metres' };
  return out;
}

/**
 * The sidecar's conventions for an outside file: authoritative, with the flags beside it checked as for every
 * container (checkConventionFlagsAgainstSidecar); what the file itself carries (georeferencing, a format whose samples
 * are codes or heights) must agree with it too.
 */
function fromSidecar(path: string, sc: Sidecar, r: DecodedRaster, s: ReadSettings): ResolvedConventions {
  checkConventionFlagsAgainstSidecar(path, sc, s);
  if (sc.grid.columns !== r.width || sc.grid.rows !== r.height) {
    throw new MismatchError(`${path}: sidecar grid ${sc.grid.columns}×${sc.grid.rows} vs the file's ${r.width}×${r.height}`);
  }
  const file = carriedConventions(r);
  const g = sc.grid;
  if (file.extent) {
    const a = file.extent.value;
    if (!sameExtent(a, g)) {
      throw new MismatchError(
        `${path}: the sidecar's extent ${g.xmin},${g.ymin},${g.sizeX},${g.sizeY} contradicts the file's ${a.xmin},${a.ymin},${a.sizeX},${a.sizeY}`,
      );
    }
  }
  if (file.rowDirection?.origin === 'file' && file.rowDirection.value !== g.rowDirection) {
    throw new MismatchError(`${path}: the sidecar's ${g.rowDirection} contradicts the file's ${file.rowDirection.value}`);
  }
  if (sc.endian !== r.endian) throw new MismatchError(`${path}: the sidecar says endian ${sc.endian}, the file stores its samples ${r.endian}`);
  const integer = r.sampleType === 'uint16' || r.sampleType === 'int16';
  if (sc.encoding.kind === 'float32' && integer) {
    throw new MismatchError(`${path}: the sidecar says float32 heights in metres, the file holds ${r.sampleType} samples`);
  }
  const encoding: SampleEncoding = sc.encoding.kind === 'unorm16' ? { kind: 'unorm16', range: sc.encoding.range } : { kind: 'metres' };
  return { grid: g, encoding, sources: sidecarSources(sidecarPathFor(path), sc, s) };
}

/** Reads a DDS, EXR, TIFF or .npy heightfield (see the header for the rules). */
export async function readOutsideFile(path: string, container: OutsideContainer, s: ReadSettings): Promise<LoadedHeightfield> {
  try {
    return await readOutside(path, container, s);
  } catch (e) {
    throw named(path, e);
  }
}

async function readOutside(path: string, container: OutsideContainer, s: ReadSettings): Promise<LoadedHeightfield> {
  const pixelLimit = s.pixelLimit ?? MAX_FIELD_PIXELS;
  const sidecar = readSidecarFor(path);
  if (sidecar && sidecar.container !== container)
    throw new MismatchError(`${path}: sidecar describes a ${sidecar.container} payload, the extension says ${container}`);
  let input: DecoderInput;
  let fileBytes: number;
  if (sidecar) {
    checkReaderMemory(path, 'the payload its sidecar names (payload.bytes, read whole to verify its digest)', sidecar.payload.bytes);
    const bytes = readInputFile(path, sidecar.payload.bytes, "the sidecar's payload.bytes");
    verifyPayload(sidecar, bytes, path);
    // A plain Uint8Array view: Node's Buffer.slice is a view, not a copy, which decoders written to Uint8Array's
    // contract (slice copies) must never meet.
    input = new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    fileBytes = bytes.length;
  } else {
    input = fileSource(path);
    fileBytes = input.size;
  }
  let raster: DecodedRaster;
  try {
    raster = await decode(container, input, path, { channel: s.channel, level: s.level, slice: s.slice }, pixelLimit);
  } finally {
    if (!(input instanceof Uint8Array)) input.close();
  }
  const samples = raster.sampleType === 'uint16' || raster.sampleType === 'int16' ? 'integer' : 'float';
  const resolved = sidecar
    ? fromSidecar(path, sidecar, raster, s)
    : resolveInputConventions(path, raster.width, raster.height, samples, carriedConventions(raster), s);
  const notes = [raster.description];
  const field = toField(path, raster, resolved, notes);
  return {
    path,
    container,
    endian: raster.endian,
    field,
    sidecar,
    fileBytes,
    interlaced: false,
    notes,
    // A narrowing travels with the conventions, into every output that states them (a comparison's notes and --json).
    conventions: { ...resolved.sources, notes: [...resolved.sources.notes, ...notes.filter((n) => n.startsWith(NARROWED))] },
  };
}

/**
 * The summary of an outside file whose samples are one raw run (RawSampleRun), read in windows straight into the
 * summary kernel's memory — the field is never held, so a 4096² float file costs two windows, not 64 MiB; or whose
 * decoder feeds its samples block by block (a float32 TIFF: streamBlocks below); or, for a container whose decoder
 * hands its samples over a band of rows at a time (OpenEXR), the bands (streamRows).
 * The same header checks, conventions and notes as readOutsideFile. Null (the caller reads the file whole) when the
 * file has a sidecar (its payload is verified whole), the container or this file has no raw run, the samples need a
 * conversion (float16, float64, int16, codes read as metres), or an extreme is a zero (whose sign is the first
 * zero's in sample order, which a column-order run cannot tell).
 */
export async function streamOutsideSummary(path: string, container: OutsideContainer, s: ReadSettings): Promise<StreamedSummary | null> {
  try {
    return await streamSummary(path, container, s);
  } catch (e) {
    throw named(path, e);
  }
}

async function streamSummary(path: string, container: OutsideContainer, s: ReadSettings): Promise<StreamedSummary | null> {
  // A sidecar's payload is verified whole: such a file is read whole.
  if (readSidecarFor(path)) return null;
  const blocks = blockSummaryReaderFor(container);
  if (blocks) return streamBlocks(path, container, s, await blocks);
  const rowStream = rowStreamDecoderFor(container);
  if (rowStream) return streamRows(path, container, await rowStream, s);
  const reader = rawRunReaderFor(container);
  if (!reader) return null;
  const rawRun = await reader;
  const src = fileSource(path);
  try {
    const run = rawRun(src, path, { channel: s.channel, level: s.level, slice: s.slice }, { pixelLimit: s.pixelLimit ?? MAX_FIELD_PIXELS });
    if (!run) return null;
    const h = run.header;
    const integer = h.sampleType === 'uint16' || h.sampleType === 'int16';
    const resolved = resolveInputConventions(path, h.width, h.height, integer ? 'integer' : 'float', carriedConventions(h), s);
    const codes = h.sampleType === 'uint16' && resolved.encoding.kind === 'unorm16';
    if (!(codes || (h.sampleType === 'float32' && resolved.encoding.kind === 'metres')) || h.nodata !== null) return null;
    const facts: SummaryFacts = { path, container, endian: h.endian, interlaced: false, sidecar: null, notes: [h.description], grid: resolved.grid };
    const size = codes ? 2 : 4;
    if (codes) {
      const range = resolved.encoding.kind === 'unorm16' ? resolved.encoding.range : DEFAULT_RANGE;
      const stream = codeRangeStream();
      readRun(src, run, stream, size);
      return { facts, stats: { kind: 'codes', range, codes: stream.finish() }, conventions: resolved.sources };
    }
    const stream = floatSummaryStream();
    readRun(src, run, stream, size);
    const floats = stream.finish();
    return floats ? { facts, stats: { kind: 'float', floats }, conventions: resolved.sources } : null;
  } finally {
    src.close();
  }
}

/**
 * The summary of a file whose decoder feeds its float32 samples block by block (TIFF): the same steps as
 * readOutsideFile, in its order — the samples decoded, then the conventions — without the field. Null (the caller reads
 * the file whole) where the decoder does not stream this file, where the decoder refuses anything
 * (the whole read then gives the refusal, word for word, in its own order), where the samples would not be float32
 * heights in metres, or when an extreme is a zero.
 */
async function streamBlocks(path: string, container: OutsideContainer, s: ReadSettings, read: BlockSummaryReader): Promise<StreamedSummary | null> {
  // Its own kernel: the blocks arrive across awaits.
  const stream = floatSummaryStream(true);
  let h: RasterHeader | null;
  const src = fileSource(path);
  try {
    h = await read(src, path, { channel: s.channel, level: s.level, slice: s.slice }, { pixelLimit: s.pixelLimit ?? MAX_FIELD_PIXELS }, stream);
  } catch {
    return null;
  } finally {
    src.close();
  }
  if (!h) return null;
  const resolved = resolveInputConventions(path, h.width, h.height, 'float', carriedConventions(h), s);
  if (resolved.encoding.kind !== 'metres') return null;
  return finishFloatStream(path, container, h, resolved, stream);
}

/**
 * The summary of a file whose decoder hands its float samples over a band of rows at a time (RowStreamDecoder): each
 * band is added to the summary kernel and dropped. The decode comes first, then the conventions, as readOutsideFile
 * does them; null (the caller reads the file whole) where its samples are not read as heights in metres or an extreme
 * is a zero.
 */
async function streamRows(path: string, container: OutsideContainer, decodeRows: RowStreamDecoder, s: ReadSettings): Promise<StreamedSummary | null> {
  const stream = floatSummaryStream();
  const window = new Uint32Array(stream.window.buffer, stream.window.byteOffset, stream.window.length >>> 2);
  const add = (words: Uint32Array): void => {
    for (let at = 0; at < words.length; at += window.length) {
      const n = Math.min(window.length, words.length - at);
      window.set(words.subarray(at, at + n));
      stream.add(n);
    }
  };
  const src = fileSource(path);
  let h: RasterHeader;
  try {
    h = decodeRows(src, path, { channel: s.channel, level: s.level, slice: s.slice }, { pixelLimit: s.pixelLimit ?? MAX_FIELD_PIXELS }, add);
  } finally {
    src.close();
  }
  const resolved = resolveInputConventions(path, h.width, h.height, 'float', carriedConventions(h), s);
  if (resolved.encoding.kind !== 'metres' || h.nodata !== null) return null;
  return finishFloatStream(path, container, h, resolved, stream);
}

/** What a float stream states once its decoder is done: null on a zero extreme (the caller reads the file whole). */
function finishFloatStream(
  path: string,
  container: OutsideContainer,
  h: RasterHeader,
  resolved: ResolvedConventions,
  stream: SummaryStream<FloatSummary | null>,
): StreamedSummary | null {
  const floats = stream.finish();
  if (!floats) return null;
  const facts: SummaryFacts = { path, container, endian: h.endian, interlaced: false, sidecar: null, notes: [h.description], grid: resolved.grid };
  return { facts, stats: { kind: 'float', floats }, conventions: resolved.sources };
}

/** Reads the run window by window into the stream's window (byte-swapped to the host's order) and adds each window. */
function readRun(src: ByteSource, run: RawSampleRun, stream: SummaryStream<unknown>, size: 2 | 4): void {
  const window = stream.window;
  const step = window.length - (window.length % size);
  const swap = run.little !== LITTLE_ENDIAN_HOST;
  for (let at = 0; at < run.bytes; at += step) {
    const n = Math.min(step, run.bytes - at);
    src.readInto(run.offset + at, window.subarray(0, n), 'the samples');
    if (swap) stream.swap(n, size);
    stream.add(n / size);
  }
}

const LITTLE_ENDIAN_HOST = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;

/** Whether a note is narrowingNote's. */
const NARROWED = 'float64 samples narrowed to float32';

/** What narrowing a float64 field did: the largest change, and what a comparison of it cannot see. */
function narrowingNote(largestM: number, overflowed: number): string {
  const over = overflowed ? `; ${overflowed} finite samples beyond float32's range became infinite` : '';
  return `${NARROWED} (largest change ${(largestM * 1000).toPrecision(3)} mm: differences smaller than that between float64 sides are not resolved${over})`;
}

/** The decoded samples as a heightfield on the resolved grid. */
function toField(path: string, r: DecodedRaster, c: ResolvedConventions, notes: string[]): Heightfield {
  const grid: GridDescription = c.grid;
  const v = r.values;
  const nodata = r.nodata;
  if (c.encoding.kind === 'unorm16') {
    if (!(v instanceof Uint16Array)) {
      throw new MismatchError(`${path}: UNORM16 codes need unsigned 16-bit samples, the file holds ${r.sampleType}`);
    }
    if (nodata !== null && Number.isFinite(nodata) && v.includes(nodata)) {
      throw new FormatError(
        `${path}: ${countOf(v, nodata)} samples equal the no-data value ${nodata}, which a UNORM16 code field cannot hold; read the file as metres (--encoding metres) or without no-data`,
      );
    }
    return codeHeightfield(grid, v, c.encoding.range);
  }
  const out = v instanceof Float32Array ? v : new Float32Array(v.length);
  // The largest change the narrowing made (float64 accumulator, NaN and infinities left out): what a comparison of
  // the narrowed field cannot resolve, said wherever the field's conventions are.
  let largest = 0;
  let overflowed = 0;
  if (out !== v)
    for (let i = 0; i < v.length; i++) {
      out[i] = v[i];
      const d = Math.abs(out[i] - v[i]);
      if (d === Infinity) overflowed++;
      else if (d > largest) largest = d;
    }
  if (r.sampleType === 'float64') notes.push(narrowingNote(largest, overflowed));
  if (nodata !== null) {
    let n = 0;
    if (Number.isNaN(nodata)) n = countNaN(out);
    else
      for (let i = 0; i < out.length; i++)
        if (v[i] === nodata) {
          out[i] = NaN;
          n++;
        }
    notes.push(`no-data ${nodata}: ${n} samples read as NaN`);
  }
  return floatHeightfield(grid, out);
}

function countOf(v: Uint16Array, x: number): number {
  let n = 0;
  for (let i = 0; i < v.length; i++) if (v[i] === x) n++;
  return n;
}

function countNaN(v: Float32Array): number {
  let n = 0;
  for (let i = 0; i < v.length; i++) if (v[i] !== v[i]) n++;
  return n;
}

/**
 * Writes `field` as a TIFF (GeoTIFF tags for the extent, north-up: its rows reordered to row0-at-ymax when needed;
 * uint16 codes or float32 metres) or a .npy (uint16 codes or float32 metres, row 0 first as the grid stores it),
 * atomically with its sidecar, which describes the payload as written.
 */
export async function writeOutsideFile(path: string, container: OutsideContainer, field: Heightfield, s: WriteSettings): Promise<WrittenHeightfield> {
  let f: Heightfield = field;
  let encodeCounts: EncodeCounts | null = null;
  if (s.range && field.kind === 'float') {
    const enc = encodeHeightfield(field, s.range);
    f = enc.field;
    encodeCounts = enc.counts;
  } else if (s.range && field.kind === 'codes' && (s.range.min !== field.range.min || s.range.max !== field.range.max)) {
    const enc = encodeHeightfield(floatHeightfield(field.grid, heightsOf(field)), s.range);
    f = enc.field;
    encodeCounts = enc.counts;
  }
  // [R] A TIFF is written north-up (encodeTiff), so the grid its sidecar records is the file's: a row0-at-ymin field
  // is stored, and described, with its rows reordered to row0-at-ymax — the same height at every world texel, and
  // the sidecar and the GeoTIFF georeferencing agree.
  if (container === 'tiff') f = withRowDirection(f, 'row0-at-ymax');
  const values = f.kind === 'codes' ? f.code_px : f.height_px;
  const g = f.grid;
  let payload: Uint8Array;
  if (container === 'tiff') {
    const { encodeTiff } = await import('./formats/tiff.js');
    payload = encodeTiff({
      width: g.columns,
      height: g.rows,
      values,
      georeference: { xmin: g.xmin, ymin: g.ymin, sizeX: g.sizeX, sizeY: g.sizeY, rowDirection: g.rowDirection, source: 'heightbench grid' },
      nodata: null,
      compression: 'deflate',
    });
  } else if (container === 'npy') {
    const { encodeNpy } = await import('./formats/npy.js');
    payload = encodeNpy(values, g.columns, g.rows);
  } else {
    throw new FormatError(
      `${path}: heightbench reads ${container.toUpperCase()} files but writes only .tif and .npy among outside containers (and .r16, .png, .r32)`,
    );
  }
  const range: HeightRange = f.kind === 'codes' ? f.range : DEFAULT_RANGE;
  const sidecar = makeSidecar(path, payload, {
    container,
    endian: 'le',
    grid: g,
    encoding: f.kind === 'codes' ? unorm16Encoding(range) : { kind: 'float32', unit: 'm' },
    stage: s.stage,
    request: s.request,
    notes: s.notes,
    adapter: s.adapter,
  });
  writePayloadWithSidecar(path, payload, sidecar);
  return { path, sidecar, encodeCounts };
}
