/**
 * OpenEXR PIZ decompression of one block (a scanline block of up to 32 lines or one tile), written from the OpenEXR
 * file-format description of PIZ: a bitmap of the 16-bit values present and the LUT it implies, a canonical Huffman
 * code with a run-length pseudo-symbol ("Huf" coder), and a 2-D Haar-like wavelet ("Wav" coder, 14-bit or 16-bit
 * variant chosen by the largest LUT index).
 *
 * Input: the block's compressed bytes and, per channel in file order, its width nx, lines ny and size in 16-bit
 * words (HALF 1, FLOAT/UINT 2), and the one channel wanted. Output: the block's 16-bit words channel by channel
 * (channel c's line l starts at `starts[c] + l · nx · size`); the wanted channel's words are the little-endian words
 * of its pixel data (a FLOAT sample is low word, high word). Every count read from the data is
 * checked against the bytes present and the words expected; a corrupt block raises FormatError naming what is wrong.
 *
 * [R] Scratch tables live in a PizDecoder so a whole file decodes without allocating per block. The loops run on a
 * WebAssembly kernel (wasm/exr-piz.wat) where one is available; the JavaScript path below is the reference it equals,
 * and decodes any block in which the kernel met a fault, so that the refusal names it.
 */
import { instantiateWasm, wasmDisabled } from '../../core/wasm.js';
import { FormatError } from '../../errors.js';
import { EXR_PIZ_WASM_BASE64 } from './wasm/exr-piz-wasm.js';

const USHORT_RANGE = 1 << 16;
const BITMAP_SIZE = USHORT_RANGE >> 3;
/** Huffman alphabet: every 16-bit value plus the run-length pseudo-symbol. */
const HUF_ENCSIZE = USHORT_RANGE + 1;
/**
 * [R] Codes up to `fb` bits decode by one table look-up, longer ones bit by bit. fb follows the block (about
 * log2 of its values − 1, within 10..18) so that filling the table never costs much more than decoding the block,
 * while near-uniform 16-bit data (FLOAT low words: 16–17-bit codes) still takes the fast path.
 */
const MIN_FAST_BITS = 10;
const MAX_FAST_BITS = 18;
/**
 * [R] The kernel's one-look-up table covers codes up to 11 bits (8 KiB, filled per block at little cost); a longer
 * code is found from its first 11 bits and its length's canonical range.
 */
const KERNEL_FAST_BITS = 11;
/** Lengths the table format can express (6-bit fields, 59…63 are zero-run markers). */
const MAX_CODE_LENGTH = 58;
/** [R] Codes are assembled in a double: longer ones cannot occur in a real file (they need > 2^36 samples). */
const MAX_SUPPORTED_LENGTH = 52;
const SHORT_ZEROCODE_RUN = 59;
const LONG_ZEROCODE_RUN = 63;
const SHORTEST_LONG_RUN = 2 + LONG_ZEROCODE_RUN - SHORT_ZEROCODE_RUN;

/** A Huf block's table as read: last symbol, symbols with a code, stream length in bits, longest code, fast-table bits, stream bytes. */
interface HufTable {
  readonly iM: number;
  /** How many symbols have a code (listed in PizDecoder.present). */
  readonly nPresent: number;
  readonly nBits: number;
  readonly maxLen: number;
  readonly fb: number;
  /** Byte offset of the bit stream in the source, and the end of the Huf data. */
  readonly stream: number;
  readonly end: number;
}

interface WasmGlobal {
  readonly value: number;
}

/** The kernel's exports (wasm/exr-piz.wat): its four loops and the offsets of its tables in its memory. */
interface PizKernel {
  memory: { buffer: ArrayBuffer; grow(pages: number): number };
  BITMAP: WasmGlobal;
  tableEnd: WasmGlobal;
  tableMaxLen: WasmGlobal;
  COUNT: WasmGlobal;
  FIRST: WasmGlobal;
  SSTART: WasmGlobal;
  OUT: WasmGlobal;
  lut(lo: number, hi: number): number;
  table(at: number, n: number, im: number, iM: number): number;
  huf(nPresent: number, iM: number, fastBits: number, maxLen: number, nBits: number, nRaw: number, bitsAt: number): number;
  wav(base: number, nx: number, ox: number, ny: number, oy: number, w14: number): void;
  unlut(from: number, n: number): void;
}
let kernel: PizKernel | null | undefined;

function pizKernel(): PizKernel | null {
  if (kernel === undefined) kernel = wasmDisabled() ? null : instantiateWasm<PizKernel>(EXR_PIZ_WASM_BASE64);
  return kernel;
}

export interface PizChannel {
  readonly nx: number;
  readonly ny: number;
  /** 16-bit words per sample: 1 for HALF, 2 for FLOAT and UINT. */
  readonly size: number;
}

export class PizDecoder {
  private readonly bitmap = new Uint8Array(BITMAP_SIZE);
  private readonly lut = new Uint16Array(USHORT_RANGE);
  /** The symbols with a code, ascending, each as (symbol << 6) | code length. */
  private readonly present = new Int32Array(HUF_ENCSIZE);
  /** Symbols ordered by (code length, symbol): the canonical assignment order. */
  private readonly sorted = new Int32Array(HUF_ENCSIZE);
  private readonly fast = new Int32Array(1 << MAX_FAST_BITS);
  private readonly count = new Float64Array(MAX_CODE_LENGTH + 1);
  private readonly first = new Float64Array(MAX_CODE_LENGTH + 1);
  private readonly sortedStart = new Int32Array(MAX_CODE_LENGTH + 2);
  private bits = new Uint8Array(0);
  private words: Uint16Array;
  /** Blocks the WebAssembly kernel decoded (the rest went through the JavaScript path). */
  kernelBlocks = 0;

  constructor(maxWords: number) {
    this.words = new Uint16Array(maxWords);
  }

  /**
   * Decodes `length` bytes at `offset` of `src` into the decoder's word buffer; returns that buffer (valid until the
   * next call) and each channel's first word. Only channel `only` is fully reconstructed (wavelet and LUT undone).
   * `useKernel` false keeps the block on the JavaScript path (the reference the tests hold the kernel to).
   */
  decode(
    src: Uint8Array,
    offset: number,
    length: number,
    channels: readonly PizChannel[],
    only: number,
    what: string,
    useKernel = true,
  ): { words: Uint16Array; starts: number[] } {
    const starts: number[] = [];
    let nRaw = 0;
    for (const c of channels) {
      starts.push(nRaw);
      nRaw += c.nx * c.ny * c.size;
    }
    if (nRaw > this.words.length) this.words = new Uint16Array(nRaw);
    const words = this.words;
    const end = offset + length;
    let p = offset;

    // Bitmap of the values present (bytes minNonZero..maxNonZero), then the LUT from bitmap rank to value.
    if (end - p < 4) throw new FormatError(`${what}: PIZ block of ${length} bytes, too short for its bitmap range (4 bytes)`);
    const minNonZero = src[p] | (src[p + 1] << 8);
    const maxNonZero = src[p + 2] | (src[p + 3] << 8);
    p += 4;
    if (maxNonZero >= BITMAP_SIZE) throw new FormatError(`${what}: PIZ bitmap ends at byte ${maxNonZero}, expected < ${BITMAP_SIZE}`);
    const bitmap = this.bitmap;
    bitmap.fill(0);
    if (minNonZero <= maxNonZero) {
      const n = maxNonZero - minNonZero + 1;
      if (end - p < n) throw new FormatError(`${what}: PIZ bitmap of ${n} bytes, only ${end - p} present`);
      bitmap.set(src.subarray(p, p + n), minNonZero);
      p += n;
    }
    if (useKernel && this.kernelDecode(src, p, end, minNonZero, maxNonZero, channels, only, nRaw, starts, what)) {
      return { words, starts };
    }
    const lut = this.lut;
    let k = 0;
    for (let i = 0; i < USHORT_RANGE; i++) {
      if (i === 0 || (bitmap[i >> 3] & (1 << (i & 7))) !== 0) lut[k++] = i;
    }
    const maxValue = k - 1;
    lut.fill(0, k);

    if (end - p < 4) throw new FormatError(`${what}: PIZ block lacks its Huffman length (4 bytes)`);
    const hufLength = (src[p] | (src[p + 1] << 8) | (src[p + 2] << 16) | (src[p + 3] << 24)) >>> 0;
    p += 4;
    if (hufLength > end - p) throw new FormatError(`${what}: PIZ Huffman data of ${hufLength} bytes, only ${end - p} present`);
    this.huffmanDecode(src, p, hufLength, words, nRaw, what);

    // Inverse wavelet per 16-bit word of a sample, then values back through the LUT — for the wanted channel only
    // (channels are transformed independently; the Huffman stream above had to be decoded whole).
    const ch = channels[only];
    const from = starts[only];
    for (let j = 0; j < ch.size; j++) wavelet2Decode(words, from + j, ch.nx, ch.size, ch.ny, ch.nx * ch.size, maxValue);
    for (let i = from, e = from + ch.nx * ch.ny * ch.size; i < e; i++) words[i] = lut[words[i]];
    return { words, starts };
  }

  /**
   * The block from its Huffman data on (`p`: after the bitmap) on the WebAssembly kernel; false where the kernel does
   * not run or found a fault, and then the JavaScript path decodes the block from `p` again — the reference the kernel
   * equals (test/format-exr.test.ts), and the one that names a fault. [R] A one-shot process would run these loops
   * in V8's baseline tiers, and the fast table would be refilled per block there.
   */
  private kernelDecode(
    src: Uint8Array,
    p: number,
    end: number,
    minNonZero: number,
    maxNonZero: number,
    channels: readonly PizChannel[],
    only: number,
    nRaw: number,
    starts: readonly number[],
    what: string,
  ): boolean {
    const k = pizKernel();
    if (k === null || nRaw === 0 || end - p < 4) return false;
    const hufLength = (src[p] | (src[p + 1] << 8) | (src[p + 2] << 16) | (src[p + 3] << 24)) >>> 0;
    p += 4;
    if (hufLength === 0 || hufLength > end - p) return false;
    // The Huf header as readTable checks it; a fault is left to the JavaScript path, which names it.
    const u32 = (o: number): number => (src[o] | (src[o + 1] << 8) | (src[o + 2] << 16) | (src[o + 3] << 24)) >>> 0;
    if (hufLength < 20) return false;
    const im = u32(p);
    const iM = u32(p + 4);
    const nBits = u32(p + 12);
    if (im >= HUF_ENCSIZE || iM >= HUF_ENCSIZE || im > iM || nBits >= 2 ** 30) return false;
    // The Huf data (code table, then stream) after the words, with 16 zero bytes past the stream for peeks.
    const out = k.OUT.value;
    const hufAt = (out + 2 * nRaw + 15) & ~15;
    const need = hufAt + hufLength + 16 - k.memory.buffer.byteLength;
    if (need > 0) k.memory.grow(Math.ceil(need / 65536));
    const mem = k.memory.buffer;
    new Uint8Array(mem, hufAt, hufLength).set(src.subarray(p, p + hufLength));
    const nPresent = k.table(hufAt + 20, hufLength - 20, im, iM);
    if (nPresent < 0) return false;
    const maxLen = k.tableMaxLen.value;
    const bitsAt = k.tableEnd.value;
    this.count.set(new Float64Array(mem, k.COUNT.value, MAX_CODE_LENGTH + 1));
    this.canonical(maxLen, what);
    const nBytes = Math.ceil(nBits / 8);
    // The kernel's long-code search needs a prefix code.
    if (nBytes > hufAt + hufLength - bitsAt || !prefixFree(this.count, this.first, maxLen)) return false;
    new Uint8Array(mem, bitsAt + nBytes, 16).fill(0);
    if (minNonZero <= maxNonZero) {
      new Uint8Array(mem, k.BITMAP.value + minNonZero, maxNonZero - minNonZero + 1).set(this.bitmap.subarray(minNonZero, maxNonZero + 1));
    }
    const maxValue = k.lut(minNonZero, maxNonZero) - 1;
    new Float64Array(mem, k.FIRST.value, MAX_CODE_LENGTH + 1).set(this.first);
    new Int32Array(mem, k.SSTART.value, MAX_CODE_LENGTH + 2).set(this.sortedStart);
    if (k.huf(nPresent, iM, Math.min(maxLen, KERNEL_FAST_BITS), maxLen, nBits, nRaw, bitsAt) !== 0) return false;
    const ch = channels[only];
    const from = starts[only];
    const w14 = maxValue < 1 << 14 ? 1 : 0;
    for (let j = 0; j < ch.size; j++) k.wav(from + j, ch.nx, ch.size, ch.ny, ch.nx * ch.size, w14);
    k.unlut(from, ch.nx * ch.ny * ch.size);
    this.words.set(new Uint16Array(mem, out, nRaw));
    this.kernelBlocks++;
    return true;
  }

  /** The "Huf" coder: 20-byte header, packed code-length table, then an MSB-first bit stream of nBits bits. */
  private huffmanDecode(src: Uint8Array, offset: number, nCompressed: number, out: Uint16Array, nRaw: number, what: string): void {
    if (nCompressed === 0) {
      if (nRaw !== 0) throw new FormatError(`${what}: PIZ Huffman data is empty, expected ${nRaw} values`);
      return;
    }
    const { iM, nPresent, nBits, maxLen, fb, stream, end } = this.readTable(src, offset, nCompressed, nRaw, what);
    const p = stream;
    const present = this.present;
    const count = this.count;
    const first = this.first;
    const sortedStart = this.sortedStart;
    const fill = sortedStart.slice(0, MAX_CODE_LENGTH + 1);
    const sorted = this.sorted;
    const fastMask = (1 << fb) - 1;
    const fast = this.fast;
    fast.fill(0, 0, 1 << fb);
    for (let i = 0; i < nPresent; i++) {
      const s = present[i] >>> 6;
      const l = present[i] & 63;
      const rank = fill[l]++;
      sorted[rank] = s;
      if (l <= fb) {
        const c = first[l] + (rank - sortedStart[l]);
        const base = c * (1 << (fb - l));
        const n = 1 << (fb - l);
        const entry = (s << 6) | l;
        for (let i = 0; i < n; i++) {
          if (fast[base + i] !== 0) throw new FormatError(`${what}: PIZ Huffman table is not a prefix code (symbol ${s})`);
          fast[base + i] = entry;
        }
      }
    }
    // The bit stream, copied with 8 zero bytes of padding so peeks (≤ 24 bits, or maxLen bits) never leave it.
    const nBytes = Math.ceil(nBits / 8);
    if (nBytes > end - p) throw new FormatError(`${what}: PIZ Huffman stream of ${nBits} bits, only ${end - p} bytes present`);
    if (this.bits.length < nBytes + 8) this.bits = new Uint8Array(nBytes + 8);
    const bits = this.bits;
    bits.set(src.subarray(p, p + nBytes));
    bits.fill(0, nBytes, nBytes + 8);

    // MSB-first bit accumulator: `acc` holds `accBits` unread bits in its low end (≤ 25 bits, so 32-bit ints do).
    const rlc = iM;
    let o = 0;
    let bp = 0;
    let acc = 0;
    let accBits = 0;
    for (;;) {
      const pos = bp * 8 - accBits;
      if (pos >= nBits) break;
      while (accBits < fb) {
        acc = (acc << 8) | bits[bp++];
        accBits += 8;
      }
      const window = (acc >>> (accBits - fb)) & fastMask;
      const e = fast[window];
      let sym: number;
      let len: number;
      if (e !== 0) {
        sym = e >>> 6;
        len = e & 63;
        if (pos + len > nBits) throw new FormatError(`${what}: PIZ Huffman code at bit ${pos} runs past the stream's ${nBits} bits`);
        accBits -= len;
      } else {
        // Long code: extend bit by bit beyond fb until a length's range holds the value, then resync.
        let v = window;
        len = fb;
        sym = -1;
        while (len < maxLen) {
          const q = pos + len;
          v = v * 2 + ((bits[q >>> 3] >>> (7 - (q & 7))) & 1);
          len++;
          if (count[len] > 0 && v >= first[len] && v - first[len] < count[len]) {
            sym = sorted[sortedStart[len] + (v - first[len])];
            break;
          }
        }
        if (sym < 0) throw new FormatError(`${what}: PIZ Huffman stream has an invalid code at bit ${pos}`);
        if (pos + len > nBits) throw new FormatError(`${what}: PIZ Huffman code at bit ${pos} runs past the stream's ${nBits} bits`);
        const next = pos + len;
        bp = next >>> 3;
        acc = 0;
        accBits = 0;
        if ((next & 7) !== 0) {
          acc = bits[bp++];
          accBits = 8 - (next & 7);
        }
      }
      if (sym === rlc) {
        if (pos + len + 8 > nBits) throw new FormatError(`${what}: PIZ Huffman run length at bit ${pos + len} runs past the stream's ${nBits} bits`);
        while (accBits < 8) {
          acc = (acc << 8) | bits[bp++];
          accBits += 8;
        }
        accBits -= 8;
        const run = (acc >>> accBits) & 0xff;
        if (o === 0) throw new FormatError(`${what}: PIZ Huffman stream starts with a run (nothing to repeat)`);
        if (o + run > nRaw) throw new FormatError(`${what}: PIZ Huffman stream decodes past the ${nRaw} values expected`);
        const prev = out[o - 1];
        for (let k = 0; k < run; k++) out[o++] = prev;
      } else {
        if (o >= nRaw) throw new FormatError(`${what}: PIZ Huffman stream decodes past the ${nRaw} values expected`);
        out[o++] = sym;
      }
    }
    if (o !== nRaw) throw new FormatError(`${what}: PIZ Huffman stream decodes ${o} values, expected ${nRaw}`);
  }

  /**
   * The Huf header and code-length table at `offset` (checked), with the canonical code of each length: fills
   * lengths, count, first and sortedStart; returns the symbol range, the stream's bit count and where it starts.
   */
  private readTable(src: Uint8Array, offset: number, nCompressed: number, nRaw: number, what: string): HufTable {
    if (nCompressed < 20) throw new FormatError(`${what}: PIZ Huffman data of ${nCompressed} bytes, shorter than its 20-byte header`);
    const u32 = (o: number): number => (src[o] | (src[o + 1] << 8) | (src[o + 2] << 16) | (src[o + 3] << 24)) >>> 0;
    const im = u32(offset);
    const iM = u32(offset + 4);
    const nBits = u32(offset + 12);
    if (im >= HUF_ENCSIZE || iM >= HUF_ENCSIZE || im > iM) {
      throw new FormatError(`${what}: PIZ Huffman symbol range ${im}..${iM}, expected within 0..${HUF_ENCSIZE - 1}`);
    }
    const end = offset + nCompressed;
    let p = offset + 20;

    // Code-length table: 6 bits per symbol; 59..62 encode short runs of zero lengths, 63 + 8 bits a long run. The
    // symbols with a code are listed and counted by length as they are read ([R] a table spans up to 65,537 symbols,
    // mostly zero runs, even for a 64×64 tile).
    const present = this.present;
    const count = this.count;
    count.fill(0);
    let nPresent = 0;
    let maxLen = 0;
    // (Bits read inline, MSB first: a closure here would cost more than the table.)
    let tAcc = 0;
    let tBits = 0;
    for (let s = im; s <= iM; s++) {
      if (tBits < 6) {
        if (p >= end) throw new FormatError(`${what}: PIZ Huffman code table runs past its ${nCompressed} bytes`);
        tAcc = ((tAcc << 8) | src[p++]) & 0xffff;
        tBits += 8;
      }
      tBits -= 6;
      const l = (tAcc >>> tBits) & 63;
      if (l >= SHORT_ZEROCODE_RUN) {
        let run = l - SHORT_ZEROCODE_RUN + 2;
        if (l === LONG_ZEROCODE_RUN) {
          if (tBits < 8) {
            if (p >= end) throw new FormatError(`${what}: PIZ Huffman code table runs past its ${nCompressed} bytes`);
            tAcc = ((tAcc << 8) | src[p++]) & 0xffff;
            tBits += 8;
          }
          tBits -= 8;
          run = ((tAcc >>> tBits) & 0xff) + SHORTEST_LONG_RUN;
        }
        if (s + run > iM + 1) throw new FormatError(`${what}: PIZ Huffman zero run of ${run} passes symbol ${iM}`);
        s += run - 1;
      } else if (l !== 0) {
        present[nPresent++] = (s << 6) | l;
        count[l]++;
        if (l > maxLen) maxLen = l;
      }
    }

    this.canonical(maxLen, what);
    const fb = Math.max(1, Math.min(maxLen, Math.max(MIN_FAST_BITS, Math.min(MAX_FAST_BITS, Math.ceil(Math.log2(nRaw + 1)) - 1))));
    return { iM, nPresent, nBits, maxLen, fb, stream: p, end };
  }

  /**
   * Canonical codes from the count per length: lengths from longest to shortest take consecutive values; within a
   * length, ascending symbol. Fills first and sortedStart.
   */
  private canonical(maxLen: number, what: string): void {
    const count = this.count;
    const first = this.first;
    if (maxLen > MAX_SUPPORTED_LENGTH) throw new FormatError(`${what}: PIZ Huffman code of ${maxLen} bits, longer than ${MAX_SUPPORTED_LENGTH} bits`);
    let code = 0;
    for (let l = MAX_CODE_LENGTH; l > 0; l--) {
      const next = Math.floor((code + count[l]) / 2);
      first[l] = code;
      if (code + count[l] > 2 ** l) throw new FormatError(`${what}: PIZ Huffman table has more ${l}-bit codes than fit in ${l} bits`);
      code = next;
    }
    const sortedStart = this.sortedStart;
    sortedStart[0] = 0;
    for (let l = 1; l <= MAX_CODE_LENGTH + 1; l++) sortedStart[l] = sortedStart[l - 1] + (l - 1 === 0 ? 0 : count[l - 1]);
  }
}

/**
 * Whether the canonical code (first and count per length) is a prefix code: the next free code is halved on the way
 * from each length to the next shorter one, and an odd one makes the first shorter code in use a prefix of the last
 * longer one (a complete Huffman code never has one).
 */
function prefixFree(count: Float64Array, first: Float64Array, maxLen: number): boolean {
  let shorter = false;
  for (let l = 1; l <= maxLen; l++) {
    if (shorter && (first[l] + count[l]) % 2 === 1) return false;
    if (count[l] > 0) shorter = true;
  }
  return true;
}

/**
 * Inverse of the PIZ wavelet over an nx × ny array of 16-bit words starting at `base`, with strides ox (x) and oy
 * (y). Levels go from the coarsest to the finest; odd edges are handled as 1-D pairs. `maxValue` < 2^14 selects the
 * 14-bit lifting (signed arithmetic), otherwise the 16-bit modular variant.
 */
function wavelet2Decode(buf: Uint16Array, base: number, nx: number, ox: number, ny: number, oy: number, maxValue: number): void {
  const w14 = maxValue < 1 << 14;
  const n = nx > ny ? ny : nx;
  let p = 1;
  while (p <= n) p <<= 1;
  p >>= 1;
  let p2 = p;
  p >>= 1;
  while (p >= 1) {
    const ey = base + oy * (ny - p2);
    const oy1 = oy * p;
    const oy2 = oy * p2;
    const ox1 = ox * p;
    const ox2 = ox * p2;
    let py = base;
    for (; py <= ey; py += oy2) {
      const ex = py + ox * (nx - p2);
      let px = py;
      for (; px <= ex; px += ox2) {
        const p01 = px + ox1;
        const p10 = px + oy1;
        const p11 = p10 + ox1;
        if (w14) {
          // Columns first (rows px/p10 and p01/p11), then rows of the results.
          const h0 = (buf[p10] << 16) >> 16;
          const a0 = ((buf[px] << 16) >> 16) + (h0 & 1) + (h0 >> 1);
          const b0 = a0 - h0;
          const h1 = (buf[p11] << 16) >> 16;
          const a1 = ((buf[p01] << 16) >> 16) + (h1 & 1) + (h1 >> 1);
          const b1 = a1 - h1;
          const ha = (a1 << 16) >> 16;
          const aa = ((a0 << 16) >> 16) + (ha & 1) + (ha >> 1);
          buf[px] = aa;
          buf[p01] = aa - ha;
          const hb = (b1 << 16) >> 16;
          const ab = ((b0 << 16) >> 16) + (hb & 1) + (hb >> 1);
          buf[p10] = ab;
          buf[p11] = ab - hb;
        } else {
          let m = buf[px];
          let d = buf[p10];
          const b0 = (m - (d >> 1)) & 0xffff;
          const a0 = (d + b0 - 0x8000) & 0xffff;
          m = buf[p01];
          d = buf[p11];
          const b1 = (m - (d >> 1)) & 0xffff;
          const a1 = (d + b1 - 0x8000) & 0xffff;
          const bb0 = (a0 - (a1 >> 1)) & 0xffff;
          buf[px] = (a1 + bb0 - 0x8000) & 0xffff;
          buf[p01] = bb0;
          const bb1 = (b0 - (b1 >> 1)) & 0xffff;
          buf[p10] = (b1 + bb1 - 0x8000) & 0xffff;
          buf[p11] = bb1;
        }
      }
      if ((nx & p) !== 0) {
        const p10 = px + oy1;
        decodePair(buf, px, p10, w14);
      }
    }
    if ((ny & p) !== 0) {
      const ex = py + ox * (nx - p2);
      for (let px = py; px <= ex; px += ox2) decodePair(buf, px, px + ox1, w14);
    }
    p2 = p;
    p >>= 1;
  }
}

/** One inverse lifting step on the pair (buf[i], buf[j]) = (low, high) → (a, b). */
function decodePair(buf: Uint16Array, i: number, j: number, w14: boolean): void {
  if (w14) {
    const h = (buf[j] << 16) >> 16;
    const a = ((buf[i] << 16) >> 16) + (h & 1) + (h >> 1);
    buf[i] = a;
    buf[j] = a - h;
  } else {
    const m = buf[i];
    const d = buf[j];
    const b = (m - (d >> 1)) & 0xffff;
    buf[i] = (d + b - 0x8000) & 0xffff;
    buf[j] = b;
  }
}
