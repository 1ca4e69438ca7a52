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
  innerRadius: 400,
  windowSize: 1024,
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

/** Pixel-membership predicate of a mask, for a pixel with squared radius r2 and offsets dx, dy. */
export function maskContains(def: MaskDefinition, r2: number, dx: number, dy: number): boolean {
  switch (def.kind) {
    case 'disk':
      return r2 <= def.radius * def.radius;
    case 'annulus':
      return r2 >= def.inner * def.inner && r2 <= def.outer * def.outer;
    case 'outside':
      return r2 > def.radius * def.radius;
    case 'window': {
      const h = def.size / 2;
      return dx >= -h && dx <= h && dy >= -h && dy <= h;
    }
  }
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
 * Pixel counts of radial rings [k·w, (k+1)·w), by rows. Along a row, r² falls towards the column `mid` and rises away
 * from it, so each half is a sorted sequence; for each squared edge (k·w)² the column where a half crosses it is
 * guessed from the column spacing and then found exactly with the same strict comparison ringIndex uses. A row's
 * counts depend only on its dy², so rows with an equal dy² (mirror rows of a centred grid) are counted once; when the
 * two halves of a row mirror each other exactly (dx²[mid − t] = dx²[mid + 1 + t] for every t), the right half's counts
 * are the left half's.
 */
export function ringPixelCounts(g: RadialGeometry, step: number, rings: number): Float64Array {
  const below = new Float64Array(rings + 1); // pixels with r² < (k·w)², accumulated over rows
  const edge2 = new Float64Array(rings + 1);
  for (let k = 0; k <= rings; k++) edge2[k] = k * step * (k * step);
  const dx2 = g.dx2;
  const n = g.grid.columns;
  const mid = g.mid;
  let mirrored = n % 2 === 0 && mid === n / 2 - 1;
  for (let t = 0; mirrored && t <= mid; t++) mirrored = dx2[mid - t] === dx2[mid + 1 + t];
  // Columns are (near) evenly spaced: a first guess of each edge's column from √(t − dy²) and the spacing, then a
  // walk to the exact boundary with the same comparisons, makes each (row, ring) O(1) instead of a sweep over columns.
  const dx = g.dx;
  const x0 = dx[0];
  const h = n > 1 ? (dx[n - 1] - x0) / (n - 1) : 0;
  const guessable = h > 0 && Number.isFinite(h);
  // Rows with an equal dy² (mirror rows of a centred grid) have equal counts: each distinct dy² is counted once and
  // weighted by how many rows share it.
  const rowsWith = new Map<number, number>();
  for (let j = 0; j < g.grid.rows; j++) rowsWith.set(g.dy2[j], (rowsWith.get(g.dy2[j]) ?? 0) + 1);
  for (const [dy2, mult] of rowsWith) {
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
  const counts = new Float64Array(rings);
  for (let k = 0; k < rings; k++) counts[k] = below[k + 1] - below[k];
  return counts;
}

/** Ring index of squared radius r2, consistent with ringPixelCounts' squared edges. */
export function ringIndex(r2: number, step: number): number {
  let k = Math.floor(Math.sqrt(r2) / step);
  if (k * step * (k * step) > r2) k--;
  else if ((k + 1) * step * ((k + 1) * step) <= r2) k++;
  return k;
}
