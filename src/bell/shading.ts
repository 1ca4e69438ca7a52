/**
 * The seed notebook's rendered picture: sea level and slope shading. A picture only — never a height output.
 *
 * Seed rules (002 cells "terrain" and "shading"):
 *  - sea level: T = max(0, H − seaLevel/100) (the slider runs 0…100; default 3);
 *  - shading along the second index j: d = n·(T[i][j + 1] − T[i][j − 1])/2 − p2 (one-sided at the edges),
 *    C = floor(p3 · exp(−d²·p1)); defaults p1 0.1, p2 −3, p3 80.
 * [R] C is the seed's lightness value (its colour maps use 0…100); the picture writes grey = round(C·255/100),
 *     clamped to 0…255, with row j at y = j/n drawn bottom-up like every heightbench picture.
 */
import { encode } from 'fast-png';

export interface ShadingParams {
  p1: number;
  p2: number;
  p3: number;
}

export const SHADING_DEFAULTS: ShadingParams = { p1: 0.1, p2: -3, p3: 80 };
export const SEA_LEVEL_DEFAULT = 3;

/** T = max(0, H − seaLevel/100), for H stored at index j·n + i (see bell-sum.ts). */
export function applySeaLevel(h: ArrayLike<number>, seaLevel: number, out = new Float64Array(h.length)): Float64Array {
  const offset = seaLevel / 100;
  for (let k = 0; k < h.length; k++) out[k] = Math.max(0, h[k] - offset);
  return out;
}

/** The seed's lightness C per sample (same layout as the input). */
export function shadeLightness(t: ArrayLike<number>, n: number, s: ShadingParams = SHADING_DEFAULTS): Float64Array {
  const c = new Float64Array(n * n);
  for (let i = 0; i < n; i++) {
    for (let j = 0; j < n; j++) {
      const jp = j < n - 1 ? 1 : 0;
      const jm = j > 0 ? 1 : 0;
      const d = (n * (t[(j + jp) * n + i] - t[(j - jm) * n + i])) / (jp + jm) - s.p2;
      c[j * n + i] = Math.floor(s.p3 * Math.exp(-d * d * s.p1));
    }
  }
  return c;
}

/** 8-bit greyscale PNG of the shaded terrain. */
export function shadedPng(h: ArrayLike<number>, n: number, seaLevel = SEA_LEVEL_DEFAULT, s: ShadingParams = SHADING_DEFAULTS): Uint8Array {
  const c = shadeLightness(applySeaLevel(h, seaLevel), n, s);
  const grey = new Uint8Array(n * n);
  for (let j = 0; j < n; j++) {
    const dst = (n - 1 - j) * n;
    for (let i = 0; i < n; i++) grey[dst + i] = Math.max(0, Math.min(255, Math.round((c[j * n + i] * 255) / 100)));
  }
  return encode({ width: n, height: n, data: grey, depth: 8, channels: 1 });
}
