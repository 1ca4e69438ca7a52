/**
 * The comparison engine: a generated heightfield against a reference on the same grid.
 *
 * Inputs: two heightfields (codes or float metres), mask settings, block size, optional pre-encode float field of the
 * generated side (residual attribution).
 * Outputs: a ComparisonResult — whole-map metrics, the same per mask, a radial profile, a block-maximum map.
 * Seed rules (000, "Results and Scope"): Δq = q_generated − q_reference; ΔH = Δq × (max − min)/65535;
 * RMS = sqrt(mean ΔH²) over all compared pixels; exact agreement; ±1 histogram; maximum; 4×4 block-maximum map.
 * [R] Pairs where either side is float compare in metres as well: float metrics come from the stored values; code
 *     metrics come from encoding float sides through the shared range with the UNORM16 rule. Non-finite values
 *     (NaN, ±Inf) are excluded from every metric and counted on their own.
 */
import { MismatchError, InputRangeError } from '../errors.js';
import { columnWorldX, gridDifference, metresPerCode, rowWorldY, type GridDescription, type HeightRange } from '../core/grid.js';
import { decodeTable, encodeFieldR16, heightToUnorm } from '../core/encoding.js';
import type { Heightfield } from '../core/heightfield.js';
import { RegionAccumulator, reduceHistogram, sqrtRatio } from './accumulate.js';
import {
  DEFAULT_MASKS,
  RadialGeometry,
  maskContains,
  maskDefinitions,
  maskPixelCount,
  ringIndex,
  ringPixelCounts,
  type MaskDefinition,
  type MaskSettings,
} from './regions.js';

export interface CompareOptions {
  masks?: Partial<MaskSettings>;
  /** Block size of the block-maximum map, pixels (default 4). */
  block?: number;
  /** Pre-encode float field of the generated side, for residual attribution. */
  generatedFloat?: Float32Array | null;
  /** Straddle tolerance: a float within this many codes of a code boundary counts as a quantization straddle. */
  straddleEpsilonCodes?: number;
}

/** [R] 0.01 code ≈ 0.15 mm for −500…500 m: far above float32 rounding near ±500 m (~3e-5 m), far below a real error. */
export const DEFAULT_STRADDLE_EPSILON_CODES = 0.01;

export interface Position {
  pixel: [number, number];
  world: [number, number];
}

export interface RegionMetrics {
  pixels: number;
  exact: number;
  exactPercent: number;
  histogram: Record<string, number>;
  maxAbsCode: number;
  maxAbsCodeAt: Position | null;
  meanSignedCode: number;
  rmsMm: number;
  maxAbsMm: number;
  /** Present when either side is float: metrics of the float differences, in mm. */
  floatRmsMm?: number;
  floatMaxAbsMm?: number;
  floatBiasMm?: number;
  floatMaxAbsAt?: Position | null;
}

export interface RadialRing {
  r0: number;
  r1: number;
  pixels: number;
  rmsMm: number;
  maxAbsCode: number;
  maxAbsMm: number;
  floatRmsMm?: number;
  floatMaxAbsMm?: number;
}

export interface Attribution {
  epsilonCodes: number;
  epsilonMm: number;
  differing: number;
  straddle: number;
  deviation: number;
  /** Pixels where the float given does not encode to the generated code (the float is not this map's pre-encode field). */
  inconsistent: number;
}

export interface ComparisonResult extends RegionMetrics {
  kind: { generated: 'codes' | 'float'; reference: 'codes' | 'float' };
  range: HeightRange;
  metresPerCode: number;
  grid: GridDescription;
  totalPixels: number;
  nonFinite: { generated: number; reference: number; pixelsExcluded: number };
  masks: Record<string, RegionMetrics & { definition: MaskDefinition }>;
  radial: { step: number; rings: RadialRing[] };
  attribution?: Attribution;
  /** Block-maximum map: max |Δq| per block (codes), and the signed float maximum per block when a side is float. */
  blocks: { size: number; columns: number; rows: number; maxAbsCode: Uint16Array; signedMaxM: Float32Array | null };
}

interface Side {
  codes: Uint16Array;
  /** Float metres when this side is float; null for code sides (metres come from the decode table). */
  heights: Float32Array | null;
}

function sideOf(f: Heightfield, range: HeightRange): Side {
  if (f.kind === 'codes') return { codes: f.code_px, heights: null };
  const codes = new Uint16Array(f.height_px.length);
  encodeFieldR16(f.height_px, codes, range);
  return { codes, heights: f.height_px };
}

function position(g: GridDescription, k: number): Position | null {
  if (k < 0) return null;
  const i = k % g.columns;
  const j = (k - i) / g.columns;
  return { pixel: [i, j], world: [columnWorldX(g, i), rowWorldY(g, j)] };
}

function regionMetrics(acc: RegionAccumulator, mpc: number, g: GridDescription, withFloat: boolean): RegionMetrics {
  const s = reduceHistogram(acc);
  const n = acc.pixels;
  const exact = n - s.nonZero;
  const histogram: Record<string, number> = {};
  const keys = [...s.bins.keys(), 0].sort((a, b) => a - b);
  for (const d of keys) histogram[String(d)] = d === 0 ? exact : (s.bins.get(d) ?? 0);
  const m: RegionMetrics = {
    pixels: n,
    exact,
    exactPercent: n > 0 ? (exact / n) * 100 : Number.NaN,
    histogram,
    maxAbsCode: acc.maxAbsCode,
    maxAbsCodeAt: position(g, acc.maxAbsCodeAt),
    meanSignedCode: n > 0 ? Number(s.sum) / n : Number.NaN,
    rmsMm: sqrtRatio(s.sumSq, n) * mpc * 1000,
    maxAbsMm: acc.maxAbsCode * mpc * 1000,
  };
  if (withFloat) {
    m.floatRmsMm = n > 0 ? Math.sqrt(Math.max(acc.floatSumSq.value, 0) / n) * 1000 : Number.NaN;
    m.floatMaxAbsMm = acc.maxAbsM * 1000;
    m.floatBiasMm = n > 0 ? (acc.floatSum.value / n) * 1000 : Number.NaN;
    m.floatMaxAbsAt = position(g, acc.maxAbsMAt);
  }
  return m;
}

function sameRange(a: HeightRange, b: HeightRange): boolean {
  return a.min === b.min && a.max === b.max;
}

/** Checks that two fields can be compared directly; refuses naming both values. */
export function checkComparable(gen: Heightfield, ref: Heightfield): void {
  const d = gridDifference(gen.grid, ref.grid);
  if (d) throw new MismatchError(`grids differ (generated vs reference) in ${d}; pass --resample to resample the generated field onto the reference grid`);
  if (gen.kind === 'codes' && ref.kind === 'codes' && !sameRange(gen.range, ref.range)) {
    throw new MismatchError(
      `height ranges differ (generated vs reference): ${gen.range.min}..${gen.range.max} m vs ${ref.range.min}..${ref.range.max} m; pass --resample to compare in metres`,
    );
  }
}

export function compareHeightfields(gen: Heightfield, ref: Heightfield, opts: CompareOptions = {}): ComparisonResult {
  checkComparable(gen, ref);
  const grid = ref.grid;
  const range = ref.kind === 'codes' ? ref.range : gen.kind === 'codes' ? gen.range : { min: -500, max: 500 };
  const mpc = metresPerCode(range);
  const settings: MaskSettings = { ...DEFAULT_MASKS, ...opts.masks };
  const B = opts.block ?? 4;
  if (!Number.isInteger(B) || B < 1) throw new InputRangeError(`block size: expected an integer ≥ 1, got ${B}`);
  const G = sideOf(gen, range);
  const R = sideOf(ref, range);
  const withFloat = G.heights !== null || R.heights !== null;
  const table = decodeTable(range);

  const geo = new RadialGeometry(grid);
  const defs = maskDefinitions(settings);
  const maskNames = Object.keys(defs);
  const maskDefs = maskNames.map((k) => defs[k]);
  const whole = new RegionAccumulator();
  const maskAcc = maskNames.map(() => new RegionAccumulator());
  const step = settings.radialStep;
  const nRings = Math.max(1, Math.ceil(geo.maxRadius() / step + 1e-9));
  const ringAcc = Array.from({ length: nRings }, () => new RegionAccumulator());

  const W = grid.columns;
  const H = grid.rows;
  const bw = Math.ceil(W / B);
  const bh = Math.ceil(H / B);
  const blockCode = new Uint16Array(bw * bh);
  const blockFloat = withFloat ? new Float32Array(bw * bh) : null;
  const blockFloatAbs = withFloat ? new Float64Array(bw * bh) : null;

  // Non-finite pixels: excluded everywhere, subtracted from region counts below.
  let nonFiniteGen = 0;
  let nonFiniteRef = 0;
  const excluded: number[] = [];
  const gh = G.heights;
  const rh = R.heights;
  const isExcluded = new Uint8Array(withFloat ? W * H : 0);
  if (withFloat) {
    for (let k = 0; k < W * H; k++) {
      const a = gh ? gh[k] : 0;
      const b = rh ? rh[k] : 0;
      const badA = a - a !== 0; // NaN or ±Inf
      const badB = b - b !== 0;
      if (badA) nonFiniteGen++;
      if (badB) nonFiniteRef++;
      if (badA || badB) {
        isExcluded[k] = 1;
        excluded.push(k);
      }
    }
  }

  // Attribution of differing pixels (needs the generated side's pre-encode floats).
  const gf = opts.generatedFloat ?? null;
  if (gf && gf.length !== W * H) throw new InputRangeError(`generated float field: ${gf.length} samples, expected ${W}×${H} = ${W * H}`);
  const eps = opts.straddleEpsilonCodes ?? DEFAULT_STRADDLE_EPSILON_CODES;
  const attribution: Attribution | undefined = gf
    ? { epsilonCodes: eps, epsilonMm: eps * mpc * 1000, differing: 0, straddle: 0, deviation: 0, inconsistent: 0 }
    : undefined;

  const gc = G.codes;
  const rc = R.codes;
  const gc32 = pairView(gc);
  const rc32 = pairView(rc);
  for (let j = 0; j < H; j++) {
    const dy = geo.dy[j];
    const dy2 = geo.dy2[j];
    const rowBase = j * W;
    const brow = ((j / B) | 0) * bw;
    for (let i = 0; i < W; i++) {
      const k0 = rowBase + i;
      // Code-only pairs: skip runs of equal pixels in a tight loop (two pixels per compare where aligned).
      if (!withFloat) {
        const k1 = nextDifference(gc, rc, gc32, rc32, k0, rowBase + W);
        i += k1 - k0;
        if (i >= W) break;
      }
      const k = rowBase + i;
      const dq = gc[k] - rc[k];
      let dm = 0;
      if (withFloat) {
        if (isExcluded[k] === 1) continue;
        dm = (gh ? gh[k] : table[gc[k]]) - (rh ? rh[k] : table[rc[k]]);
        if (dq === 0 && dm === 0) continue;
      } else if (dq === 0) {
        continue;
      }
      // A differing pixel: whole map, block map, masks, ring.
      whole.addCode(dq, k);
      if (withFloat) whole.addFloat(dm, k);
      const b = brow + ((i / B) | 0);
      const a = dq < 0 ? -dq : dq;
      if (a > blockCode[b]) blockCode[b] = a;
      if (blockFloat && blockFloatAbs) {
        const am = dm < 0 ? -dm : dm;
        if (am > blockFloatAbs[b]) {
          blockFloatAbs[b] = am;
          blockFloat[b] = dm;
        }
      }
      const dx = geo.dx[i];
      const r2 = geo.dx2[i] + dy2;
      for (let m = 0; m < maskDefs.length; m++) {
        if (maskContains(maskDefs[m], r2, dx, dy)) {
          maskAcc[m].addCode(dq, k);
          if (withFloat) maskAcc[m].addFloat(dm, k);
        }
      }
      const ring = ringAcc[ringIndex(r2, step)];
      ring.addCode(dq, k);
      if (withFloat) ring.addFloat(dm, k);
      if (attribution && gf && dq !== 0) attribute(attribution, gf[k], gc[k], rc[k], range, eps);
    }
  }

  // Region pixel counts from geometry, minus excluded pixels in each region.
  whole.pixels = W * H - excluded.length;
  maskDefs.forEach((d, m) => {
    maskAcc[m].pixels = maskPixelCount(d, geo);
  });
  const ringCounts = ringPixelCounts(geo, step, nRings);
  ringAcc.forEach((acc, r) => {
    acc.pixels = ringCounts[r];
  });
  for (const k of excluded) {
    const i = k % W;
    const j = (k - i) / W;
    const r2 = geo.dx2[i] + geo.dy2[j];
    maskDefs.forEach((d, m) => {
      if (maskContains(d, r2, geo.dx[i], geo.dy[j])) maskAcc[m].pixels--;
    });
    ringAcc[ringIndex(r2, step)].pixels--;
  }

  const result: ComparisonResult = {
    ...regionMetrics(whole, mpc, grid, withFloat),
    kind: { generated: gen.kind, reference: ref.kind },
    range,
    metresPerCode: mpc,
    grid,
    totalPixels: W * H,
    nonFinite: { generated: nonFiniteGen, reference: nonFiniteRef, pixelsExcluded: excluded.length },
    masks: {},
    radial: {
      step,
      rings: ringAcc.map((acc, r) => {
        const m = regionMetrics(acc, mpc, grid, withFloat);
        const ring: RadialRing = { r0: r * step, r1: (r + 1) * step, pixels: m.pixels, rmsMm: m.rmsMm, maxAbsCode: m.maxAbsCode, maxAbsMm: m.maxAbsMm };
        if (withFloat) {
          ring.floatRmsMm = m.floatRmsMm;
          ring.floatMaxAbsMm = m.floatMaxAbsMm;
        }
        return ring;
      }),
    },
    blocks: { size: B, columns: bw, rows: bh, maxAbsCode: blockCode, signedMaxM: blockFloat },
  };
  maskNames.forEach((name, m) => {
    result.masks[name] = { ...regionMetrics(maskAcc[m], mpc, grid, withFloat), definition: maskDefs[m] };
  });
  if (attribution) result.attribution = attribution;
  return result;
}

/** A view of a code array as pixel pairs (Uint32), or null when its offset is not 4-byte aligned. */
function pairView(a: Uint16Array): Uint32Array | null {
  return a.byteOffset % 4 === 0 ? new Uint32Array(a.buffer, a.byteOffset, a.length >> 1) : null;
}

/** First index in [k, end) where a and b differ, or end. Compares pixel pairs through the Uint32 views. */
function nextDifference(a: Uint16Array, b: Uint16Array, a32: Uint32Array | null, b32: Uint32Array | null, k: number, end: number): number {
  if (a32 !== null && b32 !== null) {
    if (k & 1) {
      if (a[k] !== b[k]) return k;
      k++;
    }
    let p = k >> 1;
    const pend = end >> 1;
    while (p < pend && a32[p] === b32[p]) p++;
    k = p << 1;
  }
  while (k < end && a[k] === b[k]) k++;
  return k;
}

/**
 * Classifies one differing pixel. The generated float h encodes to gq; its float32 product p = u × 65535 lies a
 * distance |frac(p) − 0.5| (in codes) from the nearest code boundary k + 0.5. A straddle: |Δq| = 1, the reference code
 * is the neighbour across that boundary, and the distance is within ε.
 */
function attribute(a: Attribution, h: number, gq: number, rq: number, range: HeightRange, eps: number): void {
  a.differing++;
  const u = heightToUnorm(h, range);
  const p = Math.fround(u * 65535);
  const fl = Math.floor(p);
  const expected = u <= 0 ? 0 : u >= 1 ? 65535 : Math.trunc(Math.fround(p + 0.5));
  if (expected !== gq) {
    a.inconsistent++;
    return;
  }
  const f = p - fl;
  const across = f >= 0.5 ? fl : fl + 1;
  const dist = Math.abs(f - 0.5);
  if (u > 0 && u < 1 && Math.abs(gq - rq) === 1 && rq === across && dist <= eps) a.straddle++;
  else a.deviation++;
}
