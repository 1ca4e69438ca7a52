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
 *  [D] a hole is the sentinel at its sample; a collider drops every quad touching a sentinel, which is the same
 *      up-to-four quads the index buffer drops (holes.ts);
 *  [D] refused shapes, named: a sample count that is not a power of two (e.g. a 129-sample LOD tile), a block size
 *      above half the tile (fewer than two blocks per axis), a sample count that is not a multiple of the block size,
 *      a block count that is not a power of two; and a dynamic body (a height field has no inertia tensor);
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
  placement: HeightFieldPlacement;
  holes: number;
  /** Always false: a height field is static. */
  canBeDynamic: false;
}

export interface CollisionOptions {
  /** Block size in samples (default: the description's, else min(8, samples/2)). */
  blockSize?: number;
  /** 'dynamic' is refused: a height field has no inertia tensor. */
  motion?: 'static' | 'dynamic';
  /** Output buffer of samples² floats (allocated when absent). */
  out?: Float32Array;
}

/** Refuses shapes an engine refuses (see header), returning the block size to use. */
export function collisionBlockSize(terrain: Terrain, o: CollisionOptions = {}): number {
  if (o.motion === 'dynamic') throw new InputRangeError('collision: a height field is static (no inertia tensor); refusing motion "dynamic"');
  const d = terrain.description;
  if (d.kind !== 'collision') {
    throw new InputRangeError(
      `collision: the terrain has ${d.tileSamples}-sample ${d.kind} tiles; a collision height field needs a power-of-two sample count (e.g. ${d.tileSamples - 1})`,
    );
  }
  // describeTerrain holds the block rules; ask it about the requested block size.
  return describeTerrain({ ...d, blockSize: o.blockSize ?? d.blockSize }).blockSize as number;
}

/** The collision data of tile (tx, ty): composite heights with the sentinel at holes. */
export function collisionTile(terrain: Terrain, tx: number, ty: number, o: CollisionOptions = {}): CollisionTile {
  const blockSize = collisionBlockSize(terrain, o);
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
  let holes = 0;
  for (const [i, j] of terrain.holes.list()) {
    if (i < w.i0 || j < w.j0 || i >= w.i0 + S || j >= w.j0 + S) continue;
    out[(j - w.j0) * S + (i - w.i0)] = COLLISION_NO_HEIGHT;
    holes++;
  }
  return {
    tx,
    ty,
    heights: out,
    sentinel: COLLISION_NO_HEIGHT,
    blockSize,
    placement: { samples: S, cornerX: w.i0 * d.metresPerQuad, cornerZ: w.j0 * d.metresPerQuad, step: d.metresPerQuad },
    holes,
    canBeDynamic: false,
  };
}

/** Quads a collider keeps: those whose four corners are all real heights (not the sentinel). */
export function collisionQuadsAlive(t: CollisionTile): number {
  const S = t.placement.samples;
  const h = t.heights;
  let n = 0;
  for (let j = 0; j < S - 1; j++) {
    for (let i = 0; i < S - 1; i++) {
      const k = j * S + i;
      if (h[k] !== t.sentinel && h[k + 1] !== t.sentinel && h[k + S] !== t.sentinel && h[k + S + 1] !== t.sentinel) n++;
    }
  }
  return n;
}
