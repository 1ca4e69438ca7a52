/**
 * The outer blend of a base field that lives in an arena (arena.ts), on the kernel outer.wat: the same float32 steps
 * as the f32 path of outer.ts, bit-identical (tested). outer.ts finds each row's runs; this blends the pixels, the
 * upper rows on this thread and the lower rows on the executor's helper thread (draw-thread.ts) when it is ready
 * (pixels are independent, so the bytes do not depend on the split).
 */
import { type Arena } from './arena.js';
import { helperReady, onBoth } from './draw-thread.js';

/** [R] Fields with fewer rows than this stay on one thread (the threads' meeting would cost more than half saves). */
const OUTER_SPLIT_MIN_ROWS = 256;

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
  const jm = n >> 1;
  const mine = () => arena.outer.blendRows(...args(0, jm));
  if (n >= OUTER_SPLIT_MIN_ROWS && helperReady() && onBoth(arena.memory, 'outer', args(jm, n), mine) !== null) return;
  arena.outer.blendRows(...args(0, n));
}
