/**
 * A whole terrain (seed 004, "A terrain is its description and a fill height"): the description with its derived
 * numbers, one grid of samples for every tile (tile windows share their boundary samples), the edit-layer stack
 * over a float32 base in metres, the paint channels and the holes.
 *
 * [R] The base is held in metres as float32 (heightbench's field precision), not as 16-bit codes; the authored range
 *     still bounds every composite (the clamp) and sets the step of every 16-bit export.
 */
import { checkFieldSize, checkMemoryEstimate } from '../io/limits.js';
import { describeTerrain, type DerivedNumbers, type TerrainDescription } from './description.js';
import { TerrainHoles } from './holes.js';
import { LayerStack } from './layers.js';
import { TerrainWeights } from './weights.js';
import { InputRangeError } from '../errors.js';

export interface Terrain {
  readonly description: TerrainDescription;
  readonly derived: DerivedNumbers;
  readonly stack: LayerStack;
  readonly weights: TerrainWeights;
  readonly holes: TerrainHoles;
}

export interface CreateOptions {
  /** Height of every base sample in metres (default 0, clamped into the range). */
  fill?: number;
  /**
   * A base heightfield instead of a fill: samplesX × samplesY heights in metres, row-major (copied). Heights outside
   * the range are kept in the base and clamped by the composite, as every base is.
   */
  base?: ArrayLike<number>;
  /** Names of the paint layers (default one, "ground"). */
  paintLayers?: readonly string[];
}

/**
 * Bounds a terrain grid before anything is allocated: the documented sample limit (src/io/limits.ts, 2²⁸ samples,
 * 2²⁰ per side) and the memory budget (HEIGHTBENCH_MAX_MEMORY_MB, else 80 % of the machine) for base + composite
 * cache (8 bytes) and the paint bytes per sample. LimitError (exit 2) naming the size.
 */
export function checkTerrainSize(what: string, width: number, height: number, paintLayers: number): void {
  checkFieldSize(what, width, height);
  checkMemoryEstimate(`${what} of ${width}×${height} samples`, width * height * (8 + paintLayers));
}

/** Refuses a description an engine would reject (describeTerrain), then allocates the grid, checking its size first. */
export function createTerrain(description: TerrainDescription, o: CreateOptions = {}): Terrain {
  const derived = describeTerrain(description);
  const samples = derived.samplesX * derived.samplesY;
  const names = o.paintLayers ?? ['ground'];
  checkTerrainSize('terrain', derived.samplesX, derived.samplesY, names.length);
  const { min, max } = description.range;
  if (o.base !== undefined && o.fill !== undefined) throw new InputRangeError('createTerrain: give a fill height or a base heightfield, not both');
  const fill = o.fill ?? Math.min(max, Math.max(min, 0));
  if (!Number.isFinite(fill) || fill < min || fill > max) throw new InputRangeError(`fill height ${fill} m is outside the height range ${min}…${max} m`);
  if (o.base !== undefined && o.base.length !== samples)
    throw new InputRangeError(
      `createTerrain: base of ${o.base.length} heights, the description has ${derived.samplesX}×${derived.samplesY} = ${samples} samples`,
    );
  const stack = new LayerStack(derived.samplesX, derived.samplesY, new Float32Array(samples).fill(fill), description.range);
  if (o.base !== undefined) stack.writeBase(o.base); // checks every height, invalidates the whole cache
  return {
    description,
    derived,
    stack,
    weights: new TerrainWeights(derived.samplesX, derived.samplesY, names),
    holes: new TerrainHoles(derived.samplesX, derived.samplesY),
  };
}

/** Wraps parts read from a store (or rebuilt by a resize) after checking they agree with the description. */
export function assembleTerrain(description: TerrainDescription, stack: LayerStack, weights: TerrainWeights, holes: TerrainHoles): Terrain {
  const derived = describeTerrain(description);
  const want = `${derived.samplesX}×${derived.samplesY}`;
  for (const [what, w, h] of [
    ['layer stack', stack.width, stack.height],
    ['paint channels', weights.width, weights.height],
    ['holes', holes.width, holes.height],
  ] as const) {
    if (w !== derived.samplesX || h !== derived.samplesY) throw new InputRangeError(`terrain: ${what} are ${w}×${h} samples, the description says ${want}`);
  }
  return { description, derived, stack, weights, holes };
}
