/**
 * Grid description: where each sample of a heightfield sits in the world, and what its codes mean.
 *
 * Inputs: extent (xmin, ymin, sizeX, sizeY in metres), sample counts, sample convention, row direction, height range.
 * Outputs: world <-> continuous sample coordinate maps for both conventions.
 * Seed rules (000, "Mapping Pixel Centers to Texture Coordinates"; 004, resampling and height range):
 *  - texel-centre grid (the 4096² texture): sample i sits at xmin + (i + 0.5)·L/N; world x maps to (x − xmin)·N/L − 0.5.
 *  - vertex grid (4097², both endpoints): sample i sits at xmin + i·L/(N − 1); world x maps to (x − xmin)·(N − 1)/L.
 *  - the height range is authored; one code step is (max − min)/65535 metres.
 * [R] heightbench's default row direction is 'row0-at-ymin': row j advances towards +Y, the same formula as X.
 *     'row0-at-ymax' (north-up images, as GIS tools store them) is supported and always stated in the sidecar.
 */
import { requireFinite, requireInteger, show, InputRangeError } from '../errors.js';
import { DEFAULT_CONVENTIONS } from '../conventions/index.js';

export type SampleConvention = 'texel-centre' | 'vertex';
export type RowDirection = 'row0-at-ymin' | 'row0-at-ymax';

export const SAMPLE_CONVENTIONS: readonly SampleConvention[] = ['texel-centre', 'vertex'];
export const ROW_DIRECTIONS: readonly RowDirection[] = ['row0-at-ymin', 'row0-at-ymax'];

/**
 * [R] The names image and GIS users say: north-up (row 0 is the northern, +y edge) and south-up (row 0 at y min).
 * Accepted wherever a user types a row direction (flags, manifests); files and sidecars always record the canonical name.
 */
export const ROW_DIRECTION_ALIASES: Readonly<Record<string, RowDirection>> = Object.freeze({ 'north-up': 'row0-at-ymax', 'south-up': 'row0-at-ymin' });

/** A row direction as a user types it (canonical or alias), or an InputRangeError listing what is accepted. */
export function parseRowDirection(text: string): RowDirection {
  if ((ROW_DIRECTIONS as readonly string[]).includes(text)) return text as RowDirection;
  const alias = Object.hasOwn(ROW_DIRECTION_ALIASES, text) ? ROW_DIRECTION_ALIASES[text] : undefined;
  if (alias) return alias;
  throw new InputRangeError(`expected row0-at-ymin, row0-at-ymax, north-up (= row0-at-ymax) or south-up (= row0-at-ymin), got ${show(text)}`);
}

/** Authored height range of a 16-bit encoding, in metres. */
export interface HeightRange {
  readonly min: number;
  readonly max: number;
}

/** The article's encoding range: −500 … 500 m (conventions encoding.min, encoding.max). */
export const DEFAULT_RANGE: HeightRange = Object.freeze({ min: DEFAULT_CONVENTIONS.encoding.min, max: DEFAULT_CONVENTIONS.encoding.max });

/** Largest UNORM16 code (conventions encoding.maxCode). */
export const UNORM16_MAX = DEFAULT_CONVENTIONS.encoding.maxCode;

export interface GridDescription {
  /** World X of the grid's left edge (texel-centre) or first vertex (vertex), metres. */
  readonly xmin: number;
  /** World Y of the grid's lower edge / first vertex, metres. */
  readonly ymin: number;
  /** Extent along X, metres. */
  readonly sizeX: number;
  /** Extent along Y, metres. */
  readonly sizeY: number;
  /** Sample count along X. */
  readonly columns: number;
  /** Sample count along Y. */
  readonly rows: number;
  readonly convention: SampleConvention;
  readonly rowDirection: RowDirection;
}

/** heightbench's standard domain: 2048 m square centred on the origin. */
export const DOMAIN_XMIN = -1024;
export const DOMAIN_SIZE = 2048;

/** A texel-centre grid over heightbench's standard domain with n × n samples. */
export function domainGrid(n: number, convention: SampleConvention = 'texel-centre'): GridDescription {
  requireInteger('domainGrid n', n, convention === 'vertex' ? 2 : 1, 1 << 16);
  return {
    xmin: DOMAIN_XMIN,
    ymin: DOMAIN_XMIN,
    sizeX: DOMAIN_SIZE,
    sizeY: DOMAIN_SIZE,
    columns: n,
    rows: n,
    convention,
    rowDirection: 'row0-at-ymin',
  };
}

/** Metres per code step for an authored range. */
export function metresPerCode(range: HeightRange = DEFAULT_RANGE): number {
  return (range.max - range.min) / UNORM16_MAX;
}

export function validateRange(range: HeightRange, what = 'height range'): HeightRange {
  requireFinite(`${what} min`, range.min);
  requireFinite(`${what} max`, range.max);
  if (!(range.max > range.min)) {
    throw new InputRangeError(`${what}: expected max > min, got min ${range.min}, max ${range.max}`);
  }
  if (!Number.isFinite(range.max - range.min)) {
    throw new InputRangeError(`${what}: the span max − min overflows a double (min ${range.min}, max ${range.max})`);
  }
  return range;
}

/**
 * [R] The largest world coordinate or extent a grid may have, in metres (2^53 m, about a light-year): far beyond any
 * terrain, and small enough that the arithmetic on a grid (squared distances, extents times counts) stays finite.
 */
export const MAX_WORLD_COORDINATE = 2 ** 53;

/** Checks a description at a public boundary; returns it unchanged. */
export function validateGrid(g: GridDescription, what = 'grid'): GridDescription {
  requireFinite(`${what}.xmin`, g.xmin);
  requireFinite(`${what}.ymin`, g.ymin);
  requireFinite(`${what}.sizeX`, g.sizeX);
  requireFinite(`${what}.sizeY`, g.sizeY);
  if (!(g.sizeX > 0)) throw new InputRangeError(`${what}.sizeX: expected > 0 m, got ${g.sizeX}`);
  if (!(g.sizeY > 0)) throw new InputRangeError(`${what}.sizeY: expected > 0 m, got ${g.sizeY}`);
  for (const k of ['xmin', 'ymin', 'sizeX', 'sizeY'] as const) {
    if (Math.abs(g[k]) > MAX_WORLD_COORDINATE) throw new InputRangeError(`${what}.${k}: expected within ±${MAX_WORLD_COORDINATE} m (2^53), got ${g[k]}`);
  }
  if (!SAMPLE_CONVENTIONS.includes(g.convention)) {
    throw new InputRangeError(`${what}.convention: expected one of ${SAMPLE_CONVENTIONS.join(', ')}, got ${show(g.convention)}`);
  }
  if (!ROW_DIRECTIONS.includes(g.rowDirection)) {
    throw new InputRangeError(`${what}.rowDirection: expected one of ${ROW_DIRECTIONS.join(', ')}, got ${show(g.rowDirection)}`);
  }
  const minCount = g.convention === 'vertex' ? 2 : 1;
  requireInteger(`${what}.columns`, g.columns, minCount, 1 << 20);
  requireInteger(`${what}.rows`, g.rows, minCount, 1 << 20);
  return g;
}

// ---- the two conventions along one axis (teaching API: plain numbers) ----

/** World position of texel i's centre on an axis of `n` texels spanning [xmin, xmin + extent]. */
export function texelCentreWorld(i: number, xmin: number, extent: number, n: number): number {
  return xmin + ((i + 0.5) * extent) / n;
}

/** Continuous texel coordinate of world position x (texel centres at integers). */
export function worldToTexel(x: number, xmin: number, extent: number, n: number): number {
  return ((x - xmin) * n) / extent - 0.5;
}

/** World position of vertex i on an axis of `n` vertices with both endpoints on the extent's edges. */
export function vertexWorld(i: number, xmin: number, extent: number, n: number): number {
  return xmin + (i * extent) / (n - 1);
}

/** Continuous vertex coordinate of world position x. */
export function worldToVertex(x: number, xmin: number, extent: number, n: number): number {
  return ((x - xmin) * (n - 1)) / extent;
}

// ---- a described grid ----

function axisToWorld(i: number, origin: number, extent: number, n: number, c: SampleConvention): number {
  return c === 'vertex' ? vertexWorld(i, origin, extent, n) : texelCentreWorld(i, origin, extent, n);
}

function worldToAxis(x: number, origin: number, extent: number, n: number, c: SampleConvention): number {
  return c === 'vertex' ? worldToVertex(x, origin, extent, n) : worldToTexel(x, origin, extent, n);
}

/** World X of column i (i may be fractional). */
export function columnWorldX(g: GridDescription, i: number): number {
  return axisToWorld(i, g.xmin, g.sizeX, g.columns, g.convention);
}

/** World Y of row j (j may be fractional), honouring the row direction. */
export function rowWorldY(g: GridDescription, j: number): number {
  const t = axisToWorld(j, 0, g.sizeY, g.rows, g.convention);
  return g.rowDirection === 'row0-at-ymin' ? g.ymin + t : g.ymin + g.sizeY - t;
}

/** Continuous column coordinate of world X. */
export function worldToColumn(g: GridDescription, x: number): number {
  return worldToAxis(x, g.xmin, g.sizeX, g.columns, g.convention);
}

/** Continuous row coordinate of world Y, honouring the row direction. */
export function worldToRow(g: GridDescription, y: number): number {
  const t = g.rowDirection === 'row0-at-ymin' ? y - g.ymin : g.ymin + g.sizeY - y;
  return worldToAxis(t, 0, g.sizeY, g.rows, g.convention);
}

/** Horizontal spacing between neighbouring samples, metres. */
export function sampleSpacing(g: GridDescription): { dx: number; dy: number } {
  const dx = g.convention === 'vertex' ? g.sizeX / (g.columns - 1) : g.sizeX / g.columns;
  const dy = g.convention === 'vertex' ? g.sizeY / (g.rows - 1) : g.sizeY / g.rows;
  return { dx, dy };
}

/** Relative tolerance of extentsAgree: far below a texel of the largest grid (2^20 texels a side), far above rounding. */
export const EXTENT_TOLERANCE = 1e-9;

/**
 * Whether two statements of an extent agree [R]: each of xmin, ymin, sizeX, sizeY within EXTENT_TOLERANCE of the
 * largest coordinate involved. Exact equality would refuse the same extent stated two ways — GeoTIFF tags give ymin
 * as tiepoint − scale × rows, so a sidecar's 0.7 comes back from GDAL's tags as 0.6999999999999993.
 */
export function extentsAgree(
  a: { xmin: number; ymin: number; sizeX: number; sizeY: number },
  b: { xmin: number; ymin: number; sizeX: number; sizeY: number },
): boolean {
  let scale = 1e-300;
  for (const e of [a, b]) scale = Math.max(scale, Math.abs(e.xmin), Math.abs(e.ymin), Math.abs(e.xmin + e.sizeX), Math.abs(e.ymin + e.sizeY));
  const tol = EXTENT_TOLERANCE * scale;
  return Math.abs(a.xmin - b.xmin) <= tol && Math.abs(a.ymin - b.ymin) <= tol && Math.abs(a.sizeX - b.sizeX) <= tol && Math.abs(a.sizeY - b.sizeY) <= tol;
}

/**
 * Names the first field in which two descriptions differ, with both values; null when they describe the same grid
 * (the extent agreeing within extentsAgree's rounding tolerance, every other field equal).
 */
export function gridDifference(a: GridDescription, b: GridDescription): string | null {
  const keys: (keyof GridDescription)[] = ['columns', 'rows', 'xmin', 'ymin', 'sizeX', 'sizeY', 'convention', 'rowDirection'];
  const extentSame = extentsAgree(a, b);
  for (const k of keys) {
    if ((k === 'xmin' || k === 'ymin' || k === 'sizeX' || k === 'sizeY') && extentSame) continue;
    if (a[k] !== b[k]) return `${k}: ${show(a[k])} vs ${show(b[k])}`;
  }
  return null;
}
