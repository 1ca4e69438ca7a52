/**
 * Draw list ⇄ JSON text, with validation.
 *
 * Inputs: a DrawList (types.ts) / the text of a serialised draw list.
 * Outputs: deterministic JSON text (same list, same bytes) / a validated DrawList.
 * [R] Encoding: plain JSON for every scalar and small array; the bulk arrays (triangle vertices, cell ids, embedded
 *     asset bytes) as { "encoding": "base64-float64-le" | "base64-int32-le" | "base64-bytes", "count": n,
 *     "data": "…" } — exact (every float64 bit, −0 included), about 11 characters per number, and the same bytes on
 *     every platform (little-endian written through DataView). Keys are written in one fixed order (the order the
 *     serialiser builds them), so the text is a deterministic function of the list.
 * [R] Parsing refuses anything that does not fit, naming the JSON path, what was expected and what was found; numbers
 *     must be finite; triangle counts must match their arrays; every draw's asset must be in the asset table; every
 *     location draw's support target must name a support location.
 * Imports nothing from the CPU stage code, so the WebGPU side and the browser page can use it (base64 through Buffer
 * where it exists, atob/btoa elsewhere).
 */
import { DEFAULT_CONVENTIONS, STAGES } from '../conventions/index.js';
import { FormatError } from '../errors.js';
import { checkArray, checkBoolean, checkLiteral, checkNumber, checkObject, checkOneOf, checkString, parseJson, type JsonObject } from '../io/json-check.js';
import {
  DRAWLIST_FORMAT,
  DRAWLIST_VERSION,
  type Affine6,
  type AssetDraw,
  type DrawList,
  type DrawListAsset,
  type FootprintOperand,
  type LocationProgram,
  type StampProgram,
  type SupportLocation,
  type SupportShape,
  type TriangleLayer,
} from './types.js';

/** The stage names a draw list carries, in execution order: the conventions' declaration. */
export const DRAWLIST_STAGES = STAGES;
/** The location window a draw list names: the declared border fade width (the executors implement that one). */
export const LOCATION_WINDOW: LocationProgram['window'] = `border-${DEFAULT_CONVENTIONS.draws.borderWindow}`;

interface NodeBuffer {
  from(b: ArrayBufferLike, off: number, len: number): { toString(enc: 'base64'): string };
  from(s: string, enc: 'base64'): Uint8Array;
}
const NodeBuf = (globalThis as { Buffer?: NodeBuffer }).Buffer;

function bytesToBase64(b: Uint8Array): string {
  if (NodeBuf) return NodeBuf.from(b.buffer, b.byteOffset, b.byteLength).toString('base64');
  let s = '';
  for (let i = 0; i < b.length; i += 0x8000) s += String.fromCharCode(...b.subarray(i, i + 0x8000));
  return btoa(s);
}

function base64ToBytes(path: string, s: string): Uint8Array {
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(s) || s.length % 4 !== 0)
    throw new FormatError(`${path}: expected base64 text, found ${s.length > 40 ? `${JSON.stringify(s.slice(0, 40))}…` : JSON.stringify(s)}`);
  if (NodeBuf) {
    const b = NodeBuf.from(s, 'base64');
    return new Uint8Array(b.buffer, b.byteOffset, b.byteLength).slice();
  }
  const bin = atob(s);
  const out = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; i++) out[i] = bin.charCodeAt(i);
  return out;
}

type Encoded = { encoding: 'base64-float64-le' | 'base64-int32-le' | 'base64-bytes'; count: number; data: string };

function encodeF64(a: Float64Array): Encoded {
  const b = new Uint8Array(a.length * 8);
  const dv = new DataView(b.buffer);
  for (let i = 0; i < a.length; i++) dv.setFloat64(8 * i, a[i], true);
  return { encoding: 'base64-float64-le', count: a.length, data: bytesToBase64(b) };
}

function encodeI32(a: Int32Array): Encoded {
  const b = new Uint8Array(a.length * 4);
  const dv = new DataView(b.buffer);
  for (let i = 0; i < a.length; i++) dv.setInt32(4 * i, a[i], true);
  return { encoding: 'base64-int32-le', count: a.length, data: bytesToBase64(b) };
}

function decodeArray(path: string, v: unknown, encoding: Encoded['encoding'], width: number): Uint8Array {
  const o = checkObject(path, v);
  checkLiteral(`${path}.encoding`, o.encoding, encoding);
  const count = checkNumber(`${path}.count`, o.count, { integer: true, min: 0, max: 2 ** 31 - 1 });
  const bytes = base64ToBytes(`${path}.data`, checkString(`${path}.data`, o.data));
  if (bytes.length !== count * width)
    throw new FormatError(`${path}.data: expected ${count} × ${width} = ${count * width} bytes for count ${count}, found ${bytes.length}`);
  return bytes;
}

function decodeF64(path: string, v: unknown): Float64Array {
  const b = decodeArray(path, v, 'base64-float64-le', 8);
  const dv = new DataView(b.buffer, b.byteOffset, b.byteLength);
  const out = new Float64Array(b.length / 8);
  for (let i = 0; i < out.length; i++) {
    out[i] = dv.getFloat64(8 * i, true);
    if (!Number.isFinite(out[i])) throw new FormatError(`${path}.data: element ${i} is ${out[i]}, expected a finite number`);
  }
  return out;
}

function decodeI32(path: string, v: unknown): Int32Array {
  const b = decodeArray(path, v, 'base64-int32-le', 4);
  const dv = new DataView(b.buffer, b.byteOffset, b.byteLength);
  const out = new Int32Array(b.length / 4);
  for (let i = 0; i < out.length; i++) out[i] = dv.getInt32(4 * i, true);
  return out;
}

/** The JSON value of a draw list (typed arrays encoded; fixed key order). */
export function drawListToJson(dl: DrawList): JsonObject {
  const layer = (l: TriangleLayer) => ({ layer: l.layer, count: l.count, xyh: encodeF64(l.xyh), cell: encodeI32(l.cell) });
  const draw = <P>(d: AssetDraw<P>) => ({
    asset: d.asset,
    localToWorld: d.localToWorld,
    worldToLocal: d.worldToLocal,
    bounds: d.bounds,
    centre: d.centre,
    lod: d.lod,
    program: d.program,
    source: d.source,
  });
  return {
    format: dl.format,
    version: dl.version,
    producer: dl.producer,
    request: dl.request,
    grid: dl.grid,
    stages: dl.stages,
    raster: { subpixelBits: dl.raster.subpixelBits, fillRule: dl.raster.fillRule, blend: dl.raster.blend, layers: dl.raster.layers.map(layer) },
    smoothing: dl.smoothing,
    support: dl.support,
    stamps: { draws: dl.stamps.draws.map(draw) },
    locations: { draws: dl.locations.draws.map(draw) },
    outer: dl.outer,
    encoding: dl.encoding,
    assets: dl.assets.map((a) => ({
      id: a.id,
      kind: a.kind,
      file: a.file,
      sha256: a.sha256,
      size: a.size,
      levelSizes: a.levelSizes,
      worldSize: a.worldSize,
      decode: a.decode,
      ...(a.embedded ? { embedded: { encoding: 'base64-bytes', count: a.embedded.length, data: bytesToBase64(a.embedded) } } : {}),
    })),
  };
}

/** Deterministic JSON text of a draw list (one space indentation; bulk arrays base64). */
export function serialiseDrawList(dl: DrawList): string {
  return `${JSON.stringify(drawListToJson(dl), null, 1)}\n`;
}

const num = (path: string, v: unknown) => checkNumber(path, v);
const pos = (path: string, v: unknown) => checkNumber(path, v, { min: Number.MIN_VALUE });
const int = (path: string, v: unknown, min = 0, max = 2 ** 31 - 1) => checkNumber(path, v, { integer: true, min, max });

function numbers(path: string, v: unknown, length: number): number[] {
  const a = checkArray(path, v);
  if (a.length !== length) throw new FormatError(`${path}: expected an array of ${length} numbers, found ${a.length} elements`);
  return a.map((x, i) => num(`${path}[${i}]`, x));
}

function checkKeys(path: string, o: JsonObject, allowed: readonly string[]): void {
  for (const k of Object.keys(o)) if (!allowed.includes(k)) throw new FormatError(`${path}.${k}: unknown field (expected only ${allowed.join(', ')})`);
}

function parseOperand(path: string, v: unknown): FootprintOperand {
  const o = checkObject(path, v);
  checkKeys(path, o, ['query', 'plus']);
  const query = checkOneOf(`${path}.query`, o.query, ['footprint-min', 'footprint-max', 'footprint-centre'] as const);
  return o.plus === undefined ? { query } : { query, plus: num(`${path}.plus`, o.plus) };
}

function parseStampProgram(path: string, v: unknown): StampProgram {
  const o = checkObject(path, v);
  const mode = checkOneOf(`${path}.mode`, o.mode, ['add', 'max', 'min', 'lerp'] as const);
  const k = num(`${path}.k`, o.k);
  switch (mode) {
    case 'add':
      checkKeys(path, o, ['mode', 'blend', 'k']);
      return { mode, blend: checkLiteral(`${path}.blend`, o.blend, 'add'), k };
    case 'max':
      checkKeys(path, o, ['mode', 'blend', 'k', 'c']);
      return { mode, blend: checkLiteral(`${path}.blend`, o.blend, 'max'), k, c: parseOperand(`${path}.c`, o.c) };
    case 'min':
      checkKeys(path, o, ['mode', 'blend', 'k', 'c']);
      return { mode, blend: checkLiteral(`${path}.blend`, o.blend, 'min'), k, c: parseOperand(`${path}.c`, o.c) };
    case 'lerp': {
      checkKeys(path, o, ['mode', 'blend', 'k', 'a', 'sMax', 'c']);
      const sMax = num(`${path}.sMax`, o.sMax);
      if (sMax === 0) throw new FormatError(`${path}.sMax: expected a non-zero number, found 0`);
      return { mode, blend: checkLiteral(`${path}.blend`, o.blend, 'read-modify-write'), k, a: num(`${path}.a`, o.a), sMax, c: parseOperand(`${path}.c`, o.c) };
    }
  }
}

function parseLocationProgram(path: string, v: unknown): LocationProgram {
  const o = checkObject(path, v);
  checkKeys(path, o, ['mode', 'blend', 'supportTarget', 'window']);
  return {
    mode: checkLiteral(`${path}.mode`, o.mode, 'location'),
    blend: checkLiteral(`${path}.blend`, o.blend, 'read-modify-write'),
    supportTarget: int(`${path}.supportTarget`, o.supportTarget),
    window: checkLiteral(`${path}.window`, o.window, LOCATION_WINDOW),
  };
}

function parseDraw<P>(path: string, v: unknown, program: (p: string, v: unknown) => P, kind: 'stamp' | 'location'): AssetDraw<P> {
  const o = checkObject(path, v);
  checkKeys(path, o, ['asset', 'localToWorld', 'worldToLocal', 'bounds', 'centre', 'lod', 'program', 'source']);
  const bounds = numbers(`${path}.bounds`, o.bounds, 4) as [number, number, number, number];
  if (!(bounds[0] <= bounds[1] && bounds[2] <= bounds[3]))
    throw new FormatError(`${path}.bounds: expected [x0, x1, y0, y1] with x0 ≤ x1 and y0 ≤ y1, found ${JSON.stringify(bounds)}`);
  const s = checkObject(`${path}.source`, o.source);
  const source: AssetDraw<P>['source'] =
    kind === 'stamp'
      ? (checkKeys(`${path}.source`, s, ['kind', 'instance', 'info']),
        {
          kind: checkLiteral(`${path}.source.kind`, s.kind, 'stamp'),
          instance: int(`${path}.source.instance`, s.instance),
          info: checkString(`${path}.source.info`, s.info),
        })
      : (checkKeys(`${path}.source`, s, ['kind', 'instance', 'resource']),
        {
          kind: checkLiteral(`${path}.source.kind`, s.kind, 'location'),
          instance: int(`${path}.source.instance`, s.instance),
          resource: checkString(`${path}.source.resource`, s.resource),
        });
  return {
    asset: checkString(`${path}.asset`, o.asset),
    localToWorld: numbers(`${path}.localToWorld`, o.localToWorld, 6) as Affine6,
    worldToLocal: numbers(`${path}.worldToLocal`, o.worldToLocal, 6) as Affine6,
    bounds,
    centre: numbers(`${path}.centre`, o.centre, 2) as [number, number],
    lod: num(`${path}.lod`, o.lod),
    program: program(`${path}.program`, o.program),
    source,
  };
}

function parseShape(path: string, v: unknown): SupportShape {
  const o = checkObject(path, v);
  checkKeys(path, o, ['kind', 'x', 'y', 'radius', 'halfSize', 'angle', 'boundRadius', 'transitionWidth', 'strength']);
  const halfSize = numbers(`${path}.halfSize`, o.halfSize, 2);
  halfSize.forEach((h, i) => checkNumber(`${path}.halfSize[${i}]`, h, { min: 0 }));
  return {
    kind: checkOneOf(`${path}.kind`, o.kind, ['circle', 'rect'] as const),
    x: num(`${path}.x`, o.x),
    y: num(`${path}.y`, o.y),
    radius: checkNumber(`${path}.radius`, o.radius, { min: 0 }),
    halfSize: halfSize as [number, number],
    angle: num(`${path}.angle`, o.angle),
    boundRadius: checkNumber(`${path}.boundRadius`, o.boundRadius, { min: 0 }),
    transitionWidth: checkNumber(`${path}.transitionWidth`, o.transitionWidth, { min: 0 }),
    strength: checkNumber(`${path}.strength`, o.strength, { min: 0, max: 1 }),
  };
}

function parseSupportLocation(path: string, v: unknown): SupportLocation {
  const o = checkObject(path, v);
  checkKeys(path, o, ['location', 'resource', 'stage', 'x', 'y', 'shapes', 'children', 'offset', 'floor']);
  const shapes = checkArray(`${path}.shapes`, o.shapes).map((s, i) => parseShape(`${path}.shapes[${i}]`, s));
  if (shapes.length === 0) throw new FormatError(`${path}.shapes: expected at least one support shape, found none`);
  return {
    location: int(`${path}.location`, o.location),
    resource: checkString(`${path}.resource`, o.resource),
    stage: checkString(`${path}.stage`, o.stage),
    x: num(`${path}.x`, o.x),
    y: num(`${path}.y`, o.y),
    shapes,
    children: checkArray(`${path}.children`, o.children).map((c, i) => {
      const p = `${path}.children[${i}]`;
      const co = checkObject(p, c);
      checkKeys(p, co, ['location', 'weight']);
      return { location: int(`${p}.location`, co.location), weight: pos(`${p}.weight`, co.weight) };
    }),
    offset: num(`${path}.offset`, o.offset),
    floor: o.floor === null ? null : num(`${path}.floor`, o.floor),
  };
}

function parseLayer(path: string, v: unknown, expected: 0 | 100): TriangleLayer {
  const o = checkObject(path, v);
  checkKeys(path, o, ['layer', 'count', 'xyh', 'cell']);
  const count = int(`${path}.count`, o.count);
  const xyh = decodeF64(`${path}.xyh`, o.xyh);
  const cell = decodeI32(`${path}.cell`, o.cell);
  if (xyh.length !== 9 * count) throw new FormatError(`${path}.xyh: expected 9 × count = ${9 * count} numbers, found ${xyh.length}`);
  if (cell.length !== count) throw new FormatError(`${path}.cell: expected count = ${count} cell ids, found ${cell.length}`);
  return { layer: checkLiteral(`${path}.layer`, o.layer, expected), count, xyh, cell };
}

function parseAsset(path: string, v: unknown): DrawListAsset {
  const o = checkObject(path, v);
  checkKeys(path, o, ['id', 'kind', 'file', 'sha256', 'size', 'levelSizes', 'worldSize', 'decode', 'embedded']);
  const size = int(`${path}.size`, o.size, 1, 1 << 16);
  const levelSizes = checkArray(`${path}.levelSizes`, o.levelSizes).map((x, i) => int(`${path}.levelSizes[${i}]`, x, 1, 1 << 16));
  let n = size;
  levelSizes.forEach((m, i) => {
    if (m !== n) throw new FormatError(`${path}.levelSizes[${i}]: expected ${n} (level k + 1 = max(1, floor(n/2)) from size ${size}), found ${m}`);
    n = Math.max(1, Math.floor(n / 2));
  });
  if (levelSizes.length === 0) throw new FormatError(`${path}.levelSizes: expected at least level 0, found an empty array`);
  const d = checkObject(`${path}.decode`, o.decode);
  checkKeys(`${path}.decode`, d, ['metresPerCode', 'offsetMetres']);
  const sha256 = checkString(`${path}.sha256`, o.sha256);
  if (!/^[0-9a-f]{64}$/.test(sha256)) throw new FormatError(`${path}.sha256: expected 64 lowercase hex digits, found ${JSON.stringify(sha256)}`);
  const a: DrawListAsset = {
    id: checkString(`${path}.id`, o.id),
    kind: checkOneOf(`${path}.kind`, o.kind, ['stamp', 'location'] as const),
    file: checkString(`${path}.file`, o.file),
    sha256,
    size,
    levelSizes,
    worldSize: pos(`${path}.worldSize`, o.worldSize),
    decode: { metresPerCode: pos(`${path}.decode.metresPerCode`, d.metresPerCode), offsetMetres: num(`${path}.decode.offsetMetres`, d.offsetMetres) },
  };
  if (o.embedded !== undefined) a.embedded = decodeArray(`${path}.embedded`, o.embedded, 'base64-bytes', 1);
  return a;
}

/** Validates the JSON value of a draw list and returns the in-memory list. */
export function drawListFromJson(v: unknown, where = 'drawlist'): DrawList {
  const o = checkObject(where, v);
  checkLiteral(`${where}.format`, o.format, DRAWLIST_FORMAT);
  if (o.version !== DRAWLIST_VERSION)
    throw new FormatError(`${where}.version: this heightbench reads draw list version ${DRAWLIST_VERSION}, the file has ${JSON.stringify(o.version)}`);
  checkKeys(where, o, [
    'format',
    'version',
    'producer',
    'request',
    'grid',
    'stages',
    'raster',
    'smoothing',
    'support',
    'stamps',
    'locations',
    'outer',
    'encoding',
    'assets',
  ]);
  const pr = checkObject(`${where}.producer`, o.producer);
  const rq = checkObject(`${where}.request`, o.request);
  const g = checkObject(`${where}.grid`, o.grid);
  checkKeys(`${where}.grid`, g, ['xmin', 'ymin', 'size', 'n', 'convention', 'rowDirection']);
  const stages = checkArray(`${where}.stages`, o.stages);
  if (stages.length !== DRAWLIST_STAGES.length || stages.some((s, i) => s !== DRAWLIST_STAGES[i])) {
    throw new FormatError(`${where}.stages: expected ${JSON.stringify(DRAWLIST_STAGES)}, found ${JSON.stringify(stages)}`);
  }
  const r = checkObject(`${where}.raster`, o.raster);
  checkKeys(`${where}.raster`, r, ['subpixelBits', 'fillRule', 'blend', 'layers']);
  const layers = checkArray(`${where}.raster.layers`, r.layers);
  if (layers.length !== 2) throw new FormatError(`${where}.raster.layers: expected 2 layers (0 and 100), found ${layers.length}`);
  const sm = checkObject(`${where}.smoothing`, o.smoothing);
  checkKeys(`${where}.smoothing`, sm, ['offsets', 'weights', 'levels', 'filterFullResolution', 'order', 'combine', 'sampler']);
  const taps = checkArray(`${where}.smoothing.offsets`, sm.offsets).length;
  const su = checkObject(`${where}.support`, o.support);
  checkKeys(`${where}.support`, su, ['a', 'b', 'reference', 'locations']);
  const st = checkObject(`${where}.stamps`, o.stamps);
  const lo = checkObject(`${where}.locations`, o.locations);
  const ou = checkObject(`${where}.outer`, o.outer);
  checkKeys(`${where}.outer`, ou, ['centre', 'inner', 'outer', 'input']);
  const oi = checkObject(`${where}.outer.input`, ou.input);
  const en = checkObject(`${where}.encoding`, o.encoding);
  checkKeys(`${where}.encoding`, en, ['min', 'max', 'rule']);
  const inner = checkNumber(`${where}.outer.inner`, ou.inner, { min: 0 });
  const outerR = num(`${where}.outer.outer`, ou.outer);
  if (!(outerR > inner)) throw new FormatError(`${where}.outer.outer: expected a radius above inner (${inner}), found ${outerR}`);
  const emin = num(`${where}.encoding.min`, en.min);
  const emax = num(`${where}.encoding.max`, en.max);
  if (!(emax > emin)) throw new FormatError(`${where}.encoding.max: expected a height above min (${emin}), found ${emax}`);
  const dl: DrawList = {
    format: DRAWLIST_FORMAT,
    version: DRAWLIST_VERSION,
    producer: { name: checkString(`${where}.producer.name`, pr.name), version: checkString(`${where}.producer.version`, pr.version) },
    request: {
      id: checkString(`${where}.request.id`, rq.id),
      world: checkString(`${where}.request.world`, rq.world),
      seed: int(`${where}.request.seed`, rq.seed, 1),
    },
    grid: {
      xmin: num(`${where}.grid.xmin`, g.xmin),
      ymin: num(`${where}.grid.ymin`, g.ymin),
      size: pos(`${where}.grid.size`, g.size),
      n: int(`${where}.grid.n`, g.n, 1, 16384),
      convention: checkLiteral(`${where}.grid.convention`, g.convention, 'texel-centre'),
      rowDirection: checkLiteral(`${where}.grid.rowDirection`, g.rowDirection, 'row0-at-ymin'),
    },
    stages: [...DRAWLIST_STAGES],
    raster: {
      subpixelBits: int(`${where}.raster.subpixelBits`, r.subpixelBits, 0, 8),
      fillRule: checkLiteral(`${where}.raster.fillRule`, r.fillRule, 'top-left'),
      blend: checkLiteral(`${where}.raster.blend`, r.blend, 'add'),
      layers: [parseLayer(`${where}.raster.layers[0]`, layers[0], 0), parseLayer(`${where}.raster.layers[1]`, layers[1], 100)],
    },
    smoothing: {
      offsets: numbers(`${where}.smoothing.offsets`, sm.offsets, taps),
      weights: numbers(`${where}.smoothing.weights`, sm.weights, taps),
      levels: int(`${where}.smoothing.levels`, sm.levels, 1, 16),
      filterFullResolution: checkBoolean(`${where}.smoothing.filterFullResolution`, sm.filterFullResolution),
      order: checkString(`${where}.smoothing.order`, sm.order),
      combine: checkLiteral(`${where}.smoothing.combine`, sm.combine, '(h2 - h3) * 0.5 + h3'),
      sampler: checkLiteral(`${where}.smoothing.sampler`, sm.sampler, 'linear-clamp'),
    },
    support: {
      a: num(`${where}.support.a`, su.a),
      b: pos(`${where}.support.b`, su.b),
      reference: checkLiteral(`${where}.support.reference`, su.reference, 'mid-envelope'),
      locations: checkArray(`${where}.support.locations`, su.locations).map((l, i) => parseSupportLocation(`${where}.support.locations[${i}]`, l)),
    },
    stamps: { draws: checkArray(`${where}.stamps.draws`, st.draws).map((d, i) => parseDraw(`${where}.stamps.draws[${i}]`, d, parseStampProgram, 'stamp')) },
    locations: {
      draws: checkArray(`${where}.locations.draws`, lo.draws).map((d, i) => parseDraw(`${where}.locations.draws[${i}]`, d, parseLocationProgram, 'location')),
    },
    outer: {
      centre: numbers(`${where}.outer.centre`, ou.centre, 2) as [number, number],
      inner,
      outer: outerR,
      input:
        checkOneOf(`${where}.outer.input.kind`, oi.kind, ['constant', 'raster'] as const) === 'constant'
          ? (checkKeys(`${where}.outer.input`, oi, ['kind', 'height']), { kind: 'constant', height: num(`${where}.outer.input.height`, oi.height) })
          : (checkKeys(`${where}.outer.input`, oi, ['kind']), { kind: 'raster' }),
    },
    encoding: { min: emin, max: emax, rule: checkLiteral(`${where}.encoding.rule`, en.rule, 'd3d-unorm16') },
    assets: checkArray(`${where}.assets`, o.assets).map((a, i) => parseAsset(`${where}.assets[${i}]`, a)),
  };
  // Cross references.
  const ids = new Set<string>();
  dl.assets.forEach((a, i) => {
    if (ids.has(a.id)) throw new FormatError(`${where}.assets[${i}].id: duplicate asset id ${JSON.stringify(a.id)}`);
    ids.add(a.id);
  });
  const checkAsset = (p: string, id: string) => {
    if (!ids.has(id)) throw new FormatError(`${p}.asset: ${JSON.stringify(id)} is not in the asset table (${where}.assets)`);
  };
  dl.stamps.draws.forEach((d, i) => checkAsset(`${where}.stamps.draws[${i}]`, d.asset));
  dl.locations.draws.forEach((d, i) => checkAsset(`${where}.locations.draws[${i}]`, d.asset));
  const nloc = dl.support.locations.length;
  dl.support.locations.forEach((l, i) => {
    if (l.location !== i)
      throw new FormatError(`${where}.support.locations[${i}].location: expected ${i} (locations are listed in instance order), found ${l.location}`);
    l.children.forEach((c, k) => {
      if (c.location >= nloc)
        throw new FormatError(`${where}.support.locations[${i}].children[${k}].location: expected an index below ${nloc}, found ${c.location}`);
    });
  });
  dl.locations.draws.forEach((d, i) => {
    if (d.program.supportTarget >= nloc)
      throw new FormatError(
        `${where}.locations.draws[${i}].program.supportTarget: expected a support location index below ${nloc}, found ${d.program.supportTarget}`,
      );
  });
  return dl;
}

/** Parses and validates serialised draw list text; `what` names the source in errors (a file name). */
export function parseDrawList(text: string, what = 'drawlist'): DrawList {
  return drawListFromJson(parseJson(text, what), what);
}
