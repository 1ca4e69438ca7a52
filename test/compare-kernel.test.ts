/**
 * The comparison's executors (src/compare/kernel.ts) and the streamed comparison (src/io/r16-stream.ts): the SIMD
 * kernel (compare.wat) gives the JavaScript executor's result bit for bit, on grids chosen to reach every branch —
 * chunk edges, the vector loop's tail, |Δq| beyond the dense bins, pixels exactly on mask and ring boundaries,
 * grids whose halves do not mirror — and the CLI's streamed comparison gives what the in-memory one gives, or steps
 * aside so that the ordinary reader refuses or recovers exactly as before.
 */
import { readFileSync, writeFileSync, truncateSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { codeHeightfield, compareHeightfields, domainGrid, floatHeightfield, writeHeightfieldFile, type GridDescription } from '../src/index.js';
import { RegionAccumulator } from '../src/compare/metric-accumulators.js';
import { floatFullScan, floatSummaryScan } from '../src/compare/float-kernel.js';
import { FLOAT_HISTOGRAM_EDGES_MM } from '../src/compare/compare.js';
import { DEFAULT_RANGE } from '../src/core/grid.js';
import { encodeFieldR16 } from '../src/core/encoding.js';
import { createCodePairExecutor, defaultCompareExecutor, SCAN_CHUNK, type CompareExecutor, type TallyPlan } from '../src/compare/kernel.js';
import {
  DEFAULT_MASKS,
  RadialGeometry,
  maskBounds,
  maskContainsBounds,
  maskDefinitions,
  maskPixelCount,
  maskRowSpans,
  nextUp,
  ringPixelCounts,
  type MaskSettings,
} from '../src/compare/masks.js';
import { openR16Stream } from '../src/io/r16-stream.js';
import { withFaults } from '../src/io/fs-ops.js';
import { cli, tempDir, testRandom } from './helpers.js';

function grid(columns: number, rows: number, over: Partial<GridDescription> = {}): GridDescription {
  return { xmin: -columns / 2, ymin: -rows / 2, sizeX: columns, sizeY: rows, columns, rows, convention: 'texel-centre', rowDirection: 'row0-at-ymin', ...over };
}

/** A reference field and a generated one differing at `pick`ed pixels by ±1, small and large steps (incl. ±65535). */
function pair(n: number, seed: number, pick: (k: number, r: () => number) => boolean): { gen: Uint16Array; ref: Uint16Array } {
  const rnd = testRandom(seed);
  const ref = new Uint16Array(n);
  for (let k = 0; k < n; k++) ref[k] = 1 + Math.floor(rnd() * 65533);
  const gen = ref.slice();
  for (let k = 0; k < n; k++) {
    if (!pick(k, rnd)) continue;
    const u = rnd();
    if (u < 0.6) gen[k] = ref[k] + (u < 0.3 ? 1 : -1);
    else if (u < 0.8) gen[k] = Math.min(65535, Math.max(0, ref[k] + Math.round((rnd() - 0.5) * 128)));
    else if (u < 0.95) gen[k] = Math.floor(rnd() * 65536);
    else {
      ref[k] = u < 0.975 ? 0 : 65535;
      gen[k] = 65535 - ref[k];
    }
  }
  return { gen, ref };
}

interface Case {
  name: string;
  grid: GridDescription;
  masks?: Partial<MaskSettings>;
  block?: number;
}

const CASES: Case[] = [
  { name: 'a single pixel', grid: grid(1, 1) },
  { name: 'odd 7×5 (vector loop never runs)', grid: grid(7, 5), block: 3 },
  { name: '301×257: several chunks, a tail of 5 codes after the last 16', grid: grid(301, 257), block: 7 },
  // Vertex grid, 1 m spacing, centred: pixels lie exactly at r = 5, on the 5 m disk and ring edges.
  {
    name: 'vertex grid with pixels exactly on the boundaries',
    grid: grid(41, 41, { xmin: -20, ymin: -20, sizeX: 40, sizeY: 40, convention: 'vertex' }),
    masks: { innerRadius: 5, windowSize: 10, ringInner: 5, ringOuter: 13, radialStep: 5 },
    block: 1,
  },
  {
    name: 'off-centre, non-square, halves that do not mirror',
    grid: grid(260, 300, { xmin: 3.3, ymin: -17.1, sizeX: 260 * 0.7, sizeY: 300 * 0.45 }),
    masks: { innerRadius: 30, windowSize: 50, ringInner: 40, ringOuter: 90, radialStep: 0.37 },
  },
  { name: 'the domain grid at 512², article masks', grid: domainGrid(512) },
];

function planFor(g: GridDescription, settings: MaskSettings, block: number): TallyPlan {
  const geo = new RadialGeometry(g);
  const defs = Object.values(maskDefinitions(settings));
  return {
    columns: g.columns,
    rows: g.rows,
    block,
    bw: Math.ceil(g.columns / block),
    bh: Math.ceil(g.rows / block),
    geo,
    maskDefs: defs,
    masks: defs.map(maskBounds),
    step: settings.radialStep,
    rings: Math.max(1, Math.ceil(geo.maxRadius() / settings.radialStep + 1e-9)),
  };
}

describe('executors: the SIMD kernel gives the JavaScript result bit for bit', () => {
  for (const c of CASES) {
    it(c.name, () => {
      const n = c.grid.columns * c.grid.rows;
      for (const [seed, density] of [
        [1, 0.002],
        [2, 0.3],
        [3, 1],
      ] as const) {
        const { gen, ref } = pair(n, seed, (_k, r) => r() < density);
        const G = codeHeightfield(c.grid, gen);
        const R = codeHeightfield(c.grid, ref);
        const opts = { masks: c.masks, block: c.block };
        const js = compareHeightfields(G, R, { ...opts, executor: 'js' });
        const simd = compareHeightfields(G, R, { ...opts, executor: 'simd' });
        expect(simd, `seed ${seed}`).toEqual(js);
        expect(Array.from(simd.blocks.maxAbsCode)).toEqual(Array.from(js.blocks.maxAbsCode));
        // An invariant of both: every pixel is in exactly one ring; the histogram counts every pixel.
        expect(js.radial.rings.reduce((s, r) => s + r.pixels, 0)).toBe(n);
        expect(Object.values(js.histogram).reduce((s, v) => s + v, 0)).toBe(n);
      }
    });
  }

  it('regression fixture overflow-at-chunk-edge: |Δq| > 64 on both sides of a chunk boundary keeps the first maximum', () => {
    const g = grid(SCAN_CHUNK / 64, 130); // 1024 × 130: two chunk boundaries
    const n = g.columns * g.rows;
    const ref = new Uint16Array(n).fill(30000);
    const gen = ref.slice();
    for (const k of [SCAN_CHUNK - 1, SCAN_CHUNK, 2 * SCAN_CHUNK - 16, 2 * SCAN_CHUNK + 15, n - 1]) gen[k] = 30000 + 900;
    gen[5] = 30001; // a dense difference before the large ones
    for (const ex of ['js', 'simd'] as const) {
      const r = compareHeightfields(codeHeightfield(g, gen), codeHeightfield(g, ref), { executor: ex });
      expect(r.maxAbsCode).toBe(900);
      expect(r.maxAbsCodeAt?.pixel).toEqual([(SCAN_CHUNK - 1) % g.columns, Math.floor((SCAN_CHUNK - 1) / g.columns)]);
      expect(r.histogram).toEqual({ '0': n - 6, '1': 1, '900': 5 });
    }
  });

  it('geometry counts: the kernel counts every ring and mask as ringPixelCounts and maskPixelCount do', () => {
    for (const c of CASES) {
      const settings = { ...DEFAULT_MASKS, ...c.masks };
      const plan = planFor(c.grid, settings, 4);
      const counts = createCodePairExecutor(plan, 'simd').geometryCounts();
      expect(Array.from(counts.rings), c.name).toEqual(Array.from(ringPixelCounts(plan.geo, plan.step, plan.rings)));
      expect(counts.masks, c.name).toEqual(plan.maskDefs.map((d) => maskPixelCount(d, plan.geo)));
    }
  });

  it('nextUp: r ≤ x exactly when r < nextUp(x), on neighbouring doubles', () => {
    const rnd = testRandom(9);
    for (let t = 0; t < 2000; t++) {
      const x = t === 0 ? 0 : rnd() * 10 ** Math.floor(rnd() * 12 - 4);
      const up = nextUp(x);
      expect(up > x).toBe(true);
      // No double lies strictly between x and nextUp(x): their midpoint rounds to one of them.
      const mid = x + (up - x) / 2;
      expect(mid === x || mid === up).toBe(true);
    }
    expect(() => nextUp(-1)).toThrow(/finite x ≥ 0, got -1/);
  });

  it('the executor setting acts: each runs its own code, names itself, and refuses a name it does not know', () => {
    const plan = planFor(grid(64, 64), DEFAULT_MASKS, 4);
    const simd = createCodePairExecutor(plan, 'simd');
    const js = createCodePairExecutor(plan, 'js');
    expect(simd.executor).toBe('simd');
    expect(js.executor).toBe('js');
    // The SIMD executor's slots live in its WebAssembly memory, the JavaScript one's in plain arrays of their own.
    expect(simd.slotG.buffer).toBe(simd.slotR.buffer);
    expect(js.slotG.buffer).not.toBe(js.slotR.buffer);
    expect(defaultCompareExecutor(plan)).toBe('simd');
    expect(() => createCodePairExecutor(plan, 'gpu' as CompareExecutor)).toThrow(/expected one of simd, js, got "gpu"/);
  });

  it('regression fixture huge-radius-mask: a radius whose square overflows is counted as the JavaScript executor counts it', () => {
    const g = grid(64, 48);
    const { gen, ref } = pair(64 * 48, 5, (_k, r) => r() < 0.2);
    const opts = { masks: { innerRadius: 1e200, ringInner: 0, ringOuter: 1e200 } };
    const js = compareHeightfields(codeHeightfield(g, gen), codeHeightfield(g, ref), { ...opts, executor: 'js' });
    const simd = compareHeightfields(codeHeightfield(g, gen), codeHeightfield(g, ref), { ...opts, executor: 'simd' });
    expect(simd).toEqual(js);
    expect(js.masks.innerDisk.pixels).toBe(64 * 48);
  });
});

/**
 * Float fields for the summary kernel: a reference in and beyond −500…500 m, and a generated side equal at most
 * pixels, a float32 step away (same code), ±1 code, far (|Δq| > 64), −0 against +0, or non-finite on either side.
 */
function floatPair(n: number, seed: number, density: number): { gen: Float32Array; ref: Float32Array } {
  const rnd = testRandom(seed);
  const ref = new Float32Array(n);
  for (let k = 0; k < n; k++) ref[k] = (rnd() - 0.5) * 1100;
  const gen = ref.slice();
  const step = 1000 / 65535;
  for (let k = 0; k < n; k++) {
    if (rnd() >= density) continue;
    const u = rnd();
    if (u < 0.3) gen[k] = ref[k] + (rnd() - 0.5) * 1e-4;
    else if (u < 0.6) gen[k] = ref[k] + (rnd() < 0.5 ? step : -step);
    else if (u < 0.75) gen[k] = ref[k] + (rnd() - 0.5) * step * 400;
    else if (u < 0.8) {
      ref[k] = 0;
      gen[k] = -0;
    } else if (u < 0.9) (rnd() < 0.5 ? gen : ref)[k] = [Number.NaN, Infinity, -Infinity][Math.floor(rnd() * 3)];
    else gen[k] = (rnd() - 0.5) * 1000;
  }
  return { gen, ref };
}

describe('the float-pair summary kernel (float-pair.wat) gives the JavaScript scan bit for bit', () => {
  for (const c of CASES) {
    it(c.name, () => {
      const n = c.grid.columns * c.grid.rows;
      for (const [seed, density] of [
        [4, 0.01],
        [5, 0.5],
        [6, 1],
      ] as const) {
        const { gen, ref } = floatPair(n, seed, density);
        const G = floatHeightfield(c.grid, gen);
        const R = floatHeightfield(c.grid, ref);
        // A stated code range, so that the kernel's code tally is compared too (without one a float pair has none).
        const opts = { masks: c.masks, block: c.block, summary: true, codeRange: DEFAULT_RANGE };
        const js = compareHeightfields(G, R, { ...opts, executor: 'js' });
        const simd = compareHeightfields(G, R, { ...opts, executor: 'simd' });
        expect(simd, `seed ${seed}`).toEqual(js);
        expect(Array.from(simd.blocks.maxAbsCode)).toEqual(Array.from(js.blocks.maxAbsCode));
        // Invariants of both: the histogram counts every finite pixel; a full comparison's whole map and inner disk agree.
        expect(Object.values(js.histogram).reduce((a, v) => a + v, 0)).toBe(n - js.nonFinite.pixelsExcluded);
        const full = compareHeightfields(G, R, { masks: c.masks, block: c.block, executor: 'js', codeRange: DEFAULT_RANGE });
        expect(simd.rmsMm).toBe(full.rmsMm);
        expect(simd.floatRmsMm).toBe(full.floatRmsMm);
        expect(simd.masks.innerDisk).toEqual(full.masks.innerDisk);
      }
    });
  }

  it('the kernel itself runs here and fills the accumulators (not a fallback to the JavaScript scan)', () => {
    const g = grid(301, 257);
    const { gen, ref } = floatPair(g.columns * g.rows, 7, 0.5);
    const geo = new RadialGeometry(g);
    const masks = [maskBounds({ kind: 'disk', radius: 60 })];
    const codes = (h: Float32Array) => {
      const c = new Uint16Array(h.length);
      encodeFieldR16(h, c, DEFAULT_RANGE);
      return c;
    };
    const whole = new RegionAccumulator();
    const disk = new RegionAccumulator();
    const blockCode = new Uint16Array(Math.ceil(301 / 4) * Math.ceil(257 / 4));
    const e = floatSummaryScan(
      { columns: 301, rows: 257, block: 4, bw: Math.ceil(301 / 4), bh: Math.ceil(257 / 4), geo, masks, gh: gen, rh: ref, gc: codes(gen), rc: codes(ref) },
      { whole, maskAcc: [disk], blockCode },
    );
    expect(e).not.toBeNull();
    expect(e!.pixels.length).toBe(e!.generated + e!.reference - e!.pixels.filter((k) => !Number.isFinite(gen[k]) && !Number.isFinite(ref[k])).length);
    expect(whole.floatSumSq.value).toBeGreaterThan(0);
    expect(whole.maxAbsCode).toBeGreaterThan(64);
    expect(whole.sparse?.size ?? 0).toBeGreaterThan(0);
    expect(disk.floatSumSq.value).toBeLessThan(whole.floatSumSq.value);
  });
});

/** The bytes of a typed array: equal bytes are equal bits (−0, NaN payloads included). */
function bytesOf(a: ArrayBufferView | null): number[] | null {
  return a ? Array.from(new Uint8Array(a.buffer, a.byteOffset, a.byteLength)) : null;
}

describe('mask row spans (the full kernel visits a mask row by row through them)', () => {
  for (const c of CASES) {
    it(`${c.name}: every pixel in a span holds the predicate, every other fails it`, () => {
      const geo = new RadialGeometry(c.grid);
      const settings = { ...DEFAULT_MASKS, ...c.masks };
      const bounds = [...Object.values(maskDefinitions(settings)), { kind: 'window', size: 3 } as const, { kind: 'disk', radius: 0 } as const].map(maskBounds);
      const spans = maskRowSpans(geo, bounds);
      const { columns: W, rows: H } = c.grid;
      let members = 0;
      bounds.forEach((b, m) => {
        for (let j = 0; j < H; j++) {
          const [s0, e0, s1, e1] = spans.subarray(4 * (j * bounds.length + m), 4 * (j * bounds.length + m) + 4);
          // Each span within the row, and the left one before the right one (the kernel keeps pixel order).
          expect(s0 <= e0 && e0 <= W && s1 <= e1 && e1 <= W && (s0 === e0 || s1 === e1 || e0 <= s1)).toBe(true);
          for (let i = 0; i < W; i++) {
            const inside = maskContainsBounds(b, geo.dx2[i] + geo.dy2[j], geo.dx[i], geo.dy[j]);
            const spanned = (i >= s0 && i < e0) || (i >= s1 && i < e1);
            if (inside !== spanned) expect({ m, i, j, inside }).toEqual({ m, i, j, inside: spanned });
            if (inside) members++;
          }
        }
      });
      expect(members).toBeGreaterThan(0);
    });
  }
});

describe('the float-pair full kernel (float-pair.wat full) gives the JavaScript scan bit for bit', () => {
  for (const c of CASES) {
    it(c.name, () => {
      const n = c.grid.columns * c.grid.rows;
      for (const [seed, density] of [
        [14, 0.01],
        [15, 0.5],
        [16, 1],
      ] as const) {
        const { gen, ref } = floatPair(n, seed, density);
        // Unrelated fields: a wide Δq at nearly every pixel, past the map limit of WideBins in every region.
        const far = new Float32Array(n);
        const rnd = testRandom(seed);
        for (let k = 0; k < n; k++) far[k] = (rnd() - 0.5) * 1000;
        const codes = new Uint16Array(n);
        encodeFieldR16(ref, codes, DEFAULT_RANGE);
        const pairs = [
          ['float against float', floatHeightfield(c.grid, gen), floatHeightfield(c.grid, ref)],
          ['float against codes', floatHeightfield(c.grid, gen), codeHeightfield(c.grid, codes, DEFAULT_RANGE)],
          ['codes against float', codeHeightfield(c.grid, codes, DEFAULT_RANGE), floatHeightfield(c.grid, gen)],
          ['unrelated against codes', floatHeightfield(c.grid, far), codeHeightfield(c.grid, codes, DEFAULT_RANGE)],
        ] as const;
        // The unrelated pair is the same at every density: once is enough.
        for (const [what, G, R] of density === 0.5 ? pairs : pairs.slice(0, 3))
          for (const codeRange of [DEFAULT_RANGE, undefined]) {
            const opts = { masks: c.masks, block: c.block, codeRange, toleranceMm: codeRange ? 0 : 15 };
            const js = compareHeightfields(G, R, { ...opts, executor: 'js' });
            const simd = compareHeightfields(G, R, { ...opts, executor: 'simd' });
            const label = `seed ${seed}, ${what}, ${codeRange ? 'a stated range' : 'no range'}`;
            expect(simd, label).toEqual(js);
            expect(JSON.stringify(simd), label).toBe(JSON.stringify(js));
            expect(bytesOf(simd.blocks.maxAbsCode), label).toEqual(bytesOf(js.blocks.maxAbsCode));
            expect(bytesOf(simd.blocks.signedMaxM), label).toEqual(bytesOf(js.blocks.signedMaxM));
            // Invariants: the rings' pixels are the finite pixels; the histogram counts them when codes are compared.
            expect(js.radial.rings.reduce((a, r) => a + r.pixels, 0)).toBe(n - js.nonFinite.pixelsExcluded);
            if (codeRange) expect(Object.values(js.histogram).reduce((a, v) => a + v, 0)).toBe(n - js.nonFinite.pixelsExcluded);
          }
      }
    });
  }

  it('regression fixture block-max-tie-in-four: a block keeps its first largest |Δm| when pixels of one four-pixel step tie with opposite signs', () => {
    // Every pattern of 0, ±d and ±2d over four neighbours (5⁴ = 625 steps of four pixels), the third step of each
    // row non-finite on one side (those four go one by one): ties of equal |Δm| and opposite sign at every pair of
    // places, so a block's signed maximum names the first of them only if pixel order is kept inside the step.
    const columns = 100;
    const rows = 27;
    const n = columns * rows;
    const ref = new Float32Array(n).fill(100);
    const gen = new Float32Array(n);
    const d = 0.5;
    for (let k = 0; k < n; k++) {
      const g = Math.floor(k / 4) % 625;
      const digit = Math.floor(g / 5 ** (k % 4)) % 5;
      gen[k] = 100 + [0, d, -d, 2 * d, -2 * d][digit];
      if (Math.floor((k % columns) / 4) === 2 && k % 4 === 1) ref[k] = Number.NaN;
    }
    const g = grid(columns, rows);
    for (const block of [4, 8, 12, 2]) {
      const opts = { block, codeRange: DEFAULT_RANGE, toleranceMm: 0 };
      const js = compareHeightfields(floatHeightfield(g, gen), floatHeightfield(g, ref), { ...opts, executor: 'js' });
      const simd = compareHeightfields(floatHeightfield(g, gen), floatHeightfield(g, ref), { ...opts, executor: 'simd' });
      expect(bytesOf(simd.blocks.signedMaxM!), `block ${block}`).toEqual(bytesOf(js.blocks.signedMaxM!));
      expect(JSON.stringify(simd), `block ${block}`).toBe(JSON.stringify(js));
      // And against the rule itself: each block's first finite pixel of largest |Δm|, in pixel order.
      const bw = Math.ceil(columns / block);
      const want = new Float32Array(bw * Math.ceil(rows / block));
      const best = new Float64Array(want.length);
      for (let k = 0; k < n; k++) {
        const dm = gen[k] - ref[k];
        const b = Math.floor(Math.floor(k / columns) / block) * bw + Math.floor((k % columns) / block);
        if (Math.abs(dm) > best[b]) [best[b], want[b]] = [Math.abs(dm), dm];
      }
      expect(Array.from(simd.blocks.signedMaxM!), `block ${block}`).toEqual(Array.from(want));
      expect(want.some((v) => v < 0) && want.some((v) => v > 0)).toBe(true);
    }
  });

  it('the kernel itself runs here: rings keep exact sums of wide Δq, other regions their bins', () => {
    const g = grid(301, 257);
    const n = g.columns * g.rows;
    const { gen } = floatPair(n, 17, 0.5);
    const geo = new RadialGeometry(g);
    const masks = [maskBounds({ kind: 'disk', radius: 60 })];
    const gc = new Uint16Array(n);
    encodeFieldR16(gen, gc, DEFAULT_RANGE);
    const rc = new Uint16Array(n);
    for (let k = 0; k < n; k++) rc[k] = (k * 7919) % 65536;
    const rings = Math.ceil(geo.maxRadius() / 10 + 1e-9);
    const whole = new RegionAccumulator();
    const disk = new RegionAccumulator();
    const ringAcc = Array.from({ length: rings }, () => new RegionAccumulator());
    const blocks = Math.ceil(301 / 4) * Math.ceil(257 / 4);
    const out = {
      whole,
      maskAcc: [disk],
      ringAcc,
      blockCode: new Uint16Array(blocks),
      blockFloat: new Float32Array(blocks),
      blockFloatAbs: new Float64Array(blocks),
    };
    const input = {
      columns: 301,
      rows: 257,
      block: 4,
      bw: Math.ceil(301 / 4),
      bh: Math.ceil(257 / 4),
      geo,
      masks,
      step: 10,
      rings,
      gh: gen,
      rh: null,
      gc,
      rc,
      edgesMm: FLOAT_HISTOGRAM_EDGES_MM,
      toleranceM: 0.5,
      range: DEFAULT_RANGE,
    };
    // The kernel counts the edges a difference exceeds, which names its decade only for edges in order: others are
    // refused, naming the pair, before anything is scanned.
    const swapped = [...FLOAT_HISTOGRAM_EDGES_MM];
    [swapped[4], swapped[5]] = [swapped[5], swapped[4]];
    expect(() => floatFullScan({ ...input, edgesMm: swapped }, out)).toThrow(/non-decreasing, got 10 then 1 at 5/);
    expect(out.blockFloatAbs.every((v) => v === 0)).toBe(true);
    const e = floatFullScan(input, out);
    expect(e).not.toBeNull();
    expect(e!.reference).toBe(0);
    expect(e!.pixels.length).toBe(e!.generated);
    expect(whole.sparse!.size).toBeGreaterThan(256);
    // WideBins' order: each wide Δq where the pixel order first meets it.
    const first: number[] = [];
    const seen = new Set<number>();
    for (let k = 0; k < n; k++) {
      const dq = gc[k] - rc[k];
      if (!Number.isFinite(gen[k]) || Math.abs(dq) <= 64 || seen.has(dq)) continue;
      first.push(dq);
      seen.add(dq);
    }
    expect([...whole.sparse!].map(([d]) => d)).toEqual(first);
    expect(disk.sparse!.size).toBeGreaterThan(0);
    expect(ringAcc.every((a) => a.sparse === null)).toBe(true);
    const wide = ringAcc.reduce((t, a) => t + (a.wideSums?.count ?? 0), 0);
    expect(wide).toBe([...whole.sparse!].reduce((t, [, c]) => t + c, 0));
    expect(out.blockFloatAbs.some((v) => v > 0)).toBe(true);
    const x = e!.extras;
    expect(x.equal + x.differing).toBe(n - e!.pixels.length);
    expect([...x.pos, ...x.neg].reduce((t, c) => t + c, 0)).toBe(x.differing);
    expect(x.beyond).toBeGreaterThan(0);
    expect(x.beyond).toBeLessThan(x.differing);
    const low = gen.filter((v) => v < DEFAULT_RANGE.min).length;
    const high = gen.filter((v) => v > DEFAULT_RANGE.max).length;
    expect(low).toBeGreaterThan(0);
    expect(e!.clamped).toEqual({ generated: { low, high }, reference: { low: 0, high: 0 } });
    // A float side given as heights only: the kernel encodes each chunk in its memory (eight heights a step, the last
    // 77357 % 8 = 5 as encodeFieldR16 does them), and every accumulator and exclusion is the one the given codes give.
    const fresh = () => ({
      whole: new RegionAccumulator(),
      maskAcc: [new RegionAccumulator()],
      ringAcc: Array.from({ length: rings }, () => new RegionAccumulator()),
      blockCode: new Uint16Array(blocks),
      blockFloat: new Float32Array(blocks),
      blockFloatAbs: new Float64Array(blocks),
    });
    const given = fresh();
    const encoded = fresh();
    const eGiven = floatFullScan(input, given);
    expect(floatFullScan({ ...input, gc: null }, encoded)).toEqual(eGiven);
    expect(encoded).toEqual(given);
    expect(() => floatFullScan({ ...input, rc: null }, fresh())).toThrow(/without codes must hold heights/);
  });
});

describe('the streamed comparison (heightbench compare on two sidecar R16 files)', () => {
  const dir = tempDir('hb-stream-');
  const g = domainGrid(300); // 90,000 pixels: two chunks
  const { gen, ref } = pair(300 * 300, 4, (_k, r) => r() < 0.01);
  const genPath = join(dir, 'gen.r16');
  const refPath = join(dir, 'ref.r16');
  writeHeightfieldFile(genPath, codeHeightfield(g, gen));
  writeHeightfieldFile(refPath, codeHeightfield(g, ref));
  const inMemory = compareHeightfields(codeHeightfield(g, gen), codeHeightfield(g, ref), { executor: 'js' });

  it('streams from both files (this thread and a worker) and prints what the in-memory comparison gives', async () => {
    for (const reader of ['this-thread', 'worker'] as const) {
      const s = openR16Stream(refPath, {}, { reader });
      expect(s).not.toBeNull();
      const slot = new Uint16Array(SCAN_CHUNK);
      const got = new Uint16Array(300 * 300);
      for (let start = 0; start < got.length; start += SCAN_CHUNK) {
        const count = Math.min(SCAN_CHUNK, got.length - start);
        s!.fill(slot, start, count);
        got.set(slot.subarray(0, count), start);
      }
      expect(await s!.verified()).toBe(true);
      expect(Array.from(got)).toEqual(Array.from(ref));
    }
    const r = await cli('compare', genPath, refPath, '--json');
    expect(r.code).toBe(0);
    const j = JSON.parse(r.out);
    expect(j.exact).toBe(inMemory.exact);
    expect(j.histogram).toEqual(inMemory.histogram);
    expect(j.rmsMm).toBe(inMemory.rmsMm);
    expect(j.masks.innerDisk.pixels).toBe(inMemory.masks.innerDisk.pixels);
    expect(j.radial.rings.map((x: { pixels: number }) => x.pixels)).toEqual(inMemory.radial.rings.map((x) => x.pixels));
  });

  it('a payload changed after its sidecar: the stream does not verify, and the CLI refuses as the ordinary reader does (exit 2)', async () => {
    const bad = join(dir, 'bad.r16');
    writeHeightfieldFile(bad, codeHeightfield(g, gen));
    const bytes = readFileSync(bad);
    bytes[12345] ^= 1;
    writeFileSync(bad, bytes);
    for (const reader of ['this-thread', 'worker'] as const) {
      const s = openR16Stream(bad, {}, { reader })!;
      const slot = new Uint16Array(SCAN_CHUNK);
      for (let start = 0; start < 90000; start += SCAN_CHUNK) s.fill(slot, start, Math.min(SCAN_CHUNK, 90000 - start));
      expect(await s.verified()).toBe(false);
    }
    for (const args of [
      [bad, refPath],
      [genPath, bad],
    ]) {
      const r = await cli('compare', ...args, '--json');
      expect(r.code).toBe(2);
      expect(r.out).toBe('');
      expect(r.err).toMatch(/bad\.r16: SHA-256 [0-9a-f]{64} does not match the sidecar's [0-9a-f]{64} \(the file changed after its sidecar was written\)/);
    }
  });

  it('HEIGHTBENCH_NO_THREADS=1 keeps the reading on this thread (no worker starts), with the same codes', async () => {
    const { startStreamReader } = await import('../src/io/stream-worker.js');
    const before = process.env.HEIGHTBENCH_NO_THREADS;
    process.env.HEIGHTBENCH_NO_THREADS = '1';
    try {
      expect(startStreamReader(0, 10)).toBeNull();
      const r = await cli('compare', genPath, refPath, '--json');
      expect(r.code).toBe(0);
      expect(JSON.parse(r.out).exact).toBe(inMemory.exact);
    } finally {
      if (before === undefined) delete process.env.HEIGHTBENCH_NO_THREADS;
      else process.env.HEIGHTBENCH_NO_THREADS = before;
    }
  });

  it('a truncated payload is left to the ordinary reader, which refuses it naming both sizes', async () => {
    const short = join(dir, 'short.r16');
    writeHeightfieldFile(short, codeHeightfield(g, gen));
    truncateSync(short, 1000);
    expect(openR16Stream(short, {})).toBeNull();
    const r = await cli('compare', short, refPath, '--json');
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/short\.r16: sidecar says 180000 bytes, the file has 1000/);
  });

  it('an interrupted pair write is recovered through the pending payload, as the ordinary reader does', async () => {
    const path = join(dir, 'pending.r16');
    writeHeightfieldFile(path, codeHeightfield(g, ref));
    withFaults({ at: 4, mode: 'crash' }, () => writeHeightfieldFile(path, codeHeightfield(g, gen)));
    const r = await cli('compare', path, genPath, '--json');
    expect(r.code).toBe(0);
    expect(JSON.parse(r.out).exact).toBe(300 * 300); // the pending payload holds `gen`
  });

  it('regression fixture worker-failure-seen-at-once: a stream worker that fails is noticed without waiting for the stall limit', async () => {
    const { startStreamReader } = await import('../src/io/stream-worker.js');
    const reader = startStreamReader(987654, 1 << 20)!; // no such descriptor: the worker's first read fails
    // The consumer waits in slices of 50 ms and gives up after 200 slices without a chunk (the stall limit): a read
    // that ended on the worker's failure notice used fewer slices, however slow the machine (counted, not timed).
    const wait = Atomics.wait;
    let slices = 0;
    Atomics.wait = ((ta: Int32Array, index: number, value: number, timeout?: number) => {
      const r = wait(ta, index, value, timeout);
      if (r === 'timed-out') slices++;
      return r;
    }) as typeof Atomics.wait;
    try {
      expect(reader.read(new Uint8Array(4096))).toBe(false);
    } finally {
      Atomics.wait = wait;
    }
    expect(slices).toBeLessThan(200);
    await expect(reader.result()).rejects.toThrow();
  });

  it('regression fixture huge-sidecar-grid: a grid over the sample limit is left to the ordinary reader, which refuses it', async () => {
    const dir = tempDir('hb-huge-');
    const path = join(dir, 'huge.r16');
    writeHeightfieldFile(path, codeHeightfield(domainGrid(4), new Uint16Array(16)));
    const sc = JSON.parse(readFileSync(`${path}.json`, 'utf8'));
    sc.grid.columns = 65536;
    sc.grid.rows = 65536;
    writeFileSync(`${path}.json`, JSON.stringify(sc));
    expect(openR16Stream(path, {})).toBeNull();
    const r = await cli('compare', path, path, '--json');
    expect(r.code).toBe(2);
  });
});
