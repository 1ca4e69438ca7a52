/**
 * The one description of the TypeScript ↔ WebAssembly boundary: every parameter block and record
 * the kernels read (field names, types, counts, the values a kernel handles), every export's parameter list, and the
 * constants compiled into the kernels from the conventions declaration.
 *
 * Both sides are made from it:
 *  - scripts/build-wasm.mjs substitutes `{{block.field}}` (byte offset), `{{block.field[i]}}` (element i),
 *    `{{block.size}}` and `{{const.name}}` in each .wat template, adds the `layoutHash` global, assembles, and refuses a
 *    template naming an unknown block, field or constant;
 *  - the bindings (arena.ts, kernels.ts, raster-kernel.ts, draw-kernel.ts, encode-kernel.ts) write blocks through
 *    `writeBlock`, which refuses a value outside what the kernel handles (a tap outside [−8, 7], an unknown mode)
 *    with the reason, and `checkModule` refuses at load a module built from another description (hash) or with an
 *    export whose parameter count differs.
 */
import { DEFAULT_CONVENTIONS } from '../../conventions/index.js';

export type FieldType = 'i32' | 'f32' | 'f64';

export interface LayoutField {
  name: string;
  type: FieldType;
  /** Elements (default 1). */
  count?: number;
  /** Inclusive range of values the kernel handles (checked on every write). */
  range?: readonly [number, number];
  doc: string;
}

export interface BlockDescription {
  doc: string;
  fields: readonly LayoutField[];
}

const SIZE: Record<FieldType, number> = { i32: 4, f32: 4, f64: 8 };

export const BLOCKS = {
  /** Smoothing tap block (smoothing.wat): one per arena, written once per chain. */
  taps: {
    doc: 'smoothing taps: per tap the integer part k and lerp weights (g = 1 − f, f) of its offset and its weight w; cross-axis lerp weights; halving weights; combine rule',
    fields: [
      // filterX's interior loop reads i + k and i + k + 1 for i in [8, n − 8): k must lie in [−8, 7].
      { name: 'k', type: 'i32', count: 5, range: [-8, 7], doc: 'floor(offset) per tap' },
      { name: 'g', type: 'f32', count: 5, doc: '1 − f per tap (float32)' },
      { name: 'f', type: 'f32', count: 5, doc: 'sub-texel fraction per tap (float32)' },
      { name: 'w', type: 'f32', count: 5, doc: 'weight per tap (float32)' },
      { name: 'crossG', type: 'f32', doc: '1 − cross-axis offset' },
      { name: 'crossF', type: 'f32', doc: 'cross-axis offset fraction' },
      { name: 'downG', type: 'f32', doc: 'halving weight of source 2i' },
      { name: 'downF', type: 'f32', doc: 'halving weight of source 2i + 1' },
      { name: 'combine', type: 'i32', range: [0, 1], doc: '0: (h2 − h3)·0.5 + h3; 1: (h2 + h3)·0.5' },
    ],
  },
  /** Draw parameter block (draw.wat): one per arena, written per draw. */
  draw: {
    doc: 'one textured draw: inverse transform, asset side, grid, program constants, level weights, pixel centre; then bounds, grid side, pointers and mode',
    fields: [
      { name: 'inv', type: 'f64', count: 6, doc: 'world → asset-local affine' },
      { name: 'W', type: 'f64', doc: 'asset side, metres' },
      { name: 'xmin', type: 'f64', doc: 'grid x origin' },
      { name: 'ymin', type: 'f64', doc: 'grid y origin' },
      { name: 'px', type: 'f64', doc: 'metres per pixel' },
      { name: 'k', type: 'f64', doc: 'program strength (float32 value)' },
      { name: 'c', type: 'f64', doc: 'program constant (float32 value)' },
      { name: 'a', type: 'f64', doc: 'lerp alpha (float32 value)' },
      { name: 'sMax', type: 'f64', doc: 'lerp normaliser' },
      { name: 'wA', type: 'f64', doc: 'lower level weight (float32 value)' },
      { name: 'wB', type: 'f64', doc: 'upper level weight (float32 value)' },
      { name: 'pc', type: 'f64', range: [0, 0.999], doc: 'pixel centre (conventions grid.pixelCentre)' },
      { name: 'i0', type: 'i32', doc: 'first column' },
      { name: 'i1', type: 'i32', doc: 'last column' },
      { name: 'j0', type: 'i32', doc: 'first row' },
      { name: 'j1', type: 'i32', doc: 'last row' },
      { name: 'n', type: 'i32', doc: 'grid side' },
      { name: 'field', type: 'i32', doc: 'byte offset of the field' },
      { name: 'levelA', type: 'i32', doc: 'byte offset of the lower level' },
      { name: 'nA', type: 'i32', doc: 'lower level side' },
      { name: 'levelB', type: 'i32', doc: 'byte offset of the upper level' },
      { name: 'nB', type: 'i32', doc: 'upper level side' },
      { name: 'twoLevels', type: 'i32', range: [0, 1], doc: '1 when the upper level has weight' },
      { name: 'mode', type: 'i32', range: [0, 4], doc: 'add, max, min, lerp, location' },
    ],
  },
  /** One triangle's setup for the raster kernel (raster.wat), written by rasterizeTriangles: float64 so the integer
   *  edge values stay exact. Edge k is opposite vertex k (e0 = v1→v2, e1 = v2→v0, e2 = v0→v1). */
  triangle: {
    doc: 'one triangle set up: per edge its endpoints, row step and strictness; vertex heights; 1/area; pixel bounds',
    fields: [
      { name: 'edges', type: 'f64', count: 12, doc: 'per edge k: ax, ay, bx, by in 1/256 pixel (snapped)' },
      { name: 's', type: 'f64', count: 3, doc: 'per edge: the step along a row, −(by − ay)·256' },
      { name: 'strict', type: 'f64', count: 3, doc: 'per edge: 1 when a sample on the edge is outside (not a top or left edge), else 0' },
      { name: 'h', type: 'f64', count: 3, doc: 'vertex heights (float32 values in f32 mode)' },
      { name: 'invArea', type: 'f64', doc: '1/area (float32 value in f32 mode)' },
      { name: 'j0', type: 'f64', doc: 'first pixel row whose centre can be inside' },
      { name: 'j1', type: 'f64', doc: 'last such row' },
      { name: 'i0', type: 'f64', doc: 'first such column' },
      { name: 'i1', type: 'f64', doc: 'last such column' },
    ],
  },
} as const satisfies Record<string, BlockDescription>;

export type BlockName = keyof typeof BLOCKS;
type FieldName<B extends BlockName> = (typeof BLOCKS)[B]['fields'][number]['name'];

/** Parameter lists of every export, by module. */
export const EXPORTS = {
  smoothing: {
    downsample: ['s', 'o', 'n', 'tp', 'j0', 'j1'],
    filterX: ['s', 'o', 'buf', 'n', 'tp', 'j0', 'j1', 'cb', 'ca'],
    filterY: ['s', 'o', 'sc', 'n', 'tp', 'j0', 'j1', 'cb', 'ca'],
    lerpLevelRows: ['l', 'm', 'n', 'i0', 'i1', 'f', 'g', 'rows', 'r0', 'r1'],
    composeRows: ['x2', 'x3', 'o', 'n', 'a2i0', 'a2i1', 'a2f', 'a2g', 'a3i0', 'a3i1', 'a3f', 'a3g', 'tp', 'j0', 'j1'],
  },
  raster: { bands: ['rec', 'binned', 'start', 'b0', 'b1', 'target', 'n', 'C'] },
  encode: { encode: ['src', 'dst', 'count', 'fmin', 'fscale', 'counts', 'rounding'], up: ['codes', 'out', 'width', 'j0', 'j1'] },
  draw: { draw: ['params'], envelope: ['field', 'n', 'i0', 'i1', 'j0', 'j1', 'out'] },
  outer: { blendRows: ['field', 'outer', 'n', 'runs', 'dx', 'dy', 'j0', 'j1', 'inner', 'width', 'ho', 'fromField'] },
} as const;
export type ModuleName = keyof typeof EXPORTS;

/** Constants compiled into the kernels, from the conventions declaration. */
export const CONSTANTS = {
  /** Location-texture border fade (draw.wat). */
  borderWindow: DEFAULT_CONVENTIONS.draws.borderWindow,
  /** Texel-space x = u·N − texelCentre (draw.wat). */
  texelCentre: DEFAULT_CONVENTIONS.sampling.texelCentre,
  /** Largest UNORM16 code (encode.wat). */
  maxCode: DEFAULT_CONVENTIONS.encoding.maxCode,
  /** Rows in the smoothing Y pass's ring − 1 (a power of two minus one; smoothing.wat, arena.ts FILTER_Y_RING). */
  ringMask: 15,
  /** [R] The raster draws its triangles band by band, 2^bandShift rows each (raster.ts, raster.wat): the rows being
   *  written (32 × 16 KiB at 4096²) stay in cache, and a band is the unit the two threads split. */
  bandShift: 5,
} as const;

export interface FieldPlace {
  offset: number;
  type: FieldType;
  count: number;
  range?: readonly [number, number];
}

const layouts = new Map<BlockName, { size: number; fields: Record<string, FieldPlace> }>();

/** Byte offset of every field (each aligned to its own size) and the block's size (a multiple of 16). */
export function blockLayout(name: BlockName): { size: number; fields: Record<string, FieldPlace> } {
  const known = layouts.get(name);
  if (known) return known;
  let at = 0;
  const fields: Record<string, FieldPlace> = {};
  for (const f of BLOCKS[name].fields as readonly LayoutField[]) {
    const s = SIZE[f.type];
    at = Math.ceil(at / s) * s;
    fields[f.name] = Object.freeze({ offset: at, type: f.type, count: f.count ?? 1, range: f.range });
    at += s * (f.count ?? 1);
  }
  const layout = Object.freeze({ size: Math.ceil(at / 16) * 16, fields: Object.freeze(fields) });
  layouts.set(name, layout);
  return layout;
}

/** Unpadded byte length of a block (the triangle record's stride: 208 bytes). */
export function blockBytes(name: BlockName): number {
  const l = blockLayout(name);
  return Math.max(...Object.values(l.fields).map((f) => f.offset + SIZE[f.type] * f.count));
}

let hashed: number | undefined;

/** FNV-1a of the whole description: a module built from another description is refused at load. */
export function layoutHash(): number {
  if (hashed !== undefined) return hashed;
  const text = JSON.stringify({ BLOCKS, EXPORTS, CONSTANTS });
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  hashed = h | 0;
  return hashed;
}

/**
 * Writes `values` into block `name` at byte `at` of `buffer`. Refuses a missing or unknown field, a wrong count, or a
 * value outside the range the kernel handles, naming the block, field, value and range.
 */
export function writeBlock<B extends BlockName>(
  buffer: ArrayBufferLike,
  at: number,
  name: B,
  values: { [K in FieldName<B>]: number | readonly number[] },
): void {
  const l = blockLayout(name);
  const given = values as Record<string, number | readonly number[]>;
  const places = placesOf(name);
  // As many keys as fields, each field given: then no key is unknown (the check below runs otherwise).
  if (Object.keys(given).length !== places.length || places.some(([f]) => given[f] === undefined))
    for (const k of Object.keys(given))
      if (!(k in l.fields)) throw new RangeError(`kernel block ${name}: no field ${k} (fields: ${Object.keys(l.fields).join(', ')})`);
  const views = viewsOf(buffer);
  for (const [fname, p] of places) {
    const v = given[fname];
    if (v === undefined) throw new RangeError(`kernel block ${name}: field ${fname} not given`);
    const byte = at + p.offset;
    const size = SIZE[p.type];
    const whole = p.type === 'i32' ? views.i32 : p.type === 'f32' ? views.f32 : views.f64;
    if (typeof v === 'number' && p.count === 1 && byte % size === 0 && byte / size < whole.length) {
      // One value, the common case: checked and stored without making an array or a view.
      if (p.range && !(v >= p.range[0] && v <= p.range[1]))
        throw new RangeError(`kernel block ${name}.${fname}: ${v} is outside what the kernel handles [${p.range[0]}, ${p.range[1]}]`);
      whole[byte / size] = v;
      continue;
    }
    const arr = typeof v === 'number' ? [v] : v;
    if (arr.length !== p.count) throw new RangeError(`kernel block ${name}.${fname}: expected ${p.count} values, got ${arr.length}`);
    if (p.range) {
      const bad = arr.find((x) => !(x >= p.range![0] && x <= p.range![1]));
      if (bad !== undefined) throw new RangeError(`kernel block ${name}.${fname}: ${bad} is outside what the kernel handles [${p.range[0]}, ${p.range[1]}]`);
    }
    if (byte % size === 0 && byte / size + p.count <= whole.length) whole.set(arr, byte / size);
    else {
      const view =
        p.type === 'i32'
          ? new Int32Array(buffer, byte, p.count)
          : p.type === 'f32'
            ? new Float32Array(buffer, byte, p.count)
            : new Float64Array(buffer, byte, p.count);
      view.set(arr);
    }
  }
}

const placeLists = new Map<BlockName, readonly (readonly [string, FieldPlace])[]>();

/** A block's fields with their places, in declaration order (made once per block). */
function placesOf(name: BlockName): readonly (readonly [string, FieldPlace])[] {
  let list = placeLists.get(name);
  if (!list) {
    list = Object.entries(blockLayout(name).fields);
    placeLists.set(name, list);
  }
  return list;
}

const bufferViews = new WeakMap<ArrayBufferLike, { i32: Int32Array; f32: Float32Array; f64: Float64Array }>();

function viewsOf(buffer: ArrayBufferLike): { i32: Int32Array; f32: Float32Array; f64: Float64Array } {
  let v = bufferViews.get(buffer);
  // A growable memory's buffer keeps its identity only until it grows; a view made before then is too short.
  const n4 = Math.floor(buffer.byteLength / 4);
  if (!v || v.i32.length !== n4) {
    v = { i32: new Int32Array(buffer, 0, n4), f32: new Float32Array(buffer, 0, n4), f64: new Float64Array(buffer, 0, Math.floor(buffer.byteLength / 8)) };
    bufferViews.set(buffer, v);
  }
  return v;
}

/**
 * Load-time check of an instantiated module against the description: its `layoutHash` global and each export's
 * parameter count. Throws with the reason (rebuild with `node scripts/build-wasm.mjs`).
 */
export function checkModule(module: ModuleName, exports: Record<string, unknown>): void {
  const g = exports.layoutHash as { value?: number } | undefined;
  const want = layoutHash();
  if (!g || g.value !== want) {
    throw new Error(
      `WebAssembly module ${module}: built from layout ${g?.value ?? 'none'}, this build's description (src/core/wasm/layouts.ts) is ${want}; run node scripts/build-wasm.mjs`,
    );
  }
  for (const [fn, params] of Object.entries(EXPORTS[module])) {
    const f = exports[fn] as ((...a: unknown[]) => unknown) | undefined;
    if (typeof f !== 'function') throw new Error(`WebAssembly module ${module}: export ${fn} missing`);
    if (f.length !== params.length)
      throw new Error(`WebAssembly module ${module}: export ${fn} takes ${f.length} parameters, the description lists ${params.length} (${params.join(', ')})`);
  }
}

/**
 * Expands the placeholders of a .wat template (see header); throws naming the placeholder it cannot resolve.
 * Used by scripts/build-wasm.mjs (and by the sync test).
 */
export function expandTemplate(source: string, file: string): string {
  const hash = layoutHash();
  return source.replace(/\{\{\s*([A-Za-z]+)(?:\.([A-Za-z0-9]+))?(?:\[(\d+)\])?\s*\}\}/g, (whole, a: string, b?: string, idx?: string) => {
    if (a === 'layoutHash' && !b) return String(hash);
    if (a === 'const') {
      if (!b || !(b in CONSTANTS)) throw new Error(`${file}: ${whole} names no constant (constants: ${Object.keys(CONSTANTS).join(', ')})`);
      const v = CONSTANTS[b as keyof typeof CONSTANTS];
      return Number.isInteger(v) ? String(v) : String(v);
    }
    if (!(a in BLOCKS)) throw new Error(`${file}: ${whole} names no block (blocks: ${Object.keys(BLOCKS).join(', ')})`);
    const l = blockLayout(a as BlockName);
    if (b === 'size') return String(l.size);
    if (b === 'bytes') return String(blockBytes(a as BlockName));
    const f = b ? l.fields[b] : undefined;
    if (!f) throw new Error(`${file}: ${whole}: block ${a} has no field ${b} (fields: ${Object.keys(l.fields).join(', ')})`);
    const i = idx === undefined ? 0 : Number(idx);
    if (i >= f.count) throw new Error(`${file}: ${whole}: ${a}.${b} has ${f.count} element(s)`);
    return String(f.offset + i * SIZE[f.type]);
  });
}
