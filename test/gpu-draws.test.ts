/**
 * GPU draws against hand-computed answers: trilinear mip blending in an asset draw (the article's LOD 2.25 example),
 * the LOD the derivative rule forms, the uv settings, blend-unit ADD/MAX/MIN with existing-terrain operands, the
 * envelope reduction, and the outer blend's teaching values (20 m inside, −2 m outside: 16.5625 m at 635 m, …).
 * Expected values are the article's numbers or arithmetic written here.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { assetTexture, encodeAssetDraw, type AssetDrawParams } from '../src/gpu/asset-draw.js';
import { fieldTexture, readField, textureFrom, type GpuContext, type GpuGrid } from '../src/gpu/context.js';
import { openDawn } from '../src/gpu/dawn-host.js';
import { envelopeRunner, readEnvelopes } from '../src/gpu/envelope.js';
import { encodeOuterBlend } from '../src/gpu/outer.js';

let ctx: GpuContext;
beforeAll(async () => {
  ctx = await openDawn();
});

/** A constant-per-level mip chain: level k filled with values[k]. */
function levels(n0: number, values: number[]): { levels: Float32Array[]; sizes: number[] } {
  const sizes = values.map((_, k) => Math.max(1, n0 >> k));
  return { sizes, levels: sizes.map((s, k) => new Float32Array(s * s).fill(values[k])) };
}

async function draw(
  grid: GpuGrid,
  fieldValues: Float32Array,
  asset: GPUTexture,
  worldSize: number,
  m: number[],
  p: AssetDrawParams,
  env?: GPUBuffer,
): Promise<Float32Array> {
  const f = textureFrom(ctx, fieldValues, grid.n, grid.n, 'field');
  const old = fieldTexture(ctx, grid.n, grid.n, 'old');
  const dummy = ctx.device.createBuffer({ size: 16, usage: 0x80 | 0x8 });
  const enc = ctx.device.createCommandEncoder();
  encodeAssetDraw(ctx, enc, grid, asset, worldSize, m, p, f, { env: env ?? dummy, targets: dummy, old });
  ctx.device.queue.submit([enc.finish()]);
  const out = await readField(ctx, f);
  for (const t of [f, old]) t.destroy();
  dummy.destroy();
  return out;
}

describe('GPU asset draws, envelopes and outer blend (Dawn on SwiftShader)', () => {
  const grid: GpuGrid = { xmin: 0, ymin: 0, size: 32, n: 32 }; // 1 m pixels
  const identityAt = (x: number, y: number): number[] => [1, 0, 0, 1, x, y];

  it('trilinear: LOD 2.25 blends levels 2 and 3 at 0.75 and 0.25 (levels hold 0, 10, 20, 30 m → 22.5 m)', async () => {
    const a = levels(16, [0, 10, 20, 30, 40]);
    const t = assetTexture(ctx, a.levels, a.sizes, 'chain');
    const out = await draw(grid, new Float32Array(32 * 32), t, 8, identityAt(16, 16), {
      mode: 'add',
      k: 1,
      lodSource: 'list',
      lodList: 2.25,
      uvSource: 'inverse',
      worldToLocal: [1, 0, 0, 1, -16, -16],
    });
    expect(out[16 * 32 + 16]).toBeCloseTo(22.5, 5);
    expect(out[0]).toBe(0); // outside the asset square: not drawn
    t.destroy();
  });

  it('derivative LOD: 64 texels over 16 m drawn on 1 m pixels is 4 texels per pixel → level 2 (20 m)', async () => {
    const a = levels(64, [0, 10, 20, 30, 40, 50, 60]);
    const t = assetTexture(ctx, a.levels, a.sizes, 'chain64');
    const out = await draw(grid, new Float32Array(32 * 32), t, 16, identityAt(16, 16), {
      mode: 'add',
      k: 1,
      lodSource: 'derivatives',
      uvSource: 'inverse',
      worldToLocal: [1, 0, 0, 1, -16, -16],
    });
    expect(out[16 * 32 + 16]).toBeCloseTo(20, 4);
    // The same draw with the list's LOD set elsewhere shows the setting acts: LOD 1 → 10 m.
    const out2 = await draw(grid, new Float32Array(32 * 32), t, 16, identityAt(16, 16), {
      mode: 'add',
      k: 1,
      lodSource: 'list',
      lodList: 1,
      uvSource: 'inverse',
      worldToLocal: [1, 0, 0, 1, -16, -16],
    });
    expect(out2[16 * 32 + 16]).toBeCloseTo(10, 5);
    t.destroy();
  });

  it('uv: the inverse map follows the exact local position; the interpolated varying carries the vertex snap', async () => {
    // Level 0 is a ramp along u: texel i holds 100·(i + 0.5)/64, so bilinear sampling returns 100·u exactly inside.
    const n0 = 64;
    const ramp = new Float32Array(n0 * n0).map((_, k) => (100 * ((k % n0) + 0.5)) / n0);
    const t = assetTexture(ctx, [ramp], [n0], 'ramp');
    const th = 0.3;
    const [c, s] = [Math.cos(th), Math.sin(th)];
    const [ex, ey] = [16.013, 15.987]; // off the 1/16-pixel grid on purpose
    const l2w = [c, s, -s, c, ex, ey];
    const w2l = [c, -s, s, c, -(c * ex + s * ey), -(-s * ex + c * ey)];
    const W = 8;
    const base = { mode: 'add' as const, k: 1, lodSource: 'list' as const, lodList: 0, worldToLocal: w2l };
    const inv = await draw(grid, new Float32Array(32 * 32), t, W, l2w, { ...base, uvSource: 'inverse' });
    const itp = await draw(grid, new Float32Array(32 * 32), t, W, l2w, { ...base, uvSource: 'interpolated' });
    let errInv = 0;
    let gap = 0;
    let checked = 0;
    for (let j = 0; j < 32; j++) {
      for (let i = 0; i < 32; i++) {
        const x = i + 0.5;
        const y = j + 0.5;
        const u = (w2l[0] * x + w2l[2] * y + w2l[4]) / W + 0.5;
        const v = (w2l[1] * x + w2l[3] * y + w2l[5]) / W + 0.5;
        if (u < 0.1 || u > 0.9 || v < 0.1 || v > 0.9) continue;
        checked++;
        errInv = Math.max(errInv, Math.abs(inv[j * 32 + i] - 100 * u));
        gap = Math.max(gap, Math.abs(itp[j * 32 + i] - inv[j * 32 + i]));
      }
    }
    expect(checked).toBeGreaterThan(20);
    expect(errInv).toBeLessThan(1e-3);
    // A 1/16-pixel snap moves u by up to (1/32 px)·(1/8 per px) = 0.0039 → up to 0.39 m on this ramp.
    expect(gap).toBeGreaterThan(1e-3);
    expect(gap).toBeLessThan(0.4);
    t.destroy();
  });

  it('envelopes: min, max, centre and count over a rectangle and a circle mask', async () => {
    const n = 16;
    const f = Float32Array.from({ length: n * n }, (_, k) => (k % n) + 100 * Math.floor(k / n)); // i + 100 j
    const tex = textureFrom(ctx, f, n, n, 'env');
    const g: GpuGrid = { xmin: 0, ymin: 0, size: 16, n };
    const r = envelopeRunner(ctx, g, [
      { i0: 2, i1: 5, j0: 3, j1: 7, ci: 4, cj: 4 },
      { i0: 0, i1: 15, j0: 0, j1: 15, ci: 8, cj: 8, shape: { kind: 'circle', x: 8, y: 8, radius: 1.5 } },
      { i0: 5, i1: 4, j0: 0, j1: 0, ci: 1, cj: 2 },
    ]);
    const enc = ctx.device.createCommandEncoder();
    r.encode(enc, tex, 0, 3);
    ctx.device.queue.submit([enc.finish()]);
    const e = await readEnvelopes(ctx, r, 3);
    expect([...e.slice(0, 4)]).toEqual([2 + 300, 5 + 700, 4 + 400, 20]);
    // Circle r = 1.5 at (8, 8): the 2 × 2 block of centres (7.5 | 8.5)² lies at 0.71 m; the next ring, e.g. (6.5, 7.5),
    // at √(2.25 + 0.25) = 1.58 m > 1.5. Count 4, min 7 + 700, max 8 + 800, centre pixel (8, 8) = 808.
    expect([...e.slice(4, 8)]).toEqual([707, 808, 808, 4]);
    expect(e[11]).toBe(0); // empty rectangle: count 0 (the caller falls back to the centre value)
    expect(e[10]).toBe(201);
    r.destroy();
    tex.destroy();
  });

  it('blend unit: ADD, MAX and MIN with footprint operands (field 5 m, asset 2 m)', async () => {
    const n = 16;
    const g: GpuGrid = { xmin: 0, ymin: 0, size: 16, n };
    const field = new Float32Array(n * n).fill(5);
    const a = levels(4, [2, 2, 2]);
    const t = assetTexture(ctx, a.levels, a.sizes, 'two');
    const ftex = textureFrom(ctx, field, n, n, 'env src');
    const r = envelopeRunner(ctx, g, [{ i0: 0, i1: 15, j0: 0, j1: 15, ci: 8, cj: 8 }]);
    const enc = ctx.device.createCommandEncoder();
    r.encode(enc, ftex, 0, 1);
    ctx.device.queue.submit([enc.finish()]);
    const m = identityAt(8, 8);
    const w2l = [1, 0, 0, 1, -8, -8];
    const common = { k: 1, lodSource: 'list' as const, lodList: 0, uvSource: 'inverse' as const, worldToLocal: w2l, envIndex: 0 };
    const add = await draw(g, field, t, 4, m, { ...common, mode: 'add' }, r.result);
    const max = await draw(g, field, t, 4, m, { ...common, mode: 'max', operand: 'footprint-max', plus: 1 }, r.result);
    const min = await draw(g, field, t, 4, m, { ...common, mode: 'min', operand: 'footprint-min', plus: -10 }, r.result);
    const lerp = await draw(g, field, t, 4, m, { ...common, mode: 'lerp', operand: 'footprint-centre', a: 0.5, sMax: 4 }, r.result);
    const k = 8 * n + 8;
    expect(add[k]).toBe(7); // 5 + 1·2
    expect(max[k]).toBe(8); // max(5, (5 + 1) + 2)
    expect(min[k]).toBe(-3); // min(5, (5 − 10) + 2)
    expect(lerp[k]).toBe(5.5); // 5 + 0.5·(2/4)·((5 + 2) − 5)
    expect(add[0]).toBe(5); // outside the 4 m square around (8, 8)
    r.destroy();
    t.destroy();
    ftex.destroy();
  });

  it("outer blend: the article's teaching values (20 m inside, −2 m outside, band 620–680 m)", async () => {
    // 5 m pixels, row 0 at y = 0, column i at x = 600 + 5i: radii 620, 635, 650, 665, 680 at i = 4, 7, 10, 13, 16.
    const g: GpuGrid = { xmin: 597.5, ymin: -2.5, size: 160, n: 32 };
    const inner = textureFrom(ctx, new Float32Array(32 * 32).fill(20), 32, 32, 'inner');
    const out = fieldTexture(ctx, 32, 32, 'out');
    const enc = ctx.device.createCommandEncoder();
    encodeOuterBlend(ctx, enc, g, { centre: [0, 0], inner: 620, outer: 680 }, inner, -2, out);
    ctx.device.queue.submit([enc.finish()]);
    const f = await readField(ctx, out);
    expect(f[4]).toBe(20);
    expect(f[7]).toBeCloseTo(16.5625, 5);
    expect(f[10]).toBeCloseTo(9, 5);
    expect(f[13]).toBeCloseTo(1.4375, 5);
    expect(f[16]).toBe(-2);
    expect(f[0]).toBe(20);
    expect(f[31]).toBe(-2);
    for (const t of [inner, out]) t.destroy();
  });
});
