/**
 * The edit-layer stack (seed 004): a base grid plus layers of signed deltas stored sparse in 64 × 64 chunks, each
 * layer with a signed height alpha and a visibility flag; a per-tile composite cache invalidated by rectangle.
 *
 * Rules stated by seed 004 (the engine's heightfield docs, not the article — so not labelled [D]): composite = base + Σ visible deltas × alpha, clamped to the height range; order matters because of the
 * clamp; `compositeAt` is the definition and never reads the cache (it is stale exactly while edits are pending);
 * the cache is recomputed by `resolve` for invalidated tiles only; collapse adds a layer into the one below and
 * drops it (destructive).
 * [R] The clamp is applied after the base and after every layer in stack order (that is what makes order matter), and
 *     the running height is rounded to float32 after each step — the precision the composite is stored in. A layer
 *     built by `deltaLayer` from two float32 fields therefore reproduces the second field bit for bit.
 * [R] With cache tiles of one chunk (the default), `resolve` walks a tile's base rows once and then each visible
 *     layer's one chunk for that tile — the same arithmetic as `compositeAt`, sample for sample (tested).
 * A layer has a kind (see kinds.ts): 'sculpt' takes brush edits; 'import', 'splines' and 'scatter' are written
 * wholesale by their generator, named in `generator`.
 */
import type { HeightRange } from '../core/grid.js';
import { InputRangeError, requireFinite } from '../errors.js';

export const CHUNK = 64;
const CHUNK_SHIFT = 6; // log2(CHUNK)

export type LayerKind = 'sculpt' | 'import' | 'splines' | 'scatter';
export const LAYER_KINDS: readonly LayerKind[] = ['sculpt', 'import', 'splines', 'scatter'];

/**
 * Chunk key → deltas, as a Map (iteration, size, the store's API) that also keeps a dense array by key so a point
 * query finds its chunk with one array read instead of a hash lookup.
 */
export class ChunkMap extends Map<number, Float64Array> {
  /** Chunk key → deltas or undefined, preallocated (a packed array; keys set out of order would make it sparse). */
  readonly dense: (Float64Array | undefined)[];
  constructor(chunkCount: number) {
    super();
    this.dense = new Array<Float64Array | undefined>(chunkCount).fill(undefined);
  }
  override set(key: number, value: Float64Array): this {
    if (!Number.isInteger(key) || key < 0 || key >= this.dense.length) throw new InputRangeError(`chunk key ${key} outside 0…${this.dense.length - 1}`);
    super.set(key, value);
    this.dense[key] = value;
    return this;
  }
  override delete(key: number): boolean {
    if (key >= 0 && key < this.dense.length) this.dense[key] = undefined;
    return super.delete(key);
  }
  override clear(): void {
    this.dense.fill(undefined);
    super.clear();
  }
}

export class EditLayer {
  private alphaValue = 1;
  /** The layer's signed height multiplier. A non-finite alpha is refused here, at the API boundary: it would write NaN or ±Inf under the layer. */
  get alpha(): number {
    return this.alphaValue;
  }
  set alpha(v: number) {
    this.alphaValue = requireFinite(`layer ${JSON.stringify(this.name)}: alpha`, v);
  }
  visible = true;
  kind: LayerKind = 'sculpt';
  /** What regenerates a non-sculpt layer (a spline network, a scatter rule, an imported file); null for sculpt. */
  generator: string | null = null;
  /** Chunk key (cy · chunksX + cx) → CHUNK² deltas in metres. */
  readonly chunks: ChunkMap;

  constructor(
    readonly name: string,
    readonly width: number,
    readonly height: number,
  ) {
    this.chunks = new ChunkMap(Math.ceil(width / CHUNK) * Math.ceil(height / CHUNK));
  }

  /** A deep copy (the undo record a collapse takes of the lower layer first). */
  clone(name = this.name): EditLayer {
    const c = new EditLayer(name, this.width, this.height);
    c.alpha = this.alpha;
    c.visible = this.visible;
    c.kind = this.kind;
    c.generator = this.generator;
    for (const [k, v] of this.chunks) c.chunks.set(k, Float64Array.from(v));
    return c;
  }

  /** Inclusive sample rectangle of every touched chunk, or null when the layer touched nothing. */
  touchedRect(): Rect | null {
    if (this.chunks.size === 0) return null;
    let cx0 = Infinity;
    let cy0 = Infinity;
    let cx1 = -1;
    let cy1 = -1;
    for (const key of this.chunks.keys()) {
      const cx = key % this.chunksX;
      const cy = Math.floor(key / this.chunksX);
      cx0 = Math.min(cx0, cx);
      cy0 = Math.min(cy0, cy);
      cx1 = Math.max(cx1, cx);
      cy1 = Math.max(cy1, cy);
    }
    return { i0: cx0 * CHUNK, j0: cy0 * CHUNK, i1: Math.min(this.width - 1, cx1 * CHUNK + CHUNK - 1), j1: Math.min(this.height - 1, cy1 * CHUNK + CHUNK - 1) };
  }

  get chunksX(): number {
    return Math.ceil(this.width / CHUNK);
  }

  deltaAt(i: number, j: number): number {
    const c = this.chunks.get(Math.floor(j / CHUNK) * this.chunksX + Math.floor(i / CHUNK));
    return c ? c[(j % CHUNK) * CHUNK + (i % CHUNK)] : 0;
  }

  /** Adds to the delta at (i, j), creating its chunk on first touch. */
  addDelta(i: number, j: number, dv: number): void {
    if (!Number.isFinite(dv))
      throw new InputRangeError(`layer ${JSON.stringify(this.name)}: delta at (${i}, ${j}) is ${dv}, expected a finite number of metres`);
    const key = Math.floor(j / CHUNK) * this.chunksX + Math.floor(i / CHUNK);
    let c = this.chunks.get(key);
    if (!c) {
      c = new Float64Array(CHUNK * CHUNK);
      this.chunks.set(key, c);
    }
    c[(j % CHUNK) * CHUNK + (i % CHUNK)] += dv;
  }
}

export interface Rect {
  i0: number;
  j0: number;
  i1: number;
  j1: number;
}

export class LayerStack {
  readonly layers: EditLayer[] = [];
  private readonly cache: Float32Array;
  private readonly dirty: Uint8Array;
  readonly tilesX: number;
  readonly tilesY: number;
  /** Tiles recomputed by the last resolve (for tests and reports). */
  lastResolved = 0;
  private readonly rangeMin: number;
  private readonly rangeMax: number;
  private readonly chunksX: number;

  constructor(
    readonly width: number,
    readonly height: number,
    readonly base: Float32Array,
    readonly range: HeightRange,
    readonly cacheTile = CHUNK,
  ) {
    if (base.length !== width * height) throw new InputRangeError(`layer stack: base has ${base.length} samples, expected ${width}×${height}`);
    this.cache = new Float32Array(width * height);
    this.rangeMin = range.min;
    this.rangeMax = range.max;
    this.chunksX = Math.ceil(width / CHUNK);
    this.tilesX = Math.ceil(width / cacheTile);
    this.tilesY = Math.ceil(height / cacheTile);
    this.dirty = new Uint8Array(this.tilesX * this.tilesY).fill(1);
  }

  addLayer(name: string): EditLayer {
    const l = new EditLayer(name, this.width, this.height);
    this.layers.push(l);
    return l;
  }

  private clamp(h: number): number {
    return h < this.range.min ? this.range.min : h > this.range.max ? this.range.max : h;
  }

  /** The definition: base and every visible layer, clamped after each, in stack order. Never reads the cache. */
  compositeAt(i: number, j: number): number {
    const min = this.rangeMin;
    const max = this.rangeMax;
    const b = this.base[j * this.width + i];
    let h = Math.fround(b < min ? min : b > max ? max : b);
    // One chunk key and in-chunk offset for every layer (all layers share the grid).
    const key = (j >> CHUNK_SHIFT) * this.chunksX + (i >> CHUNK_SHIFT);
    const off = (j & (CHUNK - 1)) * CHUNK + (i & (CHUNK - 1));
    const layers = this.layers;
    for (let k = 0; k < layers.length; k++) {
      const l = layers[k];
      if (!l.visible) continue;
      const c = l.chunks.dense[key];
      if (c === undefined) continue;
      const d = c[off];
      if (d !== 0) {
        const v = h + d * l.alpha;
        h = Math.fround(v < min ? min : v > max ? max : v);
      }
    }
    return h;
  }

  /**
   * `compositeAt` for many samples at once, written into `out` (same arithmetic, same float32 results). [R] Base first
   * for every sample in one tight loop (many independent memory reads in flight), then each visible layer in stack
   * order — the per-sample order of operations is unchanged.
   */
  compositeAtMany(i_sample: ArrayLike<number>, j_sample: ArrayLike<number>, out: Float32Array): Float32Array {
    const n = out.length;
    if (i_sample.length !== n || j_sample.length !== n)
      throw new InputRangeError(`compositeAtMany: ${i_sample.length} columns, ${j_sample.length} rows and ${n} outputs, expected equal lengths`);
    const min = this.rangeMin;
    const max = this.rangeMax;
    const w = this.width;
    const base = this.base;
    for (let k = 0; k < n; k++) {
      const i = i_sample[k];
      const j = j_sample[k];
      if (!(i >= 0 && j >= 0 && i < w && j < this.height) || (i | 0) !== i || (j | 0) !== j)
        throw new InputRangeError(`compositeAtMany: sample ${k} at (${i}, ${j}) is outside the ${w}×${this.height} grid`);
      const b = base[j * w + i];
      out[k] = b < min ? min : b > max ? max : b;
    }
    const cx = this.chunksX;
    for (const l of this.layers) {
      if (!l.visible || l.chunks.size === 0) continue;
      const dense = l.chunks.dense;
      const alpha = l.alpha;
      for (let k = 0; k < n; k++) {
        const i = i_sample[k];
        const j = j_sample[k];
        const c = dense[(j >> CHUNK_SHIFT) * cx + (i >> CHUNK_SHIFT)];
        if (c === undefined) continue;
        const d = c[(j & (CHUNK - 1)) * CHUNK + (i & (CHUNK - 1))];
        if (d === 0) continue;
        const v = out[k] + d * alpha;
        out[k] = v < min ? min : v > max ? max : v;
      }
    }
    return out;
  }

  /** Marks every cache tile overlapping the rectangle (inclusive sample indices) as stale. */
  invalidate(r: Rect): void {
    const tx0 = Math.max(0, Math.floor(r.i0 / this.cacheTile));
    const tx1 = Math.min(this.tilesX - 1, Math.floor(r.i1 / this.cacheTile));
    const ty0 = Math.max(0, Math.floor(r.j0 / this.cacheTile));
    const ty1 = Math.min(this.tilesY - 1, Math.floor(r.j1 / this.cacheTile));
    for (let ty = ty0; ty <= ty1; ty++) for (let tx = tx0; tx <= tx1; tx++) this.dirty[ty * this.tilesX + tx] = 1;
  }

  invalidateAll(): void {
    this.dirty.fill(1);
  }

  /**
   * Writes base heights (metres) over an inclusive rectangle (default: the whole grid), row-major, and invalidates
   * exactly that rectangle — the documented way to change the base (the seed's "a base grid"; an import writes a
   * layer instead). Refuses a wrong length and non-finite values, naming the first offending sample.
   */
  writeBase(values: ArrayLike<number>, r: Rect = { i0: 0, j0: 0, i1: this.width - 1, j1: this.height - 1 }): void {
    if (
      !(r.i0 >= 0 && r.j0 >= 0 && r.i1 < this.width && r.j1 < this.height && r.i0 <= r.i1 && r.j0 <= r.j1) ||
      ![r.i0, r.j0, r.i1, r.j1].every(Number.isInteger)
    )
      throw new InputRangeError(`base write: rectangle ${r.i0}…${r.i1} × ${r.j0}…${r.j1} is not inside the ${this.width}×${this.height} grid`);
    const w = r.i1 - r.i0 + 1;
    const h = r.j1 - r.j0 + 1;
    if (values.length !== w * h) throw new InputRangeError(`base write: ${values.length} heights for a ${w}×${h} rectangle, expected ${w * h}`);
    for (let k = 0; k < values.length; k++) {
      if (!Number.isFinite(values[k]))
        throw new InputRangeError(`base write: height ${values[k]} at sample (${r.i0 + (k % w)}, ${r.j0 + Math.floor(k / w)}) is not a finite number`);
    }
    for (let j = 0; j < h; j++) for (let i = 0; i < w; i++) this.base[(r.j0 + j) * this.width + r.i0 + i] = values[j * w + i];
    this.invalidate(r);
  }

  /** Recomputes stale cache tiles. */
  resolve(): void {
    this.lastResolved = 0;
    for (let ty = 0; ty < this.tilesY; ty++) {
      for (let tx = 0; tx < this.tilesX; tx++) {
        if (!this.dirty[ty * this.tilesX + tx]) continue;
        if (this.cacheTile === CHUNK) this.resolveChunkTile(tx, ty);
        else {
          const j1 = Math.min(this.height, (ty + 1) * this.cacheTile);
          const i1 = Math.min(this.width, (tx + 1) * this.cacheTile);
          for (let j = ty * this.cacheTile; j < j1; j++) for (let i = tx * this.cacheTile; i < i1; i++) this.cache[j * this.width + i] = this.compositeAt(i, j);
        }
        this.dirty[ty * this.tilesX + tx] = 0;
        this.lastResolved++;
      }
    }
  }

  /** True when no cache tile overlapping the rectangle is stale. */
  isResolved(r: Rect = { i0: 0, j0: 0, i1: this.width - 1, j1: this.height - 1 }): boolean {
    for (let ty = Math.floor(r.j0 / this.cacheTile); ty <= Math.floor(r.j1 / this.cacheTile); ty++) {
      for (let tx = Math.floor(r.i0 / this.cacheTile); tx <= Math.floor(r.i1 / this.cacheTile); tx++) if (this.dirty[ty * this.tilesX + tx]) return false;
    }
    return true;
  }

  /** One cache tile that is exactly one chunk: base rows, then each visible layer's chunk, in stack order. */
  private resolveChunkTile(tx: number, ty: number): void {
    const { min, max } = this.range;
    const w = this.width;
    const cache = this.cache;
    const base = this.base;
    const i0 = tx * CHUNK;
    const j0 = ty * CHUNK;
    const ni = Math.min(w, i0 + CHUNK) - i0;
    const nj = Math.min(this.height, j0 + CHUNK) - j0;
    for (let b = 0; b < nj; b++) {
      const o = (j0 + b) * w + i0;
      for (let a = 0; a < ni; a++) {
        const h = base[o + a];
        cache[o + a] = h < min ? min : h > max ? max : h;
      }
    }
    const key = ty * Math.ceil(w / CHUNK) + tx;
    for (const l of this.layers) {
      if (!l.visible) continue;
      const c = l.chunks.get(key);
      if (!c) continue;
      const alpha = l.alpha;
      for (let b = 0; b < nj; b++) {
        const o = (j0 + b) * w + i0;
        const co = b * CHUNK;
        for (let a = 0; a < ni; a++) {
          const d = c[co + a];
          if (d === 0) continue;
          const h = cache[o + a] + d * alpha;
          cache[o + a] = h < min ? min : h > max ? max : h;
        }
      }
    }
  }

  /** The cached composite (call resolve first; stale tiles keep their old values until then). */
  cached(): Float32Array {
    return this.cache;
  }

  /** Moves a layer; everything is invalidated (reordering changes results through the clamp). */
  moveLayer(from: number, to: number): void {
    const [l] = this.layers.splice(from, 1);
    this.layers.splice(to, 0, l);
    this.invalidateAll();
  }

  /** Adds layer `index`'s deltas × alpha into the layer below (scaled by that layer's alpha) and drops it. */
  collapse(index: number): void {
    if (index < 1 || index >= this.layers.length)
      throw new InputRangeError(`collapse: layer ${index} has no layer below it (layers 0…${this.layers.length - 1})`);
    const upper = this.layers[index];
    const lower = this.layers[index - 1];
    if (lower.alpha === 0) throw new InputRangeError(`collapse: the layer below (${lower.name}) has alpha 0; its deltas cannot carry the upper layer`);
    const scale = upper.visible ? upper.alpha / lower.alpha : 0;
    for (const [key, c] of upper.chunks) {
      const cx = key % upper.chunksX;
      const cy = Math.floor(key / upper.chunksX);
      for (let k = 0; k < c.length; k++) {
        if (c[k] === 0) continue;
        const i = cx * CHUNK + (k % CHUNK);
        const j = cy * CHUNK + Math.floor(k / CHUNK);
        if (i < this.width && j < this.height) lower.addDelta(i, j, c[k] * scale);
      }
    }
    this.layers.splice(index, 1);
    this.invalidateAll();
  }
}
