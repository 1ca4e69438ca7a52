/**
 * prepareArena (src/cpu/wasm/arena.ts) has the executor's helper thread map the pages a run writes while the calling
 * thread loads and plans. The helper's page-in is a compare-exchange of 0 with 0, so a word the calling thread wrote
 * first keeps its value whatever the interleaving; the prepared arena is the one the next createArena of the same
 * shape returns. Counts pages, no clocks.
 */
import { describe, expect, it } from 'vitest';
import { createArena, prepareArena, pngRowsView } from '../src/cpu/wasm/arena.js';
import { prepareExecutor } from '../src/cpu/context.js';
import { loadRequest } from '../src/plan/request.js';
import { runPipeline } from '../src/pipeline/run.js';
import { encodePng16 } from '../src/io/png16.js';
import { pagedInPages } from '../src/cpu/wasm/draw-thread.js';
import { threadsWanted } from '../src/core/threads.js';

/** Pages in the word ranges (start, end pairs) at one word in 1024. */
const pagesOf = (words: readonly number[]) => words.reduce((sum, v, k) => (k % 2 ? sum + Math.ceil((v - words[k - 1]) / 1024) : sum), 0);

describe('an arena prepared ahead of a run', () => {
  it.runIf(threadsWanted())('is paged in by the helper without changing a word written meanwhile, and taken by the next createArena', async () => {
    delete process.env.HEIGHTBENCH_NO_THREADS;
    const n = 1024;
    prepareArena(n, { baseOverRaster: true });
    const made = createArena(n, { baseOverRaster: true });
    expect(made).not.toBeNull();
    const arena = made!.arena;
    // Written at once, while the helper pages in: every word of the raster and of the codes, none zero.
    const raster = made!.raster;
    for (let k = 0; k < raster.length; k++) raster[k] = k + 0.5;
    const codes = new Uint16Array(arena.memory.buffer, arena.codesAt, n * n);
    for (let k = 0; k < codes.length; k++) codes[k] = (k % 65535) + 1;
    // The ranges cover the raster and the codes, placed as the arena's own offsets say.
    const covers = (at: number, bytes: number) => arena.writtenWords.some((v, k) => k % 2 === 0 && v * 4 <= at && arena.writtenWords[k + 1] * 4 >= at + bytes);
    expect(covers(arena.rasterAt, n * n * 4)).toBe(true);
    expect(covers(arena.codesAt, n * n * 2)).toBe(true);
    const want = pagesOf(arena.writtenWords);
    expect(want).toBeGreaterThanOrEqual((n * n * 4 + n * n * 2) / 4096);
    for (let k = 0; k < 6000 && pagedInPages() < want; k++) await new Promise((r) => setTimeout(r, 10));
    expect(pagedInPages()).toBe(want);
    let badRaster = 0;
    for (let k = 0; k < raster.length; k++) if (raster[k] !== k + 0.5) badRaster++;
    let badCodes = 0;
    for (let k = 0; k < codes.length; k++) if (codes[k] !== (k % 65535) + 1) badCodes++;
    expect({ badRaster, badCodes }).toEqual({ badRaster: 0, badCodes: 0 });
    // A second createArena makes a new arena (the prepared one is taken once).
    const other = createArena(n, { baseOverRaster: true });
    expect(other!.arena.memory).not.toBe(arena.memory);
  });

  it('holds room for the PNG scanlines after the codes, in the page-in ranges, only when asked for', () => {
    const n = 512;
    prepareArena(n, { baseOverRaster: true, pngRows: true });
    const arena = createArena(n, { baseOverRaster: true })!.arena;
    const bytes = (2 * n + 1) * n;
    expect(arena.pngRowsAt).toBeGreaterThanOrEqual(arena.codesAt + 2 * n * n);
    expect(arena.pngRowsAt + bytes).toBeLessThanOrEqual(arena.memory.buffer.byteLength);
    const words = arena.writtenWords;
    expect(words.slice(-2)).toEqual([Math.floor(arena.pngRowsAt / 4), Math.ceil((arena.pngRowsAt + bytes) / 4)]);
    const plain = createArena(n, { baseOverRaster: true })!.arena;
    expect(plain.pngRowsAt).toBe(-1);
    expect(plain.writtenWords.length).toBe(words.length - 2);
    expect(pngRowsView(plain)).toBeNull();
    expect(pngRowsView(arena)!.byteOffset).toBe(arena.pngRowsAt);
  });

  it('reaches the run: a run prepared with pngRows hands the room back beside its codes, and the PNG made in it has the same bytes', () => {
    const n = 256;
    const req = loadRequest('teaching-512', n);
    prepareExecutor({ precision: 'f32', executor: 'simd', n, keep: ['raster'], pngRows: true });
    const run = runPipeline(req, { precision: 'f32', executor: 'simd', keep: ['raster'] });
    expect(run.pngRows).toBeDefined();
    expect(run.pngRows!.buffer).toBe(run.codes.buffer);
    expect(run.pngRows!.length).toBe((2 * n + 1) * n);
    const inRoom = encodePng16(run.codes, n, n, { rows: run.pngRows });
    expect(Buffer.from(inRoom).equals(Buffer.from(encodePng16(run.codes, n, n)))).toBe(true);
    // Not prepared: no room.
    expect(runPipeline(req, { precision: 'f32', executor: 'simd', keep: ['raster'] }).pngRows).toBeUndefined();
  });

  it('is not taken by a createArena of another shape', () => {
    prepareArena(512, { baseOverRaster: true });
    const kept = createArena(512, { baseOverRaster: false });
    expect(kept!.arena.smoothingLayout!.out).not.toBe(kept!.arena.rasterAt);
    prepareArena(512, { baseOverRaster: false });
    const wrongSize = createArena(256, { baseOverRaster: false });
    expect(wrongSize!.arena.n).toBe(256);
  });
});
