/**
 * Arenas: one WebAssembly memory per float32 base field, shared by the raster kernel (raster.wat), the
 * smoothing kernels (smoothing.wat), the draw and envelope kernels (draw.wat) and the encode kernel (encode.wat). The
 * raster is rasterized, smoothed and composed in place, later stages transform the base in place and the codes are
 * written beside it — nothing is copied in or out, and each 64 MiB buffer is paged in once. Every buffer's place is
 * fixed when the arena is made and the memory never grows afterwards, so the views handed out stay valid for as long
 * as they are referenced.
 * [R] An arena is handed to the stages through their execution context (src/cpu/context.ts); nothing looks an
 *     arena up from an array. Every module is checked at load against the layout description (layouts.ts).
 */
import { RASTER_WASM_BASE64 } from './raster-wasm.js';
import { SMOOTHING_WASM_BASE64 } from './smoothing-wasm.js';
import { ENCODE_SHARED_WASM_BASE64 } from '../../core/wasm/encode-shared-wasm.js';
import { DRAW_WASM_BASE64 } from './draw-wasm.js';
import { OUTER_WASM_BASE64 } from './outer-wasm.js';
import { SUPPORT_WASM_BASE64 } from './support-wasm.js';
import { HELPER_MIN_SIDE, MAX_BANDS, startHelper, startHelperPagingIn, stopPagingIn } from './draw-thread.js';
import { queueRegionBytes } from './draw-queue-run.js';
import { instantiateWasm, newSharedWasmMemory, wasmDisabled, type WasmMemory } from '../../core/wasm.js';
import { blockLayout, checkModule, CONSTANTS, type ModuleName } from '../../core/wasm/layouts.js';

export interface RasterExports {
  /** Bands b0 … b1 − 1 of the binned triangle records (raster.wat); returns the pixels covered. */
  bands(rec: number, binned: number, start: number, b0: number, b1: number, target: number, n: number, C: number): number;
}

export interface EncodeExports {
  encode(src: number, dst: number, count: number, fmin: number, fscale: number, counts: number, rounding: number): void;
  up(codes: number, out: number, width: number, j0: number, j1: number): void;
}

export interface DrawExports {
  draw(params: number): number;
  envelope(field: number, n: number, i0: number, i1: number, j0: number, j1: number, out: number): void;
}

export interface SupportExports {
  /** Every shape record at `shapes`, in order, over rows r0 … r1 − 1 (support.wat); returns the pixel writes. */
  rows(field: number, n: number, shapes: number, count: number, r0: number, r1: number, xmin: number, ymin: number, px: number, pc: number): number;
}

export interface OuterExports {
  blendRows(
    field: number,
    outer: number,
    n: number,
    runs: number,
    dx: number,
    dy: number,
    j0: number,
    j1: number,
    inner: number,
    width: number,
    ho: number,
    fromField: number,
  ): void;
}

export interface SmoothingExports {
  downsample(s: number, o: number, n: number, tp: number, j0: number, j1: number): void;
  filterX(s: number, o: number, buf: number, n: number, tp: number, j0: number, j1: number, cb: number, ca: number): void;
  filterY(s: number, o: number, sc: number, n: number, tp: number, j0: number, j1: number, cb: number, ca: number): void;
  lerpLevelRows(l: number, m: number, n: number, i0: number, i1: number, f: number, g: number, rows: number, r0: number, r1: number): void;
  composeRows(
    x2: number,
    x3: number,
    o: number,
    n: number,
    a2i0: number,
    a2i1: number,
    a2f: number,
    a2g: number,
    a3i0: number,
    a3i1: number,
    a3f: number,
    a3g: number,
    tp: number,
    j0: number,
    j1: number,
  ): void;
}

/** Byte offsets of every smoothing buffer (levels at N/2, N/4, N/8; X-pass scratch; the upsampling rows and taps). */
export interface SmoothingLayout {
  tp: number;
  /** X-pass row buffer (10 rows of n floats) and the Y pass's ring of FILTER_Y_RING rows, shared by every level. */
  buf: number;
  ring: number;
  /** The helper thread's own X-pass buffer and ring (it filters the lower rows of each level, draw-thread.ts). */
  helperBuf: number;
  helperRing: number;
  /**
   * Copies of the source rows next to each band that another band overwrites in place (kernels.ts): per band, the
   * rows after it and the rows before it, FILTER_Y_RING rows each.
   */
  copies: number;
  levels: { m: number; d: number; x: number; s: number; buf: number }[];
  x2: number;
  x3: number;
  up: { i0: number; i1: number; f: number; g: number }[];
  out: number;
}

export interface Arena {
  memory: WasmMemory;
  raster: RasterExports;
  smoothing: SmoothingExports;
  encode: EncodeExports;
  draw: DrawExports;
  outer: OuterExports;
  support: SupportExports;
  /** The outer kernel's per-row runs (4n i32) and column and row offsets (n f32 each; outer-kernel.ts). */
  outerAt: { runs: number; dx: number; dy: number };
  /** Side of the square field. */
  n: number;
  rasterAt: number;
  /** The zeroed n × n float32 raster view (the field the raster stage draws into). */
  rasterView: Float32Array;
  /** Asset levels already copied into this arena (draw-kernel.ts). */
  placedAssets: Map<object, number[]>;
  /** Present when the side is a multiple of 32 (every level a whole number of 4-lane vectors). */
  smoothingLayout: SmoothingLayout | null;
  /** R16 codes (n² u16) and the three encode counters, laid out with the smoothing buffers. */
  codesAt: number;
  countsAt: number;
  /** Each band's encode counters when the encode runs in bands (encode-kernel.ts sums them). */
  bandCountsAt: number;
  /**
   * Room for the final map's Up-filtered PNG scanlines ((2n + 1)·n bytes, paged in with the rest), or -1: made only
   * for a run that writes the map as a PNG (prepareArena's `pngRows`).
   */
  pngRowsAt: number;
  /** Parameter block of the draw kernel (layouts.ts 'draw'), and the region assets are copied into on first use. */
  drawParamsAt: number;
  /** One parameter block per band of a draw shared with the helper thread (draw-kernel.ts, draw-thread.ts). */
  bandParamsAt: number;
  /** The draw queue's region (draw-queue.ts). */
  drawQueueAt: number;
  assetsAt: number;
  assetsEnd: number;
  /** Next free byte of the asset region. */
  assetsTop: number;
  /** The regions a run writes, in the order it writes them: Int32 word indices, start and end in pairs (prepareArena). */
  writtenWords: readonly number[];
}

/** [R] Room for draw assets (all mip levels, float32) per arena; pages are committed only as assets are copied. */
const ARENA_ASSET_BYTES = 48 << 20;

/** Rows in the smoothing Y pass's ring of half-texel rows (the taps read rows j + k_min … j + k_max + 1; see smoothing.ts). */
export const FILTER_Y_RING = CONSTANTS.ringMask + 1;
/** Halved levels of the smoothing chain the arena lays out (N/2, N/4, N/8; L0 is filtered in the base's buffer). */
const HALVINGS = 3;

/**
 * A new arena for an n × n float32 field, or null when WebAssembly SIMD is unavailable or disabled
 * (HEIGHTBENCH_NO_WASM=1). With `baseOverRaster` the smoothed base overwrites the raster (the raster view then holds
 * the base).
 */
export function createArena(n: number, opts: { baseOverRaster?: boolean } = {}): { arena: Arena; raster: Float32Array } | null {
  // A prepared arena may hold PNG scanline room besides: that changes no other buffer.
  const ahead = prepared;
  prepared = null;
  if (ahead && ahead.made.arena.n === n && ahead.baseOverRaster === (opts.baseOverRaster ?? false)) return ahead.made;
  if (ahead) stopPagingIn();
  return makeArena(n, opts, false);
}

/** The arena prepareArena made, until a createArena of the same shape takes it. */
let prepared: { made: { arena: Arena; raster: Float32Array }; baseOverRaster: boolean } | null = null;

/**
 * Makes the arena the next createArena(n, opts) will return, and has the executor's helper thread (draw-thread.ts) map
 * the pages the run writes — raster, smoothing levels and scratch, base, codes — while this thread loads and plans
 * (where a first write to a page costs microseconds, those writes leave the run's critical path). When the helper is
 * already running (or cannot start), the arena is still made and this thread maps the raster, as createArena does. A
 * createArena of another shape, or discardPreparedArena, drops it. With `pngRows` it also holds (and pages in) room
 * for the final map's PNG scanlines (Arena.pngRowsAt).
 */
export function prepareArena(n: number, opts: { baseOverRaster?: boolean; pngRows?: boolean } = {}): void {
  if (prepared || wasmDisabled() || n < HELPER_MIN_SIDE) return;
  const made = makeArena(n, opts, true);
  if (made) prepared = { made, baseOverRaster: opts.baseOverRaster ?? false };
}

/** Drops a prepared arena that the run will not use (another executor), and stops the helper mapping it. */
export function discardPreparedArena(): void {
  if (!prepared) return;
  prepared = null;
  stopPagingIn();
}

function makeArena(n: number, opts: { baseOverRaster?: boolean; pngRows?: boolean }, pageInAhead: boolean): { arena: Arena; raster: Float32Array } | null {
  if (wasmDisabled()) return null;
  let top = 0;
  const alloc = (bytes: number) => {
    const at = top;
    top += (bytes + 15) & ~15;
    return at;
  };
  const rasterAt = alloc(n * n * 4);
  let layout: SmoothingLayout | null = null;
  let codesAt = -1;
  let countsAt = -1;
  let bandCountsAt = -1;
  let pngRowsAt = -1;
  if (n % 32 === 0) {
    const tp = alloc(blockLayout('taps').size);
    // One X-pass buffer, sized for the first halved level, serves L1–L3; once L3 is filtered it and the Y scratch
    // hold the row-upsampled N/4 and N/8 levels ((n/4)·n and (n/8)·n floats: exactly m1² and half of it). L0 (N²) is
    // filtered in place in the base's buffer (`out`), so the N² level needs only the 10-row X buffer and the ring.
    const m1 = n >> 1;
    const scratchX = alloc(m1 * m1 * 4);
    const scratchY = alloc((m1 * m1 * 4) / 2);
    const buf = alloc(10 * n * 4);
    const ring = alloc(FILTER_Y_RING * n * 4);
    const helperBuf = alloc(10 * n * 4);
    const helperRing = alloc(FILTER_Y_RING * n * 4);
    const copies = alloc(MAX_BANDS * 2 * FILTER_Y_RING * n * 4);
    const levels: SmoothingLayout['levels'] = [];
    for (let l = 0, m = m1; l < HALVINGS; l++, m >>= 1) levels.push({ m, d: alloc(m * m * 4), x: scratchX, s: ring, buf });
    const x2 = scratchX; // (n/4)·n floats = m1²
    const x3 = scratchY; // (n/8)·n floats = m1²/2
    const up = [0, 1].map(() => ({ i0: alloc(n * 4), i1: alloc(n * 4), f: alloc(n * 4), g: alloc(n * 4) }));
    // [R] baseOverRaster: L0 and then the base are written over the raster, which nothing reads after L0's X pass —
    //     for runs that keep no raster (64 MiB less to page in).
    layout = { tp, buf, ring, helperBuf, helperRing, copies, levels, x2, x3, up, out: opts.baseOverRaster ? rasterAt : alloc(n * n * 4) };
    codesAt = alloc(n * n * 2);
    countsAt = alloc(16);
    bandCountsAt = alloc(16 * MAX_BANDS);
    if (opts.pngRows) pngRowsAt = alloc(pngRowsBytes(n));
  }
  const drawParamsAt = alloc(blockLayout('draw').size);
  const bandParamsAt = alloc(MAX_BANDS * ((blockLayout('draw').size + 15) & ~15));
  const outerAt = { runs: alloc(16 * n), dx: alloc(4 * n), dy: alloc(4 * n) };
  const drawQueueAt = alloc(queueRegionBytes());
  const assetsAt = alloc(ARENA_ASSET_BYTES);
  // [R] Shared, so that the executor's helper thread (draw-thread.ts) runs kernels on the same fields.
  const memory = newSharedWasmMemory(top);
  if (!memory) return null;
  const raster = loadChecked<RasterExports>('raster', RASTER_WASM_BASE64, memory);
  const smoothing = loadChecked<SmoothingExports>('smoothing', SMOOTHING_WASM_BASE64, memory);
  const encode = loadChecked<EncodeExports>('encode', ENCODE_SHARED_WASM_BASE64, memory);
  const draw = loadChecked<DrawExports>('draw', DRAW_WASM_BASE64, memory);
  const outer = loadChecked<OuterExports>('outer', OUTER_WASM_BASE64, memory);
  // No parameter block: its records are described in support.wat and support-rows.ts.
  const support = instantiateWasm<SupportExports>(SUPPORT_WASM_BASE64, { env: { memory } });
  if (!raster || !smoothing || !encode || !draw || !outer || !support) return null;
  // The regions the run writes, in the order it writes them (Int32 word ranges).
  const ranges = [rasterAt, n * n * 4];
  if (layout) {
    ranges.push(layout.levels[0].x, (n >> 1) * (n >> 1) * 4);
    for (const l of layout.levels) ranges.push(l.d, l.m * l.m * 4);
    ranges.push(layout.x3, ((n >> 1) * (n >> 1) * 4) / 2);
    if (layout.out !== rasterAt) ranges.push(layout.out, n * n * 4);
    ranges.push(codesAt, n * n * 2);
    if (pngRowsAt >= 0) ranges.push(pngRowsAt, pngRowsBytes(n));
  }
  // Divided, not shifted: an arena above 2 GiB (16384²) has byte offsets beyond the signed 32-bit range.
  const words = ranges.flatMap((v, k) => (k % 2 ? [Math.ceil((ranges[k - 1] + v) / 4)] : [Math.floor(v / 4)]));
  if (!(pageInAhead && startHelperPagingIn({ memory, ranges: words }))) {
    // [R] A zero written to each page of a new raster: the raster kernel reads a pixel before adding to it, and a first
    //     read maps the shared zero page, so each page would fault twice (read, then write).
    const touch = new Int32Array(memory.buffer, rasterAt, n * n);
    for (let k = 0; k < touch.length; k += 1024) touch[k] = 0;
    if (n >= HELPER_MIN_SIDE) startHelper();
  }
  const view = new Float32Array(memory.buffer, rasterAt, n * n);
  const arena: Arena = {
    memory,
    raster,
    smoothing,
    encode,
    draw,
    outer,
    support,
    outerAt,
    n,
    rasterAt,
    rasterView: view,
    placedAssets: new Map(),
    smoothingLayout: layout,
    codesAt,
    countsAt,
    bandCountsAt,
    pngRowsAt,
    drawParamsAt,
    bandParamsAt,
    drawQueueAt,
    assetsAt,
    assetsEnd: assetsAt + ARENA_ASSET_BYTES,
    assetsTop: assetsAt,
    writtenWords: words,
  };
  return { arena, raster: view };
}

/** Bytes of an n × n 16-bit grey PNG's Up-filtered scanlines: per row a filter byte and two bytes a sample. */
function pngRowsBytes(n: number): number {
  return (2 * n + 1) * n;
}

/** The arena's room for the final map's PNG scanlines (Arena.pngRowsAt), or null when it was not made with any. */
export function pngRowsView(arena: Arena): Uint8Array | null {
  return arena.pngRowsAt >= 0 ? new Uint8Array(arena.memory.buffer, arena.pngRowsAt, pngRowsBytes(arena.n)) : null;
}

/** Whether `field` is a view of `arena`'s memory (the fields a 'simd' context's stages run on in place). */
export function inArena(field: ArrayBufferView, arena: Arena): boolean {
  return field.buffer === arena.memory.buffer;
}

/** Instantiates a kernel module on `memory` and checks it against the layout description (throws the reason). */
function loadChecked<T>(name: ModuleName, base64: string, memory: WasmMemory): T | null {
  const ex = instantiateWasm<T>(base64, { env: { memory } });
  if (ex) checkModule(name, ex as unknown as Record<string, unknown>);
  return ex;
}

let available: boolean | undefined;

/** Whether the SIMD kernels can run here (compiled, and not disabled). */
export function wasmKernelsAvailable(): boolean {
  if (wasmDisabled()) return false;
  available ??= loadChecked<RasterExports>('raster', RASTER_WASM_BASE64, newSharedWasmMemory(1)!) !== null;
  return available;
}
