/**
 * The draw list: everything one run draws, between planning and execution.
 *
 * The planner (recipe, regions, layout, sources, corners, fans, support, stamp selection, location draws, outer
 * parameters) emits one draw list per run; every executor (CPU float32 kernels, CPU float64, WebGPU) consumes it.
 * "What is drawn" is defined here once; "how it is executed" lives in each executor.
 *
 * This file imports no values (only the stage names' type from the conventions, erased at build time), so any executor
 * (including src/gpu/, which must not import CPU stage code or the conventions' values) can use it.
 * Serialisation and validation: src/drawlist/serial.ts (also free of CPU stage code). Emission: src/plan/emit.ts.
 *
 * Units and conventions (every field below uses them unless it says otherwise):
 *  - lengths and positions in world metres; heights in metres; angles in radians;
 *  - world → pixel: texel-centre grid, pixel (i, j) samples world (xmin + (i + 0.5)·px, ymin + (j + 0.5)·px) with
 *    px = size / n; row 0 at ymin (row j advances towards +Y), row-major storage, index j·n + i;
 *  - affine matrices are 6 numbers [a, b, c, d, e, f] acting on column vectors: x' = a·x + c·y + e,
 *    y' = b·x + d·y + f (the SVG/Canvas layout);
 *  - every number is a finite IEEE double; −0 is written as 0 (the emitter canonicalises it, so a parse gives back
 *    exactly the emitted object); executors round to their own precision where their rules say so.
 *
 * Existing-terrain queries (support envelopes, stamp footprint envelopes and centre samples, support targets) are
 * part of a draw's definition, not its result: the list states the footprint, the reduction and the formula, and
 * each executor evaluates them on its own field at the point in the draw order where the draw sits.
 *
 * Stage order (the names of the stage files every executor writes; declared once as STAGES in src/conventions):
 *   raster-layer0  layer 0 triangles ADDed into a zeroed field
 *   raster         + layer 100 triangles (ADD)
 *   base           smoothing chain over the raster
 *   after-support  support targets evaluated on the base field, then every support shape applied in order
 *   after-stamps   natural stamp draws in order
 *   after-locations location texture draws in order
 *   pre-encode     outer blend
 *   final          UNORM16 encode over the encoding range
 */

import type { StageName } from '../conventions/index.js';

export const DRAWLIST_FORMAT = 'heightbench-drawlist';
export const DRAWLIST_VERSION = 1;

/** A stage name: the conventions' STAGES (a type-only import — nothing of the conventions reaches an executor's bundle). */
export type DrawListStage = StageName;

/** Affine [a, b, c, d, e, f]: x' = a·x + c·y + e, y' = b·x + d·y + f. */
export type Affine6 = [number, number, number, number, number, number];

export interface DrawList {
  format: typeof DRAWLIST_FORMAT;
  version: typeof DRAWLIST_VERSION;
  /** Who emitted the list (heightbench name and version). */
  producer: { name: string; version: string };
  /** The request the list was planned from (id, world name, seed); the planner's other inputs are in the sections. */
  request: { id: string; world: string; seed: number };
  grid: DrawListGrid;
  /** Stage names in execution order (the conventions' STAGES). */
  stages: DrawListStage[];
  raster: RasterSection;
  smoothing: SmoothingSection;
  support: SupportSection;
  stamps: AssetDrawSection<StampProgram>;
  locations: AssetDrawSection<LocationProgram>;
  outer: OuterSection;
  encoding: EncodingSection;
  /** Asset table: every asset a draw names, sorted by id. */
  assets: DrawListAsset[];
}

export interface DrawListGrid {
  /** World X of the grid's left edge, metres. */
  xmin: number;
  /** World Y of the grid's lower edge, metres. */
  ymin: number;
  /** Extent along X and along Y (square), metres. */
  size: number;
  /** Pixels per axis (N). */
  n: number;
  convention: 'texel-centre';
  rowDirection: 'row0-at-ymin';
}

/**
 * Layers 0 and 100 (article: "Rasterizing Height Geometry into a Floating-Point Field").
 * Rules (for every executor): a float target of n × n zeros; layer 0's triangles, then layer 100's, each in list
 * order, ADD their interpolated height h = λ0·h0 + λ1·h1 + λ2·h2 at every pixel centre they cover. Raster position of
 * world (x, y): ((x − xmin)·n/size, (y − ymin)·n/size); vertices snap to `subpixelBits` fraction bits (round to
 * nearest); a pixel centre exactly on an edge belongs to the triangle for which that edge is a top or left edge
 * (rows as screen y), independent of winding.
 */
export interface RasterSection {
  /** 8 as emitted ([G] Direct3D's 16.8); a CPU run that mimics a coarser device writes its value here (0…8). */
  subpixelBits: number;
  fillRule: 'top-left';
  blend: 'add';
  layers: [TriangleLayer, TriangleLayer];
}

export interface TriangleLayer {
  /** 0 (region fans) or 100 (broad relief). */
  layer: 0 | 100;
  count: number;
  /** Per triangle, 3 vertices × (x, y, h): 9·count numbers, draw order. Vertex 0 is the fan centre. */
  xyh: Float64Array;
  /** Per triangle, the cell (region polygon) its fan belongs to (provenance for attribution; not needed to draw). */
  cell: Int32Array;
}

/**
 * The multilevel smoothing chain (article: "Multilevel Smoothing Connects Different Spatial Scales" onwards).
 * Separable filter: X pass then Y pass on the X result; output texel i of a pass samples the input bilinearly (clamp
 * addressing) at main-axis texel coordinate i + offsets[t] and cross-axis +0.5 texel, weighted by weights[t] (not
 * renormalised). Downsampling is centre-aligned halving (destination i reads source 2i + 0.5). `levels` filtered
 * levels below N follow `order` (N/2, N/4, N/8 for levels = 3; the N² raster is filtered first when
 * filterFullResolution); the base is `combine` evaluated at every full-resolution pixel centre uv with
 * h2 = Sample(level N/4, uv), h3 = Sample(level N/8, uv) (bilinear, clamp).
 * Copied from the CPU chain's constants when the list is emitted; an executor that implements another rule refuses
 * the list (the CPU executor checks every field).
 */
export interface SmoothingSection {
  offsets: number[];
  weights: number[];
  /** Number of filtered levels below the full resolution. */
  levels: number;
  /** Whether the full-resolution raster is filtered before the first downsample. */
  filterFullResolution: boolean;
  order: string;
  /** The final blend, as an expression in h2 (finer of the two sampled levels) and h3 (coarser). */
  combine: '(h2 - h3) * 0.5 + h3';
  sampler: 'linear-clamp';
}

/**
 * Location support (article: "Location Support Establishes Targets for Local Ground" to "Transition Width and Height
 * Strength Are Different Parameters"). Two phases, both on the field as it stands after `base`:
 *  1. Targets, for every location from the base field (no shape applied yet):
 *     envelope: over every shape of the location, the pixels with centre in the square shape.x ± boundRadius,
 *       shape.y ± boundRadius (pixel range: lo = max(0, ceil((a − origin)/px − 0.5)), hi = min(n − 1,
 *       floor((b − origin)/px − 0.5))) whose centre lies inside the shape (signed distance ≤ 0): hmin = min, hmax = max
 *       (exact reductions, order-free). No such pixel: hmin = hmax = field at the pixel floor((x0 − xmin)/px),
 *       floor((y0 − ymin)/px) (clamped) of the first shape's centre (x0, y0).
 *     reference = (hmin + hmax) / 2 ('mid-envelope');
 *     weighted = (reference + Σ w·reference_child) / (1 + Σ w) over `children` in list order (sum left to right);
 *     target = weighted + offset; when floor ≠ null and target < floor: target = floor (floorApplied).
 *     Per shape: R = boundRadius; t = min(ln(1 + a·R), 1); relief = min((max(hmax, target) − hmin)/b, 1);
 *       k = (1 − t) + t·relief; width = transitionWidth·k.
 *  2. Apply, locations in list order, shapes in list order: every pixel with centre in the square
 *     shape.x ± (boundRadius + width), shape.y ± (boundRadius + width) (same pixel-range rule); d = signed distance of
 *     the centre to the shape; w = 1 for d ≤ 0, 1 − s²(3 − 2s) with s = d/width for 0 < d < width, else skip;
 *     h ← h + (strength·w)·(T − h), T = target (float32 executors round each product and sum, in that order).
 * Signed distance: circle |P − c| − radius; rectangle (centre c, half sizes, angle θ): local l = R(−θ)(P − c),
 *   q = |l| − halfSize, d = |max(q, 0)| + min(max(qx, qy), 0).
 */
export interface SupportSection {
  /** Extent coefficients a (per metre of radius) and b (metres of relief). */
  a: number;
  b: number;
  reference: 'mid-envelope';
  locations: SupportLocation[];
}

export interface SupportLocation {
  /** Location instance index (also the index of its location texture draw's support target). */
  location: number;
  resource: string;
  /** Placement stage (mission, extraction, …), the source of `offset`. */
  stage: string;
  x: number;
  y: number;
  shapes: SupportShape[];
  /** Participating children (instance order) with their positive parent weights. */
  children: { location: number; weight: number }[];
  /** Configured offset added after weighting, metres. */
  offset: number;
  /** Region height floor at the location, metres; null when the region has none. */
  floor: number | null;
}

export interface SupportShape {
  kind: 'circle' | 'rect';
  /** Centre in world metres (local offsets already applied). */
  x: number;
  y: number;
  /** Circle radius, metres (rectangles: as configured, unused by the distance). */
  radius: number;
  /** Rectangle half sizes along its own axes, metres. */
  halfSize: [number, number];
  /** Rectangle orientation in the world, radians. */
  angle: number;
  /** Radius of the query/extent: the circle radius, or the rectangle's half diagonal. */
  boundRadius: number;
  /** Unscaled transition width, metres (multiplied by k at evaluation). */
  transitionWidth: number;
  /** Height strength, already combined (shape × location wrapper × recipe, clamped to 1). */
  strength: number;
}

/**
 * Textured height draws (natural stamps, location textures): article "Natural Stamps Turn Configured Resources into
 * Local Landforms", "Mapping World Coordinates to Local Textures", "Why Mip Selection Changes Height".
 * For every pixel with centre P = (x, y) inside `bounds` (pixel-range rule of the support section):
 *   local = worldToLocal·P (metres in the asset frame); u = local.x / worldSize + 0.5, v = local.y / worldSize + 0.5;
 *   pixels with u or v outside [0, 1) are not written (the asset square is the coverage);
 *   s = trilinear sample of the asset's stored mip chain at (u, v) and level of detail `lod`: l = clamp(lod, 0,
 *   levels − 1), levels ⌊l⌋ and min(⌊l⌋ + 1, levels − 1) weighted (1 − frac, frac), each bilinear with texel
 *   coordinate u·size − 0.5 (row 0 at v = 0) and clamp addressing, values decoded to metres;
 *   h ← program(h, s) (see StampProgram / LocationProgram); `blend` names the blend unit operation that can do it.
 * The draws of one section run in list order, each on the field left by the previous one.
 */
export interface AssetDrawSection<P> {
  draws: AssetDraw<P>[];
}

export interface AssetDraw<P> {
  /** Asset id (a key of the asset table). */
  asset: string;
  /** Asset-local metres → world metres (the composed instance and asset-local transforms). */
  localToWorld: Affine6;
  /** World → asset-local metres: the inverse of localToWorld, as every executor must use it. */
  worldToLocal: Affine6;
  /** World axis-aligned box of the transformed asset square [x0, x1, y0, y1]: the pixel loop and footprint. */
  bounds: [number, number, number, number];
  /** World position of the asset's local origin (localToWorld·(0, 0)): the footprint's centre sample. */
  centre: [number, number];
  /** Explicit level of detail log2(max(size / (worldSize·scale) · px, 1e−12)), scale = √|det localToWorld|. */
  lod: number;
  program: P;
  /** Where the draw came from (attribution; not needed to draw). */
  source: { kind: 'stamp'; instance: number; info: string } | { kind: 'location'; instance: number; resource: string };
}

/**
 * Existing-terrain operand of a stamp program, evaluated on the field just before this draw over the draw's footprint
 * (every pixel with centre in `bounds`, pixel-range rule): 'footprint-min' / 'footprint-max' are the lower / upper
 * envelopes, 'footprint-centre' the field at pixel (floor((cx − xmin)/px), floor((cy − ymin)/px)) clamped to the
 * grid, (cx, cy) = `centre`. An empty footprint gives the centre value for all three.
 * c = query + plus (float32 executors: fround(fround(query) + fround(plus))); no `plus` means c = query.
 */
export interface FootprintOperand {
  query: 'footprint-min' | 'footprint-max' | 'footprint-centre';
  plus?: number;
}

/**
 * HeightProgram + Blend of a natural stamp draw (s = texture sample in metres, h = current height):
 *   add   h + k·s                         blend 'add'
 *   max   max(h, c + k·s)                 blend 'max'
 *   min   min(h, c + k·s)                 blend 'min'
 *   lerp  h + a·(s/sMax)·(c + k·s − h)    blend 'read-modify-write'
 * Float32 order: add R(h + R(k·s)); max/min R(c + R(k·s)); lerp R(h + R(R(a·R(s/sMax))·R(R(c + R(k·s)) − h))).
 */
export type StampProgram =
  | { mode: 'add'; blend: 'add'; k: number }
  | { mode: 'max'; blend: 'max'; k: number; c: FootprintOperand }
  | { mode: 'min'; blend: 'min'; k: number; c: FootprintOperand }
  | { mode: 'lerp'; blend: 'read-modify-write'; k: number; a: number; sMax: number; c: FootprintOperand };

/**
 * A location texture draw: h ← h + window(u, v)·(T + s − h), T = the support target of `supportTarget` (computed by
 * the support stage of the same executor; float32 executors use fround(T)); window(u, v) = e(u)·e(v) with
 * e(t) = smoothstep of min(t, 1 − t)/w clamped to [0, 1] (the asset border fade), w named by `window` ('border-w').
 * Float32 order: R(h + R(R(window)·R(R(T + s) − h))).
 */
export interface LocationProgram {
  mode: 'location';
  blend: 'read-modify-write';
  supportTarget: number;
  /** 'border-' + the fade width as a fraction of the asset side (conventions draws.borderWindow). */
  window: `border-${number}`;
}

/**
 * Outer blend (article: "Radial Blending Connects the Interior to the Surroundings"): r = |P − centre|,
 * t = clamp((r − inner)/(outer − inner), 0, 1), α = t²(3 − 2t), H = (1 − α)·H + α·H_outer.
 * H_outer is a constant (the outer draw is not eligible for the request: the target keeps its initial value) or the
 * 'raster' stage field (both layers before smoothing) at the same pixel.
 */
export interface OuterSection {
  centre: [number, number];
  inner: number;
  outer: number;
  input: { kind: 'constant'; height: number } | { kind: 'raster' };
}

/**
 * Final encode: u = clamp((H − min)·(1/(max − min)), 0, 1) then UNORM16(u). heightbench's CPU rule is Direct3D's
 * float → UNORM16 (×65535, +0.5, truncate, each in float32; NaN → 0); an executor names the rule it applies.
 */
export interface EncodingSection {
  min: number;
  max: number;
  rule: 'd3d-unorm16';
}

/**
 * One static height asset: a KTX2 container (VK_FORMAT_R16_UNORM, full mip chain, one level per mip, level k + 1 of
 * size max(1, ⌊n/2⌋)), decoded to metres as code·metresPerCode + offsetMetres.
 */
export interface DrawListAsset {
  id: string;
  kind: 'stamp' | 'location';
  /** Path relative to the asset folder (heightbench's <root>/assets/). */
  file: string;
  /** SHA-256 of the KTX2 file's bytes (hex). */
  sha256: string;
  /** Level-0 size in texels (square). */
  size: number;
  /** Level sizes, level 0 first. */
  levelSizes: number[];
  /** World extent of the asset square before the draw's transform, metres. */
  worldSize: number;
  decode: { metresPerCode: number; offsetMetres: number };
  /** The KTX2 bytes, when the list was emitted with embedded assets (self-contained, e.g. for the browser page). */
  embedded?: Uint8Array;
}

/** The triangles of a layer as the planner builds them (plan/fans.ts) and the CPU rasterizer takes them. */
/** Flat triangle list: per triangle 3 vertices × (x, y, h), in draw order. */
export interface TriangleList {
  xyh: Float64Array;
  count: number;
  /** Index of the polygon each triangle came from. */
  polygon: Int32Array;
}
