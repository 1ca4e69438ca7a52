/**
 * Terrain description (seed 004, "The terrain heightfield"): the numbers a create dialog needs before committing,
 * and refusals for sizes an engine would silently reject.
 *
 * Two tile kinds [R], because the engine notes use both:
 *  - 'collision': a tile's sample count is a power of two (128 samples = 127 quads; 129, "128 quads", is refused);
 *    there must be at least two collision blocks per axis, and a power-of-two block count (an engine returns no
 *    shape otherwise, silently). [R] The default block size is min(8, samples/2); a requested size that leaves fewer
 *    than two blocks is refused, naming the rule, rather than silently capped;
 *  - 'lod': a tile is 2ⁿ + 1 samples (129 → 65 → 33 keeps the boundary sample on the boundary).
 * Tiles share boundary samples: a terrain of T tiles of S samples per axis has T·(S − 1) + 1 samples.
 * The height range is authored: metres per step = (max − min)/65535 (40 m → 0.6 mm, 1000 m → 15.3 mm, same bytes).
 */
import { metresPerCode, type HeightRange } from '../core/grid.js';
import { InputRangeError } from '../errors.js';

export type TileKind = 'collision' | 'lod';

export interface TerrainDescription {
  kind: TileKind;
  /** Samples per tile along an axis (boundary included). */
  tileSamples: number;
  tilesX: number;
  tilesY: number;
  metresPerQuad: number;
  range: HeightRange;
  /** Collision block size in samples (collision tiles only); default min(8, tileSamples/2). */
  blockSize?: number;
}

export interface DerivedNumbers {
  quadsPerTile: number;
  samplesX: number;
  samplesY: number;
  extentX: number;
  extentY: number;
  metresPerStep: number;
  /** Bytes of the whole grid as 16-bit codes, and as float32 heights (the composite). */
  bytesR16: number;
  bytesFloat32: number;
  collisionShapes: number;
  blockSize: number | null;
  blocksPerAxis: number | null;
}

const isPow2 = (n: number) => Number.isInteger(n) && n > 0 && (n & (n - 1)) === 0;

/** Refuses a description an engine would reject, naming the rule; returns the derived numbers otherwise. */
export function describeTerrain(d: TerrainDescription): DerivedNumbers {
  const S = d.tileSamples;
  if (!Number.isInteger(S) || S < 2) throw new InputRangeError(`tile samples: expected an integer ≥ 2, got ${S}`);
  if (d.kind === 'collision' && !isPow2(S)) {
    const hint = isPow2(S - 1) ? ` (${S} samples are ${S - 1} quads: the power of two is the sample count, not the quad count — use ${S - 1} samples)` : '';
    throw new InputRangeError(`collision tile of ${S} samples: the sample count must be a power of two${hint}`);
  }
  if (d.kind === 'lod' && !isPow2(S - 1)) {
    throw new InputRangeError(`LOD tile of ${S} samples: expected 2ⁿ + 1 samples so that each mip keeps its boundary sample (e.g. 129 → 65 → 33)`);
  }
  for (const [k, v] of [
    ['tilesX', d.tilesX],
    ['tilesY', d.tilesY],
  ] as const) {
    if (!Number.isInteger(v) || v < 1) throw new InputRangeError(`${k}: expected an integer ≥ 1, got ${v}`);
  }
  if (!(d.metresPerQuad > 0)) throw new InputRangeError(`metres per quad: expected > 0, got ${d.metresPerQuad}`);
  if (!(d.range.max > d.range.min)) throw new InputRangeError(`height range: expected max > min, got ${d.range.min}…${d.range.max}`);
  let blockSize: number | null = null;
  let blocks: number | null = null;
  if (d.kind === 'collision') {
    blockSize = d.blockSize ?? Math.min(8, S / 2);
    if (blockSize > S / 2) {
      throw new InputRangeError(
        `collision tile of ${S} samples with blocks of ${blockSize}: fewer than two collision blocks per axis (an engine returns no shape, silently); use blocks of at most ${S / 2}`,
      );
    }
    if (S % blockSize !== 0) throw new InputRangeError(`collision block size ${blockSize}: the tile's ${S} samples must be a multiple of it`);
    blocks = S / blockSize;
    if (blocks < 2)
      throw new InputRangeError(`collision tile of ${S} samples with blocks of ${blockSize}: fewer than two blocks per axis (an engine returns no shape)`);
    if (!isPow2(blocks)) throw new InputRangeError(`collision tile: ${blocks} blocks per axis, expected a power of two`);
  }
  const q = S - 1;
  const samplesX = d.tilesX * q + 1;
  const samplesY = d.tilesY * q + 1;
  return {
    quadsPerTile: q,
    samplesX,
    samplesY,
    extentX: d.tilesX * q * d.metresPerQuad,
    extentY: d.tilesY * q * d.metresPerQuad,
    metresPerStep: metresPerCode(d.range),
    bytesR16: samplesX * samplesY * 2,
    bytesFloat32: samplesX * samplesY * 4,
    collisionShapes: d.tilesX * d.tilesY,
    blockSize,
    blocksPerAxis: blocks,
  };
}

/** Engine presets for exporting a 2048 m map (vertex grids whose tiles share boundaries). */
export const TILE_PRESETS: Record<string, { tileSamples: number; tiles: number; kind: TileKind; note: string }> = {
  // Unreal Engine landscapes use sections of 2ⁿ − 1 quads (2ⁿ vertices); 64 × 63 + 1 = 4033 vertices per axis.
  'unreal-4033': { tileSamples: 64, tiles: 64, kind: 'collision', note: 'Unreal-style 63-quad sections, 4033² vertices' },
  // Power-of-two-plus-one LOD tiles: 32 × 128 + 1 = 4097 vertices, exactly 0.5 m per quad over 2048 m.
  'lod-4097': { tileSamples: 129, tiles: 32, kind: 'lod', note: '129-sample LOD tiles, 4097² vertices at 0.5 m' },
};
