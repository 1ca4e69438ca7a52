/**
 * The f32 smoothing chain on WebAssembly SIMD (smoothing.wat): the same operations in the same order as the f32 path
 * of smoothing.ts, so the result is bit-identical (tested); f64 always runs in JavaScript.
 * [R] Used when the raster size is a multiple of 32 (every level a multiple of 4 lanes) and WebAssembly SIMD is
 *     available; HEIGHTBENCH_NO_WASM=1 forces the JavaScript path.
 */
import { SMOOTHING_WASM_BASE64 } from './smoothing-wasm.js';

/** The part of the WebAssembly API used here (the project's TypeScript lib is ES2022 without DOM typings). */
interface WasmMemory {
  buffer: ArrayBuffer;
  grow(pages: number): number;
}
const WA = (globalThis as unknown as { WebAssembly: { Module: new (bytes: Uint8Array) => object; Instance: new (module: object) => { exports: unknown } } }).WebAssembly;

interface Exports {
  memory: WasmMemory;
  downsample(s: number, o: number, n: number): void;
  filterX(s: number, o: number, buf: number, n: number, tp: number): void;
  filterY(s: number, o: number, sc: number, n: number, tp: number): void;
  lerpLevelRows(l: number, m: number, n: number, i0: number, i1: number, f: number, g: number, rows: number): void;
  composeRows(x2: number, x3: number, o: number, n: number, a2i0: number, a2i1: number, a2f: number, a2g: number, a3i0: number, a3i1: number, a3f: number, a3g: number): void;
}

let instance: Exports | null | undefined;

function kernels(): Exports | null {
  if (instance !== undefined) return instance;
  try {
    const bytes = Uint8Array.from(Buffer.from(SMOOTHING_WASM_BASE64, 'base64'));
    instance = new WA.Instance(new WA.Module(bytes)).exports as Exports;
  } catch {
    instance = null; // no SIMD support: the JavaScript path serves
  }
  return instance;
}

export interface WasmTaps {
  k: number[];
  f: number[];
  g: number[];
  w: number[];
}

export interface UpTaps {
  i0: Int32Array;
  i1: Int32Array;
  f: Float64Array;
  g: Float64Array;
}

export function wasmAvailable(n: number): boolean {
  return process.env.HEIGHTBENCH_NO_WASM !== '1' && n % 32 === 0 && kernels() !== null;
}

/** Runs downsample → filterX → filterY for each of `levels` levels, then the composition. */
export function wasmSmoothingChain(raster: Float32Array, n: number, tp: WasmTaps, levels: number, up2: UpTaps, up3: UpTaps, out: Float32Array): Float32Array[] {
  const k = kernels();
  if (!k) throw new Error('WebAssembly SIMD kernels are not available');
  // Bump allocation of every buffer, 16-byte aligned.
  let top = 0;
  const alloc = (bytes: number) => {
    const at = top;
    top += (bytes + 15) & ~15;
    return at;
  };
  const tpAt = alloc(80);
  const rasterAt = alloc(n * n * 4);
  const lv: { m: number; d: number; x: number; s: number; buf: number }[] = [];
  for (let l = 0, m = n >> 1; l < levels; l++, m >>= 1) lv.push({ m, d: alloc(m * m * 4), x: alloc(m * m * 4), s: alloc(m * m * 4), buf: alloc(10 * m * 4) });
  const m2 = n >> 2;
  const m3 = n >> 3;
  const x2At = alloc(m2 * n * 4);
  const x3At = alloc(m3 * n * 4);
  const outAt = alloc(n * n * 4);
  const upAt = [up2, up3].map(() => ({ i0: alloc(n * 4), i1: alloc(n * 4), f: alloc(n * 4), g: alloc(n * 4) }));
  const need = Math.ceil(top / 65536) - k.memory.buffer.byteLength / 65536;
  if (need > 0) k.memory.grow(need);
  const buf = k.memory.buffer;
  const i32 = new Int32Array(buf);
  const f32 = new Float32Array(buf);
  for (let t = 0; t < 5; t++) {
    i32[tpAt / 4 + t] = tp.k[t];
    f32[tpAt / 4 + 5 + t] = tp.g[t];
    f32[tpAt / 4 + 10 + t] = tp.f[t];
    f32[tpAt / 4 + 15 + t] = tp.w[t];
  }
  f32.set(raster, rasterAt / 4);
  [up2, up3].forEach((u, q) => {
    i32.set(u.i0, upAt[q].i0 / 4);
    i32.set(u.i1, upAt[q].i1 / 4);
    f32.set(u.f, upAt[q].f / 4);
    f32.set(u.g, upAt[q].g / 4);
  });
  let prev = rasterAt;
  let size = n;
  for (const L of lv) {
    k.downsample(prev, L.d, size);
    k.filterX(L.d, L.x, L.buf, L.m, tpAt);
    k.filterY(L.x, L.d, L.s, L.m, tpAt); // the level lands in D, as in the JavaScript path
    prev = L.d;
    size = L.m;
  }
  k.lerpLevelRows(lv[1].d, m2, n, upAt[0].i0, upAt[0].i1, upAt[0].f, upAt[0].g, x2At);
  k.lerpLevelRows(lv[2].d, m3, n, upAt[1].i0, upAt[1].i1, upAt[1].f, upAt[1].g, x3At);
  k.composeRows(x2At, x3At, outAt, n, upAt[0].i0, upAt[0].i1, upAt[0].f, upAt[0].g, upAt[1].i0, upAt[1].i1, upAt[1].f, upAt[1].g);
  out.set(new Float32Array(buf, outAt, n * n));
  return lv.map((L) => new Float32Array(buf.slice(L.d, L.d + L.m * L.m * 4)));
}
