/**
 * The comparison's executors for code pairs: the difference scan with its tally, and the ring pixel counts.
 *
 * Inputs: chunks of both sides' codes, written by a CodeSource into the executor's two slots (SCAN_CHUNK pixels
 * each), and a TallyPlan (grid shape, block size, radial geometry, mask bounds, ring width).
 * Outputs: a CodeTally over the regions (0 the whole map, 1…M the masks, then the rings), the block-maximum map,
 * the ring and mask pixel counts — what addCode, ringPixelCounts and maskPixelCount give, bit for bit (test/compare-kernel.test.ts).
 * 'simd' runs compare.wat on a memory of its own (a one-shot `heightbench compare` never warms V8's optimizing tiers,
 * where a kernel is compiled before it runs); 'js' runs the same steps in JavaScript, the reference.
 * [R] The caller names the executor (CompareOptions.executor); the default is 'simd' unless WebAssembly is
 *     unavailable, HEIGHTBENCH_NO_WASM=1, or the plan's buffers would exceed MAX_KERNEL_BYTES.
 */
import { alignedLayout, compiledWasm, newWasmMemory, wasmDisabled } from '../core/wasm.js';
import { CodeTally, DENSE_BINS } from './metric-accumulators.js';
import {
  maskContainsBounds,
  maskCountTerms,
  maskPixelCount,
  ringCountsFromBelow,
  ringEdges2,
  ringIndex,
  ringPixelCounts,
  rowCountPlan,
  type MaskBounds,
  type MaskDefinition,
  type RadialGeometry,
} from './masks.js';
import { COMPARE_WASM_BASE64 } from './wasm/compare-wasm.js';

export type CompareExecutor = 'simd' | 'js';
export const COMPARE_EXECUTORS: readonly CompareExecutor[] = ['simd', 'js'];

/** [R] Pixels per chunk: 64 Ki codes = 128 KiB a side, so both slots and the index list stay in a core's L2. */
export const SCAN_CHUNK = 65536;

/** Byte offsets, in a kernel's memory, of the radial geometry and the mask bounds both WebAssembly kernels read. */
interface RegionInputOffsets {
  dx: number;
  dx2: number;
  dy: number;
  dy2: number;
  maskLo: number;
  maskHi: number;
  maskHalf: number;
  maskStrict: number;
}

/** Bytes of the radial geometry (a columns × rows grid) and of M masks' bounds, in writeRegionInputs' fields. */
export function regionInputSizes(columns: number, rows: number, M: number): Record<keyof RegionInputOffsets, number> {
  return {
    dx: 8 * columns,
    dx2: 8 * columns,
    dy: 8 * rows,
    dy2: 8 * rows,
    maskLo: 8 * M,
    maskHi: 8 * M,
    maskHalf: 8 * M,
    maskStrict: 8 * M,
  };
}

/** Bytes of a tally of `regions` in tallyInMemory's fields. */
export function tallySizes(regions: number): { dense: number; maxAbs: number; maxAt: number } {
  return { dense: 8 * DENSE_BINS * regions, maxAbs: 4 * regions, maxAt: 4 * regions };
}

/** Copies the radial geometry and each mask's bounds into a kernel's memory (compare.wat and float-pair.wat). */
export function writeRegionInputs(buf: ArrayBufferLike, L: RegionInputOffsets, geo: RadialGeometry, masks: readonly MaskBounds[]): void {
  const f64 = (at: number, n: number): Float64Array => new Float64Array(buf, at, n);
  f64(L.dx, geo.dx.length).set(geo.dx);
  f64(L.dx2, geo.dx2.length).set(geo.dx2);
  f64(L.dy, geo.dy.length).set(geo.dy);
  f64(L.dy2, geo.dy2.length).set(geo.dy2);
  const M = masks.length;
  f64(L.maskLo, M).set(masks.map((m) => m.lo));
  f64(L.maskHi, M).set(masks.map((m) => m.hi));
  f64(L.maskHalf, M).set(masks.map((m) => m.half));
  f64(L.maskStrict, M).set(masks.map((m) => (m.loStrict ? 1 : 0)));
}

/** A CodeTally of `regions` whose dense bins and maxima live in a kernel's memory (the kernel adds into them). */
export function tallyInMemory(buf: ArrayBufferLike, L: { dense: number; maxAbs: number; maxAt: number }, regions: number): CodeTally {
  return new CodeTally(regions, {
    dense: new Float64Array(buf, L.dense, DENSE_BINS * regions),
    maxAbs: new Int32Array(buf, L.maxAbs, regions),
    maxAt: new Int32Array(buf, L.maxAt, regions),
  });
}

/** [R] Most bytes the SIMD executor's memory may take (a block map of 1-pixel blocks is 2 bytes a pixel). */
export const MAX_KERNEL_BYTES = 1 << 30;

/** One side of a code comparison, read a chunk at a time. */
export interface CodeSource {
  /** Writes codes [start, start + count) into slot[0, count) (native order). Called with ascending, adjacent chunks. */
  fill(slot: Uint16Array, start: number, count: number): void;
}

/** A code source over an array in memory. */
export function arrayCodeSource(code_px: Uint16Array): CodeSource {
  return { fill: (slot, start, count) => slot.set(code_px.subarray(start, start + count)) };
}

/** What every comparison kernel reads of the grid, the block map and the regions' geometry. */
export interface ScanGeometry {
  columns: number;
  rows: number;
  /** Block size, and blocks per row and per column of the block map. */
  block: number;
  bw: number;
  bh: number;
  geo: RadialGeometry;
  masks: readonly MaskBounds[];
}

export interface TallyPlan extends ScanGeometry {
  /** The masks' definitions (masks holds the bounds of each). */
  maskDefs: readonly MaskDefinition[];
  step: number;
  rings: number;
}

/** Called for each differing pixel k (ascending) with its generated and reference codes. */
export type DifferenceVisitor = (k: number, gq: number, rq: number) => void;

export interface CodePairExecutor {
  readonly executor: CompareExecutor;
  /** The slots a source fills before tallyChunk. */
  readonly slotG: Uint16Array;
  readonly slotR: Uint16Array;
  /** Tallies pixels [start, start + count) held in the slots (count ≤ SCAN_CHUNK). */
  tallyChunk(start: number, count: number, visit: DifferenceVisitor | null): void;
  /**
   * The tally and block map after the last chunk (the block map is the caller's to keep: the executor takes no chunk
   * after this).
   */
  result(): { tally: CodeTally; blockCode: Uint16Array };
  /** Pixel counts of each ring and each mask (plan.maskDefs) from geometry. */
  geometryCounts(): { rings: Float64Array; masks: number[] };
}

/** Bytes the SIMD executor's memory needs for `plan` (checked before anything is allocated). */
export function kernelBytes(plan: TallyPlan): number {
  return layoutFor(plan, plan.rows).size;
}

/** The executor used when the caller names none. */
export function defaultCompareExecutor(plan: TallyPlan): CompareExecutor {
  if (wasmDisabled() || compiledWasm(COMPARE_WASM_BASE64) === null) return 'js';
  return kernelBytes(plan) <= MAX_KERNEL_BYTES ? 'simd' : 'js';
}

/** The SIMD executor's memory could not be had (the system refused the allocation). */
class KernelMemoryError extends RangeError {}

/**
 * The executor named, or the default one. [R] A default SIMD executor whose memory the system refuses gives way to
 * the JavaScript one, which needs less; a named one reports the failure.
 */
export function createCodePairExecutor(plan: TallyPlan, executor?: CompareExecutor): CodePairExecutor {
  const chosen = executor ?? defaultCompareExecutor(plan);
  if (!COMPARE_EXECUTORS.includes(chosen))
    throw new RangeError(`compare executor: expected one of ${COMPARE_EXECUTORS.join(', ')}, got ${JSON.stringify(chosen)}`);
  if (chosen === 'js') return jsExecutor(plan);
  try {
    return simdExecutor(plan);
  } catch (e) {
    if (executor === undefined && e instanceof KernelMemoryError) return jsExecutor(plan);
    throw e;
  }
}

function checkChunk(start: number, count: number): void {
  if (!(Number.isInteger(start) && Number.isInteger(count) && start >= 0 && count >= 0 && count <= SCAN_CHUNK)) {
    throw new RangeError(`tallyChunk: expected 0 ≤ count ≤ ${SCAN_CHUNK} pixels at an integer start ≥ 0, got ${count} at ${start}`);
  }
}

/**
 * One differing pixel k with Δq = dq, in JavaScript: its block, region 0, each mask holding it, its ring. The js
 * executor's whole tally, and the simd executor's for the |Δq| > DENSE pixels the kernel leaves to it.
 */
function tallyPixel(p: TallyPlan, tally: CodeTally, blockCode: Uint16Array, k: number, dq: number): void {
  const i = k % p.columns;
  const j = (k - i) / p.columns;
  const a = dq < 0 ? -dq : dq;
  const b = ((j / p.block) | 0) * p.bw + ((i / p.block) | 0);
  if (a > blockCode[b]) blockCode[b] = a;
  const { dx, dy, dx2, dy2 } = p.geo;
  const r2 = dx2[i] + dy2[j];
  tally.add(0, dq, k);
  for (let m = 0; m < p.masks.length; m++) if (maskContainsBounds(p.masks[m], r2, dx[i], dy[j])) tally.add(1 + m, dq, k);
  tally.add(1 + p.masks.length + ringIndex(r2, p.step), dq, k);
}

function jsExecutor(p: TallyPlan): CodePairExecutor {
  const slotG = new Uint16Array(SCAN_CHUNK);
  const slotR = new Uint16Array(SCAN_CHUNK);
  const tally = new CodeTally(1 + p.masks.length + p.rings);
  const blockCode = new Uint16Array(p.bw * p.bh);
  return {
    executor: 'js',
    slotG,
    slotR,
    tallyChunk(start, count, visit) {
      checkChunk(start, count);
      for (let t = 0; t < count; t++) {
        const g = slotG[t];
        const r = slotR[t];
        if (g === r) continue;
        tallyPixel(p, tally, blockCode, start + t, g - r);
        if (visit) visit(start + t, g, r);
      }
    },
    result: () => ({ tally, blockCode }),
    geometryCounts: () => ({ rings: ringPixelCounts(p.geo, p.step, p.rings), masks: p.maskDefs.map((d) => maskPixelCount(d, p.geo)) }),
  };
}

interface KernelExports {
  differences(a: number, b: number, count: number, out: number): number;
  tally(...args: number[]): number;
  countBelow(...args: number[]): void;
}

/** Parameter counts of the kernel's exports, checked at load. */
const KERNEL_ARITY: Record<keyof KernelExports, number> = { differences: 4, tally: 23, countBelow: 13 };

/** Byte offsets of every buffer in the SIMD executor's memory (16-byte aligned), and its size. */
function layoutFor(p: TallyPlan, distinctRows: number) {
  const M = p.masks.length;
  const regions = 1 + M + p.rings;
  const L = alignedLayout({
    slotG: 2 * SCAN_CHUNK,
    slotR: 2 * SCAN_CHUNK,
    idx: 4 * SCAN_CHUNK,
    overflow: 4 * SCAN_CHUNK,
    ...regionInputSizes(p.columns, p.rows, M),
    ...tallySizes(regions),
    block: 2 * p.bw * p.bh,
    thresholds: 8 * (p.rings + 1 + 2 * p.maskDefs.length),
    below: 8 * (p.rings + 1 + 2 * p.maskDefs.length),
    rowDy2: 8 * distinctRows,
    rowMult: 8 * distinctRows,
  });
  return { ...L, regions };
}

function simdExecutor(p: TallyPlan): CodePairExecutor {
  const mod = wasmDisabled() ? null : compiledWasm(COMPARE_WASM_BASE64);
  if (!mod) throw new Error('compare executor simd: WebAssembly SIMD is unavailable here (or HEIGHTBENCH_NO_WASM=1); use the js executor');
  // The layout holds room for every row as distinct (an upper bound: the count is known only once the plan is made).
  const L = layoutFor(p, p.rows);
  if (L.size > MAX_KERNEL_BYTES)
    throw new RangeError(`compare executor simd: ${L.size} bytes of buffers for this grid and block size, over ${MAX_KERNEL_BYTES}; use the js executor`);
  let memory: ReturnType<typeof newWasmMemory>;
  try {
    memory = newWasmMemory(L.size);
  } catch (e) {
    throw new KernelMemoryError(`compare executor simd: ${L.size} bytes of WebAssembly memory refused (${e instanceof Error ? e.message : String(e)})`);
  }
  const WA = (globalThis as unknown as { WebAssembly: { Instance: new (m: object, i: object) => { exports: unknown } } }).WebAssembly;
  const kernel = new WA.Instance(mod, { env: { memory } }).exports as KernelExports;
  for (const [fn, n] of Object.entries(KERNEL_ARITY)) {
    const f = (kernel as unknown as Record<string, unknown>)[fn];
    if (typeof f !== 'function' || f.length !== n)
      throw new Error(`compare.wat: export ${fn} missing or not of ${n} parameters; run node scripts/build-wasm.mjs`);
  }
  const buf = memory!.buffer;
  const f64 = (at: number, n: number): Float64Array => new Float64Array(buf, at, n);
  const M = p.masks.length;
  writeRegionInputs(buf, L, p.geo, p.masks);
  const tally = tallyInMemory(buf, L, L.regions);
  const blockCode = new Uint16Array(buf, L.block, p.bw * p.bh);
  const slotG = new Uint16Array(buf, L.slotG, SCAN_CHUNK);
  const slotR = new Uint16Array(buf, L.slotR, SCAN_CHUNK);
  const idx = new Int32Array(buf, L.idx, SCAN_CHUNK);
  const overflow = new Int32Array(buf, L.overflow, SCAN_CHUNK);
  let finished = false;
  return {
    executor: 'simd',
    slotG,
    slotR,
    tallyChunk(start, count, visit) {
      if (finished) throw new RangeError('tallyChunk: the executor gave its result already');
      checkChunk(start, count);
      const over = kernel.tally(
        L.slotG, L.slotR, count, start, L.idx,
        p.columns, p.block, p.bw, L.block,
        L.dx, L.dx2, L.dy, L.dy2,
        L.maskLo, L.maskHi, L.maskHalf, L.maskStrict, M,
        p.step, L.dense, L.maxAbs, L.maxAt, L.overflow,
      ); // prettier-ignore
      for (let o = 0; o < over; o++) {
        const k = overflow[o];
        tallyPixel(p, tally, blockCode, k, slotG[k - start] - slotR[k - start]);
      }
      if (visit) {
        const n = kernel.differences(L.slotG, L.slotR, count, L.idx);
        for (let s = 0; s < n; s++) visit(start + idx[s], slotG[idx[s]], slotR[idx[s]]);
      }
    },
    // [R] The block map is handed over as the view of this executor's memory it was tallied in, not copied: a 4096²
    //     map's is 2 MiB, a fresh copy of which costs its page faults; no chunk can change it afterwards.
    result: () => {
      finished = true;
      return { tally, blockCode };
    },
    geometryCounts() {
      // One pass over the distinct rows counts "r² < t" for every ring edge and every mask term (maskCountTerms).
      const plan = rowCountPlan(p.geo);
      const D = plan.rowDy2.length;
      const edge2 = ringEdges2(p.step, p.rings);
      const terms = p.maskDefs.map(maskCountTerms);
      // Every ring edge (edge2[0] = 0 counts no pixel), so below[k] is ringPixelCounts' below[k] for k ≤ rings.
      const thresholds = [...edge2];
      const at = terms.map((t) => {
        if (!t) return null;
        const plus = t.plus.map((x) => thresholds.push(x) - 1);
        const minus = t.minus.map((x) => thresholds.push(x) - 1);
        return { total: t.total, plus, minus };
      });
      const T = thresholds.length;
      f64(L.thresholds, T).set(thresholds);
      const below = f64(L.below, T);
      below.fill(0);
      f64(L.rowDy2, D).set(plan.rowDy2);
      f64(L.rowMult, D).set(plan.rowMult);
      kernel.countBelow(
        L.dx2,
        p.columns,
        p.geo.mid,
        plan.mirrored ? 1 : 0,
        plan.guessable ? 1 : 0,
        plan.x0,
        plan.h,
        L.rowDy2,
        L.rowMult,
        D,
        L.thresholds,
        T,
        L.below,
      );
      const rings = ringCountsFromBelow(below, p.rings);
      const total = p.columns * p.rows;
      const masks = p.maskDefs.map((def, m) => {
        const t = at[m];
        if (!t) return maskPixelCount(def, p.geo);
        let c = t.total * total;
        for (const q of t.plus) c += below[q];
        for (const q of t.minus) c -= below[q];
        return c;
      });
      return { rings, masks };
    },
  };
}
