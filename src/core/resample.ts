/**
 * Resampling between grids through world coordinates.
 *
 * Inputs: a source field and its grid description, a destination grid description, an output buffer.
 * Outputs: the destination field, each sample bilinearly read (clamp addressing) at its world position.
 * Seed rules (000, "Why Half-Texel Offsets Belong to the Formula"; 004, "Resampling turned out not to be optional"):
 *  - centre-aligned: destination i reads source (i + 0.5)·Ns/Nd − 0.5 (4096 → 2048: first sample at 0.5).
 *  - edge-to-edge between vertex grids: destination i reads source i·(Ns − 1)/(Nd − 1): corners map to corners,
 *    no flat lip.
 *  - texel-centre 4096² ↔ vertex 4097²: through world coordinates, never by copying indices or rows.
 * [R] A destination position outside the source's sample span (e.g. a vertex on the domain edge, half a texel beyond
 *     the first texel centre) reads the clamped edge texel, the same clamp addressing a GPU sampler applies.
 */
import { columnWorldX, rowWorldY, validateGrid, worldToColumn, worldToRow, type GridDescription } from './grid.js';
import { lerp2, quantizeFraction8, type SubTexelMode } from './sampling.js';

const identity = (v: number) => v;

/** Source coordinate read by destination sample i under centre-aligned resampling. */
export function resampleSourceCoord(i: number, nSource: number, nDest: number): number {
  return ((i + 0.5) * nSource) / nDest - 0.5;
}

/** Source coordinate read by destination vertex i under edge-to-edge resampling of vertex grids. */
export function edgeToEdgeSourceCoord(i: number, nSource: number, nDest: number): number {
  return (i * (nSource - 1)) / (nDest - 1);
}

/** Per-axis lookup: for each destination index, the two clamped source indices and the fraction. */
interface AxisTaps {
  i0: Int32Array;
  i1: Int32Array;
  f: Float64Array;
}

function axisTaps(coords: Float64Array, n: number, mode: SubTexelMode): AxisTaps {
  const m = coords.length;
  const i0 = new Int32Array(m);
  const i1 = new Int32Array(m);
  const f = new Float64Array(m);
  const last = n - 1;
  for (let k = 0; k < m; k++) {
    const x = coords[k];
    const xf = Math.floor(x);
    const fr = x - xf;
    i0[k] = xf < 0 ? 0 : xf > last ? last : xf;
    i1[k] = xf + 1 < 0 ? 0 : xf + 1 > last ? last : xf + 1;
    f[k] = mode === 'hw8' ? quantizeFraction8(fr) : fr;
  }
  return { i0, i1, f };
}

/**
 * Where `dst`'s samples reach outside the extent `src` covers, in words (null when every one lies inside it): such a
 * sample would read the clamped edge texel, a height the source never held. Within the extent, the half texel between
 * its edge and the first texel centre is clamp addressing as a GPU sampler's (the header's [R]).
 */
export function uncoveredBy(src: GridDescription, dst: GridDescription): string | null {
  const eps = 1e-9 * Math.max(src.sizeX, src.sizeY, dst.sizeX, dst.sizeY);
  const span = (a: number, b: number): [number, number] => (a <= b ? [a, b] : [b, a]);
  const [x0, x1] = span(columnWorldX(dst, 0), columnWorldX(dst, dst.columns - 1));
  const [y0, y1] = span(rowWorldY(dst, 0), rowWorldY(dst, dst.rows - 1));
  const sx1 = src.xmin + src.sizeX;
  const sy1 = src.ymin + src.sizeY;
  if (x0 >= src.xmin - eps && x1 <= sx1 + eps && y0 >= src.ymin - eps && y1 <= sy1 + eps) return null;
  return `its samples span x ${x0}…${x1} m, y ${y0}…${y1} m; the source covers x ${src.xmin}…${sx1} m, y ${src.ymin}…${sy1} m`;
}

/**
 * Resamples `src_px` (described by `src`) onto `dst`, writing into `out` and returning it.
 * Each destination sample's world position is mapped into the source's continuous sample coordinates.
 * Arithmetic is float64; the output array's type decides storage precision.
 */
export function resampleField<T extends Float32Array | Float64Array>(
  src_px: ArrayLike<number>,
  src: GridDescription,
  dst: GridDescription,
  out: T,
  mode: SubTexelMode = 'exact',
): T {
  validateGrid(src, 'source grid');
  validateGrid(dst, 'destination grid');
  if (src_px.length !== src.columns * src.rows) {
    throw new RangeError(`resampleField: source has ${src_px.length} samples, grid says ${src.columns}×${src.rows}`);
  }
  if (out.length !== dst.columns * dst.rows) {
    throw new RangeError(`resampleField: output has ${out.length} samples, grid says ${dst.columns}×${dst.rows}`);
  }
  const xs = new Float64Array(dst.columns);
  for (let i = 0; i < dst.columns; i++) xs[i] = worldToColumn(src, columnWorldX(dst, i));
  const ys = new Float64Array(dst.rows);
  for (let j = 0; j < dst.rows; j++) ys[j] = worldToRow(src, rowWorldY(dst, j));
  const cx = axisTaps(xs, src.columns, mode);
  const cy = axisTaps(ys, src.rows, mode);
  const w = src.columns;
  for (let j = 0; j < dst.rows; j++) {
    const r0 = cy.i0[j] * w;
    const r1 = cy.i1[j] * w;
    const fy = cy.f[j];
    const gy = 1 - fy;
    const o = j * dst.columns;
    for (let i = 0; i < dst.columns; i++) {
      const a0 = cx.i0[i];
      const a1 = cx.i1[i];
      const fx = cx.f[i];
      const gx = 1 - fx;
      out[o + i] = lerp2(src_px[r0 + a0], src_px[r0 + a1], src_px[r1 + a0], src_px[r1 + a1], fx, gx, fy, gy, identity);
    }
  }
  return out;
}

/** The grid a texel-centre grid becomes as a vertex grid over the same extent (N → N + 1 samples by default). */
export function asVertexGrid(g: GridDescription, samples = g.columns + 1, rowSamples = g.rows + 1): GridDescription {
  return { ...g, convention: 'vertex', columns: samples, rows: rowSamples };
}

/** The grid a vertex grid becomes as a texel-centre grid over the same extent (N → N − 1 samples by default). */
export function asTexelGrid(g: GridDescription, samples = g.columns - 1, rowSamples = g.rows - 1): GridDescription {
  return { ...g, convention: 'texel-centre', columns: samples, rows: rowSamples };
}
