/**
 * UNORM16 boundaries through the GPU encode shader, under both rules. Expected codes are derived in this file from
 * the rules as shared/notes/gpu-rules.md states them (Direct3D: ×65535, +0.5, truncate, each in float32; WGSL
 * pack2x16unorm: round half to even of the float32 product), using Math.fround — an independent reading, not src/gpu.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { textureFrom, type GpuContext } from '../src/gpu/context.js';
import { openDawn } from '../src/gpu/dawn-host.js';
import { encodeField, type EncodeRule } from '../src/gpu/encode.js';

let ctx: GpuContext;
beforeAll(async () => {
  ctx = await openDawn();
});

const f = Math.fround;

async function codes(values: number[], rule: EncodeRule, range = { min: 0, max: 1 }): Promise<number[]> {
  const padded = values.length % 2 ? [...values, 0] : values;
  const t = textureFrom(ctx, Float32Array.from(padded), padded.length, 1, 'enc');
  const c = await encodeField(ctx, t, range, rule);
  t.destroy();
  return [...c].slice(0, values.length);
}

/** Float32 values u whose float32 product u·65535 is exactly k + 0.5, for k of both parities. */
function halfway(): { u: number; k: number }[] {
  const found: { u: number; k: number }[] = [];
  for (let k = 1; k < 65535 && found.length < 12; k += 97) {
    const u = f((k + 0.5) / 65535);
    if (f(u * 65535) === k + 0.5) found.push({ u, k });
  }
  return found;
}

describe('GPU UNORM16 encode (Dawn on SwiftShader)', () => {
  it('endpoints, clamping, NaN and infinities', async () => {
    const v = [0, 1, -0.25, 1.5, NaN, Infinity, -Infinity, -0];
    const expected = [0, 65535, 0, 65535, 0, 65535, 0, 0];
    expect(await codes(v, 'd3d')).toEqual(expected);
    expect(await codes(v, 'pack2x16unorm')).toEqual(expected);
  });

  it('half-way products k + 0.5: Direct3D rounds up, pack2x16unorm rounds to even', async () => {
    const hw = halfway();
    expect(hw.some((h) => h.k % 2 === 0) && hw.some((h) => h.k % 2 === 1), 'test needs both parities').toBe(true);
    const d3d = await codes(
      hw.map((h) => h.u),
      'd3d',
    );
    const pack = await codes(
      hw.map((h) => h.u),
      'pack2x16unorm',
    );
    hw.forEach((h, k) => {
      expect(d3d[k], `d3d at u = ${h.u} (u·65535 = ${h.k}.5)`).toBe(h.k + 1);
      expect(pack[k], `pack2x16unorm at u = ${h.u} (u·65535 = ${h.k}.5)`).toBe(h.k % 2 === 0 ? h.k : h.k + 1);
    });
  });

  it('neighbours of a half-way value fall on either side under both rules', async () => {
    const { u, k } = halfway()[0];
    const below = f(u - 2 ** -30);
    const above = f(u + 2 ** -30);
    // Direct3D, step by step in float32.
    const d3d = (x: number) => Math.trunc(f(f(x * 65535) + 0.5));
    expect(await codes([below, above], 'd3d')).toEqual([d3d(below), d3d(above)]);
    expect(d3d(below)).toBe(k);
    expect(d3d(above)).toBe(k + 1);
  });

  it('the range map: H = 0 m over −500 … 500 m is the half-way product 32767.5 → 32768 under both rules', async () => {
    // 500 × fround(0.001) = 0.5000000237…, which rounds to exactly 0.5 in float32; 0.5 × 65535 = 32767.5 exactly:
    // Direct3D adds 0.5 → 32768; half to even picks 32768 (even) as well.
    const u = f(f(0 + 500) * f(1 / 1000));
    expect(u).toBe(0.5);
    const got = await codes([0, -500, 500, -600, 600, 250], 'd3d', { min: -500, max: 500 });
    expect(got.slice(0, 5)).toEqual([32768, 0, 65535, 0, 65535]);
    expect((await codes([0], 'pack2x16unorm', { min: -500, max: 500 }))[0]).toBe(32768);
    const u250 = f(f(250 + 500) * f(1 / 1000));
    expect(got[5]).toBe(Math.trunc(f(f(u250 * 65535) + 0.5)));
  });

  it('a bad range is a clear error', async () => {
    await expect(codes([0], 'd3d', { min: 1, max: 1 })).rejects.toThrow(/max > min/);
  });
});
