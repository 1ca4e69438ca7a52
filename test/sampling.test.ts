import { describe, expect, it } from 'vitest';
import { bilinear, domainGrid, resampleSourceCoord, type GridDescription } from '../src/index.js';
import { asVertexGrid, edgeToEdgeSourceCoord, resampleField } from '../src/core/resample.js';
import { bilinearF32, sampleBilinear, sampleUV } from '../src/core/sampling.js';
import { columnWorldX } from '../src/core/grid.js';
import { testRandom } from './helpers.js';

describe('bilinear (article: What One Bilinear Sample Reads)', () => {
  it('interpolates 0, 10, 20, 30 at fx 0.25, fy 0.5 through 2.5 and 22.5 to 12.5', () => {
    expect(bilinear(0, 10, 20, 30, 0.25, 0)).toBe(2.5); // a, along the first row
    expect(bilinear(0, 10, 20, 30, 0.25, 1)).toBe(22.5); // b, along the second row
    expect(bilinear(0, 10, 20, 30, 0.25, 0.5)).toBe(12.5);
    expect(bilinearF32(0, 10, 20, 30, 0.25, 0.5)).toBe(12.5);
  });
  it('float32 variant rounds every step', () => {
    const a = bilinearF32(0.1, 0.2, 0.3, 0.4, 0.3, 0.7);
    expect(a).toBe(Math.fround(a));
    expect(Math.abs(a - bilinear(0.1, 0.2, 0.3, 0.4, 0.3, 0.7))).toBeLessThan(1e-7);
  });
});

describe('texel-space sampling with clamp addressing', () => {
  const w = 5;
  const h = 4;
  const field = Float64Array.from({ length: w * h }, (_, k) => (k % w) * 10 + Math.floor(k / w) * 100);
  it('reads texel centres exactly at integer coordinates', () => {
    expect(sampleBilinear(field, w, h, 2, 3)).toBe(field[3 * w + 2]);
    expect(sampleUV(field, w, h, 2.5 / w, 3.5 / h)).toBe(field[3 * w + 2]);
  });
  it('clamps beyond the edges instead of wrapping or padding with zero', () => {
    expect(sampleBilinear(field, w, h, -3, -7)).toBe(field[0]);
    expect(sampleBilinear(field, w, h, 99, 99)).toBe(field[w * h - 1]);
    expect(sampleBilinear(field, w, h, -0.5, 0)).toBe(field[0]);
  });
  it('always lies between the min and max of the texels read (random fields and points)', () => {
    const rnd = testRandom(11);
    const f = Float64Array.from({ length: 64 }, () => rnd() * 100 - 50);
    for (let n = 0; n < 5000; n++) {
      const x = rnd() * 10 - 1;
      const y = rnd() * 10 - 1;
      const v = sampleBilinear(f, 8, 8, x, y);
      const c = (i: number, m: number) => Math.min(Math.max(i, 0), m - 1);
      const xs = [c(Math.floor(x), 8), c(Math.floor(x) + 1, 8)];
      const ys = [c(Math.floor(y), 8), c(Math.floor(y) + 1, 8)];
      const t = ys.flatMap((j) => xs.map((i) => f[j * 8 + i]));
      expect(v).toBeGreaterThanOrEqual(Math.min(...t) - 1e-12);
      expect(v).toBeLessThanOrEqual(Math.max(...t) + 1e-12);
    }
  });
  it("'hw8' rounds the fraction to 8 sub-texel bits", () => {
    const f = Float64Array.of(0, 256);
    expect(sampleBilinear(f, 2, 1, 0.3, 0, 'hw8')).toBe(77); // round(0.3 × 256) = 77
    expect(sampleBilinear(f, 2, 1, 0.3, 0, 'exact')).toBeCloseTo(76.8, 12);
  });
});

describe('resampling (article: centre-aligned; engine notes: edge-to-edge)', () => {
  it('4096 → 2048 reads its first sample at source 0.5, and sample i at 2i + 0.5', () => {
    expect(resampleSourceCoord(0, 4096, 2048)).toBe(0.5);
    for (const i of [1, 100, 2047]) expect(resampleSourceCoord(i, 4096, 2048)).toBe(2 * i + 0.5);
  });
  it('a centre-aligned halving is the mean of each 2×2 block', () => {
    const src = domainGrid(8);
    const dst = domainGrid(4);
    const rnd = testRandom(5);
    const f = Float64Array.from({ length: 64 }, () => rnd());
    const out = resampleField(f, src, dst, new Float64Array(16));
    for (let j = 0; j < 4; j++) {
      for (let i = 0; i < 4; i++) {
        const m = (f[2 * j * 8 + 2 * i] + f[2 * j * 8 + 2 * i + 1] + f[(2 * j + 1) * 8 + 2 * i] + f[(2 * j + 1) * 8 + 2 * i + 1]) / 4;
        expect(out[j * 4 + i]).toBeCloseTo(m, 14);
      }
    }
  });
  it('edge-to-edge between vertex grids maps corners to corners (no flat lip)', () => {
    expect(edgeToEdgeSourceCoord(0, 5, 9)).toBe(0);
    expect(edgeToEdgeSourceCoord(8, 5, 9)).toBe(4);
    const src: GridDescription = { ...domainGrid(5, 'vertex') };
    const dst: GridDescription = { ...domainGrid(9, 'vertex') };
    // A linear ramp over world X is reproduced exactly at every destination vertex, edges included.
    const f = new Float64Array(25);
    for (let j = 0; j < 5; j++) for (let i = 0; i < 5; i++) f[j * 5 + i] = columnWorldX(src, i);
    const out = resampleField(f, src, dst, new Float64Array(81));
    for (let i = 0; i < 9; i++) expect(out[4 * 9 + i]).toBeCloseTo(columnWorldX(dst, i), 10);
    expect(out[8]).toBe(1024); // last vertex of the first row: the domain's east edge
  });
  it('texel-centre 4096² → vertex 4097² goes through world coordinates (not copied indices)', () => {
    // Scaled: 16 texels → 17 vertices over the same 2048 m; a ramp in X.
    const tex = domainGrid(16);
    const vtx = asVertexGrid(tex);
    expect(vtx.columns).toBe(17);
    const f = new Float64Array(16 * 16);
    for (let j = 0; j < 16; j++) for (let i = 0; i < 16; i++) f[j * 16 + i] = columnWorldX(tex, i);
    const out = resampleField(f, tex, vtx, new Float64Array(17 * 17));
    // Interior vertices read exactly their world X (they sit halfway between texel centres) ...
    for (let i = 1; i < 16; i++) expect(out[i]).toBeCloseTo(columnWorldX(vtx, i), 10);
    // ... the edge vertices lie half a texel beyond the outermost centres and read them (clamp addressing).
    expect(out[0]).toBe(columnWorldX(tex, 0));
    expect(out[16]).toBe(columnWorldX(tex, 15));
    // Copying indices instead would put texel i's value at vertex i: off by half a cell everywhere.
    expect(Math.abs(f[5] - columnWorldX(vtx, 5))).toBeCloseTo(2048 / 16 / 2, 10);
  });
  it('refuses buffers that do not match their grids', () => {
    expect(() => resampleField(new Float64Array(10), domainGrid(4), domainGrid(2), new Float64Array(4))).toThrow(/source has 10 samples, grid says 4×4/);
  });
});
