/**
 * Precision modes. 'f32': every stored height and every arithmetic step on heights, weights and interpolation factors
 * is rounded to single precision in the documented order — what a GPU would do. 'f64': the same code path without
 * rounding (real arithmetic up to float64), used to produce references. The two differ only in rounding.
 * [R] What stays float64 in f32 mode, and why:
 *  - raster edge functions E: exact integers on the 16.8 grid (a GPU evaluates them in fixed point, also exactly);
 *    λ = fround(E·(1/A)) with 1/A already float32 (raster.ts);
 *  - texture coordinates of the stamp and location-texture draws (world → local → u, v → texel x = u·n − 0.5, its
 *    integer part) and the mip LOD: a GPU interpolates float32 UVs and then resolves the sub-texel fraction to about
 *    8 bits in its sampler, so neither float64 nor float32 UVs reproduce a given GPU bit for bit; heightbench keeps
 *    the coordinates in float64, rounds each bilinear fraction to float32 once, and leaves hardware-like fractions to
 *    the 'hw8' ablation (core/sampling.ts);
 *  - geometric distances computed from pixel centres before they enter a height formula (support shape distance,
 *    outer radius inputs dx, dy): evaluated in float64 from exact pixel-centre coordinates, then rounded once;
 *  - the planar stages (layout, sources, corner heights, fan geometry): resolution-independent float64, the vertex
 *    heights rounded to float32 as they enter the raster.
 */
export type Precision = 'f32' | 'f64';
export type Field = Float32Array | Float64Array;

/** A zeroed field of n samples stored in the mode's precision. */
export function newField(p: Precision, n: number): Field {
  return p === 'f32' ? new Float32Array(n) : new Float64Array(n);
}

/**
 * A copy of `f` in shared memory: a kept stage snapshot that a worker thread (the run's background writer) can read
 * without another copy. Otherwise it is what `f.slice()` gives.
 */
export function sharedCopy(f: Field): Field {
  const out = f instanceof Float32Array ? new Float32Array(new SharedArrayBuffer(f.byteLength)) : new Float64Array(new SharedArrayBuffer(f.byteLength));
  out.set(f);
  return out;
}
