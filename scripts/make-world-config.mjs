#!/usr/bin/env node
// Authoring helper: writes config/worlds/tundra.json, heightbench's open tundra world. The JSON it writes is the
// configuration (data, validated by src/world/world.ts); this script only saves typing when the world is revised.
// Deterministic: the same script writes the same bytes.
import { writeFileSync } from 'node:fs';

let s = 20261130;
const rnd = () => (s = (Math.imul(s, 48271) >>> 0) % 2147483647) / 2147483647;
const pick = (a) => a[Math.floor(rnd() * a.length)];
const round = (x, d = 2) => Math.round(x * 10 ** d) / 10 ** d;

// Height groups: 0 zero class (lowland), 1 first reference type, 2 second reference type, 3 upland.
const heightGroups = { zero: 0, first: 1, second: 2, upland: 3 };

// Recipe entry 19: eight sub-configurations; only #0 matches scene type 1 with positive weight.
const params = {
  regions: {
    siteCount: 260,
    minSpacing: 55,
    parentCount: 18,
    reassignProbability: 0.3,
    groupField: { seed: 4242, nb: 24, p1: 0.35, p2: 6, p3: 2, scale: 1.0 },
    groupThresholds: [0.16, 0.27, 0.34],
    flipProbability: 0.12,
  },
  sources: { margin: 4, transitionWidth: 256, amplitudeNorm: 35 / 512, negativeAmplitudeNorm: 10 / 512, firstGroup: 1, secondGroup: 2 },
  corners: { margin: 4, transitionWidth: 320, amplitudeNorm: 30 / 512 },
  relief: { parentFraction: 0.5, amplitude: 6 },
  support: {
    a: 0.02,
    b: 12,
    strength: 1,
    stageOffsets: { mission: 0.4, extraction: 0.2, outpost: 0.3, exploration: 0, satellite: 0.1 },
    regionFloor: { zero: -20, first: -20, second: -25, upland: -15 },
  },
  outer: { inner: 620, outer: 680, drawEligibleSceneTypes: [3], outerInitialHeight: 0 }, // [R] a cleared target holds 0 (src/cpu/outer.ts)
};
const subconfigs = [
  { name: 'tundra-base', sceneType: 1, weight: 1, params },
  { name: 'tundra-night', sceneType: 2, weight: 0.8, params: null },
  { name: 'tundra-storm', sceneType: 1, weight: 0, params: null },
  { name: 'tundra-event', sceneType: 4, weight: 0, params: null },
  { name: 'tundra-tutorial', sceneType: 5, weight: 0.3, params: null },
  { name: 'tundra-legacy-a', sceneType: 1, weight: 0, params: null },
  { name: 'tundra-legacy-b', sceneType: 3, weight: 0, params: null },
  { name: 'tundra-test', sceneType: 9, weight: 0, params: null },
];
const recipes = { 19: { subconfigs } };

// Location textures: one per resource (60); the tundra-r19 request draws 54 times from 44 of them.
const sizes = [80, 128, 184, 200, 256];
const textures = [];
for (let t = 0; t < 60; t++) {
  const size = sizes[t % sizes.length];
  textures.push({
    key: `loc-tex-${String(t + 1).padStart(2, '0')}`,
    size,
    worldSize: round(size * pick([0.25, 0.3, 0.35, 0.4]), 1),
    shape: pick(['platform', 'terrace', 'pit', 'ramp']),
    seed: 1000 + t,
    decode: { metresPerCode: 0.0001, offsetMetres: -3.2768 },
  });
}
let texCursor = 0;
const nextTexture = () => textures[texCursor++ % textures.length].key;

function circle(offset, radius) {
  return { kind: 'circle', offset, radius, strength: round(0.6 + 0.4 * rnd()), transitionWidth: round(10 + 14 * rnd(), 1) };
}
const resources = [];
function resource(stage, extra) {
  const n = resources.length;
  const footprint = round(extra.footprint ?? 14 + 16 * rnd(), 1);
  const circles = extra.circles ?? 1;
  const supports = [];
  for (let c = 0; c < circles; c++) {
    const off = c === 0 ? [0, 0] : [round((rnd() - 0.5) * footprint), round((rnd() - 0.5) * footprint)];
    supports.push(circle(off, round(footprint * (0.5 + 0.4 * rnd()), 1)));
  }
  resources.push({
    id: `res-${String(n + 1).padStart(3, '0')}`,
    stage,
    missions: extra.missions ?? [],
    categories: extra.categories ?? [],
    sceneTypes: extra.sceneTypes ?? [1],
    weight: extra.weight ?? round(0.5 + rnd(), 2),
    footprint,
    envelope: round(footprint * 1.5, 1),
    zeroSource: extra.zeroSource ?? false,
    supportCoefficient: round(0.8 + 0.4 * rnd(), 2),
    wrapperStrength: round(0.7 + 0.3 * rnd(), 2),
    supports,
    texture: extra.texture ?? nextTexture(),
    parentWeight: round(0.25 + 0.5 * rnd(), 2),
  });
}
// Mission candidates. Tag 128: 8 associated; 2 fail the category allow-list, 1 the scene type, 1 has weight 0 → 4.
const mission = (tag, fate) => {
  const e = { missions: [tag], circles: 2 };
  if (fate === 'category') e.categories = [4, 5];
  else if (fate === 'scene') e.sceneTypes = [2];
  else if (fate === 'weight') e.weight = 0;
  else e.categories = pick([[], [2, 5], [1], [6, 7]]);
  resource('mission', e);
};
for (const f of ['ok', 'category', 'ok', 'scene', 'ok', 'weight', 'category', 'ok']) mission(128, f);
for (const f of ['ok', 'ok']) mission(104, f);
for (const f of ['ok', 'category', 'ok', 'scene', 'category', 'ok', 'weight', 'ok', 'category', 'scene', 'ok']) mission(99, f);
mission(96, 'ok');
// Later placement stages draw every resource of their pool once: 8 + 12 + 16; 4 exploration sites carry 2 circles.
for (let k = 0; k < 8; k++) resource('extraction', { circles: 2, zeroSource: k % 4 === 3 });
for (let k = 0; k < 12; k++) resource('outpost', { circles: 2 });
for (let k = 0; k < 16; k++) resource('exploration', { circles: k < 4 ? 2 : 1, footprint: 8 + 6 * rnd() });
for (let k = 0; k < 2; k++) resource('satellite', { circles: 1, footprint: 6 + 4 * rnd() });

const placement = {
  maxAttempts: 40,
  clearance: { supportFactor: 0.5, global: 4 },
  stages: [
    { name: 'mission', ring: [120, 540] },
    { name: 'extraction', ring: [80, 600], count: 8 },
    { name: 'outpost', ring: [60, 600], count: 12 },
    { name: 'exploration', ring: [30, 610], count: 16 },
    { name: 'satellite', count: 12, attachTo: ['mission', 'outpost'], distance: [45, 95] },
    // Survey sites: only requests admitting location category 8 (teaching-512) have any; the tundra-r19 pool is empty.
    { name: 'survey', ring: [150, 560] },
  ],
};

// Natural stamps: 30 texture keys (ridges, depressions, multi-peak), a ZoneItem → StampGroup → StampInfo hierarchy.
const kinds = ['ridge', 'depression', 'peaks', 'mound', 'ridge', 'peaks'];
const stampKeys = [];
for (let k = 0; k < 30; k++) {
  const kind = kinds[k % kinds.length];
  stampKeys.push({
    key: `stamp-${String(k + 1).padStart(2, '0')}-${kind}`,
    kind,
    size: kind === 'peaks' ? 256 : 128,
    worldSize: round(kind === 'peaks' ? 48 + 40 * rnd() : 24 + 30 * rnd(), 1),
    bell: { seed: 300 + k, nb: kind === 'peaks' ? 6 : 3, p1: 0.6, p2: kind === 'ridge' ? 60 : 25, p3: 1 },
    stretch: kind === 'ridge' ? round(2.5 + 2 * rnd(), 2) : 1,
    decode: kind === 'depression' ? { metresPerCode: 0.0001, offsetMetres: -6.5535 } : { metresPerCode: 0.0001, offsetMetres: 0 },
  });
}
const stampInfos = stampKeys.map((k, i) => ({
  id: `info-${String(i + 1).padStart(2, '0')}`,
  key: k.key,
  weight: i >= 24 ? 0 : round(0.3 + rnd(), 2), // keys 25–30 exist but carry weight 0 in this world
  blend: k.kind === 'depression' ? 'min' : k.kind === 'mound' ? 'max' : i % 7 === 0 ? 'lerp' : 'add',
  program: { strength: round(0.6 + 0.8 * rnd(), 2), bias: k.kind === 'mound' ? 1.5 : 0, lerpAlpha: 0.6 },
  scaleRange: [0.8, 1.25],
  joint: { offset: [round((rnd() - 0.5) * 4, 2), round((rnd() - 0.5) * 4, 2)], rotationDeg: round((rnd() - 0.5) * 30, 1), scale: round(0.9 + 0.2 * rnd(), 2) },
}));
const stampGroups = [];
for (let g = 0; g < 8; g++) {
  const infos = stampInfos.filter((_, i) => i % 8 === g).map((x) => x.id);
  stampGroups.push({ id: `group-${g + 1}`, weight: round(0.5 + rnd(), 2), infos, minSpacing: round(6 + 10 * rnd(), 1) });
}
const zoneItems = [
  { id: 'zone-lowland', groups: [0], weight: 1, countRange: [2, 4], stampGroups: ['group-1', 'group-2', 'group-5'] },
  { id: 'zone-first', groups: [1], weight: 1, countRange: [3, 6], stampGroups: ['group-2', 'group-3', 'group-4', 'group-6'] },
  { id: 'zone-second', groups: [2], weight: 1, countRange: [3, 5], stampGroups: ['group-1', 'group-4', 'group-7'] },
  { id: 'zone-upland', groups: [3], weight: 1, countRange: [4, 8], stampGroups: ['group-3', 'group-5', 'group-6', 'group-8'] },
];

// Survey sites, written by hand after every random draw above (so the rest of the world is unchanged): rotated
// rectangular footprints and supports, admitted only by location category 8 — teaching-512 exercises the rectangle
// branches of spacing, the flag rule and support with them; tundra-r19 (categories [1, 2, 6]) keeps 84 circles, 0 rectangles.
const rect = (halfSize, angleDeg, offset = [0, 0], strength = 0.9, transitionWidth = 14) => ({
  kind: 'rect',
  offset,
  halfSize,
  angleDeg,
  strength,
  transitionWidth,
});
const survey = (footprint, envelope, supports, weight) => {
  const n = resources.length;
  resources.push({
    id: `res-${String(n + 1).padStart(3, '0')}`,
    stage: 'survey',
    missions: [],
    categories: [8],
    sceneTypes: [1],
    weight,
    footprint,
    envelope,
    zeroSource: false,
    supportCoefficient: 1,
    wrapperStrength: 0.9,
    supports,
    texture: nextTexture(),
    parentWeight: 0.5,
  });
};
survey({ kind: 'rect', halfSize: [22, 9], angleDeg: 0 }, 36, [rect([20, 8], 0)], 1);
survey(
  { kind: 'rect', halfSize: [16, 12], angleDeg: 30 },
  30,
  [rect([15, 10], 30), { kind: 'circle', offset: [14, 0], radius: 8, strength: 0.8, transitionWidth: 12 }],
  0.9,
);
survey(12, 20, [rect([10, 6], -20, [0, 0], 1, 10)], 0.8);
survey({ kind: 'rect', halfSize: [26, 7], angleDeg: 90 }, 40, [rect([24, 6], 90, [0, 0], 0.85, 16)], 0.7);

const world = {
  format: 'heightbench.world',
  version: 1,
  name: 'tundra',
  description:
    "heightbench's open tundra world: its own configuration exercising every rule the seed article describes (the original game's configuration is not available).",
  heightGroups,
  recipes,
  resources,
  locationTextures: textures,
  placement,
  stamps: { keys: stampKeys, infos: stampInfos, groups: stampGroups, zoneItems, maxAttempts: 12 },
};
writeFileSync('config/worlds/tundra.json', `${JSON.stringify(world, null, 1)}\n`);
console.log(`tundra: ${resources.length} resources, ${textures.length} location textures, ${stampKeys.length} stamp keys`);
