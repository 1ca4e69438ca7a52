/**
 * Field summaries (src/core/summary.ts): the WebAssembly kernel equals the JavaScript loops bit for bit — counts, and
 * extremes compared with Object.is (so a −0 that the lanes would have preferred is caught) — on fields built to reach
 * every branch: chunk edges (1 MiB), tails shorter than a vector, NaN, ±Inf, ±0 in either order, subnormals, no
 * finite sample at all; and both equal what numpy states for the same float32 samples (an independent reading).
 */
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { codeRange, codeRangeJs, codeRangeStream, floatSummaryStream, summarizeFloats, summarizeFloatsJs, swapWordsJs } from '../src/core/summary.js';
import { tempDir, testRandom } from './helpers.js';

const rnd = testRandom(0x5a11);
const SPECIAL = [NaN, Infinity, -Infinity, 0, -0, 1e-45, -1e-45, 3.4028234663852886e38, -3.4028234663852886e38];

function field(n: number, special: number): Float32Array {
  const v = new Float32Array(n);
  for (let i = 0; i < n; i++) v[i] = rnd() < special ? SPECIAL[Math.floor(rnd() * SPECIAL.length)] : (rnd() - 0.5) * 2000;
  return v;
}

function same(v: Float32Array): void {
  const a = summarizeFloats(v);
  const b = summarizeFloatsJs(v);
  expect([a.nan, a.posInf, a.negInf]).toEqual([b.nan, b.posInf, b.negInf]);
  expect(Object.is(a.min, b.min), `min ${a.min} vs ${b.min} (n ${v.length})`).toBe(true);
  expect(Object.is(a.max, b.max), `max ${a.max} vs ${b.max} (n ${v.length})`).toBe(true);
}

describe('float summary: kernel against the loops', () => {
  it('lengths around the vector and chunk edges, with every special value', () => {
    for (const n of [0, 1, 3, 4, 5, 7, 8, 9, 262143, 262144, 262145, 600001]) for (const p of [0, 0.01, 0.5]) same(field(n, p));
  });

  it('zeros decide by the first met: −0 before +0 and +0 before −0, as extremes', () => {
    for (const order of [
      [-0, 0],
      [0, -0],
    ]) {
      const v = new Float32Array(262150).fill(5);
      v[3] = order[0];
      v[262149] = order[1];
      same(v); // min is a zero
      same(v.map((x) => (x === 5 ? -5 : x))); // max is a zero
    }
  });

  it('no finite sample: both extremes null, every non-finite counted', () => {
    const v = Float32Array.from({ length: 1001 }, (_, i) => [NaN, Infinity, -Infinity][i % 3]);
    expect(summarizeFloats(v)).toEqual({ nan: 334, posInf: 334, negInf: 333, min: null, max: null });
    same(v);
  });

  it('a float64 field takes the loops (same answer as the loops)', () => {
    const v = Float64Array.from(field(1000, 0.1));
    expect(summarizeFloats(v)).toEqual(summarizeFloatsJs(v));
  });

  it('numpy states the same counts and finite extremes for the same float32 samples', () => {
    const v = field(300001, 0.02);
    const path = join(tempDir('hb-summary-'), 'v.f32');
    writeFileSync(path, Buffer.from(v.buffer));
    const py = spawnSync(
      join(import.meta.dirname, '..', '.venv', 'bin', 'python'),
      [
        '-c',
        `import numpy as np, json, sys
a = np.fromfile(sys.argv[1], '<f4'); f = a[np.isfinite(a)]
print(json.dumps([int(np.isnan(a).sum()), int(np.isposinf(a).sum()), int(np.isneginf(a).sum()), float(f.min()), float(f.max())]))`,
        path,
      ],
      { encoding: 'utf8' },
    );
    expect(py.status, py.stderr).toBe(0);
    const s = summarizeFloats(v);
    expect([s.nan, s.posInf, s.negInf, s.min, s.max]).toEqual(JSON.parse(py.stdout));
  });
});

describe('code range: kernel against the loop', () => {
  it('lengths around the vector and chunk edges; extremes at the ends, inside and in the tail', () => {
    expect(codeRange(Uint16Array.of(7))).toEqual({ min: 7, max: 7 });
    for (const n of [7, 8, 9, 524287, 524288, 524289, 1_000_003]) {
      const c = Uint16Array.from({ length: n }, () => 1000 + Math.floor(rnd() * 60000));
      expect(codeRange(c)).toEqual(codeRangeJs(c));
      c[n - 1] = 0;
      c[0] = 65535;
      expect(codeRange(c)).toEqual({ min: 0, max: 65535 });
    }
    expect(codeRange(new Uint16Array(0))).toBeNull();
  });
});

describe('streamed summaries: windows of a big-endian run, swapped on the kernel', () => {
  /** Feeds `v` stored big-endian through a stream window by window, as `info` streams a .npy run. */
  function streamBigEndian<T>(
    bytes: Uint8Array,
    size: 2 | 4,
    make: () => { window: Uint8Array; swap(b: number, s: 2 | 4): void; add(n: number): void; finish(): T },
  ): T {
    const s = make();
    const step = s.window.length;
    for (let at = 0; at < bytes.length; at += step) {
      const n = Math.min(step, bytes.length - at);
      s.window.set(bytes.subarray(at, at + n));
      s.swap(n, size);
      s.add(n / size);
    }
    return s.finish();
  }

  it('floats: the streamed summary equals the loops (null only for a zero extreme)', () => {
    for (const n of [1, 5, 262144, 262147, 600001])
      for (const p of [0, 0.01]) {
        const v = field(n, p);
        const be = new Uint8Array(v.buffer.slice(0));
        swapWordsJs(be, be.length, 4);
        const got = streamBigEndian(be, 4, floatSummaryStream);
        const want = summarizeFloatsJs(v);
        if (want.min === 0 || want.max === 0) expect(got).toBeNull();
        else expect(got).toEqual(want);
      }
  });

  it('codes: the streamed range equals the loop', () => {
    for (const n of [1, 9, 524288, 524297]) {
      const q = Uint16Array.from({ length: n }, () => Math.floor(rnd() * 65536));
      const be = new Uint8Array(q.buffer.slice(0));
      swapWordsJs(be, be.length, 2);
      expect(streamBigEndian(be, 2, codeRangeStream)).toEqual(codeRangeJs(q));
    }
  });

  it("the kernel's swap equals the loop, tails included", () => {
    for (const size of [2, 4] as const)
      for (const bytes of [0, 4, 12, 16, 20, 36, 1 << 20]) {
        const s = floatSummaryStream();
        const data = Uint8Array.from({ length: bytes }, () => Math.floor(rnd() * 256));
        s.window.set(data);
        s.swap(bytes, size);
        const want = data.slice();
        swapWordsJs(want, bytes, size);
        expect(Buffer.from(s.window.subarray(0, bytes)).equals(Buffer.from(want)), `${size}-byte words, ${bytes} bytes`).toBe(true);
        if (bytes >= 4) expect(Buffer.from(want).equals(Buffer.from(data))).toBe(false);
      }
  });
});
