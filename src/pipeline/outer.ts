/**
 * Outer blend (article: "Radial Blending Connects the Interior to the Surroundings", "What the Transition Does at Its
 * Ends and Midpoint", "A Circular Transition inside a Square Data Domain").
 * Rules [D]: r = |P − C|; t = clamp((r − 620)/60, 0, 1); α = t²(3 − 2t); H = (1 − α)·H_interior + α·H_outer; the outer
 * input comes from its draw only when that draw is eligible for the request, otherwise from the target's initial
 * value. [R] In f32 mode r, t, α and the blend are each rounded to float32 in that order.
 */
import type { Field, Precision } from './precision.js';
import type { DrawGrid } from './draw.js';

export function outerBlendWeight(r: number, inner = 620, outer = 680): number {
  const t = Math.min(Math.max((r - inner) / (outer - inner), 0), 1);
  return t * t * (3 - 2 * t);
}

/** The blended height at radius r for constant interior and outer heights (band 620–680 m by default). */
export function smoothstepBlend(r: number, inner: number, outer: number, band: { r0: number; r1: number } = { r0: 620, r1: 680 }): number {
  const a = outerBlendWeight(r, band.r0, band.r1);
  return (1 - a) * inner + a * outer;
}

export function applyOuterBlend(field: Field, g: DrawGrid, band: { inner: number; outer: number }, outerInput: Field | number, precision: Precision): { blendedPixels: number; fullyOuter: number } {
  const R = precision === 'f32' ? Math.fround : (x: number) => x;
  const px = g.size / g.n;
  const cx = g.xmin + g.size / 2;
  const cy = g.ymin + g.size / 2;
  const width = R(band.outer - band.inner);
  const inner = R(band.inner);
  let blended = 0;
  let outerOnly = 0;
  for (let j = 0; j < g.n; j++) {
    const dy = R(g.ymin + (j + 0.5) * px - cy);
    for (let i = 0; i < g.n; i++) {
      const dx = R(g.xmin + (i + 0.5) * px - cx);
      const r = R(Math.sqrt(R(R(dx * dx) + R(dy * dy))));
      if (r <= band.inner) continue;
      let t = R(R(r - inner) / width);
      if (t > 1) t = 1;
      const a = R(R(t * t) * R(3 - R(2 * t)));
      const k = j * g.n + i;
      const ho = typeof outerInput === 'number' ? outerInput : outerInput[k];
      field[k] = R(R(R(1 - a) * field[k]) + R(a * R(ho)));
      if (t >= 1) outerOnly++;
      else blended++;
    }
  }
  return { blendedPixels: blended, fullyOuter: outerOnly };
}
