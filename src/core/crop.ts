/** Cropping a square field to its central window, with the cropped grid's extent (texel-centre grids). */
import type { GridDescription } from './grid.js';

/**
 * The central `window` metres of a square field: texel centres within the window, and the cropped grid.
 * [R] The window is rounded to whole texels about the domain centre.
 */
export function cropCentre(f: ArrayLike<number>, grid: GridDescription, window: number): { grid: GridDescription; data: Float32Array } {
  const px = grid.sizeX / grid.columns;
  const m = Math.min(grid.columns, Math.round(window / px));
  const i0 = Math.floor((grid.columns - m) / 2);
  const data = new Float32Array(m * m);
  for (let j = 0; j < m; j++) for (let i = 0; i < m; i++) data[j * m + i] = f[(i0 + j) * grid.columns + i0 + i];
  return {
    grid: { ...grid, xmin: grid.xmin + i0 * px, ymin: grid.ymin + i0 * px, sizeX: m * px, sizeY: m * px, columns: m, rows: m },
    data,
  };
}
