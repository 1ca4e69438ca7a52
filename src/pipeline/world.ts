/**
 * World configuration (data, never code): loaded from config/worlds/<name>.json and checked field by field.
 * Every refusal names the JSON path and the bad value (see io/json-check.ts).
 */
import { readInputText } from '../io/read-input.js';
import { FormatError, InputError } from '../errors.js';
import {
  checkArray,
  checkBoolean,
  checkLiteral,
  checkNumber,
  checkObject,
  checkOneOf,
  checkString,
  parseJson,
  type JsonObject,
} from '../io/json-check.js';

export interface SupportShape {
  kind: 'circle' | 'rect';
  offset: [number, number];
  /** Circle radius, metres. */
  radius: number;
  /** Rectangle half sizes and local angle (degrees), metres. */
  halfSize: [number, number];
  angleDeg: number;
  strength: number;
  transitionWidth: number;
}

/**
 * A location's own ground in its local frame: a circle about the origin, or a rectangle (half sizes, local angle in
 * degrees) that turns with the instance's heading. In JSON: a number (the circle's radius) or
 * { "kind": "rect", "halfSize": [hx, hy], "angleDeg": a }.
 */
export type Footprint = { kind: 'circle'; radius: number } | { kind: 'rect'; halfSize: [number, number]; angleDeg: number };

export interface LocationResource {
  id: string;
  stage: string;
  missions: number[];
  categories: number[];
  sceneTypes: number[];
  weight: number;
  footprint: Footprint;
  envelope: number;
  zeroSource: boolean;
  supportCoefficient: number;
  wrapperStrength: number;
  supports: SupportShape[];
  texture: string;
  parentWeight: number;
}

export interface RecipeParams {
  regions: {
    siteCount: number;
    minSpacing: number;
    parentCount: number;
    reassignProbability: number;
    groupField: { seed: number; nb: number; p1: number; p2: number; p3: number; scale: number };
    groupThresholds: [number, number, number];
    flipProbability: number;
  };
  sources: { margin: number; transitionWidth: number; amplitudeNorm: number; negativeAmplitudeNorm: number; firstGroup: number; secondGroup: number };
  corners: { margin: number; transitionWidth: number; amplitudeNorm: number };
  relief: { parentFraction: number; amplitude: number };
  support: { a: number; b: number; strength: number; stageOffsets: Record<string, number>; regionFloor: Record<string, number> };
  outer: { inner: number; outer: number; drawEligibleSceneTypes: number[]; outerInitialHeight: number };
}

export interface RecipeSub {
  name: string;
  sceneType: number;
  weight: number;
  params: RecipeParams | null;
}

export interface LocationTextureDef {
  key: string;
  size: number;
  worldSize: number;
  shape: 'platform' | 'terrace' | 'pit' | 'ramp';
  seed: number;
  decode: { metresPerCode: number; offsetMetres: number };
}

export interface PlacementStageDef {
  name: string;
  ring: [number, number] | null;
  count: number | null;
  attachTo: string[];
  distance: [number, number] | null;
}

export interface StampKeyDef {
  key: string;
  kind: 'ridge' | 'depression' | 'peaks' | 'mound';
  size: number;
  worldSize: number;
  bell: { seed: number; nb: number; p1: number; p2: number; p3: number };
  stretch: number;
  decode: { metresPerCode: number; offsetMetres: number };
}

export type BlendMode = 'add' | 'max' | 'min' | 'lerp';

export interface StampInfoDef {
  id: string;
  key: string;
  weight: number;
  blend: BlendMode;
  program: { strength: number; bias: number; lerpAlpha: number };
  scaleRange: [number, number];
  joint: { offset: [number, number]; rotationDeg: number; scale: number };
}

export interface WorldConfig {
  name: string;
  heightGroups: { zero: number; first: number; second: number; upland: number };
  recipes: Record<string, { subconfigs: RecipeSub[] }>;
  resources: LocationResource[];
  locationTextures: LocationTextureDef[];
  placement: { maxAttempts: number; clearance: { supportFactor: number; global: number }; stages: PlacementStageDef[] };
  stamps: {
    keys: StampKeyDef[];
    infos: StampInfoDef[];
    groups: { id: string; weight: number; infos: string[]; minSpacing: number }[];
    zoneItems: { id: string; groups: number[]; weight: number; countRange: [number, number]; stampGroups: string[] }[];
    maxAttempts: number;
  };
}

const num = (o: JsonObject, p: string, k: string, opts?: Parameters<typeof checkNumber>[2]) => checkNumber(`${p}.${k}`, o[k], opts);
const nums = (o: JsonObject, p: string, k: string) => checkArray(`${p}.${k}`, o[k]).map((v, i) => checkNumber(`${p}.${k}[${i}]`, v));
const pair = (o: JsonObject, p: string, k: string): [number, number] => {
  const a = nums(o, p, k);
  if (a.length !== 2) throw new FormatError(`${p}.${k}: expected 2 numbers, found ${a.length}`);
  return [a[0], a[1]];
};
const pos = { min: Number.MIN_VALUE };
const nonneg = { min: 0 };
const prob = { min: 0, max: 1 };
const int = (min: number, max = 1e9) => ({ integer: true, min, max });

function numberMap(v: unknown, p: string): Record<string, number> {
  const o = checkObject(p, v);
  return Object.fromEntries(Object.entries(o).map(([k, x]) => [k, checkNumber(`${p}.${k}`, x)]));
}

function parseParams(v: unknown, p: string): RecipeParams {
  const o = checkObject(p, v);
  const r = checkObject(`${p}.regions`, o.regions);
  const gf = checkObject(`${p}.regions.groupField`, r.groupField);
  const th = nums(r, `${p}.regions`, 'groupThresholds');
  if (th.length !== 3) throw new FormatError(`${p}.regions.groupThresholds: expected 3 numbers, found ${th.length}`);
  const s = checkObject(`${p}.sources`, o.sources);
  const c = checkObject(`${p}.corners`, o.corners);
  const rl = checkObject(`${p}.relief`, o.relief);
  const su = checkObject(`${p}.support`, o.support);
  const ou = checkObject(`${p}.outer`, o.outer);
  const P = (x: string) => `${p}.${x}`;
  return {
    regions: {
      siteCount: num(r, P('regions'), 'siteCount', int(3, 100000)),
      minSpacing: num(r, P('regions'), 'minSpacing', nonneg),
      parentCount: num(r, P('regions'), 'parentCount', int(1, 10000)),
      reassignProbability: num(r, P('regions'), 'reassignProbability', prob),
      groupField: {
        seed: num(gf, P('regions.groupField'), 'seed', int(1, 2147483646)),
        nb: num(gf, P('regions.groupField'), 'nb', int(1, 10000)),
        p1: num(gf, P('regions.groupField'), 'p1'),
        p2: num(gf, P('regions.groupField'), 'p2'),
        p3: num(gf, P('regions.groupField'), 'p3', pos),
        scale: num(gf, P('regions.groupField'), 'scale', pos),
      },
      groupThresholds: [th[0], th[1], th[2]],
      flipProbability: num(r, P('regions'), 'flipProbability', prob),
    },
    sources: {
      margin: num(s, P('sources'), 'margin', nonneg),
      transitionWidth: num(s, P('sources'), 'transitionWidth', pos),
      amplitudeNorm: num(s, P('sources'), 'amplitudeNorm'),
      negativeAmplitudeNorm: num(s, P('sources'), 'negativeAmplitudeNorm'),
      firstGroup: num(s, P('sources'), 'firstGroup', int(0, 255)),
      secondGroup: num(s, P('sources'), 'secondGroup', int(0, 255)),
    },
    corners: { margin: num(c, P('corners'), 'margin', nonneg), transitionWidth: num(c, P('corners'), 'transitionWidth', pos), amplitudeNorm: num(c, P('corners'), 'amplitudeNorm') },
    relief: { parentFraction: num(rl, P('relief'), 'parentFraction', prob), amplitude: num(rl, P('relief'), 'amplitude') },
    support: {
      a: num(su, P('support'), 'a', pos),
      b: num(su, P('support'), 'b', pos),
      strength: num(su, P('support'), 'strength', nonneg),
      stageOffsets: numberMap(su.stageOffsets, P('support.stageOffsets')),
      regionFloor: numberMap(su.regionFloor, P('support.regionFloor')),
    },
    outer: {
      inner: num(ou, P('outer'), 'inner', nonneg),
      outer: num(ou, P('outer'), 'outer', pos),
      drawEligibleSceneTypes: nums(ou, P('outer'), 'drawEligibleSceneTypes'),
      outerInitialHeight: num(ou, P('outer'), 'outerInitialHeight'),
    },
  };
}

function parseFootprint(v: unknown, p: string): Footprint {
  if (typeof v !== 'object' || v === null) return { kind: 'circle', radius: checkNumber(p, v, pos) };
  const o = checkObject(p, v);
  checkLiteral(`${p}.kind`, o.kind, 'rect');
  const halfSize = pair(o, p, 'halfSize');
  halfSize.forEach((h, k) => checkNumber(`${p}.halfSize[${k}]`, h, pos));
  return { kind: 'rect', halfSize, angleDeg: num(o, p, 'angleDeg') };
}

function parseSupport(v: unknown, p: string): SupportShape {
  const o = checkObject(p, v);
  const kind = checkOneOf(`${p}.kind`, o.kind, ['circle', 'rect'] as const);
  return {
    kind,
    offset: pair(o, p, 'offset'),
    radius: kind === 'circle' ? num(o, p, 'radius', pos) : 0,
    halfSize: kind === 'rect' ? pair(o, p, 'halfSize') : [0, 0],
    angleDeg: kind === 'rect' ? num(o, p, 'angleDeg') : 0,
    strength: num(o, p, 'strength', nonneg),
    transitionWidth: num(o, p, 'transitionWidth', nonneg),
  };
}

export function parseWorld(v: unknown, where = 'world'): WorldConfig {
  const o = checkObject(where, v);
  checkLiteral(`${where}.format`, o.format, 'heightbench.world');
  if (o.version !== 1) throw new FormatError(`${where}.version: this heightbench reads world version 1, the file has ${JSON.stringify(o.version)}`);
  const hg = checkObject(`${where}.heightGroups`, o.heightGroups);
  const recipesObj = checkObject(`${where}.recipes`, o.recipes);
  const recipes: WorldConfig['recipes'] = {};
  for (const [entry, e] of Object.entries(recipesObj)) {
    const p = `${where}.recipes.${entry}`;
    const eo = checkObject(p, e);
    recipes[entry] = {
      subconfigs: checkArray(`${p}.subconfigs`, eo.subconfigs).map((sv, i) => {
        const sp = `${p}.subconfigs[${i}]`;
        const so = checkObject(sp, sv);
        return {
          name: checkString(`${sp}.name`, so.name),
          sceneType: num(so, sp, 'sceneType', int(0, 1e6)),
          weight: num(so, sp, 'weight', nonneg),
          params: so.params === null ? null : parseParams(so.params, `${sp}.params`),
        };
      }),
    };
  }
  const resources = checkArray(`${where}.resources`, o.resources).map((rv, i): LocationResource => {
    const p = `${where}.resources[${i}]`;
    const r = checkObject(p, rv);
    return {
      id: checkString(`${p}.id`, r.id),
      stage: checkString(`${p}.stage`, r.stage),
      missions: nums(r, p, 'missions'),
      categories: nums(r, p, 'categories'),
      sceneTypes: nums(r, p, 'sceneTypes'),
      weight: num(r, p, 'weight', nonneg),
      footprint: parseFootprint(r.footprint, `${p}.footprint`),
      envelope: num(r, p, 'envelope', nonneg),
      zeroSource: checkBoolean(`${p}.zeroSource`, r.zeroSource),
      supportCoefficient: num(r, p, 'supportCoefficient', nonneg),
      wrapperStrength: num(r, p, 'wrapperStrength', nonneg),
      supports: checkArray(`${p}.supports`, r.supports).map((s, k) => parseSupport(s, `${p}.supports[${k}]`)),
      texture: checkString(`${p}.texture`, r.texture),
      parentWeight: num(r, p, 'parentWeight', nonneg),
    };
  });
  const locationTextures = checkArray(`${where}.locationTextures`, o.locationTextures).map((tv, i): LocationTextureDef => {
    const p = `${where}.locationTextures[${i}]`;
    const t = checkObject(p, tv);
    const d = checkObject(`${p}.decode`, t.decode);
    return {
      key: checkString(`${p}.key`, t.key),
      size: num(t, p, 'size', int(2, 8192)),
      worldSize: num(t, p, 'worldSize', pos),
      shape: checkOneOf(`${p}.shape`, t.shape, ['platform', 'terrace', 'pit', 'ramp'] as const),
      seed: num(t, p, 'seed', int(1, 2147483646)),
      decode: { metresPerCode: num(d, `${p}.decode`, 'metresPerCode', pos), offsetMetres: num(d, `${p}.decode`, 'offsetMetres') },
    };
  });
  const texKeys = new Set(locationTextures.map((t) => t.key));
  resources.forEach((r, i) => {
    if (!texKeys.has(r.texture)) throw new FormatError(`${where}.resources[${i}].texture: expected a key of locationTextures, found ${JSON.stringify(r.texture)}`);
  });
  const pl = checkObject(`${where}.placement`, o.placement);
  const cl = checkObject(`${where}.placement.clearance`, pl.clearance);
  const stages = checkArray(`${where}.placement.stages`, pl.stages).map((sv, i): PlacementStageDef => {
    const p = `${where}.placement.stages[${i}]`;
    const st = checkObject(p, sv);
    return {
      name: checkString(`${p}.name`, st.name),
      ring: st.ring === undefined ? null : pair(st, p, 'ring'),
      count: st.count === undefined ? null : num(st, p, 'count', int(0, 100000)),
      attachTo: st.attachTo === undefined ? [] : checkArray(`${p}.attachTo`, st.attachTo).map((x, k) => checkString(`${p}.attachTo[${k}]`, x)),
      distance: st.distance === undefined ? null : pair(st, p, 'distance'),
    };
  });
  const sm = checkObject(`${where}.stamps`, o.stamps);
  const keys = checkArray(`${where}.stamps.keys`, sm.keys).map((kv, i): StampKeyDef => {
    const p = `${where}.stamps.keys[${i}]`;
    const k = checkObject(p, kv);
    const b = checkObject(`${p}.bell`, k.bell);
    const d = checkObject(`${p}.decode`, k.decode);
    return {
      key: checkString(`${p}.key`, k.key),
      kind: checkOneOf(`${p}.kind`, k.kind, ['ridge', 'depression', 'peaks', 'mound'] as const),
      size: num(k, p, 'size', int(2, 8192)),
      worldSize: num(k, p, 'worldSize', pos),
      bell: { seed: num(b, `${p}.bell`, 'seed', int(1, 2147483646)), nb: num(b, `${p}.bell`, 'nb', int(1, 1000)), p1: num(b, `${p}.bell`, 'p1'), p2: num(b, `${p}.bell`, 'p2'), p3: num(b, `${p}.bell`, 'p3', pos) },
      stretch: num(k, p, 'stretch', pos),
      decode: { metresPerCode: num(d, `${p}.decode`, 'metresPerCode', pos), offsetMetres: num(d, `${p}.decode`, 'offsetMetres') },
    };
  });
  const keySet = new Set(keys.map((k) => k.key));
  const infos = checkArray(`${where}.stamps.infos`, sm.infos).map((iv, i): StampInfoDef => {
    const p = `${where}.stamps.infos[${i}]`;
    const s = checkObject(p, iv);
    const pr = checkObject(`${p}.program`, s.program);
    const j = checkObject(`${p}.joint`, s.joint);
    const key = checkString(`${p}.key`, s.key);
    if (!keySet.has(key)) throw new FormatError(`${p}.key: expected a key of stamps.keys, found ${JSON.stringify(key)}`);
    return {
      id: checkString(`${p}.id`, s.id),
      key,
      weight: num(s, p, 'weight', nonneg),
      blend: checkOneOf(`${p}.blend`, s.blend, ['add', 'max', 'min', 'lerp'] as const),
      program: { strength: num(pr, `${p}.program`, 'strength'), bias: num(pr, `${p}.program`, 'bias'), lerpAlpha: num(pr, `${p}.program`, 'lerpAlpha', prob) },
      scaleRange: pair(s, p, 'scaleRange'),
      joint: { offset: pair(j, `${p}.joint`, 'offset'), rotationDeg: num(j, `${p}.joint`, 'rotationDeg'), scale: num(j, `${p}.joint`, 'scale', pos) },
    };
  });
  const infoIds = new Set(infos.map((x) => x.id));
  const groups = checkArray(`${where}.stamps.groups`, sm.groups).map((gv, i) => {
    const p = `${where}.stamps.groups[${i}]`;
    const g = checkObject(p, gv);
    const ids = checkArray(`${p}.infos`, g.infos).map((x, k) => {
      const id = checkString(`${p}.infos[${k}]`, x);
      if (!infoIds.has(id)) throw new FormatError(`${p}.infos[${k}]: expected an id of stamps.infos, found ${JSON.stringify(id)}`);
      return id;
    });
    return { id: checkString(`${p}.id`, g.id), weight: num(g, p, 'weight', nonneg), infos: ids, minSpacing: num(g, p, 'minSpacing', nonneg) };
  });
  const groupIds = new Set(groups.map((g) => g.id));
  const zoneItems = checkArray(`${where}.stamps.zoneItems`, sm.zoneItems).map((zv, i) => {
    const p = `${where}.stamps.zoneItems[${i}]`;
    const z = checkObject(p, zv);
    const cr = pair(z, p, 'countRange');
    // [R] At most 1000 stamps per zone item (tundra uses ≤ 4): a range of a million kept a run busy past 60 s (issue 19).
    if (!(Number.isInteger(cr[0]) && Number.isInteger(cr[1]) && cr[0] >= 0 && cr[1] >= cr[0] && cr[1] <= 1000)) {
      throw new FormatError(`${p}.countRange: expected integers 0 ≤ a ≤ b ≤ 1000, found ${JSON.stringify(cr)}`);
    }
    return {
      id: checkString(`${p}.id`, z.id),
      groups: nums(z, p, 'groups'),
      weight: num(z, p, 'weight', nonneg),
      countRange: cr,
      stampGroups: checkArray(`${p}.stampGroups`, z.stampGroups).map((x, k) => {
        const id = checkString(`${p}.stampGroups[${k}]`, x);
        if (!groupIds.has(id)) throw new FormatError(`${p}.stampGroups[${k}]: expected an id of stamps.groups, found ${JSON.stringify(id)}`);
        return id;
      }),
    };
  });
  return {
    name: checkString(`${where}.name`, o.name),
    heightGroups: {
      zero: num(hg, `${where}.heightGroups`, 'zero', int(0, 255)),
      first: num(hg, `${where}.heightGroups`, 'first', int(0, 255)),
      second: num(hg, `${where}.heightGroups`, 'second', int(0, 255)),
      upland: num(hg, `${where}.heightGroups`, 'upland', int(0, 255)),
    },
    recipes,
    resources,
    locationTextures,
    placement: {
      maxAttempts: num(pl, `${where}.placement`, 'maxAttempts', int(1, 100000)),
      clearance: { supportFactor: num(cl, `${where}.placement.clearance`, 'supportFactor', nonneg), global: num(cl, `${where}.placement.clearance`, 'global', nonneg) },
      stages,
    },
    stamps: { keys, infos, groups, zoneItems, maxAttempts: num(sm, `${where}.stamps`, 'maxAttempts', int(1, 10000)) },
  };
}

export function loadWorldFile(path: string): WorldConfig {
  let text: string;
  try {
    text = readInputText(path);
  } catch (e) {
    if (e instanceof InputError) throw e;
    throw new FormatError(`${path}: cannot read the world configuration`);
  }
  return parseWorld(parseJson(text, path), path.split('/').pop() ?? path);
}
