/**
 * `heightbench bell OUT [--seed N] [--nb N] [--p1 X] [--p2 X] [--p3 X] [--size N] [--sea-level X]
 *  [--path naive|fast] [--shaded FILE.png]` — the seed notebook's generator; R32 (or PNG16 with --range) plus sidecar.
 */
import { Option, type Command } from 'commander';
import { accumulateBells, BELL_DEFAULTS, BELL_INDEX_MAPPING, bellGrid, type BellParams, type BellPath } from '../bell/bell-sum.js';
import { SEA_LEVEL_DEFAULT, SHADING_DEFAULTS, shadedPng } from '../bell/shading.js';
import { floatHeightfield } from '../core/heightfield.js';
import { writeFileAtomic } from '../io/atomic.js';
import { containerForPath, writeHeightfieldFile } from '../io/heightfield-file.js';
import { MismatchError } from '../errors.js';
import { parseNonNegativeNumber, parseNumber, parsePath, parsePositiveInt, parsePositiveNumber, parseRange } from './args.js';
import { LimitError } from '../errors.js';
import { checkMemoryEstimate } from '../io/limits.js';
import { CliExit, type CliIO, type CommandInstaller } from './io.js';

/** The generator's parameters, plus what the command adds around them. */
interface BellCliOptions extends BellParams {
  seaLevel: number;
  path: BellPath;
  shaded?: string;
  range?: { min: number; max: number };
  tolerance: number;
  worldSize: number;
}

/** [R] Largest bell grid the command accepts (8192² float64 + float32 + output ≈ 1 GiB). */
export const MAX_BELL_SIZE = 8192;
/** [R] Most generator × sample products the naive path may evaluate (≈ 10 s of the seed's loops). */
export const MAX_BELL_NAIVE_WORK = 2 ** 32;

export function bellCommand(out: string, o: BellCliOptions, io: CliIO): number {
  const container = containerForPath(out);
  if (o.size > MAX_BELL_SIZE) throw new LimitError(`--size ${o.size}: over the bell limit of ${MAX_BELL_SIZE} samples per axis`);
  if (o.nb > 100000) throw new LimitError(`--nb ${o.nb}: over the limit of 100000 generators`);
  if (o.path === 'naive' && o.nb * o.size * o.size > MAX_BELL_NAIVE_WORK) {
    throw new LimitError(
      `--path naive with --nb ${o.nb} and --size ${o.size}: ${o.nb * o.size * o.size} generator × sample products, over the limit of ${MAX_BELL_NAIVE_WORK} (use --path fast)`,
    );
  }
  // float64 accumulation, its float32 copy, the encoded payload and the shaded picture.
  checkMemoryEstimate(`bell --size ${o.size}`, o.size * o.size * (8 + 4 + 4 + (o.shaded ? 1 : 0)));
  if (container !== 'r32' && !o.range) throw new MismatchError(`bell writes float heights: use a .r32 output, or give --range MIN,MAX for ${container}`);
  const params = { seed: o.seed, nb: o.nb, p1: o.p1, p2: o.p2, p3: o.p3, size: o.size };
  const t0 = process.hrtime.bigint();
  const h = accumulateBells(params, o.path, o.tolerance);
  const ms = Number(process.hrtime.bigint() - t0) / 1e6;
  const field = floatHeightfield(bellGrid(o.size, o.worldSize), Float32Array.from(h));
  const w = writeHeightfieldFile(out, field, {
    range: o.range,
    stage: 'bell',
    notes: {
      generator: 'bell accumulation (seed 002)',
      params,
      path: o.path,
      tolerance: o.tolerance,
      indexMapping: BELL_INDEX_MAPPING,
      unit: 'seed height units (unit square scaled to worldSize metres)',
      worldSize: o.worldSize,
    },
  });
  if (o.shaded) writeFileAtomic(o.shaded, shadedPng(h, o.size, o.seaLevel, SHADING_DEFAULTS));
  let lo = Infinity;
  let hi = -Infinity;
  for (let k = 0; k < h.length; k++) {
    lo = Math.min(lo, h[k]);
    hi = Math.max(hi, h[k]);
  }
  io.out(
    `bell ${o.size}x${o.size}, ${o.nb} generators, seed ${o.seed}, ${o.path} path: ${ms.toFixed(1)} ms; heights ${lo.toPrecision(6)}..${hi.toPrecision(6)}; wrote ${out}${o.shaded ? ` and ${o.shaded}` : ''}${w.encodeCounts ? `; clamped ${w.encodeCounts.clampedLow} low, ${w.encodeCounts.clampedHigh} high` : ''}\n`,
  );
  return 0;
}

export const installBell: CommandInstaller = (program: Command, io: CliIO) => {
  program
    .command('bell')
    .description('bell-shaped accumulation generator (seed 002): R32, or PNG16 with --range, plus sidecar')
    .argument('<out>', 'output heightfield file', parsePath)
    .option('--seed <n>', 'minstd_rand0 seed (1 … 2147483646)', parsePositiveInt, BELL_DEFAULTS.seed)
    .option('--nb <n>', 'number of generators (at most 100000)', parsePositiveInt, BELL_DEFAULTS.nb)
    .option('--p1 <x>', 'influence decrease per generator', parseNumber, BELL_DEFAULTS.p1)
    .option('--p2 <x>', 'individual influence factor', parseNumber, BELL_DEFAULTS.p2)
    .option('--p3 <x>', 'global vertical stretching', parseNumber, BELL_DEFAULTS.p3)
    .option('--size <n>', `samples per axis (at most ${MAX_BELL_SIZE})`, parsePositiveInt, BELL_DEFAULTS.size)
    .option('--sea-level <x>', 'sea level for the shaded picture, seed slider units (0…100)', parseNumber, SEA_LEVEL_DEFAULT)
    .addOption(new Option('--path <p>', 'naive (the seed loops) or fast (separable)').choices(['naive', 'fast']).default('fast'))
    .option('--tolerance <x>', 'fast path: skip products below this absolute height (0 = exact)', parseNonNegativeNumber, 0)
    .option('--shaded <file.png>', "also write the seed's shaded picture (8-bit grey)", parsePath)
    .option('--range <MIN,MAX>', 'encode into PNG16/R16 with this range', parseRange)
    .option('--world-size <m>', 'metres spanned by the unit square in the sidecar', parsePositiveNumber, 1)
    .action((out: string, opts: BellCliOptions) => {
      throw new CliExit(bellCommand(out, opts, io));
    });
};
