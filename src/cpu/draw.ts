/**
 * One textured height draw, shared by natural stamps and location textures (article: "Natural Stamps Turn
 * Configured Resources into Local Landforms": local sample position → texture sample → HeightProgram → Blend).
 * For every destination pixel whose centre maps inside the asset's square: inverse transform → local metres →
 * UV → trilinear sample of the stored mip chain at the instance's LOD → `apply(current, sample, u, v)`.
 * [R] Pixels whose centre maps outside the asset's square are not written (the asset's footprint is its coverage).
 * [R] With the 'simd' executor (src/cpu/context.ts) the draw and the envelope query run on wasm/draw.wat in the
 *     context's arena with the same steps, bit for bit; the loops below serve the other executors.
 * Conventions read (src/conventions): grid.pixelCentre (destination pixel (i, j) samples world
 * (xmin + (i + pc)·px, ymin + (j + pc)·px)); draws.borderWindow (location textures, assets.ts); the sampler's texel
 * centre (mips.ts).
 */
import { borderWindow, type HeightAsset } from '../assets/assets.js';
import { DEFAULT_CONVENTIONS } from '../conventions/index.js';
import type { StageContext } from './context.js';
import { mipWeights, sampleLevelF32 } from './mips.js';
import { drawBounds, pixelRange, placeDraw, type DrawGrid, type PlacedDraw } from '../drawlist/placement.js';
import { transformPoint, type Affine } from '../core/transforms.js';
import type { Field } from '../core/precision.js';
import { drawInArena, envelopeInArena, type KernelDraw } from './wasm/draw-kernel.js';

/**
 * HeightProgram + Blend of one draw, as data (one kernel serves every mode; a closure per mode would make the
 * per-pixel call megamorphic). s is the decoded texture sample in metres, h the current height:
 *  add      h + k·s
 *  max      max(h, c + k·s)
 *  min      min(h, c + k·s)
 *  lerp     h + a·(s/sMax)·(c + k·s − h)
 *  location h + window(u, v)·(c + s − h)
 */
export type DrawProgram =
  | { mode: 'add'; k: number }
  | { mode: 'max' | 'min'; k: number; c: number }
  | { mode: 'lerp'; k: number; c: number; a: number; sMax: number }
  | { mode: 'location'; c: number };

const MODE = { add: 0, max: 1, min: 2, lerp: 3, location: 4 } as const;

export function drawAsset(
  field: Field,
  g: DrawGrid,
  asset: HeightAsset,
  m: Affine,
  R: (x: number) => number,
  program: DrawProgram,
  ctx?: StageContext,
): { pixels: number; lod: number } {
  return drawPlaced(field, g, asset, placeDraw(asset, m, g), R, program, ctx);
}

/**
 * The kernel's parameters of a placed draw (draw.wat, draw-kernel.ts): its box (grown by `grow` pixels each way), the
 * mip levels and weights at its LOD, and the program's constants rounded by `R`.
 */
export function kernelDrawOf(
  g: DrawGrid,
  asset: HeightAsset,
  placed: PlacedDraw,
  R: (x: number) => number,
  program: DrawProgram,
  pc: number,
  grow = 0,
): KernelDraw {
  const px = g.size / g.n;
  const w = mipWeights(placed.lod, asset.levels.length);
  const b = placed.bounds;
  return {
    inv: placed.inv,
    W: asset.worldSize,
    grid: g,
    cols: pixelRange(b.x0 - grow * px, b.x1 + grow * px, g.xmin, px, g.n, pc),
    rows: pixelRange(b.y0 - grow * px, b.y1 + grow * px, g.ymin, px, g.n, pc),
    lower: w.lower,
    upper: w.upper,
    twoLevels: w.weightUpper !== 0,
    wA: R(w.weightLower),
    wB: R(w.weightUpper),
    mode: MODE[program.mode],
    k: R('k' in program ? program.k : 1),
    c: R('c' in program ? program.c : 0),
    a: R(program.mode === 'lerp' ? program.a : 0),
    sMax: program.mode === 'lerp' ? program.sMax : 1,
    pc,
  };
}

/** drawAsset with the placement already resolved; `ctx` (optional) chooses the executor and the conventions. */
export function drawPlaced(
  field: Field,
  g: DrawGrid,
  asset: HeightAsset,
  placed: PlacedDraw,
  R: (x: number) => number,
  program: DrawProgram,
  ctx?: StageContext,
): { pixels: number; lod: number } {
  const px = g.size / g.n;
  const lod = placed.lod;
  const inv = placed.inv;
  const pc = (ctx?.conventions ?? DEFAULT_CONVENTIONS).grid.pixelCentre;
  const bw = (ctx?.conventions ?? DEFAULT_CONVENTIONS).draws.borderWindow;
  const tc = (ctx?.conventions ?? DEFAULT_CONVENTIONS).sampling.texelCentre;
  const cover = placed.cover;
  // A snapped quad may reach one pixel beyond the exact box: with a coverage override the box grows by one.
  const kd = kernelDrawOf(g, asset, placed, R, program, pc, cover ? 1 : 0);
  const [i0, i1] = kd.cols;
  const [j0, j1] = kd.rows;
  const { W, mode, k, c, a, sMax, twoLevels, wA, wB } = kd;
  // Trilinear sampling (mips.ts) with the two levels and weights resolved once per draw.
  const levelA = asset.levels[kd.lower];
  const nA = asset.sizes[kd.lower];
  const levelB = asset.levels[kd.upper];
  const nB = asset.sizes[kd.upper];
  /** The new height of pixel q at texture position (u, v): the sample, HeightProgram and Blend. */
  const value = (q: number, u: number, v: number): number => {
    const sA = sampleLevelF32(levelA, nA, u, v, R, tc);
    const s = twoLevels ? R(R(sA * wA) + R(sampleLevelF32(levelB, nB, u, v, R, tc) * wB)) : sA;
    const h = field[q];
    switch (mode) {
      case 0:
        return R(h + R(k * s));
      case 1:
        return Math.max(h, R(c + R(k * s)));
      case 2:
        return Math.min(h, R(c + R(k * s)));
      case 3:
        return R(h + R(R(a * R(s / sMax)) * R(R(c + R(k * s)) - h)));
      default: {
        const win = R(borderWindow(u, v, bw));
        return R(h + R(win * R(R(c + s) - h)));
      }
    }
  };
  // The simd executor draws with the kernel, with these same steps (draw.wat), over the box with the exact coverage.
  // [R] With a coverage override the kernel still draws the box; the loop below then visits the box and redoes only the
  //     pixels where the two coverages disagree — a ribbon along the quad's edges: put back (covered exactly, not by
  //     the override) or drawn (the other way round). Pixels are independent within a draw (each reads and writes only
  //     itself), so the result is the JavaScript loop's, bit for bit (test/gpu-mimic.test.ts), at the kernel's speed.
  const boxW = i1 - i0 + 1;
  let saved: Float32Array | null = null;
  let pixels = 0;
  if (ctx?.executor === 'simd' && ctx.arena && field instanceof Float32Array) {
    if (cover && i1 >= i0 && j1 >= j0) {
      saved = new Float32Array(boxW * (j1 - j0 + 1));
      for (let j = j0; j <= j1; j++) saved.set(field.subarray(j * g.n + i0, j * g.n + i1 + 1), (j - j0) * boxW);
    }
    const drawn = drawInArena(field, asset, kd, ctx.arena);
    if (drawn === null) saved = null;
    else if (!cover) return { pixels: drawn, lod };
    else pixels = drawn;
  }
  for (let j = j0; j <= j1; j++) {
    const y = g.ymin + (j + pc) * px;
    for (let i = i0; i <= i1; i++) {
      const x = g.xmin + (i + pc) * px;
      const u = (inv[0] * x + inv[2] * y + inv[4]) / W + 0.5;
      const v = (inv[1] * x + inv[3] * y + inv[5]) / W + 0.5;
      const exact = !(u < 0 || u >= 1 || v < 0 || v >= 1);
      const covered = cover ? cover(i, j) : exact;
      const q = j * g.n + i;
      if (saved) {
        // After the kernel: only where the coverages disagree.
        if (exact === covered) continue;
        field[q] = saved[(j - j0) * boxW + (i - i0)];
        if (exact) {
          pixels--;
          continue;
        }
      } else if (!covered) continue;
      field[q] = value(q, u, v);
      pixels++;
    }
  }
  return { pixels, lod };
}

/** Lower and upper envelope and centre height of the field over a square footprint (existing-terrain query). */
export function footprintQuery(field: Field, g: DrawGrid, asset: HeightAsset, m: Affine, ctx?: StageContext): { hmin: number; hmax: number; centre: number } {
  return footprintQueryAt(field, g, drawBounds(asset, m), transformPoint(m, [0, 0]), ctx);
}

/**
 * The pixels an existing-terrain query reads: the box's columns and rows (inclusive; empty when last < first) and the
 * centre pixel, the one holding world point (cx, cy), clamped to the grid.
 */
export function footprintBox(
  g: DrawGrid,
  b: { x0: number; x1: number; y0: number; y1: number },
  [cx, cy]: readonly [number, number],
  pc: number,
): { cols: [number, number]; rows: [number, number]; centre: [number, number] } {
  const px = g.size / g.n;
  return {
    cols: pixelRange(b.x0, b.x1, g.xmin, px, g.n, pc),
    rows: pixelRange(b.y0, b.y1, g.ymin, px, g.n, pc),
    centre: [Math.min(g.n - 1, Math.max(0, Math.floor((cx - g.xmin) / px))), Math.min(g.n - 1, Math.max(0, Math.floor((cy - g.ymin) / px)))],
  };
}

/** footprintQuery over a resolved box, with the centre sample at world point (cx, cy). */
export function footprintQueryAt(
  field: Field,
  g: DrawGrid,
  b: { x0: number; x1: number; y0: number; y1: number },
  [cx, cy]: readonly [number, number],
  ctx?: StageContext,
): { hmin: number; hmax: number; centre: number } {
  const pc = (ctx?.conventions ?? DEFAULT_CONVENTIONS).grid.pixelCentre;
  const box = footprintBox(g, b, [cx, cy], pc);
  const [i0, i1] = box.cols;
  const [j0, j1] = box.rows;
  let hmin = Infinity;
  let hmax = -Infinity;
  const simd = ctx?.executor === 'simd' && ctx.arena && field instanceof Float32Array ? envelopeInArena(field, g.n, i0, i1, j0, j1, ctx.arena) : null;
  if (simd) [hmin, hmax] = simd;
  else {
    for (let j = j0; j <= j1; j++) {
      for (let i = i0; i <= i1; i++) {
        const h = field[j * g.n + i];
        if (h < hmin) hmin = h;
        if (h > hmax) hmax = h;
      }
    }
  }
  const [ci, cj] = box.centre;
  const centre = field[cj * g.n + ci];
  if (!Number.isFinite(hmin)) return { hmin: centre, hmax: centre, centre };
  return { hmin, hmax, centre };
}
