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

/** Flat triangle list: per triangle 3 vertices × (x, y, h), in draw order. */
export interface TriangleList {
  xyh: Float64Array;
  count: number;
  /** Index of the polygon each triangle came from. */
  polygon: Int32Array;
}

/** Centre of one polygon: position from edge midpoints; height from endpoints, with the flag overwrite rule. */
export function fanCentre(ids: readonly number[], inp: FanInput): { x: number; y: number; h: number; overwritten: boolean } {
  let sx = 0;
  let sy = 0;
  let sh = 0;
  let contributions = 0;
  let overwrite: number | null = null;
  for (let k = 0; k < ids.length; k++) {
    const a = ids[k];
    const b = ids[(k + 1) % ids.length];
    sx += (inp.corner_xy[2 * a] + inp.corner_xy[2 * b]) / 2;
    sy += (inp.corner_xy[2 * a + 1] + inp.corner_xy[2 * b + 1]) / 2;
    for (const c of [a, b]) {
      sh += endpointHeight(c, inp);
      contributions++;
      if (inp.corner_flag[c]) overwrite = endpointHeight(c, inp); // the last flagged corner wins
    }
  }
  return { x: sx / ids.length, y: sy / ids.length, h: overwrite ?? sh / contributions, overwritten: overwrite !== null };
}

/** Height an edge endpoint contributes: its corner height, or the replacement for a flagged corner. */
export function endpointHeight(c: number, inp: FanInput): number {
  return inp.corner_flag[c] ? inp.corner_replacement[c] : inp.corner_height[c];
}

export function buildFans(inp: FanInput, only?: (polygon: number) => boolean): TriangleList {
  let count = 0;
  inp.polygons.forEach((ids, p) => {
    if (!only || only(p)) count += ids.length;
  });
  const xyh = new Float64Array(count * 9);
  const polygon = new Int32Array(count);
  let t = 0;
  inp.polygons.forEach((ids, p) => {
    if (only && !only(p)) return;
    const c = fanCentre(ids, inp);
    for (let k = 0; k < ids.length; k++) {
      const a = ids[k];
      const b = ids[(k + 1) % ids.length];
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
