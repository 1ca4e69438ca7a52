/**
 * 2D affine transforms for placing assets (article: "Mapping World Coordinates to Local Textures").
 *
 * Convention [R]: a matrix [a, b, c, d, e, f] maps column vectors: x' = a·x + c·y + e, y' = b·x + d·y + f
 * (the SVG/Canvas layout). compose(m2, m1) applies m1 first, then m2. Composition does not commute:
 * rotating (10, 0) by 90° then moving by (100, 50) gives (100, 60); moving first gives (−50, 110).
 */
import { InputRangeError } from '../errors.js';

export type Affine = readonly [number, number, number, number, number, number];

export const IDENTITY: Affine = [1, 0, 0, 1, 0, 0];

export function translation(x: number, y: number): Affine {
  return [1, 0, 0, 1, x, y];
}

export function rotation(theta: number): Affine {
  const c = Math.cos(theta);
  const s = Math.sin(theta);
  return [c, s, -s, c, 0, 0];
}

export function scaling(sx: number, sy = sx): Affine {
  return [sx, 0, 0, sy, 0, 0];
}

/** m2 ∘ m1: apply m1, then m2. */
export function compose(m2: Affine, m1: Affine): Affine {
  return [
    m2[0] * m1[0] + m2[2] * m1[1],
    m2[1] * m1[0] + m2[3] * m1[1],
    m2[0] * m1[2] + m2[2] * m1[3],
    m2[1] * m1[2] + m2[3] * m1[3],
    m2[0] * m1[4] + m2[2] * m1[5] + m2[4],
    m2[1] * m1[4] + m2[3] * m1[5] + m2[5],
  ];
}

/** Composes left to right in application order: chain(a, b, c) applies a, then b, then c. */
export function chain(...steps: Affine[]): Affine {
  return steps.reduce((acc, m) => compose(m, acc), IDENTITY);
}

export function invert(m: Affine): Affine {
  const det = m[0] * m[3] - m[1] * m[2];
  if (det === 0) throw new InputRangeError('invert: singular transform (determinant 0)');
  const a = m[3] / det;
  const b = -m[1] / det;
  const c = -m[2] / det;
  const d = m[0] / det;
  return [a, b, c, d, -(a * m[4] + c * m[5]), -(b * m[4] + d * m[5])];
}

export function transformPoint(m: Affine, p: readonly [number, number]): [number, number] {
  return [m[0] * p[0] + m[2] * p[1] + m[4], m[1] * p[0] + m[3] * p[1] + m[5]];
}

/** Uniform scale of an affine map (square root of |determinant|). */
export function scaleOf(m: Affine): number {
  return Math.sqrt(Math.abs(m[0] * m[3] - m[1] * m[2]));
}
