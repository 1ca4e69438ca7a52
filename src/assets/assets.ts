/**
 * Static height assets: natural stamp textures and location textures, each a 16-bit texture with its full mip
 * chain stored in a KTX2 container (VK_FORMAT_R16_UNORM, one level per mip), decode parameters and world extent in
 * its key/value data (article: "The Complete Mip Chain Participates in Height Sampling", "Static Pixels, Decoded
 * Values, and Final Heights in Meters").
 *
 * Inputs: the world's stamp keys and location texture definitions (seeds, sizes, shapes, decode parameters).
 * Outputs: `<dir>/stamps/<key>.ktx2`, `<dir>/locations/<key>.ktx2`, `<dir>/index.json` (key → file, size, levels,
 * SHA-256). Deterministic: the same world gives the same bytes.
 * [R] Shapes: stamps sum anisotropic bells around points from the seed-002 generator (ridges stretched along X,
 *     depressions negated, several peaks per texture), locations are platforms, terraces, pits and ramps with a little
 *     bell noise; every texture fades to 0 at its border (a smoothstep window over the outer 15 %).
 *     Codes: q = floor((h − offset)/metresPerCode + 0.5), clamped; decode h = q·metresPerCode + offset.
 *     Mip filter: level k+1 has max(1, ⌊n/2⌋) texels per axis; texel i is the centre-aligned bilinear sample of
 *     level k at (i + 0.5)·n/m − 0.5 in decoded metres (the 2×2 mean for even n), re-encoded with the same rule.
 *     Levels are built once here and read at sampling time, never rebuilt there.
 * [R] Reading is on every run's start-up path, so readAssetKtx2 does no per-texel work beyond the checks: the level
 *     codes are a view of the file's bytes (little-endian hosts; read code by code otherwise), and level k+1 is checked
 *     against the filter of level k as read, in one loop with the per-axis addressing computed once per level and no
 *     intermediate arrays; each level is decoded once, and that decode feeds the next level's check — on a kernel
 *     (wasm/asset-levels.wat) where WebAssembly runs, else in JavaScript loops. The arithmetic is buildMipChain's,
 *     which stays the reference (test/asset-loading.test.ts compares every level bit for bit, kernel and loops).
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { createDefaultContainer, read as readKtx, write as writeKtx, VK_FORMAT_R16_UNORM, type KTX2Container } from 'ktx-parse';
import { bellGenerators } from '../bell/bell-sum.js';
import { FormatError } from '../errors.js';
import { writeFileAtomic } from '../io/atomic.js';
import { checkArray, checkNumber, checkObject, checkOneOf, checkString, parseJson } from '../io/json-check.js';
import { inputPresent, readInputFile, readInputText } from '../io/read-input.js';
import { checkName, resolveInside } from '../core/names.js';
import { sha256Hex } from '../io/sidecar.js';
import { PRODUCER_VERSION } from '../version.js';
import { DEFAULT_CONVENTIONS } from '../conventions/index.js';
import { lerp2 } from '../core/sampling.js';
import { UNORM16_MAX } from '../core/grid.js';
import { alignedLayout, ensureMemory, instantiateWasm, wasmDisabled, type WasmMemory } from '../core/wasm.js';
import { ASSET_LEVELS_WASM_BASE64 } from './wasm/asset-levels-wasm.js';
import type { LocationTextureDef, StampKeyDef, WorldConfig } from '../world/world.js';

export interface Decode {
  metresPerCode: number;
  offsetMetres: number;
}

/** A loaded asset: every mip level decoded to metres (row 0 at local −Y), with its world extent. */
export interface HeightAsset {
  key: string;
  size: number;
  worldSize: number;
  decode: Decode;
  /** Level sizes, level 0 first. */
  sizes: number[];
  /** Decoded metres per level. */
  levels: Float32Array[];
}

function window1(t: number, width: number): number {
  const e = Math.min(t, 1 - t) / width;
  if (e >= 1) return 1;
  if (e <= 0) return 0;
  return e * e * (3 - 2 * e);
}

/** Border fade of a texel centre (u, v) ∈ (0, 1)² over `width` of the side (conventions draws.borderWindow). */
export function borderWindow(u: number, v: number, width: number = DEFAULT_CONVENTIONS.draws.borderWindow): number {
  return window1(u, width) * window1(v, width);
}

export function stampHeights(def: StampKeyDef): Float64Array {
  const n = def.size;
  const pts = bellGenerators(def.bell.seed, def.bell.nb);
  const h = new Float64Array(n * n);
  let max = 0;
  for (let j = 0; j < n; j++) {
    for (let i = 0; i < n; i++) {
      const u = (i + 0.5) / n;
      const v = (j + 0.5) / n;
      let s = 0;
      pts.forEach(([px, py], k) => {
        // Points drawn in the unit square are pulled towards the middle so each bell stays inside the window.
        const cx = 0.25 + 0.5 * px;
        const cy = 0.25 + 0.5 * py;
        const z = 1 + def.bell.p1 * k;
        const dx = (u - cx) / def.stretch;
        const dy = v - cy;
        s += Math.exp(-def.bell.p2 * z * (dx * dx + dy * dy)) / (def.bell.p3 * z);
      });
      s *= borderWindow(u, v);
      h[j * n + i] = s;
      if (s > max) max = s;
    }
  }
  const amplitude = { peaks: 6, ridge: 4.5, depression: -4, mound: 2.5 }[def.kind];
  for (let k = 0; k < h.length; k++) h[k] = max > 0 ? (h[k] / max) * amplitude : 0;
  return h;
}

export function locationHeights(def: LocationTextureDef): Float64Array {
  const n = def.size;
  const noise = bellGenerators(def.seed, 5);
  const h = new Float64Array(n * n);
  const ss = (e0: number, e1: number, x: number) => {
    const t = Math.min(Math.max((x - e0) / (e1 - e0), 0), 1);
    return t * t * (3 - 2 * t);
  };
  for (let j = 0; j < n; j++) {
    for (let i = 0; i < n; i++) {
      const u = (i + 0.5) / n;
      const v = (j + 0.5) / n;
      const r = Math.hypot(u - 0.5, v - 0.5);
      let z: number;
      switch (def.shape) {
        case 'platform':
          z = 0.8 * (1 - ss(0.3, 0.45, r));
          break;
        case 'terrace':
          z = (u < 0.5 ? 1.2 : 0.4) * (1 - ss(0.32, 0.46, r));
          break;
        case 'pit':
          z = -1.5 * (1 - ss(0.18, 0.38, r));
          break;
        case 'ramp':
          z = 2 * u * (1 - ss(0.3, 0.46, Math.max(Math.abs(u - 0.5), Math.abs(v - 0.5))));
          break;
      }
      let w = 0;
      for (const [px, py] of noise) w += Math.exp(-60 * ((u - px) ** 2 + (v - py) ** 2));
      h[j * n + i] = (z + 0.08 * w) * borderWindow(u, v);
    }
  }
  return h;
}

export function encodeCodes(h: ArrayLike<number>, d: Decode): Uint16Array {
  const q = new Uint16Array(h.length);
  for (let k = 0; k < h.length; k++) q[k] = Math.min(UNORM16_MAX, Math.max(0, Math.floor((h[k] - d.offsetMetres) / d.metresPerCode + 0.5)));
  return q;
}

function decodeCodes(q: Uint16Array, d: Decode): Float32Array {
  const h = new Float32Array(q.length);
  // Parameters in locals: the loop runs before the optimizer has seen it (once per level of a cold process).
  const mpc = d.metresPerCode;
  const off = d.offsetMetres;
  for (let k = 0; k < q.length; k++) h[k] = q[k] * mpc + off;
  return h;
}

/** The documented mip filter (see header): level 0 first, down to 1×1. */
export function buildMipChain(level0: Uint16Array, size: number, d: Decode): { sizes: number[]; levels: Uint16Array[] } {
  const sizes = [size];
  const levels = [level0];
  let n = size;
  let cur = decodeCodes(level0, d);
  while (n > 1) {
    const m = Math.max(1, Math.floor(n / 2));
    const next = new Float64Array(m * m);
    const c = (i: number) => ((i + 0.5) * n) / m - 0.5;
    for (let j = 0; j < m; j++) {
      const y = c(j);
      const y0 = Math.min(n - 1, Math.max(0, Math.floor(y)));
      const y1 = Math.min(n - 1, y0 + 1);
      const fy = y - Math.floor(y);
      for (let i = 0; i < m; i++) {
        const x = c(i);
        const x0 = Math.min(n - 1, Math.max(0, Math.floor(x)));
        const x1 = Math.min(n - 1, x0 + 1);
        const fx = x - Math.floor(x);
        next[j * m + i] = lerp2(cur[y0 * n + x0], cur[y0 * n + x1], cur[y1 * n + x0], cur[y1 * n + x1], fx, 1 - fx, fy, 1 - fy, (x) => x);
      }
    }
    const q = encodeCodes(next, d);
    sizes.push(m);
    levels.push(q);
    cur = decodeCodes(q, d);
    n = m;
  }
  return { sizes, levels };
}

const KV = { decode: 'heightbench/decode', worldSize: 'heightbench/worldSize', key: 'heightbench/key', filter: 'heightbench/mipFilter' };
const MIP_FILTER = 'centre-aligned bilinear halving in decoded metres, re-encoded floor(x + 0.5); level k+1 = max(1, floor(n/2))';

export function writeAssetKtx2(key: string, size: number, worldSize: number, d: Decode, chain: { sizes: number[]; levels: Uint16Array[] }): Uint8Array {
  const c = createDefaultContainer();
  c.vkFormat = VK_FORMAT_R16_UNORM;
  c.typeSize = 2;
  c.pixelWidth = size;
  c.pixelHeight = size;
  c.pixelDepth = 0;
  c.layerCount = 0;
  c.faceCount = 1;
  c.levelCount = chain.levels.length;
  c.levels = chain.levels.map((q) => {
    const bytes = new Uint8Array(q.length * 2);
    const dv = new DataView(bytes.buffer);
    for (let k = 0; k < q.length; k++) dv.setUint16(2 * k, q[k], true);
    return { levelData: bytes, uncompressedByteLength: bytes.length };
  });
  const dfd = c.dataFormatDescriptor[0];
  dfd.colorModel = 1; // KHR_DF_MODEL_RGBSDA
  dfd.colorPrimaries = 1; // BT709
  dfd.transferFunction = 1; // linear
  dfd.bytesPlane = [2, 0, 0, 0, 0, 0, 0, 0];
  dfd.samples = [{ bitOffset: 0, bitLength: 15, channelType: 0, samplePosition: [0, 0, 0, 0], sampleLower: 0, sampleUpper: UNORM16_MAX }];
  c.keyValue = {
    [KV.key]: key,
    [KV.decode]: JSON.stringify(d),
    [KV.worldSize]: String(worldSize),
    [KV.filter]: MIP_FILTER,
    KTXwriter: `heightbench ${PRODUCER_VERSION}`,
  };
  return writeKtx(c, { keepWriter: true });
}

const LITTLE_ENDIAN_HOST = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;

/**
 * The little-endian 16-bit codes of a level's bytes: on a little-endian host a view of them (a copy when they are not
 * 2-byte aligned), else read code by code (`littleEndianHost` is a parameter so that tests run both ways).
 */
export function levelCodes(b: Uint8Array, littleEndianHost = LITTLE_ENDIAN_HOST): Uint16Array {
  if (littleEndianHost) {
    const aligned = b.byteOffset % 2 === 0 ? b : b.slice();
    return new Uint16Array(aligned.buffer, aligned.byteOffset, aligned.byteLength / 2);
  }
  const dv = new DataView(b.buffer, b.byteOffset, b.byteLength);
  const q = new Uint16Array(b.byteLength / 2);
  for (let k = 0; k < q.length; k++) q[k] = dv.getUint16(2 * k, true);
  return q;
}

/** Per-axis addressing of the mip filter from side n to m (buildMipChain's, computed once per level, not per texel). */
function mipAxis(n: number, m: number): { i0: Int32Array; i1: Int32Array; f: Float64Array; g: Float64Array } {
  const i0 = new Int32Array(m);
  const i1 = new Int32Array(m);
  const f = new Float64Array(m);
  const g = new Float64Array(m);
  for (let i = 0; i < m; i++) {
    const x = ((i + 0.5) * n) / m - 0.5;
    i0[i] = Math.min(n - 1, Math.max(0, Math.floor(x)));
    i1[i] = Math.min(n - 1, i0[i] + 1);
    f[i] = x - Math.floor(x);
    g[i] = 1 - f[i];
  }
  return { i0, i1, f, g };
}

/**
 * Index of the first texel of `got` (side m) that is not the mip filter of `prev` (decoded metres, side n), −1 when
 * none: buildMipChain's arithmetic (lerp2 in float64, then encodeCodes) in one loop, without its intermediate arrays.
 */
function firstMipMismatch(prev: Float32Array, n: number, got: Uint16Array, m: number, d: Decode): number {
  const { i0, i1, f, g } = mipAxis(n, m);
  const off = d.offsetMetres;
  const mpc = d.metresPerCode;
  for (let j = 0; j < m; j++) {
    const r0 = i0[j] * n;
    const r1 = i1[j] * n;
    const fy = f[j];
    const gy = g[j];
    const row = j * m;
    for (let i = 0; i < m; i++) {
      const x0 = i0[i];
      const x1 = i1[i];
      const fx = f[i];
      const gx = g[i];
      const a = prev[r0 + x0] * gx + prev[r0 + x1] * fx;
      const b = prev[r1 + x0] * gx + prev[r1 + x1] * fx;
      // `| 0` stores as a Uint16Array does: the clamped code, or 0 for NaN.
      const q = Math.min(UNORM16_MAX, Math.max(0, Math.floor((a * gy + b * fy - off) / mpc + 0.5))) | 0;
      if (q !== got[row + i]) return row + i;
    }
  }
  return -1;
}

interface LevelKernel {
  memory: WasmMemory;
  decode(src: number, dst: number, count: number, mpc: number, off: number): void;
  mismatch(prev: number, n: number, got: number, m: number, i0: number, i1: number, f: number, g: number, mpc: number, off: number, max: number): number;
}

let levelKernel: LevelKernel | null | undefined;

/**
 * Every level of an asset decoded and checked on the kernel (wasm/asset-levels.wat: decodeCodes and firstMipMismatch
 * with the same float64 steps), or null where it cannot serve (no WebAssembly, HEIGHTBENCH_NO_WASM=1): the loops
 * below then do both. Refuses an altered chain with the loops' message.
 * [R] Why: reading is on every run's start-up path, where those loops run in V8's first tiers.
 */
function decodeCheckedLevels(codes: readonly Uint16Array[], sizes: readonly number[], d: Decode, what: string): Float32Array[] | null {
  if (wasmDisabled()) return null;
  levelKernel ??= instantiateWasm<LevelKernel>(ASSET_LEVELS_WASM_BASE64);
  const k = levelKernel;
  if (!k) return null;
  const total = codes.reduce((s, c) => s + c.length, 0);
  const axisBytes = 24 * sizes[0];
  const layout = alignedLayout({ codes: 2 * total, levels: 4 * total, axis: axisBytes });
  ensureMemory(k.memory, layout.size);
  const buf = k.memory.buffer;
  const codeAt: number[] = [];
  const levelAt: number[] = [];
  let c = layout.codes;
  let h = layout.levels;
  for (const q of codes) {
    new Uint16Array(buf, c, q.length).set(q);
    codeAt.push(c);
    levelAt.push(h);
    c += 2 * q.length;
    h += 4 * q.length;
  }
  const view = (l: number) => new Float32Array(buf, levelAt[l], codes[l].length);
  k.decode(codeAt[0], levelAt[0], codes[0].length, d.metresPerCode, d.offsetMetres);
  for (let l = 1; l < codes.length; l++) {
    const n = sizes[l - 1];
    const m = sizes[l];
    const ax = mipAxis(n, m);
    const at = { i0: layout.axis, i1: layout.axis + 4 * m, f: layout.axis + 8 * m, g: layout.axis + 16 * m };
    new Int32Array(buf, at.i0, m).set(ax.i0);
    new Int32Array(buf, at.i1, m).set(ax.i1);
    new Float64Array(buf, at.f, m).set(ax.f);
    new Float64Array(buf, at.g, m).set(ax.g);
    const bad = k.mismatch(levelAt[l - 1], n, codeAt[l], m, at.i0, at.i1, at.f, at.g, d.metresPerCode, d.offsetMetres, UNORM16_MAX);
    if (bad >= 0) {
      const want = mipCode(view(l - 1), n, m, bad, d);
      throw new FormatError(`${what}: level ${l} texel ${bad} is code ${codes[l][bad]}, the mip filter of level 0 gives ${want}: the chain was altered`);
    }
    k.decode(codeAt[l], levelAt[l], codes[l].length, d.metresPerCode, d.offsetMetres);
  }
  // Copies: the kernel's memory serves the next asset.
  return codes.map((_, l) => view(l).slice());
}

/** The filtered code of texel k of the level below `prev` (for the refusal message). */
function mipCode(prev: Float32Array, n: number, m: number, k: number, d: Decode): number {
  const { i0, i1, f, g } = mipAxis(n, m);
  const i = k % m;
  const j = (k - i) / m;
  const v = lerp2(prev[i0[j] * n + i0[i]], prev[i0[j] * n + i1[i]], prev[i1[j] * n + i0[i]], prev[i1[j] * n + i1[i]], f[i], g[i], f[j], g[j], (x) => x);
  return encodeCodes([v], d)[0];
}

/** Largest asset side read [R]: the world files use at most 1024; the bound keeps a hostile header from allocating. */
export const MAX_ASSET_SIDE = 8192;

export function readAssetKtx2(bytes: Uint8Array, what: string): HeightAsset {
  let c: KTX2Container;
  try {
    c = readKtx(bytes);
  } catch (e) {
    throw new FormatError(`${what}: not a readable KTX2 file (${(e as Error).message})`);
  }
  if (c.vkFormat !== VK_FORMAT_R16_UNORM) throw new FormatError(`${what}: vkFormat ${c.vkFormat}, expected ${VK_FORMAT_R16_UNORM} (R16_UNORM)`);
  // [R] Supercompressed levels (BasisLZ, Zstandard, ZLIB) are not decoded by heightbench: read as raw, they would be
  //     garbage heights; refused instead.
  if (c.supercompressionScheme !== 0) {
    throw new FormatError(
      `${what}: supercompression scheme ${c.supercompressionScheme}, expected 0 (none): compressed KTX2 levels are refused, not read as raw`,
    );
  }
  if (!Number.isInteger(c.pixelWidth) || c.pixelWidth < 1 || c.pixelWidth > MAX_ASSET_SIDE || c.pixelHeight !== c.pixelWidth) {
    throw new FormatError(`${what}: ${c.pixelWidth}×${c.pixelHeight}, expected a square texture of side 1…${MAX_ASSET_SIDE}`);
  }
  if (c.pixelDepth !== 0 || c.layerCount !== 0 || c.faceCount !== 1) {
    throw new FormatError(`${what}: depth ${c.pixelDepth}, layers ${c.layerCount}, faces ${c.faceCount}; expected a plain 2D texture (0, 0, 1)`);
  }
  const text = (v: unknown) => (typeof v === 'string' ? v : v instanceof Uint8Array ? new TextDecoder().decode(v).replace(/\0$/, '') : '');
  const decodeText = text(c.keyValue[KV.decode]);
  if (!decodeText) throw new FormatError(`${what}: missing heightbench decode metadata (${KV.decode})`);
  const dj = checkObject(`${what}: ${KV.decode}`, parseJson(decodeText, `${what}: ${KV.decode}`));
  const d: Decode = {
    metresPerCode: checkNumber(`${what}: ${KV.decode}.metresPerCode`, dj.metresPerCode, { min: Number.MIN_VALUE }),
    offsetMetres: checkNumber(`${what}: ${KV.decode}.offsetMetres`, dj.offsetMetres),
  };
  const worldSize = Number(text(c.keyValue[KV.worldSize]));
  if (!Number.isFinite(worldSize) || !(worldSize > 0))
    throw new FormatError(`${what}: worldSize metadata ${JSON.stringify(text(c.keyValue[KV.worldSize]))}, expected a positive number`);
  const sizes: number[] = [];
  for (let n = c.pixelWidth; ; n = Math.floor(n / 2)) {
    sizes.push(n);
    if (n === 1) break;
  }
  if (c.levels.length !== sizes.length) throw new FormatError(`${what}: ${c.levels.length} levels, a full chain of ${c.pixelWidth}² has ${sizes.length}`);
  const codes: Uint16Array[] = [];
  for (let l = 0; l < c.levels.length; l++) {
    const n = sizes[l];
    const b = c.levels[l].levelData;
    if (b.length !== n * n * 2) throw new FormatError(`${what}: level ${l} has ${b.length} bytes, expected ${n}×${n}×2 = ${n * n * 2}`);
    codes.push(levelCodes(b));
  }
  // The levels must be what the documented filter makes of level 0 (an edited level would be sampled silently).
  // Level l + 1 is checked against the filter of level l as read: the same as against buildMipChain(level 0), since
  // every level below it has already matched.
  const levels = decodeCheckedLevels(codes, sizes, d, what) ?? [decodeCodes(codes[0], d)];
  for (let l = levels.length; l < codes.length; l++) {
    const got = codes[l];
    const k = firstMipMismatch(levels[l - 1], sizes[l - 1], got, sizes[l], d);
    if (k >= 0) {
      const want = mipCode(levels[l - 1], sizes[l - 1], sizes[l], k, d);
      throw new FormatError(`${what}: level ${l} texel ${k} is code ${got[k]}, the mip filter of level 0 gives ${want}: the chain was altered`);
    }
    levels.push(decodeCodes(got, d));
  }
  return { key: text(c.keyValue[KV.key]), size: c.pixelWidth, worldSize, decode: d, sizes, levels };
}

/**
 * Refuses an asset whose declared data does not match the world it is used for: key, size, world extent and decode
 * must be the world file's (metadata edited with its index hash updated would otherwise shift every code silently).
 */
export function checkAssetsMatchWorld(world: WorldConfig, assets: Map<string, HeightAsset>, dir: string): void {
  const defs = [...world.stamps.keys.map((k) => ({ key: k.key, size: k.size, worldSize: k.worldSize, decode: k.decode })), ...world.locationTextures];
  for (const def of defs) {
    const a = assets.get(def.key);
    if (!a)
      throw new FormatError(`${dir}: no asset ${JSON.stringify(def.key)} of world ${world.name} in the index; rebuild with \`heightbench assets ${dir}\``);
    const diff: string[] = [];
    if (a.key !== def.key) diff.push(`key ${JSON.stringify(a.key)} ≠ ${JSON.stringify(def.key)}`);
    if (a.size !== def.size) diff.push(`size ${a.size} ≠ ${def.size}`);
    if (a.worldSize !== def.worldSize) diff.push(`worldSize ${a.worldSize} ≠ ${def.worldSize}`);
    if (a.decode.metresPerCode !== def.decode.metresPerCode || a.decode.offsetMetres !== def.decode.offsetMetres) {
      diff.push(`decode ${JSON.stringify(a.decode)} ≠ ${JSON.stringify(def.decode)}`);
    }
    if (diff.length)
      throw new FormatError(
        `${dir}: asset ${def.key} declares other data than world ${world.name}: ${diff.join('; ')}; rebuild with \`heightbench assets ${dir}\``,
      );
  }
}

export interface AssetIndexEntry {
  key: string;
  kind: 'stamp' | 'location';
  file: string;
  size: number;
  levels: number;
  worldSize: number;
  sha256: string;
}

/** Builds every asset of the world into `dir` (atomic writes) and returns the index. */
export function buildAssets(world: WorldConfig, dir: string, worldSha256 = ''): AssetIndexEntry[] {
  mkdirSync(join(dir, 'stamps'), { recursive: true });
  mkdirSync(join(dir, 'locations'), { recursive: true });
  const index: AssetIndexEntry[] = [];
  const add = (kind: 'stamp' | 'location', key: string, size: number, worldSize: number, d: Decode, h: Float64Array) => {
    checkName('asset key', key);
    const chain = buildMipChain(encodeCodes(h, d), size, d);
    const bytes = writeAssetKtx2(key, size, worldSize, d, chain);
    const file = `${kind === 'stamp' ? 'stamps' : 'locations'}/${key}.ktx2`;
    writeFileAtomic(resolveInside(dir, file), bytes);
    index.push({ key, kind, file, size, levels: chain.levels.length, worldSize, sha256: sha256Hex(bytes) });
  };
  for (const k of world.stamps.keys) add('stamp', k.key, k.size, k.worldSize, k.decode, stampHeights(k));
  for (const t of world.locationTextures) add('location', t.key, t.size, t.worldSize, t.decode, locationHeights(t));
  // Written last: an interrupted build leaves no index and is redone.
  writeFileAtomic(
    join(dir, 'index.json'),
    `${JSON.stringify({ format: 'heightbench.assets', version: 1, world: world.name, worldSha256, assets: index }, null, 1)}\n`,
  );
  return index;
}

/** The asset index of `dir`, read through the hardened reader and checked entry by entry (null when absent). */
export function readAssetIndex(dir: string): { worldSha256: string; assets: AssetIndexEntry[] } | null {
  const p = join(dir, 'index.json');
  if (!inputPresent(p)) return null;
  const o = checkObject(p, parseJson(readInputText(p), p));
  const list = checkArray(`${p}: assets`, o.assets);
  const assets = list.map((v, i): AssetIndexEntry => {
    const w = `${p}: assets[${i}]`;
    const e = checkObject(w, v);
    const kind = checkOneOf(`${w}.kind`, e.kind, ['stamp', 'location'] as const);
    const key = checkName(`${w}.key: asset`, checkString(`${w}.key`, e.key));
    const file = checkString(`${w}.file`, e.file);
    if (file !== `${kind === 'stamp' ? 'stamps' : 'locations'}/${key}.ktx2`)
      throw new FormatError(`${w}.file: ${JSON.stringify(file)}, expected ${kind}s' file of key ${key}`);
    const sha256 = checkString(`${w}.sha256`, e.sha256);
    if (!/^[0-9a-f]{64}$/.test(sha256)) throw new FormatError(`${w}.sha256: expected 64 hex digits, found ${JSON.stringify(sha256.slice(0, 80))}`);
    return {
      key,
      kind,
      file,
      size: checkNumber(`${w}.size`, e.size, { integer: true, min: 1, max: MAX_ASSET_SIDE }),
      levels: checkNumber(`${w}.levels`, e.levels, { integer: true, min: 1, max: 32 }),
      worldSize: checkNumber(`${w}.worldSize`, e.worldSize, { min: Number.MIN_VALUE }),
      sha256,
    };
  });
  return { worldSha256: typeof o.worldSha256 === 'string' ? o.worldSha256 : '', assets };
}

/** The world-file hash an asset folder was built from ('' when unknown or absent). */
export function assetWorldHash(dir: string): string {
  try {
    return readAssetIndex(dir)?.worldSha256 ?? '';
  } catch {
    return ''; // an unreadable index is rebuilt
  }
}

/**
 * A loaded asset folder: the decoded assets, the index entries (file, SHA-256, kind) and, when asked for (to embed
 * them in a draw list), each file's KTX2 bytes, keyed by id. What planning and execution are given instead of a
 * folder to read (they do no file I/O).
 */
export interface AssetSet {
  /** The folder it was loaded from (named in messages only). */
  dir: string;
  assets: ReadonlyMap<string, HeightAsset>;
  index: ReadonlyMap<string, AssetIndexEntry>;
  /** Present when loaded with `keepBytes` ([R] not by default: a run does not hold the folder's bytes twice). */
  ktx2?: ReadonlyMap<string, Uint8Array>;
}

/** Bytes an asset file of side `size` may have: its levels (under 4/3 of level 0) plus header and metadata. */
export function maxAssetBytes(size: number): number {
  return Math.ceil((size * size * 2 * 4) / 3) + (1 << 20);
}

/**
 * Loads every asset listed in `<dir>/index.json` through the hardened reader (regular files inside the folder, size
 * bounded by the index), checking each file's SHA-256 and that its decoded levels are the ones the index declares.
 */
export function loadAssetSet(dir: string, opts: { keepBytes?: boolean } = {}): AssetSet {
  const idx = readAssetIndex(dir);
  if (!idx) throw new FormatError(`${dir}: no asset index (run \`heightbench assets ${dir}\`)`);
  const assets = new Map<string, HeightAsset>();
  const ktx2 = new Map<string, Uint8Array>();
  for (const e of idx.assets) {
    const buf = readInputFile(resolveInside(dir, e.file), maxAssetBytes(e.size), `an asset of ${e.size}² with its mip chain`);
    // The file's own buffer is used as is; a slice of Node's shared pool (a small file) is copied out of it.
    const bytes = buf.byteOffset === 0 && buf.buffer.byteLength === buf.byteLength ? new Uint8Array(buf.buffer) : new Uint8Array(buf);
    const sha = sha256Hex(bytes);
    if (sha !== e.sha256) throw new FormatError(`${e.file}: SHA-256 ${sha} does not match the asset index's ${e.sha256}`);
    const a = readAssetKtx2(bytes, e.file);
    if (a.key !== e.key || a.size !== e.size || a.sizes.length !== e.levels || a.worldSize !== e.worldSize) {
      throw new FormatError(
        `${e.file}: key ${a.key}, ${a.size}², ${a.sizes.length} levels, world size ${a.worldSize}; the index says ${e.key}, ${e.size}², ${e.levels}, ${e.worldSize}`,
      );
    }
    assets.set(e.key, a);
    if (opts.keepBytes) ktx2.set(e.key, bytes);
  }
  return { dir, assets, index: new Map(idx.assets.map((e) => [e.key, e])), ...(opts.keepBytes ? { ktx2 } : {}) };
}

/** The decoded assets of `<dir>` (loadAssetSet's `assets`). */
export function loadAssets(dir: string): Map<string, HeightAsset> {
  return new Map(loadAssetSet(dir).assets);
}
