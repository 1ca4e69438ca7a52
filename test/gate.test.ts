/**
 * The regression gate catches a broken convention: the same pipeline with integer-offset smoothing taps (instead of
 * bilinear samples at fractional offsets), or with renormalized weights, is held against f64 references.
 */
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { checkRun } from '../src/runs/check.js';
import { writeFieldOutputs } from '../src/cli/run.js';
import { FIELD_STAGES, loadRequest, runPipeline } from '../src/index.js';
import { tempDir } from './helpers.js';

const gates = { minExact: 99.9, maxCode: 1, maxRmsMm: 1 };

describe('gate test (teaching-512)', () => {
  const d = tempDir('hb-gate-');
  const req = loadRequest('teaching-512');
  const write = (name: string, r: ReturnType<typeof runPipeline>) => writeFieldOutputs(join(d, name), req, r, [...FIELD_STAGES]);
  beforeAll(async () => {
    await write('ref', runPipeline(req, { precision: 'f64', keep: [...FIELD_STAGES] }));
    await write('ok', runPipeline(req, { precision: 'f32', keep: [...FIELD_STAGES] }));
    await write('integer-taps', runPipeline(req, { precision: 'f32', keep: [...FIELD_STAGES], ablation: { integerTaps: true } }));
  }, 120_000);
  it('the f32 pipeline passes against its f64 references, every differing code a quantization straddle', () => {
    const c = checkRun(join(d, 'ok'), join(d, 'ref'), gates);
    expect(c.passed).toBe(true);
    expect(c.final.maxAbsCode).toBeLessThanOrEqual(1);
    expect(c.final.attribution?.deviation).toBe(0);
    expect(c.firstDivergentStage).toBeNull();
  });
  it('integer-index taps fail the gate, and the stage comparison localizes the break to the smoothing (base)', () => {
    const c = checkRun(join(d, 'integer-taps'), join(d, 'ref'), gates, join(d, 'report'));
    expect(c.passed).toBe(false);
    expect(c.gates.find((g) => g.name === 'exact codes %')?.passed).toBe(false);
    expect(c.firstDivergentStage).toBe('base');
    const raster = c.stages.find((s) => s.stage === 'raster')!;
    const base = c.stages.find((s) => s.stage === 'base')!;
    expect(raster.rmsMm).toBeLessThan(0.01); // upstream of the break: rounding only
    expect(base.rmsMm).toBeGreaterThan(1); // the break itself
    expect(c.final.attribution?.deviation).toBeGreaterThan(0);
  });
});
