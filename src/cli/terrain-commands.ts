/**
 * `heightbench tiles MAP OUTDIR [--tile-samples N] [--preset NAME] [--format r16|png]`, `heightbench describe`, and
 * `heightbench terrain …` over a terrain store (.hbterrain): create, info, import, sculpt, paint, hole, resize,
 * export-tiles, collision. Every command that changes a store rewrites it atomically (temp then rename); outputs
 * of export-tiles and collision are heightfield files with sidecars plus one manifest.
 */
import { join } from 'node:path';
import { InvalidArgumentError, Option, type Command } from 'commander';
import { exportTiles } from '../terrain/export.js';
import { describeTerrain, TILE_PRESETS, type TerrainDescription, type TileKind } from '../terrain/description.js';
import { createTerrain, type Terrain } from '../terrain/terrain.js';
import { readStoreFile, readTerrainStore, writeTerrainStore } from '../terrain/store.js';
import { importLayer } from '../terrain/import-layer.js';
import { addKindLayer, stampHill } from '../terrain/kinds.js';
import { resizeTerrain } from '../terrain/resize.js';
import { collisionTile, COLLISION_NO_HEIGHT } from '../terrain/collision.js';
import { readTile, tileWindow } from '../terrain/tiles.js';
import { encodeHeightfield, floatHeightfield } from '../core/heightfield.js';
import { DEFAULT_RANGE, type GridDescription } from '../core/grid.js';
import { writeFileAtomic } from '../io/atomic.js';
import { readHeightfieldFile, writeHeightfieldFile } from '../io/heightfield-file.js';
import { InputRangeError } from '../errors.js';
import { parseEndian, parseNumber, parsePath, parsePositiveInt, parseRange, parseSize } from './args.js';
import { CliExit, type CliIO, type CommandInstaller } from './io.js';

function parseAt(v: string): { i: number; j: number } {
  const m = /^\s*(-?\d+)\s*,\s*(-?\d+)\s*$/.exec(v);
  if (!m) throw new InvalidArgumentError(`expected I,J sample indices (e.g. 12,40), got ${JSON.stringify(v)}`);
  return { i: Number(m[1]), j: Number(m[2]) };
}

function parseNames(v: string): string[] {
  const names = v.split(',').map((s) => s.trim());
  if (names.some((s) => s === '')) throw new InvalidArgumentError(`expected comma-separated names, got ${JSON.stringify(v)}`);
  return names;
}

function parseWeight(v: string): number {
  const n = Number(v);
  if (!Number.isInteger(n) || n < 0 || n > 255) throw new InvalidArgumentError(`expected an integer 0…255, got ${JSON.stringify(v)}`);
  return n;
}

function loadTerrain(path: string): Terrain {
  return readTerrainStore(readStoreFile(path));
}

function saveTerrain(path: string, t: Terrain): number {
  const bytes = writeTerrainStore(t);
  writeFileAtomic(path, bytes);
  return bytes.length;
}

function summary(t: Terrain): Record<string, unknown> {
  return {
    description: t.description,
    derived: t.derived,
    layers: t.stack.layers.map((l) => ({ name: l.name, kind: l.kind, generator: l.generator, alpha: l.alpha, visible: l.visible, chunks: l.chunks.size })),
    paintLayers: t.weights.layerNames,
    holes: t.holes.list(),
  };
}

/** Index of a layer given by index or name. */
function layerIndex(t: Terrain, which: string, what: string): number {
  const n = Number(which);
  const byName = t.stack.layers.findIndex((l) => l.name === which);
  if (byName >= 0) return byName;
  if (Number.isInteger(n) && n >= 0 && n < t.stack.layers.length) return n;
  throw new InputRangeError(
    `${what}: no layer ${JSON.stringify(which)} (layers: ${t.stack.layers.map((l, k) => `${k} ${JSON.stringify(l.name)}`).join(', ') || 'none'})`,
  );
}

function paintIndex(t: Terrain, which: string): number {
  const n = Number(which);
  const byName = t.weights.layerNames.indexOf(which);
  if (byName >= 0) return byName;
  if (Number.isInteger(n) && n >= 0 && n < t.weights.layers) return n;
  throw new InputRangeError(`paint: no paint layer ${JSON.stringify(which)} (paint layers: ${t.weights.layerNames.join(', ')})`);
}

function tileGrid(t: Terrain, i0: number, j0: number): GridDescription {
  const d = t.description;
  const q = d.tileSamples - 1;
  return {
    xmin: i0 * d.metresPerQuad,
    ymin: j0 * d.metresPerQuad,
    sizeX: q * d.metresPerQuad,
    sizeY: q * d.metresPerQuad,
    columns: d.tileSamples,
    rows: d.tileSamples,
    convention: 'vertex',
    rowDirection: 'row0-at-ymin',
  };
}

const tileName = (tx: number, ty: number, ext: string) => `tile_x${String(tx).padStart(3, '0')}_y${String(ty).padStart(3, '0')}.${ext}`;

interface DescOptions {
  tileSamples: number;
  tiles: number;
  tilesY?: number;
  metresPerQuad: number;
  range: { min: number; max: number };
  kind: TileKind;
  blockSize?: number;
  bitsPerSample?: number;
}

function descriptionFrom(o: DescOptions): TerrainDescription {
  return {
    kind: o.kind,
    tileSamples: o.tileSamples,
    tilesX: o.tiles,
    tilesY: o.tilesY ?? o.tiles,
    metresPerQuad: o.metresPerQuad,
    range: o.range,
    ...(o.blockSize ? { blockSize: o.blockSize } : {}),
    ...(o.bitsPerSample ? { bitsPerSample: o.bitsPerSample } : {}),
  };
}

function installTerrainGroup(program: Command, io: CliIO): void {
  const terrain = program.command('terrain').description('a terrain store (.hbterrain): base, edit layers, paint channels, holes');
  const done = (code = 0): never => {
    throw new CliExit(code);
  };

  terrain
    .command('create')
    .description('a new terrain from a description and a fill height')
    .argument('<store>')
    .requiredOption('--tile-samples <n>', 'samples per tile (2ⁿ for collision tiles, 2ⁿ + 1 for LOD tiles)', parsePositiveInt)
    .requiredOption('--tiles <n>', 'tiles along x (and y unless --tiles-y)', parsePositiveInt)
    .option('--tiles-y <n>', 'tiles along y', parsePositiveInt)
    .option('--metres-per-quad <m>', 'metres per quad', parseNumber, 1)
    .option('--range <MIN,MAX>', 'authored height range, metres', parseRange, { ...DEFAULT_RANGE })
    .addOption(new Option('--kind <k>', 'tile kind').choices(['collision', 'lod']).default('collision'))
    .option('--block-size <n>', "collision block size (Jolt's 2…8, dividing the tile samples)", parsePositiveInt)
    .option('--bits-per-sample <n>', "collision height bits per sample (Jolt's 1…16, default 8)", parsePositiveInt)
    .option('--fill <m>', 'base height, metres', parseNumber)
    .option('--paint-layers <names>', 'comma-separated paint layer names', parseNames, ['ground'])
    .action((store: string, o: DescOptions & { fill?: number; paintLayers: string[] }) => {
      const t = createTerrain(descriptionFrom(o), { fill: o.fill, paintLayers: o.paintLayers });
      const bytes = saveTerrain(store, t);
      const d = t.derived;
      io.out(
        `created ${store}: ${t.description.tilesX}×${t.description.tilesY} tiles of ${t.description.tileSamples} samples = ${d.samplesX}×${d.samplesY} samples, ${d.extentX}×${d.extentY} m, ` +
          `${(d.bytesFloat32 / 1e6).toFixed(1)} MB of float heights, ${d.collisionShapes} collision shapes, ${(d.metresPerStep * 1000).toFixed(2)} mm per 16-bit step (${bytes} bytes on disk)\n`,
      );
      done();
    });

  terrain
    .command('info')
    .description('description, layers, paint layers and holes of a store, as JSON')
    .argument('<store>')
    .action((store: string) => {
      io.out(`${JSON.stringify(summary(loadTerrain(store)), null, 2)}\n`);
      done();
    });

  terrain
    .command('import')
    .description('import a heightmap (.r16, .png 16-bit grey, .r32) as a layer; a re-import under the same name keeps the layers above it')
    .argument('<store>')
    .argument('<map>')
    .option('--name <name>', 'layer name (default: the file name)')
    .option('--size <WxH>', "size of a raw map without sidecar (a PNG's own size wins)", parseSize)
    .addOption(new Option('--endian <le|be>', 'byte order of a raw .r16 without sidecar').argParser(parseEndian))
    .option('--range <MIN,MAX>', "height range of a 16-bit map without sidecar (default: the terrain's)", parseRange)
    .action(
      (
        store: string,
        map: string,
        o: { name?: string; size?: { width: number; height: number }; endian?: 'le' | 'be'; range?: { min: number; max: number } },
      ) => {
        const t = loadTerrain(store);
        const loaded = readHeightfieldFile(map, { size: o.size, endian: o.endian, range: o.range ?? t.description.range });
        for (const n of loaded.notes) io.err(`note: ${n}\n`);
        const name = o.name ?? map.split('/').pop()!;
        const r = importLayer(t, loaded.field, name, map);
        saveTerrain(store, t);
        const rs = r.resampled ? `, resampled edge-to-edge ${r.resampled.from.join('×')} → ${r.resampled.to.join('×')}` : '';
        io.out(
          `${r.reimport ? 're-imported' : 'imported'} ${map} as layer ${r.index} ${JSON.stringify(name)} (${r.chunks} chunks${rs}); the base is unchanged\n`,
        );
        done();
      },
    );

  terrain
    .command('sculpt')
    .description('stamp a smooth hill (or dip, with a negative height) into a sculpt layer, creating it when absent')
    .argument('<store>')
    .requiredOption('--layer <name|index>', 'layer to sculpt')
    .requiredOption('--at <I,J>', 'centre sample', parseAt)
    .requiredOption('--radius <samples>', 'radius in samples', parseNumber)
    .requiredOption('--height <m>', 'height at the centre, metres', parseNumber)
    .action((store: string, o: { layer: string; at: { i: number; j: number }; radius: number; height: number }) => {
      const t = loadTerrain(store);
      const exists = t.stack.layers.some((l) => l.name === o.layer) || /^\d+$/.test(o.layer);
      const index = exists ? layerIndex(t, o.layer, 'sculpt') : (addKindLayer(t.stack, o.layer, 'sculpt'), t.stack.layers.length - 1);
      const rect = stampHill(t.stack, index, o.at.i, o.at.j, o.radius, o.height);
      saveTerrain(store, t);
      io.out(
        rect
          ? `sculpted layer ${index} ${JSON.stringify(t.stack.layers[index].name)} over samples ${rect.i0}…${rect.i1} × ${rect.j0}…${rect.j1}\n`
          : 'the stamp fell outside the terrain; nothing changed\n',
      );
      done();
    });

  terrain
    .command('paint')
    .description('paint a weight into one paint layer with a round brush; the other layers share the rest (sum stays 255)')
    .argument('<store>')
    .requiredOption('--layer <name|index>', 'paint layer')
    .requiredOption('--at <I,J>', 'centre sample', parseAt)
    .option('--radius <samples>', 'brush radius in samples', parseNumber, 1)
    .requiredOption('--weight <0..255>', 'target weight', parseWeight)
    .action((store: string, o: { layer: string; at: { i: number; j: number }; radius: number; weight: number }) => {
      const t = loadTerrain(store);
      const layer = paintIndex(t, o.layer);
      const n = t.weights.paintBrush(o.at.i, o.at.j, o.radius, layer, o.weight);
      t.weights.verify();
      saveTerrain(store, t);
      io.out(`painted ${n} samples of paint layer ${layer} ${JSON.stringify(t.weights.layerNames[layer])} towards ${o.weight}; every sample sums to 255\n`);
      done();
    });

  terrain
    .command('hole')
    .description('punch (or with --remove, fill) a hole at one sample: the triangles using it (six inside) leave the mesh and the Jolt collider')
    .argument('<store>')
    .requiredOption('--at <I,J>', 'sample', parseAt)
    .option('--remove', 'remove the hole instead')
    .action((store: string, o: { at: { i: number; j: number }; remove?: boolean }) => {
      const t = loadTerrain(store);
      const changed = o.remove ? t.holes.remove(o.at.i, o.at.j) : t.holes.add(o.at.i, o.at.j);
      saveTerrain(store, t);
      io.out(
        `${o.remove ? (changed ? 'removed the hole at' : 'no hole at') : changed ? 'hole at' : 'already a hole at'} (${o.at.i}, ${o.at.j}); ${t.holes.count} hole(s)\n`,
      );
      done();
    });

  terrain
    .command('resize')
    .description('rebuild against a new description, carrying base, layers, weights and holes by sample index')
    .argument('<store>')
    .option('--out <store>', 'write here instead of rewriting the input')
    .option('--tile-samples <n>', 'samples per tile', parsePositiveInt)
    .option('--tiles <n>', 'tiles along x (and y unless --tiles-y)', parsePositiveInt)
    .option('--tiles-y <n>', 'tiles along y', parsePositiveInt)
    .option('--metres-per-quad <m>', 'metres per quad (the same samples, physically larger or smaller)', parseNumber)
    .option('--range <MIN,MAX>', 'new height range (metres preserved)', parseRange)
    .option('--offset <I,J>', 'where old sample (0, 0) lands, in samples', parseAt)
    .option('--fill <m>', 'base height of new samples, metres', parseNumber)
    .action((store: string, o: Partial<DescOptions> & { out?: string; offset?: { i: number; j: number }; fill?: number }) => {
      const t = loadTerrain(store);
      const d = t.description;
      const to: TerrainDescription = {
        ...d,
        tileSamples: o.tileSamples ?? d.tileSamples,
        tilesX: o.tiles ?? d.tilesX,
        tilesY: o.tilesY ?? o.tiles ?? d.tilesY,
        metresPerQuad: o.metresPerQuad ?? d.metresPerQuad,
        range: o.range ?? d.range,
      };
      const r = resizeTerrain(t, to, { offset: o.offset, fill: o.fill });
      const out = o.out ?? store;
      saveTerrain(out, r.terrain);
      const n = r.terrain.derived;
      io.out(
        `resized to ${n.samplesX}×${n.samplesY} samples (${n.extentX}×${n.extentY} m) in ${out}; overlap ${r.overlap ? `${r.overlap.i0}…${r.overlap.i1} × ${r.overlap.j0}…${r.overlap.j1}` : 'none'}, ` +
          `${r.clampedBase} base samples clamped into the new range, ${r.holesDropped} holes dropped\n`,
      );
      done();
    });

  terrain
    .command('export-tiles')
    .description('write every tile of the composite as a 16-bit file with a sidecar, plus manifest.json')
    .argument('<store>')
    .argument('<outdir>')
    .addOption(new Option('--format <f>', 'tile file format').choices(['r16', 'png']).default('r16'))
    .action((store: string, outDir: string, o: { format: 'r16' | 'png' }) => {
      const t = loadTerrain(store);
      t.stack.resolve();
      const d = t.description;
      const S = d.tileSamples;
      const buf = new Float32Array(S * S);
      const tiles: Record<string, unknown>[] = [];
      let clipped = 0;
      for (let ty = 0; ty < d.tilesY; ty++) {
        for (let tx = 0; tx < d.tilesX; tx++) {
          const w = tileWindow(tx, ty, S);
          readTile(t.stack.cached(), t.stack.width, w, buf);
          const enc = encodeHeightfield(floatHeightfield(tileGrid(t, w.i0, w.j0), buf.slice()), d.range);
          clipped += enc.counts.clampedLow + enc.counts.clampedHigh;
          const file = tileName(tx, ty, o.format);
          writeHeightfieldFile(join(outDir, file), enc.field, { stage: 'terrain-tile', notes: { tile: [tx, ty], firstSample: [w.i0, w.j0] } });
          tiles.push({ file, tx, ty, firstSample: [w.i0, w.j0] });
        }
      }
      const manifest = { format: 'heightbench.terrain-tiles', version: 1, store, description: d, derived: t.derived, holes: t.holes.list(), tiles };
      writeFileAtomic(join(outDir, 'manifest.json'), `${JSON.stringify(manifest, null, 1)}\n`);
      io.out(
        `wrote ${tiles.length} tiles of the composite (${S}² samples, shared boundaries) and manifest.json to ${outDir}${clipped ? ` (${clipped} samples clipped to the range)` : ''}\n`,
      );
      done();
    });

  terrain
    .command('collision')
    .description('per tile: float heights from the composite (sentinel at holes) as .r32 with sidecar, plus collision.json — one Jolt HeightFieldShape each')
    .argument('<store>')
    .argument('<outdir>')
    .option('--block-size <n>', "collision block size in samples (Jolt's 2…8, dividing the tile samples, two blocks a side at least)", parsePositiveInt)
    .option('--bits-per-sample <n>', "bits per height sample in Jolt's block quantisation (1…16, default 8)", parsePositiveInt)
    .action((store: string, outDir: string, o: { blockSize?: number; bitsPerSample?: number }) => {
      const t = loadTerrain(store);
      const d = t.description;
      const shapes: Record<string, unknown>[] = [];
      const buf = new Float32Array(d.tileSamples * d.tileSamples);
      for (let ty = 0; ty < d.tilesY; ty++) {
        for (let tx = 0; tx < d.tilesX; tx++) {
          const c = collisionTile(t, tx, ty, { blockSize: o.blockSize, bitsPerSample: o.bitsPerSample, out: buf });
          const file = tileName(tx, ty, 'r32');
          writeHeightfieldFile(
            join(outDir, file),
            floatHeightfield(tileGrid(t, c.placement.cornerX / d.metresPerQuad, c.placement.cornerZ / d.metresPerQuad), buf.slice()),
            {
              stage: 'terrain-collision',
              notes: { tile: [tx, ty], sentinel: COLLISION_NO_HEIGHT, blockSize: c.blockSize, bitsPerSample: c.bitsPerSample },
            },
          );
          shapes.push({
            file,
            tx,
            ty,
            placement: c.placement,
            blockSize: c.blockSize,
            bitsPerSample: c.bitsPerSample,
            holes: c.holes,
            canBeDynamic: c.canBeDynamic,
          });
        }
      }
      const manifest = { format: 'heightbench.terrain-collision', version: 1, store, sentinel: COLLISION_NO_HEIGHT, shapes };
      writeFileAtomic(join(outDir, 'collision.json'), `${JSON.stringify(manifest, null, 1)}\n`);
      io.out(
        `wrote ${shapes.length} collision shapes (${d.tileSamples}² float heights from the composite, block size ${shapes[0]?.blockSize}) and collision.json to ${outDir}\n`,
      );
      done();
    });
}

export const installTerrainCommands: CommandInstaller = (program: Command, io: CliIO) => {
  program
    .command('tiles')
    .description(`cut a delivered map into engine tiles with shared boundaries (presets: ${Object.keys(TILE_PRESETS).join(', ')})`)
    .argument('<map>', 'delivered map (heightfield file)', parsePath)
    .argument('<outdir>', 'output folder', parsePath)
    .option('--tile-samples <n>', 'samples per tile (2ⁿ for collision tiles, 2ⁿ + 1 for LOD tiles)', parsePositiveInt)
    .option('--preset <name>', 'engine preset')
    .addOption(new Option('--format <f>', 'tile file format').choices(['r16', 'png']).default('r16'))
    .action((map: string, out: string, o: { tileSamples?: number; preset?: string; format: 'r16' | 'png' }) => {
      const r = exportTiles(map, out, o);
      const d = r.manifest.derived as Record<string, number>;
      io.out(
        `wrote ${r.files} tiles (${d.samplesX}² vertices, ${d.quadsPerTile} quads a tile, ${(d.extentX / (d.samplesX - 1)).toFixed(4)} m a quad) and manifest.json to ${out}\n`,
      );
      throw new CliExit(0);
    });
  program
    .command('describe')
    .description('the derived numbers of a terrain description, or the rule it breaks')
    .requiredOption('--tile-samples <n>', 'samples per tile', parsePositiveInt)
    .requiredOption('--tiles <n>', 'tiles per axis', parsePositiveInt)
    .option('--metres-per-quad <m>', 'metres per quad', parseNumber, 1)
    .option('--range <MIN,MAX>', 'authored height range', parseRange, { ...DEFAULT_RANGE })
    .addOption(new Option('--kind <k>', 'tile kind').choices(['collision', 'lod']).default('collision'))
    .option('--block-size <n>', 'collision block size', parsePositiveInt)
    .option('--bits-per-sample <n>', 'collision bits per sample', parsePositiveInt)
    .action(
      (o: {
        tileSamples: number;
        tiles: number;
        metresPerQuad: number;
        range: { min: number; max: number };
        kind: 'collision' | 'lod';
        blockSize?: number;
        bitsPerSample?: number;
      }) => {
        const d = describeTerrain({
          kind: o.kind,
          tileSamples: o.tileSamples,
          tilesX: o.tiles,
          tilesY: o.tiles,
          metresPerQuad: o.metresPerQuad,
          range: o.range,
          blockSize: o.blockSize,
          bitsPerSample: o.bitsPerSample,
        });
        io.out(`${JSON.stringify(d, null, 2)}\n`);
        throw new CliExit(0);
      },
    );
  installTerrainGroup(program, io);
};
