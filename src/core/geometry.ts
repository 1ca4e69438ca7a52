/**
 * Signed distances to the two shape kinds of the layout and the support stage (negative inside): circles, and
 * rectangles oriented by an angle in radians. One definition for the planner (footprints, support bounds) and the CPU
 * executor (support weights).
 */

/** A circle or an oriented rectangle in world metres (layout's WorldSupport and the draw list's SupportShape have it). */
export interface ShapeGeometry {
  kind: 'circle' | 'rect';
  x: number;
  y: number;
  radius: number;
  halfSize: readonly [number, number];
  angle: number;
}

/** Signed distance from (px, py) to an oriented rectangle centred at (x, y) (negative inside). */
export function boxDistance(x: number, y: number, angle: number, hx: number, hy: number, px: number, py: number): number {
  const c = Math.cos(angle);
  const sn = Math.sin(angle);
  const lx = c * (px - x) + sn * (py - y);
  const ly = -sn * (px - x) + c * (py - y);
  const qx = Math.abs(lx) - hx;
  const qy = Math.abs(ly) - hy;
  const outside = Math.hypot(Math.max(qx, 0), Math.max(qy, 0));
  return outside + Math.min(Math.max(qx, qy), 0);
}

/** Signed distance from (x, y) to a support shape (negative inside). */
export function shapeDistance(s: ShapeGeometry, x: number, y: number): number {
  if (s.kind === 'circle') return Math.hypot(x - s.x, y - s.y) - s.radius;
  return boxDistance(s.x, s.y, s.angle, s.halfSize[0], s.halfSize[1], x, y);
}

/** Radius of a shape's bounding circle: the circle's radius, or the rectangle's half diagonal. */
export function shapeRadius(s: ShapeGeometry): number {
  return s.kind === 'circle' ? s.radius : Math.hypot(s.halfSize[0], s.halfSize[1]);
}
