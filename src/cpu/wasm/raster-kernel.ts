/**
 * The queue that feeds covered spans to the SIMD span kernel (raster.wat). The rasterizer still finds every span in
 * JavaScript with exact integer edge functions; only the per-pixel interpolation and ADD run in the kernel, with the
 * same operations in the same order as spanF32 (tested bit-identical). The target is the arena's raster view; the
 * arena comes from the stage's execution context (src/cpu/context.ts). Records follow the 'span' block of
 * layouts.ts.
 */
import { SPAN_QUEUE, SPAN_RECORD, type Arena } from './arena.js';
import { blockLayout } from '../../core/wasm/layouts.js';
import { postToHelper } from './draw-thread.js';

export interface SpanQueue {
  /** Queues pixels dst … dst + len − 1 with edge values e_k + s_k·t (t = 0 … len − 1). */
  push(
    dst: number,
    len: number,
    e0: number,
    s0: number,
    e1: number,
    s1: number,
    e2: number,
    s2: number,
    invArea: number,
    h0: number,
    h1: number,
    h2: number,
  ): void;
  /** Runs the kernel on every queued span (call before the target is read). */
  flush(): void;
}

const SPAN = blockLayout('span').fields;
// The push below writes the record's fields in declaration order, one float64 each: refuse any other layout.
const ORDER = ['dst', 'len', 'e0', 's0', 'e1', 's1', 'e2', 's2', 'invArea', 'h0', 'h1', 'h2'];
ORDER.forEach((f, i) => {
  if (SPAN[f]?.offset !== 8 * i || SPAN[f]?.type !== 'f64') throw new Error(`raster-kernel: span field ${f} is not float64 ${i} of the record in layouts.ts`);
});

/**
 * The span queue of an arena (its raster view is the target).
 * [R] Two halves: when one is full, the helper thread (draw-thread.ts postToHelper) adds its spans in the row groups
 *     of parity 1 while this thread adds those of parity 0 and then queues spans into the other half; a half is handed
 *     over only after the helper is done with the previous one. Each pixel's spans are added by one thread in the
 *     order they were pushed, so the bytes are those of one thread. Without the helper, this thread adds every span.
 */
export function spanQueueOf(arena: Arena): SpanQueue {
  if (arena.spanQueue) return arena.spanQueue as SpanQueue;
  const HALF = SPAN_QUEUE / 2;
  const halves = [0, 1].map((h) => new Float64Array(arena.memory.buffer, arena.queueAt + h * HALF * SPAN_RECORD * 8, HALF * SPAN_RECORD));
  let half = 0;
  let rec = halves[0];
  let count = 0;
  let helperPart: (() => number) | null = null;
  const run = (a: readonly number[]) => arena.raster.spans(a[0], a[1], a[2], a[3], a[4]);
  const handOver = () => {
    helperPart?.();
    helperPart = null;
    if (count === 0) return;
    const at = arena.queueAt + half * HALF * SPAN_RECORD * 8;
    helperPart = postToHelper(arena.memory, 'spans', [at, count, arena.rasterAt, arena.n, 1], run);
    run([at, count, arena.rasterAt, arena.n, helperPart ? 0 : -1]);
    half ^= 1;
    rec = halves[half];
    count = 0;
  };
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
      if (++count === HALF) handOver();
    },
    flush() {
      handOver();
      helperPart?.();
      helperPart = null;
    },
  };
  arena.spanQueue = q;
  return q;
}
