/**
 * The CPU executor of a draw list: f32 (the float32 kernels, GPU rounding) or f64 (the same code
 * unrounded). The draw list (src/drawlist/types.ts) says what is drawn; this file only says how, by handing each
 * section to the stage code that implements its rules.
 *
 * Inputs: a DrawList and the executor options: the precision, the stages to keep, the run's resolved conventions, the
 * loaded assets (those the list does not embed: src/pipeline/inputs.ts loads them; no file I/O here).
 * Outputs: the kept stage fields (raster-layer0, raster, base, after-support, after-stamps, after-locations,
 * pre-encode), the final R16 codes, the support targets it evaluated, per-stage counts and timings.
 * Stage by stage: raster.ts (both layers, ADD), smoothing.ts (the chain; the list's constants must be the ones it
 * implements), support.ts (domain envelopes, parent–child reference, extent; apply), draw.ts (footprint queries and
 * textured draws, placed by the list's inverse transform, bounds and LOD), outer.ts, core/encoding.ts.
 * [R] The executor is chosen explicitly (src/cpu/context.ts): 'simd' (float32 on the WebAssembly kernels, the
 *     fields in one arena, the base composed over the raster when nothing reads the raster later), 'js-f32' (the same
 *     float32 steps in JavaScript) or 'f64'. The default for f32 is 'simd' where the kernels can run.
 * Conventions (src/conventions): the run's (resolved once by the caller), with the list's filterFullResolution
 * (the list records what is drawn); grid.pixelCentre (every stage that maps pixels to world), draws.lod ('level0'
 * drops the mip chain), grid.rowDirection (row0-at-ymax stores every output field and the codes with row 0 at ymax),
 * encoding.rounding, and the smoothing conventions the list cannot express (combine, alignment, cross-axis offset,
 * addressing, sub-texel precision).
 * [G] Layer triangles snap to the list's `raster.subpixelBits` (8 = Direct3D's 16.8 unless the list says otherwise; a
 *     run that mimics a device that snaps coarser, e.g. SwiftShader's 4 bits, writes that into the list it executes).
 */
import { MismatchError, FormatError } from '../errors.js';
import { encodeFieldR16, type EncodeCounts } from '../core/encoding.js';
import { DEFAULT_CONVENTIONS, resolveConventions, type Conventions } from '../conventions/index.js';
import { precisionOf, runContext, type Executor, type StageContext } from './context.js';
import { readAssetKtx2, type HeightAsset } from '../assets/assets.js';
import { drawPlaced, footprintBox, footprintQueryAt, kernelDrawOf, type DrawProgram } from './draw.js';
import { drawQueueInArena, type QueuedDraw } from './wasm/draw-queue.js';
import { newField, sharedCopy, type Field, type Precision } from '../core/precision.js';
import { ownsEdge, rasterizeTriangles, SUBPIXEL, type RasterStats } from './raster.js';
import { smoothingChain } from './smoothing.js';
import { applySupport, supportTargetsFor, type SupportTarget } from './support.js';
import { outerBlend } from './outer.js';
import { encodeInArena, pngScanlinesInArena } from './wasm/encode-kernel.js';
import { applySupportInArena } from './wasm/support-rows.js';
import { inArena, pngRowsView } from './wasm/arena.js';
import { sha256Hex } from '../io/sidecar.js';
import { transformPoint, type Affine } from '../core/transforms.js';
import type { AssetDraw, DrawList, FootprintOperand, TriangleLayer } from '../drawlist/types.js';
import { type DrawGrid, type PlacedDraw } from '../drawlist/placement.js';

export interface CpuExecuteOptions {
  precision: Precision;
  /** The executor (default: 'f64' for f64; 'simd' for f32 where the kernels can run, else 'js-f32'). */
  executor?: Executor;
  /** The run's resolved conventions (default: the declaration); the list's smoothing section must agree with them. */
  conventions?: Conventions;
  /** Field stages to keep (copies are made only for these; pre-encode is always returned). */
  keep?: readonly string[];
  /** Loaded assets keyed by id; an asset not given is decoded from the list's embedded bytes. */
  assets?: ReadonlyMap<string, HeightAsset>;
  /** Called after each stage with its name and wall time (progress). */
  onStage?: (stage: string, ms: number) => void;
  /**
   * Called with each kept field stage as soon as it is final (the array is the one returned in `fields`; it is not
   * changed afterwards): a run writes it out while the later stages are computed.
   */
  onField?: (stage: string, field: Field) => void;
  /** [G] GPU-mimic switch: stamp and location-texture quads cover what the GPU executor's rasterizer covers — the
   *  pixel centres inside the quad's corners taken through float32 clip space and the viewport transform, snapped to
   *  the list's `raster.subpixelBits`, top-left rule (snappedQuadCoverage) — instead of every pixel whose centre maps
   *  inside the asset square ('exact', the default). */
  quadCoverage?: QuadCoverage;
}

export type QuadCoverage = 'exact' | 'snapped';
export const QUAD_COVERAGE_CHOICES: readonly QuadCoverage[] = ['exact', 'snapped'];

/** Rounds to the nearest integer, ties to even (the x86 cvtps2dq SwiftShader's RoundInt compiles to). */
function roundHalfEven(v: number): number {
  const r = Math.round(v);
  return r - v === 0.5 && r % 2 !== 0 ? r - 1 : r;
}

/**
 * [G] A quad corner's window position on the GPU executor's path, in the raster's 1/256-pixel units (raster.ts
 * SUBPIXEL; pixel (i, j)'s centre at 256·i + 128, 256·j + 128), snapped to 2^−bits pixel. Each step is the GPU's:
 *   1. clip = (2·(x − xmin)/size − 1, 1 − 2·(y − ymin)/size) in float64 on the host (src/gpu/asset-draw.ts
 *      quadVertices), stored as float32 (the vertex buffer); the vertex shader passes it through (w = 1);
 *   2. the viewport transform in float32, as SwiftShader's vertex routine writes it: X = RoundInt(X0xF + clip.x·rhw·WxF)
 *      with F = 2^bits, W = n/2, WxF = W·F, X0xF = (0 + W)·F − F/2; y the same with Dawn's flipped viewport
 *      (y = n, height = −n: H = −n/2, Y0 = n/2), so row j grows with world y as on the CPU; rhw = 1/w = 1;
 *   3. RoundInt rounds to nearest, ties to even; the −F/2 puts pixel i's sample on the integer X = F·i.
 * Returns (X + F/2)·256/F and (Y + F/2)·256/F.
 */
export function windowCornerFixed(x: number, y: number, g: DrawGrid, bits: number): [number, number] {
  const f = Math.fround;
  const F = 2 ** bits;
  const cx = f(((x - g.xmin) * 2) / g.size - 1);
  const cy = f(1 - ((y - g.ymin) * 2) / g.size);
  const Wh = f(0.5 * g.n);
  const Hh = f(0.5 * -g.n);
  const WxF = f(Wh * F);
  const HxF = f(Hh * F);
  const X0xF = f(f(f(0 + Wh) * F) - F / 2);
  const Y0xF = f(f(f(g.n + Hh) * F) - F / 2);
  const X = roundHalfEven(f(X0xF + f(f(cx * 1) * WxF)));
  const Y = roundHalfEven(f(Y0xF + f(f(cy * 1) * HxF)));
  return [(X + F / 2) * (SUBPIXEL / F), (Y + F / 2) * (SUBPIXEL / F)];
}

/**
 * Coverage of an asset quad as the GPU executor's rasterizer decides it — the rule of `--quad-coverage snapped` [G]:
 *   corners  the square's corners localToWorld·(±W/2, ±W/2) (float64), taken to window coordinates through float32
 *            clip space and SwiftShader's float32 viewport transform, snapped to 2^−bits pixel, ties to even
 *            (windowCornerFixed);
 *   coverage the triangles (c00, c10, c01) and (c10, c11, c01) — the GPU executor's vertex order — each covering the
 *            pixel centres with every edge function ≥ 0, a centre exactly on an edge only where the top-left rule
 *            owns it (raster.ts ownsEdge), so the diagonal is covered once.
 * The edge functions are exact integers in 1/256 pixel. Why the float32 path [G, measured]: snapping the corners'
 * float64 positions instead put a corner within ~1/4096 pixel of a snapping tie 1/16 pixel away from where the GPU
 * put it (tundra-seed2 at 4096²: stamps 260 and 815, seven pixels of 29–86 codes), and test/gpu-mimic.test.ts draws
 * such a quad on SwiftShader (docs/gpu-reference.md).
 */
export function snappedQuadCoverage(g: DrawGrid, worldSize: number, m: readonly number[], bits: number): (i: number, j: number) => boolean {
  const h = worldSize / 2;
  const corner = (lx: number, ly: number): [number, number] => {
    const [x, y] = transformPoint(m as Affine, [lx, ly]);
    return windowCornerFixed(x, y, g, bits);
  };
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
  /** The executor that ran (context.ts). */
  executor: Executor;
  fields: Map<string, Field>;
  codes: Uint16Array;
  /** Paged-in room for the final map's PNG scanlines (the arena's, when prepareExecutor asked for it), else null. */
  pngRows: Uint8Array | null;
  /** The final map's Up-filtered PNG scanlines of `codes`, written into pngRows (the arena's executor), else null. */
  pngScanlines: Uint8Array | null;
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

/**
 * The conventions a list is executed under: `c` with the list's filterFullResolution (false runs the earlier rule,
 * the N² raster unfiltered). Refuses a list whose other smoothing fields are not the chain smoothing.ts implements
 * under `c` (offsets, weights, levels, order), naming the field and both values: to run a list drawn under other
 * conventions, pass those conventions.
 */
export function listConventions(dl: DrawList, c: Conventions = DEFAULT_CONVENTIONS): Conventions {
  const s = dl.smoothing;
  const same = (a: readonly number[], b: readonly number[]) => a.length === b.length && a.every((x, i) => x === b[i]);
  const want = { offsets: c.smoothing.offsets, weights: c.smoothing.weights, levels: c.smoothing.levels, order: c.smoothing.order };
  const bad = !same(s.offsets, want.offsets)
    ? ['offsets', s.offsets, want.offsets]
    : !same(s.weights, want.weights)
      ? ['weights', s.weights, want.weights]
      : s.levels !== want.levels
        ? ['levels', s.levels, want.levels]
        : s.order !== want.order
          ? ['order', s.order, want.order]
          : null;
  if (bad)
    throw new MismatchError(
      `draw list smoothing.${bad[0]}: this CPU executor implements ${JSON.stringify(bad[2])} under the conventions in force, the list asks for ${JSON.stringify(bad[1])}`,
    );
  return s.filterFullResolution === c.smoothing.filterFullResolution
    ? c
    : resolveConventions({ smoothing: { filterFullResolution: s.filterFullResolution } }, c);
}

/** Refuses a list whose smoothing section is not the chain smoothing.ts implements under the declaration. */
export function checkSmoothingSection(dl: DrawList): void {
  listConventions(dl);
}

/** The assets a list names: given, or decoded from the list's embedded bytes (SHA-256 checked); shapes checked. */
export function resolveAssets(dl: DrawList, given?: ReadonlyMap<string, HeightAsset>): Map<string, HeightAsset> {
  const out = new Map<string, HeightAsset>();
  for (const a of dl.assets) {
    let h = given?.get(a.id);
    if (!h) {
      const bytes = a.embedded;
      if (!bytes) throw new FormatError(`draw list asset ${a.id}: not embedded and not given (load it with loadListAssets)`);
      const sha = sha256Hex(bytes);
      if (sha !== a.sha256) throw new FormatError(`draw list asset ${a.id} (${a.file}): SHA-256 ${sha} does not match the list's ${a.sha256}`);
      h = readAssetKtx2(bytes, a.file);
    }
    const levels = h.sizes.join(',');
    if (
      h.size !== a.size ||
      levels !== a.levelSizes.join(',') ||
      h.worldSize !== a.worldSize ||
      h.decode.metresPerCode !== a.decode.metresPerCode ||
      h.decode.offsetMetres !== a.decode.offsetMetres
    ) {
      throw new MismatchError(
        `draw list asset ${a.id}: the list says size ${a.size}, levels [${a.levelSizes.join(',')}], worldSize ${a.worldSize}, decode ${JSON.stringify(a.decode)}; the loaded asset has size ${h.size}, levels [${levels}], worldSize ${h.worldSize}, decode ${JSON.stringify(h.decode)}`,
      );
    }
    out.set(a.id, h);
  }
  return out;
}

const triangles = (l: TriangleLayer) => ({ xyh: l.xyh, count: l.count, polygon: l.cell });

function placement<P>(d: AssetDraw<P>, c: Conventions, cover?: (i: number, j: number) => boolean): PlacedDraw {
  // conventions draws.lod: 'level0' drops the mip chain (level 0 only, an ablation); `cover` overrides the quad's
  // coverage (the snapped-quad mimic switch).
  return {
    inv: d.worldToLocal,
    bounds: { x0: d.bounds[0], x1: d.bounds[1], y0: d.bounds[2], y1: d.bounds[3] },
    lod: c.draws.lod === 'level0' ? 0 : d.lod,
    ...(cover ? { cover } : {}),
  };
}

/** Reverses the row order of an n × n field in place. */
function flipRows(f: Field | Uint16Array, n: number): void {
  const tmp = f.slice(0, n);
  for (let top = 0, bottom = n - 1; top < bottom; top++, bottom--) {
    tmp.set(f.subarray(top * n, top * n + n));
    f.copyWithin(top * n, bottom * n, bottom * n + n);
    f.set(tmp, bottom * n);
  }
}

export function executeDrawListCpu(dl: DrawList, opts: CpuExecuteOptions): CpuExecution {
  const n = dl.grid.n;
  // The run's conventions must be the ones the list was drawn under (its smoothing section says so).
  const conventions = listConventions(dl, opts.conventions ?? DEFAULT_CONVENTIONS);
  const rasterInput = dl.outer.input.kind === 'raster';
  const keepRaster = new Set(opts.keep ?? []).has('raster') || rasterInput;
  // Without keepRaster, the arena composes the base over the raster (one 64 MiB field less at 4096²).
  const ctx: StageContext = runContext({ precision: opts.precision, executor: opts.executor, conventions, n, baseOverRaster: !keepRaster });
  const precision = precisionOf(ctx);
  const R = precision === 'f32' ? Math.fround : (x: number) => x;
  const pc = conventions.grid.pixelCentre;
  const g: DrawGrid = { xmin: dl.grid.xmin, ymin: dl.grid.ymin, size: dl.grid.size, n };
  if (dl.outer.centre[0] !== g.xmin + g.size / 2 || dl.outer.centre[1] !== g.ymin + g.size / 2) {
    throw new MismatchError(
      `draw list outer.centre: this CPU executor blends around the grid centre (${g.xmin + g.size / 2}, ${g.ymin + g.size / 2}), the list has (${dl.outer.centre.join(', ')})`,
    );
  }
  const assets = resolveAssets(dl, opts.assets);
  const keep = new Set(opts.keep ?? []);
  const quadCoverage = opts.quadCoverage ?? 'exact';
  if (!QUAD_COVERAGE_CHOICES.includes(quadCoverage))
    throw new MismatchError(`quadCoverage: expected one of ${QUAD_COVERAGE_CHOICES.join(', ')}, got ${JSON.stringify(quadCoverage)}`);
  const coverOf = <P>(d: AssetDraw<P>) =>
    quadCoverage === 'snapped' ? snappedQuadCoverage(g, assets.get(d.asset)!.worldSize, d.localToWorld, dl.raster.subpixelBits) : undefined;
  const fields = new Map<string, Field>();
  // onField hears each kept stage as soon as it is final — after the row flip of row0-at-ymax, so at the end then.
  const flipAtEnd = conventions.grid.rowDirection === 'row0-at-ymax';
  const kept = (name: string, f: Field): void => {
    fields.set(name, f);
    if (!flipAtEnd) opts.onField?.(name, f);
  };
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
  const raster = ctx.arena ? ctx.arena.rasterView : newField(precision, n * n);
  const layer0 = stage('raster-layer0', 'base.raster', () =>
    rasterizeTriangles(triangles(dl.raster.layers[0]), g, raster, ctx, undefined, dl.raster.subpixelBits),
  );
  if (keep.has('raster-layer0')) kept('raster-layer0', sharedCopy(raster));
  const layer100 = stage('raster', 'base.raster', () => rasterizeTriangles(triangles(dl.raster.layers[1]), g, raster, ctx, undefined, dl.raster.subpixelBits));
  const smoothed = stage('base', 'base.smoothing', () => smoothingChain(raster, n, ctx));
  for (const [k, v] of Object.entries(smoothed.timings)) timings[`base.${k}`] = v;
  timings.base = timings['base.raster'] + timings['base.smoothing'];
  if (keep.has('raster')) kept('raster', raster);
  const field = smoothed.base; // transformed in place from here on
  if (keep.has('base')) kept('base', sharedCopy(field));

  // Support: every target from the base field first, then every shape in order.
  const support = stage('support.targets', 'support', (): SupportTarget[] => supportTargetsFor(field, g, dl.support.locations, dl.support.a, dl.support.b, pc));
  const supportWrites = stage('after-support', 'support.apply', () => {
    const instances = dl.support.locations.map((l) => ({ supports: l.shapes }));
    // In the arena, the rows are split with the helper thread (support-rows.ts: the same bytes).
    return ctx.arena && field instanceof Float32Array && inArena(field, ctx.arena)
      ? applySupportInArena(ctx.arena, field, g, instances, support, pc)
      : applySupport(field, g, instances, support, precision, pc);
  });
  if (keep.has('after-support')) kept('after-support', sharedCopy(field));

  // Natural stamps, in order; existing-terrain operands from the field as it stands before each draw.
  const operand = (c: FootprintOperand, q: { hmin: number; hmax: number; centre: number }) => {
    const v = c.query === 'footprint-min' ? q.hmin : c.query === 'footprint-max' ? q.hmax : q.centre;
    return c.plus === undefined ? v : R(R(v) + R(c.plus));
  };
  // The simd executor runs the draws of a stage as one queue on both threads (draw-queue.ts), with the bytes of the
  // loops below; a snapped quad coverage, or assets that do not fit the arena, take the loops.
  const arena = ctx.executor === 'simd' && ctx.arena && field instanceof Float32Array && quadCoverage === 'exact' ? ctx.arena : null;
  const stamps = stage('after-stamps', 'stamps.draw', () => {
    let pixels = 0;
    let lodLo = Infinity;
    let lodHi = -Infinity;
    if (arena) {
      const queue = dl.stamps.draws.map((d): QueuedDraw & { lod: number } => {
        const asset = assets.get(d.asset)!;
        const p = d.program;
        const place = placement(d, conventions);
        const program: DrawProgram =
          p.mode === 'add'
            ? { mode: 'add', k: p.k }
            : p.mode === 'lerp'
              ? { mode: 'lerp', k: p.k, c: 0, a: p.a, sMax: p.sMax }
              : { mode: p.mode, k: p.k, c: 0 };
        const query = p.mode === 'add' ? null : { kind: p.c.query, plus: p.c.plus, ...footprintBox(g, place.bounds, d.centre, pc) };
        return { asset, draw: kernelDrawOf(g, asset, place, R, program, pc), query, lod: place.lod };
      });
      const drawn = drawQueueInArena(field as Float32Array, queue, arena);
      if (drawn) {
        for (const q of queue) {
          lodLo = Math.min(lodLo, q.lod);
          lodHi = Math.max(lodHi, q.lod);
        }
        return { pixels: drawn.reduce((s, x) => s + x, 0), lodRange: [lodLo, lodHi] as [number, number] };
      }
    }
    for (const d of dl.stamps.draws) {
      const asset = assets.get(d.asset)!;
      const p = d.program;
      const place = placement(d, conventions, coverOf(d));
      let program: DrawProgram;
      if (p.mode === 'add') program = { mode: 'add', k: p.k };
      else {
        const q = footprintQueryAt(field, g, place.bounds, d.centre, ctx);
        program = p.mode === 'lerp' ? { mode: 'lerp', k: p.k, c: operand(p.c, q), a: p.a, sMax: p.sMax } : { mode: p.mode, k: p.k, c: operand(p.c, q) };
      }
      const r = drawPlaced(field, g, asset, place, R, program, ctx);
      pixels += r.pixels;
      lodLo = Math.min(lodLo, r.lod);
      lodHi = Math.max(lodHi, r.lod);
    }
    return { pixels, lodRange: [lodLo, lodHi] as [number, number] };
  });
  if (keep.has('after-stamps')) kept('after-stamps', sharedCopy(field));

  // Location textures, in order, on their locations' support targets.
  const locations = stage('after-locations', 'locations', () => {
    let pixels = 0;
    const used = new Set<string>(dl.locations.draws.map((d) => d.asset));
    if (arena) {
      const queue = dl.locations.draws.map((d): QueuedDraw => {
        const asset = assets.get(d.asset)!;
        const T = R(support[d.program.supportTarget].target);
        return { asset, draw: kernelDrawOf(g, asset, placement(d, conventions), R, { mode: 'location', c: T }, pc), query: null };
      });
      const drawn = drawQueueInArena(field as Float32Array, queue, arena);
      if (drawn) return { draws: dl.locations.draws.length, pixels: drawn.reduce((s, x) => s + x, 0), textures: used.size };
    }
    for (const d of dl.locations.draws) {
      const T = R(support[d.program.supportTarget].target);
      pixels += drawPlaced(field, g, assets.get(d.asset)!, placement(d, conventions, coverOf(d)), R, { mode: 'location', c: T }, ctx).pixels;
    }
    return { draws: dl.locations.draws.length, pixels, textures: used.size };
  });
  if (keep.has('after-locations')) kept('after-locations', sharedCopy(field));

  const outerInput: Field | number = dl.outer.input.kind === 'raster' ? raster : dl.outer.input.height;
  const outer = stage('pre-encode', 'outer', () =>
    outerBlend(field, g, { inner: dl.outer.inner, outer: dl.outer.outer }, outerInput, precision, pc, ctx.arena ?? null),
  );
  kept('pre-encode', field);

  // The simd executor encodes in its arena with the kernel (codes returned as a view); the others in JavaScript.
  const range = { min: dl.encoding.min, max: dl.encoding.max };
  const rounding = conventions.encoding.rounding;
  const { codes, counts } = stage('final', 'encode', (): { codes: Uint16Array; counts: EncodeCounts } => {
    if (ctx.executor === 'simd' && ctx.arena && field instanceof Float32Array) return encodeInArena(field, range, ctx.arena, rounding);
    const out = new Uint16Array(n * n);
    return { codes: out, counts: encodeFieldR16(field, out, range, rounding) };
  });
  // [R] The pipeline computes with row 0 at ymin; row0-at-ymax (an ablation) stores every output row-reversed.
  if (flipAtEnd) {
    for (const f of new Set<Field | Uint16Array>([...fields.values(), codes])) flipRows(f, n);
    for (const [name, f] of fields) opts.onField?.(name, f);
  }

  const pngRows = ctx.arena ? pngRowsView(ctx.arena) : null;
  // [R] With room for them, the PNG's scanlines are filtered here, on both threads and without copies, instead of
  //     in the writer on one thread through a copy of the codes.
  const pngScanlines = ctx.executor === 'simd' && ctx.arena ? pngScanlinesInArena(codes, ctx.arena) : null;
  return {
    executor: ctx.executor,
    fields,
    codes,
    pngRows,
    pngScanlines,
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
