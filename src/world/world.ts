/**
 * World configuration (data, never code): loaded from config/worlds/<name>.json and checked field by field.
 * Every refusal names the JSON path and the bad value (see io/json-check.ts).
 */
import { readInputText } from '../io/read-input.js';
import { FormatError, InputError } from '../errors.js';
import { checkArray, checkBoolean, checkLiteral, checkNumber, checkObject, checkOneOf, checkString, parseJson, type JsonObject } from '../io/json-check.js';

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
    corners: {
      margin: num(c, P('corners'), 'margin', nonneg),
      transitionWidth: num(c, P('corners'), 'transitionWidth', pos),
      amplitudeNorm: num(c, P('corners'), 'amplitudeNorm'),
    },
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

type ZoneItem = WorldConfig['stamps']['zoneItems'][number];
type StampGroup = WorldConfig['stamps']['groups'][number];

function parseSubconfig(v: unknown, p: string): RecipeSub {
  const o = checkObject(p, v);
  return {
    name: checkString(`${p}.name`, o.name),
    sceneType: num(o, p, 'sceneType', int(0, 1e6)),
    weight: num(o, p, 'weight', nonneg),
    params: o.params === null ? null : parseParams(o.params, `${p}.params`),
  };
}

function parseRecipes(v: unknown, p: string): WorldConfig['recipes'] {
  const recipes: WorldConfig['recipes'] = {};
  for (const [entry, e] of Object.entries(checkObject(p, v))) {
    const ep = `${p}.${entry}`;
    const eo = checkObject(ep, e);
    recipes[entry] = { subconfigs: checkArray(`${ep}.subconfigs`, eo.subconfigs).map((sv, i) => parseSubconfig(sv, `${ep}.subconfigs[${i}]`)) };
  }
  return recipes;
}

function parseResource(v: unknown, p: string): LocationResource {
  const r = checkObject(p, v);
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
}

function parseDecode(v: unknown, p: string): { metresPerCode: number; offsetMetres: number } {
  const d = checkObject(p, v);
  return { metresPerCode: num(d, p, 'metresPerCode', pos), offsetMetres: num(d, p, 'offsetMetres') };
}

function parseLocationTexture(v: unknown, p: string): LocationTextureDef {
  const t = checkObject(p, v);
  const d = checkObject(`${p}.decode`, t.decode);
  return {
    key: checkString(`${p}.key`, t.key),
    size: num(t, p, 'size', int(2, 8192)),
    worldSize: num(t, p, 'worldSize', pos),
    shape: checkOneOf(`${p}.shape`, t.shape, ['platform', 'terrace', 'pit', 'ramp'] as const),
    seed: num(t, p, 'seed', int(1, 2147483646)),
    decode: parseDecode(d, `${p}.decode`),
  };
}

/** Cross-reference: every resource names a location texture that exists. */
function checkTextureKeys(resources: readonly LocationResource[], textures: readonly LocationTextureDef[], where: string): void {
  const texKeys = new Set(textures.map((t) => t.key));
  resources.forEach((r, i) => {
    if (!texKeys.has(r.texture))
      throw new FormatError(`${where}.resources[${i}].texture: expected a key of locationTextures, found ${JSON.stringify(r.texture)}`);
  });
}

function parsePlacementStage(v: unknown, p: string): PlacementStageDef {
  const st = checkObject(p, v);
  return {
    name: checkString(`${p}.name`, st.name),
    ring: st.ring === undefined ? null : pair(st, p, 'ring'),
    count: st.count === undefined ? null : num(st, p, 'count', int(0, 100000)),
    attachTo: st.attachTo === undefined ? [] : checkArray(`${p}.attachTo`, st.attachTo).map((x, k) => checkString(`${p}.attachTo[${k}]`, x)),
    distance: st.distance === undefined ? null : pair(st, p, 'distance'),
  };
}

function parseStampKey(v: unknown, p: string): StampKeyDef {
  const k = checkObject(p, v);
  const b = checkObject(`${p}.bell`, k.bell);
  const d = checkObject(`${p}.decode`, k.decode);
  const bp = `${p}.bell`;
  return {
    key: checkString(`${p}.key`, k.key),
    kind: checkOneOf(`${p}.kind`, k.kind, ['ridge', 'depression', 'peaks', 'mound'] as const),
    size: num(k, p, 'size', int(2, 8192)),
    worldSize: num(k, p, 'worldSize', pos),
    bell: {
      seed: num(b, bp, 'seed', int(1, 2147483646)),
      nb: num(b, bp, 'nb', int(1, 1000)),
      p1: num(b, bp, 'p1'),
      p2: num(b, bp, 'p2'),
      p3: num(b, bp, 'p3', pos),
    },
    stretch: num(k, p, 'stretch', pos),
    decode: parseDecode(d, `${p}.decode`),
  };
}

function parseStampInfo(v: unknown, p: string, keySet: ReadonlySet<string>): StampInfoDef {
  const s = checkObject(p, v);
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
}

/** A list of ids, each of which must be one of `known` (named `what` in the refusal). */
function idList(v: unknown, p: string, known: ReadonlySet<string>, what: string): string[] {
  return checkArray(p, v).map((x, k) => {
    const id = checkString(`${p}[${k}]`, x);
    if (!known.has(id)) throw new FormatError(`${p}[${k}]: expected an id of ${what}, found ${JSON.stringify(id)}`);
    return id;
  });
}

function parseStampGroup(v: unknown, p: string, infoIds: ReadonlySet<string>): StampGroup {
  const g = checkObject(p, v);
  const ids = idList(g.infos, `${p}.infos`, infoIds, 'stamps.infos');
  return { id: checkString(`${p}.id`, g.id), weight: num(g, p, 'weight', nonneg), infos: ids, minSpacing: num(g, p, 'minSpacing', nonneg) };
}

function parseZoneItem(v: unknown, p: string, groupIds: ReadonlySet<string>): ZoneItem {
  const z = checkObject(p, v);
  const cr = pair(z, p, 'countRange');
  // [R] At most 1000 stamps per zone item (tundra uses ≤ 4): a bound that keeps a mistyped range from stalling a run.
  if (!(Number.isInteger(cr[0]) && Number.isInteger(cr[1]) && cr[0] >= 0 && cr[1] >= cr[0] && cr[1] <= 1000)) {
    throw new FormatError(`${p}.countRange: expected integers 0 ≤ a ≤ b ≤ 1000, found ${JSON.stringify(cr)}`);
  }
  return {
    id: checkString(`${p}.id`, z.id),
    groups: nums(z, p, 'groups'),
    weight: num(z, p, 'weight', nonneg),
    countRange: cr,
    stampGroups: idList(z.stampGroups, `${p}.stampGroups`, groupIds, 'stamps.groups'),
  };
}

/** The stamp lists in dependency order (keys ← infos ← groups ← zone items); each reference is checked against the list before it. */
function parseStampLists(sm: JsonObject, p: string): Omit<WorldConfig['stamps'], 'maxAttempts'> {
  const keys = checkArray(`${p}.keys`, sm.keys).map((v, i) => parseStampKey(v, `${p}.keys[${i}]`));
  const keySet = new Set(keys.map((k) => k.key));
  const infos = checkArray(`${p}.infos`, sm.infos).map((v, i) => parseStampInfo(v, `${p}.infos[${i}]`, keySet));
  const infoIds = new Set(infos.map((x) => x.id));
  const groups = checkArray(`${p}.groups`, sm.groups).map((v, i) => parseStampGroup(v, `${p}.groups[${i}]`, infoIds));
  const groupIds = new Set(groups.map((g) => g.id));
  const zoneItems = checkArray(`${p}.zoneItems`, sm.zoneItems).map((v, i) => parseZoneItem(v, `${p}.zoneItems[${i}]`, groupIds));
  return { keys, infos, groups, zoneItems };
}

function parseHeightGroups(hg: JsonObject, p: string): WorldConfig['heightGroups'] {
  return {
    zero: num(hg, p, 'zero', int(0, 255)),
    first: num(hg, p, 'first', int(0, 255)),
    second: num(hg, p, 'second', int(0, 255)),
    upland: num(hg, p, 'upland', int(0, 255)),
  };
}

/**
 * Checks a parsed world file and returns it typed. Sections are checked in a fixed order (header, recipes,
 * resources, location textures, placement stages, stamp lists, then the scalar fields), so the first refusal for a
 * file with several faults is always the same one.
 */
export function parseWorld(v: unknown, where = 'world'): WorldConfig {
  const o = checkObject(where, v);
  checkLiteral(`${where}.format`, o.format, 'heightbench.world');
  if (o.version !== 1) throw new FormatError(`${where}.version: this heightbench reads world version 1, the file has ${JSON.stringify(o.version)}`);
  const hg = checkObject(`${where}.heightGroups`, o.heightGroups);
  const recipes = parseRecipes(o.recipes, `${where}.recipes`);
  const resources = checkArray(`${where}.resources`, o.resources).map((rv, i) => parseResource(rv, `${where}.resources[${i}]`));
  const locationTextures = checkArray(`${where}.locationTextures`, o.locationTextures).map((tv, i) =>
    parseLocationTexture(tv, `${where}.locationTextures[${i}]`),
  );
  checkTextureKeys(resources, locationTextures, where);
  const pl = checkObject(`${where}.placement`, o.placement);
  const cl = checkObject(`${where}.placement.clearance`, pl.clearance);
  const stages = checkArray(`${where}.placement.stages`, pl.stages).map((sv, i) => parsePlacementStage(sv, `${where}.placement.stages[${i}]`));
  const sm = checkObject(`${where}.stamps`, o.stamps);
  const stampLists = parseStampLists(sm, `${where}.stamps`);
  return {
    name: checkString(`${where}.name`, o.name),
    heightGroups: parseHeightGroups(hg, `${where}.heightGroups`),
    recipes,
    resources,
    locationTextures,
    placement: {
      maxAttempts: num(pl, `${where}.placement`, 'maxAttempts', int(1, 100000)),
      clearance: {
        supportFactor: num(cl, `${where}.placement.clearance`, 'supportFactor', nonneg),
        global: num(cl, `${where}.placement.clearance`, 'global', nonneg),
      },
      stages,
    },
    stamps: { ...stampLists, maxAttempts: num(sm, `${where}.stamps`, 'maxAttempts', int(1, 10000)) },
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
