/**
 * Location textures (article: "Location Textures Add Local Shapes"): after the natural stamps, every location
 * instance draws its static height texture through the same sampling path (draw.ts).
 * [R] Transform: placement only (rotate by the heading, translate to the instance); the texture's +X follows the
 *     heading. HeightProgram: the texture's relative heights on top of the location's support target T.
 *     Blend: h ← h + α·(T + s − h) with α the texture's border window, so the shape joins the ground at its edge.
 */
import type { HeightAsset } from '../../src/assets/assets.js';
import { drawAsset } from '../../src/cpu/draw.js';
import type { LocationInstance } from '../../src/plan/layout.js';
import type { Field, Precision } from '../../src/core/precision.js';
import type { SupportTarget } from '../../src/cpu/support.js';
import { chain, rotation, translation } from '../../src/core/transforms.js';
import type { WorldConfig } from '../../src/world/world.js';
import { InputRangeError } from '../../src/errors.js';
import { type DrawGrid } from '../../src/drawlist/placement.js';

export function drawLocations(
  field: Field,
  g: DrawGrid,
  instances: readonly LocationInstance[],
  targets: readonly SupportTarget[],
  world: WorldConfig,
  assets: ReadonlyMap<string, HeightAsset>,
  precision: Precision,
): { draws: number; pixels: number; textures: number } {
  const R = precision === 'f32' ? Math.fround : (x: number) => x;
  let pixels = 0;
  const used = new Set<string>();
  instances.forEach((q, idx) => {
    const key = world.resources[q.resource].texture;
    const asset = assets.get(key);
    if (!asset) throw new InputRangeError(`location texture ${key} is missing from the asset folder`);
    used.add(key);
    const T = R(targets[idx].target);
    const m = chain(rotation(q.heading), translation(q.x, q.y));
    const r = drawAsset(field, g, asset, m, R, { mode: 'location', c: T });
    pixels += r.pixels;
  });
  return { draws: instances.length, pixels, textures: used.size };
}
