/**
 * Emits a run's draw list from the planner's outputs (issue 16, item 1).
 *
 * Inputs: the plan (buildPlan: recipe, regions, layout, sources, corners), the output size, the natural stamp
 * selection (selectStamps, which consumes the plan's random stream — made once per plan), the loaded assets and the
 * asset folder's index.
 * Outputs: a DrawList (types.ts): layer 0 and layer 100 fans (base.ts: layer0Fans, layer100Fans), the smoothing
 * chain's constants (smoothing.ts), every location's support query (the static half of support.ts:
 * computeSupportTargets — shapes, participating children, offsets, region floors, strengths), every stamp and
 * location draw with its composed transform, inverse, bounds, centre, level of detail and program (stamps.ts,
 * locations.ts, draw.ts), the outer band and input (run.ts), the encoding range and the asset table.
 * What depends on the field being drawn (envelopes, references, targets, extents, footprint operands) is described,
 * not evaluated: each executor evaluates it on its own field.
 * [R] Every plain number is canonicalised (−0 → 0) so that serialise → parse gives back exactly this object.
 */
import { join } from 'node:path';
import { FormatError, InputRangeError } from '../errors.js';
import { PRODUCER_NAME, PRODUCER_VERSION } from '../version.js';
import { maxAssetBytes, readAssetIndex, type AssetIndexEntry, type HeightAsset } from '../pipeline/assets.js';
import { readInputFile } from '../io/read-input.js';
import { resolveInside } from '../core/names.js';
import { layer0Fans, layer100Fans } from '../pipeline/base.js';
import { placeDraw, type DrawGrid } from '../pipeline/draw.js';
import type { Plan } from '../pipeline/plan.js';
import { cellAt } from '../pipeline/regions.js';
import { SMOOTHING_CHAIN, SMOOTHING_TAPS } from '../pipeline/smoothing.js';
import { stampMatrix, type StampSelection } from '../pipeline/stamps.js';
import { supportLocationsOf } from '../pipeline/support.js';
import { chain, rotation, transformPoint, translation, type Affine } from '../pipeline/transforms.js';
import type { TriangleList } from '../pipeline/fans.js';
import { DRAWLIST_STAGES, LOCATION_WINDOW } from './serial.js';
import {
  DRAWLIST_FORMAT,
  DRAWLIST_VERSION,
  type Affine6,
  type AssetDraw,
  type DrawList,
  type DrawListAsset,
  type LocationProgram,
  type StampProgram,
  type SupportLocation,
  type TriangleLayer,
} from './types.js';

export interface DrawListOptions {
  /** Output size N (pixels per axis); default the request's. */
  size?: number;
  /** The natural stamp selection of this plan (selectStamps(plan.regions, plan.world, plan.stream)). */
  stamps: StampSelection;
  /** Loaded assets (ensureAssets / loadAssets), keyed by id. */
  assets: ReadonlyMap<string, HeightAsset>;
  /** The asset folder the assets were loaded from (its index.json gives files and SHA-256). */
  assetsDir: string;
  /** Embed every used asset's KTX2 bytes (a self-contained list, e.g. for the browser page). */
  embedAssets?: boolean;
}

/** Whether the request's outer draw is eligible (run.ts's rule): some scene type is in the recipe's list. */
export function outerDrawEligible(plan: Plan): boolean {
  return plan.request.sceneTypes.some((s) => plan.recipe.params.outer.drawEligibleSceneTypes.includes(s));
}

const zero = (x: number) => (x === 0 ? 0 : x);
const affine6 = (m: Affine): Affine6 => [zero(m[0]), zero(m[1]), zero(m[2]), zero(m[3]), zero(m[4]), zero(m[5])];

function layerOf(layer: 0 | 100, t: TriangleList): TriangleLayer {
  return { layer, count: t.count, xyh: t.xyh.slice(), cell: t.polygon.slice() };
}

function readIndex(dir: string): Map<string, AssetIndexEntry> {
  const idx = readAssetIndex(dir);
  if (!idx) throw new FormatError(`${dir}: no asset index (run \`heightbench assets ${dir}\`)`);
  return new Map(idx.assets.map((e) => [e.key, e]));
}

export function buildDrawList(plan: Plan, opts: DrawListOptions): DrawList {
  const req = plan.request;
  const world = plan.world;
  const P = plan.recipe.params;
  const n = opts.size ?? req.size;
  const g: DrawGrid = { xmin: req.domain.xmin, ymin: req.domain.ymin, size: req.domain.size, n };
  const used = new Map<string, HeightAsset>();
  const assetOf = (key: string, what: string): HeightAsset => {
    const a = opts.assets.get(key);
    if (!a) throw new InputRangeError(`${what} asset ${key} is missing from the asset folder ${opts.assetsDir}`);
    used.set(key, a);
    return a;
  };
  const placed = (asset: HeightAsset, m: Affine) => {
    const p = placeDraw(asset, m, g);
    const c = transformPoint(m, [0, 0]);
    return {
      localToWorld: affine6(m),
      worldToLocal: affine6(p.inv),
      bounds: [zero(p.bounds.x0), zero(p.bounds.x1), zero(p.bounds.y0), zero(p.bounds.y1)] as [number, number, number, number],
      centre: [zero(c[0]), zero(c[1])] as [number, number],
      lod: zero(p.lod),
    };
  };

  // Support: what is known before any height is read (supportLocationsOf); the executors compute the targets.
  const inst = plan.layout.instances;
  const groupOf = (x: number, y: number) => plan.regions.parent_group[plan.regions.cell_parent[cellAt(plan.regions, x, y)]];
  const supportLocations: SupportLocation[] = supportLocationsOf(inst, world, P.support, groupOf, zero);

  // Natural stamps: drawStamps's programs, with the existing-terrain operands described.
  const infos = new Map(world.stamps.infos.map((i) => [i.id, i]));
  const kinds = new Map(world.stamps.keys.map((k) => [k.key, k.kind]));
  const stampDraws: AssetDraw<StampProgram>[] = opts.stamps.instances.map((s) => {
    const info = infos.get(s.info);
    if (!info) throw new InputRangeError(`stamp instance ${s.id}: StampInfo ${s.info} is not in world ${world.name}`);
    const asset = assetOf(s.key, 'stamp');
    const k = zero(info.program.strength);
    let program: StampProgram;
    switch (info.blend) {
      case 'add':
        program = { mode: 'add', blend: 'add', k };
        break;
      case 'max':
        program = { mode: 'max', blend: 'max', k, c: { query: 'footprint-min', plus: zero(info.program.bias) } };
        break;
      case 'min':
        program = { mode: 'min', blend: 'min', k, c: { query: 'footprint-max' } };
        break;
      case 'lerp':
        program = {
          mode: 'lerp',
          blend: 'read-modify-write',
          k,
          a: zero(info.program.lerpAlpha),
          sMax: kinds.get(s.key) === 'depression' ? -4 : 6,
          c: { query: 'footprint-centre' },
        };
        break;
    }
    return { asset: s.key, ...placed(asset, stampMatrix(s, info)), program, source: { kind: 'stamp', instance: s.id, info: s.info } };
  });

  // Location textures: drawLocations's placement (rotate by the heading, translate) and program.
  const locationDraws: AssetDraw<LocationProgram>[] = inst.map((q, idx) => {
    const key = world.resources[q.resource].texture;
    const asset = assetOf(key, 'location texture');
    const m = chain(rotation(q.heading), translation(q.x, q.y));
    return {
      asset: key,
      ...placed(asset, m),
      program: { mode: 'location', blend: 'read-modify-write', supportTarget: idx, window: LOCATION_WINDOW },
      source: { kind: 'location', instance: q.id, resource: q.resourceId },
    };
  });

  // Asset table, sorted by id.
  const index = readIndex(opts.assetsDir);
  const assets: DrawListAsset[] = [...used.keys()].sort().map((id) => {
    const a = used.get(id)!;
    const e = index.get(id);
    if (!e) throw new FormatError(`${join(opts.assetsDir, 'index.json')}: asset ${id} is not listed`);
    const entry: DrawListAsset = {
      id,
      kind: e.kind,
      file: e.file,
      sha256: e.sha256,
      size: a.size,
      levelSizes: [...a.sizes],
      worldSize: zero(a.worldSize),
      decode: { metresPerCode: a.decode.metresPerCode, offsetMetres: zero(a.decode.offsetMetres) },
    };
    if (opts.embedAssets)
      entry.embedded = new Uint8Array(readInputFile(resolveInside(opts.assetsDir, e.file), maxAssetBytes(e.size), 'an asset with its mip chain'));
    return entry;
  });

  return {
    format: DRAWLIST_FORMAT,
    version: DRAWLIST_VERSION,
    producer: { name: PRODUCER_NAME, version: PRODUCER_VERSION },
    request: { id: req.id, world: world.name, seed: req.seed },
    grid: { xmin: zero(g.xmin), ymin: zero(g.ymin), size: g.size, n, convention: 'texel-centre', rowDirection: 'row0-at-ymin' },
    stages: [...DRAWLIST_STAGES],
    raster: { subpixelBits: 8, fillRule: 'top-left', blend: 'add', layers: [layerOf(0, layer0Fans(plan).fans), layerOf(100, layer100Fans(plan).fans)] },
    smoothing: {
      offsets: [...SMOOTHING_TAPS.offsets],
      weights: [...SMOOTHING_TAPS.weights],
      levels: SMOOTHING_CHAIN.levels,
      // [D] "Starting with the 4096² floating-point field, the pipeline successively downsamples …, applying the
      // corresponding filters at each level": the N² raster is filtered too.
      filterFullResolution: true,
      order: SMOOTHING_CHAIN.order,
      combine: '(h2 - h3) * 0.5 + h3',
      sampler: 'linear-clamp',
    },
    support: { a: P.support.a, b: P.support.b, reference: 'mid-envelope', locations: supportLocations },
    stamps: { draws: stampDraws },
    locations: { draws: locationDraws },
    outer: {
      centre: [zero(g.xmin + g.size / 2), zero(g.ymin + g.size / 2)],
      inner: req.outerBlend.inner,
      outer: req.outerBlend.outer,
      input: outerDrawEligible(plan) ? { kind: 'raster' } : { kind: 'constant', height: zero(P.outer.outerInitialHeight) },
    },
    encoding: { min: zero(req.encoding.min), max: zero(req.encoding.max), rule: 'd3d-unorm16' },
    assets,
  };
}
