/**
 * Terrain description (seed 004, "The terrain heightfield"): the numbers a create dialog needs before committing,
 * and refusals for sizes an engine would silently reject.
 *
 * Two tile kinds [R], because the engine notes use both:
 *  - 'collision': a tile's sample count is a power of two (128 samples = 127 quads; 129, "128 quads", is refused);
 *    the limits are the ones Jolt's height field (jolt-physics 1.1.0, HeightFieldShape.cpp) keeps, checked here so
 *    that nothing Jolt refuses leaves heightbench (swept against Jolt in test/terrain-jolt.test.ts):
 *      block size an integer in Jolt's range [2, 8], dividing the sample count — with a power-of-two sample count
 *        that leaves 2, 4 or 8 (Jolt itself takes 3, 5, 6, 7 and pads a sample count that is not a multiple with
 *        no-collision samples: a shape larger than the tile, so refused here);
 *      at least two blocks per axis (Jolt: "Sample count too low!"), so at least 4 samples; the block count is then
 *        a power of two by construction;
 *      at most 32768 samples: Jolt's sub-shape ID is 32 bits and a height field needs 2·⌈log₂ samples⌉ + 1 of them
 *        (65536 samples: "Size exceeds the amount of available sub shape ID bits!");
 *      bits per sample an integer in [1, 16] (Jolt 1.1.0 measured; older Jolt docs say [1, 8]); default 8.
 *    [R] The default block size is min(8, samples/2); a requested size that leaves fewer than two blocks is refused,
 *    naming the rule, rather than silently capped. Where Jolt is more lenient than the seed — it accepts sample
 *    counts that are not a power of two, and block counts that are not — the seed's power-of-two rule is kept;
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
  /** Bits per collision height sample, Jolt's per-block quantisation (collision tiles only); default 8. */
  bitsPerSample?: number;
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
  bitsPerSample: number | null;
}

/** Jolt's height-field limits (HeightFieldShape.cpp of the Jolt that jolt-physics 1.1.0 builds; see the header). */
export const JOLT_HEIGHTFIELD = { minBlockSize: 2, maxBlockSize: 8, minBlocks: 2, maxSamples: 32768, minBitsPerSample: 1, maxBitsPerSample: 16 } as const;
export const DEFAULT_BITS_PER_SAMPLE = 8;

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
  let bits: number | null = null;
  if (d.kind === 'collision') {
    const J = JOLT_HEIGHTFIELD;
    if (S < J.minBlockSize * J.minBlocks)
      throw new InputRangeError(
        `collision tile of ${S} samples: at least ${J.minBlockSize * J.minBlocks} samples (two blocks of at least ${J.minBlockSize}; Jolt refuses fewer)`,
      );
    if (S > J.maxSamples)
      throw new InputRangeError(
        `collision tile of ${S} samples: at most ${J.maxSamples} (Jolt's 32-bit sub-shape ID holds 2·⌈log₂ samples⌉ + 1 bits: 31 at ${J.maxSamples}, 33 at ${2 * J.maxSamples})`,
      );
    blockSize = d.blockSize ?? Math.min(J.maxBlockSize, S / 2);
    if (!Number.isInteger(blockSize) || blockSize < J.minBlockSize || blockSize > J.maxBlockSize)
      throw new InputRangeError(`collision block size ${blockSize}: expected an integer in Jolt's range ${J.minBlockSize}…${J.maxBlockSize}`);
    if (blockSize > S / 2) {
      throw new InputRangeError(
        `collision tile of ${S} samples with blocks of ${blockSize}: fewer than two collision blocks per axis (Jolt refuses: "Sample count too low"); use blocks of at most ${S / 2}`,
      );
    }
    if (S % blockSize !== 0)
      throw new InputRangeError(
        `collision block size ${blockSize}: the tile's ${S} samples must be a multiple of it (Jolt would pad the tile to ${Math.ceil(S / blockSize) * blockSize} samples)`,
      );
    blocks = S / blockSize;
    if (!isPow2(blocks)) throw new InputRangeError(`collision tile: ${blocks} blocks per axis, expected a power of two`);
    bits = d.bitsPerSample ?? DEFAULT_BITS_PER_SAMPLE;
    if (!Number.isInteger(bits) || bits < J.minBitsPerSample || bits > J.maxBitsPerSample)
      throw new InputRangeError(`collision bits per sample ${bits}: expected an integer in Jolt's range ${J.minBitsPerSample}…${J.maxBitsPerSample}`);
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
    bitsPerSample: bits,
  };
}

/** Engine presets for exporting a 2048 m map (vertex grids whose tiles share boundaries). */
export const TILE_PRESETS: Record<string, { tileSamples: number; tiles: number; kind: TileKind; note: string }> = {
  // Unreal Engine landscapes use sections of 2ⁿ − 1 quads (2ⁿ vertices); 64 × 63 + 1 = 4033 vertices per axis.
  'unreal-4033': { tileSamples: 64, tiles: 64, kind: 'collision', note: 'Unreal-style 63-quad sections, 4033² vertices' },
  // Power-of-two-plus-one LOD tiles: 32 × 128 + 1 = 4097 vertices, exactly 0.5 m per quad over 2048 m.
  'lod-4097': { tileSamples: 129, tiles: 32, kind: 'lod', note: '129-sample LOD tiles, 4097² vertices at 0.5 m' },
};
