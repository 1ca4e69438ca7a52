/**
 * Versioned binary store of a layer stack (seed 004, "TerrainStore"): the description, the base, and only the chunks
 * each layer touched. The composite is never stored: reading recomposites.
 *
 * Layout (little-endian): "HBTERRN\\0" magic (8 bytes), u32 version, u32 JSON length, JSON header (width, height,
 * range, chunk size, grid, notes), base as width·height float32, u32 layer count, then per layer: u32 name length,
 * UTF-8 name, f64 alpha, u8 visible, u32 chunk count, per chunk u32 key, u8 type (4: float32, 8: float64), u32
 * compressed length and the CHUNK² deltas deflated (zlib raw deflate). A chunk is stored as float32 when every delta
 * in it is a float32 value (deltaLayer prefers those).
 * The version is checked before anything else; a mismatch is refused with both values.
 */
import { deflateRawSync, inflateRawSync } from 'node:zlib';
import { FormatError } from '../errors.js';
import { CHUNK, LayerStack } from './layers.js';
import type { HeightRange } from '../core/grid.js';

export const STORE_MAGIC = 'HBTERRN\0';
export const STORE_VERSION = 1;

export interface StoreHeader {
  width: number;
  height: number;
  range: HeightRange;
  chunk: number;
  notes?: Record<string, unknown>;
}

export function writeStore(stack: LayerStack, notes: Record<string, unknown> = {}): Uint8Array {
  const header: StoreHeader = { width: stack.width, height: stack.height, range: stack.range, chunk: CHUNK, notes };
  const parts: Uint8Array[] = [];
  const u32 = (v: number) => {
    const b = new Uint8Array(4);
    new DataView(b.buffer).setUint32(0, v, true);
    return b;
  };
  const json = new TextEncoder().encode(JSON.stringify(header));
  parts.push(Uint8Array.from(STORE_MAGIC, (ch) => ch.charCodeAt(0)), u32(STORE_VERSION), u32(json.length), json);
  const base = new Uint8Array(stack.base.length * 4);
  const bdv = new DataView(base.buffer);
  for (let k = 0; k < stack.base.length; k++) bdv.setFloat32(4 * k, stack.base[k], true);
  parts.push(base, u32(stack.layers.length));
  for (const l of stack.layers) {
    const name = new TextEncoder().encode(l.name);
    const meta = new Uint8Array(9);
    const mdv = new DataView(meta.buffer);
    mdv.setFloat64(0, l.alpha, true);
    mdv.setUint8(8, l.visible ? 1 : 0);
    parts.push(u32(name.length), name, meta, u32(l.chunks.size));
    for (const key of [...l.chunks.keys()].sort((a, b) => a - b)) {
      const c = l.chunks.get(key)!;
      const type = c.every((v) => Math.fround(v) === v) ? 4 : 8;
      const raw = new Uint8Array(c.length * type);
      const rdv = new DataView(raw.buffer);
      for (let q = 0; q < c.length; q++) {
        if (type === 4) rdv.setFloat32(4 * q, c[q], true);
        else rdv.setFloat64(8 * q, c[q], true);
      }
      const z = deflateRawSync(raw, { level: 6 });
      parts.push(u32(key), Uint8Array.of(type), u32(z.length), z);
    }
  }
  const total = parts.reduce((a, p) => a + p.length, 0);
  const out = new Uint8Array(total);
  let o = 0;
  for (const p of parts) {
    out.set(p, o);
    o += p.length;
  }
  return out;
}

export function readStore(bytes: Uint8Array): { stack: LayerStack; header: StoreHeader } {
  const what = 'terrain store';
  if (bytes.length < 16) throw new FormatError(`${what}: ${bytes.length} bytes, too short for a header`);
  const magic = String.fromCharCode(...bytes.subarray(0, 8));
  if (magic !== STORE_MAGIC) throw new FormatError(`${what}: not a heightbench terrain store (magic ${JSON.stringify(magic)})`);
  const dv = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const version = dv.getUint32(8, true);
  if (version !== STORE_VERSION) throw new FormatError(`${what}: this heightbench reads version ${STORE_VERSION}, the file has version ${version}`);
  let o = 12;
  const need = (n: number) => {
    if (o + n > bytes.length) throw new FormatError(`${what}: truncated at byte ${o} (needs ${n} more, file has ${bytes.length})`);
  };
  need(4);
  const jl = dv.getUint32(o, true);
  o += 4;
  need(jl);
  const header = JSON.parse(new TextDecoder().decode(bytes.subarray(o, o + jl))) as StoreHeader;
  o += jl;
  if (header.chunk !== CHUNK) throw new FormatError(`${what}: chunk size ${header.chunk}, this heightbench uses ${CHUNK}`);
  const n = header.width * header.height;
  need(n * 4);
  const base = new Float32Array(n);
  for (let k = 0; k < n; k++, o += 4) base[k] = dv.getFloat32(o, true);
  const stack = new LayerStack(header.width, header.height, base, header.range);
  need(4);
  const layers = dv.getUint32(o, true);
  o += 4;
  for (let l = 0; l < layers; l++) {
    need(4);
    const nl = dv.getUint32(o, true);
    o += 4;
    need(nl + 13);
    const layer = stack.addLayer(new TextDecoder().decode(bytes.subarray(o, o + nl)));
    o += nl;
    layer.alpha = dv.getFloat64(o, true);
    o += 8;
    layer.visible = dv.getUint8(o++) === 1;
    const chunks = dv.getUint32(o, true);
    o += 4;
    for (let c = 0; c < chunks; c++) {
      need(9);
      const key = dv.getUint32(o, true);
      const type = dv.getUint8(o + 4);
      const zlen = dv.getUint32(o + 5, true);
      o += 9;
      if (type !== 4 && type !== 8) throw new FormatError(`${what}: chunk ${key} of layer ${layer.name} has value size ${type}, expected 4 or 8`);
      need(zlen);
      let raw: Uint8Array;
      try {
        raw = inflateRawSync(bytes.subarray(o, o + zlen));
      } catch (e) {
        throw new FormatError(`${what}: chunk ${key} of layer ${layer.name} is corrupt (${(e as Error).message})`);
      }
      o += zlen;
      if (raw.length !== CHUNK * CHUNK * type) throw new FormatError(`${what}: chunk ${key} of layer ${layer.name} inflates to ${raw.length} bytes, expected ${CHUNK * CHUNK * type}`);
      const rdv = new DataView(raw.buffer, raw.byteOffset, raw.byteLength);
      const d = new Float64Array(CHUNK * CHUNK);
      for (let q = 0; q < d.length; q++) d[q] = type === 4 ? rdv.getFloat32(4 * q, true) : rdv.getFloat64(8 * q, true);
      layer.chunks.set(key, d);
    }
  }
  return { stack, header };
}

/**
 * A layer turning the float32 field `before` into `after` under the stack's rule h ← fround(h + d), only in chunks
 * where they differ. Each delta is the float32 nearest to after − before when that reproduces `after` exactly (it
 * almost always does, and stores in 4 bytes), else the exact float64 difference.
 */
export function deltaLayer(stack: LayerStack, name: string, before: ArrayLike<number>, after: ArrayLike<number>): number {
  const layer = stack.addLayer(name);
  for (let j = 0; j < stack.height; j++) {
    for (let i = 0; i < stack.width; i++) {
      const k = j * stack.width + i;
      const exact = after[k] - before[k];
      if (exact === 0) continue;
      const d32 = Math.fround(exact);
      layer.addDelta(i, j, Math.fround(before[k] + d32) === after[k] ? d32 : exact);
    }
  }
  return layer.chunks.size;
}
