/**
 * Source heights (article: "Computing Source Heights from Reference Regions", "What Margin, Width, and Amplitude
 * Change", "What Zero and Negative Values Preserve").
 *
 * Inputs: location instances (XY, resource), the region map (cells, groups, parents), recipe source parameters, the
 * stream (fallback draws).
 * Outputs: per location: reference region, edge distance, branch, height in metres.
 * Seed rules [D]:
 *  - reference list by priority: cells of the first reference-group type, else of the second, else a random pick
 *    from the location's non-empty parent set, an empty parent set being an error ("use the first reference-group type
 *    if available, otherwise the second; if neither exists, enter the random fallback branch"; "The random fallback
 *    cannot select from an empty parent set");
 *  - select the reference cell with the nearest centre, then the minimum clamped point-to-segment distance over that
 *    cell's edges only ("first select the region with the nearest center … Then inspect only that region's edges");
 *  - ordinary branch: h = min(max(d − margin, 0)/width, 1) × amplitude (the article's formula); a zero branch ("Other
 *    conditions may set a source to zero"); a sign-changing branch when the first type is absent ("A specific branch
 *    without the first reference-group type also changes signs").
 * [R] Amplitudes are stored normalized by the vertical scale 512 (the 512 of heights, not the 512 m of the weight
 *     range); `sourceHeight` works in whatever unit it is given and the stage converts to metres once, at the end.
 *     The candidate cells are those of the location's own parent region and the parents adjacent to it.
 */
import type { PrngStream } from './prng.js';
import { InputRangeError } from '../errors.js';
import { DEFAULT_CONVENTIONS } from '../conventions/index.js';

export type Point = readonly [number, number];

/**
 * Distance from p to segment ab with the projection clamped to the segment: t = clamp(((p − a)·(b − a))/|b − a|², 0, 1).
 * [R] A zero-length segment is the point a (no division by zero, no NaN).
 */
export function segmentDistance(p: Point, a: Point, b: Point): number {
  const ex = b[0] - a[0];
  const ey = b[1] - a[1];
  const len2 = ex * ex + ey * ey;
  let t = 0;
  if (len2 > 0) {
    t = ((p[0] - a[0]) * ex + (p[1] - a[1]) * ey) / len2;
    t = t < 0 ? 0 : t > 1 ? 1 : t;
  }
  const qx = a[0] + t * ex - p[0];
  const qy = a[1] + t * ey - p[1];
  return Math.sqrt(qx * qx + qy * qy);
}

/**
 * The steps of segmentDistance, for worked examples: dot = (p − a)·(b − a), len2 = |b − a|², the unclamped parameter
 * dot/len2 with its point on the infinite line and that distance, then the clamped t, the nearest point q and the
 * distance (the same value segmentDistance returns).
 */
export function segmentProjection(
  p: Point,
  a: Point,
  b: Point,
): { dot: number; len2: number; tLine: number; lineDistance: number; t: number; q: Point; distance: number } {
  const ex = b[0] - a[0];
  const ey = b[1] - a[1];
  const len2 = ex * ex + ey * ey;
  const dot = (p[0] - a[0]) * ex + (p[1] - a[1]) * ey;
  const tLine = len2 > 0 ? dot / len2 : 0;
  const t = tLine < 0 ? 0 : tLine > 1 ? 1 : tLine;
  const lx = a[0] + tLine * ex - p[0];
  const ly = a[1] + tLine * ey - p[1];
  const q: Point = [a[0] + t * ex, a[1] + t * ey];
  return { dot, len2, tLine, lineDistance: Math.sqrt(lx * lx + ly * ly), t, q, distance: segmentDistance(p, a, b) };
}

export interface SourceShape {
  margin: number;
  transitionWidth: number;
  amplitude: number;
}

/** Ordinary branch: min(max(d − margin, 0)/transitionWidth, 1) × amplitude. */
export function sourceHeight(d: number, s: SourceShape): number {
  const eff = Math.max(d - s.margin, 0);
  return Math.min(eff / s.transitionWidth, 1) * s.amplitude;
}

/** The vertical scale heights are normalized by in stored configuration (conventions corners.heightScale). */
export const HEIGHT_SCALE = DEFAULT_CONVENTIONS.corners.heightScale;

export type SourceBranch = 'ordinary' | 'negative' | 'zero' | 'fallback';

export interface SourceRecord {
  location: number;
  /** Reference cell chosen (nearest centre among the candidates), or −1 for the zero branch. */
  referenceCell: number;
  /** Which list supplied the candidates: 'first', 'second' or 'fallback'. */
  referenceList: 'first' | 'second' | 'fallback' | 'none';
  edgeDistance: number;
  branch: SourceBranch;
  /** Height in metres. */
  height: number;
  x: number;
  y: number;
  /** Envelope offset subtracted from centre distances in corner weighting, metres. */
  envelope: number;
}

/** Minimal view of the region map the source stage needs. */
export interface SourceRegionView {
  cellCount: number;
  cellCentre(c: number): Point;
  cellEdges(c: number): Iterable<[Point, Point]>;
  cellGroup(c: number): number;
  cellAt(x: number, y: number): number;
  parentOf(c: number): number;
  cellsOfParent(p: number): readonly number[];
  adjacentParents(p: number): readonly number[];
}

export interface SourceParams {
  margin: number;
  transitionWidth: number;
  /** Amplitude of the ordinary branch, normalized by HEIGHT_SCALE. */
  amplitudeNorm: number;
  /** Amplitude of the sign-changing branch, normalized (the result is negative). */
  negativeAmplitudeNorm: number;
  /** Height-group ids of the first and second reference types. */
  firstGroup: number;
  secondGroup: number;
}

/** Nearest-centre cell, then the minimum clamped distance over that cell's edges only. */
export function nearestCentreThenEdge(view: SourceRegionView, cells: readonly number[], p: Point): { cell: number; distance: number } {
  let best = -1;
  let bestD2 = Infinity;
  for (const c of cells) {
    const [cx, cy] = view.cellCentre(c);
    const d2 = (cx - p[0]) ** 2 + (cy - p[1]) ** 2;
    if (d2 < bestD2) {
      bestD2 = d2;
      best = c;
    }
  }
  let dmin = Infinity;
  for (const [a, b] of view.cellEdges(best)) dmin = Math.min(dmin, segmentDistance(p, a, b));
  return { cell: best, distance: dmin };
}

export interface LocationForSource {
  x: number;
  y: number;
  zeroSource: boolean;
  envelope: number;
}

export function computeSources(
  view: SourceRegionView,
  locations: readonly LocationForSource[],
  params: SourceParams,
  stream: PrngStream,
  heightScale: number = HEIGHT_SCALE,
): SourceRecord[] {
  stream.stage('sources');
  const out: SourceRecord[] = [];
  locations.forEach((loc, index) => {
    const p: Point = [loc.x, loc.y];
    const base = { location: index, x: loc.x, y: loc.y, envelope: loc.envelope };
    if (loc.zeroSource) {
      out.push({ ...base, referenceCell: -1, referenceList: 'none', edgeDistance: 0, branch: 'zero', height: 0 });
      return;
    }
    const own = view.parentOf(view.cellAt(loc.x, loc.y));
    const parents = [own, ...view.adjacentParents(own)];
    const candidates = (group: number) => parents.flatMap((q) => view.cellsOfParent(q).filter((c) => view.cellGroup(c) === group));
    const first = candidates(params.firstGroup);
    const amp = params.amplitudeNorm;
    const shape = { margin: params.margin, transitionWidth: params.transitionWidth, amplitude: amp };
    if (first.length > 0) {
      const r = nearestCentreThenEdge(view, first, p);
      out.push({
        ...base,
        referenceCell: r.cell,
        referenceList: 'first',
        edgeDistance: r.distance,
        branch: 'ordinary',
        height: sourceHeight(r.distance, shape) * heightScale,
      });
      return;
    }
    const second = candidates(params.secondGroup);
    if (second.length > 0) {
      const r = nearestCentreThenEdge(view, second, p);
      const h = -sourceHeight(r.distance, { ...shape, amplitude: params.negativeAmplitudeNorm }) * heightScale;
      out.push({ ...base, referenceCell: r.cell, referenceList: 'second', edgeDistance: r.distance, branch: 'negative', height: h });
      return;
    }
    const pool = view.cellsOfParent(own);
    if (pool.length === 0) throw new InputRangeError(`source of location #${index}: its parent region ${own} owns no cells (empty parent set)`);
    const pick = pool[stream.below(pool.length)]; // the fallback consumes a draw, continuing the request's stream
    const r = nearestCentreThenEdge(view, [pick], p);
    out.push({
      ...base,
      referenceCell: r.cell,
      referenceList: 'fallback',
      edgeDistance: r.distance,
      branch: 'fallback',
      height: sourceHeight(r.distance, shape) * heightScale,
    });
  });
  return out;
}
