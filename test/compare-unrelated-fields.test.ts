// Regression fixture "compare-unrelated-fields-wide-deltas": two fields that differ by a different wide Δq (|Δq| > 64)
// at nearly every pixel — a float capture compared against a reference of other terrain, or under another range —
// kept every wide Δq in a Map updated once per pixel and region (tens of seconds at 4096²). The properties kept here:
// the wide bins count exactly what a Map counts, in its order; the exact sums stay exact past 2^53; and the metrics
// of such a pair equal a direct count.
import { describe, expect, it } from 'vitest';
import { codeHeightfield, compareHeightfields, domainGrid } from '../src/index.js';
import { DENSE, RegionAccumulator, WideBins, reduceHistogram } from '../src/compare/metric-accumulators.js';
import { testRandom } from './helpers.js';

describe('wide Δq bins', () => {
  it('count and order exactly as a Map fed the same Δq, before and after they move to the array', () => {
    const rnd = testRandom(7);
    for (const distinct of [3, 256, 257, 5000]) {
      const bins = new WideBins();
      const map = new Map<number, number>();
      for (let k = 0; k < 40_000; k++) {
        const mag = DENSE + 1 + Math.floor(rnd() * (65535 - DENSE));
        const dq = (Math.floor(rnd() * distinct) % 2 ? -1 : 1) * (distinct < 65000 ? DENSE + 1 + ((mag * 7919) % distinct) : mag);
        bins.add(dq);
        map.set(dq, (map.get(dq) ?? 0) + 1);
      }
      expect([...bins], `${distinct} distinct`).toEqual([...map]);
      expect(bins.size).toBe(map.size);
      for (const d of [-65535, -DENSE - 1, DENSE + 1, 65535, ...map.keys()]) expect(bins.get(d)).toBe(map.get(d));
    }
  });

  it('reduce to the exact BigInt sums when terms and running sums pass 2^53', () => {
    const acc = new RegionAccumulator();
    acc.pixels = 2 ** 40;
    acc.sparse = new WideBins();
    // counts are given through the dense bins and many repeats of the extreme wide bins
    acc.dense = new Float64Array(2 * DENSE + 1);
    acc.dense[0] = 2 ** 28 - 1; // Δq = −64
    acc.dense[2 * DENSE] = 2 ** 27 + 3; // Δq = +64
    for (let k = 0; k < 3000; k++) acc.sparse.add(k % 3 === 0 ? -65535 : 65535 - (k % 7));
    let sum = 0n;
    let sumSq = 0n;
    let nonZero = 0;
    const all: [number, number][] = [[-DENSE, 2 ** 28 - 1], [DENSE, 2 ** 27 + 3], ...acc.sparse];
    for (const [d, c] of all) {
      nonZero += c;
      sum += BigInt(c) * BigInt(d);
      sumSq += BigInt(c) * BigInt(d) * BigInt(d);
    }
    const r = reduceHistogram(acc);
    expect(r.nonZero).toBe(nonZero);
    expect(r.sum).toBe(sum);
    expect(r.sumSq).toBe(sumSq);
    expect(reduceHistogram(acc, false).sumSq).toBe(sumSq);
    expect(reduceHistogram(acc, false).bins.size).toBe(0);
  });

  it('an unrelated pair: histogram, exact count, RMS and maximum equal a direct count', () => {
    const n = 192;
    const rnd = testRandom(3);
    const g = domainGrid(n);
    const a = new Uint16Array(n * n).map(() => Math.floor(rnd() * 65536));
    const b = new Uint16Array(n * n).map(() => Math.floor(rnd() * 65536));
    const range = { min: -500, max: 500 };
    const r = compareHeightfields(codeHeightfield(g, a, range), codeHeightfield(g, b, range));
    const hist = new Map<number, number>();
    let sumSq = 0n;
    let max = 0;
    for (let k = 0; k < a.length; k++) {
      const d = a[k] - b[k];
      hist.set(d, (hist.get(d) ?? 0) + 1);
      sumSq += BigInt(d * d);
      max = Math.max(max, Math.abs(d));
    }
    if (!hist.has(0)) hist.set(0, 0); // the histogram always states Δq = 0
    expect(Object.keys(r.histogram).length).toBeGreaterThan(1000);
    expect(new Map(Object.entries(r.histogram).map(([d, c]) => [Number(d), c]))).toEqual(hist);
    // The key order JSON output keeps: array indices (Δq >= 0) ascending, then the negative Δq ascending, whose
    // names each region reuses.
    const up = (ds: number[]) => ds.sort((x, y) => x - y);
    const keys = [...hist.keys()];
    expect(Object.keys(r.histogram).map(Number)).toEqual([...up(keys.filter((d) => d >= 0)), ...up(keys.filter((d) => d < 0))]);
    expect(JSON.stringify(compareHeightfields(codeHeightfield(g, a, range), codeHeightfield(g, b, range)).histogram)).toBe(JSON.stringify(r.histogram));
    expect(r.exact).toBe(hist.get(0));
    expect(r.maxAbsCode).toBe(max);
    const mpc = (range.max - range.min) / 65535;
    expect(r.rmsMm).toBeCloseTo(Math.sqrt(Number(sumSq) / a.length) * mpc * 1000, 6);
  });
});
