import { describe, expect, it } from 'vitest';
import { decodeHeightR16, encodeHeightR16, encodeUnorm16, heightToUnorm } from '../src/index.js';
import { DEFAULT_RANGE, metresPerCode } from '../src/core/grid.js';
import { decodeFieldR16, encodeFieldR16 } from '../src/core/encoding.js';
import { testRandom } from './helpers.js';
import { createArena } from '../src/cpu/wasm/arena.js';
import { encodeInArena } from '../src/cpu/wasm/encode-kernel.js';

const f32 = Math.fround;

describe('UNORM16 (Direct3D float → UNORM rule, float32)', () => {
  it('maps the boundaries and non-finite inputs', () => {
    expect(encodeUnorm16(0)).toBe(0);
    expect(encodeUnorm16(1)).toBe(65535);
    expect(encodeUnorm16(Number.NaN)).toBe(0);
    expect(encodeUnorm16(Infinity)).toBe(65535);
    expect(encodeUnorm16(-Infinity)).toBe(0);
    expect(encodeUnorm16(-0.25)).toBe(0);
    expect(encodeUnorm16(1.5)).toBe(65535);
    expect(encodeUnorm16(-0)).toBe(0);
  });

  it('rounds a float32 product that lands exactly on k + 0.5 up to k + 1 (not ties-to-even)', () => {
    // Find float32 inputs u whose float32 product u × 65535 is exactly k + 0.5, for an even and an odd k.
    const found: { u: number; k: number }[] = [];
    for (let k = 1000; k < 60000 && found.length < 40; k += 7) {
      const u0 = f32((k + 0.5) / 65535);
      for (const u of [u0, f32(u0 * (1 + 2 ** -23)), f32(u0 * (1 - 2 ** -23))]) {
        if (f32(u * 65535) === k + 0.5) found.push({ u, k });
      }
    }
    expect(found.some((x) => x.k % 2 === 0)).toBe(true);
    expect(found.some((x) => x.k % 2 === 1)).toBe(true);
    for (const { u, k } of found) expect(encodeUnorm16(u)).toBe(k + 1);
  });

  it('agrees with a direct float32 evaluation on random inputs', () => {
    const rnd = testRandom(7);
    for (let n = 0; n < 20000; n++) {
      const u = rnd() * 1.2 - 0.1;
      const c = Math.min(Math.max(f32(u), 0), 1);
      const expected = Math.trunc(f32(f32(c * 65535) + 0.5));
      expect(encodeUnorm16(u)).toBe(expected);
    }
  });
});

describe('height encoding, −500 … 500 m (article: Encoding a Deliverable R16 Heightmap)', () => {
  it('has one code = 1000/65535 m ≈ 1.526 cm', () => {
    expect(metresPerCode(DEFAULT_RANGE)).toBe(1000 / 65535);
    expect(metresPerCode()).toBeCloseTo(0.015259, 6);
    expect(metresPerCode() * 100).toBeCloseTo(1.526, 3); // centimetres
  });
  it('decodes q × 1000 / 65535 − 500', () => {
    expect(decodeHeightR16(0)).toBe(-500);
    expect(decodeHeightR16(65535)).toBe(500);
    expect(decodeHeightR16(32768)).toBe((32768 * 1000) / 65535 - 500);
  });
  it('evaluates u = (H + 500) × 0.001 in float32 as written', () => {
    for (const h of [0, 13.671875, -499.99, 123.456, 499.9]) {
      expect(heightToUnorm(h)).toBe(f32(f32(f32(h) + 500) * f32(0.001)));
    }
  });
  it('round-trips every code: encode(decode(q)) = q', () => {
    for (let q = 0; q <= 65535; q++) {
      if (encodeHeightR16(decodeHeightR16(q)) !== q) throw new Error(`code ${q} does not round-trip`);
    }
  });
  it('clamps out-of-range heights to the end codes', () => {
    expect(encodeHeightR16(-600)).toBe(0);
    expect(encodeHeightR16(600)).toBe(65535);
    expect(encodeHeightR16(Number.NaN)).toBe(0);
  });
  it('refuses an empty or inverted range', () => {
    expect(() => encodeHeightR16(0, { min: 5, max: 5 })).toThrow(/expected max > min, got min 5, max 5/);
  });
});

describe('field encoding counts what the range clamped', () => {
  it('matches the scalar rule and counts low, high and NaN separately', () => {
    const rnd = testRandom(3);
    const h = new Float32Array(5000);
    for (let i = 0; i < h.length; i++) h[i] = (rnd() - 0.5) * 1100;
    h[0] = Number.NaN;
    h[1] = -500; // exactly the minimum: code 0, not clamped
    h[2] = 500; // exactly the maximum: code 65535, not clamped
    const codes = new Uint16Array(h.length);
    const counts = encodeFieldR16(h, codes, DEFAULT_RANGE);
    let low = 0;
    let high = 0;
    for (let i = 0; i < h.length; i++) {
      expect(codes[i]).toBe(encodeHeightR16(h[i]));
      if (h[i] < -500) low++;
      if (h[i] > 500) high++;
    }
    expect(counts).toEqual({ clampedLow: low, clampedHigh: high, nan: 1 });
    expect(low).toBeGreaterThan(0);
    expect(high).toBeGreaterThan(0);
    expect(codes[1]).toBe(0);
    expect(codes[2]).toBe(65535);
  });
  it('decodes a field with the exact per-code formula', () => {
    const q = Uint16Array.of(0, 1, 32767, 65535);
    const out = decodeFieldR16(q, new Float64Array(4));
    expect(Array.from(out)).toEqual(Array.from(q, (x) => decodeHeightR16(x)));
  });
  it('refuses mismatched buffer lengths', () => {
    expect(() => encodeFieldR16(new Float32Array(4), new Uint16Array(3))).toThrow(/output length 3 does not match input length 4/);
  });
});

describe('SIMD encoding of typed fields (encode.wat, in chunks)', () => {
  it('equals encodeHeightR16 per element for float32 and float64 fields over several chunks with a tail', () => {
    const n = (1 << 18) * 2 + (1 << 16) + 5; // more than two chunks, length not a multiple of 8
    const rnd = testRandom(17);
    const f64 = Float64Array.from({ length: n }, (_, k) => (k % 9973 === 0 ? NaN : k % 7919 === 0 ? -0 : rnd() * 1300 - 650));
    for (const field of [f64, Float32Array.from(f64)]) {
      const out = new Uint16Array(n);
      const counts = encodeFieldR16(field, out);
      let low = 0;
      let high = 0;
      let nan = 0;
      for (let k = 0; k < n; k++) {
        const h = field[k];
        if (Number.isNaN(h)) nan++;
        else if (heightToUnorm(h) < 0) low++;
        else if (heightToUnorm(h) > 1) high++;
        if (out[k] !== encodeHeightR16(h)) throw new Error(`sample ${k}: ${h} encodes as ${out[k]}, expected ${encodeHeightR16(h)}`);
      }
      expect(counts).toEqual({ clampedLow: low, clampedHigh: high, nan });
      expect(nan).toBeGreaterThan(0);
    }
  });
});

describe('SIMD encoding of arena fields (encode.wat)', () => {
  it('gives the codes and counts of encodeFieldR16, including NaN, ±∞, clamping and exact half-way products', () => {
    const n = 64;
    const arena = createArena(n)!.arena;
    const field = arena.rasterView;
    const rnd = testRandom(11);
    const special = [NaN, Infinity, -Infinity, -500, 500, -500.0001, 500.0001, 0, -0, 1e30, -1e30];
    for (let k = 0; k < field.length; k++) field[k] = k < special.length ? special[k] : rnd() * 1200 - 600;
    // Heights whose float32 u·65535 lands exactly on k + 0.5 (round half up must give k + 1).
    for (let k = 0; k < 200; k++) field[100 + k] = Math.fround(-500 + ((k + 0.5) / 65535) * 1000);
    for (const [range, rounding] of [
      [{ min: -500, max: 500 }, 'half-up'],
      [{ min: -20, max: 300 }, 'half-up'],
      [{ min: -500, max: 500 }, 'half-even'],
    ] as const) {
      const simd = encodeInArena(field, range, arena, rounding);
      expect(simd).not.toBeNull();
      const js = new Uint16Array(field.length);
      const counts = encodeFieldR16(Float32Array.from(field), js, range, rounding);
      expect(simd!.counts).toEqual(counts);
      expect(counts.nan).toBe(1);
      expect(counts.clampedLow).toBeGreaterThan(0);
      expect(Buffer.from(simd!.codes.buffer, simd!.codes.byteOffset, simd!.codes.byteLength).equals(Buffer.from(js.buffer))).toBe(true);
    }
    expect(() => encodeInArena(new Float32Array(n * n), { min: -500, max: 500 }, arena)).toThrow(/not the 64² base of this arena/);
  });
});
