/**
 * The executor's helper thread (src/cpu/wasm/draw-thread.ts) takes whole draws of a stage's draw queue, row bands of
 * large single draws, of every pass of the smoothing chain, of the outer blend and of the encode; every row is still written by one thread in single-threaded order, so a run
 * writes the same bytes with and without it. Counts work (the helper's kernel calls), no clocks.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { helperBands, helperCalls, helperReady, startHelper, type KernelName } from '../src/cpu/wasm/draw-thread.js';
import { createArena, prepareArena } from '../src/cpu/wasm/arena.js';
import { encodeInArena, pngScanlinesInArena } from '../src/cpu/wasm/encode-kernel.js';
import { upFilteredRows } from '../src/io/png16.js';
import { smoothingChain } from '../src/cpu/smoothing.js';
import { runContext } from '../src/cpu/context.js';
import { encodeFieldR16 } from '../src/core/encoding.js';
import { applyOuterBlend, outerBlend } from '../src/cpu/outer.js';
import { drawInArena, type KernelDraw } from '../src/cpu/wasm/draw-kernel.js';
import type { HeightAsset } from '../src/assets/assets.js';
import { cli, tempDir, testRandom } from './helpers.js';

const d = tempDir('hb-threads-');
const saved = process.env.HEIGHTBENCH_NO_THREADS;
afterEach(() => {
  if (saved === undefined) delete process.env.HEIGHTBENCH_NO_THREADS;
  else process.env.HEIGHTBENCH_NO_THREADS = saved;
});

/** Starts the helper and yields to the event loop until it is ready (a wait, not a measurement). */
async function readyHelper(): Promise<void> {
  delete process.env.HEIGHTBENCH_NO_THREADS;
  startHelper();
  for (let k = 0; k < 3000 && !helperReady(); k++) await new Promise((r) => setTimeout(r, 10));
  expect(helperReady()).toBe(true);
}

/** Runs `f` with one thread (HEIGHTBENCH_NO_THREADS=1) or two, and returns how many kernel calls the helper ran. */
async function counted(threads: 1 | 2, f: () => unknown, kernel?: KernelName): Promise<number> {
  if (threads === 1) process.env.HEIGHTBENCH_NO_THREADS = '1';
  else delete process.env.HEIGHTBENCH_NO_THREADS;
  const before = helperCalls(kernel);
  await f();
  return helperCalls(kernel) - before;
}

const SMOOTHING_KERNELS: KernelName[] = ['downsample', 'filterX', 'filterY', 'lerpLevelRows', 'composeRows'];
const bytes = (a: ArrayBufferView) => Buffer.from(a.buffer, a.byteOffset, a.byteLength);

describe('the executor on two threads', () => {
  it('draws the same pixels on one thread and on two (draws split by rows)', async () => {
    await readyHelper();
    const n = 512;
    const sizes = [64, 32, 16, 8, 4, 2, 1];
    const rnd = testRandom(7);
    const asset = {
      size: 64,
      sizes,
      worldSize: 40,
      levels: sizes.map((s) => Float32Array.from({ length: s * s }, () => rnd() * 10 - 3)),
    } as unknown as HeightAsset;
    // Rotated, scaled squares of every mode, overlapping, some too small to split.
    const draws: KernelDraw[] = Array.from({ length: 60 }, (_, k) => {
      const a = rnd() * Math.PI;
      const s = 0.3 + rnd() * 5;
      const [cx, cy] = [rnd() * n, rnd() * n];
      const [c, sn] = [Math.cos(a) / s, Math.sin(a) / s];
      const half = Math.ceil(40 * s * 0.75);
      const box = (v: number): [number, number] => [Math.max(0, Math.floor(v - half)), Math.min(n - 1, Math.ceil(v + half))];
      return {
        inv: [c, -sn, sn, c, -(c * cx + sn * cy), sn * cx - c * cy],
        W: 40,
        grid: { xmin: 0, ymin: 0, size: n, n },
        cols: box(cx),
        rows: box(cy),
        lower: k % 3,
        upper: (k % 3) + 1,
        twoLevels: k % 2 === 0,
        wA: Math.fround(0.75),
        wB: Math.fround(0.25),
        mode: (k % 5) as KernelDraw['mode'],
        k: Math.fround(0.5 + rnd()),
        c: Math.fround(rnd() * 4),
        a: Math.fround(rnd()),
        sMax: 7,
        pc: 0.5,
      };
    });
    const fields: Float32Array[] = [];
    const pixels: number[][] = [];
    const calls: number[] = [];
    for (const threads of [1, 2] as const) {
      const { arena, raster } = createArena(n)!;
      raster.forEach((_, q) => (raster[q] = (q % 97) * 0.25));
      const drawn: number[] = [];
      calls.push(await counted(threads, () => draws.forEach((dr) => drawn.push(drawInArena(raster, asset, dr, arena)!))));
      fields.push(raster);
      pixels.push(drawn);
    }
    expect(calls[0]).toBe(0);
    // Some draws were split with the helper, not all (the small ones stay on this thread).
    expect(calls[1]).toBeGreaterThan(5);
    expect(calls[1]).toBeLessThan(draws.length);
    expect(pixels[1]).toEqual(pixels[0]);
    expect(pixels[0].reduce((s, p) => s + p, 0)).toBeGreaterThan(10_000);
    expect(
      Buffer.from(fields[1].buffer, fields[1].byteOffset, fields[1].byteLength).equals(
        Buffer.from(fields[0].buffer, fields[0].byteOffset, fields[0].byteLength),
      ),
    ).toBe(true);
  });

  it('smooths to the same bytes on one thread and on two, and as the JavaScript f32 path (each pass split by rows)', async () => {
    await readyHelper();
    const n = 1024;
    const rnd = testRandom(11);
    const src = Float32Array.from({ length: n * n }, () => rnd() * 40 - 5);
    const js = smoothingChain(src, n, runContext({ executor: 'js-f32', n }), new Float32Array(n * n));
    for (const baseOverRaster of [false, true]) {
      const calls: number[][] = [];
      for (const threads of [1, 2] as const) {
        const per = SMOOTHING_KERNELS.map(() => 0);
        const before = SMOOTHING_KERNELS.map((k) => helperCalls(k));
        let out: { levels: Float32Array[]; base: Float32Array } | undefined;
        await counted(threads, () => {
          // In place (the base over the raster): the passes' bands overwrite rows the other band reads.
          const ctx = runContext({ executor: 'simd', n, baseOverRaster });
          const r = baseOverRaster ? ctx.arena!.rasterView : src;
          if (baseOverRaster) r.set(src);
          out = smoothingChain(r, n, ctx) as { levels: Float32Array[]; base: Float32Array };
        });
        SMOOTHING_KERNELS.forEach((k, q) => (per[q] = helperCalls(k) - before[q]));
        calls.push(per);
        expect(bytes(out!.base).equals(bytes(js.base)), `base, ${threads} thread(s)`).toBe(true);
        js.levels.forEach((l, q) => expect(bytes(out!.levels[q]).equals(bytes(l)), `level ${q + 1}, ${threads} thread(s)`).toBe(true));
      }
      expect(calls[0]).toEqual([0, 0, 0, 0, 0]);
      // 1024²: L0's two passes and L1's (512²), each level's halving, the N/4 rows and the composition ran on both.
      for (const c of calls[1]) expect(c).toBeGreaterThan(0);
      expect(calls[1][SMOOTHING_KERNELS.indexOf('filterY')]).toBe(3);
    }
  });

  it('encodes the same codes and counts on one thread and on two (the halves on both)', async () => {
    await readyHelper();
    const n = 1024;
    const rnd = testRandom(5);
    const src = Float32Array.from({ length: n * n }, () => rnd() * 700 - 350);
    src[12345] = Number.NaN;
    src[n * n - 3] = Number.NaN;
    const results: { codes: Buffer; counts: unknown; calls: number }[] = [];
    for (const threads of [1, 2] as const) {
      const { arena, raster } = createArena(n)!;
      raster.set(src);
      let r: ReturnType<typeof encodeInArena> | undefined;
      const calls = await counted(threads, () => (r = encodeInArena(raster, { min: -300, max: 300 }, arena)), 'encode');
      const js = new Uint16Array(n * n);
      expect(r!.counts).toEqual(encodeFieldR16(Float32Array.from(raster), js, { min: -300, max: 300 }));
      expect(bytes(r!.codes).equals(bytes(js))).toBe(true);
      results.push({ codes: Buffer.from(bytes(r!.codes)), counts: r!.counts, calls });
    }
    expect(results.map((x) => x.calls)).toEqual([0, 1]);
    expect(results[1].counts).toEqual(results[0].counts);
    expect((results[0].counts as { nan: number }).nan).toBe(2);
  });

  it("writes the PNG's Up-filtered scanlines of the arena's codes as upFilteredRows does, on one thread and on two", async () => {
    await readyHelper();
    const n = 1024;
    const rnd = testRandom(5);
    // Smooth rows with jumps to both ends of the range: borrows in both bytes of a sample.
    const src = Float32Array.from({ length: n * n }, (_, k) => (rnd() < 0.01 ? (rnd() < 0.5 ? -400 : 400) : ((k % n) - (k >> 10)) * 0.1));
    const calls: number[] = [];
    for (const threads of [1, 2] as const) {
      prepareArena(n, { pngRows: true });
      const { arena, raster } = createArena(n)!;
      raster.set(src);
      const { codes } = encodeInArena(raster, { min: -300, max: 300 }, arena);
      let rows: Uint8Array | null = null;
      calls.push(await counted(threads, () => (rows = pngScanlinesInArena(codes, arena)), 'pngUp'));
      expect(rows).not.toBeNull();
      expect(bytes(rows!).equals(Buffer.from(upFilteredRows(Uint16Array.from(codes), n, n)))).toBe(true);
    }
    expect(calls[0]).toBe(0);
    expect(calls[1]).toBeGreaterThan(0);
    // An arena made without PNG room gives none (the writer then filters the codes itself).
    const plain = createArena(n)!;
    const { codes } = encodeInArena(plain.raster, { min: -300, max: 300 }, plain.arena);
    expect(pngScanlinesInArena(codes, plain.arena)).toBeNull();
  });

  it('blends the outer band to the same bytes and counts on one thread and on two, and as the JavaScript f32 path', async () => {
    await readyHelper();
    const n = 512;
    const rnd = testRandom(3);
    const src = Float32Array.from({ length: n * n }, () => rnd() * 50 - 10);
    const outerSrc = Float32Array.from({ length: n * n }, () => rnd() * 30 - 20);
    const g = { xmin: -700, ymin: -690, size: 1400, n };
    const band = { inner: 620, outer: 680 };
    for (const outerKind of ['constant', 'field'] as const) {
      const js = Float32Array.from(src);
      const jsCounts = applyOuterBlend(js, g, band, outerKind === 'field' ? outerSrc : -2, 'f32', 0.5);
      expect(jsCounts.blendedPixels).toBeGreaterThan(10_000);
      expect(jsCounts.fullyOuter).toBeGreaterThan(10_000);
      const calls: number[] = [];
      for (const threads of [1, 2] as const) {
        const { arena, raster } = createArena(n)!;
        raster.set(src);
        // The outer field in the same arena (the smoothing's X scratch is free after the chain).
        const outer = outerKind === 'field' ? new Float32Array(arena.memory.buffer, arena.smoothingLayout!.levels[0].x, n * n) : -2;
        if (outer instanceof Float32Array) outer.set(outerSrc);
        let counts: unknown;
        calls.push(await counted(threads, () => (counts = outerBlend(raster, g, band, outer, 'f32', 0.5, arena)), 'outer'));
        expect(counts).toEqual(jsCounts);
        expect(bytes(raster).equals(bytes(js)), `${outerKind}, ${threads} thread(s)`).toBe(true);
      }
      expect(calls).toEqual([0, 1]);
    }
  });

  it('writes every stage byte-identical on one thread and on two (a 2048² run)', async () => {
    await readyHelper();
    const stages = 'after-support,after-stamps,after-locations,pre-encode,final';
    const calls: number[] = [];
    for (const threads of [1, 2] as const) {
      calls.push(
        await counted(threads, async () => {
          const r = await cli('run', 'tundra-r19', '--size', '2048', '--stages', stages, '--out', join(d, `t${threads}`), '--quiet');
          expect(r.code, r.err).toBe(0);
        }),
      );
    }
    expect(calls[0]).toBe(0);
    expect(calls[1]).toBeGreaterThan(0);
    for (const k of ['filterX', 'filterY', 'outer', 'encode'] as const) expect(helperCalls(k), k).toBeGreaterThan(0);
    const files = readdirSync(join(d, 't1')).filter((f) => /\.(r16|r32|png|json)$/.test(f) && !/timings|manifest/.test(f));
    expect(files.filter((f) => f.endsWith('.r32')).length).toBeGreaterThanOrEqual(4);
    for (const f of files) expect(readFileSync(join(d, 't2', f)).equals(readFileSync(join(d, 't1', f))), f).toBe(true);
  });

  it("writes tundra-r19's final map byte-identical on one thread and on two (4096²)", async () => {
    await readyHelper();
    // The run's draws go through the draw queue (test/draw-queue.test.ts); single draws split by rows serve the rest.
    const kernels: KernelName[] = ['drawQueue', ...SMOOTHING_KERNELS, 'outer', 'encode'];
    const calls: number[][] = [];
    const bands: number[] = [];
    for (const threads of [1, 2] as const) {
      const before = kernels.map((k) => helperCalls(k));
      const bandsBefore = helperBands();
      await counted(threads, async () => {
        const r = await cli('run', 'tundra-r19', '--stages', 'final', '--out', join(d, `f${threads}`), '--quiet');
        expect(r.code, r.err).toBe(0);
      });
      calls.push(kernels.map((k, q) => helperCalls(k) - before[q]));
      bands.push(helperBands() - bandsBefore);
    }
    expect(calls[0].every((c) => c === 0)).toBe(true);
    // Shared calls hand out bands to whichever thread is free; over hundreds of them the helper ran some.
    expect(bands[0]).toBe(0);
    expect(bands[1]).toBeGreaterThan(0);
    calls[1].forEach((c, q) => expect(c, kernels[q]).toBeGreaterThan(0));
    const [a, b] = [1, 2].map((t) => readFileSync(join(d, `f${t}`, 'final.r16')));
    expect(a.length).toBe(4096 * 4096 * 2);
    expect(b.equals(a)).toBe(true);
  });
});
