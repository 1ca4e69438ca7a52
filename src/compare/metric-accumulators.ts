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

/** Δq in [−DENSE, DENSE] is counted in a small dense array; larger |Δq| (rare) in a map. */
export const DENSE = 64;
/** Bins of a dense histogram (index Δq + DENSE). */
export const DENSE_BINS = 2 * DENSE + 1;

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
  sparse: Map<number, number> | null = null;
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
      if (this.sparse === null) this.sparse = new Map();
      this.sparse.set(dq, (this.sparse.get(dq) ?? 0) + 1);
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
  private readonly sparse = new Map<number, Map<number, number>>();

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
      if (!m) this.sparse.set(q, (m = new Map()));
      m.set(dq, (m.get(dq) ?? 0) + 1);
    }
    if (a > this.maxAbs[q]) {
      this.maxAbs[q] = a;
      this.maxAt[q] = k;
    }
  }

  /** Gives region q's counts, maximum and its position to `acc` (which must have no code counts of its own). */
  into(q: number, acc: RegionAccumulator): void {
    const bins = this.dense.subarray(q * DENSE_BINS, (q + 1) * DENSE_BINS);
    acc.dense = bins.some((c) => c !== 0) ? bins.slice() : null;
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

export function reduceHistogram(acc: RegionAccumulator): CodeSums {
  const bins = new Map<number, number>();
  if (acc.dense) {
    for (let b = 0; b < acc.dense.length; b++) if (acc.dense[b] !== 0) bins.set(b - DENSE, acc.dense[b]);
  }
  if (acc.sparse) for (const [d, c] of acc.sparse) bins.set(d, c);
  let nonZero = 0;
  let sum = 0n;
  let sumSq = 0n;
  for (const [d, c] of bins) {
    nonZero += c;
    const bc = BigInt(c);
    const bd = BigInt(d);
    sum += bc * bd;
    sumSq += bc * bd * bd;
  }
  return { nonZero, sum, sumSq, bins };
}

/** sqrt(num / den) for exact integers, correctly rounded enough for metrics (relative error ~1e-16). */
export function sqrtRatio(num: bigint, den: number): number {
  if (den === 0) return Number.NaN;
  return Math.sqrt(Number(num) / den);
}
