/**
 * Comparison regions: masks (inner disk, central window, blend ring, outside the ring) and radial rings, all defined
 * on texel-centre (or vertex) world coordinates relative to the domain centre.
 *
 * Every membership test is a comparison of the same float64 quantities: r² = dx² + dy² with dx = x − cx, dy = y − cy
 * against R·R. The per-row pixel counts (geometry) are found by binary search with exactly those predicates, so the
 * counts and the per-pixel classification of differing pixels can never disagree.
 */
import { columnWorldX, rowWorldY, type GridDescription } from '../core/grid.js';
import { DEFAULT_CONVENTIONS } from '../conventions/index.js';
import { ARTICLE_SCOPES } from '../pipelines/scopes.js';

export type MaskDefinition =
  | { readonly kind: 'disk'; readonly radius: number }
  | { readonly kind: 'annulus'; readonly inner: number; readonly outer: number }
  | { readonly kind: 'outside'; readonly radius: number }
  | { readonly kind: 'window'; readonly size: number };

export interface MaskSettings {
  innerRadius: number;
  windowSize: number;
  ringInner: number;
  ringOuter: number;
  radialStep: number;
}

/** [D] the article's scopes ("inner 400 m", "central 1,024×1,024 m", the outer blend band of conventions outer.inner…outer); [R] rings of 10 m. */
export const DEFAULT_MASKS: MaskSettings = {
  innerRadius: ARTICLE_SCOPES.innerRadius,
  windowSize: ARTICLE_SCOPES.windowSize,
  ringInner: DEFAULT_CONVENTIONS.outer.inner,
  ringOuter: DEFAULT_CONVENTIONS.outer.outer,
  radialStep: 10,
};

export function maskDefinitions(s: MaskSettings): Record<string, MaskDefinition> {
  return {
    innerDisk: { kind: 'disk', radius: s.innerRadius },
    centralWindow: { kind: 'window', size: s.windowSize },
    blendRing: { kind: 'annulus', inner: s.ringInner, outer: s.ringOuter },
    outsideRing: { kind: 'outside', radius: s.ringOuter },
  };
}

/** Per-grid geometry shared by every region: squared offsets of each column and row from the centre. */
export class RadialGeometry {
  readonly dx: Float64Array;
  readonly dx2: Float64Array;
  readonly dy: Float64Array;
  readonly dy2: Float64Array;
  /** Column of the smallest dx² (the split point of the two monotone halves). */
  readonly mid: number;
  readonly cx: number;
  readonly cy: number;

  constructor(readonly grid: GridDescription) {
    this.cx = grid.xmin + grid.sizeX / 2;
    this.cy = grid.ymin + grid.sizeY / 2;
    this.dx = new Float64Array(grid.columns);
    this.dx2 = new Float64Array(grid.columns);
    let best = Infinity;
    let mid = 0;
    for (let i = 0; i < grid.columns; i++) {
      const d = columnWorldX(grid, i) - this.cx;
      this.dx[i] = d;
      this.dx2[i] = d * d;
      if (d * d < best) {
        best = d * d;
        mid = i;
      }
    }
    this.mid = mid;
    this.dy = new Float64Array(grid.rows);
    this.dy2 = new Float64Array(grid.rows);
    for (let j = 0; j < grid.rows; j++) {
      const d = rowWorldY(grid, j) - this.cy;
      this.dy[j] = d;
      this.dy2[j] = d * d;
    }
  }

  /** Number of columns i in row j with dx²[i] + dy²[j] < t (strict) or ≤ t. */
  countWithin(j: number, t: number, strict: boolean): number {
    const dx2 = this.dx2;
    const dy2 = this.dy2[j];
    const inside = strict ? (i: number) => dx2[i] + dy2 < t : (i: number) => dx2[i] + dy2 <= t;
    const m = this.mid;
    if (!inside(m)) return 0;
    // Left half [0, m]: predicate goes false…true; find the first true.
    let lo = 0;
    let hi = m;
    while (lo < hi) {
      const c = (lo + hi) >> 1;
      if (inside(c)) hi = c;
      else lo = c + 1;
    }
    const first = lo;
    // Right half [m, n−1]: predicate goes true…false; find the last true.
    lo = m;
    hi = this.grid.columns - 1;
    while (lo < hi) {
      const c = (lo + hi + 1) >> 1;
      if (inside(c)) lo = c;
      else hi = c - 1;
    }
    return lo - first + 1;
  }

  /** Largest r over the grid's samples (a corner), for sizing the radial profile. */
  maxRadius(): number {
    const x = Math.max(this.dx2[0], this.dx2[this.dx2.length - 1]);
    const y = Math.max(this.dy2[0], this.dy2[this.dy2.length - 1]);
    return Math.sqrt(x + y);
  }
}

/**
 * A mask as bounds on r², |dx| and |dy| (±∞ where a kind has none): the one form of the membership predicate, read by
 * maskContainsBounds here and by the comparison kernel (compare.wat).
 */
export interface MaskBounds {
  /** r² > lo when loStrict, else r² ≥ lo. */
  lo: number;
  loStrict: boolean;
  /** r² ≤ hi. */
  hi: number;
  /** −half ≤ dx ≤ half and −half ≤ dy ≤ half. */
  half: number;
}

export function maskBounds(def: MaskDefinition): MaskBounds {
  switch (def.kind) {
    case 'disk':
      return { lo: -Infinity, loStrict: false, hi: def.radius * def.radius, half: Infinity };
    case 'annulus':
      return { lo: def.inner * def.inner, loStrict: false, hi: def.outer * def.outer, half: Infinity };
    case 'outside':
      return { lo: def.radius * def.radius, loStrict: true, hi: Infinity, half: Infinity };
    case 'window':
      return { lo: -Infinity, loStrict: false, hi: Infinity, half: def.size / 2 };
  }
}

/** Pixel-membership predicate for a pixel with squared radius r2 and offsets dx, dy. */
export function maskContainsBounds(b: MaskBounds, r2: number, dx: number, dy: number): boolean {
  return (b.loStrict ? r2 > b.lo : r2 >= b.lo) && r2 <= b.hi && dx >= -b.half && dx <= b.half && dy >= -b.half && dy <= b.half;
}

/**
 * The member columns of each mask in each row, as two spans [s, e) a row (the left half of the row, columns up to
 * RadialGeometry.mid, then the right half; an empty span has s = e): where maskContainsBounds holds. Row j, mask m at
 * out[4(jM + m)]. On each half dx is monotone and so is r² (the premise of countWithin), so each condition holds on a
 * prefix or a suffix of the half, found by binary search with the predicate itself, and the member columns of a half
 * are one span.
 */
export function maskRowSpans(g: RadialGeometry, masks: readonly MaskBounds[]): Int32Array {
  const M = masks.length;
  const W = g.grid.columns;
  const out = new Int32Array(4 * M * g.grid.rows);
  const { dx, dx2, dy2, dy } = g;
  const mid = g.mid;
  // The conditions of maskContainsBounds on column i of a row at dy² = y2: 0 the lower bound on r², 1 the upper, 2
  // dx ≥ −half, 3 dx ≤ half; `not` negates.
  const holds = (b: MaskBounds, y2: number, c: number, i: number): boolean => {
    const r2 = dx2[i] + y2;
    return c === 0 ? (b.loStrict ? r2 > b.lo : r2 >= b.lo) : c === 1 ? r2 <= b.hi : c === 2 ? dx[i] >= -b.half : dx[i] <= b.half;
  };
  /** The first column in [lo, hi] where condition c holds (fails, when `not`), for one false then true there; hi + 1 when none. */
  const first = (b: MaskBounds, y2: number, c: number, not: boolean, lo: number, hi: number): number => {
    let a = lo;
    let e = hi + 1;
    while (a < e) {
      const h = (a + e) >> 1;
      if (holds(b, y2, c, h) !== not) e = h;
      else a = h + 1;
    }
    return a;
  };
  for (let j = 0; j < g.grid.rows; j++) {
    const y2 = dy2[j];
    for (let m = 0; m < M; m++) {
      const b = masks[m];
      const at = 4 * (j * M + m);
      if (!(dy[j] >= -b.half && dy[j] <= b.half)) continue;
      // Left half [0, mid]: r² falls, dx rises — the lower bound holds on a prefix, the upper on a suffix.
      const ls = Math.max(first(b, y2, 1, false, 0, mid), first(b, y2, 2, false, 0, mid));
      const le = Math.min(first(b, y2, 0, true, 0, mid), first(b, y2, 3, true, 0, mid));
      // Right half [mid + 1, W − 1]: r² and dx rise — the lower bound holds on a suffix, the upper on a prefix.
      const rs = Math.max(first(b, y2, 0, false, mid + 1, W - 1), first(b, y2, 2, false, mid + 1, W - 1));
      const re = Math.min(first(b, y2, 1, true, mid + 1, W - 1), first(b, y2, 3, true, mid + 1, W - 1));
      if (ls < le) {
        out[at] = ls;
        out[at + 1] = le;
      }
      if (rs < re) {
        out[at + 2] = rs;
        out[at + 3] = re;
      }
    }
  }
  return out;
}

/** Pixel-membership predicate of a mask (maskContainsBounds of its bounds). */
export function maskContains(def: MaskDefinition, r2: number, dx: number, dy: number): boolean {
  return maskContainsBounds(maskBounds(def), r2, dx, dy);
}

/** Pixel count of a mask over the whole grid, by rows, with the same predicates as maskContains. */
export function maskPixelCount(def: MaskDefinition, g: RadialGeometry): number {
  const rows = g.grid.rows;
  const cols = g.grid.columns;
  let n = 0;
  if (def.kind === 'window') {
    const h = def.size / 2;
    let c = 0;
    for (let i = 0; i < cols; i++) if (g.dx[i] >= -h && g.dx[i] <= h) c++;
    for (let j = 0; j < rows; j++) if (g.dy[j] >= -h && g.dy[j] <= h) n += c;
    return n;
  }
  // A row's count depends only on its dy²: rows sharing one (mirror rows of a centred grid) are counted once.
  const rowsWith = new Map<number, number[]>();
  for (let j = 0; j < rows; j++) {
    const same = rowsWith.get(g.dy2[j]);
    if (same) same.push(j);
    else rowsWith.set(g.dy2[j], [j]);
  }
  for (const same of rowsWith.values()) {
    const j = same[0];
    let c: number;
    if (def.kind === 'disk') c = g.countWithin(j, def.radius * def.radius, false);
    else if (def.kind === 'outside') c = cols - g.countWithin(j, def.radius * def.radius, false);
    else c = g.countWithin(j, def.outer * def.outer, false) - g.countWithin(j, def.inner * def.inner, true);
    n += c * same.length;
  }
  return n;
}

/**
 * What a by-rows count of "pixels with r² < t" reads (ringPixelCounts, and the comparison kernel's countBelow): the
 * distinct rows (dy², how many rows share it), whether the two halves of a row mirror each other, and the column
 * spacing for the first guess of each crossing.
 */
export interface RowCountPlan {
  /** Distinct dy² in first-row order, and the number of rows sharing each. */
  rowDy2: Float64Array;
  rowMult: Float64Array;
  mirrored: boolean;
  guessable: boolean;
  x0: number;
  h: number;
}

export function rowCountPlan(g: RadialGeometry): RowCountPlan {
  const dx2 = g.dx2;
  const n = g.grid.columns;
  const mid = g.mid;
  let mirrored = n % 2 === 0 && mid === n / 2 - 1;
  for (let t = 0; mirrored && t <= mid; t++) mirrored = dx2[mid - t] === dx2[mid + 1 + t];
  const x0 = g.dx[0];
  const h = n > 1 ? (g.dx[n - 1] - x0) / (n - 1) : 0;
  // Rows with an equal dy² (mirror rows of a centred grid) have equal counts: each distinct dy² is counted once and
  // weighted by how many rows share it.
  const rowsWith = new Map<number, number>();
  for (let j = 0; j < g.grid.rows; j++) rowsWith.set(g.dy2[j], (rowsWith.get(g.dy2[j]) ?? 0) + 1);
  return {
    rowDy2: Float64Array.from(rowsWith.keys()),
    rowMult: Float64Array.from(rowsWith.values()),
    mirrored,
    guessable: h > 0 && Number.isFinite(h),
    x0,
    h,
  };
}

/** Squared ring edges (k·w)² for k ∈ [0, rings]. */
export function ringEdges2(step: number, rings: number): Float64Array {
  const edge2 = new Float64Array(rings + 1);
  for (let k = 0; k <= rings; k++) edge2[k] = k * step * (k * step);
  return edge2;
}

/** Pixel counts per ring from the squared-edge counts `below` (pixels with r² < edge2[k]). */
export function ringCountsFromBelow(below: Float64Array, rings: number): Float64Array {
  const counts = new Float64Array(rings);
  for (let k = 0; k < rings; k++) counts[k] = below[k + 1] - below[k];
  return counts;
}

/** The smallest double above x ≥ 0: r² ≤ x is r² < nextUp(x) for any double r². */
export function nextUp(x: number): number {
  if (!(x >= 0) || x === Infinity) throw new RangeError(`nextUp: expected a finite x ≥ 0, got ${x}`);
  const v = new Float64Array([x === 0 ? 0 : x]);
  const bits = new BigUint64Array(v.buffer);
  bits[0] += 1n;
  return v[0];
}

/**
 * A disk, annulus or outside mask's pixel count as counts of "r² < t": total·(all pixels) + Σ below(plus) −
 * Σ below(minus), with r² ≤ x written r² < nextUp(x) — maskPixelCount's predicates exactly. Null for a window
 * (its count is separable and cheap) and for a radius whose square is not finite.
 */
export function maskCountTerms(def: MaskDefinition): { total: 0 | 1; plus: number[]; minus: number[] } | null {
  // A squared radius that overflows (a radius near 1e200) has no next double: maskPixelCount counts such a mask.
  const squares = def.kind === 'annulus' ? [def.inner * def.inner, def.outer * def.outer] : def.kind === 'window' ? [] : [def.radius * def.radius];
  if (squares.some((x) => !Number.isFinite(x))) return null;
  switch (def.kind) {
    case 'disk':
      return { total: 0, plus: [nextUp(def.radius * def.radius)], minus: [] };
    case 'annulus':
      return { total: 0, plus: [nextUp(def.outer * def.outer)], minus: [def.inner * def.inner] };
    case 'outside':
      return { total: 1, plus: [], minus: [nextUp(def.radius * def.radius)] };
    case 'window':
      return null;
  }
}

/**
 * Pixel counts of radial rings [k·w, (k+1)·w), by rows, in JavaScript (the comparison kernel's countBelow runs the
 * same loop). Along a row, r² falls towards the column `mid` and rises away from it, so each half is a sorted
 * sequence; for each squared edge (k·w)² the column where a half crosses it is guessed from the column spacing and
 * then found exactly with the same strict comparison ringIndex uses. A row's counts depend only on its dy², so rows
 * with an equal dy² are counted once; when the two halves of a row mirror each other exactly
 * (dx²[mid − t] = dx²[mid + 1 + t] for every t), the right half's counts are the left half's.
 */
export function ringPixelCounts(g: RadialGeometry, step: number, rings: number): Float64Array {
  const plan = rowCountPlan(g);
  const edge2 = ringEdges2(step, rings);
  const { mirrored, guessable, x0, h } = plan;
  const below = new Float64Array(rings + 1); // pixels with r² < (k·w)², accumulated over rows
  const dx2 = g.dx2;
  const n = g.grid.columns;
  const mid = g.mid;
  for (let row = 0; row < plan.rowDy2.length; row++) {
    const dy2 = plan.rowDy2[row];
    const mult = plan.rowMult[row];
    for (let k = 1; k <= rings; k++) {
      const t = edge2[k];
      if (dx2[mid] + dy2 >= t) continue; // no column of this row is below this edge (monotone halves)
      const r = Math.sqrt(t - dy2);
      // Left half [0, mid] (r² non-increasing towards mid): p = last column with r² ≥ t, or −1.
      let p = guessable ? Math.min(mid, Math.max(-1, Math.floor((-r - x0) / h))) : mid;
      while (p >= 0 && dx2[p] + dy2 < t) p--;
      while (p < mid && dx2[p + 1] + dy2 >= t) p++;
      let c = mid - p;
      if (mirrored) c *= 2;
      else {
        // Right half [mid + 1, n − 1]: q = first column with r² ≥ t, or n.
        let q = guessable ? Math.min(n, Math.max(mid + 1, Math.ceil((r - x0) / h))) : mid + 1;
        while (q < n && dx2[q] + dy2 < t) q++;
        while (q > mid + 1 && dx2[q - 1] + dy2 >= t) q--;
        c += q - (mid + 1);
      }
      below[k] += c * mult;
    }
  }
  return ringCountsFromBelow(below, rings);
}

/** Ring index of squared radius r2, consistent with ringPixelCounts' squared edges. */
export function ringIndex(r2: number, step: number): number {
  let k = Math.floor(Math.sqrt(r2) / step);
  if (k * step * (k * step) > r2) k--;
  else if ((k + 1) * step * ((k + 1) * step) <= r2) k++;
  return k;
}
