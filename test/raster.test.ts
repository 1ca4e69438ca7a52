import { Delaunay } from 'd3-delaunay';
import { describe, expect, it } from 'vitest';
import { barycentric, ownsEdge, rasterizeTriangles, snapFixed } from '../src/cpu/raster.js';
import type { TriangleList } from '../src/plan/fans.js';
import { runContext } from '../src/cpu/context.js';
import { helperCalls, helperReady, startHelper } from '../src/cpu/wasm/draw-thread.js';
import { bytes, testRandom } from './helpers.js';
import { resolveConventions } from '../src/conventions/index.js';

/** A random planar triangulation of the square [x0, x0 + size]² (corners included), heights 1 at every vertex. */
function randomTriangulation(seed: number, x0: number, size: number, points: number, onGrid = false): TriangleList {
  const rnd = testRandom(seed);
  const pts: number[] = [x0, x0, x0 + size, x0, x0, x0 + size, x0 + size, x0 + size];
  for (let k = 0; k < points; k++) {
    // onGrid: vertices exactly on pixel centres and pixel edges, the cases the fill rule exists for.
    const u = onGrid ? Math.round(rnd() * 64) / 64 : rnd();
    const v = onGrid ? Math.round(rnd() * 64) / 64 : rnd();
    pts.push(x0 + u * size, x0 + v * size);
  }
  const d = new Delaunay(Float64Array.from(pts));
  const count = d.triangles.length / 3;
  const xyh = new Float64Array(count * 9);
  for (let t = 0; t < count; t++) {
    for (let v = 0; v < 3; v++) {
      const p = d.triangles[3 * t + v];
      xyh[t * 9 + 3 * v] = pts[2 * p];
      xyh[t * 9 + 3 * v + 1] = pts[2 * p + 1];
      xyh[t * 9 + 3 * v + 2] = 1;
    }
  }
  return { xyh, count, polygon: new Int32Array(count) };
}

function coverageOf(tris: TriangleList, n: number, xmin: number, size: number): Uint16Array {
  const cov = new Uint16Array(n * n);
  rasterizeTriangles(tris, { xmin, ymin: xmin, size, n }, new Float32Array(n * n), 'f32', cov);
  return cov;
}

describe('coverage invariant: a planar triangulation covers every pixel exactly once', () => {
  it.each([
    ['random vertices', 1, false],
    ['vertices on pixel centres and edges', 2, true],
    ['another random set', 3, false],
  ])('%s', (_name, seed, onGrid) => {
    const n = 64;
    const cov = coverageOf(randomTriangulation(seed as number, 0, 64, 120, onGrid as boolean), n, 0, 64);
    const bad = cov.findIndex((c) => c !== 1);
    expect(bad, `pixel ${bad} covered ${cov[bad]} times`).toBe(-1);
  });
  it('still holds after sub-pixel translations and scalings', () => {
    const n = 48;
    for (const [dx, scale] of [
      [0.3, 1],
      [0.5, 1],
      [1 / 256, 1],
      [0.125, 1.37],
      [0.77, 0.91],
    ]) {
      // The triangulation spans a slightly larger square so the raster is fully inside it.
      const tris = randomTriangulation(7, -2 + dx, (n + 4) * scale, 90, false);
      const cov = coverageOf(tris, n, 0, n * scale);
      const bad = cov.findIndex((c) => c !== 1);
      expect(bad, `dx ${dx}, scale ${scale}: pixel ${bad} covered ${cov[bad]} times`).toBe(-1);
    }
  });
  it('does not depend on winding', () => {
    const n = 32;
    const tris = randomTriangulation(11, 0, 32, 40, true);
    const flipped: TriangleList = { ...tris, xyh: tris.xyh.slice() };
    for (let t = 0; t < tris.count; t++) {
      for (const k of [0, 1, 2]) [flipped.xyh[t * 9 + 3 + k], flipped.xyh[t * 9 + 6 + k]] = [tris.xyh[t * 9 + 6 + k], tris.xyh[t * 9 + 3 + k]];
    }
    expect(Array.from(coverageOf(flipped, n, 0, 32))).toEqual(Array.from(coverageOf(tris, n, 0, 32)));
  });
});

describe('GPU rules', () => {
  it('snaps to 16.8 fixed point', () => {
    expect(snapFixed(1.5)).toBe(384);
    expect(snapFixed(1 / 512 + 1e-9)).toBe(1);
    expect(snapFixed(0.3)).toBe(77);
  });
  it('the top-left rule gives a shared edge to exactly one side', () => {
    for (const [dx, dy] of [
      [1, 0],
      [0, 1],
      [3, -2],
      [-5, 7],
    ])
      expect(ownsEdge(dx, dy) !== ownsEdge(-dx, -dy)).toBe(true);
  });
  it('samples pixel centres: a triangle covering only the left half of a pixel row misses centres beyond x = i + 0.5', () => {
    // Triangle spanning raster x ∈ [0, 2.4] on one row: centres 0.5, 1.5 inside; 2.5 outside.
    const tris: TriangleList = { xyh: Float64Array.of(0, -5, 1, 2.4, -5, 1, 2.4, 10, 1, 0, -5, 1, 2.4, 10, 1, 0, 10, 1), count: 2, polygon: new Int32Array(2) };
    const cov = new Uint16Array(4 * 4);
    rasterizeTriangles(tris, { xmin: 0, ymin: 0, size: 4, n: 4 }, new Float32Array(16), 'f32', cov);
    expect(Array.from(cov.subarray(0, 4))).toEqual([1, 1, 0, 0]);
  });
  it('interpolates heights barycentrically and ADDs layers', () => {
    const target = new Float64Array(16);
    // One triangle covering the whole 4×4 raster with a plane h = x (raster units), drawn twice.
    const plane: TriangleList = { xyh: Float64Array.of(-10, -10, -10, 30, -10, 30, -10, 30, -10), count: 1, polygon: new Int32Array(1) };
    rasterizeTriangles(plane, { xmin: 0, ymin: 0, size: 4, n: 4 }, target, 'f64');
    rasterizeTriangles(plane, { xmin: 0, ymin: 0, size: 4, n: 4 }, target, 'f64');
    expect(target[5]).toBeCloseTo(2 * 1.5, 12); // pixel (1, 1): centre x = 1.5
  });
});

describe('SIMD raster kernel (the simd executor, drawing into its arena)', () => {
  it('adds overlapping triangles on two threads with the bytes of the JavaScript spans (each thread takes whole bands)', async () => {
    // Three triangulations in one list: most pixels get three spans in one call, so their order shows in the bytes.
    const n = 512;
    const g = { xmin: 0, ymin: 0, size: 64, n };
    const rnd = testRandom(77);
    const parts = [randomTriangulation(31, 0, 64, 300), randomTriangulation(32, 1.7, 60, 200), randomTriangulation(33, -2.1, 70, 250)];
    for (const t of parts) for (let k = 2; k < t.xyh.length; k += 3) t.xyh[k] = rnd() * 300 - 80;
    const count = parts.reduce((s, t) => s + t.count, 0);
    const xyh = new Float64Array(count * 9);
    let at = 0;
    for (const t of parts) {
      xyh.set(t.xyh, at);
      at += t.xyh.length;
    }
    const all: TriangleList = { xyh, count, polygon: new Int32Array(count) };
    const js = new Float32Array(n * n);
    rasterizeTriangles(all, g, js, 'f32');
    const saved = process.env.HEIGHTBENCH_NO_THREADS;
    try {
      for (const threads of [1, 2] as const) {
        if (threads === 1) process.env.HEIGHTBENCH_NO_THREADS = '1';
        else {
          delete process.env.HEIGHTBENCH_NO_THREADS;
          startHelper();
          for (let k = 0; k < 3000 && !helperReady(); k++) await new Promise((r) => setTimeout(r, 10));
          expect(helperReady()).toBe(true);
        }
        const ctx = runContext({ executor: 'simd', n });
        const before = helperCalls('raster');
        const stats = rasterizeTriangles(all, g, ctx.arena!.rasterView, ctx);
        const calls = helperCalls('raster') - before;
        // One shared call per rasterization: its 16 bands go to whichever thread claims each run of them first.
        expect(calls).toBe(threads === 1 ? 0 : 1);
        expect(stats).toEqual(rasterizeTriangles(all, g, new Float32Array(n * n), 'f32'));
        expect(bytes(ctx.arena!.rasterView).equals(bytes(js)), `${threads} thread(s)`).toBe(true);
      }
    } finally {
      if (saved === undefined) delete process.env.HEIGHTBENCH_NO_THREADS;
      else process.env.HEIGHTBENCH_NO_THREADS = saved;
    }
  });
  /** Random heights on a random triangulation, two layers with sub-pixel offsets, so every span shape occurs. */
  const layers = (seed: number) => {
    const a = randomTriangulation(seed, 0, 64, 80);
    const b = randomTriangulation(seed + 1, 3.3, 50.1, 40);
    const rnd = testRandom(seed + 2);
    for (const t of [a, b]) for (let k = 2; k < t.xyh.length; k += 3) t.xyh[k] = rnd() * 200 - 50;
    return [a, b];
  };
  it.each([32, 50, 96])('is bit-identical to the JavaScript f32 spans at %i²', (n) => {
    const g = { xmin: 0, ymin: 0, size: 64, n };
    const js = new Float32Array(n * n);
    const ctx = runContext({ executor: 'simd', n: n % 32 === 0 ? n : 32 * Math.ceil(n / 32) });
    // The span kernel serves any n; the context's arena is made for a multiple of 32 and its raster view cut to n².
    const arena = ctx.arena!;
    const simd = n % 32 === 0 ? arena.rasterView : null;
    const target = simd ?? new Float32Array(n * n);
    for (const t of layers(n)) {
      const sj = rasterizeTriangles(t, g, js, 'f32');
      const sw = rasterizeTriangles(t, g, target, simd ? ctx : 'f32');
      expect(sw).toEqual(sj);
    }
    expect(js.some((v) => v !== 0)).toBe(true);
    expect(bytes(target).equals(bytes(js))).toBe(true);
  });
  it.each([
    [0, 8],
    [0.25, 4],
    [0.5, 0],
  ])('matches the JavaScript spans under pixel centre %f and %i sub-pixel bits, on two threads', async (pixelCentre, bits) => {
    const conventions = resolveConventions({ grid: { pixelCentre } });
    const n = 256;
    const g = { xmin: -3, ymin: 2, size: 64, n };
    const js = new Float32Array(n * n);
    startHelper();
    for (let k = 0; k < 3000 && !helperReady(); k++) await new Promise((r) => setTimeout(r, 10));
    const ctx = runContext({ executor: 'simd', n, conventions });
    const jsCtx = runContext({ executor: 'js-f32', n, conventions });
    const before = helperCalls('raster');
    for (const t of layers(40 + bits)) {
      const want = rasterizeTriangles(t, g, js, jsCtx, undefined, bits);
      expect(rasterizeTriangles(t, g, ctx.arena!.rasterView, ctx, undefined, bits)).toEqual(want);
    }
    expect(helperCalls('raster') - before).toBe(2);
    expect(js.some((v) => v !== 0)).toBe(true);
    expect(bytes(ctx.arena!.rasterView).equals(bytes(js))).toBe(true);
  });
  it('draws with the JavaScript loops, with the same bytes, when the triangle records do not fit the arena', () => {
    const n = 64;
    const g = { xmin: 0, ymin: 0, size: 64, n };
    const js = new Float32Array(n * n);
    const ctx = runContext({ executor: 'simd', n });
    const arena = ctx.arena!;
    arena.assetsTop = arena.assetsEnd; // no free asset room left for the records
    const before = helperCalls('raster');
    for (const t of layers(5)) expect(rasterizeTriangles(t, g, arena.rasterView, ctx)).toEqual(rasterizeTriangles(t, g, js, 'f32'));
    expect(helperCalls('raster')).toBe(before);
    expect(js.some((v) => v !== 0)).toBe(true);
    expect(bytes(arena.rasterView).equals(bytes(js))).toBe(true);
  });
  it('the simd executor refuses a target that is not its arena raster, and is refused where the kernels are off', () => {
    const ctx = runContext({ executor: 'simd', n: 32 });
    const t = layers(1)[0];
    expect(() => rasterizeTriangles(t, { xmin: 0, ymin: 0, size: 64, n: 32 }, new Float32Array(32 * 32), ctx)).toThrow(/arena's 32² raster view/);
    const prev = process.env.HEIGHTBENCH_NO_WASM;
    process.env.HEIGHTBENCH_NO_WASM = '1';
    try {
      expect(() => runContext({ executor: 'simd', n: 32 })).toThrow(/kernels cannot run .*use executor js-f32/);
      expect(runContext({ precision: 'f32', n: 32 }).executor).toBe('js-f32');
    } finally {
      if (prev === undefined) delete process.env.HEIGHTBENCH_NO_WASM;
      else process.env.HEIGHTBENCH_NO_WASM = prev;
    }
  });
});

describe('barycentric (article: P = (2, 3) in A(0,0), B(10,0), C(0,10))', () => {
  it('weights 0.5, 0.2, 0.3 and height 8 m with 0/10/20', () => {
    const [l0, l1, l2] = barycentric([2, 3], [0, 0], [10, 0], [0, 10]);
    expect(l0).toBeCloseTo(0.5, 15);
    expect(l1).toBeCloseTo(0.2, 15);
    expect(l2).toBeCloseTo(0.3, 15);
    expect(l0 * 0 + l1 * 10 + l2 * 20).toBeCloseTo(8, 14);
    const [m0, m1, m2] = barycentric([5, 0], [0, 0], [10, 0], [0, 10]);
    expect([m0, m1, m2]).toEqual([0.5, 0.5, 0]); // on AB: C's weight is 0, height 5 m
  });
});
