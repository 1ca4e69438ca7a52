/**
 * The engine heightfield's layer stack (seed 004) as a declared pipeline: the base, then the running composite after
 * each layer in stack order (clamped and rounded to float32 after each, as compositeAt does), the composite, and its
 * UNORM16 codes over the stack's authored range.
 * Inputs: a LayerStack (from a store or built in memory), optionally the grid its samples lie on. Outputs: the
 * declaration (taken from the stack: its layers' names, kinds and order) and the stage fields of the stack.
 * [R] Stage names: `base`, `layer<k>-<name>` (k the stack position from 0, the name reduced to A-Z a-z 0-9 . _ -),
 *     `composite`, `r16`; the cause of a layer's stage names the layer, its kind and its generator.
 * [R] Footprints are 0: a layer adds its own deltas to the same sample, the clamp and the encoding are per sample.
 */
import { encodeFieldR16 } from '../core/encoding.js';
import type { GridDescription } from '../core/grid.js';
import { parsePipelineDeclaration, type PipelineDeclaration } from '../pipelines/declaration.js';
import type { LayerStack } from './layers.js';

/** The stage name of the layer at stack position k. */
export function layerStageName(k: number, name: string): string {
  const safe = name.replace(/[^A-Za-z0-9._-]/g, '_').slice(0, 80);
  return `layer${k}-${safe}`;
}

/** The layer stack's declaration (see the header). */
export function engineHeightfieldPipeline(stack: LayerStack): PipelineDeclaration {
  return parsePipelineDeclaration(
    {
      version: 1,
      name: 'engine-heightfield',
      description: 'The engine heightfield (seed 004): a base plus edit layers in stack order, clamped after each, encoded to UNORM16 over the authored range.',
      stages: [
        { name: 'base', holds: { kind: 'float', unit: 'm' }, cause: 'the base heights (clamped to the range)', footprint: { pixels: 0 } },
        ...stack.layers.map((l, k) => ({
          name: layerStageName(k, l.name),
          holds: { kind: 'float', unit: 'm' },
          cause: `layer ${k} ${JSON.stringify(l.name)} (${l.kind}${l.generator ? `, ${l.generator}` : ''}${l.visible ? '' : ', hidden'})`.slice(0, 200),
          footprint: { pixels: 0 },
        })),
        { name: 'composite', holds: { kind: 'float', unit: 'm' }, cause: 'the composite cache (resolve) against the stack', footprint: { pixels: 0 } },
        {
          name: 'r16',
          holds: { kind: 'codes', encoding: 'unorm16', min: stack.range.min, max: stack.range.max },
          encodedFrom: 'composite',
          cause: 'quantization straddle',
          footprint: { pixels: 0 },
        },
      ],
    },
    'the engine heightfield pipeline',
  );
}

export interface EngineStageFields {
  grid: GridDescription;
  stages: Map<string, Float32Array>;
  codes: Uint16Array;
}

/** The stage fields of a stack: base, the running composite after each layer, the composite, the codes. */
export function engineStageFields(stack: LayerStack, grid?: GridDescription): EngineStageFields {
  const w = stack.width;
  const h = stack.height;
  const { min, max } = stack.range;
  const running = new Float32Array(w * h);
  for (let k = 0; k < running.length; k++) {
    const b = stack.base[k];
    running[k] = b < min ? min : b > max ? max : b;
  }
  const stages = new Map<string, Float32Array>([['base', Float32Array.from(running)]]);
  stack.layers.forEach((l, k) => {
    if (l.visible)
      for (let j = 0; j < h; j++)
        for (let i = 0; i < w; i++) {
          const d = l.deltaAt(i, j);
          if (d === 0) continue;
          const v = running[j * w + i] + d * l.alpha;
          running[j * w + i] = v < min ? min : v > max ? max : v;
        }
    stages.set(layerStageName(k, l.name), Float32Array.from(running));
  });
  const composite = new Float32Array(w * h);
  for (let j = 0; j < h; j++) for (let i = 0; i < w; i++) composite[j * w + i] = stack.compositeAt(i, j);
  stages.set('composite', composite);
  const codes = new Uint16Array(w * h);
  encodeFieldR16(composite, codes, stack.range);
  const g: GridDescription = grid ?? { xmin: 0, ymin: 0, sizeX: w, sizeY: h, columns: w, rows: h, convention: 'texel-centre', rowDirection: 'row0-at-ymin' };
  return { grid: g, stages, codes };
}
