/**
 * Where a draw lands (the draw list's placement; "what is drawn" is decided once, here and in plan/emit.ts): the
 * destination grid, the world box of an asset square under its transform, the pixel range whose centres lie in a world
 * interval, and the mip level of detail of an isotropic footprint (article: "Why Mip Selection Changes Height":
 * LOD = log2(texels per destination pixel)). Inputs: an asset's size and world size, a transform, the grid. Outputs:
 * plain numbers; the planner stores them in the draw list and the CPU executor's kernels read them.
 * Conventions read: grid.pixelCentre.
 */
import type { HeightAsset } from '../assets/assets.js';
import { DEFAULT_CONVENTIONS } from '../conventions/index.js';
import { invert, scaleOf, transformPoint, type Affine } from '../core/transforms.js';

export interface DrawGrid {
  xmin: number;
  ymin: number;
  size: number;
  n: number;
}

/** World bounding box of an asset square drawn with matrix m. */
export function drawBounds(asset: HeightAsset, m: Affine): { x0: number; x1: number; y0: number; y1: number } {
  const h = asset.worldSize / 2;
  const pts = [
    [-h, -h],
    [h, -h],
    [h, h],
    [-h, h],
  ].map((p) => transformPoint(m, p as [number, number]));
  return {
    x0: Math.min(...pts.map((p) => p[0])),
    x1: Math.max(...pts.map((p) => p[0])),
    y0: Math.min(...pts.map((p) => p[1])),
    y1: Math.max(...pts.map((p) => p[1])),
  };
}

/** Pixel index range covering world interval [a, b] (pixel centres, at i + pc, inside). */
export function pixelRange(a: number, b: number, origin: number, px: number, n: number, pc: number = DEFAULT_CONVENTIONS.grid.pixelCentre): [number, number] {
  const lo = Math.max(0, Math.ceil((a - origin) / px - pc));
  const hi = Math.min(n - 1, Math.floor((b - origin) / px - pc));
  return [lo, hi];
}

/** LOD of an asset drawn with `metresPerPixel` destination pixels when its level 0 spans `worldExtent` metres. */
export function footprintLod(asset: HeightAsset, worldExtent: number, metresPerPixel: number): number {
  return Math.log2(Math.max((asset.size / worldExtent) * metresPerPixel, 1e-12));
}

/** Where a draw lands, resolved from its transform once (the draw list stores these). */
export interface PlacedDraw {
  /** World → asset-local metres (invert(m)). */
  inv: Affine;
  /** World box of the transformed asset square (drawBounds). */
  bounds: { x0: number; x1: number; y0: number; y1: number };
  lod: number;
  /** [G] Coverage override (a GPU-mimic switch): when set, pixel (i, j) is drawn iff cover(i, j) — e.g. the
   *  rasterizer's test against the quad's snapped corners — instead of its centre mapping inside the square; the
   *  sample then uses the centre's (u, v) as it is (clamp addressing). The CPU executor then runs its scalar loops (src/cpu/draw.ts), not the SIMD kernel. */
  cover?: (i: number, j: number) => boolean;
}

export function placeDraw(asset: HeightAsset, m: Affine, g: DrawGrid): PlacedDraw {
  return { inv: invert(m), bounds: drawBounds(asset, m), lod: footprintLod(asset, asset.worldSize * scaleOf(m), g.size / g.n) };
}
