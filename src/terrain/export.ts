/**
 * Engine export (seed 004 tile conventions): a delivered texel-centre map is resampled through world coordinates to a
 * vertex grid whose tiles share boundary samples, cut into tiles, and written as R16 or PNG16 per tile with a
 * sidecar each and a manifest naming each tile's file, grid position and world extent.
 */
import { join } from 'node:path';
import { resampleField } from '../core/resample.js';
import { encodeHeightfield, floatHeightfield, heightsOf } from '../core/heightfield.js';
import { DEFAULT_RANGE, type GridDescription } from '../core/grid.js';
import { writeFileAtomic } from '../io/atomic.js';
import { readHeightfieldFile, writeHeightfieldFile } from '../io/heightfield-file.js';
import { describeTerrain, TILE_PRESETS, type TerrainDescription } from './description.js';
import { readTile, tileWindow } from './tiles.js';
import { MismatchError } from '../errors.js';

export interface ExportOptions {
  tileSamples?: number;
  preset?: string;
  format: 'r16' | 'png';
}

export function exportTiles(mapPath: string, outDir: string, o: ExportOptions): { manifest: Record<string, unknown>; files: number } {
  const map = readHeightfieldFile(mapPath).field;
  const g = map.grid;
  if (g.convention !== 'texel-centre') throw new MismatchError(`${mapPath}: expected a texel-centre map, got a ${g.convention} grid`);
  if (g.columns !== g.rows || g.sizeX !== g.sizeY)
    throw new MismatchError(`${mapPath}: expected a square map, got ${g.columns}×${g.rows} over ${g.sizeX}×${g.sizeY} m`);
  let tileSamples: number;
  let tiles: number;
  let kind: TerrainDescription['kind'];
  if (o.preset) {
    const p = TILE_PRESETS[o.preset];
    if (!p) throw new MismatchError(`unknown preset ${JSON.stringify(o.preset)}; presets: ${Object.keys(TILE_PRESETS).join(', ')}`);
    ({ tileSamples, tiles, kind } = p);
  } else {
    tileSamples = o.tileSamples ?? 129;
    kind = ((tileSamples - 1) & (tileSamples - 2)) === 0 ? 'lod' : 'collision';
    tiles = Math.ceil(g.columns / (tileSamples - 1));
  }
  const range = map.kind === 'codes' ? map.range : DEFAULT_RANGE;
  const vertices = tiles * (tileSamples - 1) + 1;
  const desc: TerrainDescription = { kind, tileSamples, tilesX: tiles, tilesY: tiles, metresPerQuad: g.sizeX / (vertices - 1), range };
  const derived = describeTerrain(desc);
  const vgrid: GridDescription = { ...g, convention: 'vertex', columns: vertices, rows: vertices };
  const v = resampleField(heightsOf(map), g, vgrid, new Float32Array(vertices * vertices));
  const entries: Record<string, unknown>[] = [];
  const tile = new Float32Array(tileSamples * tileSamples);
  const q = tileSamples - 1;
  for (let ty = 0; ty < tiles; ty++) {
    for (let tx = 0; tx < tiles; tx++) {
      const w = tileWindow(tx, ty, tileSamples);
      readTile(v, vertices, w, tile);
      const extent = {
        xmin: g.xmin + w.i0 * desc.metresPerQuad,
        ymin: g.ymin + w.j0 * desc.metresPerQuad,
        sizeX: q * desc.metresPerQuad,
        sizeY: q * desc.metresPerQuad,
      };
      const tgrid: GridDescription = { ...extent, columns: tileSamples, rows: tileSamples, convention: 'vertex', rowDirection: g.rowDirection };
      const file = `tile_x${String(tx).padStart(3, '0')}_y${String(ty).padStart(3, '0')}.${o.format}`;
      const enc = encodeHeightfield(floatHeightfield(tgrid, tile.slice()), range);
      writeHeightfieldFile(join(outDir, file), enc.field, { stage: 'engine-tile', notes: { tile: [tx, ty], firstSample: [w.i0, w.j0] } });
      entries.push({ file, tx, ty, firstSample: [w.i0, w.j0], extent });
    }
  }
  const manifest = {
    format: 'heightbench.tiles',
    version: 1,
    source: mapPath,
    preset: o.preset ?? null,
    description: desc,
    derived,
    vertexGrid: vgrid,
    rowDirection: g.rowDirection,
    tiles: entries,
  };
  writeFileAtomic(join(outDir, 'manifest.json'), `${JSON.stringify(manifest, null, 1)}\n`);
  return { manifest, files: entries.length };
}
