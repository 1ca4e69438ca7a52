/**
 * The executor's helper thread (src/cpu/wasm/draw-thread.ts) takes the lower rows of large draws; every row is still
 * written by one thread in single-threaded order, so a run writes the same bytes with and without it. Counts work (the helper's kernel calls), no clocks.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { helperCalls, helperReady, startHelper } from '../src/cpu/wasm/draw-thread.js';
import { createArena } from '../src/cpu/wasm/arena.js';
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
async function counted(threads: 1 | 2, f: () => unknown): Promise<number> {
  if (threads === 1) process.env.HEIGHTBENCH_NO_THREADS = '1';
  else delete process.env.HEIGHTBENCH_NO_THREADS;
  const before = helperCalls();
  await f();
  return helperCalls() - before;
}

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
    const files = readdirSync(join(d, 't1')).filter((f) => /\.(r16|r32|png|json)$/.test(f) && !/timings|manifest/.test(f));
    expect(files.filter((f) => f.endsWith('.r32')).length).toBeGreaterThanOrEqual(4);
    for (const f of files) expect(readFileSync(join(d, 't2', f)).equals(readFileSync(join(d, 't1', f))), f).toBe(true);
  });
});
