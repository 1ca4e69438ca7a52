/**
 * Location support's shape writes (support.ts, applySupport in f32) on the executor's kernel and two threads.
 * Inputs: the arena's f32 field after the targets were taken, the locations' shapes and targets. Outputs: the field
 * after support (in place), the number of pixel writes.
 * The shapes, each with its target, width, strength, rotation and pixel box, are written to the arena as float64
 * records (the layout support.wat states); support.wat's `rows` applies every record, in draw order, to a range of rows,
 * and the rows are split in bands between this thread and the helper (draw-thread.ts).
 * [R] A write reads and writes its own pixel only (h ← h + s·w·(T − h), T taken before any write), so any split of the
 *     rows gives every pixel the same writes in the same order: the bytes of applySupport (tested).
 */
import type { ShapeGeometry } from '../../core/geometry.js';
import { shapeRadius } from '../../core/geometry.js';
import type { DrawGrid } from '../../drawlist/placement.js';
import { shapePixelBox, type SupportTarget } from '../support.js';
import { MAX_BANDS, onBands } from './draw-thread.js';
import type { Arena } from './arena.js';

/** Float64 values per shape record (support.wat). */
const RECORD = 16;

/**
 * applySupport in f32 on `field` (a view of `arena`'s memory); the records go to the arena's draw-queue region (free
 * between stages), in chunks that fit, each chunk applied to every row before the next. Returns the pixel writes.
 */
export function applySupportInArena(
  arena: Arena,
  field: Float32Array,
  g: DrawGrid,
  instances: readonly { readonly supports: readonly ShapeGeometry[] }[],
  targets: readonly Pick<SupportTarget, 'target' | 'shapes'>[],
  pc: number,
): number {
  const R = Math.fround;
  const n = g.n;
  const px = g.size / g.n;
  const records: number[][] = [];
  instances.forEach((q, idx) => {
    const T = R(targets[idx].target);
    q.supports.forEach((s, si) => {
      const { width, strength } = targets[idx].shapes[si];
      const [i0, i1, j0, j1] = shapePixelBox(s, shapeRadius(s) + width, g, pc);
      // A box with no pixel (off the grid, or NaN from an invalid width) writes nothing, as in applySupport; the kernel
      // takes only boxes inside the grid (small integers).
      if (!(i0 <= i1 && j0 <= j1)) return;
      const rect = s.kind === 'rect';
      // cos and sin as boxDistance (core/geometry.ts) takes them for every pixel.
      const c = rect ? Math.cos(s.angle) : 0;
      const sn = rect ? Math.sin(s.angle) : 0;
      records.push([rect ? 1 : 0, s.x, s.y, s.radius, c, sn, s.halfSize[0], s.halfSize[1], T, R(width), strength, i0, i1, j0, j1, 0]);
    });
  });
  const memory = arena.memory;
  const rows = arena.support.rows;
  const room = Math.floor((arena.assetsAt - arena.drawQueueAt) / (8 * RECORD));
  let writes = 0;
  for (let c0 = 0; c0 < records.length; c0 += room) {
    const chunk = records.slice(c0, c0 + room);
    const rec = new Float64Array(memory.buffer, arena.drawQueueAt, chunk.length * RECORD);
    chunk.forEach((r, k) => rec.set(r, k * RECORD));
    // Bands of about equal work: each row's pixels summed over the chunk's boxes.
    const rowWork = new Float64Array(n);
    for (const r of chunk) for (let j = r[13]; j <= r[14]; j++) rowWork[j] += Math.max(0, r[12] - r[11] + 1);
    let total = 0;
    for (let j = 0; j < n; j++) total += rowWork[j];
    const args = (r0: number, r1: number) => [field.byteOffset, n, arena.drawQueueAt, chunk.length, r0, r1, g.xmin, g.ymin, px, pc];
    const mine = (a: readonly number[]) => rows(a[0], a[1], a[2], a[3], a[4], a[5], a[6], a[7], a[8], a[9]);
    const bands: { mine: number[]; helper: number[] }[] = [];
    let r0 = 0;
    let acc = 0;
    for (let j = 0; j < n && bands.length < MAX_BANDS - 1; j++) {
      acc += rowWork[j];
      if (acc >= (total * (bands.length + 1)) / MAX_BANDS) {
        bands.push({ mine: args(r0, j + 1), helper: args(r0, j + 1) });
        r0 = j + 1;
      }
    }
    bands.push({ mine: args(r0, n), helper: args(r0, n) });
    const shared = total > 0 && bands.length > 1 ? onBands(memory, 'support', bands, mine) : null;
    writes += shared ?? mine(args(0, n));
  }
  return writes;
}
