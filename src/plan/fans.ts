/**
 * Triangle fans (article: "Rasterizing Height Geometry…", "The Triangle-Fan Center Must Follow the Draw Path").
 *
 * Inputs: cell polygons (corner ids in the generator's edge order), corner positions and heights, corner flags.
 * Outputs: per polygon, one triangle per edge: (centre, edge start, edge end), with heights.
 * Seed rules [D]:
 *  - centre position = mean of the edge midpoints, not the area centroid ("The ordinary center position is the
 *    average of edge midpoints");
 *  - centre height = Σ endpoint heights over the edges / number of endpoint contributions ("sums endpoint heights
 *    while traversing edges, then divides by the number of endpoint contributions"), except that the last flagged
 *    corner met in traversal order overwrites it; edge endpoints have replacement branches ("the last encountered
 *    flagged corner to overwrite the center height; edge endpoints have corresponding replacement branches");
 *  - the generator's edge order is kept, never sorted ("Preserve the generator's edge order").
 * These three rules are the conventions declaration's `fans` group (src/conventions: centre, flagged, edgeOrder);
 * the area centroid, the average of the flagged corners and a coordinate sort of the edges exist there as ablations.
 * [R] A corner is flagged ("pinned") when it lies inside a location's footprint (base.ts layer0Fans); its
 *     replacement height is that location's source height. The replacement depends only on the corner, so every fan sharing the corner uses the
 *     same value and shared edges stay continuous.
 */

export interface FanInput {
  /** Corner ids per polygon, generator order. */
  polygons: readonly (readonly number[])[];
  corner_xy: Float64Array;
  corner_height: Float64Array;
  /** 1 where the corner is flagged. */
  corner_flag: Uint8Array;
  /** Replacement height of flagged corners (ignored elsewhere). */
  corner_replacement: Float64Array;
}

import { DEFAULT_CONVENTIONS, type Conventions } from '../conventions/index.js';
import type { TriangleList } from '../drawlist/types.js';

type FanRules = Conventions['fans'];
const RULES = DEFAULT_CONVENTIONS.fans;

/** The polygon's edges (corner id pairs) in traversal order: the generator's, or sorted by midpoint (x, then y). */
export function polygonEdges(ids: readonly number[], xy: Float64Array, rules: FanRules = RULES): [number, number][] {
  const edges = ids.map((a, k): [number, number] => [a, ids[(k + 1) % ids.length]]);
  if (rules.edgeOrder === 'sorted') {
    const mid = (e: [number, number], d: number) => xy[2 * e[0] + d] + xy[2 * e[1] + d];
    edges.sort((p, q) => mid(p, 0) - mid(q, 0) || mid(p, 1) - mid(q, 1));
  }
  return edges;
}

/** Area centroid of a simple polygon (shoelace; the vertex mean for a degenerate one). */
function areaCentroid(ids: readonly number[], xy: Float64Array): { x: number; y: number } {
  let a = 0;
  let cx = 0;
  let cy = 0;
  for (let k = 0; k < ids.length; k++) {
    const p = ids[k];
    const q = ids[(k + 1) % ids.length];
    const cross = xy[2 * p] * xy[2 * q + 1] - xy[2 * q] * xy[2 * p + 1];
    a += cross;
    cx += (xy[2 * p] + xy[2 * q]) * cross;
    cy += (xy[2 * p + 1] + xy[2 * q + 1]) * cross;
  }
  if (a === 0) return { x: ids.reduce((s, p) => s + xy[2 * p], 0) / ids.length, y: ids.reduce((s, p) => s + xy[2 * p + 1], 0) / ids.length };
  return { x: cx / (3 * a), y: cy / (3 * a) };
}

export type { TriangleList } from '../drawlist/types.js';

/** Centre of one polygon: position from edge midpoints; height from endpoints, with the flag overwrite rule. */
export function fanCentre(
  ids: readonly number[],
  inp: FanInput,
  rules: FanRules = RULES,
  edges: readonly (readonly [number, number])[] = polygonEdges(ids, inp.corner_xy, rules),
): { x: number; y: number; h: number; overwritten: boolean } {
  let sx = 0;
  let sy = 0;
  let sh = 0;
  let contributions = 0;
  let overwrite: number | null = null;
  const flagged = new Map<number, number>(); // 'average': each flagged corner once
  for (const [a, b] of edges) {
    sx += (inp.corner_xy[2 * a] + inp.corner_xy[2 * b]) / 2;
    sy += (inp.corner_xy[2 * a + 1] + inp.corner_xy[2 * b + 1]) / 2;
    for (const c of [a, b]) {
      sh += endpointHeight(c, inp);
      contributions++;
      if (inp.corner_flag[c]) {
        overwrite = endpointHeight(c, inp); // the last flagged corner wins
        flagged.set(c, overwrite);
      }
    }
  }
  if (rules.flagged === 'average' && flagged.size > 0) overwrite = [...flagged.values()].reduce((s, h) => s + h, 0) / flagged.size;
  const at = rules.centre === 'area-centroid' ? areaCentroid(ids, inp.corner_xy) : { x: sx / ids.length, y: sy / ids.length };
  return { x: at.x, y: at.y, h: overwrite ?? sh / contributions, overwritten: overwrite !== null };
}

/** Height an edge endpoint contributes: its corner height, or the replacement for a flagged corner. */
export function endpointHeight(c: number, inp: FanInput): number {
  return inp.corner_flag[c] ? inp.corner_replacement[c] : inp.corner_height[c];
}

export function buildFans(inp: FanInput, only?: (polygon: number) => boolean, rules: FanRules = RULES): TriangleList {
  let count = 0;
  inp.polygons.forEach((ids, p) => {
    if (!only || only(p)) count += ids.length;
  });
  const xyh = new Float64Array(count * 9);
  const polygon = new Int32Array(count);
  let t = 0;
  inp.polygons.forEach((ids, p) => {
    if (only && !only(p)) return;
    const edges = polygonEdges(ids, inp.corner_xy, rules);
    const c = fanCentre(ids, inp, rules, edges);
    for (const [a, b] of edges) {
      const o = t * 9;
      xyh[o] = c.x;
      xyh[o + 1] = c.y;
      xyh[o + 2] = c.h;
      xyh[o + 3] = inp.corner_xy[2 * a];
      xyh[o + 4] = inp.corner_xy[2 * a + 1];
      xyh[o + 5] = endpointHeight(a, inp);
      xyh[o + 6] = inp.corner_xy[2 * b];
      xyh[o + 7] = inp.corner_xy[2 * b + 1];
      xyh[o + 8] = endpointHeight(b, inp);
      polygon[t] = p;
      t++;
    }
  });
  return { xyh, count, polygon };
}
