/**
 * A run of textured draws (natural stamps, location textures) on two threads at once, each draw whole on one thread,
 * with the field's bytes those of drawing them one after the other in list order.
 *
 * Inputs: an arena field (arena.ts) and the draws in list order, each with its kernel parameters (draw-kernel.ts
 * KernelDraw) and, for a draw whose constant comes from the existing terrain, its query (footprint min / max / centre,
 * plus an optional float32 offset).
 * Output: the pixels each draw wrote; the field transformed in place.
 * Rule that keeps the bytes: a draw reads and writes only the pixels of its box (the kernel's columns and rows, the
 * query's box and the centre pixel). Two draws whose boxes are disjoint commute; two whose boxes meet are run in
 * list order: a draw starts only when every earlier draw whose box meets its own is done. So every pixel sees the
 * same writes in the same order as in one thread, whatever the schedule (tested against the one-draw-at-a-time path).
 * [R] A thread takes the first draw within WINDOW of the first unfinished one that is free and whose earlier
 *     neighbours are done; every draw before that first unfinished one is done, so only neighbours within WINDOW
 *     need recording. The draws run in chunks of at most QUEUE_DRAWS (the region is fixed when the arena is made).
 * [R] The query runs on the kernel (draw.wat envelope) with footprintQueryAt's rules: a ±0 extreme takes the scan of
 *     draw.ts (the first zero that loop meets wins), and a box without a number gives the centre height.
 * [R] Both threads run the same loop (draw-queue-run.ts).
 */
import { drawBlock, levelOffsets, type KernelDraw } from './draw-kernel.js';
import { blockLayout, writeBlock } from '../../core/wasm/layouts.js';
import { inArena, type Arena } from './arena.js';
import { onBands } from './draw-thread.js';
import { QUEUE_RECORD, queueLayout, runDrawQueue, BLOCK_BYTES, QUEUE_DRAWS, WINDOW } from './draw-queue-run.js';
import type { HeightAsset } from '../../assets/assets.js';

let helperDraws = 0;

/** How many queued draws the helper thread has run in this process (diagnostics and tests: work, not time). */
export function queueHelperDraws(): number {
  return helperDraws;
}

/** What an existing-terrain query of a draw asks (execute.ts operand): the envelope's min or max, or the centre. */
export interface QueuedQuery {
  kind: 'footprint-min' | 'footprint-max' | 'footprint-centre';
  /** The float32 offset added to the queried height, if any. */
  plus?: number;
  /** The query's box, inclusive (footprintQueryAt's pixel ranges). */
  cols: [number, number];
  rows: [number, number];
  /** The centre pixel (column, row). */
  centre: [number, number];
}

export interface QueuedDraw {
  asset: HeightAsset;
  /** The kernel's parameters; `c` is replaced by the query's operand when `query` is given. */
  draw: KernelDraw;
  query: QueuedQuery | null;
}

const REC = QUEUE_RECORD;
const QUERY_KIND = { 'footprint-min': 1, 'footprint-max': 2, 'footprint-centre': 3 } as const;

/** The box a draw reads or writes: the kernel's box, the query's box and the centre pixel, or null when empty. */
function touchedBox(q: QueuedDraw): [number, number, number, number] | null {
  let i0 = Infinity;
  let i1 = -Infinity;
  let j0 = Infinity;
  let j1 = -Infinity;
  const add = (a0: number, a1: number, b0: number, b1: number) => {
    if (a1 < a0 || b1 < b0) return;
    i0 = Math.min(i0, a0);
    i1 = Math.max(i1, a1);
    j0 = Math.min(j0, b0);
    j1 = Math.max(j1, b1);
  };
  add(q.draw.cols[0], q.draw.cols[1], q.draw.rows[0], q.draw.rows[1]);
  if (q.query) {
    add(q.query.cols[0], q.query.cols[1], q.query.rows[0], q.query.rows[1]);
    add(q.query.centre[0], q.query.centre[0], q.query.centre[1], q.query.centre[1]);
  }
  return i0 <= i1 ? [i0, i1, j0, j1] : null;
}

/**
 * Draws `draws` into `field` (a view of `arena`) in list order's bytes, on this thread and the helper (draw-thread.ts)
 * when it is ready, else on this thread alone. Returns each draw's pixel count, or null when the kernel cannot serve
 * (the assets do not fit the arena, or the arena has no queue region): the caller then draws them one by one.
 */
export function drawQueueInArena(field: Float32Array, draws: readonly QueuedDraw[], arena: Arena): number[] | null {
  const n = arena.n;
  if (!inArena(field, arena) || field.length !== n * n) throw new RangeError(`drawQueueInArena: the field is not an ${n}² field of this arena`);
  if (arena.drawQueueAt < 0) return null;
  const levels = draws.map((q) => levelOffsets(arena, q.asset));
  if (levels.some((l) => l === null)) return null;
  const L = queueLayout(arena.drawQueueAt);
  const buffer = arena.memory.buffer;
  const i32 = new Int32Array(buffer);
  const f64 = new Float64Array(buffer);
  const cOffset = blockLayout('draw').fields.c.offset;
  const pixels: number[] = [];
  for (let start = 0; start < draws.length; start += QUEUE_DRAWS) {
    const chunk = draws.slice(start, start + QUEUE_DRAWS);
    const boxes = chunk.map(touchedBox);
    i32.fill(0, L.ctrl >> 2, (L.ctrl >> 2) + 2);
    i32.fill(0, L.state >> 2, (L.state >> 2) + chunk.length);
    let e = 0;
    chunk.forEach((q, d) => {
      i32[(L.first >> 2) + d] = e;
      const b = boxes[d];
      if (b) {
        for (let k = Math.max(0, d - WINDOW); k < d; k++) {
          const o = boxes[k];
          if (o && o[0] <= b[1] && b[0] <= o[1] && o[2] <= b[3] && b[2] <= o[3]) i32[(L.deps >> 2) + e++] = k;
        }
      }
      const blockAt = L.blocks + d * BLOCK_BYTES;
      writeBlock(buffer, blockAt, 'draw', drawBlock(field, q.asset, q.draw, levels[start + d]!));
      const r = (L.rec >> 3) + d * REC;
      f64.fill(0, r, r + REC);
      f64[r] = blockAt;
      if (q.query) {
        f64[r + 1] = QUERY_KIND[q.query.kind];
        if (q.query.plus !== undefined) {
          f64[r + 2] = 1;
          f64[r + 3] = Math.fround(q.query.plus);
        }
        f64.set([q.query.cols[0], q.query.cols[1], q.query.rows[0], q.query.rows[1], q.query.centre[1] * n + q.query.centre[0]], r + 4);
      }
    });
    i32[(L.first >> 2) + chunk.length] = e;
    const args = (scratch: number) => [L.ctrl, chunk.length, L.state, L.first, L.deps, L.rec, scratch, field.byteOffset, n, cOffset, WINDOW];
    let ranHere = 0;
    const mine = (a: readonly number[]) => {
      const ran = runDrawQueue(buffer, arena.draw.draw, arena.draw.envelope, a[0], a[1], a[2], a[3], a[4], a[5], a[6], a[7], a[8], a[9], a[10]);
      ranHere += ran;
      return ran;
    };
    // Two bands, each "run the queue": the helper runs one when it wakes; this thread runs the other, and then the
    // first too when the helper has not claimed it (it finds every draw done or runs them itself).
    const band = { mine: args(L.scratchMine), helper: args(L.scratchHelper) };
    const ran = onBands(arena.memory, 'drawQueue', [band, band], mine);
    if (ran === null) mine(band.mine);
    else helperDraws += ran - ranHere;
    for (let d = 0; d < chunk.length; d++) pixels.push(f64[(L.rec >> 3) + d * REC + 9]);
  }
  return pixels;
}
