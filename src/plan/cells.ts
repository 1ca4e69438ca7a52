/**
 * Region structure (article: "Region Geometry Provides Spatial Structure", "Polygons Control Regions; Corners
 * Connect Heights").
 *
 * Inputs: recipe region parameters, the domain, the stream.
 * Outputs: sites, Voronoi cells clipped to the domain (d3-delaunay), deduplicated corners shared by neighbouring
 * cells, each cell's corner list in the generator's order (never sorted), cell adjacency, parent regions owning
 * cells, height groups per parent, and the ownership query position → cell → parent → group.
 * Seed rules [D]: groups come from coordinate-field sampling and random branches and are changed by later
 * partition/ownership steps ("Initial HeightGroup selection may involve coordinate-field sampling and random branches.
 * Subsequent partitioning, ownership, and layout processing can change the groups"); the ownership query follows the
 * stored relationships, it is not a nearest-site lookup ("Spatial ownership queries must follow the relationships in
 * the region data").
 * [R] Sites: uniform draws with a minimum spacing (a rejected candidate's draws stay consumed). Parents: seed cells
 *     drawn from the stream (a repeated pick is redrawn — a fallback that consumes draws); cells join the parent of
 *     the nearest seed site, then a partition step moves border cells to a neighbouring parent with a probability.
 *     The coordinate field is the bell accumulation of seed 002 over the unit square of the domain.
 *     Corners are merged when they coincide within 0.1 mm; the first-seen coordinates are kept.
 */
import { Delaunay } from 'd3-delaunay';
import { bellGenerators } from '../bell/bell-sum.js';
import type { PrngStream } from './prng.js';
import type { RecipeParams } from '../world/world.js';
import type { Point, SourceRegionView } from './sources.js';
import { InputRangeError } from '../errors.js';

export interface Domain {
  xmin: number;
  ymin: number;
  size: number;
}

/**
 * The one query the region map makes of its triangulation: the site nearest (x, y). Declared here rather than typed as
 * d3-delaunay's Delaunay so that the package's public types do not depend on @types/d3-delaunay (a dev dependency).
 */
export interface SiteIndex {
  find(x: number, y: number, start?: number): number;
}

/** Arrays are named `<index space>_<value>` (docs/layout.md, "Names"): `cell_parent` is the parent of each cell. */
export interface RegionMap {
  domain: Domain;
  /** x, y per site (cell generator), in generation order. */
  site_xy: Float64Array;
  /** x, y per deduplicated corner. */
  corner_xy: Float64Array;
  /** Corner ids of each cell, in the generator's order (edges k → k+1, closing). */
  cell_corners: number[][];
  /** Neighbouring cells of each cell (Delaunay neighbours). */
  cell_neighbours: number[][];
  /** Centre of each cell: mean of its edge midpoints. */
  cell_centre: Float64Array;
  /** Parent region of each cell. */
  cell_parent: Int32Array;
  /** Seed cell of each parent region. */
  parent_seedCell: Int32Array;
  /** Height group of each parent region. */
  parent_group: Int8Array;
  /** Parents flagged for the layer-100 relief draw. */
  parent_relief: Uint8Array;
  /** Cells around each corner. */
  corner_cells: number[][];
  /** The sites' Delaunay triangulation (d3-delaunay), seen through the nearest-site query. */
  delaunay: SiteIndex;
  counts: { rejectedSites: number; reassignedCells: number; flippedGroups: number; parentRedraws: number };
}

/** The height-group field: bell accumulation evaluated at a normalized position (u, v) ∈ [0, 1]². */
const fieldGenerators = new Map<string, [number, number][]>();

export function groupFieldAt(f: RecipeParams['regions']['groupField'], u: number, v: number): number {
  // The field's points depend only on its seed and count: drawn once, not once per query.
  const key = `${f.seed}/${f.nb}`;
  let gens = fieldGenerators.get(key);
  if (!gens) {
    gens = bellGenerators(f.seed, f.nb);
    fieldGenerators.set(key, gens);
  }
  let h = 0;
  for (let k = 0; k < gens.length; k++) {
    const z = 1 + f.p1 * k;
    const dx = u - gens[k][0];
    const dy = v - gens[k][1];
    h += Math.exp(-f.p2 * z * (dx * dx + dy * dy)) / (f.p3 * z);
  }
  return h * f.scale;
}

export function groupFromField(value: number, thresholds: readonly [number, number, number]): number {
  if (value < thresholds[0]) return 0;
  if (value < thresholds[1]) return 1;
  if (value < thresholds[2]) return 2;
  return 3;
}

function pointInPolygon(x: number, y: number, poly: readonly number[], xy: Float64Array): boolean {
  let inside = false;
  for (let a = 0, b = poly.length - 1; a < poly.length; b = a++) {
    const xa = xy[2 * poly[a]];
    const ya = xy[2 * poly[a] + 1];
    const xb = xy[2 * poly[b]];
    const yb = xy[2 * poly[b] + 1];
    if (ya > y !== yb > y && x < ((xb - xa) * (y - ya)) / (yb - ya) + xa) inside = !inside;
  }
  return inside;
}

/** Sites: uniform draws with a minimum spacing; a rejected candidate's two draws stay consumed. */
function placeSites(p: RecipeParams['regions'], domain: Domain, stream: PrngStream): { site_xy: Float64Array; rejected: number } {
  const { xmin, ymin, size } = domain;
  const sites: number[] = [];
  let rejected = 0;
  const minD2 = p.minSpacing * p.minSpacing;
  const maxAttempts = p.siteCount * 40;
  for (let attempt = 0; attempt < maxAttempts && sites.length < 2 * p.siteCount; attempt++) {
    const x = xmin + size * stream.uniform();
    const y = ymin + size * stream.uniform();
    let ok = true;
    for (let k = 0; k < sites.length; k += 2) {
      if ((sites[k] - x) ** 2 + (sites[k + 1] - y) ** 2 < minD2) {
        ok = false;
        break;
      }
    }
    if (ok) sites.push(x, y);
    else rejected++;
  }
  return { site_xy: Float64Array.from(sites), rejected };
}

/**
 * Voronoi cells clipped to the domain, their corners deduplicated (merged within 0.1 mm, first-seen coordinates
 * kept), each cell's corner list in the generator's order.
 */
function voronoiCells(delaunay: Delaunay<Float64Array>, n: number, domain: Domain): { corner_xy: Float64Array; cell_corners: number[][] } {
  const { xmin, ymin, size } = domain;
  const voronoi = delaunay.voronoi([xmin, ymin, xmin + size, ymin + size]);
  const cornerIndex = new Map<string, number>();
  const corners: number[] = [];
  const cell_corners: number[][] = [];
  for (let c = 0; c < n; c++) {
    const ring = voronoi.cellPolygon(c) as [number, number][] | null;
    const ids: number[] = [];
    if (ring) {
      for (let k = 0; k < ring.length - 1; k++) {
        const [x, y] = ring[k];
        const key = `${Math.round(x * 1e4)},${Math.round(y * 1e4)}`;
        let id = cornerIndex.get(key);
        if (id === undefined) {
          id = corners.length / 2;
          cornerIndex.set(key, id);
          corners.push(x, y);
        }
        // Two ring points merged into one corner would make a zero-length edge: keep the corner once.
        if (ids.length === 0 || ids[ids.length - 1] !== id) ids.push(id);
      }
      if (ids.length > 1 && ids[ids.length - 1] === ids[0]) ids.pop();
    }
    cell_corners.push(ids);
  }
  return { corner_xy: Float64Array.from(corners), cell_corners };
}

/** Centre of each cell: the mean of its edge midpoints. */
function cellCentres(cell_corners: readonly number[][], corner_xy: Float64Array): Float64Array {
  const cell_centre = new Float64Array(2 * cell_corners.length);
  cell_corners.forEach((ids, c) => {
    let sx = 0;
    let sy = 0;
    for (let k = 0; k < ids.length; k++) {
      const a = ids[k];
      const b = ids[(k + 1) % ids.length];
      sx += (corner_xy[2 * a] + corner_xy[2 * b]) / 2;
      sy += (corner_xy[2 * a + 1] + corner_xy[2 * b + 1]) / 2;
    }
    cell_centre[2 * c] = sx / ids.length;
    cell_centre[2 * c + 1] = sy / ids.length;
  });
  return cell_centre;
}

/** Parent seed cells drawn from the stream; a repeated pick is redrawn (the redraw consumes its draw). */
function drawParentSeeds(parentCount: number, n: number, stream: PrngStream): { parent_seedCell: Int32Array; taken: Set<number>; redraws: number } {
  const parent_seedCell = new Int32Array(parentCount);
  const taken = new Set<number>();
  let redraws = 0;
  for (let q = 0; q < parentCount; q++) {
    let c = stream.below(n);
    while (taken.has(c)) {
      redraws++;
      c = stream.below(n);
    }
    taken.add(c);
    parent_seedCell[q] = c;
  }
  return { parent_seedCell, taken, redraws };
}

/** Each cell joins the parent of the nearest seed site (the first on a tie). */
function nearestSeedParents(site_xy: Float64Array, parent_seedCell: Int32Array): Int32Array {
  const n = site_xy.length / 2;
  const cell_parent = new Int32Array(n);
  for (let c = 0; c < n; c++) {
    let best = 0;
    let bestD = Infinity;
    for (let q = 0; q < parent_seedCell.length; q++) {
      const s = parent_seedCell[q];
      const d = (site_xy[2 * c] - site_xy[2 * s]) ** 2 + (site_xy[2 * c + 1] - site_xy[2 * s + 1]) ** 2;
      if (d < bestD) {
        bestD = d;
        best = q;
      }
    }
    cell_parent[c] = best;
  }
  return cell_parent;
}

/** Partition step: a border cell may move to its first neighbouring parent (seed cells stay). Returns the count moved. */
function partitionBorderCells(
  cell_parent: Int32Array,
  cell_neighbours: readonly number[][],
  seeds: ReadonlySet<number>,
  probability: number,
  stream: PrngStream,
): number {
  let reassigned = 0;
  for (let c = 0; c < cell_parent.length; c++) {
    if (seeds.has(c)) continue;
    const other = cell_neighbours[c].find((m) => cell_parent[m] !== cell_parent[c]);
    if (other === undefined) continue;
    if (stream.uniform() < probability) {
      cell_parent[c] = cell_parent[other];
      reassigned++;
    }
  }
  return reassigned;
}

/** Height groups: the coordinate field at each parent's seed site, then a random branch that may flip the group. */
function drawParentGroups(
  p: RecipeParams['regions'],
  domain: Domain,
  site_xy: Float64Array,
  parent_seedCell: Int32Array,
  stream: PrngStream,
): { parent_group: Int8Array; flipped: number } {
  const parent_group = new Int8Array(parent_seedCell.length);
  let flipped = 0;
  for (let q = 0; q < parent_seedCell.length; q++) {
    const s = parent_seedCell[q];
    const u = (site_xy[2 * s] - domain.xmin) / domain.size;
    const v = (site_xy[2 * s + 1] - domain.ymin) / domain.size;
    let g = groupFromField(groupFieldAt(p.groupField, u, v), p.groupThresholds);
    if (stream.uniform() < p.flipProbability) {
      g = (g + 1 + stream.below(3)) % 4;
      flipped++;
    }
    parent_group[q] = g;
  }
  return { parent_group, flipped };
}

export function buildRegions(p: RecipeParams['regions'], domain: Domain, stream: PrngStream): RegionMap {
  stream.stage('region-sites');
  const { site_xy, rejected } = placeSites(p, domain, stream);
  const n = site_xy.length / 2;
  if (n < 3) {
    // Validation, not a bug: too small a domain for the world's site spacing leaves no region map to build.
    throw new InputRangeError(
      `regions: request domain.size ${domain.size} m holds only ${n} region site(s) ${p.minSpacing} m apart; at least 3 are needed (use a larger domain)`,
    );
  }
  const delaunay = new Delaunay(site_xy);
  const { corner_xy, cell_corners } = voronoiCells(delaunay, n, domain);
  const corner_cells: number[][] = Array.from({ length: corner_xy.length / 2 }, () => []);
  cell_corners.forEach((ids, c) => ids.forEach((id) => corner_cells[id].push(c)));
  const cell_neighbours = Array.from({ length: n }, (_, c) => [...delaunay.neighbors(c)]);
  const cell_centre = cellCentres(cell_corners, corner_xy);

  stream.stage('region-parents');
  const parentCount = Math.min(p.parentCount, n);
  const { parent_seedCell, taken, redraws } = drawParentSeeds(parentCount, n, stream);
  const cell_parent = nearestSeedParents(site_xy, parent_seedCell);
  const reassigned = partitionBorderCells(cell_parent, cell_neighbours, taken, p.reassignProbability, stream);
  const { parent_group, flipped } = drawParentGroups(p, domain, site_xy, parent_seedCell, stream);
  return {
    domain,
    site_xy,
    corner_xy,
    cell_corners,
    cell_neighbours,
    cell_centre,
    cell_parent,
    parent_seedCell,
    parent_group,
    parent_relief: new Uint8Array(parentCount),
    corner_cells,
    delaunay,
    counts: { rejectedSites: rejected, reassignedCells: reassigned, flippedGroups: flipped, parentRedraws: redraws },
  };
}

/** The cell whose stored polygon contains (x, y). */
export function cellAt(m: RegionMap, x: number, y: number): number {
  const hint = m.delaunay.find(x, y);
  if (pointInPolygon(x, y, m.cell_corners[hint], m.corner_xy)) return hint;
  for (const c of m.cell_neighbours[hint]) if (pointInPolygon(x, y, m.cell_corners[c], m.corner_xy)) return c;
  return hint; // on an edge within rounding: the Delaunay owner
}

/** Ownership query: position → cell → parent → height group, following stored relationships. */
export function groupAt(m: RegionMap, x: number, y: number): number {
  return m.parent_group[m.cell_parent[cellAt(m, x, y)]];
}

/** What a nearest-centre shortcut would answer: the cell with the nearest centre, and its parent's group. */
export function nearestCentreCell(m: RegionMap, x: number, y: number): number {
  let best = 0;
  let bestD = Infinity;
  for (let c = 0; c < m.cell_corners.length; c++) {
    const d = (m.cell_centre[2 * c] - x) ** 2 + (m.cell_centre[2 * c + 1] - y) ** 2;
    if (d < bestD) {
      bestD = d;
      best = c;
    }
  }
  return best;
}

export function parentsAdjacent(m: RegionMap, q: number): number[] {
  const out = new Set<number>();
  m.cell_parent.forEach((pq, c) => {
    if (pq !== q) return;
    for (const nb of m.cell_neighbours[c]) if (m.cell_parent[nb] !== q) out.add(m.cell_parent[nb]);
  });
  return [...out].sort((a, b) => a - b);
}

/** The region map as the source stage sees it. */
export function sourceView(m: RegionMap): SourceRegionView {
  const byParent: number[][] = Array.from({ length: m.parent_group.length }, () => []);
  m.cell_parent.forEach((q, c) => byParent[q].push(c));
  const adj = byParent.map((_, q) => parentsAdjacent(m, q));
  const pt = (id: number): Point => [m.corner_xy[2 * id], m.corner_xy[2 * id + 1]];
  return {
    cellCount: m.cell_corners.length,
    cellCentre: (c) => [m.cell_centre[2 * c], m.cell_centre[2 * c + 1]],
    *cellEdges(c) {
      const ids = m.cell_corners[c];
      for (let k = 0; k < ids.length; k++) yield [pt(ids[k]), pt(ids[(k + 1) % ids.length])];
    },
    cellGroup: (c) => m.parent_group[m.cell_parent[c]],
    cellAt: (x, y) => cellAt(m, x, y),
    parentOf: (c) => m.cell_parent[c],
    cellsOfParent: (q) => byParent[q],
    adjacentParents: (q) => adj[q],
  };
}

/** Invariant checks: every cell has ≥ 3 corners, corners are shared, every parent owns its seed cell. */
export function checkRegionInvariants(m: RegionMap): string[] {
  const problems: string[] = [];
  m.cell_corners.forEach((ids, c) => {
    if (ids.length < 3) problems.push(`cell ${c} has ${ids.length} corners`);
    if (new Set(ids).size !== ids.length) problems.push(`cell ${c} repeats a corner`);
  });
  m.parent_seedCell.forEach((s, q) => {
    if (m.cell_parent[s] !== q) problems.push(`parent ${q} does not own its seed cell ${s}`);
  });
  const shared = m.corner_cells.filter((cs) => cs.length >= 2).length;
  if (shared < m.corner_cells.length / 2) problems.push(`only ${shared} of ${m.corner_cells.length} corners are shared`);
  return problems;
}

/**
 * Ownership step after layout [R]: a parent region holding a mission location cannot stay in the zero class; it
 * becomes the first reference type. Returns the parents changed.
 */
export function applyLayoutGroupChanges(m: RegionMap, missionXY: readonly [number, number][], zeroGroup: number, firstGroup: number): number[] {
  const changed: number[] = [];
  for (const [x, y] of missionXY) {
    const q = m.cell_parent[cellAt(m, x, y)];
    if (m.parent_group[q] === zeroGroup) {
      m.parent_group[q] = firstGroup;
      changed.push(q);
    }
  }
  return changed;
}
