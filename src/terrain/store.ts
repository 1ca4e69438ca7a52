/**
 * Versioned binary store of a terrain (seed 004, "TerrainStore"): the description, the base, only the chunks each
 * layer touched, the paint channels and the holes. The composite is never stored: reading recomposites.
 *
 * Layout (little-endian), version 2: "HBTERRN\\0" magic (8 bytes), u32 version, u32 JSON length, JSON header (width,
 * height, range, chunk size, the terrain description or null, paint layer names, notes), base as width·height
 * float32, u32 layer count, then per layer: u32 name length, UTF-8 name, f64 alpha, u8 visible, u8 kind (0 sculpt,
 * 1 import, 2 splines, 3 scatter), u32 generator length, UTF-8 generator, u32 chunk count, per chunk u32 key, u8 type
 * (4: float32, 8: float64), u32 compressed length and the CHUNK² deltas deflated (zlib raw deflate); then the paint
 * channels as u32 compressed length + the deflated sample-major bytes (length 0 when there are no paint layers);
 * then u32 hole count and a (u32 i, u32 j) pair per hole — coordinates, not a mask. Nothing may follow.
 * Version 1 (read only) is the same without kind, generator, paint channels and holes: its layers read as sculpt.
 * A chunk is stored as float32 when every delta in it is a float32 value (deltaLayer prefers those).
 * [D] The version is checked before anything else; an unknown one is refused naming both the file's and the ones
 * this build reads.
 */
import { deflateRawSync, inflateRawSync } from 'node:zlib';
import { FormatError, InputRangeError } from '../errors.js';
import { CHUNK, LAYER_KINDS, LayerStack } from './layers.js';
import type { HeightRange } from '../core/grid.js';
import type { TerrainDescription } from './description.js';
import { TerrainHoles } from './holes.js';
import { assembleTerrain, type Terrain } from './terrain.js';
import { TerrainWeights } from './weights.js';
import { MAX_JSON_TEXT, checkArray, checkNumber, checkObject, checkOneOf, checkString, parseJson } from '../io/json-check.js';
import { checkMemoryEstimate } from '../io/limits.js';
import { readInputFile } from '../io/read-input.js';

/** Most layers a store may declare [R] (an editor's stack has tens). */
export const MAX_STORE_LAYERS = 4096;
/** Largest store file read [R]: a 16384² base is 1 GiB of float32, with room for layers. */
export const MAX_STORE_BYTES = 4 * 1024 * 1024 * 1024 - 1;

/**
 * Reads a store file through the hardened reader: regular files only (a FIFO, /dev/zero or a socket is refused by
 * what it is, before a byte is read), size checked before reading against MAX_STORE_BYTES and the memory budget.
 */
export function readStoreFile(path: string): Uint8Array {
  return readInputFile(path, MAX_STORE_BYTES, 'the limit on terrain stores');
}

export const STORE_MAGIC = 'HBTERRN\0';
export const STORE_VERSION = 2;
/** Versions this build reads. */
export const STORE_VERSIONS_READ: readonly number[] = [1, 2];

export interface StoreHeader {
  width: number;
  height: number;
  range: HeightRange;
  chunk: number;
  description?: TerrainDescription | null;
  paintLayers?: string[];
  notes?: Record<string, unknown>;
}

export interface StoreExtras {
  description?: TerrainDescription;
  weights?: TerrainWeights;
  holes?: TerrainHoles;
}

const u32 = (v: number) => {
  const b = new Uint8Array(4);
  new DataView(b.buffer).setUint32(0, v, true);
  return b;
};

/** Writes a layer stack (and, for a terrain, its description, paint channels and holes) as version 2. */
export function writeStore(stack: LayerStack, notes: Record<string, unknown> = {}, extras: StoreExtras = {}): Uint8Array {
  const w = extras.weights;
  if (w && (w.width !== stack.width || w.height !== stack.height))
    throw new InputRangeError(`store: paint channels ${w.width}×${w.height}, stack ${stack.width}×${stack.height}`);
  const header: StoreHeader = {
    width: stack.width,
    height: stack.height,
    range: stack.range,
    chunk: CHUNK,
    description: extras.description ?? null,
    paintLayers: w ? [...w.layerNames] : [],
    notes,
  };
  const parts: Uint8Array[] = [];
  const enc = new TextEncoder();
  const json = enc.encode(JSON.stringify(header));
  parts.push(
    Uint8Array.from(STORE_MAGIC, (ch) => ch.charCodeAt(0)),
    u32(STORE_VERSION),
    u32(json.length),
    json,
  );
  const base = new Uint8Array(stack.base.length * 4);
  const bdv = new DataView(base.buffer);
  for (let k = 0; k < stack.base.length; k++) bdv.setFloat32(4 * k, stack.base[k], true);
  parts.push(base, u32(stack.layers.length));
  for (const l of stack.layers) {
    const name = enc.encode(l.name);
    const gen = enc.encode(l.generator ?? '');
    const meta = new Uint8Array(10);
    const mdv = new DataView(meta.buffer);
    mdv.setFloat64(0, l.alpha, true);
    mdv.setUint8(8, l.visible ? 1 : 0);
    mdv.setUint8(9, LAYER_KINDS.indexOf(l.kind));
    parts.push(u32(name.length), name, meta, u32(gen.length), gen, u32(l.chunks.size));
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
  if (w) {
    const z = deflateRawSync(w.weight_sampleLayer, { level: 6 });
    parts.push(u32(z.length), z);
  } else parts.push(u32(0));
  const holes = extras.holes?.list() ?? [];
  parts.push(u32(holes.length));
  for (const [i, j] of holes) parts.push(u32(i), u32(j));
  const total = parts.reduce((a, p) => a + p.length, 0);
  const out = new Uint8Array(total);
  let o = 0;
  for (const p of parts) {
    out.set(p, o);
    o += p.length;
  }
  return out;
}

/** Writes a whole terrain (version 2). */
export function writeTerrainStore(t: Terrain, notes: Record<string, unknown> = {}): Uint8Array {
  return writeStore(t.stack, notes, { description: t.description, weights: t.weights, holes: t.holes });
}

export interface StoreContents {
  stack: LayerStack;
  header: StoreHeader;
  version: number;
  weights: TerrainWeights | null;
  holes: TerrainHoles;
}

export function readStore(bytes: Uint8Array): StoreContents {
  const what = 'terrain store';
  if (bytes.length < 16) throw new FormatError(`${what}: ${bytes.length} bytes, too short for a header`);
  const magic = String.fromCharCode(...bytes.subarray(0, 8));
  if (magic !== STORE_MAGIC) throw new FormatError(`${what}: not a heightbench terrain store (magic ${JSON.stringify(magic)})`);
  const dv = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const version = dv.getUint32(8, true);
  if (!STORE_VERSIONS_READ.includes(version)) {
    throw new FormatError(`${what}: this heightbench reads versions ${STORE_VERSIONS_READ.join(' and ')}, the file has version ${version}`);
  }
  const dec = new TextDecoder();
  let o = 12;
  const need = (n: number) => {
    if (o + n > bytes.length) throw new FormatError(`${what}: truncated at byte ${o} (needs ${n} more, file has ${bytes.length})`);
  };
  const readU32 = () => {
    need(4);
    const v = dv.getUint32(o, true);
    o += 4;
    return v;
  };
  const jl = readU32();
  need(jl);
  // Depth- and size-bounded, and an object (a header `null` or `[]` is refused, not dereferenced).
  if (jl > MAX_JSON_TEXT) throw new FormatError(`${what}: header of ${jl} bytes, over the limit of ${MAX_JSON_TEXT}`);
  const header = checkObject(`${what}: header`, parseJson(dec.decode(bytes.subarray(o, o + jl)), `${what}: header`)) as unknown as StoreHeader;
  o += jl;
  if (header.chunk !== CHUNK) throw new FormatError(`${what}: chunk size ${header.chunk}, this heightbench uses ${CHUNK}`);
  if (!Number.isInteger(header.width) || !Number.isInteger(header.height) || header.width < 1 || header.height < 1 || header.width * header.height > 2 ** 28) {
    throw new FormatError(`${what}: grid ${header.width}×${header.height}, expected positive integers with at most 2²⁸ samples`);
  }
  const r = header.range;
  if (!r || !Number.isFinite(r.min) || !Number.isFinite(r.max) || !(r.max > r.min))
    throw new FormatError(`${what}: height range ${JSON.stringify(r)}, expected finite min < max`);
  if (header.description !== undefined && header.description !== null) checkDescriptionShape(`${what}: header.description`, header.description);
  if (header.paintLayers !== undefined && header.paintLayers !== null) {
    const pl = checkArray(`${what}: header.paintLayers`, header.paintLayers);
    pl.forEach((x, i) => checkString(`${what}: header.paintLayers[${i}]`, x));
  }
  const n = header.width * header.height;
  need(n * 4);
  // Chunks inflate to CHUNK² float64 each: bounded by the grid's chunk count per layer and by the memory budget.
  const gridChunks = Math.ceil(header.width / CHUNK) * Math.ceil(header.height / CHUNK);
  const base = new Float32Array(n);
  for (let k = 0; k < n; k++, o += 4) base[k] = dv.getFloat32(o, true);
  const stack = new LayerStack(header.width, header.height, base, header.range);
  const layers = readU32();
  if (layers > MAX_STORE_LAYERS) throw new FormatError(`${what}: ${layers} layers, over the limit of ${MAX_STORE_LAYERS}`);
  let inflatedChunks = 0;
  for (let l = 0; l < layers; l++) {
    const nl = readU32();
    need(nl + 9);
    const layer = stack.addLayer(dec.decode(bytes.subarray(o, o + nl)));
    o += nl;
    layer.alpha = dv.getFloat64(o, true);
    o += 8;
    layer.visible = dv.getUint8(o++) === 1;
    if (version >= 2) {
      need(1);
      const kind = LAYER_KINDS[dv.getUint8(o++)];
      if (!kind) throw new FormatError(`${what}: layer ${layer.name} has kind code ${dv.getUint8(o - 1)}, expected 0…${LAYER_KINDS.length - 1}`);
      layer.kind = kind;
      const gl = readU32();
      need(gl);
      const gen = dec.decode(bytes.subarray(o, o + gl));
      o += gl;
      layer.generator = kind === 'sculpt' ? null : gen;
    }
    const chunks = readU32();
    if (chunks > gridChunks)
      throw new FormatError(`${what}: layer ${layer.name} has ${chunks} chunks, the ${header.width}×${header.height} grid has ${gridChunks}`);
    inflatedChunks += chunks;
    checkMemoryEstimate(`${what}: ${inflatedChunks} layer chunks`, n * 4 + inflatedChunks * CHUNK * CHUNK * 8);
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
        // Capped at the size the layout promises: a deflate bomb stops there.
        raw = inflateRawSync(bytes.subarray(o, o + zlen), { maxOutputLength: CHUNK * CHUNK * type });
      } catch (e) {
        throw new FormatError(
          `${what}: chunk ${key} of layer ${layer.name} is corrupt or inflates past ${CHUNK * CHUNK * type} bytes (${(e as Error).message})`,
        );
      }
      o += zlen;
      if (raw.length !== CHUNK * CHUNK * type)
        throw new FormatError(`${what}: chunk ${key} of layer ${layer.name} inflates to ${raw.length} bytes, expected ${CHUNK * CHUNK * type}`);
      const rdv = new DataView(raw.buffer, raw.byteOffset, raw.byteLength);
      const d = new Float64Array(CHUNK * CHUNK);
      for (let q = 0; q < d.length; q++) d[q] = type === 4 ? rdv.getFloat32(4 * q, true) : rdv.getFloat64(8 * q, true);
      layer.chunks.set(key, d);
    }
  }
  let weights: TerrainWeights | null = null;
  const holes = new TerrainHoles(header.width, header.height);
  if (version >= 2) {
    const names = header.paintLayers ?? [];
    const zlen = readU32();
    if (names.length > 0) {
      need(zlen);
      let raw: Uint8Array;
      try {
        raw = inflateRawSync(bytes.subarray(o, o + zlen), { maxOutputLength: Math.max(1, n * names.length) });
      } catch (e) {
        throw new FormatError(`${what}: paint channels are corrupt or inflate past ${n * names.length} bytes (${(e as Error).message})`);
      }
      if (raw.length !== n * names.length)
        throw new FormatError(`${what}: paint channels inflate to ${raw.length} bytes, expected ${n}×${names.length} = ${n * names.length}`);
      weights = new TerrainWeights(header.width, header.height, names, new Uint8Array(raw));
    } else if (zlen !== 0) throw new FormatError(`${what}: ${zlen} bytes of paint channels but no paint layers named`);
    o += zlen;
    const count = readU32();
    need(count * 8);
    for (let h = 0; h < count; h++) {
      const i = dv.getUint32(o, true);
      const j = dv.getUint32(o + 4, true);
      o += 8;
      if (i >= header.width || j >= header.height)
        throw new FormatError(`${what}: hole ${h} at (${i}, ${j}) outside the ${header.width}×${header.height} grid`);
      holes.add(i, j);
    }
  }
  if (o !== bytes.length) throw new FormatError(`${what}: ${bytes.length - o} bytes after the end of the version ${version} layout`);
  return { stack, header, version, weights, holes };
}

/**
 * The shape of a stored terrain description, checked before anything reads its fields (a null range or a string
 * for a count is refused naming the field); describeTerrain then checks the rules between them.
 */
function checkDescriptionShape(what: string, v: unknown): void {
  const d = checkObject(what, v);
  checkOneOf(`${what}.kind`, d.kind, ['collision', 'lod'] as const);
  for (const k of ['tileSamples', 'tilesX', 'tilesY', 'metresPerQuad'] as const) checkNumber(`${what}.${k}`, d[k]);
  const r = checkObject(`${what}.range`, d.range);
  checkNumber(`${what}.range.min`, r.min);
  checkNumber(`${what}.range.max`, r.max);
  for (const k of ['blockSize', 'bitsPerSample'] as const) if (d[k] !== undefined && d[k] !== null) checkNumber(`${what}.${k}`, d[k]);
}

/**
 * Reads a whole terrain: needs a description in the header (version 2 files written from a terrain). A version 1
 * file, or one written from a bare stack, is refused here with the reason (readStore still reads it).
 */
export function readTerrainStore(bytes: Uint8Array): Terrain & { version: number } {
  const s = readStore(bytes);
  if (!s.header.description) {
    throw new FormatError(`terrain store: version ${s.version} file without a terrain description (written from a bare layer stack); read it with readStore`);
  }
  const weights = s.weights ?? new TerrainWeights(s.stack.width, s.stack.height, ['ground']);
  const problem = weights.check();
  if (problem) throw new FormatError(`terrain store: paint weights at sample (${problem.i}, ${problem.j}) sum to ${problem.sum}, expected 255`);
  return { ...assembleTerrain(s.header.description, s.stack, weights, s.holes), version: s.version };
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
