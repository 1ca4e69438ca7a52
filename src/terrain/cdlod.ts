/**
 * CDLOD patch selection (seed 004, "PatchSelector", "IPatchSource.Covers must be conservative", "Implement it as a
 * readonly struct" — here: a source object called with plain numbers and a caller-owned scratch, so a selection
 * allocates nothing per node).
 *
 * Inputs: a root square (corner x0, z0 and size in metres), a depth (levels 0 = finest … depth − 1 = root), one
 * range per level (metres, increasing), a patch source answering "how tall is node (level, nx, nz)" (min and max
 * height, conservative over the node's closed square) and "is anything there" (covers), and a camera position.
 * Output: patches written into a caller's PatchList — each one a node square (node level, nx, nz) drawn at a level of
 * detail `lod` (= the node's level, or one coarser for a quarter of a node whose child fell out of range).
 * Rules:
 *  [D] descent (Strugar's CDLOD): a node not covered is dropped before its children are visited; a node whose box
 *      misses the sphere of its level's range is out of range (its parent draws that quarter at the parent's detail);
 *      a node whose box misses the next finer range is drawn whole; otherwise its children are visited;
 *  [D] covers must be conservative: true whenever any part of the node is covered — pruning happens before children
 *      are visited, so a source that answers from the node's centre cuts a shoreline running through a corner;
 *  [R] count, then fill: `select(source, camera, null)` returns the patch count; `select(…, list)` fills a list of at
 *      least that capacity. The recursion passes integers and writes into typed arrays made at construction;
 *  [R] morph: a vertex of detail `lod` morphs towards the next coarser grid with k = clamp((d − start)/(end − start),
 *      0, 1), end = range[lod], start = end − morphFraction · (end − previous range) (previous = 0 for lod 0); at
 *      k = 1 an odd vertex lies on its even neighbour, so a fully morphed patch is the coarser grid;
 *  [R] no crack: neighbouring patches differ by at most one level and their shared edge vertices coincide. This holds
 *      when every level's morph starts beyond the finer range plus the finer node's diagonal (with the terrain's
 *      height span): start[L + 1] ≥ range[L] + √(2·size_L² + span²). The constructor refuses ranges that break it,
 *      naming the level and both values; `minimalRanges` gives doubling ranges that satisfy it;
 *  [R] when the root itself is out of the coarsest range, the whole terrain is one patch at the coarsest level.
 */
import { InputRangeError } from '../errors.js';

/** What a selection asks about a square of ground. */
export interface PatchSource {
  /** Writes the node's minimum and maximum height into out[0] and out[1] (conservative: the closed square). */
  bounds(level: number, nx: number, nz: number, out: Float64Array): void;
  /** True whenever any part of the node's closed square is covered. */
  covers(level: number, nx: number, nz: number): boolean;
}

export interface SelectorSettings {
  x0: number;
  z0: number;
  /** Root square side, metres. */
  size: number;
  depth: number;
  /** One range per level, metres, increasing (ranges[0] for the finest level). */
  ranges: readonly number[];
  /** Quads a side of a patch mesh at its own detail (multiple of 4; default 16). */
  gridQuads?: number;
  /** Fraction of the band between two ranges over which vertices morph (default 0.3). */
  morphFraction?: number;
  /** Largest height span (max − min) a source may report for the root, metres (used by the no-crack check). */
  heightSpan: number;
}

/** Patches of one selection, in typed arrays of a fixed capacity. */
export class PatchList {
  readonly lod: Uint8Array;
  readonly level: Uint8Array;
  readonly nx: Int32Array;
  readonly nz: Int32Array;
  count = 0;
  constructor(readonly capacity: number) {
    if (!Number.isInteger(capacity) || capacity < 0) throw new InputRangeError(`patch list: capacity expected an integer ≥ 0, got ${capacity}`);
    this.lod = new Uint8Array(capacity);
    this.level = new Uint8Array(capacity);
    this.nx = new Int32Array(capacity);
    this.nz = new Int32Array(capacity);
  }
}

const NONE = 0;
const OUT = 1;
const DONE = 2;

/** Doubling ranges (ranges[L] = r0 · 2^L) with the smallest r0 that passes the no-crack check. */
export function minimalRanges(size: number, depth: number, heightSpan: number, morphFraction = 0.3): number[] {
  let r0 = size / 2 ** (depth - 1);
  // start[L+1] = 2r − f·r = (2 − f)·r with r = ranges[L]; need (1 − f)·r ≥ diag_L for every L.
  for (let L = 0; L < depth - 1; L++) {
    const s = size / 2 ** (depth - 1 - L);
    const diag = Math.sqrt(2 * s * s + heightSpan * heightSpan);
    r0 = Math.max(r0, diag / (1 - morphFraction) / 2 ** L);
  }
  r0 = Math.ceil(r0);
  return Array.from({ length: depth }, (_, L) => r0 * 2 ** L);
}

export class PatchSelector {
  readonly x0: number;
  readonly z0: number;
  readonly depth: number;
  readonly gridQuads: number;
  /** Node side per level, metres. */
  readonly nodeSize: Float64Array;
  readonly ranges: Float64Array;
  readonly morphStart: Float64Array;
  readonly heightSpan: number;
  private readonly scratch = new Float64Array(2);
  private source: PatchSource | null = null;
  private out: PatchList | null = null;
  private counted = 0;
  private cx = 0;
  private cy = 0;
  private cz = 0;

  constructor(s: SelectorSettings) {
    if (!Number.isInteger(s.depth) || s.depth < 1 || s.depth > 24) throw new InputRangeError(`CDLOD depth: expected an integer 1…24, got ${s.depth}`);
    if (!(s.size > 0) || !Number.isFinite(s.size)) throw new InputRangeError(`CDLOD root size: expected > 0 metres, got ${s.size}`);
    if (s.ranges.length !== s.depth) throw new InputRangeError(`CDLOD ranges: expected one per level (${s.depth}), got ${s.ranges.length}`);
    const G = s.gridQuads ?? 16;
    if (!Number.isInteger(G) || G < 4 || G % 4 !== 0) throw new InputRangeError(`CDLOD grid: expected a multiple of 4 quads, got ${G}`);
    const f = s.morphFraction ?? 0.3;
    if (!(f > 0 && f <= 1)) throw new InputRangeError(`CDLOD morph fraction: expected 0 < f ≤ 1, got ${f}`);
    if (!(s.heightSpan >= 0) || !Number.isFinite(s.heightSpan)) throw new InputRangeError(`CDLOD height span: expected ≥ 0 metres, got ${s.heightSpan}`);
    this.x0 = s.x0;
    this.z0 = s.z0;
    this.depth = s.depth;
    this.gridQuads = G;
    this.heightSpan = s.heightSpan;
    this.nodeSize = Float64Array.from({ length: s.depth }, (_, L) => s.size / 2 ** (s.depth - 1 - L));
    this.ranges = Float64Array.from(s.ranges);
    this.morphStart = new Float64Array(s.depth);
    for (let L = 0; L < s.depth; L++) {
      const prev = L > 0 ? s.ranges[L - 1] : 0;
      if (!(s.ranges[L] > prev)) throw new InputRangeError(`CDLOD ranges: expected positive and increasing, got ranges[${L}] = ${s.ranges[L]} after ${prev}`);
      this.morphStart[L] = s.ranges[L] - f * (s.ranges[L] - prev);
    }
    for (let L = 0; L + 1 < s.depth; L++) {
      const sz = this.nodeSize[L];
      const need = s.ranges[L] + Math.sqrt(2 * sz * sz + s.heightSpan * s.heightSpan);
      if (this.morphStart[L + 1] < need) {
        throw new InputRangeError(
          `CDLOD ranges: level ${L + 1} starts morphing at ${this.morphStart[L + 1].toFixed(1)} m, closer than range[${L}] + node diagonal = ${need.toFixed(1)} m — neighbouring patches could crack; widen the ranges (minimalRanges gives ${minimalRanges(s.size, s.depth, s.heightSpan, f).join(', ')})`,
        );
      }
    }
  }

  /** Selects patches for a camera; with `out` null only counts. Returns the patch count. */
  select(source: PatchSource, cx: number, cy: number, cz: number, out: PatchList | null): number {
    this.source = source;
    this.out = out;
    this.counted = 0;
    this.cx = cx;
    this.cy = cy;
    this.cz = cz;
    if (out) out.count = 0;
    const top = this.depth - 1;
    if (source.covers(top, 0, 0)) {
      source.bounds(top, 0, 0, this.scratch);
      if (this.scratch[1] - this.scratch[0] > this.heightSpan) {
        throw new InputRangeError(
          `CDLOD: the source's root spans ${this.scratch[1] - this.scratch[0]} m of height, more than the ${this.heightSpan} m the ranges were checked for`,
        );
      }
      if (this.node(top, 0, 0) === OUT) this.emit(top, top, 0, 0);
    }
    this.source = null;
    this.out = null;
    if (out && this.counted > out.capacity)
      throw new InputRangeError(`patch list: capacity ${out.capacity}, the selection has ${this.counted} patches (count first with a null list)`);
    return this.counted;
  }

  private emit(lod: number, level: number, nx: number, nz: number): void {
    const o = this.out;
    const k = this.counted++;
    if (o && k < o.capacity) {
      o.lod[k] = lod;
      o.level[k] = level;
      o.nx[k] = nx;
      o.nz[k] = nz;
      o.count = k + 1;
    }
  }

  /** Squared distance from the camera to a node's box at its current bounds (in scratch). */
  private dist2(level: number, nx: number, nz: number): number {
    const s = this.nodeSize[level];
    const x0 = this.x0 + nx * s;
    const z0 = this.z0 + nz * s;
    const dx = this.cx < x0 ? x0 - this.cx : this.cx > x0 + s ? this.cx - x0 - s : 0;
    const dz = this.cz < z0 ? z0 - this.cz : this.cz > z0 + s ? this.cz - z0 - s : 0;
    const lo = this.scratch[0];
    const hi = this.scratch[1];
    const dy = this.cy < lo ? lo - this.cy : this.cy > hi ? this.cy - hi : 0;
    return dx * dx + dy * dy + dz * dz;
  }

  private node(level: number, nx: number, nz: number): number {
    const src = this.source as PatchSource;
    if (!src.covers(level, nx, nz)) return NONE;
    src.bounds(level, nx, nz, this.scratch);
    const d2 = this.dist2(level, nx, nz);
    if (d2 > this.ranges[level] * this.ranges[level]) return OUT;
    if (level === 0) {
      this.emit(0, 0, nx, nz);
      return DONE;
    }
    if (d2 > this.ranges[level - 1] * this.ranges[level - 1]) {
      this.emit(level, level, nx, nz);
      return DONE;
    }
    for (let b = 0; b < 2; b++) {
      for (let a = 0; a < 2; a++) {
        if (this.node(level - 1, 2 * nx + a, 2 * nz + b) === OUT) this.emit(level, level - 1, 2 * nx + a, 2 * nz + b);
      }
    }
    return DONE;
  }

  /** Morph factor of a vertex drawn at detail `lod` at distance `d` from the camera. */
  morphFactor(lod: number, d: number): number {
    const s = this.morphStart[lod];
    const e = this.ranges[lod];
    const k = (d - s) / (e - s);
    return k < 0 ? 0 : k > 1 ? 1 : k;
  }

  /** Vertex spacing at detail `lod`, metres. */
  vertexStep(lod: number): number {
    return this.nodeSize[lod] / this.gridQuads;
  }

  /** Moves a grid vertex of detail `lod` towards the next coarser grid by k (an odd vertex slides to its lower even neighbour). */
  morphCoordinate(lod: number, x: number, origin: number, k: number): number {
    const g = this.vertexStep(lod);
    const idx = Math.round((x - origin) / g);
    return idx % 2 === 0 ? x : x - g * k;
  }
}

/**
 * A patch source over a vertex heightfield covering the root square (samples a side = 2^(depth − 1)·q + 1): min/max
 * per node at every level, leaves by scanning their closed squares, parents as the min/max of their children.
 * `covers`: 'everywhere', or water below a level — conservative: covered when the node's minimum is below the level.
 */
export class HeightfieldPatchSource implements PatchSource {
  readonly min: Float32Array[] = [];
  readonly max: Float32Array[] = [];
  constructor(
    heights: ArrayLike<number>,
    readonly samples: number,
    readonly depth: number,
    readonly water: number | null = null,
  ) {
    const leaves = 2 ** (depth - 1);
    if (heights.length !== samples * samples) throw new InputRangeError(`patch source: ${heights.length} heights, expected ${samples}² = ${samples * samples}`);
    if ((samples - 1) % leaves !== 0)
      throw new InputRangeError(`patch source: ${samples} samples a side do not split into ${leaves} leaf nodes (need (samples − 1) divisible by ${leaves})`);
    const q = (samples - 1) / leaves;
    const mn0 = new Float32Array(leaves * leaves);
    const mx0 = new Float32Array(leaves * leaves);
    for (let nz = 0; nz < leaves; nz++) {
      for (let nx = 0; nx < leaves; nx++) {
        let lo = Infinity;
        let hi = -Infinity;
        for (let j = nz * q; j <= nz * q + q; j++) {
          const row = j * samples;
          for (let i = nx * q; i <= nx * q + q; i++) {
            const h = heights[row + i];
            if (h < lo) lo = h;
            if (h > hi) hi = h;
          }
        }
        mn0[nz * leaves + nx] = lo;
        mx0[nz * leaves + nx] = hi;
      }
    }
    this.min.push(mn0);
    this.max.push(mx0);
    for (let L = 1; L < depth; L++) {
      const n = leaves >> L;
      const cmin = this.min[L - 1];
      const cmax = this.max[L - 1];
      const mn = new Float32Array(n * n);
      const mx = new Float32Array(n * n);
      for (let nz = 0; nz < n; nz++) {
        for (let nx = 0; nx < n; nx++) {
          const c = 2 * nz * 2 * n + 2 * nx;
          mn[nz * n + nx] = Math.min(cmin[c], cmin[c + 1], cmin[c + 2 * n], cmin[c + 2 * n + 1]);
          mx[nz * n + nx] = Math.max(cmax[c], cmax[c + 1], cmax[c + 2 * n], cmax[c + 2 * n + 1]);
        }
      }
      this.min.push(mn);
      this.max.push(mx);
    }
  }

  bounds(level: number, nx: number, nz: number, out: Float64Array): void {
    const n = 2 ** (this.depth - 1 - level);
    out[0] = this.min[level][nz * n + nx];
    out[1] = this.max[level][nz * n + nx];
  }

  covers(level: number, nx: number, nz: number): boolean {
    if (this.water === null) return true;
    return this.min[level][nz * 2 ** (this.depth - 1 - level) + nx] < this.water;
  }
}
