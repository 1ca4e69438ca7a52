/**
 * GPU texture unit and smoothing passes against hand-computed answers: the article's bilinear example (12.5 m), the
 * filter's impulse response derived from the article's taps, centre-aligned halving, the combine order.
 * Expected values come from the article's numbers and from a float64 evaluation written in this file (bilinear with
 * clamped indices, X then Y) — an independent reference, not src/gpu's output.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { fieldTexture, readField, textureFrom, type GpuContext } from '../src/gpu/context.js';
import { openDawn } from '../src/gpu/dawn-host.js';
import { sampleAt } from '../src/gpu/probe.js';
import { encodeFilter, encodeSmoothingChain, encodeSmoothingPass } from '../src/gpu/smoothing.js';

let ctx: GpuContext;
beforeAll(async () => {
  ctx = await openDawn();
});

// The article's table ("Multilevel Smoothing …"), typed here again on purpose.
const OFF = [-4.30908, -2.37532, -0.5, 1.37532, 3.30908];
const W = [0.055028, 0.244038, 0.40187, 0.244038, 0.055028];

/** Bilinear sample of an n × n field at continuous texel coordinate (x, y) (texel centre i at i), clamped indices. */
function bilinear(f: ArrayLike<number>, n: number, x: number, y: number): number {
  const cl = (i: number) => Math.min(n - 1, Math.max(0, i));
  const i0 = Math.floor(x);
  const j0 = Math.floor(y);
  const fx = x - i0;
  const fy = y - j0;
  const at = (i: number, j: number) => f[cl(j) * n + cl(i)];
  const a = at(i0, j0) * (1 - fx) + at(i0 + 1, j0) * fx;
  const b = at(i0, j0 + 1) * (1 - fx) + at(i0 + 1, j0 + 1) * fx;
  return a * (1 - fy) + b * fy;
}

function filterRef(f: ArrayLike<number>, n: number, axis: 'x' | 'y'): Float64Array {
  const out = new Float64Array(n * n);
  for (let j = 0; j < n; j++) {
    for (let i = 0; i < n; i++) {
      let acc = 0;
      for (let t = 0; t < 5; t++) acc += W[t] * (axis === 'x' ? bilinear(f, n, i + OFF[t], j + 0.5) : bilinear(f, n, i + 0.5, j + OFF[t]));
      out[j * n + i] = acc;
    }
  }
  return out;
}

function maxDiff(a: ArrayLike<number>, b: ArrayLike<number>): number {
  let m = 0;
  for (let k = 0; k < a.length; k++) m = Math.max(m, Math.abs(a[k] - b[k]));
  return m;
}

describe('GPU texture unit and smoothing (Dawn on SwiftShader)', () => {
  it('bilinear example: samples 0, 10, 20, 30 m at fx = 0.25, fy = 0.5 give 12.5 m', async () => {
    // 2 × 2 texture, row 0 = (h00, h10) = (0, 10), row 1 = (h01, h11) = (20, 30). Texel coordinate (0.25, 0.5) is
    // uv = ((0.25 + 0.5)/2, (0.5 + 0.5)/2).
    const t = textureFrom(ctx, new Float32Array([0, 10, 20, 30]), 2, 2, 'bilinear');
    const [h, a, b] = await sampleAt(ctx, t, [
      [0.375, 0.5, 0],
      [0.375, 0.25, 0], // row 0 alone: a = 0·0.75 + 10·0.25
      [0.375, 0.75, 0], // row 1 alone: b = 20·0.75 + 30·0.25
    ]);
    expect(a).toBe(2.5);
    expect(b).toBe(22.5);
    expect(h).toBe(12.5);
    t.destroy();
  });

  it('the filter impulse response matches the taps and weights (X pass, then Y pass)', async () => {
    const n = 32;
    const impulse = new Float32Array(n * n);
    impulse[13 * n + 16] = 1; // texel c = (16, 13)
    const src = textureFrom(ctx, impulse, n, n, 'impulse');
    const x = fieldTexture(ctx, n, n, 'x');
    const y = fieldTexture(ctx, n, n, 'y');
    const enc = ctx.device.createCommandEncoder();
    encodeFilter(ctx, enc, src, x, y);
    ctx.device.queue.submit([enc.finish()]);
    const gx = await readField(ctx, x);
    const gy = await readField(ctx, y);
    const rx = filterRef(impulse, n, 'x');
    const ry = filterRef(rx, n, 'y');
    expect(maxDiff(gx, rx)).toBeLessThan(1e-6);
    expect(maxDiff(gy, ry)).toBeLessThan(1e-6);
    // Hand-checked structure of the X response: the cross-axis +0.5 texel splits the impulse between output rows 12
    // and 13 (half each); along X, output i receives w_t·(1 − |i + off_t − 16|) from every tap within one texel.
    // i = 16: taps at 11.69, 13.62, 15.5, 17.38, 19.31 → only tap 3 (−0.5) reaches 16: w3·0.5 → row total 0.5·0.40187·0.5.
    expect(gx[13 * n + 16]).toBeCloseTo(0.5 * 0.40187 * 0.5, 6);
    expect(gx[12 * n + 16]).toBeCloseTo(0.5 * 0.40187 * 0.5, 6);
    expect(gx[14 * n + 16]).toBe(0);
    // The X response sums (over i) to Σ w = 1.000002 times 0.5 per row: the weights are not renormalised.
    let row = 0;
    for (let i = 0; i < n; i++) row += gx[13 * n + i];
    expect(row).toBeCloseTo(0.5 * 1.000002, 6);
    for (const t of [src, x, y]) t.destroy();
  });

  it('clamp addressing at the edge: an impulse at texel 0 keeps the weight of taps reaching past the edge', async () => {
    const n = 16;
    const f = new Float32Array(n * n);
    for (let j = 0; j < n; j++) f[j * n] = 1; // column 0 = 1
    const src = textureFrom(ctx, f, n, n, 'edge');
    const x = fieldTexture(ctx, n, n, 'x');
    const enc = ctx.device.createCommandEncoder();
    encodeSmoothingPass(ctx, enc, 'fs_filter_x', src, x);
    ctx.device.queue.submit([enc.finish()]);
    const g = await readField(ctx, x);
    expect(maxDiff(g, filterRef(f, n, 'x'))).toBeLessThan(1e-6);
    // Output column 0: taps at −4.31, −2.38, −0.5 clamp to texel 0 (value 1); tap at 1.375 reads 0; so w1 + w2 + w3.
    expect(g[5 * n]).toBeCloseTo(0.055028 + 0.244038 + 0.40187, 6);
    for (const t of [src, x]) t.destroy();
  });

  it('halving is centre-aligned: each output is the mean of its 2 × 2 block', async () => {
    const n = 8;
    const f = Float32Array.from({ length: n * n }, (_, k) => (k * 7) % 11);
    const src = textureFrom(ctx, f, n, n, 'h');
    const dst = fieldTexture(ctx, 4, 4, 'h2');
    const enc = ctx.device.createCommandEncoder();
    encodeSmoothingPass(ctx, enc, 'fs_halve', src, dst);
    ctx.device.queue.submit([enc.finish()]);
    const g = await readField(ctx, dst);
    for (let j = 0; j < 4; j++) {
      for (let i = 0; i < 4; i++) {
        const m = (f[2 * j * n + 2 * i] + f[2 * j * n + 2 * i + 1] + f[(2 * j + 1) * n + 2 * i] + f[(2 * j + 1) * n + 2 * i + 1]) / 4;
        expect(g[j * 4 + i]).toBeCloseTo(m, 5);
      }
    }
    for (const t of [src, dst]) t.destroy();
  });

  it('the whole chain (corrected rule: four filtered levels) matches a float64 evaluation of the article', async () => {
    const n = 32;
    const f = Float32Array.from({ length: n * n }, (_, k) => {
      const i = k % n;
      const j = Math.floor(k / n);
      return 3 * Math.sin(i * 0.4) + 0.2 * j + (i === 9 && j === 20 ? 10 : 0);
    });
    const raster = textureFrom(ctx, f, n, n, 'raster');
    const base = fieldTexture(ctx, n, n, 'base');
    const enc = ctx.device.createCommandEncoder();
    const res = encodeSmoothingChain(ctx, enc, raster, base, true);
    ctx.device.queue.submit([enc.finish()]);
    const got = await readField(ctx, base);
    // Reference, float64: L0 = filter(raster); L(k+1) = filter(halve(Lk)); base = (h2 − h3)·0.5 + h3.
    const filt = (g: ArrayLike<number>, m: number) => filterRef(filterRef(g, m, 'x'), m, 'y');
    const halve = (g: ArrayLike<number>, m: number) => {
      const h = new Float64Array((m / 2) * (m / 2));
      for (let j = 0; j < m / 2; j++) for (let i = 0; i < m / 2; i++) h[j * (m / 2) + i] = bilinear(g, m, 2 * i + 0.5, 2 * j + 0.5);
      return h;
    };
    let lv = filt(f, n);
    const levels = [lv];
    for (let m = n; m > 4; m /= 2) levels.push((lv = filt(halve(lv, m), m / 2)));
    const [l2, l3] = [levels[2], levels[3]];
    const ref = new Float64Array(n * n);
    for (let j = 0; j < n; j++) {
      for (let i = 0; i < n; i++) {
        const h2 = bilinear(l2, n / 4, ((i + 0.5) * (n / 4)) / n - 0.5, ((j + 0.5) * (n / 4)) / n - 0.5);
        const h3 = bilinear(l3, n / 8, ((i + 0.5) * (n / 8)) / n - 0.5, ((j + 0.5) * (n / 8)) / n - 0.5);
        ref[j * n + i] = (h2 - h3) * 0.5 + h3;
      }
    }
    expect(res.levels.map((t) => t.width)).toEqual([32, 16, 8, 4]);
    expect(maxDiff(got, ref)).toBeLessThan(1e-5);
    // The setting acts: without the full-resolution filter the base differs.
    const base2 = fieldTexture(ctx, n, n, 'base2');
    const enc2 = ctx.device.createCommandEncoder();
    const res2 = encodeSmoothingChain(ctx, enc2, raster, base2, false);
    ctx.device.queue.submit([enc2.finish()]);
    const got2 = await readField(ctx, base2);
    expect(res2.levels.map((t) => t.width)).toEqual([16, 8, 4]);
    expect(maxDiff(got2, got)).toBeGreaterThan(1e-3);
    for (const t of [raster, base, base2, ...res.levels, ...res.scratch, ...res2.levels, ...res2.scratch]) t.destroy();
  });
});
