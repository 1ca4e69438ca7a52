/**
 * Accumulators for comparison metrics.
 *
 * Code differences Δq (integers in [−65535, 65535]) are counted in a histogram; every code metric (exact count, mean,
 * RMS, maximum) is then reduced from the histogram with exact integer arithmetic (BigInt over the occupied bins), so
 * no rounding enters before the final division and square root.
 * Float differences (metres, float64 from the stored values, so g − r is exact for float32 inputs) are summed with
 * Neumaier's compensated summation (Kahan–Babuška): the error stays near one rounding of the total instead of growing
 * with the pixel count.
 */

/** Δq in [−DENSE, DENSE] is counted in a small dense array; larger |Δq| (rare) in WideBins. */
export const DENSE = 64;
/** Bins of a dense histogram (index Δq + DENSE). */
export const DENSE_BINS = 2 * DENSE + 1;

/** Largest |Δq| of two 16-bit codes. */
const MAX_DQ = 65535;
/** [R] Distinct wide Δq a map holds before WideBins counts in a full array (a few hundred KiB, only when needed). */
const WIDE_MAP_LIMIT = 256;

/**
 * Counts of Δq with |Δq| > DENSE, iterated in the order each Δq was first counted (a Map's order). Few distinct values
 * (the usual case: a handful of outliers) live in a map; past WIDE_MAP_LIMIT the counts move to one array over every
 * Δq. [R] Two unrelated fields differ by a different wide Δq at nearly every pixel: a map updated 16.7 M times per
 * region took tens of seconds, the array a few ns a pixel.
 */
export class WideBins implements Iterable<[number, number]> {
  private map: Map<number, number> | null = new Map();
  private counts: Uint32Array | null = null;
  private order: number[] = [];

  add(dq: number): void {
    const c = this.counts;
    if (c !== null) {
      if (c[dq + MAX_DQ]++ === 0) this.order.push(dq);
      return;
    }
    const m = this.map!;
    m.set(dq, (m.get(dq) ?? 0) + 1);
    if (m.size > WIDE_MAP_LIMIT) {
      const counts = new Uint32Array(2 * MAX_DQ + 1);
      for (const [d, n] of m) {
        counts[d + MAX_DQ] = n;
        this.order.push(d);
      }
      this.counts = counts;
      this.map = null;
    }
  }

  /**
   * The bins `add` leaves after a sequence whose distinct Δq, in the order first added, are `order`, each counted
   * `counts[dq + 65535]` times (float-kernel.ts tallies them in WebAssembly).
   */
  static fromCounts(order: readonly number[], counts: Uint32Array): WideBins {
    const w = new WideBins();
    if (order.length > WIDE_MAP_LIMIT) {
      w.map = null;
      w.counts = counts.slice(0, 2 * MAX_DQ + 1);
      w.order = order.slice();
    } else for (const d of order) w.map!.set(d, counts[d + MAX_DQ]);
    return w;
  }

  get size(): number {
    return this.map ? this.map.size : this.order.length;
  }

  get(dq: number): number | undefined {
    if (this.map) return this.map.get(dq);
    const n = this.counts![dq + MAX_DQ];
    return n === 0 ? undefined : n;
  }

  /** Calls f(dq, count) for each bin in the iterator's order (first counted first), without an entry array each. */
  forEachBin(f: (dq: number, count: number) => void): void {
    if (this.map) {
      this.map.forEach((c, d) => f(d, c));
      return;
    }
    const counts = this.counts!;
    for (const d of this.order) f(d, counts[d + MAX_DQ]);
  }

  /**
   * Writes the bins with dq < 0 (or, `positive`, dq > 0) in ascending dq into keys/counts from index `e`; returns the
   * index after the last. [R] Plain loops, no callback per bin: two unrelated fields hold tens of thousands of bins
   * per region, written once a process, where a callback runs in V8's first tiers.
   */
  ascendingInto(positive: boolean, keys: Int32Array, counts: Float64Array, e: number): number {
    if (this.map) {
      const sorted = Int32Array.from(this.map.keys()).sort();
      for (let k = 0; k < sorted.length; k++) {
        const d = sorted[k];
        if (d > 0 === positive) {
          keys[e] = d;
          counts[e++] = this.map.get(d)!;
        }
      }
      return e;
    }
    const c = this.counts!;
    const [from, to] = positive ? [MAX_DQ + 1, 2 * MAX_DQ + 1] : [0, MAX_DQ];
    for (let b = from; b < to; b++) {
      if (c[b] !== 0) {
        keys[e] = b - MAX_DQ;
        counts[e++] = c[b];
      }
    }
    return e;
  }

  *[Symbol.iterator](): IterableIterator<[number, number]> {
    if (this.map) {
      yield* this.map;
      return;
    }
    for (const d of this.order) yield [d, this.counts![d + MAX_DQ]];
  }
}

/** Neumaier compensated sum. */
export class CompensatedSum {
  sum = 0;
  private c = 0;
  add(x: number): void {
    const t = this.sum + x;
    if (Math.abs(this.sum) >= Math.abs(x)) this.c += this.sum - t + x;
    else this.c += x - t + this.sum;
    this.sum = t;
  }
  get value(): number {
    return this.sum + this.c;
  }
  /** Takes the state (sum, compensation) another executor of the same additions reached (float-kernel.ts). */
  restore(sum: number, c: number): void {
    this.sum = sum;
    this.c = c;
  }
}

/**
 * Statistics of one region (the whole map, a mask, a radial ring). Pixels whose difference is zero in codes and in
 * metres are not visited: the region's pixel count comes from geometry, and zeros add nothing to any sum.
 */
export class RegionAccumulator {
  /** Pixel count of the region (set from geometry, minus excluded non-finite pixels). */
  pixels = 0;
  /** Counts of non-zero Δq in [−64, 64] (index Δq + 64); zeros are pixels − Σ counts. Allocated on first non-zero. */
  dense: Float64Array | null = null;
  /** Counts of |Δq| > 64. */
  sparse: WideBins | null = null;
  /**
   * |Δq| > 64 given as exact sums instead of counts (a radial ring of float-kernel.ts: a ring states no histogram);
   * reduceHistogram adds them, and refuses to give bins.
   */
  wideSums: { count: number; sum: bigint; sumSq: bigint } | null = null;
  maxAbsCode = 0;
  maxAbsCodeAt = -1;
  readonly floatSum = new CompensatedSum();
  readonly floatSumSq = new CompensatedSum();
  maxAbsM = 0;
  maxAbsMAt = -1;
  /** Signed difference at maxAbsMAt. */
  maxSignedM = 0;

  addCode(dq: number, k: number): void {
    if (dq === 0) return;
    if (dq >= -DENSE && dq <= DENSE) {
      if (this.dense === null) this.dense = new Float64Array(DENSE_BINS);
      this.dense[dq + DENSE]++;
    } else {
      if (this.sparse === null) this.sparse = new WideBins();
      this.sparse.add(dq);
    }
    const a = dq < 0 ? -dq : dq;
    if (a > this.maxAbsCode) {
      this.maxAbsCode = a;
      this.maxAbsCodeAt = k;
    }
  }

  addFloat(dm: number, k: number): void {
    if (dm === 0) return;
    this.floatSum.add(dm);
    this.floatSumSq.add(dm * dm);
    const a = dm < 0 ? -dm : dm;
    if (a > this.maxAbsM) {
      this.maxAbsM = a;
      this.maxAbsMAt = k;
      this.maxSignedM = dm;
    }
  }
}

/**
 * Code tallies of many regions at once, as flat arrays (region q's dense bins at q·DENSE_BINS…), which the comparison
 * kernel (compare.wat) can also write. `into` gives region q's counts to a RegionAccumulator, which then holds exactly
 * what addCode would have given it for the same Δq sequence.
 */
export class CodeTally {
  readonly dense: Float64Array;
  readonly maxAbs: Int32Array;
  readonly maxAt: Int32Array;
  private readonly sparse = new Map<number, WideBins>();

  /** `storage`: arrays to tally into (zeroed; maxAt is set to −1 here), else new ones. */
  constructor(
    readonly regions: number,
    storage?: { dense: Float64Array; maxAbs: Int32Array; maxAt: Int32Array },
  ) {
    this.dense = storage?.dense ?? new Float64Array(regions * DENSE_BINS);
    this.maxAbs = storage?.maxAbs ?? new Int32Array(regions);
    this.maxAt = storage?.maxAt ?? new Int32Array(regions);
    if (this.dense.length !== regions * DENSE_BINS || this.maxAbs.length !== regions || this.maxAt.length !== regions) {
      throw new RangeError(`CodeTally: storage for ${regions} regions needs ${regions * DENSE_BINS} bins and ${regions} maxima`);
    }
    this.maxAt.fill(-1);
  }

  /** Counts Δq = dq ≠ 0 at pixel k in region q (addCode's rule: dense bins, else the sparse map; first maximum). */
  add(q: number, dq: number, k: number): void {
    const a = dq < 0 ? -dq : dq;
    if (a <= DENSE) this.dense[q * DENSE_BINS + dq + DENSE]++;
    else {
      let m = this.sparse.get(q);
      if (!m) this.sparse.set(q, (m = new WideBins()));
      m.add(dq);
    }
    if (a > this.maxAbs[q]) {
      this.maxAbs[q] = a;
      this.maxAt[q] = k;
    }
  }

  /** Gives region q's counts, maximum and its position to `acc` (which must have no code counts of its own). */
  into(q: number, acc: RegionAccumulator): void {
    const bins = this.dense.subarray(q * DENSE_BINS, (q + 1) * DENSE_BINS);
    acc.dense = firstNonZero(bins, 0) < bins.length ? bins.slice() : null;
    acc.sparse = this.sparse.get(q) ?? null;
    acc.maxAbsCode = this.maxAbs[q];
    acc.maxAbsCodeAt = this.maxAt[q];
  }
}

/** Exact integer reductions of a Δq histogram. */
export interface CodeSums {
  nonZero: number;
  sum: bigint;
  sumSq: bigint;
  /** Δq → count over non-zero Δq. */
  bins: Map<number, number>;
}

/**
 * The first index ≥ from of a non-zero count, else a.length. [R] Reducing a comparison's ~150 regions scans ~20,000
 * mostly-zero bins: the scan is this small function (the one V8 then optimizes, in well under a millisecond), so the
 * reductions themselves stay in V8's first tier rather than queuing a long optimizing compile that the process would
 * wait for at exit.
 */
function firstNonZero(a: Float64Array, from: number): number {
  let b = from;
  while (b < a.length && a[b] === 0) b++;
  return b;
}

/** Integers of smaller magnitude are exact in float64, and so are sums that stay below it. */
const SAFE = 2 ** 53;

/** The sums of a region's histogram, and its bins unless `withBins` is false (then `bins` is empty). */
export function reduceHistogram(acc: RegionAccumulator, withBins = true): CodeSums {
  const bins = new Map<number, number>();
  // Exact integer sums: each term and the running sums stay in float64 while below 2^53 (exact there), and are moved
  // into the BigInt totals before they could pass it — the same integers as BigInt throughout, with few BigInt steps.
  let nonZero = 0;
  let sum = 0n;
  let sumSq = 0n;
  let s1 = 0;
  let s2 = 0;
  const term = (d: number, c: number): void => {
    if (withBins) bins.set(d, c);
    nonZero += c;
    const t1 = c * d;
    const t2 = t1 * d;
    if (Math.abs(t2) >= SAFE || Math.abs(t1) >= SAFE) {
      const bc = BigInt(c);
      const bd = BigInt(d);
      sum += bc * bd;
      sumSq += bc * bd * bd;
      return;
    }
    if (Math.abs(s1) >= SAFE - Math.abs(t1)) {
      sum += BigInt(s1);
      s1 = 0;
    }
    if (s2 >= SAFE - t2) {
      sumSq += BigInt(s2);
      s2 = 0;
    }
    s1 += t1;
    s2 += t2;
  };
  // The dense bins in ascending Δq, then the wide ones (the bins' order as before).
  const dense = acc.dense;
  if (dense) for (let b = firstNonZero(dense, 0); b < dense.length; b = firstNonZero(dense, b + 1)) term(b - DENSE, dense[b]);
  if (acc.sparse) acc.sparse.forEachBin(term);
  const w = acc.wideSums;
  if (w) {
    if (withBins) throw new Error('reduceHistogram: a region tallied as sums has no bins');
    nonZero += w.count;
    sum += w.sum;
    sumSq += w.sumSq;
  }
  return { nonZero, sum: sum + BigInt(s1), sumSq: sumSq + BigInt(s2), bins };
}

/**
 * [R] The property names of negative Δq, made once a process: a negative number used as a key is turned into a string
 *     and looked up in the string table each time, which for two unrelated fields (tens of thousands of keys in each
 *     region's histogram) costs more than the tally. Non-negative keys are array indices and need no name.
 */
const negativeKeys: string[] = [];

/**
 * A region's histogram entries in its record's key order: Δq = 0 (`exact`), the other Δq >= 0 ascending, then the
 * negative Δq ascending — the order histogramRecord's object enumerates (array indices ascending, then names as set)
 * and histogramJsonText writes. `n` entries of keys/counts are filled.
 */
export function histogramBins(acc: RegionAccumulator, exact: number): { keys: Int32Array; counts: Float64Array; n: number } {
  const size = 1 + DENSE_BINS + (acc.sparse?.size ?? 0);
  const keys = new Int32Array(size);
  const counts = new Float64Array(size);
  const dense = acc.dense;
  counts[0] = exact;
  let e = 1;
  if (dense) {
    for (let b = DENSE + 1; b < DENSE_BINS; b++) {
      if (dense[b] !== 0) {
        keys[e] = b - DENSE;
        counts[e++] = dense[b];
      }
    }
  }
  if (acc.sparse) {
    e = acc.sparse.ascendingInto(true, keys, counts, e);
    e = acc.sparse.ascendingInto(false, keys, counts, e);
  }
  if (dense) {
    for (let b = 0; b < DENSE; b++) {
      if (dense[b] !== 0) {
        keys[e] = b - DENSE;
        counts[e++] = dense[b];
      }
    }
  }
  return { keys, counts, n: e };
}

/**
 * A region's histogram as CompareMetrics states it: Δq → count for every non-zero bin, and Δq = 0 → `exact`, in the
 * key order of histogramBins, which JSON output keeps.
 */
export function histogramRecord(acc: RegionAccumulator, exact: number): Record<string, number> {
  if (acc.wideSums) throw new Error('histogramRecord: a region tallied as sums has no bins');
  const h: Record<string, number> = {};
  const { keys, counts, n } = histogramBins(acc, exact);
  for (let k = 0; k < n; k++) {
    const d = keys[k];
    if (d >= 0) h[d] = counts[k];
    else h[(negativeKeys[-d] ??= String(d))] = counts[k];
  }
  recordSources.set(h, { acc, exact });
  return h;
}

/** What a histogram record is made from: a region's accumulator and its exact count. */
export interface HistogramSource {
  acc: RegionAccumulator;
  exact: number;
}

/** The source each record of histogramRecord was made from (histogramJsonText reads them). */
const recordSources = new WeakMap<Record<string, number>, HistogramSource>();
/** The source each getter of defineLazyHistogram makes its record from. */
const lazySources = new WeakMap<object, HistogramSource>();

const dataProperty = (value: unknown): PropertyDescriptor => ({ value, writable: true, enumerable: true, configurable: true });

/**
 * Makes `holder.histogram` (a key it already has, so the key keeps its place in the holder's key order) the record
 * histogramRecord(acc, exact) gives, made on its first read and then kept as a plain property; an assignment replaces
 * it as for a plain property. Reads through a spread, JSON.stringify, Object.entries or structuredClone all see the
 * record. [R] Two unrelated fields hold tens of thousands of Δq in each of five histograms: `compare --json` writes
 * their text from the accumulators (histogramSource) and never needs the objects, whose properties cost more to make
 * than the text.
 */
export function defineLazyHistogram(holder: { histogram: Record<string, number> }, acc: RegionAccumulator, exact: number): void {
  if (acc.wideSums) throw new Error('defineLazyHistogram: a region tallied as sums has no bins');
  function get(this: object): Record<string, number> {
    const h = histogramRecord(acc, exact);
    Object.defineProperty(this, 'histogram', dataProperty(h));
    return h;
  }
  function set(this: object, v: unknown): void {
    Object.defineProperty(this, 'histogram', dataProperty(v));
  }
  lazySources.set(get, { acc, exact });
  Object.defineProperty(holder, 'histogram', { get, set, enumerable: true, configurable: true });
}

/**
 * The source of `holder.histogram` without reading it: the accumulator a lazy histogram (defineLazyHistogram) will
 * be made from, or the one a record of histogramRecord was made from; null for any other value.
 */
export function histogramSource(holder: object): HistogramSource | null {
  const d = Object.getOwnPropertyDescriptor(holder, 'histogram');
  if (!d) return null;
  if (d.get) return lazySources.get(d.get) ?? null;
  return typeof d.value === 'object' && d.value !== null ? (recordSources.get(d.value as Record<string, number>) ?? null) : null;
}

/** Decimal digits of an integer of magnitude below 2^53, a leading minus sign counted. */
function decimalLength(v: number): number {
  let n = v < 0 ? 2 : 1;
  let a = Math.abs(v);
  if (a < 2 ** 31) for (a |= 0; a >= 10; a = (a / 10) | 0) n++;
  else for (; a >= 10; a = Math.floor(a / 10)) n++;
  return n;
}

/** Writes the integer v (|v| < 2^53) in decimal, `length` bytes (decimalLength's) from `at`. */
function writeDecimal(out: Uint8Array, at: number, length: number, v: number): void {
  let a = Math.abs(v);
  let k = at + length;
  if (a < 2 ** 31) {
    a |= 0;
    do {
      const q = (a / 10) | 0;
      out[--k] = 48 + a - 10 * q;
      a = q;
    } while (a > 0);
  } else {
    do {
      const q = Math.floor(a / 10);
      out[--k] = 48 + (a - 10 * q);
      a = q;
    } while (a > 0);
  }
  if (v < 0) out[--k] = 45;
}

/**
 * The text JSON.stringify(h, null, 2) gives for the record h of histogramRecord(src.acc, src.exact) written at
 * `indent` spaces (its entries at indent + 2, as a value nested that deep in a pretty-printed document). Written from
 * the accumulator (its bins in the record's key order: Δq >= 0 ascending, then the negative Δq ascending) as ASCII
 * bytes — the entries counted, measured, then written into one buffer: two unrelated fields hold tens of thousands of
 * keys per region, which JSON.stringify walks one property at a time.
 */
export function histogramJsonText(src: HistogramSource, indent: number): string {
  const { keys, counts, n: e } = histogramBins(src.acc, src.exact);
  // '{', then each entry: newline, indent + 2 spaces, "key": count, and a comma but after the last; then newline,
  // indent, '}'.
  const pad = indent + 2;
  const keyLength = new Uint8Array(e);
  const countLength = new Uint8Array(e);
  let bytes = 1 + (1 + indent + 1) - 1;
  for (let k = 0; k < e; k++) {
    keyLength[k] = decimalLength(keys[k]);
    countLength[k] = decimalLength(counts[k]);
    bytes += 1 + pad + 1 + keyLength[k] + 3 + countLength[k] + 1;
  }
  const out = Buffer.alloc(bytes, 32);
  let at = 0;
  out[at++] = 123;
  for (let k = 0; k < e; k++) {
    out[at] = 10;
    at += 1 + pad;
    out[at++] = 34;
    writeDecimal(out, at, keyLength[k], keys[k]);
    at += keyLength[k];
    out[at++] = 34;
    out[at++] = 58;
    at++;
    writeDecimal(out, at, countLength[k], counts[k]);
    at += countLength[k];
    if (k + 1 < e) out[at++] = 44;
  }
  out[at] = 10;
  at += 1 + indent;
  out[at++] = 125;
  return out.toString('latin1', 0, at);
}

/** sqrt(num / den) for exact integers, correctly rounded enough for metrics (relative error ~1e-16). */
export function sqrtRatio(num: bigint, den: number): number {
  if (den === 0) return Number.NaN;
  return Math.sqrt(Number(num) / den);
}
