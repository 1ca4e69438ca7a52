/** `heightbench tiles MAP OUTDIR [--tile-samples N] [--preset NAME] [--format r16|png]` and `heightbench describe`. */
import { Option, type Command } from 'commander';
import { exportTiles } from '../terrain/export.js';
import { describeTerrain, TILE_PRESETS } from '../terrain/description.js';
import { parseNumber, parsePath, parsePositiveInt, parseRange } from './args.js';
import { CliExit, type CliIO, type CommandInstaller } from './io.js';

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
      io.out(`wrote ${r.files} tiles (${d.samplesX}² vertices, ${d.quadsPerTile} quads a tile, ${(d.extentX / (d.samplesX - 1)).toFixed(4)} m a quad) and manifest.json to ${out}\n`);
      throw new CliExit(0);
    });
  program
    .command('describe')
    .description('the derived numbers of a terrain description, or the rule it breaks')
    .requiredOption('--tile-samples <n>', 'samples per tile', parsePositiveInt)
    .requiredOption('--tiles <n>', 'tiles per axis', parsePositiveInt)
    .option('--metres-per-quad <m>', 'metres per quad', parseNumber, 1)
    .option('--range <MIN,MAX>', 'authored height range', parseRange, { min: -500, max: 500 })
    .addOption(new Option('--kind <k>', 'tile kind').choices(['collision', 'lod']).default('collision'))
    .option('--block-size <n>', 'collision block size', parsePositiveInt)
    .action((o: { tileSamples: number; tiles: number; metresPerQuad: number; range: { min: number; max: number }; kind: 'collision' | 'lod'; blockSize?: number }) => {
      const d = describeTerrain({ kind: o.kind, tileSamples: o.tileSamples, tilesX: o.tiles, tilesY: o.tiles, metresPerQuad: o.metresPerQuad, range: o.range, blockSize: o.blockSize });
      io.out(`${JSON.stringify(d, null, 2)}\n`);
      throw new CliExit(0);
    });
};
