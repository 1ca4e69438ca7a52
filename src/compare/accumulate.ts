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
const DENSE = 64;

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
      if (this.dense === null) this.dense = new Float64Array(2 * DENSE + 1);
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
