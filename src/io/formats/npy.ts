/**
 * NumPy .npy reader and writer for one 2-D array (numpy's documented format, numpy/lib/format.py "NPY format").
 *
 * decodeNpy — input: the file's bytes, the path (for messages), a selection (none applies: any channel, level or
 * slice is refused) and the pixel limit. Output: a DecodedRaster with the array in row-major order from a[0, :]
 * (a Fortran-order file is transposed into that layout), uint16/int16/float32/float64 as stored, float16 widened
 * exactly to float32.
 * encodeNpy — input: row-major samples and their width and height. Output: a version 1.0 file, little-endian,
 * C order, laid out as numpy 2.x's np.save lays it out (same header text and padding), so the bytes are identical.
 *
 * Rules [R]:
 * - Versions 1.0 (u16 header length, latin-1), 2.0 (u32, latin-1) and 3.0 (u32, UTF-8). Header at most 64 KiB.
 * - The header is parsed as the Python literal dict it is ({'descr': '<f4', 'fortran_order': False,
 *   'shape': (H, W), }) by a small strict parser, never evaluated: exactly those three keys, string / bool / tuple
 *   of integers values, only spaces and the final newline after the closing brace.
 * - descr: <u2 <i2 <f2 <f4 <f8 and their big-endian forms; anything else (8-bit, 32/64-bit integers, complex,
 *   structured, object/pickled) is refused with the reason.
 * - Shape: (H, W); (H, W, 1) is accepted as (H, W) (a trailing channel axis of one); other ranks are refused with the
 *   shape shown. H, W ≥ 1. H · W is checked against the pixel limit before allocating, and the payload against the
 *   bytes present: a short file is truncated, extra bytes after the array are refused (a second array appended?).
 */
import { FormatError, InputRangeError, LimitError } from '../../errors.js';
import { widenFloat16 } from './dds.js';
import type { DecodedRaster, RasterHeader, RasterLimits, RasterSampleType, RasterSelection, RasterValues, RawSampleRun } from './decoded-image.js';
import { sourceOf, type DecoderInput } from '../byte-source.js';
import { checkFieldSize, checkReaderMemory } from '../limits.js';

const MAGIC = [0x93, 0x4e, 0x55, 0x4d, 0x50, 0x59]; // "\x93NUMPY"
const MAX_HEADER = 65536;
const ALIGN = 64; // numpy's ARRAY_ALIGN
const GROWTH_AXIS_MAX_DIGITS = 21; // numpy pads the header so the growth axis can be rewritten in place

const LITTLE_ENDIAN_HOST = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;

const KINDS: Readonly<Record<string, { type: RasterSampleType; size: number; words: string }>> = {
  u2: { type: 'uint16', size: 2, words: 'uint16' },
  i2: { type: 'int16', size: 2, words: 'int16' },
  f2: { type: 'float16', size: 2, words: 'float16' },
  f4: { type: 'float32', size: 4, words: 'float32' },
  f8: { type: 'float64', size: 8, words: 'float64' },
};

function fail(where: string, what: string): never {
  throw new FormatError(`${where}: .npy: ${what}`);
}

// --- The header literal: a tiny tokenizer-parser for the subset numpy writes.

type Literal = string | boolean | number[] | { readonly list: true };

class HeaderParser {
  private i = 0;
  constructor(
    private readonly s: string,
    private readonly where: string,
  ) {}

  private err(what: string): never {
    fail(this.where, `header ${what} at character ${this.i} of ${JSON.stringify(this.s.length > 120 ? this.s.slice(0, 120) + '…' : this.s)}`);
  }

  private ws(): void {
    while (this.i < this.s.length && (this.s[this.i] === ' ' || this.s[this.i] === '\t')) this.i++;
  }

  private eat(c: string): boolean {
    this.ws();
    if (this.s[this.i] === c) {
      this.i++;
      return true;
    }
    return false;
  }

  private expect(c: string): void {
    if (!this.eat(c)) this.err(`expected "${c}"`);
  }

  private string(): string {
    this.ws();
    const q = this.s[this.i];
    if (q !== "'" && q !== '"') this.err('expected a quoted string');
    const end = this.s.indexOf(q, this.i + 1);
    if (end < 0) this.err('has an unterminated string');
    const body = this.s.slice(this.i + 1, end);
    if (body.includes('\\')) this.err('has an escaped string (not written by numpy)');
    this.i = end + 1;
    return body;
  }

  private value(): Literal {
    this.ws();
    const c = this.s[this.i];
    if (c === "'" || c === '"') return this.string();
    if (this.s.startsWith('True', this.i)) {
      this.i += 4;
      return true;
    }
    if (this.s.startsWith('False', this.i)) {
      this.i += 5;
      return false;
    }
    if (c === '[') return { list: true };
    if (c === '(') return this.tuple();
    this.err('has a value that is not a string, True/False or a tuple');
  }

  private tuple(): number[] {
    this.expect('(');
    const out: number[] = [];
    let commas = 0;
    for (;;) {
      if (this.eat(')')) break;
      if (out.length > commas) this.err('expected "," or ")" in the shape');
      this.ws();
      const m = /^[0-9]+L?/.exec(this.s.slice(this.i, this.i + 40));
      if (m === null) this.err('has a shape entry that is not a non-negative integer');
      const digits = m[0].replace('L', '');
      const n = digits.length > 16 ? Infinity : Number(digits);
      if (!Number.isSafeInteger(n)) this.err(`has a shape entry ${digits} that overflows`);
      out.push(n);
      this.i += m[0].length;
      if (this.eat(',')) commas++;
    }
    // Python: "(5)" is the integer 5, not a tuple; numpy writes "(5,)".
    if (out.length === 1 && commas === 0) this.err('has a shape "(n)" that is an integer, not a tuple');
    return out;
  }

  dict(): Map<string, Literal> {
    const d = new Map<string, Literal>();
    this.expect('{');
    for (;;) {
      if (this.eat('}')) break;
      const key = this.string();
      this.expect(':');
      const v = this.value();
      if (typeof v === 'object' && !Array.isArray(v)) {
        if (key === 'descr') return new Map<string, Literal>([['descr', v]]); // structured: refused by the caller
        this.err(`has a list value for "${key}"`);
      }
      if (d.has(key)) this.err(`repeats the key "${key}"`);
      d.set(key, v);
      if (!this.eat(',')) {
        this.expect('}');
        break;
      }
    }
    this.ws();
    if (this.s.slice(this.i).replace(/[ \n]/g, '') !== '') this.err('has text after the closing brace');
    return d;
  }
}

export interface NpyHeader {
  readonly version: string;
  readonly descr: string;
  readonly fortran: boolean;
  readonly shape: readonly number[];
  readonly dataOffset: number;
}

/** Reads and checks the magic, version and header dict (no payload). */
export function parseNpyHeader(bytes: Uint8Array, where: string): NpyHeader {
  if (bytes.length < 10) fail(where, `file is ${bytes.length} bytes, shorter than the 10-byte magic, version and header length`);
  for (let k = 0; k < MAGIC.length; k++) {
    if (bytes[k] !== MAGIC[k]) fail(where, 'no "\\x93NUMPY" magic at the start');
  }
  const major = bytes[6];
  const minor = bytes[7];
  if (!((major === 1 || major === 2 || major === 3) && minor === 0)) {
    fail(where, `format version ${major}.${minor} is not read (1.0, 2.0 and 3.0 are)`);
  }
  const dv = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const lenBytes = major === 1 ? 2 : 4;
  if (bytes.length < 8 + lenBytes) fail(where, `file is ${bytes.length} bytes; version ${major}.0 needs ${8 + lenBytes} before the header`);
  const headerLen = major === 1 ? dv.getUint16(8, true) : dv.getUint32(8, true);
  if (headerLen > MAX_HEADER) fail(where, `header length ${headerLen} bytes exceeds the ${MAX_HEADER}-byte bound`);
  const start = 8 + lenBytes;
  if (bytes.length < start + headerLen) {
    fail(where, `truncated header: declared ${headerLen} bytes after byte ${start}, the file has ${bytes.length - start}`);
  }
  const raw = bytes.subarray(start, start + headerLen);
  let text: string;
  try {
    text = new TextDecoder(major === 3 ? 'utf-8' : 'latin1', { fatal: true }).decode(raw);
  } catch {
    fail(where, 'header is not valid UTF-8 (version 3.0)');
  }
  if (!text.endsWith('\n')) fail(where, 'header does not end with a newline');
  const d = new HeaderParser(text, where).dict();
  const descr = d.get('descr');
  if (descr !== undefined && typeof descr === 'object' && !Array.isArray(descr)) {
    fail(where, 'descr is a list of fields (a structured dtype); save a plain 2-D array of one numeric type');
  }
  const keys = [...d.keys()].sort().join(', ');
  if (keys !== 'descr, fortran_order, shape') fail(where, `header keys are {${keys}}; expected exactly descr, fortran_order, shape`);
  const fortran = d.get('fortran_order');
  const shape = d.get('shape');
  if (typeof descr !== 'string') fail(where, 'descr is not a string');
  if (typeof fortran !== 'boolean') fail(where, 'fortran_order is not True or False');
  if (!Array.isArray(shape)) fail(where, 'shape is not a tuple');
  return { version: `${major}.0`, descr, fortran, shape, dataOffset: start + headerLen };
}

function descrKind(descr: string, where: string): { kind: (typeof KINDS)[string]; little: boolean } {
  const order = descr[0];
  const code = descr.slice(1);
  const kind = KINDS[code];
  if ((order === '<' || order === '>') && kind !== undefined) return { kind, little: order === '<' };
  const fix = 'save as float32, float64, uint16 or int16';
  let why: string;
  if (code.startsWith('O')) why = 'an object array holds pickled Python objects, which heightbench never unpickles';
  else if (/^[ui]1$/.test(code) || code === 'b1') why = '8-bit (or boolean) samples are too coarse for a heightfield';
  else if (/^[ui][48]$/.test(code)) why = `${code[0] === 'u' ? 'unsigned' : 'signed'} ${Number(code[1]) * 8}-bit integers have no defined height mapping`;
  else if (kind !== undefined) why = `byte order "${order}" is not explicit little (<) or big (>) endian`;
  else if (/^c/.test(code)) why = 'complex samples are not heights';
  else why = 'not a numeric sample type heightbench reads';
  fail(where, `descr ${JSON.stringify(descr)} is refused: ${why}; ${fix}`);
}

/** What the header checks establish: the array's sample type, byte order, shape and where its bytes lie. */
interface NpyLayout {
  readonly h: NpyHeader;
  readonly kind: (typeof KINDS)[string];
  readonly little: boolean;
  readonly width: number;
  readonly height: number;
  readonly need: number;
  readonly shapeText: string;
  readonly header: RasterHeader;
}

/** The header's checks (magic, version, dict, type, shape, limit, exact size), shared by decoding and streaming. */
function npyLayout(input: DecoderInput, where: string, sel: RasterSelection, limits: RasterLimits): NpyLayout {
  const src = sourceOf(input, where);
  if (sel.channel !== undefined || sel.level !== undefined || sel.slice !== undefined) {
    fail(where, 'a .npy file holds one 2-D array; it has no channel, mip level or slice to select');
  }
  // The header first (magic, version, length, the dict), then only the array it names.
  const h = parseNpyHeader(src.head(12 + MAX_HEADER), where);
  const { kind, little } = descrKind(h.descr, where);
  const shapeText = `(${h.shape.join(', ')}${h.shape.length === 1 ? ',' : ''})`;
  const squeezed = h.shape.length === 3 && h.shape[2] === 1;
  if (h.shape.length !== 2 && !squeezed) {
    fail(where, `shape ${shapeText} is ${h.shape.length}-D; a heightfield is a 2-D array (H, W) (or (H, W, 1))`);
  }
  const [height, width] = h.shape;
  if (width < 1 || height < 1) fail(where, `shape ${shapeText} is empty; height and width must be at least 1`);
  const count = width * height;
  if (count > limits.pixelLimit) {
    throw new LimitError(`${where}: .npy: shape ${shapeText} = ${count} samples exceeds the limit of ${limits.pixelLimit}`);
  }
  // Every heightfield's side limit too (a 1 × 2,000,000 array is within the sample limit, not the side's).
  checkFieldSize(`${where}: .npy shape ${shapeText} (width × height)`, width, height, limits.pixelLimit);
  const need = count * kind.size;
  const present = src.size - h.dataOffset;
  if (present < need) {
    fail(where, `truncated: shape ${shapeText} of ${h.descr} needs ${need} bytes after the ${h.dataOffset}-byte header, the file has ${present}`);
  }
  if (present > need) {
    fail(where, `${present - need} bytes follow the ${need}-byte array (another array appended?); expected the file to end there`);
  }
  const header: RasterHeader = {
    container: 'npy',
    width,
    height,
    sampleType: kind.type,
    unorm16: false,
    georeference: null,
    nodata: null,
    endian: little ? 'le' : 'be',
    description:
      `NumPy .npy v${h.version}, ${h.descr} (${kind.words}, ${little ? 'little' : 'big'}-endian), ` +
      `${h.fortran ? 'Fortran order (transposed to rows)' : 'C order'}, shape ${shapeText}${squeezed ? ` read as (${height}, ${width})` : ''}`,
  };
  return { h, kind, little, width, height, need, shapeText, header };
}

/** The array's bytes as one run (a .npy is never compressed): what `info` streams instead of decoding. */
export function npyRawRun(input: DecoderInput, where: string, sel: RasterSelection, limits: RasterLimits): RawSampleRun {
  const l = npyLayout(input, where, sel, limits);
  const columns = l.h.fortran && l.width > 1 && l.height > 1;
  return { header: l.header, offset: l.h.dataOffset, bytes: l.need, little: l.little, order: columns ? 'columns' : 'rows' };
}

/**
 * Decodes a 2-D .npy array. See the file header for the rules.
 * @throws FormatError for a malformed, truncated or unsupported file; LimitError over the pixel limit.
 */
export function decodeNpy(input: DecoderInput, where: string, sel: RasterSelection, limits: RasterLimits): DecodedRaster {
  const src = sourceOf(input, where);
  const { h, kind, little, width, height, need, shapeText, header } = npyLayout(src, where, sel, limits);
  const count = width * height;

  // Fortran order stores a[:, 0] first: element (r, c) at c·H + r. It is transposed as integer words (exact bits)
  // straight from the file's bytes when they are aligned; C order is one copy. Either way the result owns its buffer.
  const widen = kind.type === 'float16' ? count * 4 : 0;
  checkReaderMemory(
    where,
    `.npy ${shapeText} of ${h.descr} (${need} bytes read${h.fortran ? ', twice to transpose' : ''}${widen ? `, ${widen} to widen` : ''})`,
    need * (h.fortran ? 2 : 1) + widen,
  );
  const bytes = src.read(h.dataOffset, need, `the ${shapeText} array`);
  let raw: Uint8Array;
  /** A copy that owns its buffer, also for a Node Buffer (whose slice is a view). */
  const copyOf = (b: Uint8Array, from: number, to: number): Uint8Array => Uint8Array.prototype.slice.call(b, from, to);
  if (h.fortran && width > 1 && height > 1) {
    const aligned = bytes.byteOffset % kind.size === 0;
    raw = transposeWords(aligned ? bytes : copyOf(bytes, 0, need), kind.size, height, width);
  } else {
    raw = src.fresh ? bytes : copyOf(bytes, 0, need);
  }
  if (little !== LITTLE_ENDIAN_HOST) swapBytes(raw, kind.size);
  let values: RasterValues;
  switch (kind.type) {
    case 'uint16':
      values = new Uint16Array(raw.buffer);
      break;
    case 'int16':
      values = new Int16Array(raw.buffer);
      break;
    case 'float16':
      values = widenFloat16(new Uint16Array(raw.buffer));
      break;
    case 'float32':
      values = new Float32Array(raw.buffer);
      break;
    case 'float64':
      values = new Float64Array(raw.buffer);
      break;
  }
  return { ...header, values };
}

function swapBytes(b: Uint8Array, size: number): void {
  if (size === 2) {
    const u = new Uint16Array(b.buffer, b.byteOffset, b.byteLength / 2);
    for (let i = 0; i < u.length; i++) {
      const v = u[i];
      u[i] = ((v & 0xff) << 8) | (v >>> 8);
    }
    return;
  }
  const u = new Uint32Array(b.buffer, b.byteOffset, b.byteLength / 4);
  for (let i = 0; i < u.length; i++) {
    const v = u[i];
    u[i] = ((v & 0xff) << 24) | ((v & 0xff00) << 8) | ((v >>> 8) & 0xff00) | (v >>> 24);
  }
  if (size === 8) {
    for (let i = 0; i < u.length; i += 2) {
      const t = u[i];
      u[i] = u[i + 1];
      u[i + 1] = t;
    }
  }
}

/** Column-major (rows × cols) samples of `size` bytes → row-major, in cache-sized tiles, as 16- or 32-bit words. */
function transposeWords(b: Uint8Array, size: number, rows: number, cols: number): Uint8Array {
  const out = new Uint8Array(b.length);
  const n = b.length / size;
  if (size === 2) transpose16(new Uint16Array(b.buffer, b.byteOffset, n), new Uint16Array(out.buffer), rows, cols);
  else transpose32(new Uint32Array(b.buffer, b.byteOffset, (n * size) / 4), new Uint32Array(out.buffer), rows, cols, size / 4);
  return out;
}

const TILE = 64;

function transpose16(src: Uint16Array, dst: Uint16Array, rows: number, cols: number): void {
  for (let r0 = 0; r0 < rows; r0 += TILE) {
    const r1 = Math.min(rows, r0 + TILE);
    for (let c0 = 0; c0 < cols; c0 += TILE) {
      const c1 = Math.min(cols, c0 + TILE);
      for (let r = r0; r < r1; r++) {
        for (let c = c0, d = r * cols + c0, s = c0 * rows + r; c < c1; c++, d++, s += rows) dst[d] = src[s];
      }
    }
  }
}

/** words = 32-bit words per sample (1 for float32, 2 for float64). */
function transpose32(src: Uint32Array, dst: Uint32Array, rows: number, cols: number, words: number): void {
  for (let r0 = 0; r0 < rows; r0 += TILE) {
    const r1 = Math.min(rows, r0 + TILE);
    for (let c0 = 0; c0 < cols; c0 += TILE) {
      const c1 = Math.min(cols, c0 + TILE);
      for (let r = r0; r < r1; r++) {
        if (words === 1) {
          for (let c = c0, d = r * cols + c0, s = c0 * rows + r; c < c1; c++, d++, s += rows) dst[d] = src[s];
        } else {
          for (let c = c0, d = 2 * (r * cols + c0), s = 2 * (c0 * rows + r); c < c1; c++, d += 2, s += 2 * rows) {
            dst[d] = src[s];
            dst[d + 1] = src[s + 1];
          }
        }
      }
    }
  }
}

/**
 * Writes a 2-D array as a version 1.0 .npy file: little-endian, C order, shape (height, width), header text and
 * padding as numpy 2.x writes them (the keys sorted, 21 − digits(height) spare spaces, then spaces and a newline to
 * a 64-byte boundary).
 * @throws InputRangeError when width or height is not a positive integer or the sample count differs.
 */
export function encodeNpy(values: Uint16Array | Int16Array | Float32Array | Float64Array, width: number, height: number): Uint8Array {
  if (!Number.isSafeInteger(width) || !Number.isSafeInteger(height) || width < 1 || height < 1) {
    throw new InputRangeError(`encodeNpy: size ${width}×${height}; width and height must be positive integers`);
  }
  if (values.length !== width * height) {
    throw new InputRangeError(`encodeNpy: ${values.length} samples for ${width}×${height}; expected ${width * height}`);
  }
  const descr = values instanceof Uint16Array ? '<u2' : values instanceof Int16Array ? '<i2' : values instanceof Float32Array ? '<f4' : '<f8';
  let header = `{'descr': '${descr}', 'fortran_order': False, 'shape': (${height}, ${width}), }`;
  header += ' '.repeat(Math.max(0, GROWTH_AXIS_MAX_DIGITS - String(height).length));
  const hlen = header.length + 1;
  const pad = ALIGN - ((10 + hlen) % ALIGN);
  header += ' '.repeat(pad) + '\n';
  const out = new Uint8Array(10 + header.length + values.byteLength);
  out.set(MAGIC, 0);
  out[6] = 1;
  out[7] = 0;
  new DataView(out.buffer).setUint16(8, header.length, true);
  for (let k = 0; k < header.length; k++) out[10 + k] = header.charCodeAt(k);
  const body = out.subarray(10 + header.length);
  body.set(new Uint8Array(values.buffer, values.byteOffset, values.byteLength));
  if (!LITTLE_ENDIAN_HOST) swapBytes(body, values.BYTES_PER_ELEMENT);
  return out;
}
