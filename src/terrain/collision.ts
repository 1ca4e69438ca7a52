/**
 * Collision data per tile (seed 004, "Composite, not Base", the height-field fence, "A height field is static",
 * "Jolt wants at least two collision blocks per axis").
 *
 * Inputs: a terrain and a tile. Outputs: what a physics height field takes — float heights (row-major, tile samples
 * a side) with a sentinel at holes, the block size, and the placement (samples a side, the world position of the
 * tile's first sample, metres per step) — with no physics type named.
 * Rules:
 *  [D] heights come from the composite, never the base (a collider built from the base is ground the player falls
 *      through where somebody last sculpted): the stack is resolved first, then the cache is read;
 *  [R] a hole is the sentinel at its sample, written from the tile's hole mask (`TerrainHoles.tileHoleMask`, the
 *      function the index buffer uses too): Jolt drops every triangle with a sentinel corner, which is exactly the
 *      set of triangles the index buffer drops (holes.ts header; tested through Jolt);
 *  [D] refused shapes, named: a sample count that is not a power of two (e.g. a 129-sample LOD tile), and every
 *      limit Jolt keeps (description.ts: block size 2…8 dividing the samples, two blocks per axis, at most 32768
 *      samples, bits per sample 1…16); and a dynamic body (a height field has no inertia tensor);
 *  [R] the sentinel is the largest float32, the value Jolt's height field reads as "no collision here"; the world
 *      position of sample (i, j) is (i, j) × metres per quad from the terrain's corner at the origin.
 */
import { describeTerrain } from './description.js';
import type { Terrain } from './terrain.js';
import { readTile, tileWindow } from './tiles.js';
import { InputRangeError } from '../errors.js';

/** The "no collision here" height: the largest float32. */
export const COLLISION_NO_HEIGHT = 3.4028234663852886e38;

export interface HeightFieldPlacement {
  samples: number;
  /** World position of the tile's first sample (x along columns, z along rows), metres. */
  cornerX: number;
  cornerZ: number;
  /** Metres between neighbouring samples. */
  step: number;
}

export interface CollisionTile {
  tx: number;
  ty: number;
  heights: Float32Array;
  sentinel: number;
  blockSize: number;
  /** Jolt's mBitsPerSample: each sample is quantised to 2^bits − 1 levels of its block's range. */
  bitsPerSample: number;
  placement: HeightFieldPlacement;
  holes: number;
  /** Always false: a height field is static. */
  canBeDynamic: false;
}

export interface CollisionOptions {
  /** Block size in samples (default: the description's, else min(8, samples/2)). */
  blockSize?: number;
  /** Bits per sample (default: the description's, else 8). */
  bitsPerSample?: number;
  /** 'dynamic' is refused: a height field has no inertia tensor. */
  motion?: 'static' | 'dynamic';
  /** Output buffer of samples² floats (allocated when absent). */
  out?: Float32Array;
}

/** Refuses shapes an engine refuses (see header), returning the block size and bits per sample to use. */
export function collisionSettings(terrain: Terrain, o: CollisionOptions = {}): { blockSize: number; bitsPerSample: number } {
  if (o.motion === 'dynamic') throw new InputRangeError('collision: a height field is static (no inertia tensor); refusing motion "dynamic"');
  const d = terrain.description;
  if (d.kind !== 'collision') {
    throw new InputRangeError(
      `collision: the terrain has ${d.tileSamples}-sample ${d.kind} tiles; a collision height field needs a power-of-two sample count (e.g. ${d.tileSamples - 1})`,
    );
  }
  // describeTerrain holds Jolt's limits; ask it about the requested block size and bits.
  const n = describeTerrain({ ...d, blockSize: o.blockSize ?? d.blockSize, bitsPerSample: o.bitsPerSample ?? d.bitsPerSample });
  return { blockSize: n.blockSize as number, bitsPerSample: n.bitsPerSample as number };
}

/** The collision data of tile (tx, ty): composite heights with the sentinel at holes. */
export function collisionTile(terrain: Terrain, tx: number, ty: number, o: CollisionOptions = {}): CollisionTile {
  const { blockSize, bitsPerSample } = collisionSettings(terrain, o);
  const d = terrain.description;
  if (!Number.isInteger(tx) || !Number.isInteger(ty) || tx < 0 || ty < 0 || tx >= d.tilesX || ty >= d.tilesY) {
    throw new InputRangeError(`collision: tile (${tx}, ${ty}) outside the ${d.tilesX}×${d.tilesY} tiles`);
  }
  const S = d.tileSamples;
  const out = o.out ?? new Float32Array(S * S);
  if (out.length !== S * S) throw new InputRangeError(`collision: output buffer of ${out.length} floats, expected ${S}² = ${S * S}`);
  const w = tileWindow(tx, ty, S);
  const stack = terrain.stack;
  stack.resolve(); // recomputes only the stale cache tiles; the composite is what collides
  readTile(stack.cached(), stack.width, w, out);
  const { mask, holes } = terrain.holes.tileHoleMask(w);
  if (holes > 0) for (let k = 0; k < mask.length; k++) if (mask[k] !== 0) out[k] = COLLISION_NO_HEIGHT;
  return {
    tx,
    ty,
    heights: out,
    sentinel: COLLISION_NO_HEIGHT,
    blockSize,
    bitsPerSample,
    placement: { samples: S, cornerX: w.i0 * d.metresPerQuad, cornerZ: w.j0 * d.metresPerQuad, step: d.metresPerQuad },
    holes,
    canBeDynamic: false,
  };
}
