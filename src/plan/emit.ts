/**
 * Planning → draw list: the one place a run's draw list is made (planDrawList), for the CPU run, the atlas, the
 * WebGPU run, `heightbench drawlist` and the notebooks.
 *
 * Inputs: the request, the run's resolved conventions (resolveRunConventions, once per run), the loaded world and
 * asset folder (src/pipeline/inputs.ts: no file I/O here), the output size.
 * Outputs: the plan (buildPlan: recipe, regions, layout, sources, corners, stamp selection — a plain value) and the
 * finished DrawList (types.ts): layer 0 and layer 100 fans (base.ts: layer0Fans, layer100Fans), the smoothing chain
 * under the conventions (taps, weights, N² filter), every location's support query (the static half of support.ts:
 * computeSupportTargets — shapes, participating children, offsets, region floors, strengths), every stamp and
 * location draw with its composed transform, inverse, bounds, centre, level of detail and program (stamps.ts,
 * locations.ts, draw.ts) in the conventions' draw order (draws.order 'sorted' stable-sorts each draw section by asset
 * key), the outer band and input, the encoding range, the layer snapping (raster.subpixelBits) and the asset table.
 * What depends on the field being drawn (envelopes, references, targets, extents, footprint operands) is described,
 * not evaluated: each executor evaluates it on its own field.
 * [R] Every plain number is canonicalised (−0 → 0) so that serialise → parse gives back exactly this object.
 */
import { FormatError, InputRangeError } from '../errors.js';
import { PRODUCER_NAME, PRODUCER_VERSION } from '../version.js';
import type { AssetSet, HeightAsset } from '../assets/assets.js';
import { layer0Fans, layer100Fans } from './layer-fans.js';
import { finishPlan, planningKey, planStages, type Plan } from './plan.js';
import type { PipelineRequest } from './request.js';
import { cellAt } from './cells.js';
import { selectStamps, stampMatrix } from './stamps.js';
import { supportLocationsOf } from './support-locations.js';
import { chain, rotation, transformPoint, translation, type Affine } from '../core/transforms.js';
import type { TriangleList } from './fans.js';
import type { WorldConfig } from '../world/world.js';
import { DEFAULT_CONVENTIONS, type Conventions } from '../conventions/index.js';
import { DRAWLIST_STAGES, LOCATION_WINDOW } from '../drawlist/serial.js';
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
} from '../drawlist/types.js';
import { placeDraw, type DrawGrid } from '../drawlist/placement.js';

/** The smoothing chain the list declares: the levels and their order (conventions smoothing.levels, .order). */
const SMOOTHING_CHAIN = Object.freeze({ levels: DEFAULT_CONVENTIONS.smoothing.levels, order: DEFAULT_CONVENTIONS.smoothing.order });

export interface DrawListOptions {
  /** Output size N (pixels per axis); default the request's. */
  size?: number;
  /** The loaded asset folder (src/pipeline/inputs.ts). */
  assets: AssetSet;
  /** Embed every used asset's KTX2 bytes (a self-contained list, e.g. for the browser page). */
  embedAssets?: boolean;
}

export interface PlanDrawListOptions extends Omit<DrawListOptions, 'assets'> {
  /** The request's loaded world. */
  world: WorldConfig;
  /**
   * Plans already made for this request and world, keyed by planningKey(conventions): a run whose planning groups
   * agree with a cached plan's reuses it (a plan is a value, so reuse changes no bit), and a new plan is added.
   */
  plans?: Map<string, Plan>;
  /** Called as each step ends ('plan', 'stamps.select', 'drawlist') with its wall time (progress display only). */
  onStep?: (name: string, ms: number) => void;
}

export interface PlannedDrawList {
  plan: Plan;
  drawList: DrawList;
  /** Whether the plan came from `plans`. */
  planReused: boolean;
}

/** Plans the request under the run's conventions and emits its finished draw list (see header). */
export function planDrawList(request: PipelineRequest, conventions: Conventions, assets: AssetSet, opts: PlanDrawListOptions): PlannedDrawList {
  const time = <T>(name: string, f: () => T): T => {
    const t0 = performance.now();
    const r = f();
    opts.onStep?.(name, performance.now() - t0);
    return r;
  };
  const key = planningKey(conventions);
  const cached = opts.plans?.get(key);
  let plan: Plan;
  if (cached) plan = { ...cached, conventions };
  else {
    const stages = time('plan', () => planStages(request, opts.world, conventions));
    plan = time('stamps.select', () => finishPlan(stages, selectStamps(stages.regions, opts.world, stages.stream)));
    opts.plans?.set(key, plan);
  }
  const drawList = time('drawlist', () => buildDrawList(plan, { size: opts.size, assets, embedAssets: opts.embedAssets }));
  return { plan, drawList, planReused: cached !== undefined };
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

const byAsset = <T extends { asset: string }>(a: T, b: T) => (a.asset < b.asset ? -1 : a.asset > b.asset ? 1 : 0);

/** The plan's draw list under the plan's conventions (see header). */
export function buildDrawList(plan: Plan, opts: DrawListOptions): DrawList {
  const req = plan.request;
  const world = plan.world;
  const P = plan.recipe.params;
  const c = plan.conventions;
  const n = opts.size ?? req.size;
  const g: DrawGrid = { xmin: req.domain.xmin, ymin: req.domain.ymin, size: req.domain.size, n };
  const used = new Map<string, HeightAsset>();
  const assetOf = (key: string, what: string): HeightAsset => {
    const a = opts.assets.assets.get(key);
    if (!a) throw new InputRangeError(`${what} asset ${key} is missing from the asset folder ${opts.assets.dir}`);
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
  const stampDraws: AssetDraw<StampProgram>[] = plan.stamps.instances.map((s) => {
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
  const index = opts.assets.index;
  const assets: DrawListAsset[] = [...used.keys()].sort().map((id) => {
    const a = used.get(id)!;
    const e = index.get(id);
    if (!e) throw new FormatError(`${opts.assets.dir}/index.json: asset ${id} is not listed`);
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
    if (opts.embedAssets) {
      const bytes = opts.assets.ktx2?.get(id);
      if (!bytes) throw new FormatError(`${opts.assets.dir}: asset ${id}: its KTX2 bytes were not loaded (load the folder with keepBytes to embed)`);
      entry.embedded = bytes.slice();
    }
    return entry;
  });

  return {
    format: DRAWLIST_FORMAT,
    version: DRAWLIST_VERSION,
    producer: { name: PRODUCER_NAME, version: PRODUCER_VERSION },
    request: { id: req.id, world: world.name, seed: req.seed },
    grid: { xmin: zero(g.xmin), ymin: zero(g.ymin), size: g.size, n, convention: 'texel-centre', rowDirection: 'row0-at-ymin' },
    stages: [...DRAWLIST_STAGES],
    raster: {
      subpixelBits: c.raster.subpixelBits,
      fillRule: 'top-left',
      blend: 'add',
      layers: [layerOf(0, layer0Fans(plan).fans), layerOf(100, layer100Fans(plan).fans)],
    },
    smoothing: {
      offsets: [...c.smoothing.offsets],
      weights: [...c.smoothing.weights],
      levels: SMOOTHING_CHAIN.levels,
      // [D] "Starting with the 4096² floating-point field, the pipeline successively downsamples …, applying the
      // corresponding filters at each level": the N² raster is filtered too (conventions smoothing.filterFullResolution).
      filterFullResolution: c.smoothing.filterFullResolution,
      order: SMOOTHING_CHAIN.order,
      combine: '(h2 - h3) * 0.5 + h3',
      sampler: 'linear-clamp',
    },
    support: { a: P.support.a, b: P.support.b, reference: 'mid-envelope', locations: supportLocations },
    // conventions draws.order: 'sorted' stable-sorts each draw section by asset key.
    stamps: { draws: c.draws.order === 'sorted' ? [...stampDraws].sort(byAsset) : stampDraws },
    locations: { draws: c.draws.order === 'sorted' ? [...locationDraws].sort(byAsset) : locationDraws },
    outer: {
      centre: [zero(g.xmin + g.size / 2), zero(g.ymin + g.size / 2)],
      // The run's conventions carry the request's band and the recipe's initial height unless an override named them.
      inner: c.outer.inner,
      outer: c.outer.outer,
      input: outerDrawEligible(plan) ? { kind: 'raster' } : { kind: 'constant', height: zero(c.outer.initialHeight) },
    },
    encoding: { min: zero(c.encoding.min), max: zero(c.encoding.max), rule: 'd3d-unorm16' },
    assets,
  };
}
