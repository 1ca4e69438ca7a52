/**
 * One thread's share of a draw queue (draw-queue.ts): the loop both threads run. It claims a draw it may run (free, and
 * every earlier draw whose box meets its own done), answers the draw's existing-terrain query with footprintQueryAt's
 * rules, writes the operand into the draw's parameter block and draws it, until every draw is done.
 * [R] Plain JavaScript over its arguments and the language's globals only, with no nested function: the helper thread
 *     (draw-thread.ts) runs this same function from its source text.
 * Record of draw d at recAt + 8·QUEUE_RECORD·d (float64): parameter block's byte offset, query kind (0 none, 1 footprint
 * min, 2 footprint max, 3 centre), has an offset (0/1), the float32 offset, the query box i0, i1, j0, j1, the centre
 * pixel's index, and the pixels drawn (written here).
 */

import { blockLayout } from '../../core/wasm/layouts.js';

/** Float64 slots per draw record. */
export const QUEUE_RECORD = 10;

/** Draws per chunk of the queue region. */
export const QUEUE_DRAWS = 2048;
/** How far past the first unfinished draw a thread may look for one it can run. */
export const WINDOW = 64;
const REC = QUEUE_RECORD;
/** Bytes between the queued draws' parameter blocks. */
export const BLOCK_BYTES = (blockLayout('draw').size + 15) & ~15;

/** Bytes of the queue region an arena lays out (arena.ts). */
export function queueRegionBytes(): number {
  const align = (b: number) => (b + 15) & ~15;
  return (
    64 + // control: progress, abort; and each thread's query scratch
    align(4 * QUEUE_DRAWS) + // state
    align(4 * (QUEUE_DRAWS + 1)) + // first neighbour of each draw
    align(4 * QUEUE_DRAWS * WINDOW) + // neighbours
    align(8 * REC * QUEUE_DRAWS) + // records
    BLOCK_BYTES * QUEUE_DRAWS
  );
}

export interface QueueLayout {
  ctrl: number;
  scratchMine: number;
  scratchHelper: number;
  state: number;
  first: number;
  deps: number;
  rec: number;
  blocks: number;
}

export function queueLayout(at: number): QueueLayout {
  const align = (b: number) => (b + 15) & ~15;
  const state = at + 64;
  const first = state + align(4 * QUEUE_DRAWS);
  const deps = first + align(4 * (QUEUE_DRAWS + 1));
  const rec = deps + align(4 * QUEUE_DRAWS * WINDOW);
  const blocks = rec + align(8 * REC * QUEUE_DRAWS);
  return { ctrl: at, scratchMine: at + 16, scratchHelper: at + 32, state, first, deps, rec, blocks };
}

/**
 * Runs one thread's share of a queue: the draws it can claim, until every draw is done (or another thread failed).
 * Returns how many draws this thread ran; each draw's pixel count is in its record. Plain JavaScript over its arguments only (see the header).
 */
export function runDrawQueue(
  buffer: ArrayBufferLike,
  draw: (params: number) => number,
  envelope: (field: number, n: number, i0: number, i1: number, j0: number, j1: number, out: number) => void,
  ctrlAt: number,
  count: number,
  stateAt: number,
  firstAt: number,
  depsAt: number,
  recAt: number,
  scratchAt: number,
  field: number,
  n: number,
  cOffset: number,
  window: number,
): number {
  const i32 = new Int32Array(buffer);
  const f32 = new Float32Array(buffer);
  const f64 = new Float64Array(buffer);
  const progress = ctrlAt >> 2;
  const abort = progress + 1;
  const state = stateAt >> 2;
  const first = firstAt >> 2;
  const deps = depsAt >> 2;
  const rec = recAt >> 3;
  const base = field >> 2;
  let lo = 0;
  let ran = 0;
  // A draw another thread claimed and never finished (that thread died) must not hang the run.
  let waitingSince = 0;
  for (;;) {
    if (Atomics.load(i32, abort) !== 0) return ran;
    const seen = Atomics.load(i32, progress);
    while (lo < count && Atomics.load(i32, state + lo) === 2) lo++;
    if (lo >= count) return ran;
    let d = -1;
    const end = Math.min(count, lo + window);
    for (let k = lo; k < end && d < 0; k++) {
      if (Atomics.load(i32, state + k) !== 0) continue;
      let ready = true;
      for (let e = i32[first + k], e1 = i32[first + k + 1]; e < e1; e++) {
        if (Atomics.load(i32, state + i32[deps + e]) !== 2) {
          ready = false;
          break;
        }
      }
      if (ready && Atomics.compareExchange(i32, state + k, 0, 1) === 0) d = k;
    }
    if (d < 0) {
      // Nothing runnable: the other thread holds the draws ahead; wait for it to finish one.
      if (waitingSince === 0) waitingSince = Date.now();
      else if (Date.now() - waitingSince > 60000) {
        Atomics.store(i32, abort, 1);
        throw new Error('executor: the other thread did not finish its draw within 60 s');
      }
      for (let s = 0; s < 200 && Atomics.load(i32, progress) === seen; s++);
      Atomics.wait(i32, progress, seen, 20);
      continue;
    }
    waitingSince = 0;
    try {
      const r = rec + d * 10; // QUEUE_RECORD
      const kind = f64[r + 1];
      if (kind !== 0) {
        const i0 = f64[r + 4];
        const i1 = f64[r + 5];
        const j0 = f64[r + 6];
        const j1 = f64[r + 7];
        const centre = f32[base + f64[r + 8]];
        let hmin = Infinity;
        let hmax = -Infinity;
        envelope(field, n, i0, i1, j0, j1, scratchAt);
        const a = f32[scratchAt >> 2];
        const b = f32[(scratchAt >> 2) + 1];
        if (a === 0 || b === 0) {
          for (let j = j0; j <= j1; j++) {
            for (let i = i0; i <= i1; i++) {
              const h = f32[base + j * n + i];
              if (h < hmin) hmin = h;
              if (h > hmax) hmax = h;
            }
          }
        } else {
          hmin = a;
          hmax = b;
        }
        if (!Number.isFinite(hmin)) {
          hmin = centre;
          hmax = centre;
        }
        const v = kind === 1 ? hmin : kind === 2 ? hmax : centre;
        f64[(f64[r] + cOffset) >> 3] = f64[r + 2] !== 0 ? Math.fround(v + f64[r + 3]) : v;
      }
      f64[r + 9] = draw(f64[r]);
    } catch (e) {
      Atomics.store(i32, abort, 1);
      Atomics.notify(i32, progress);
      throw e;
    }
    ran++;
    Atomics.store(i32, state + d, 2);
    Atomics.add(i32, progress, 1);
    Atomics.notify(i32, progress);
  }
}
