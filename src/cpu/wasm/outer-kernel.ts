/**
 * The outer blend of a base field that lives in an arena (arena.ts), on the kernel outer.wat: the same float32 steps
 * as the f32 path of outer.ts, bit-identical (tested). outer.ts finds each row's runs; this blends the pixels in
 * bands of rows, each on whichever of this thread and the executor's helper thread (draw-thread.ts) claims it
 * (pixels are independent, so the bytes do not depend on the split).
 */
import { type Arena } from './arena.js';
import { helperReady, MAX_BANDS, onBands } from './draw-thread.js';

/** [R] Bands hold at least this many rows (the threads' meeting would cost more than a smaller band saves). */
const OUTER_BAND_MIN_ROWS = 128;

/**
 * Blends `field` (the arena's n² float32 base) toward `outer` (a constant, or a field in the same arena) with the
 * runs of each row (`runs`: fl, sl, sr, fr per row), the column offsets `dx` and row offsets `dy`, all float32.
 */
export function blendRowsInArena(
  arena: Arena,
  field: Float32Array,
  outer: Float32Array | Float64Array | number,
  runs: Int32Array,
  dx: Float32Array,
  dy: Float32Array,
  inner: number,
  width: number,
): void {
  const n = arena.n;
  const at = arena.outerAt;
  const buf = arena.memory.buffer;
  new Int32Array(buf, at.runs, 4 * n).set(runs);
  new Float32Array(buf, at.dx, n).set(dx);
  new Float32Array(buf, at.dy, n).set(dy);
  const fromField = typeof outer === 'number' ? 0 : 1;
  const outerAt = typeof outer === 'number' ? 0 : outer.byteOffset;
  const ho = typeof outer === 'number' ? outer : 0;
  const args = (j0: number, j1: number) => [field.byteOffset, outerAt, n, at.runs, at.dx, at.dy, j0, j1, inner, width, ho, fromField] as const;
  const count = helperReady() ? Math.min(MAX_BANDS, Math.floor(n / OUTER_BAND_MIN_ROWS)) : 1;
  const bands = Array.from({ length: count }, (_, k) => {
    const a = args(Math.floor((k * n) / count), Math.floor(((k + 1) * n) / count));
    return { mine: a, helper: a };
  });
  const run = (a: readonly number[]) => arena.outer.blendRows(a[0], a[1], a[2], a[3], a[4], a[5], a[6], a[7], a[8], a[9], a[10], a[11]);
  if (count > 1 && onBands(arena.memory, 'outer', bands, run) !== null) return;
  arena.outer.blendRows(...args(0, n));
}
