/**
 * Heightmap import as a layer (seed 004, "Import writes a layer, not the base", "Resampling turned out not to be
 * optional"; 16-bit PNG / raw R16 rules are the readers' in src/io).
 *
 * Inputs: a terrain and a heightfield (16-bit codes with their range, or float metres) of any size. Output: an
 * 'import' layer whose deltas turn the base into the imported heights, so base + import layer = the map, and any
 * sculpt layer above it keeps adding on top.
 * Rules:
 *  [D] the import writes a layer; the base is never touched. A re-import under the same name rewrites that layer's
 *      deltas in place and keeps every layer above it (the sculpt survives);
 *  [D] when sizes differ the map is resampled bilinearly edge-to-edge (corner sample to corner sample, both axes) —
 *      through src/core/resample.ts with both grids as vertex grids over the same extent; equal sizes copy;
 *  [R] a first import goes to the bottom of the stack (ground first, sculpt above) and invalidates everything; a
 *      re-import keeps the layer's place, alpha and visibility (the user's settings) and replaces only its deltas;
 *  [R] a delta is the float32 nearest to map − base when that reproduces the map's float32 height exactly (as
 *      store.ts deltaLayer does), so an unclamped import composites to the map bit for bit; chunks where the map
 *      equals the base stay untouched.
 */
import { heightsOf, type Heightfield } from '../core/heightfield.js';
import type { GridDescription } from '../core/grid.js';
import { resampleField } from '../core/resample.js';
import { CHUNK, type EditLayer } from './layers.js';
import type { Terrain } from './terrain.js';
import { InputRangeError } from '../errors.js';

export interface ImportResult {
  layer: EditLayer;
  index: number;
  /** True when a layer of this name was rewritten rather than added. */
  reimport: boolean;
  resampled: { from: [number, number]; to: [number, number] } | null;
  chunks: number;
}

/** Metres of `field` on the terrain's sample grid (resampled edge-to-edge when the sizes differ). */
export function importHeights(terrain: Terrain, field: Heightfield): Float32Array {
  const W = terrain.stack.width;
  const H = terrain.stack.height;
  const src = heightsOf(field);
  const g = field.grid;
  if (g.columns === W && g.rows === H) return Float32Array.from(src);
  if (g.columns < 2 || g.rows < 2)
    throw new InputRangeError(`import: a ${g.columns}×${g.rows} map cannot be resampled edge-to-edge (needs at least 2 samples a side)`);
  // Both grids as vertex grids over one extent: corner samples land on corner samples (no flat lip).
  const extent = { xmin: 0, ymin: 0, sizeX: terrain.derived.extentX, sizeY: terrain.derived.extentY, rowDirection: g.rowDirection };
  const from: GridDescription = { ...extent, columns: g.columns, rows: g.rows, convention: 'vertex' };
  const to: GridDescription = { ...extent, columns: W, rows: H, convention: 'vertex' };
  return resampleField(src, from, to, new Float32Array(W * H));
}

/** Imports `field` as the layer `name` (see header). */
export function importLayer(terrain: Terrain, field: Heightfield, name: string, source = name): ImportResult {
  const stack = terrain.stack;
  const map = importHeights(terrain, field);
  let index = stack.layers.findIndex((l) => l.name === name);
  const reimport = index >= 0;
  let layer: EditLayer;
  if (reimport) {
    layer = stack.layers[index];
    if (layer.kind !== 'import')
      throw new InputRangeError(`import: layer ${JSON.stringify(name)} exists and is a ${layer.kind} layer, not an import; choose another name`);
    layer.chunks.clear();
  } else {
    layer = stack.addLayer(name);
    stack.moveLayer(stack.layers.length - 1, 0);
    index = 0;
  }
  layer.kind = 'import';
  layer.generator = `the import of ${source}`;
  const base = stack.base;
  const W = stack.width;
  // Chunk-major walk so untouched chunks are never created.
  for (let cy = 0; cy * CHUNK < stack.height; cy++) {
    for (let cx = 0; cx * CHUNK < W; cx++) {
      for (let j = cy * CHUNK; j < Math.min(stack.height, (cy + 1) * CHUNK); j++) {
        for (let i = cx * CHUNK; i < Math.min(W, (cx + 1) * CHUNK); i++) {
          const k = j * W + i;
          const b = Math.fround(Math.min(stack.range.max, Math.max(stack.range.min, base[k])));
          const exact = map[k] - b;
          if (exact === 0) continue;
          const d32 = Math.fround(exact);
          layer.addDelta(i, j, Math.fround(b + d32) === map[k] ? d32 : exact);
        }
      }
    }
  }
  stack.invalidateAll();
  const resampled =
    field.grid.columns === W && field.grid.rows === stack.height
      ? null
      : { from: [field.grid.columns, field.grid.rows] as [number, number], to: [W, stack.height] as [number, number] };
  return { layer, index, reimport, resampled, chunks: layer.chunks.size };
}
