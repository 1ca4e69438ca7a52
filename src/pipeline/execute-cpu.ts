/**
 * The CPU executor of a draw list (issue 16, item 1): f32 (the float32 kernels, GPU rounding) or f64 (the same code
 * unrounded). The draw list (src/drawlist/types.ts) says what is drawn; this file only says how, by handing each
 * section to the stage code that implements its rules.
 *
 * Inputs: a DrawList, the precision, the stages to keep, the loaded assets (or the asset folder).
 * Outputs: the kept stage fields (raster-layer0, raster, base, after-support, after-stamps, after-locations,
 * pre-encode), the final R16 codes, the support targets it evaluated, per-stage counts and timings.
 * Stage by stage: raster.ts (both layers, ADD), smoothing.ts (the chain; the list's constants must be the ones it
 * implements), support.ts (domain envelopes, parent–child reference, extent; apply), draw.ts (footprint queries and
 * textured draws, placed by the list's inverse transform, bounds and LOD), outer.ts, core/encoding.ts.
 * [G] Layer triangles snap to the list's `raster.subpixelBits` (8 = Direct3D's 16.8 unless the list says otherwise; a
 *     run that mimics a device that snaps coarser, e.g. SwiftShader's 4 bits, writes that into the list it executes).
 * [R] Fields are allocated exactly as runPipeline always did (an arena raster for f32, the base composed over the raster
 *     when nothing reads the raster later), so the f32 run uses the same SIMD kernels and gives the same bytes.
 */
import { join } from 'node:path';
import { readFileSync } from 'node:fs';
import { MismatchError, FormatError } from '../errors.js';
import { encodeFieldR16, type EncodeCounts } from '../core/encoding.js';
import { readAssetKtx2, type HeightAsset } from './assets.js';
import { drawPlaced, footprintQueryAt, type DrawGrid, type DrawProgram, type PlacedDraw } from './draw.js';
import { newField, type Field, type Precision } from './precision.js';
import { ownsEdge, rasterizeTriangles, snapFixed, SUBPIXEL, type RasterStats } from './raster.js';
import { SMOOTHING_CHAIN, SMOOTHING_TAPS, smoothingChain, type SmoothingAblation } from './smoothing.js';
import { applySupport, domainEnvelope, parentChildReference, supportExtent, type SupportTarget } from './support.js';
import { applyOuterBlend } from './outer.js';
import { newRasterField } from './wasm/raster-kernel.js';
import { encodeInArena } from './wasm/encode-kernel.js';
import { sha256Hex } from '../io/sidecar.js';
import type { AssetDraw, DrawList, FootprintOperand, TriangleLayer } from '../drawlist/types.js';

export interface CpuExecuteOptions {
  precision: Precision;
  /** Field stages to keep (copies are made only for these; pre-encode is always returned). */
  keep?: readonly string[];
  ablation?: SmoothingAblation;
  /** Loaded assets keyed by id; without them, each is read from the list (embedded bytes) or from `assetsDir`. */
  assets?: ReadonlyMap<string, HeightAsset>;
  assetsDir?: string;
  /** Called after each stage with its name and wall time (progress). */
  onStage?: (stage: string, ms: number) => void;
  /** [G] GPU-mimic switch: stamp and location-texture quads cover what a rasterizer covers — the pixel centres inside
   *  the quad's corners snapped to the list's `raster.subpixelBits`, top-left rule — instead of every pixel whose
   *  centre maps inside the asset square ('exact', the default). */
  quadCoverage?: QuadCoverage;
}

export type QuadCoverage = 'exact' | 'snapped';
export const QUAD_COVERAGE_CHOICES: readonly QuadCoverage[] = ['exact', 'snapped'];

/**
 * Coverage of an asset quad as a rasterizer decides it: the square's corners localToWorld·(±W/2, ±W/2) mapped to raster
 * coordinates (float64) and snapped to 2^−bits pixel (snapFixed), drawn as the triangles (c00, c10, c01) and
 * (c10, c11, c01) — the GPU executor's vertex order — with the top-left rule, so the diagonal is covered once.
 * [R] The GPU forms the corners in float32 clip space first; this mimic snaps the float64 position (a tie on the
 *     snapping grid may round the other way).
 */
export function snappedQuadCoverage(g: DrawGrid, worldSize: number, m: readonly number[], bits: number): (i: number, j: number) => boolean {
  const h = worldSize / 2;
  const scale = g.n / g.size;
  const corner = (lx: number, ly: number): [number, number] => [
    snapFixed((m[0] * lx + m[2] * ly + m[4] - g.xmin) * scale, bits),
    snapFixed((m[1] * lx + m[3] * ly + m[5] - g.ymin) * scale, bits),
  ];
  const c00 = corner(-h, -h);
  const c10 = corner(h, -h);
  const c01 = corner(-h, h);
  const c11 = corner(h, h);
  const tri = (p: [number, number][]) => {
    let area = (p[1][0] - p[0][0]) * (p[2][1] - p[0][1]) - (p[1][1] - p[0][1]) * (p[2][0] - p[0][0]);
    if (area < 0) {
      p = [p[0], p[2], p[1]];
      area = -area;
    }
    // Edge k runs a → b with a = p[k + 1], b = p[k + 2] (raster.ts's order); owned edges accept w = 0.
    const edges = [0, 1, 2].map((k) => {
      const a = p[(k + 1) % 3];
      const b = p[(k + 2) % 3];
      return { ax: a[0], ay: a[1], dx: b[0] - a[0], dy: b[1] - a[1], owned: ownsEdge(b[0] - a[0], b[1] - a[1]) };
    });
    return { empty: area === 0, edges };
  };
  const tris = [tri([c00, c10, c01]), tri([c10, c11, c01])].filter((t) => !t.empty);
  return (i: number, j: number) => {
    const px = i * SUBPIXEL + SUBPIXEL / 2;
    const py = j * SUBPIXEL + SUBPIXEL / 2;
    for (const t of tris) {
      let inside = true;
      for (const e of t.edges) {
        const w = e.dx * (py - e.ay) - e.dy * (px - e.ax);
        if (w < 0 || (w === 0 && !e.owned)) {
          inside = false;
          break;
        }
      }
      if (inside) return true;
    }
    return false;
  };
}

export interface CpuExecution {
  fields: Map<string, Field>;
  codes: Uint16Array;
  support: SupportTarget[];
  stats: {
    layer0: RasterStats;
    layer100: RasterStats;
    supportWrites: number;
    stampPixels: number;
    stampLodRange: [number, number];
    locationDraws: number;
    locationPixels: number;
    locationTextures: number;
    outerBlendedPixels: number;
    outerOnlyPixels: number;
    encode: EncodeCounts;
  };
  timingsMs: Record<string, number>;
}

/** Refuses a list whose smoothing section is not the chain smoothing.ts implements (field by field). */
export function checkSmoothingSection(dl: DrawList): void {
  const s = dl.smoothing;
  const same = (a: readonly number[], b: readonly number[]) => a.length === b.length && a.every((x, i) => x === b[i]);
  // filterFullResolution may be either: false runs the chain with the ablation unfilteredRaster.
  const want = { offsets: SMOOTHING_TAPS.offsets, weights: SMOOTHING_TAPS.weights, levels: SMOOTHING_CHAIN.levels, order: SMOOTHING_CHAIN.order };
  const bad =
    !same(s.offsets, want.offsets) ? ['offsets', s.offsets, want.offsets]
    : !same(s.weights, want.weights) ? ['weights', s.weights, want.weights]
    : s.levels !== want.levels ? ['levels', s.levels, want.levels]
    : s.order !== want.order ? ['order', s.order, want.order]
    : null;
  if (bad) throw new MismatchError(`draw list smoothing.${bad[0]}: this CPU executor implements ${JSON.stringify(bad[2])}, the list asks for ${JSON.stringify(bad[1])}`);
}

/** The assets a list names: given, embedded in the list, or read from the asset folder (SHA-256 checked). */
export function resolveAssets(dl: DrawList, given?: ReadonlyMap<string, HeightAsset>, dir?: string): Map<string, HeightAsset> {
  const out = new Map<string, HeightAsset>();
  for (const a of dl.assets) {
    let h = given?.get(a.id);
    if (!h) {
      let bytes = a.embedded;
      if (!bytes) {
        if (!dir) throw new FormatError(`draw list asset ${a.id}: not embedded and no asset folder given`);
        bytes = new Uint8Array(readFileSync(join(dir, a.file)));
      }
      const sha = sha256Hex(bytes);
      if (sha !== a.sha256) throw new FormatError(`draw list asset ${a.id} (${a.file}): SHA-256 ${sha} does not match the list's ${a.sha256}`);
      h = readAssetKtx2(bytes, a.file);
    }
    const levels = h.sizes.join(',');
    if (h.size !== a.size || levels !== a.levelSizes.join(',') || h.worldSize !== a.worldSize || h.decode.metresPerCode !== a.decode.metresPerCode || h.decode.offsetMetres !== a.decode.offsetMetres) {
      throw new MismatchError(`draw list asset ${a.id}: the list says size ${a.size}, levels [${a.levelSizes.join(',')}], worldSize ${a.worldSize}, decode ${JSON.stringify(a.decode)}; the loaded asset has size ${h.size}, levels [${levels}], worldSize ${h.worldSize}, decode ${JSON.stringify(h.decode)}`);
    }
    out.set(a.id, h);
  }
  return out;
}

const triangles = (l: TriangleLayer) => ({ xyh: l.xyh, count: l.count, polygon: l.cell });

function placement<P>(d: AssetDraw<P>, cover?: (i: number, j: number) => boolean): PlacedDraw {
  return { inv: d.worldToLocal, bounds: { x0: d.bounds[0], x1: d.bounds[1], y0: d.bounds[2], y1: d.bounds[3] }, lod: d.lod, ...(cover ? { cover } : {}) };
}

export function executeDrawListCpu(dl: DrawList, opts: CpuExecuteOptions): CpuExecution {
  checkSmoothingSection(dl);
  const precision = opts.precision;
  const R = precision === 'f32' ? Math.fround : (x: number) => x;
  const n = dl.grid.n;
  const g: DrawGrid = { xmin: dl.grid.xmin, ymin: dl.grid.ymin, size: dl.grid.size, n };
  if (dl.outer.centre[0] !== g.xmin + g.size / 2 || dl.outer.centre[1] !== g.ymin + g.size / 2) {
    throw new MismatchError(`draw list outer.centre: this CPU executor blends around the grid centre (${g.xmin + g.size / 2}, ${g.ymin + g.size / 2}), the list has (${dl.outer.centre.join(', ')})`);
  }
  const assets = resolveAssets(dl, opts.assets, opts.assetsDir);
  const keep = new Set(opts.keep ?? []);
  const quadCoverage = opts.quadCoverage ?? 'exact';
  if (!QUAD_COVERAGE_CHOICES.includes(quadCoverage)) throw new MismatchError(`quadCoverage: expected one of ${QUAD_COVERAGE_CHOICES.join(', ')}, got ${JSON.stringify(quadCoverage)}`);
  const coverOf = <P>(d: AssetDraw<P>) => (quadCoverage === 'snapped' ? snappedQuadCoverage(g, assets.get(d.asset)!.worldSize, d.localToWorld, dl.raster.subpixelBits) : undefined);
  const fields = new Map<string, Field>();
  const timings: Record<string, number> = {};
  // Timing keys are the ones runPipeline's manifest always used (base, base.raster, base.smoothing, support,
  // support.apply, stamps.draw, locations, outer, encode); onStage hears the stage names.
  const stage = <T>(name: string, key: string, f: () => T): T => {
    const t0 = performance.now();
    const r = f();
    const ms = performance.now() - t0;
    timings[key] = (timings[key] ?? 0) + ms;
    opts.onStage?.(name, ms);
    return r;
  };

  // Layers 0 and 100 (ADD), then the smoothing chain.
  const rasterInput = dl.outer.input.kind === 'raster';
  const keepRaster = keep.has('raster') || rasterInput;
  // Without keepRaster, the arena composes the base over the raster (one 64 MiB field less at 4096²).
  const raster = precision === 'f32' ? newRasterField(n, { baseOverRaster: !keepRaster }) : newField(precision, n * n);
  const layer0 = stage('raster-layer0', 'base.raster', () => rasterizeTriangles(triangles(dl.raster.layers[0]), g, raster, precision, undefined, dl.raster.subpixelBits));
  if (keep.has('raster-layer0')) fields.set('raster-layer0', raster.slice());
  const layer100 = stage('raster', 'base.raster', () => rasterizeTriangles(triangles(dl.raster.layers[1]), g, raster, precision, undefined, dl.raster.subpixelBits));
  const smoothed = stage('base', 'base.smoothing', () => smoothingChain(raster, n, precision, undefined, { ...opts.ablation, ...(dl.smoothing.filterFullResolution ? {} : { unfilteredRaster: true }) }));
  for (const [k, v] of Object.entries(smoothed.timings)) timings[`base.${k}`] = v;
  timings.base = timings['base.raster'] + timings['base.smoothing'];
  if (keep.has('raster')) fields.set('raster', raster);
  const field = smoothed.base; // transformed in place from here on
  if (keep.has('base')) fields.set('base', field.slice());

  // Support: every target from the base field first, then every shape in order.
  const support = stage('support.targets', 'support', (): SupportTarget[] => {
    const locs = dl.support.locations;
    const env = locs.map((l) => domainEnvelope(field, g, l.shapes));
    const refs = env.map((e) => (e.hmin + e.hmax) / 2);
    return locs.map((l, idx) => {
      const weighted = parentChildReference(refs[idx], l.children.map((c) => ({ height: refs[c.location], weight: c.weight })));
      let target = weighted + l.offset;
      const floorApplied = l.floor !== null && target < l.floor;
      if (floorApplied) target = l.floor!;
      const shapes = l.shapes.map((s) => {
        const e = supportExtent(s.boundRadius, env[idx].hmin, env[idx].hmax, target, dl.support.a, dl.support.b);
        return { ...e, width: s.transitionWidth * e.k, strength: s.strength };
      });
      return { location: idx, hmin: env[idx].hmin, hmax: env[idx].hmax, reference: refs[idx], weighted, target, children: l.children.map((c) => c.location), floorApplied, shapes };
    });
  });
  const supportWrites = stage('after-support', 'support.apply', () => applySupport(field, g, dl.support.locations.map((l) => ({ supports: l.shapes })), support, precision));
  if (keep.has('after-support')) fields.set('after-support', field.slice());

  // Natural stamps, in order; existing-terrain operands from the field as it stands before each draw.
  const operand = (c: FootprintOperand, q: { hmin: number; hmax: number; centre: number }) => {
    const v = c.query === 'footprint-min' ? q.hmin : c.query === 'footprint-max' ? q.hmax : q.centre;
    return c.plus === undefined ? v : R(R(v) + R(c.plus));
  };
  const stamps = stage('after-stamps', 'stamps.draw', () => {
    let pixels = 0;
    let lodLo = Infinity;
    let lodHi = -Infinity;
    for (const d of dl.stamps.draws) {
      const asset = assets.get(d.asset)!;
      const p = d.program;
      const place = placement(d, coverOf(d));
      let program: DrawProgram;
      if (p.mode === 'add') program = { mode: 'add', k: p.k };
      else {
        const q = footprintQueryAt(field, g, place.bounds, d.centre);
        program = p.mode === 'lerp' ? { mode: 'lerp', k: p.k, c: operand(p.c, q), a: p.a, sMax: p.sMax } : { mode: p.mode, k: p.k, c: operand(p.c, q) };
      }
      const r = drawPlaced(field, g, asset, place, R, program);
      pixels += r.pixels;
      lodLo = Math.min(lodLo, r.lod);
      lodHi = Math.max(lodHi, r.lod);
    }
    return { pixels, lodRange: [lodLo, lodHi] as [number, number] };
  });
  if (keep.has('after-stamps')) fields.set('after-stamps', field.slice());

  // Location textures, in order, on their locations' support targets.
  const locations = stage('after-locations', 'locations', () => {
    let pixels = 0;
    const used = new Set<string>();
    for (const d of dl.locations.draws) {
      used.add(d.asset);
      const T = R(support[d.program.supportTarget].target);
      pixels += drawPlaced(field, g, assets.get(d.asset)!, placement(d, coverOf(d)), R, { mode: 'location', c: T }).pixels;
    }
    return { draws: dl.locations.draws.length, pixels, textures: used.size };
  });
  if (keep.has('after-locations')) fields.set('after-locations', field.slice());

  const outerInput: Field | number = dl.outer.input.kind === 'raster' ? raster : dl.outer.input.height;
  const outer = stage('pre-encode', 'outer', () => applyOuterBlend(field, g, { inner: dl.outer.inner, outer: dl.outer.outer }, outerInput, precision));
  fields.set('pre-encode', field);

  // A base field in an arena is encoded there by the SIMD kernel (codes returned as a view); otherwise in JavaScript.
  const range = { min: dl.encoding.min, max: dl.encoding.max };
  const { codes, counts } = stage('final', 'encode', (): { codes: Uint16Array; counts: EncodeCounts } => {
    const simd = field instanceof Float32Array ? encodeInArena(field, range) : null;
    if (simd) return simd;
    const out = new Uint16Array(n * n);
    return { codes: out, counts: encodeFieldR16(field, out, range) };
  });

  return {
    fields,
    codes,
    support,
    stats: {
      layer0,
      layer100,
      supportWrites,
      stampPixels: stamps.pixels,
      stampLodRange: stamps.lodRange,
      locationDraws: locations.draws,
      locationPixels: locations.pixels,
      locationTextures: locations.textures,
      outerBlendedPixels: outer.blendedPixels,
      outerOnlyPixels: outer.fullyOuter,
      encode: counts,
    },
    timingsMs: timings,
  };
}
