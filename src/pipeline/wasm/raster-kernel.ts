/**
 * The queue that feeds covered spans to the SIMD span kernel (raster.wat). The rasterizer still finds every span in
 * JavaScript with exact integer edge functions; only the per-pixel interpolation and ADD run in the kernel, with the
 * same operations in the same order as spanF32 (tested bit-identical). Targets are arena fields (arena.ts).
 */
import { arenaOf, createArena, SPAN_QUEUE, SPAN_RECORD, type Arena } from './arena.js';

export interface SpanQueue {
  /** Queues pixels dst … dst + len − 1 with edge values e_k + s_k·t (t = 0 … len − 1). */
  push(dst: number, len: number, e0: number, s0: number, e1: number, s1: number, e2: number, s2: number, invArea: number, h0: number, h1: number, h2: number): void;
  /** Runs the kernel on every queued span (call before the target is read). */
  flush(): void;
}

const queues = new WeakMap<Arena, SpanQueue>();

/**
 * A zeroed float32 field of n × n samples: the raster view of a new arena where the SIMD kernels are available
 * (so rasterization and smoothing run in place), otherwise a plain Float32Array.
 */
export function newRasterField(n: number, opts: { baseOverRaster?: boolean } = {}): Float32Array {
  return createArena(n, opts)?.raster ?? new Float32Array(n * n);
}

/** The span queue of an arena raster field, or null for any other array. */
export function spanQueueOf(field: Float32Array): SpanQueue | null {
  const arena = arenaOf(field);
  if (!arena) return null;
  let queue = queues.get(arena);
  if (queue) return queue;
  const rec = new Float64Array(arena.memory.buffer, arena.queueAt, SPAN_QUEUE * SPAN_RECORD);
  let count = 0;
  const q: SpanQueue = {
    push(dst, len, e0, s0, e1, s1, e2, s2, invArea, h0, h1, h2) {
      const o = count * SPAN_RECORD;
      rec[o] = dst;
      rec[o + 1] = len;
      rec[o + 2] = e0;
      rec[o + 3] = s0;
      rec[o + 4] = e1;
      rec[o + 5] = s1;
      rec[o + 6] = e2;
      rec[o + 7] = s2;
      rec[o + 8] = invArea;
      rec[o + 9] = h0;
      rec[o + 10] = h1;
      rec[o + 11] = h2;
      if (++count === SPAN_QUEUE) q.flush();
    },
    flush() {
      if (count > 0) arena.raster.spans(arena.queueAt, count, arena.rasterAt);
      count = 0;
    },
  };
  queues.set(arena, q);
  queue = q;
  return queue;
}
