/**
 * The bell generator (seed 002) as a declared pipeline: the accumulation after the first half of the generators, after
 * all of them, and its UNORM16 encoding over a range the caller declares (the generator's heights are seed units, so
 * the encoding's range is the user's: `bell --range`).
 * Inputs: bell parameters, the path (naive or fast), the encoding range. Outputs: the declaration and the stage fields
 * of one run (float32 heights per stage and the codes), on bellGrid.
 * [R] The half-way stage is a true intermediate of both paths: they add the generators in generator order, and the
 *     first ⌈nb/2⌉ generators are the same points (minstd draws them in order), so the prefix sum is the stage.
 * [R] Footprints are 0: every stage adds bells to the same sample, and the encoding is per sample.
 */
import { encodeFieldR16 } from '../core/encoding.js';
import type { GridDescription, HeightRange } from '../core/grid.js';
import { parsePipelineDeclaration, type PipelineDeclaration } from '../pipelines/declaration.js';
import { accumulateBells, bellGrid, type BellParams, type BellPath } from './bell-sum.js';

export const BELL_STAGES = ['bells-first-half', 'bells-all', 'final'] as const;

/** The bell generator's declaration, its codes over `range` (seed height units). */
export function bellPipeline(range: HeightRange): PipelineDeclaration {
  return parsePipelineDeclaration(
    {
      version: 1,
      name: 'bell-generator',
      description: 'Bell-shaped accumulation (seed 002): a sum of Gaussian bells around seeded points, encoded to UNORM16.',
      stages: [
        {
          name: 'bells-first-half',
          holds: { kind: 'float', unit: 'seed height units' },
          cause: 'the first half of the generators: exp and the stepped x, y of the two paths',
          footprint: { pixels: 0 },
        },
        { name: 'bells-all', holds: { kind: 'float', unit: 'seed height units' }, cause: 'the second half of the generators', footprint: { pixels: 0 } },
        {
          name: 'final',
          holds: { kind: 'codes', encoding: 'unorm16', min: range.min, max: range.max },
          encodedFrom: 'bells-all',
          cause: 'quantization straddle',
          footprint: { pixels: 0 },
        },
      ],
    },
    'the bell pipeline',
  );
}

export interface BellStageFields {
  grid: GridDescription;
  stages: Map<string, Float32Array>;
  codes: Uint16Array;
}

/** One run of the bell pipeline: the stage fields of `path` and their codes over `range`. */
export function bellStageFields(p: BellParams, path: BellPath, range: HeightRange, tolerance = 0): BellStageFields {
  const half = Math.ceil(p.nb / 2);
  const first = Float32Array.from(accumulateBells({ ...p, nb: half }, path, tolerance));
  const all = Float32Array.from(accumulateBells(p, path, tolerance));
  const codes = new Uint16Array(all.length);
  encodeFieldR16(all, codes, range);
  return {
    grid: bellGrid(p.size) as GridDescription,
    stages: new Map([
      ['bells-first-half', first],
      ['bells-all', all],
    ]),
    codes,
  };
}
