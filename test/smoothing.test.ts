import { describe, expect, it } from 'vitest';
import { impulseResponse, loadRequest, SMOOTHING_TAPS } from '../src/api/notebook.js';
import { planRequest } from '../src/pipeline/inputs.js';
import { downsampleHalf, fanCentre, filterField, smoothingChain } from '../src/api/pipeline.js';
import { buildBase } from './oracles/direct-path.js';
import { runContext } from '../src/cpu/context.js';
import { bytes, testRandom } from './helpers.js';

describe('smoothing taps (article table)', () => {
  it('offsets and weights as printed; the weights sum to 1.000002 and are not renormalized', () => {
    expect(SMOOTHING_TAPS.offsets).toEqual([-4.30908, -2.37532, -0.5, 1.37532, 3.30908]);
    expect(SMOOTHING_TAPS.weights).toEqual([0.055028, 0.244038, 0.40187, 0.244038, 0.055028]);
    expect(SMOOTHING_TAPS.weights.reduce((a, b) => a + b, 0)).toBeCloseTo(1.000002, 12);
  });
  it('the −0.5 main-axis and +0.5 cross-axis shifts of the two passes cancel: the impulse response is centred', () => {
    const m = 32;
    const c = 16;
    const r = impulseResponse(m, c);
    let s = 0;
    let sx = 0;
    let sy = 0;
    for (let j = 0; j < m; j++) {
      for (let i = 0; i < m; i++) {
        s += r[j * m + i];
        sx += r[j * m + i] * (i - c);
        sy += r[j * m + i] * (j - c);
      }
    }
    expect(s).toBeCloseTo(1.000002 ** 2, 12);
    expect(Math.abs(sx / s)).toBeLessThan(1e-12);
    expect(Math.abs(sy / s)).toBeLessThan(1e-12);
    // Separable and symmetric about the centre: r(c + d, c) = r(c − d, c).
    for (const d of [1, 2, 3, 5]) expect(r[c * m + c + d]).toBeCloseTo(r[c * m + c - d], 14);
  });
  it('a centre-aligned halving is the 2×2 mean', () => {
    const rnd = testRandom(4);
    const src = Float64Array.from({ length: 64 }, () => rnd());
    const out = downsampleHalf(src, 8, new Float64Array(16), (x) => x);
    expect(out[1 * 4 + 2]).toBeCloseTo((src[2 * 8 + 4] + src[2 * 8 + 5] + src[3 * 8 + 4] + src[3 * 8 + 5]) / 4, 15);
  });
  it('a constant field stays constant up to the weight sum (clamp addressing, no zero padding at the edges)', () => {
    const n = 64;
    const raster = new Float64Array(n * n).fill(10);
    const { base } = smoothingChain(raster, n, 'f64');
    // Each filtered level multiplies a constant by the weight sum once per pass (X, Y). h2 samples L2 (L0, L1, L2:
    // six passes), h3 samples L3 (eight passes); the base is their mean.
    const expected = (10 * 1.000002 ** 6 + 10 * 1.000002 ** 8) / 2;
    expect(Math.min(...base)).toBeCloseTo(expected, 9);
    expect(Math.max(...base)).toBeCloseTo(expected, 9);
    // The earlier rule (ablation 'unfilteredRaster') skips L0: two passes fewer on each side.
    const old = smoothingChain(raster, n, 'f64', undefined, { unfilteredRaster: true }).base;
    const expectedOld = (10 * 1.000002 ** 4 + 10 * 1.000002 ** 6) / 2;
    expect(Math.min(...old)).toBeCloseTo(expectedOld, 9);
    expect(Math.max(...old)).toBeCloseTo(expectedOld, 9);
  });
  it('the chain is L0 = filter(raster), L(k+1) = filter(halve(Lk)); the ablation starts at filter(halve(raster))', () => {
    const n = 64;
    const rnd = testRandom(12);
    const raster = Float64Array.from({ length: n * n }, () => 30 * rnd());
    const copy = raster.slice();
    for (const precision of ['f64', 'f32'] as const) {
      const R = precision === 'f32' ? Math.fround : (x: number) => x;
      const r = precision === 'f32' ? Float32Array.from(raster) : raster.slice();
      const half = (f: Float32Array | Float64Array, m: number) =>
        downsampleHalf(f, m, precision === 'f32' ? new Float32Array((m * m) / 4) : new Float64Array((m * m) / 4), R);
      // Built here level by level from the one-level filter (separate buffers, no in-place passes).
      const l0 = filterField(r, n, precision);
      const l1 = filterField(half(l0, n), n / 2, precision);
      const l2 = filterField(half(l1, n / 2), n / 4, precision);
      const l3 = filterField(half(l2, n / 4), n / 8, precision);
      const chain = smoothingChain(r, n, precision);
      expect(bytes(chain.levels[0]).equals(bytes(l1))).toBe(true);
      expect(bytes(chain.levels[1]).equals(bytes(l2))).toBe(true);
      expect(bytes(chain.levels[2]).equals(bytes(l3))).toBe(true);
      const old = smoothingChain(r, n, precision, undefined, { unfilteredRaster: true });
      expect(bytes(old.levels[0]).equals(bytes(filterField(half(r, n), n / 2, precision)))).toBe(true);
      expect(bytes(old.base).equals(bytes(chain.base))).toBe(false);
    }
    expect(bytes(raster).equals(bytes(copy))).toBe(true); // the raster is not modified
  });
  it('f32 and f64 differ only in rounding (well below a millimetre)', () => {
    const n = 64;
    const rnd = testRandom(8);
    const r64 = Float64Array.from({ length: n * n }, () => 30 * rnd());
    const r32 = Float32Array.from(r64);
    const a = smoothingChain(Float64Array.from(r32), n, 'f64').base;
    const b = smoothingChain(r32, n, 'f32').base;
    let worst = 0;
    for (let k = 0; k < a.length; k++) worst = Math.max(worst, Math.abs(a[k] - b[k]));
    expect(worst).toBeGreaterThan(0);
    expect(worst).toBeLessThan(1e-4);
  });
  it('the ablations change the result (renormalized weights, integer taps)', () => {
    const n = 64;
    const rnd = testRandom(9);
    const r = Float64Array.from({ length: n * n }, () => 30 * rnd());
    const ok = smoothingChain(r, n, 'f64').base;
    const ren = smoothingChain(r, n, 'f64', undefined, { renormalize: true }).base;
    const int = smoothingChain(r, n, 'f64', undefined, { integerTaps: true }).base;
    expect(ren[100]).not.toBe(ok[100]);
    expect(int[100]).not.toBe(ok[100]);
  });
  it('refuses sizes that cannot be halved three times', () => {
    expect(() => smoothingChain(new Float64Array(100), 10, 'f64')).toThrow('smoothing: the raster size must be divisible by 8 (three halvings), got 10');
  });
});

describe('triangle fans', () => {
  const xy = Float64Array.of(0, 0, 10, 0, 10, 10, 0, 30);
  const base = {
    polygons: [[0, 1, 2, 3]],
    corner_xy: xy,
    corner_height: Float64Array.of(0, 4, 8, 12),
    corner_flag: new Uint8Array(4),
    corner_replacement: new Float64Array(4),
  };
  it('centre position is the mean of edge midpoints, not the area centroid', () => {
    const c = fanCentre([0, 1, 2, 3], base);
    expect([c.x, c.y]).toEqual([5, 10]); // the mean vertex; the area centroid of this quad is elsewhere
    expect(c.h).toBe(6); // (Σ endpoint heights over 4 edges) / 8 contributions
  });
  it('the last flagged corner in traversal order overwrites the centre height', () => {
    const flagged = { ...base, corner_flag: Uint8Array.of(0, 1, 0, 1), corner_replacement: Float64Array.of(0, 100, 0, 200) };
    expect(fanCentre([0, 1, 2, 3], flagged).h).toBe(200); // corner 3 is met last (edge 2→3, then 3→0)
    // Edges 1→2, 2→3, 3→0, 0→1: the endpoints met are 1, 2, 2, 3, 3, 0, 0, 1 — corner 1 comes last.
    expect(fanCentre([1, 2, 3, 0], flagged).h).toBe(100);
  });
});

describe('base stage of teaching-512', () => {
  const plan = planRequest(loadRequest('teaching-512'));
  const b = buildBase(plan, 512, 'f32', { keepLayer0: true });
  it('layer 0 covers every pixel exactly once; layer 100 only its relief cells', () => {
    expect(b.stats.layer0.pixels).toBe(512 * 512);
    expect(b.stats.layer100.pixels).toBeGreaterThan(0);
    expect(b.stats.layer100.pixels).toBeLessThan(512 * 512);
  });
  it('the raster is layer 0 plus layer 100 (ADD), and the base stays within the raster’s range', () => {
    let lo = Infinity;
    let hi = -Infinity;
    let added = 0;
    const raster = b.raster!;
    for (let k = 0; k < raster.length; k++) {
      lo = Math.min(lo, raster[k]);
      hi = Math.max(hi, raster[k]);
      if (raster[k] !== (b.rasterLayer0 as Float32Array)[k]) added++;
    }
    expect(added).toBe(b.stats.layer100.pixels);
    for (const v of b.base) {
      expect(v).toBeGreaterThanOrEqual(lo - 0.01);
      expect(v).toBeLessThanOrEqual(hi * 1.00001 + 0.01);
    }
  });
});

describe('WebAssembly SIMD kernels (f32)', () => {
  const random = (n: number, seed: number) => {
    let s = seed;
    return Float32Array.from({ length: n * n }, () => {
      s = (Math.imul(s, 1103515245) + 12345) >>> 0;
      return (s / 4294967296) * 40 - 5;
    });
  };
  const both = (r: Float32Array, n: number, ab = {}) => {
    const js = smoothingChain(r, n, runContext({ executor: 'js-f32', n }), new Float32Array(n * n), ab);
    const wasm = smoothingChain(r, n, runContext({ executor: 'simd', n }), new Float32Array(n * n), ab);
    return { js, wasm };
  };
  it.each([32, 64, 256])('are bit-identical to the JavaScript f32 path at %i² (every level and the base)', (n) => {
    const { js, wasm } = both(random(n, n), n);
    expect(wasm.timings.wasm).toBeDefined(); // the wasm path really ran
    expect(js.timings.wasm).toBeUndefined();
    expect(bytes(wasm.base).equals(bytes(js.base))).toBe(true);
    js.levels.forEach((l, q) => expect(bytes(wasm.levels[q]).equals(bytes(l))).toBe(true));
  });
  it('stay bit-identical under an ablation (integer taps; the unfiltered raster of the earlier rule)', () => {
    const { js, wasm } = both(random(64, 3), 64, { integerTaps: true });
    expect(bytes(wasm.base).equals(bytes(js.base))).toBe(true);
    const old = both(random(64, 3), 64, { unfilteredRaster: true });
    expect(old.wasm.timings.wasm).toBeDefined();
    expect(bytes(old.wasm.base).equals(bytes(old.js.base))).toBe(true);
    expect(bytes(old.wasm.base).equals(bytes(both(random(64, 3), 64).wasm.base))).toBe(false);
  });
  it('smooth an arena raster in place (base over the raster) to the same bytes as the JavaScript path', () => {
    const n = 64;
    const src = random(n, 5);
    const ctx = runContext({ executor: 'simd', n, baseOverRaster: true });
    const r = ctx.arena!.rasterView;
    r.set(src);
    const wasm = smoothingChain(r, n, ctx);
    const js = smoothingChain(src, n, 'f32');
    expect(wasm.timings.wasm).toBeDefined();
    expect(bytes(r).equals(bytes(js.base))).toBe(true); // the raster's buffer now holds the base
    expect(bytes(wasm.base).equals(bytes(js.base))).toBe(true);
  });
});
