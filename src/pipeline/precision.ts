/**
 * Precision modes. 'f32': every stored value and every arithmetic step is rounded to single precision in the
 * documented order — what a GPU would do. 'f64': the same code path without rounding (real arithmetic up to float64),
 * used to produce references. The two differ only in rounding.
 */
export type Precision = 'f32' | 'f64';
export type Field = Float32Array | Float64Array;

/** A zeroed field of n samples stored in the mode's precision. */
export function newField(p: Precision, n: number): Field {
  return p === 'f32' ? new Float32Array(n) : new Float64Array(n);
}
