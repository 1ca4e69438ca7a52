/**
 * Location support's writes on the kernel (src/cpu/wasm/support.wat through support-rows.ts) against applySupport's
 * f32 path in JavaScript (src/cpu/support.ts): the same field bytes and the same write count, on one thread and with
 * the rows split with the helper thread; circles and rotated rectangles, overlapping, partly outside the grid, with
 * strengths that are not float32 values. Counts the helper's calls, no clocks.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { createArena } from '../src/cpu/wasm/arena.js';
import { helperCalls, helperReady, startHelper } from '../src/cpu/wasm/draw-thread.js';
import { applySupportInArena } from '../src/cpu/wasm/support-rows.js';
import { applySupport } from '../src/cpu/support.js';
import type { ShapeGeometry } from '../src/core/geometry.js';
import { testRandom } from './helpers.js';

const saved = process.env.HEIGHTBENCH_NO_THREADS;
afterEach(() => {
  if (saved === undefined) delete process.env.HEIGHTBENCH_NO_THREADS;
  else process.env.HEIGHTBENCH_NO_THREADS = saved;
});

const n = 512;
const g = { xmin: -300, ymin: 100, size: 1000, n };
const rnd = testRandom(41);
const instances: { supports: ShapeGeometry[] }[] = Array.from({ length: 40 }, () => ({
  supports: Array.from({ length: 1 + Math.floor(rnd() * 3) }, (): ShapeGeometry => {
    const rect = rnd() < 0.5;
    return {
      kind: rect ? 'rect' : 'circle',
      x: g.xmin - 100 + rnd() * (g.size + 200),
      y: g.ymin - 100 + rnd() * (g.size + 200),
      radius: 5 + rnd() * 80,
      halfSize: [3 + rnd() * 60, 3 + rnd() * 40],
      angle: (rnd() - 0.5) * 7,
    };
  }),
}));
const targets = instances.map((q) => ({
  target: (rnd() - 0.3) * 200,
  shapes: q.supports.map(() => ({ t: 0, relief: 0, k: 1, width: rnd() < 0.1 ? 0 : 1 + rnd() * 90, strength: rnd() * 1.2 })),
}));
const start = Float32Array.from({ length: n * n }, (_, k) => Math.fround(Math.sin(k * 0.001) * 50 + (k % 97)));

function reference(): { field: Float32Array; writes: number } {
  const field = start.slice();
  return { field, writes: applySupport(field, g, instances, targets, 'f32', 0.5) };
}

function kernel(): { field: Float32Array; writes: number } {
  const made = createArena(n, { baseOverRaster: true })!;
  const field = made.raster;
  field.set(start);
  const writes = applySupportInArena(made.arena, field, g, instances, targets, 0.5);
  return { field: field.slice(), writes };
}

const bytes = (a: Float32Array) => Buffer.from(a.buffer, a.byteOffset, a.byteLength);

describe('location support on the kernel', () => {
  it('writes the bytes and the count of the JavaScript f32 path on one thread', () => {
    process.env.HEIGHTBENCH_NO_THREADS = '1';
    const want = reference();
    expect(want.writes).toBeGreaterThan(50_000);
    const got = kernel();
    expect(got.writes).toBe(want.writes);
    expect(bytes(got.field).equals(bytes(want.field))).toBe(true);
  });

  it('writes the same bytes with the rows split with the helper thread', async () => {
    delete process.env.HEIGHTBENCH_NO_THREADS;
    startHelper();
    for (let k = 0; k < 3000 && !helperReady(); k++) await new Promise((r) => setTimeout(r, 10));
    expect(helperReady()).toBe(true);
    const want = reference();
    const before = helperCalls('support');
    const got = kernel();
    expect(helperCalls('support')).toBe(before + 1);
    expect(got.writes).toBe(want.writes);
    expect(bytes(got.field).equals(bytes(want.field))).toBe(true);
  });
});
