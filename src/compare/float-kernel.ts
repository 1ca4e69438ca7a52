/**
 * The float-pair summary scan in WebAssembly (wasm/float-pair.wat): what compare.ts scanFloatPairs does for a summary
 * (CompareOptions.summary) of two float32 fields without attribution — the stage table of `check`, eight 4096² pairs
 * per check, where the JavaScript scan dominates a one-shot process (docs/speed.md).
 *
 * Inputs: both sides' heights (float32) and codes (encoded through the shared range), the grid, the block size, the
 * radial geometry and the summary's mask bounds. Outputs: written into the caller's accumulators — the whole map and
 * each mask (code tally, Neumaier sums, maxima) and the block map — and the non-finite exclusions, returned.
 * Bit for bit the JavaScript scan's (test/compare-kernel.test.ts): the same float64 operations in the same pixel
 * order; pixels with |Δq| > 64 come back to JavaScript for the sparse bins (CodeTally.add), after their chunk.
 * floatFullScan does the same for a full comparison (rings, the float block maps; a side may hold codes, read in
 * metres through the decode table), and tallies |Δq| > 64 itself: two unrelated fields differ by that much at nearly
 * every pixel, which handed back to JavaScript would cost what the kernel saves. A ring's wide Δq are kept as exact
 * sums (RegionAccumulator.wideSums), not bins: a ring states no histogram, and a bin array per ring is what the
 * scan's time went to.
 * [R] Chunks of SCAN_CHUNK pixels are copied into the kernel's memory (12 bytes a pixel), so its memory stays ~4 MB
 *     whatever the grid; the copy is ~1/10 of the scan's time.
 */
import { decodeTable, encodeFieldR16, rangeConstants } from '../core/encoding.js';
import { ENCODE_SHARED_WASM_BASE64 } from '../core/wasm/encode-shared-wasm.js';
import { alignedLayout, compiledWasm, instantiateWasm, newSharedWasmMemory, wasmDisabled } from '../core/wasm.js';
import { CodeTally, DENSE, DENSE_BINS, WideBins, type RegionAccumulator } from './metric-accumulators.js';
import { regionInputSizes, SCAN_CHUNK, tallyInMemory, tallySizes, writeRegionInputs, type ScanGeometry } from './kernel.js';
import { regionPasses, REGION_ARGS, SLOTS } from './float-thread.js';
import { maskContainsBounds, maskRowSpans } from './masks.js';
import { FLOAT_PAIR_WASM_BASE64 } from './wasm/float-pair-wasm.js';

export interface FloatSummaryInput extends ScanGeometry {
  gh: Float32Array;
  rh: Float32Array;
  gc: Uint16Array;
  rc: Uint16Array;
}

export interface FloatSummaryOutput {
  whole: RegionAccumulator;
  maskAcc: readonly RegionAccumulator[];
  blockCode: Uint16Array;
}

export interface FloatSummaryExclusions {
  generated: number;
  reference: number;
  pixels: number[];
}

interface FloatPairExports {
  scan(...args: number[]): void;
  full(...args: number[]): void;
  prepare(...args: number[]): void;
  regions(...args: number[]): void;
  region(...args: number[]): void;
}

/** Whether the kernel can run here (WebAssembly SIMD available and not turned off). */
export function floatSummaryAvailable(): boolean {
  return !wasmDisabled() && compiledWasm(FLOAT_PAIR_WASM_BASE64) !== null;
}

/** Bytes of one chunk's slots in both float kernels: each side's heights and codes, and the excluded pixels. */
const CHUNK_SLOTS = { gh: 4 * SCAN_CHUNK, rh: 4 * SCAN_CHUNK, gc: 2 * SCAN_CHUNK, rc: 2 * SCAN_CHUNK, excl: 4 * SCAN_CHUNK };

/**
 * Gives region q's float state from a kernel's accumulator block (7 float64 a region: the two compensated sums in
 * `order`, then the largest |Δm|, its signed value and its pixel) to `a`.
 */
function restoreFloats(a: RegionAccumulator, acc: Float64Array, q: number, order: 'sum, c, sumSq, c' | 'sum, sumSq, c, c'): void {
  const o = 7 * q;
  const [sum, sumC, sq, sqC] = order === 'sum, c, sumSq, c' ? [0, 1, 2, 3] : [0, 2, 1, 3];
  a.floatSum.restore(acc[o + sum], acc[o + sumC]);
  a.floatSumSq.restore(acc[o + sq], acc[o + sqC]);
  a.maxAbsM = acc[o + 4];
  a.maxSignedM = acc[o + 5];
  a.maxAbsMAt = acc[o + 6];
}

/**
 * A float-pair kernel instance on a new shared memory of `bytes` (the full scan's helper thread runs on it too), after
 * checking that each entry takes its number of parameters (a stale build would be called with shifted arguments);
 * null when the memory is refused or WebAssembly is unavailable.
 */
function floatPairKernel(bytes: number, entries: Partial<Record<keyof FloatPairExports, number>>) {
  let memory: ReturnType<typeof newSharedWasmMemory>;
  try {
    memory = newSharedWasmMemory(bytes);
  } catch {
    return null;
  }
  const kernel = memory ? instantiateWasm<FloatPairExports>(FLOAT_PAIR_WASM_BASE64, { env: { memory } }) : null;
  if (!memory || !kernel) return null;
  for (const [entry, arity] of Object.entries(entries) as [keyof FloatPairExports, number][])
    if (typeof kernel[entry] !== 'function' || kernel[entry].length !== arity)
      throw new Error(`float-pair.wat: export ${entry} missing or not of ${arity} parameters; run node scripts/build-wasm.mjs`);
  return { memory, kernel };
}

/** Runs the summary scan; null when the kernel is unavailable or its memory is refused (the caller scans in JavaScript). */
export function floatSummaryScan(p: FloatSummaryInput, out: FloatSummaryOutput): FloatSummaryExclusions | null {
  if (!floatSummaryAvailable()) return null;
  const M = p.masks.length;
  const regions = 1 + M;
  const L = alignedLayout({
    ...CHUNK_SLOTS,
    overflow: 4 * SCAN_CHUNK,
    ...regionInputSizes(p.columns, p.rows, M),
    acc: 56 * regions,
    ...tallySizes(regions),
    state: 16,
    block: 2 * p.bw * p.bh,
  });
  const made = floatPairKernel(L.size, { scan: 26 });
  if (!made) return null;
  const { memory, kernel } = made;
  const buf = memory.buffer;
  const f64 = (off: number, n: number) => new Float64Array(buf, off, n);
  writeRegionInputs(buf, L, p.geo, p.masks);
  const tally = tallyInMemory(buf, L, regions);
  const acc = f64(L.acc, 7 * regions);
  for (let q = 0; q < regions; q++) acc[7 * q + 6] = -1; // maxAbsMAt: none yet
  const state = new Int32Array(buf, L.state, 4);
  const slotGh = new Float32Array(buf, L.gh, SCAN_CHUNK);
  const slotRh = new Float32Array(buf, L.rh, SCAN_CHUNK);
  const slotGc = new Uint16Array(buf, L.gc, SCAN_CHUNK);
  const slotRc = new Uint16Array(buf, L.rc, SCAN_CHUNK);
  const excl = new Int32Array(buf, L.excl, SCAN_CHUNK);
  const overflow = new Int32Array(buf, L.overflow, SCAN_CHUNK);
  const pixels: number[] = [];
  const n = p.columns * p.rows;
  const { dx, dy, dx2, dy2 } = p.geo;
  for (let start = 0; start < n; start += SCAN_CHUNK) {
    const count = Math.min(SCAN_CHUNK, n - start);
    slotGh.set(p.gh.subarray(start, start + count));
    slotRh.set(p.rh.subarray(start, start + count));
    slotGc.set(p.gc.subarray(start, start + count));
    slotRc.set(p.rc.subarray(start, start + count));
    kernel.scan(
      L.gh, L.rh, L.gc, L.rc, count, start,
      p.columns, p.block, p.bw, L.block,
      L.dx, L.dx2, L.dy, L.dy2,
      L.maskLo, L.maskHi, L.maskHalf, L.maskStrict, M,
      L.acc, L.dense, L.maxAbs, L.maxAt,
      L.state, L.excl, L.overflow,
    ); // prettier-ignore
    for (let e = 0; e < state[2]; e++) pixels.push(excl[e]);
    // |Δq| > 64: the sparse bins of the whole map and of each mask holding the pixel, in pixel order.
    for (let o = 0; o < state[3]; o++) {
      const k = overflow[o];
      const dq = p.gc[k] - p.rc[k];
      tally.add(0, dq, k);
      const i = k % p.columns;
      const j = (k - i) / p.columns;
      const r2 = dx2[i] + dy2[j];
      for (let m = 0; m < M; m++) if (maskContainsBounds(p.masks[m], r2, dx[i], dy[j])) tally.add(1 + m, dq, k);
    }
    state[2] = 0;
    state[3] = 0;
  }
  const into = (q: number, a: RegionAccumulator) => {
    tally.into(q, a);
    restoreFloats(a, acc, q, 'sum, c, sumSq, c');
  };
  into(0, out.whole);
  out.maskAcc.forEach((a, m) => into(1 + m, a));
  out.blockCode.set(new Uint16Array(buf, L.block, p.bw * p.bh));
  return { generated: state[0], reference: state[1], pixels };
}

export interface FloatFullInput extends ScanGeometry {
  step: number;
  rings: number;
  /** A side's float heights, or null when it holds codes (its metres are decodeTable(range)[code]). */
  gh: Float32Array | null;
  rh: Float32Array | null;
  /**
   * A side's codes; null for a float side whose codes are encodeFieldR16(heights, range) (half-up), which the scan
   * then encodes chunk by chunk in its own memory instead of copying them in.
   */
  gc: Uint16Array | null;
  rc: Uint16Array | null;
  /** floatExtras' decade edges (mm, 10 of them) and tolerance (m). */
  edgesMm: readonly number[];
  toleranceM: number;
  /** The range of the codes (their metres are decoded from it) and the one clampCounts counts float heights outside of. */
  range: { min: number; max: number };
}

/** floatExtras' counts: dm = 0, dm ≠ 0, |dm| beyond the tolerance, and per decade those of each sign. */
export interface FloatExtraCounts {
  equal: number;
  differing: number;
  beyond: number;
  pos: Float64Array;
  neg: Float64Array;
}

/** clampCounts of each side (zero for a side of codes). */
export interface FloatClampCounts {
  generated: { low: number; high: number };
  reference: { low: number; high: number };
}

export interface FloatFullOutput {
  whole: RegionAccumulator;
  maskAcc: readonly RegionAccumulator[];
  ringAcc: readonly RegionAccumulator[];
  blockCode: Uint16Array;
  blockFloat: Float32Array;
  blockFloatAbs: Float64Array;
}

/** Decade edges of the float histogram the kernel counts in (float-pair.wat's extras hold 3 + 2·EDGES counts). */
const EDGES = 10;

/** Bins of one region's wide Δq in the kernel's memory (index dq + 65535). */
const WIDE_BINS = 2 * 65535 + 1;

/** Values a wide Δq (64 < |Δq| ≤ 65535) can take. */
const WIDE_VALUES = 2 * (65535 - 64);

/**
 * [R] Pixels of the full kernel's sub-blocks: each sub-block's per-pixel values (SCRATCH_BYTES a pixel) are written once
 * and read by every region's pass, so they stay in the cache between passes.
 */
const FULL_SUB = 4096;

/** Scratch bytes a pixel of a sub-block: its dq (i32) and dm (f64), float-pair.wat's $prepare writes them. */
const SCRATCH_BYTES = 12;

/** Bytes of a bank of floatExtras' counts: the counts (f64), then $tallyExtras' two banks of i32 decade tallies. */
const EXTRAS_BYTES = 8 * (3 + 2 * EDGES + 4) + 2 * 4 * 2 * EDGES;

/**
 * [R] Passes the helper may be behind before this thread tallies a sub-block's floatExtras itself: while the helper's
 *     region passes keep up with this thread's $prepare (and its whole map's pass, where WHOLE_HERE_WIDE_SHARE puts
 *     it here), the tally goes to the helper; when the helper is the slower thread, the tally stays here. Each
 *     thread's counts are exact integers in a bank of its own, so the result is the same.
 */
const TALLY_BACKLOG = 6;

/**
 * [R] Share of wide Δq (|Δq| > 64) in the first chunk from which this thread passes the whole map itself while the
 *     helper passes the masks and the rings; below it the helper passes all three. A wide Δq costs each region a
 *     wide bin at a far address: unrelated fields (wide nearly everywhere) finish sooner with the whole map here,
 *     close reconstructions with it on the helper (measured, docs/speed.md).
 */
const WHOLE_HERE_WIDE_SHARE = 0.25;

/**
 * Where the float full scan runs its two movable parts: the floatExtras tally (`balance`: by the helper's backlog,
 * TALLY_BACKLOG) and the whole map's pass (`share`: by the first chunk's wide Δq, WHOLE_HERE_WIDE_SHARE); tests force
 * each onto this thread (`caller`) or the helper.
 */
export interface FloatPlacement {
  tally: 'balance' | 'caller' | 'helper';
  whole: 'share' | 'caller' | 'helper';
}
let placement: FloatPlacement = { tally: 'balance', whole: 'share' };

/** Sets where floatFullScan runs its movable parts (tests: the result must not depend on it); returns the previous placement. */
export function setFloatPlacement(p: Partial<FloatPlacement>): FloatPlacement {
  const was = placement;
  placement = { ...placement, ...p };
  return was;
}

interface ChunkEncoder {
  encode(src: number, dst: number, count: number, fmin: number, fscale: number, counts: number, rounding: number): void;
}

/**
 * encodeFieldR16(heights, codes, range) for one chunk in the kernel's memory: the heights at byte `src`, the codes to
 * byte `dst`. Eight heights a kernel step (encode.wat, the kernel encodeFieldR16 runs), the rest as encodeFieldR16
 * does them, so the codes are the same.
 */
function encodeChunk(
  k: ChunkEncoder,
  buf: ArrayBufferLike,
  src: number,
  dst: number,
  count: number,
  range: { min: number; max: number },
  counts: number,
): void {
  const { fmin, fscale } = rangeConstants(range);
  const vec = count & ~7;
  if (vec > 0) k.encode(src, dst, vec, fmin, fscale, counts, 0);
  if (vec < count) encodeFieldR16(new Float32Array(buf, src + 4 * vec, count - vec), new Uint16Array(buf, dst + 2 * vec, count - vec), range);
}

/** Whether this thread passes the whole map: as placed, or by the share of wide Δq in the first chunk. */
export function wholeMapHere(gc: Uint16Array, rc: Uint16Array, where: FloatPlacement['whole']): boolean {
  if (where !== 'share') return where === 'caller';
  const n = Math.min(gc.length, SCAN_CHUNK);
  let wide = 0;
  for (let k = 0; k < n; k++) if (Math.abs(gc[k] - rc[k]) > DENSE) wide++;
  return wide > WHOLE_HERE_WIDE_SHARE * n;
}

/**
 * Runs the full scan (addDifference of compare.ts on every pixel); null when the kernel is unavailable or its memory
 * is refused, and then nothing in `out` has been touched (the caller scans in JavaScript).
 */
export function floatFullScan(
  p: FloatFullInput,
  out: FloatFullOutput,
): (FloatSummaryExclusions & { extras: FloatExtraCounts; clamped: FloatClampCounts }) | null {
  if (!floatSummaryAvailable()) return null;
  if (p.edgesMm.length !== EDGES) throw new RangeError(`floatFullScan: ${EDGES} histogram edges expected, got ${p.edgesMm.length}`);
  // The kernel finds a difference's decade by counting the edges it exceeds, which is the last one only in order.
  for (let e = 1; e < EDGES; e++)
    if (!(p.edgesMm[e] >= p.edgesMm[e - 1]))
      throw new RangeError(`floatFullScan: histogram edges must be non-decreasing, got ${p.edgesMm[e - 1]} then ${p.edgesMm[e]} at ${e}`);
  const M = p.masks.length;
  const regions = 1 + M + p.rings;
  const table = decodeTable(p.range);
  const blocks = p.bw * p.bh;
  const L = alignedLayout({
    ...CHUNK_SLOTS,
    // Every mask may see every wide Δq first (once in the scan), and at most once a pixel: the events of the whole
    // scan are read at its end, so no chunk waits for the helper's last passes.
    events: 8 * M * Math.min(p.columns * p.rows, WIDE_VALUES),
    // The whole map's events, a list of their own: whichever thread passes it, each list stays in pixel order.
    events0: 8 * Math.min(p.columns * p.rows, WIDE_VALUES),
    table: 8 * table.length,
    // The decode table's span (max - min) and min: four pixels of codes at once are decoded from them.
    decode: 16,
    ...regionInputSizes(p.columns, p.rows, M),
    acc: 56 * regions,
    ...tallySizes(regions),
    widePtr: 4 * regions,
    ringSums: 24 * p.rings,
    state: 32,
    edges: 8 * EDGES,
    // This thread's floatExtras and the helper's, added at the end.
    extras: EXTRAS_BYTES,
    extrasHelper: EXTRAS_BYTES,
    block: 2 * blocks,
    blockF: 4 * blocks,
    blockFA: 8 * blocks,
    // encode.wat's clamp and NaN counters for a chunk encoded here (its counts are not reported: clampCounts are).
    encodeCounts: 16,
    // Slots: the helper thread's region passes read some while this thread prepares another.
    scratch: SLOTS * SCRATCH_BYTES * FULL_SUB,
    spans: 16 * M * p.rows,
  });
  if ((!p.gc && !p.gh) || (!p.rc && !p.rh)) throw new RangeError('floatFullScan: a side without codes must hold heights to encode them from');
  const made = floatPairKernel(L.size, { full: 45, prepare: 27, regions: REGION_ARGS, region: 16 });
  if (!made) return null;
  const { memory, kernel } = made;
  // A side given as heights only is encoded in this memory, chunk by chunk (the same kernel as encodeFieldR16's).
  const encoder = !p.gc || !p.rc ? instantiateWasm<ChunkEncoder>(ENCODE_SHARED_WASM_BASE64, { env: { memory } }) : null;
  if ((!p.gc || !p.rc) && !encoder) return null;
  // Views are made again after each call: a region's first wide Δq grows the memory, which detaches them.
  let buf = memory.buffer;
  writeRegionInputs(buf, L, p.geo, p.masks);
  new Float64Array(buf, L.table, table.length).set(table);
  new Float64Array(buf, L.decode, 2).set([p.range.max - p.range.min, p.range.min]);
  new Float64Array(buf, L.edges, EDGES).set(p.edgesMm);
  new Int32Array(buf, L.spans, 4 * M * p.rows).set(maskRowSpans(p.geo, p.masks));
  const acc = new Float64Array(buf, L.acc, 7 * regions);
  for (let q = 0; q < regions; q++) acc[7 * q + 6] = -1; // maxAbsMAt: none yet
  new Int32Array(buf, L.maxAt, regions).fill(-1);
  const orders: number[][] = Array.from({ length: regions }, () => []);
  const pixels: number[] = [];
  const n = p.columns * p.rows;
  const { gh, rh } = p;
  const passes = regionPasses(kernel.regions, memory, compiledWasm(FLOAT_PAIR_WASM_BASE64) ?? {}, n);
  // Decided when the helper joins (a scan it never joins passes every region itself).
  let wholeHere: boolean | null = null;
  let firstChunkHere = false;
  for (let start = 0; start < n; start += SCAN_CHUNK) {
    const count = Math.min(SCAN_CHUNK, n - start);
    buf = memory.buffer;
    if (gh) new Float32Array(buf, L.gh, count).set(gh.subarray(start, start + count));
    if (rh) new Float32Array(buf, L.rh, count).set(rh.subarray(start, start + count));
    if (p.gc) new Uint16Array(buf, L.gc, count).set(p.gc.subarray(start, start + count));
    else encodeChunk(encoder!, buf, L.gh, L.gc, count, p.range, L.encodeCounts);
    if (p.rc) new Uint16Array(buf, L.rc, count).set(p.rc.subarray(start, start + count));
    else encodeChunk(encoder!, buf, L.rh, L.rc, count, p.range, L.encodeCounts);
    // The whole map's placement comes from the first chunk's codes, used when the helper joins.
    if (start === 0) firstChunkHere = wholeMapHere(new Uint16Array(buf, L.gc, count), new Uint16Array(buf, L.rc, count), placement.whole);
    try {
      if (passes.begin()) {
        wholeHere ??= firstChunkHere;
        // Sub-block after sub-block as kernel.full runs them, the region passes handed to the helper thread (the
        // whole map's kept here where wholeHere).
        for (let t0 = 0; t0 < count; t0 += FULL_SUB) {
          const sub = Math.min(FULL_SUB, count - t0);
          passes.free();
          const scratch = L.scratch + passes.slot() * SCRATCH_BYTES * FULL_SUB;
          const here = placement.tally === 'caller' || (placement.tally === 'balance' && passes.backlog() >= TALLY_BACKLOG) ? 1 : 0;
          kernel.prepare(
            L.gh, L.rh, L.gc, L.rc, t0, sub, start,
            gh ? 1 : 0, rh ? 1 : 0, L.table,
            p.columns, p.block, p.bw, L.block, L.blockF, L.blockFA,
            L.state, L.excl, L.edges, p.toleranceM, L.extras, p.range.min, p.range.max,
            scratch, FULL_SUB, here, L.decode,
          ); // prettier-ignore
          if (wholeHere)
            kernel.region(
              0, -1, M, sub, start + t0, p.columns, L.spans,
              L.acc, L.dense, L.maxAbs, L.maxAt, L.widePtr, L.events0, L.state + 20, scratch, FULL_SUB,
            ); // prettier-ignore
          passes.post([
            sub, start + t0, M, p.columns, L.spans,
            L.acc, L.dense, L.maxAbs, L.maxAt, L.widePtr, L.events,
            L.ringSums, L.state, scratch, FULL_SUB,
            L.dx2, L.dy2, p.step, p.rings,
            1 - here, L.extrasHelper, L.edges, p.toleranceM, wholeHere ? 0 : -1, L.events0,
          ]); // prettier-ignore
        }
      } else
        kernel.full(
          L.gh, L.rh, L.gc, L.rc, count, start,
          gh ? 1 : 0, rh ? 1 : 0, L.table,
          p.columns, p.block, p.bw, L.block, L.blockF, L.blockFA,
          L.dx, L.dx2, L.dy, L.dy2,
          L.maskLo, L.maskHi, L.maskHalf, L.maskStrict, M,
          p.step, p.rings,
          L.acc, L.dense, L.maxAbs, L.maxAt, L.widePtr, L.events,
          L.ringSums, L.state, L.excl, L.edges, p.toleranceM, L.extras, p.range.min, p.range.max,
          L.scratch, FULL_SUB, L.spans, L.decode, L.events0,
        ); // prettier-ignore
    } catch {
      // Memory for a region's wide bins refused (or a ring outside the profile, which the JavaScript scan reports).
      // No pass of this scan may be left running on the helper.
      try {
        passes.drain();
      } catch {
        // the failure already being reported
      }
      return null;
    }
    buf = memory.buffer;
    const state = new Int32Array(buf, L.state, 8);
    const excl = new Int32Array(buf, L.excl, state[2]);
    for (let e = 0; e < state[2]; e++) pixels.push(excl[e]);
    state[2] = 0;
  }
  try {
    passes.drain();
  } catch {
    return null;
  }
  buf = memory.buffer;
  const state = new Int32Array(buf, L.state, 8);
  const events = new Int32Array(buf, L.events, 2 * state[4]);
  for (let e = 0; e < state[4]; e++) orders[events[2 * e]].push(events[2 * e + 1]);
  const events0 = new Int32Array(buf, L.events0, 2 * state[5]);
  for (let e = 0; e < state[5]; e++) orders[0].push(events0[2 * e + 1]);
  const tally = new CodeTally(regions);
  tally.dense.set(new Float64Array(buf, L.dense, DENSE_BINS * regions));
  tally.maxAbs.set(new Int32Array(buf, L.maxAbs, regions));
  tally.maxAt.set(new Int32Array(buf, L.maxAt, regions));
  const accs = new Float64Array(buf, L.acc, 7 * regions);
  const widePtr = new Int32Array(buf, L.widePtr, regions);
  const into = (q: number, a: RegionAccumulator) => {
    tally.into(q, a);
    a.sparse = orders[q].length ? WideBins.fromCounts(orders[q], new Uint32Array(buf, widePtr[q], WIDE_BINS)) : null;
    // The full kernel keeps sum and sumSq side by side (one f64x2 step for both), then their compensations.
    restoreFloats(a, accs, q, 'sum, sumSq, c, c');
  };
  into(0, out.whole);
  out.maskAcc.forEach((a, m) => into(1 + m, a));
  const ringSums = new BigInt64Array(buf, L.ringSums, 3 * p.rings);
  out.ringAcc.forEach((a, r) => {
    into(1 + M + r, a);
    const count = Number(ringSums[3 * r]);
    // Σdq² is read unsigned: it fits 64 bits for any grid whose pixel index fits 32.
    if (count) a.wideSums = { count, sum: ringSums[3 * r + 1], sumSq: BigInt.asUintN(64, ringSums[3 * r + 2]) };
  });
  out.blockCode.set(new Uint16Array(buf, L.block, blocks));
  out.blockFloat.set(new Float32Array(buf, L.blockF, blocks));
  out.blockFloatAbs.set(new Float64Array(buf, L.blockFA, blocks));
  const x = new Float64Array(buf, L.extras, 3 + 2 * EDGES + 4);
  const xHelper = new Float64Array(buf, L.extrasHelper, 3 + 2 * EDGES);
  for (let c = 0; c < xHelper.length; c++) x[c] += xHelper[c];
  const extras = { equal: x[0], differing: x[1], beyond: x[2], pos: x.slice(3, 3 + EDGES), neg: x.slice(3 + EDGES, 3 + 2 * EDGES) };
  const c = 3 + 2 * EDGES;
  const clamped = { generated: { low: x[c], high: x[c + 1] }, reference: { low: x[c + 2], high: x[c + 3] } };
  return { generated: state[0], reference: state[1], pixels, extras, clamped };
}
