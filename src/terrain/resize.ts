/**
 * Resize (seed 004, "TerrainResize", "It copies by sample index, and changing the height range is the one thing
 * that rescales").
 *
 * Inputs: a terrain, a new description, an optional offset (where old sample (0, 0) lands, in samples — a ring of
 * tiles is an offset of one tile's quads) and a fill height for new ground. Output: a new terrain carrying, over the
 * overlap, the base, every layer's deltas and flags (name, kind, generator, alpha, visibility), the paint weights
 * and the holes — all by sample index.
 * Rules:
 *  [D] copies by sample index: a change of metres per quad makes the same landscape physically larger (nothing is
 *      resampled); new samples get the fill height, paint layer 0 and no holes;
 *  [D] a change of height range preserves metres: the base converts absolutely (height = old min + code · old step,
 *      code' = (height − new min)/new step) and a delta scales by the ratio of the ranges (d' = d · old span / new
 *      span, in steps). heightbench holds the base and the deltas in metres, so the absolute conversion keeps each
 *      base height (clamped into the new range) and the ratio leaves each delta's metres unchanged. The step-unit
 *      forms are exported (`baseCodeAcrossRanges`, `deltaStepsAcrossRanges`) because that is where the classic
 *      mistake lives: passing a delta through the absolute conversion adds (old min − new min)/new step to it,
 *      which raises every touched sample by old min − new min — a uniform offset of the whole edit (tested);
 *  [R] base heights outside a narrower new range are clamped, and the count is reported.
 */
import { UNORM16_MAX, type HeightRange } from '../core/grid.js';
import { decodeHeightR16 } from '../core/encoding.js';
import { describeTerrain, type TerrainDescription } from './description.js';
import { TerrainHoles } from './holes.js';
import { CHUNK, LayerStack } from './layers.js';
import { assembleTerrain, checkTerrainSize, type Terrain } from './terrain.js';
import { TerrainWeights } from './weights.js';
import { InputRangeError } from '../errors.js';

const span = (r: HeightRange) => r.max - r.min;

/** Absolute conversion of a 16-bit base code between ranges (real-valued; the caller rounds and clamps). */
export function baseCodeAcrossRanges(code: number, from: HeightRange, to: HeightRange): number {
  const metres = decodeHeightR16(code, from);
  return ((metres - to.min) * UNORM16_MAX) / span(to);
}

/** A delta in steps between ranges: scaled by the ratio of the spans, so its metres are unchanged. */
export function deltaStepsAcrossRanges(steps: number, from: HeightRange, to: HeightRange): number {
  return (steps * span(from)) / span(to);
}

export interface ResizeOptions {
  /** Where old sample (0, 0) lands in the new grid, in samples (may be negative to crop). Default (0, 0). */
  offset?: { i: number; j: number };
  /** Base height of samples outside the overlap, metres (default 0 clamped into the new range). */
  fill?: number;
}

export interface ResizeReport {
  terrain: Terrain;
  overlap: { i0: number; j0: number; i1: number; j1: number } | null;
  clampedBase: number;
  holesDropped: number;
}

export function resizeTerrain(old: Terrain, to: TerrainDescription, o: ResizeOptions = {}): ResizeReport {
  const derived = describeTerrain(to);
  const oi = o.offset?.i ?? 0;
  const oj = o.offset?.j ?? 0;
  if (!Number.isInteger(oi) || !Number.isInteger(oj)) throw new InputRangeError(`resize: offset expected integer samples, got (${oi}, ${oj})`);
  const W = derived.samplesX;
  const H = derived.samplesY;
  const { min, max } = to.range;
  const fill = o.fill ?? Math.min(max, Math.max(min, 0));
  if (!Number.isFinite(fill) || fill < min || fill > max) throw new InputRangeError(`resize: fill height ${fill} m is outside the new range ${min}…${max} m`);
  const os = old.stack;
  // Overlap in new coordinates (inclusive).
  const i0 = Math.max(0, oi);
  const j0 = Math.max(0, oj);
  const i1 = Math.min(W - 1, oi + os.width - 1);
  const j1 = Math.min(H - 1, oj + os.height - 1);
  const overlap = i0 <= i1 && j0 <= j1 ? { i0, j0, i1, j1 } : null;

  checkTerrainSize('resized terrain', W, H, old.weights.layers);
  const base = new Float32Array(W * H).fill(fill);
  let clampedBase = 0;
  const stack = new LayerStack(W, H, base, to.range);
  const L = old.weights.layers;
  const weights = new TerrainWeights(W, H, old.weights.layerNames);
  const holes = new TerrainHoles(W, H);
  let holesDropped = 0;
  if (overlap) {
    for (let j = j0; j <= j1; j++) {
      for (let i = i0; i <= i1; i++) {
        const h = os.base[(j - oj) * os.width + (i - oi)];
        // Absolute conversion of the base: metres kept, clamped into the new range.
        const c = h < min ? min : h > max ? max : h;
        if (c !== h) clampedBase++;
        base[j * W + i] = c;
      }
      const src = ((j - oj) * os.width + (i0 - oi)) * L;
      weights.weight_sampleLayer.set(old.weights.weight_sampleLayer.subarray(src, src + (i1 - i0 + 1) * L), (j * W + i0) * L);
    }
  }
  for (const l of os.layers) {
    const n = stack.addLayer(l.name);
    n.alpha = l.alpha;
    n.visible = l.visible;
    n.kind = l.kind;
    n.generator = l.generator;
    if (!overlap) continue;
    // Deltas in metres are kept as they are: the ratio-of-ranges rescale in steps, expressed in metres.
    for (const [key, c] of l.chunks) {
      const cx = key % l.chunksX;
      const cy = Math.floor(key / l.chunksX);
      for (let k = 0; k < c.length; k++) {
        const d = c[k];
        if (d === 0) continue;
        const i = cx * CHUNK + (k % CHUNK) + oi;
        const j = cy * CHUNK + Math.floor(k / CHUNK) + oj;
        if (i >= i0 && i <= i1 && j >= j0 && j <= j1) n.addDelta(i, j, d);
      }
    }
  }
  for (const [i, j] of old.holes.list()) {
    const ni = i + oi;
    const nj = j + oj;
    if (ni >= 0 && nj >= 0 && ni < W && nj < H) holes.add(ni, nj);
    else holesDropped++;
  }
  return { terrain: assembleTerrain(to, stack, weights, holes), overlap, clampedBase, holesDropped };
}
