/**
 * Exact alignment of a heightfield onto another grid: rows reordered to the grid's row direction, and a field whose
 * grid holds the target as a whole-texel window cropped to it — no resampling, every value kept bit for bit.
 *
 * Inputs: a heightfield and the target grid. Output: a new heightfield on exactly the target grid, or a MismatchError
 * naming what cannot be aligned exactly (another pixel size, a sample convention, a window that falls between texels
 * or outside the field) — resampling (src/core/resample.ts) is the caller's explicit choice, never done here.
 * [R] Texel offsets are accepted within 1e-6 texel of a whole number (extents written in decimals round there).
 */
import { MismatchError } from '../errors.js';
import { gridDifference, type GridDescription } from './grid.js';
import { codeHeightfield, floatHeightfield, withRowDirection, type Heightfield } from './heightfield.js';

const TEXEL_TOLERANCE = 1e-6;

function wholeTexels(v: number, what: string): number {
  const r = Math.round(v);
  if (Math.abs(v - r) > TEXEL_TOLERANCE) throw new MismatchError(`cannot align exactly: ${what} is ${v} texels, not a whole number (resample instead)`);
  return r;
}

/** `f` on exactly `grid`: rows reordered and/or a whole-texel window cropped; unchanged when already on it. */
export function alignExactly(f: Heightfield, grid: GridDescription): Heightfield {
  if (!gridDifference(f.grid, grid)) return f;
  const g = f.grid;
  if (g.convention !== grid.convention)
    throw new MismatchError(`cannot align exactly: sample convention ${g.convention} vs ${grid.convention} (resample instead)`);
  const px = g.sizeX / g.columns;
  const py = g.sizeY / g.rows;
  const tx = grid.sizeX / grid.columns;
  const ty = grid.sizeY / grid.rows;
  if (Math.abs(px - tx) > TEXEL_TOLERANCE * tx || Math.abs(py - ty) > TEXEL_TOLERANCE * ty)
    throw new MismatchError(`cannot align exactly: pixels of ${px}×${py} m vs ${tx}×${ty} m (resample instead)`);
  // Work in row0-at-ymin order: column i at x = xmin + (i + ½)·px, row j at y = ymin + (j + ½)·py.
  const src = withRowDirection(f, 'row0-at-ymin');
  const i0 = wholeTexels((grid.xmin - g.xmin) / px, 'the x offset');
  const j0 = wholeTexels((grid.ymin - g.ymin) / py, 'the y offset');
  if (i0 < 0 || j0 < 0 || i0 + grid.columns > g.columns || j0 + grid.rows > g.rows)
    throw new MismatchError(
      `cannot align exactly: the target window (${grid.xmin}, ${grid.ymin}) + ${grid.sizeX}×${grid.sizeY} m is not inside the field's (${g.xmin}, ${g.ymin}) + ${g.sizeX}×${g.sizeY} m`,
    );
  const W = grid.columns;
  const data = src.kind === 'codes' ? src.code_px : src.height_px;
  const out = src.kind === 'codes' ? new Uint16Array(W * grid.rows) : new Float32Array(W * grid.rows);
  for (let j = 0; j < grid.rows; j++) out.set(data.subarray((j0 + j) * g.columns + i0, (j0 + j) * g.columns + i0 + W), j * W);
  const target: GridDescription = { ...grid, rowDirection: 'row0-at-ymin' };
  const cropped = src.kind === 'codes' ? codeHeightfield(target, out as Uint16Array, src.range) : floatHeightfield(target, out as Float32Array);
  return withRowDirection(cropped, grid.rowDirection);
}
