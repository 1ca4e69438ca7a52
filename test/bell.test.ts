import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { minstdRand0, readHeightfieldFile, shadeLightness } from '../src/api/notebook.js';
import { accumulateFast, accumulateNaive, bellGenerators, maxRelativeDeviation } from '../src/bell/bell-sum.js';
import { applySeaLevel } from '../src/bell/shading.js';
import { decodePng16 } from '../src/api/formats.js';
import { cli, tempDir } from './helpers.js';
import { helperCalls } from '../src/bell/helper.js';

describe('minstd_rand0 = std::minstd_rand0', () => {
  it('gives the C++ standard check value: the 10000th draw from the default seed is 1043618065', () => {
    const g = minstdRand0();
    let v = 0;
    for (let k = 0; k < 10000; k++) v = g.next();
    expect(v).toBe(1043618065);
    expect(g.draws).toBe(10000);
  });
  it('starts with the Park–Miller sequence from seed 1', () => {
    const g = minstdRand0(1);
    expect([g.next(), g.next(), g.next(), g.next(), g.next()]).toEqual([16807, 282475249, 1622650073, 984943658, 1144108930]);
  });
  it('seeds like linear_congruential_engine: seed mod m, and 1 when that is 0', () => {
    expect(minstdRand0(0).next()).toBe(16807);
    expect(minstdRand0(2147483647).next()).toBe(16807);
    expect(minstdRand0(2147483648).next()).toBe(16807); // 2^31 mod m = 1
  });
  it('refuses a non-integer seed', () => {
    expect(() => minstdRand0(1.5)).toThrow('minstdRand0 seed: expected an integer in [0, 9007199254740991], got 1.5');
  });
});

describe('bell accumulation (seed 002)', () => {
  it('draws x before y, u = raw / (2³¹ − 1)', () => {
    const [[x, y]] = bellGenerators(1, 1);
    expect(x).toBe(16807 / 2147483647);
    expect(y).toBe(282475249 / 2147483647);
  });
  it('one generator: H[i][j] = exp(−p2·d²)/p3, stored at row j, column i', () => {
    const n = 32;
    const p = { seed: 7, nb: 1, p1: 0.5, p2: 30, p3: 3, size: n };
    const h = accumulateNaive(p);
    const [[xg, yg]] = bellGenerators(7, 1);
    for (const [i, j] of [
      [0, 0],
      [5, 17],
      [31, 2],
    ]) {
      let x = -xg;
      for (let s = 0; s < i; s++) x += 1 / n;
      let y = -yg;
      for (let s = 0; s < j; s++) y += 1 / n;
      expect(h[j * n + i]).toBe(Math.exp(-30 * (x * x + y * y)) / 3);
    }
    // The peak sits at column ≈ xg·n, row ≈ yg·n.
    let best = 0;
    for (let k = 1; k < n * n; k++) if (h[k] > h[best]) best = k;
    expect(best % n).toBe(Math.round(xg * n));
    expect(Math.floor(best / n)).toBe(Math.round(yg * n));
  });
  it('later generators are narrower and lower: z = 1 + p1·k scales f1 and f2', () => {
    const p = { seed: 3, nb: 2, p1: 0.5, p2: 30, p3: 3, size: 16 };
    const both = accumulateNaive(p);
    const first = accumulateNaive({ ...p, nb: 1 });
    const [, [xg, yg]] = bellGenerators(3, 2);
    let x = -xg;
    for (let s = 0; s < 4; s++) x += 1 / 16;
    let y = -yg;
    for (let s = 0; s < 9; s++) y += 1 / 16;
    expect(both[9 * 16 + 4] - first[9 * 16 + 4]).toBeCloseTo(Math.exp(-45 * (x * x + y * y)) / 4.5, 15);
  });
  it('fast agrees with naive within 1e-6 relative (default parameters, 128², 100 generators)', () => {
    const p = { seed: 1, nb: 100, p1: 0.5, p2: 30, p3: 3, size: 128 };
    const naive = accumulateNaive(p);
    const fast = accumulateFast(p);
    const dev = maxRelativeDeviation(fast, naive);
    expect(dev).toBeLessThanOrEqual(1e-6);
    expect(dev).toBeLessThan(1e-13); // in practice: rounding only
  });
  it('the tolerance option skips small products and stays within nb × tolerance', () => {
    const p = { seed: 5, nb: 60, p1: 0.5, p2: 30, p3: 3, size: 96 };
    const naive = accumulateNaive(p);
    const tol = 1e-12;
    const fast = accumulateFast(p, undefined, tol);
    let maxAbs = 0;
    for (let k = 0; k < naive.length; k++) maxAbs = Math.max(maxAbs, Math.abs(fast[k] - naive[k]));
    // The promise is absolute: where H itself is tiny (far from every bell) a relative bound cannot hold.
    expect(maxAbs).toBeLessThanOrEqual(p.nb * tol);
    expect(maxAbs).toBeGreaterThan(0); // something was skipped
    const coarse = accumulateFast(p, undefined, 1e-3);
    let coarseAbs = 0;
    for (let k = 0; k < naive.length; k++) coarseAbs = Math.max(coarseAbs, Math.abs(coarse[k] - naive[k]));
    expect(coarseAbs).toBeLessThanOrEqual(p.nb * 1e-3);
    expect(coarseAbs).toBeGreaterThan(1e-5); // a loose tolerance is visible
  });
  it('the SIMD kernel and the JavaScript loop give the same bits (exact and with tolerance, odd sizes)', () => {
    const run = (noWasm: boolean, size: number, nb: number, tol: number, start = 0.25, p2 = 30) => {
      const prev = process.env.HEIGHTBENCH_NO_WASM;
      process.env.HEIGHTBENCH_NO_WASM = noWasm ? '1' : '0';
      try {
        const out = new Float64Array(size * size).fill(start); // accumulates onto what is there
        return accumulateFast({ seed: 7, nb, p1: 0.5, p2, p3: 3, size }, out, tol);
      } finally {
        if (prev === undefined) delete process.env.HEIGHTBENCH_NO_WASM;
        else process.env.HEIGHTBENCH_NO_WASM = prev;
      }
    };
    // 97: odd (range kernel); 98: dense kernel with a 2-column tail; 128: dense; tolerances: range kernel.
    for (const [size, nb, tol] of [
      [97, 13, 0],
      [98, 13, 0],
      [128, 40, 0],
      [97, 13, 1e-9],
      [64, 100, 1e-12],
    ] as const) {
      const js = run(true, size, nb, tol);
      const simd = run(false, size, nb, tol);
      expect(Buffer.from(simd.buffer).equals(Buffer.from(js.buffer))).toBe(true);
    }
    // A field holding −0 keeps −0 where every product is skipped: the dense kernel must not serve it.
    // (p2 = 5000: the bells underflow to 0 half a unit away, so pixels far from all three keep their −0.)
    const negJs = run(true, 64, 3, 0, -0, 5000);
    const negSimd = run(false, 64, 3, 0, -0, 5000);
    expect(negJs.some((v) => Object.is(v, -0))).toBe(true);
    expect(Buffer.from(negSimd.buffer).equals(Buffer.from(negJs.buffer))).toBe(true);
  });
  it('rows split with the helper thread give the same bits as one thread (exact and tolerance paths)', async () => {
    const p = { seed: 11, nb: 24, p1: 0.5, p2: 30, p3: 3, size: 256 };
    const one = (tol: number) => {
      process.env.HEIGHTBENCH_NO_THREADS = '1';
      try {
        return accumulateFast(p, undefined, tol);
      } finally {
        delete process.env.HEIGHTBENCH_NO_THREADS;
      }
    };
    accumulateFast(p); // starts the helper
    const before = helperCalls();
    for (let t = 0; t < 100 && helperCalls() === before; t++) {
      await new Promise((r) => setTimeout(r, 20));
      accumulateFast(p);
    }
    expect(helperCalls()).toBeGreaterThan(before); // the helper really ran rows
    for (const tol of [0, 1e-9]) {
      const a = accumulateFast(p, undefined, tol);
      expect(Buffer.from(a.buffer).equals(Buffer.from(one(tol).buffer))).toBe(true);
    }
  });
  it('the tolerance ranges found by bisection keep exactly the products a linear scan keeps', () => {
    // Reference: per row j and generator k, keep columns where fx_k·fy_k(j) ≥ tol by scanning inward from both ends.
    const p = { seed: 3, nb: 30, p1: 0.5, p2: 30, p3: 3, size: 80 };
    const tol = 1e-7;
    const n = p.size;
    const ref = new Float64Array(n * n);
    bellGenerators(p.seed, p.nb).forEach(([xg, yg], k) => {
      const z = 1 + p.p1 * k;
      const fx = new Float64Array(n);
      const fy = new Float64Array(n);
      for (let i = 0, x = -xg; i < n; i++, x += 1 / n) fx[i] = Math.exp(-p.p2 * z * (x * x)) / (p.p3 * z);
      for (let j = 0, y = -yg; j < n; j++, y += 1 / n) fy[j] = Math.exp(-p.p2 * z * (y * y));
      let lo = fx.findIndex((v) => v > tol);
      let hi = n - [...fx].reverse().findIndex((v) => v > tol);
      if (lo < 0) [lo, hi] = [n, n];
      for (let j = 0; j < n; j++) {
        if (fy[j] === 0) continue;
        let a0 = lo;
        let a1 = hi;
        while (a0 < a1 && fx[a0] < tol / fy[j]) a0++;
        while (a1 > a0 && fx[a1 - 1] < tol / fy[j]) a1--;
        for (let i = a0; i < a1; i++) ref[j * n + i] += fx[i] * fy[j];
      }
    });
    expect(Buffer.from(accumulateFast(p, undefined, tol).buffer).equals(Buffer.from(ref.buffer))).toBe(true);
  });
  it('refuses bad parameters', () => {
    expect(() => accumulateFast({ seed: 1, nb: 0, p1: 0.5, p2: 30, p3: 3, size: 8 })).toThrow('bell nb: expected an integer in [1, 100000], got 0');
    expect(() => accumulateFast({ seed: 1, nb: 1, p1: 0.5, p2: 30, p3: 0, size: 8 })).toThrow(/bell p3: expected > 0/);
  });
});

describe('sea level and shading (seed 002)', () => {
  it('sets heights below the level to it: T = max(0, H − level/100)', () => {
    expect(Array.from(applySeaLevel([0.01, 0.03, 0.5], 3))).toEqual([0, 0, 0.5 - 0.03]);
  });
  it('shades by the slope along j: C = floor(p3·exp(−p1·(n·ΔT/2 − p2)²))', () => {
    // A ramp rising 0.05 per step along j on a 4×4 grid: interior slope n·0.1/2 = 0.2, edges one-sided n·0.05 = 0.2.
    const n = 4;
    const t = Float64Array.from({ length: 16 }, (_, k) => Math.floor(k / n) * 0.05);
    const c = shadeLightness(t, n, { p1: 0.1, p2: -3, p3: 80 });
    const expected = Math.floor(80 * Math.exp(-((0.2 + 3) ** 2) * 0.1));
    expect(Array.from(c)).toEqual(new Array(16).fill(expected));
  });
});

describe('heightbench bell', () => {
  const d = tempDir('hb-bell-');
  it('writes R32 with a sidecar stating the index mapping', async () => {
    const out = join(d, 'bell.r32');
    const r = await cli('bell', out, '--size', '64', '--nb', '20', '--shaded', join(d, 'bell.png'));
    expect(r.code).toBe(0);
    const f = readHeightfieldFile(out);
    expect(f.field.grid.columns).toBe(64);
    expect(f.sidecar?.stage).toBe('bell');
    expect(String(f.sidecar?.notes?.indexMapping)).toMatch(/row j, column i/);
    const expected = accumulateFast({ seed: 1, nb: 20, p1: 0.5, p2: 30, p3: 3, size: 64 });
    if (f.field.kind === 'float') expect(f.field.height_px[100]).toBe(Math.fround(expected[100]));
    expect(readFileSync(join(d, 'bell.png')).subarray(1, 4).toString()).toBe('PNG');
  });
  it('naive and fast CLI outputs agree; PNG16 needs --range', async () => {
    const a = join(d, 'a.png');
    expect((await cli('bell', a, '--size', '32', '--nb', '10')).code).toBe(2);
    expect((await cli('bell', a, '--size', '32', '--nb', '10', '--range', '0,1', '--path', 'naive')).code).toBe(0);
    const b = join(d, 'b.png');
    expect((await cli('bell', b, '--size', '32', '--nb', '10', '--range', '0,1')).code).toBe(0);
    expect(Array.from(decodePng16(readFileSync(a)).codes)).toEqual(Array.from(decodePng16(readFileSync(b)).codes));
  });
});
