/**
 * The float-pair full kernel's helper thread (src/compare/float-thread.ts) runs the region passes of one sub-block
 * (the whole map's too, or not: float-kernel.ts WHOLE_HERE_WIDE_SHARE) while this thread prepares the next: the
 * comparison must be the one thread's bit for bit. Counts work (the region passes the helper ran), no clocks.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { codeHeightfield, compareHeightfields, floatHeightfield, type GridDescription } from '../src/index.js';
import { DEFAULT_RANGE } from '../src/core/grid.js';
import { encodeFieldR16 } from '../src/core/encoding.js';
import { floatHelperReady, floatHelperRuns, prestartFloatHelper, FLOAT_HELPER_MIN_PIXELS } from '../src/compare/float-thread.js';
import { setFloatPlacement, wholeMapHere } from '../src/compare/float-kernel.js';
import { testRandom } from './helpers.js';

const saved = process.env.HEIGHTBENCH_NO_THREADS;
afterEach(() => {
  if (saved === undefined) delete process.env.HEIGHTBENCH_NO_THREADS;
  else process.env.HEIGHTBENCH_NO_THREADS = saved;
});

function bytesOf(a: ArrayBufferView | null): Uint8Array {
  return a ? new Uint8Array(a.buffer, a.byteOffset, a.byteLength) : new Uint8Array(0);
}

/** Runs `f` with one thread (HEIGHTBENCH_NO_THREADS=1) or two, and returns its result and the helper's passes. */
function withThreads<T>(two: boolean, f: () => T): { result: T; passes: number } {
  process.env.HEIGHTBENCH_NO_THREADS = two ? '0' : '1';
  const before = floatHelperRuns();
  const result = f();
  return { result, passes: floatHelperRuns() - before };
}

describe('the float-pair helper thread', () => {
  it('one thread and two give the same comparison, and the helper ran region passes', async () => {
    delete process.env.HEIGHTBENCH_NO_THREADS;
    prestartFloatHelper();
    // A wait for the helper's start (not a measurement).
    for (let k = 0; k < 3000 && !floatHelperReady(); k++) await new Promise((r) => setTimeout(r, 10));
    expect(floatHelperReady()).toBe(true);
    // A grid over the helper's threshold whose rows, chunks and sub-blocks do not line up, with masks and rings.
    const columns = 1031;
    const rows = 1021;
    expect(columns * rows).toBeGreaterThanOrEqual(FLOAT_HELPER_MIN_PIXELS);
    const grid: GridDescription = {
      xmin: -columns / 2,
      ymin: -rows / 2,
      sizeX: columns,
      sizeY: rows,
      columns,
      rows,
      convention: 'texel-centre',
      rowDirection: 'row0-at-ymin',
    };
    const n = columns * rows;
    const rnd = testRandom(21);
    const ref = new Float32Array(n).map(() => (rnd() - 0.5) * 200);
    const near = ref.map((v) => (rnd() < 0.3 ? v + (rnd() - 0.5) * 0.05 : v));
    // Unrelated heights: a wide Δq at nearly every pixel (the wide bins and their events), and non-finite pixels.
    const far = new Float32Array(n).map(() => (rnd() - 0.5) * 1000);
    for (const k of [0, 5, 70_000, n - 1]) far[k] = k % 2 ? Number.NaN : Number.POSITIVE_INFINITY;
    const codes = new Uint16Array(n);
    encodeFieldR16(ref, codes, DEFAULT_RANGE);
    const pairs = [
      ['float against float', floatHeightfield(grid, near), floatHeightfield(grid, ref)],
      ['unrelated against codes', floatHeightfield(grid, far), codeHeightfield(grid, codes, DEFAULT_RANGE)],
    ] as const;
    let shared = 0;
    for (const [what, G, R] of pairs) {
      const opts = { block: 7, codeRange: DEFAULT_RANGE, toleranceMm: 3, executor: 'simd' as const };
      const one = withThreads(false, () => compareHeightfields(G, R, opts));
      expect(one.passes, what).toBe(0);
      // [R] On a machine whose other core is busy the helper may wake after a scan's last pass: the two-thread scan is
      //     repeated (a bounded count, each run checked) until the helper has run some of the passes.
      for (let attempt = 0; attempt === 0 || (shared === 0 && attempt < 10); attempt++) {
        const two = withThreads(true, () => compareHeightfields(G, R, opts));
        shared += two.passes;
        expect(two.result, what).toEqual(one.result);
        expect(JSON.stringify(two.result), what).toBe(JSON.stringify(one.result));
        // The block maps byte for byte (toEqual holds NaN equal to NaN and -0 to 0).
        expect(bytesOf(two.result.blocks.signedMaxM), what).toEqual(bytesOf(one.result.blocks.signedMaxM));
        expect(bytesOf(two.result.blocks.maxAbsCode), what).toEqual(bytesOf(one.result.blocks.maxAbsCode));
      }
      expect(one.result.nonFinite.pixelsExcluded, what).toBe(what === 'float against float' ? 0 : 4);
      // The float counts (equal, differing, beyond the tolerance, the decade histogram) are tallied by $prepare or by the
      // region passes (float-kernel.ts TALLY_BACKLOG), each into a bank of its own: every choice gives the JavaScript
      // scan's counts — excluded pixels too, whose scratch dm of 0 is not an equal pixel.
      const js = compareHeightfields(G, R, { ...opts, executor: 'js' });
      const counts = (r: typeof js) => ({
        equal: r.floatEqualPercent,
        beyond: r.beyondTolerance,
        histogram: r.floatHistogramMm,
        clamped: r.clamped,
        excluded: r.nonFinite.pixelsExcluded,
      });
      expect(counts(one.result), what).toEqual(counts(js));
      for (const where of ['caller', 'helper', 'balance'] as const) {
        const was = setFloatPlacement({ tally: where });
        try {
          const two = withThreads(true, () => compareHeightfields(G, R, opts));
          expect(JSON.stringify(two.result), `${what}, tallied on ${where}`).toBe(JSON.stringify(one.result));
        } finally {
          setFloatPlacement(was);
        }
      }
      // The whole map's pass on this thread or on the helper (float-kernel.ts WHOLE_HERE_WIDE_SHARE picks one from the
      // first chunk): its sums, maxima and wide-Δq order are the one thread's either way.
      for (const where of ['caller', 'helper', 'share'] as const) {
        const was = setFloatPlacement({ whole: where });
        try {
          // Repeated (a bounded count, each run checked) until the helper has run some of this placement's passes.
          let ran = 0;
          for (let attempt = 0; attempt === 0 || (ran === 0 && attempt < 10); attempt++) {
            const two = withThreads(true, () => compareHeightfields(G, R, opts));
            ran += two.passes;
            expect(JSON.stringify(two.result), `${what}, the whole map on ${where}`).toBe(JSON.stringify(one.result));
            expect(bytesOf(two.result.blocks.signedMaxM), what).toEqual(bytesOf(one.result.blocks.signedMaxM));
          }
          expect(ran, `${what}, the whole map on ${where}`).toBeGreaterThan(0);
        } finally {
          setFloatPlacement(was);
        }
      }
    }
    // Passes go to whichever thread is free; over hundreds of sub-blocks the helper ran some.
    expect(shared).toBeGreaterThan(0);
    // The data's choice: the whole map stays on this thread for the unrelated pair (a wide Δq nearly everywhere), goes
    // to the helper for the near one; a forced placement overrides it.
    const enc = (h: Float32Array) => {
      const c = new Uint16Array(n);
      encodeFieldR16(h, c, DEFAULT_RANGE);
      return c;
    };
    expect(wholeMapHere(enc(far), codes, 'share')).toBe(true);
    expect(wholeMapHere(enc(near), enc(ref), 'share')).toBe(false);
    expect(wholeMapHere(enc(near), enc(ref), 'caller')).toBe(true);
    expect(wholeMapHere(enc(far), codes, 'helper')).toBe(false);
  });
});
