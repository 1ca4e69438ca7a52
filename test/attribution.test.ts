/**
 * Stage attribution of differing final codes: hand-built fields with known answers, cropped dumps
 * located by world coordinates, and two real runs' folders (f32 against f64) where the counts must add up.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { alignDumps, attributeRunFolders, attributeStages, attributionSummary, causeOf, type RunFields } from '../src/compare/attribution.js';
import { cropCentre } from '../src/core/crop.js';
import type { GridDescription } from '../src/core/grid.js';
import { MismatchError } from '../src/errors.js';
import { cli, tempDir } from './helpers.js';

const grid = (n: number, xmin = 0, size = n): GridDescription => ({
  xmin,
  ymin: xmin,
  sizeX: size,
  sizeY: size,
  columns: n,
  rows: n,
  convention: 'texel-centre',
  rowDirection: 'row0-at-ymin',
});

function run(n: number, stages: Record<string, Float32Array | { grid: GridDescription; h: Float32Array }>, codes: number[]): RunFields {
  const m = new Map(
    Object.entries(stages).map(([k, v]) => [k, v instanceof Float32Array ? { grid: grid(n), height_px: v } : { grid: v.grid, height_px: v.h }]),
  );
  return { stages: m, finalGrid: grid(n), codes: Uint16Array.from(codes) };
}

describe('attributeStages: hand-built cases', () => {
  // 2×2 map, stages raster-layer0, base, pre-encode (metres).
  const A = run(
    2,
    {
      'raster-layer0': Float32Array.from([10, 20, 30, 40]),
      base: Float32Array.from([10, 20, 30, 40]),
      'pre-encode': Float32Array.from([10, 20, 30, 40]),
    },
    [100, 200, 300, 400],
  );
  const B = run(
    2,
    {
      // pixel 0 differs by 1 mm from the first stage on; pixel 1 from base on (50 mm); pixel 2 never beyond ε;
      // pixel 3 differs by 5 mm in base only, and its codes agree.
      'raster-layer0': Float32Array.from([10.001, 20, 30, 40]),
      base: Float32Array.from([10.001, 20.05, 30.000004, 40.005]),
      'pre-encode': Float32Array.from([10.001, 20.05, 30.000004, 40]),
    },
    [101, 203, 299, 400],
  );

  it('first divergent stage per differing pixel, straddles, |Δq| histogram', () => {
    const r = attributeStages(A, B);
    expect(r.differing).toBe(3);
    expect(r.stages).toEqual(['raster-layer0', 'base', 'pre-encode']);
    expect(r.byStage).toEqual({ 'raster-layer0': 1, base: 1, 'final-only': 1 });
    // Pixel 0: |Δq| = 1 with pre-encode 1 mm apart (< one code): a straddle; pixel 1: |Δq| = 3, not one;
    // pixel 2: |Δq| = 1, 0.004 mm apart: a straddle.
    expect(r.straddles).toBe(2);
    expect(r.straddlesByStage).toEqual({ 'raster-layer0': 1, 'final-only': 1 });
    expect(r.deltaByStage).toEqual({ 'raster-layer0': { 1: 1 }, base: { 3: 1 }, 'final-only': { 1: 1 } });
  });

  it('a cause class for every differing pixel, and the |Δq| > 1 pixels listed with their per-stage Δ', () => {
    const r = attributeStages(A, B);
    expect(r.byCause).toEqual({ 'rasterizer snapping': 1, 'sampling precision': 1, 'quantization straddle': 1 });
    expect(Object.values(r.byCause).reduce((x, y) => x + y, 0)).toBe(r.differing);
    expect(r.deltaByCause['sampling precision']).toEqual({ 3: 1 });
    expect(r.tail).toHaveLength(1);
    const t = r.tail[0];
    expect([t.column, t.row, t.dq, t.stage, t.cause]).toEqual([1, 0, 200 - 203, 'base', 'sampling precision']);
    expect(t.deltaM['raster-layer0']).toBe(0);
    expect(t.deltaM.base).toBe(Math.fround(20) - Math.fround(20.05)); // float32 fields, subtracted in float64
    expect(attributionSummary(r)).toContain(
      '  by cause: quantization straddle 1 (|Δq| 1: 1); rasterizer snapping 1 (|Δq| 1: 1); sampling precision 1 (|Δq| 3: 1)',
    );
  });

  it('a stamp or location stage: quad coverage when it adds more than one code there, sampling precision below', () => {
    const mpc = 1000 / 65535;
    expect(causeOf('after-stamps', 0.3, mpc)).toBe('quad coverage');
    expect(causeOf('after-locations', -0.02, mpc)).toBe('quad coverage');
    expect(causeOf('after-stamps', 0.004, mpc)).toBe('sampling precision');
    expect(causeOf('after-support', 0.5, mpc)).toBe('arithmetic order');
    expect(causeOf('pre-encode', 0.001, mpc)).toBe('blend order');
    // The step is what the stage adds: a pixel 0.5 m apart since raster, +0.2 mm more in after-stamps, first
    // diverging in raster, is rasterizer snapping; one equal until after-stamps, then 40 mm apart, quad coverage.
    const mk = (raster: number, stamps: number, codes: number[]) =>
      run(1, { raster: Float32Array.from([raster]), 'after-stamps': Float32Array.from([stamps]), 'pre-encode': Float32Array.from([stamps]) }, codes);
    expect(attributeStages(mk(0, 0, [10]), mk(0, 0.04, [13])).byCause).toEqual({ 'quad coverage': 1 });
    expect(attributeStages(mk(0, 0, [10]), mk(0, 0.00002, [11])).byCause).toEqual({ 'sampling precision': 1 });
  });

  it('a whole-field dump meets a centred window of it: compared on the window, the rest outside it', () => {
    const n = 4;
    const whole = Float32Array.from({ length: 16 }, (_, k) => k);
    const c = cropCentre(whole, grid(n), 2);
    const al = alignDumps({ grid: grid(n), height_px: whole }, { grid: c.grid, height_px: c.data });
    expect(al).not.toBeNull();
    expect(al![0].grid).toEqual(c.grid);
    expect(Array.from(al![0].height_px)).toEqual([5, 6, 9, 10]);
    expect(alignDumps({ grid: grid(n), height_px: whole }, { grid: grid(2, 0.5, 2), height_px: new Float32Array(4) })).toBeNull();
    const codes = new Array(16).fill(1000);
    const moved = [...codes];
    moved[0] = 1001;
    moved[5] = 1001;
    const bumped = Float32Array.from(whole);
    bumped[5] += 0.1;
    const a = run(n, { base: { grid: grid(n), h: bumped } }, moved);
    const b = run(n, { base: { grid: c.grid, h: c.data } }, codes);
    expect(attributeStages(a, b).byStage).toEqual({ base: 1, 'outside-window': 1 });
  });

  it('perPixel keeps each differing pixel with its first stage and straddle flag (report maps), nothing without it', () => {
    const r = attributeStages(A, B, { perPixel: true });
    const p = r.pixelStages!;
    expect(p.names).toEqual(['raster-layer0', 'base', 'pre-encode', 'final-only', 'outside-window']);
    expect(Array.from(p.index)).toEqual([0, 1, 2]);
    expect(Array.from(p.stage).map((k) => p.names[k])).toEqual(['raster-layer0', 'base', 'final-only']);
    expect(Array.from(p.straddle)).toEqual([1, 0, 1]);
    expect(attributeStages(A, B).pixelStages).toBeUndefined();
  });

  it('ε is stated and acts: at 2 mm pixel 0 first diverges nowhere before the encode', () => {
    const r = attributeStages(A, B, { epsilonMm: 2 });
    expect(r.epsilonMm).toBe(2);
    expect(r.byStage).toEqual({ base: 1, 'final-only': 2 });
    // A straddle tolerance below 1 mm no longer counts pixel 0.
    expect(attributeStages(A, B, { straddleMm: 0.5 }).straddles).toBe(1);
  });

  it('a stage dumped on one side only is skipped and listed', () => {
    const B2 = { ...B, stages: new Map([...B.stages].filter(([k]) => k !== 'raster-layer0')) };
    const r = attributeStages(A, B2);
    expect(r.skipped).toEqual(['raster-layer0']);
    expect(r.byStage).toEqual({ base: 2, 'final-only': 1 });
    expect(attributionSummary(r).at(-1)).toBe('  not compared (dumped on one side only): raster-layer0');
  });

  it('cropped dumps are located by world coordinates; pixels outside the window count as outside-window', () => {
    // 4×4 map over [0, 4) m; the base dump is the central 2×2 window over [1, 3) m.
    const n = 4;
    const codesA = new Array(16).fill(1000);
    const codesB = [...codesA];
    codesB[0] = 1001; // (0, 0): outside the window
    codesB[1 * 4 + 1] = 1001; // (1, 1): the window's first pixel
    codesB[2 * 4 + 2] = 1002; // (2, 2): the window's last pixel
    const win = grid(2, 1, 2);
    const baseA = Float32Array.from([5, 0, 0, 7]);
    const baseB = Float32Array.from([5.1, 0, 0, 7]); // differs at window pixel 0 = map pixel (1, 1)
    const pre = new Float32Array(16);
    const a = run(n, { base: { grid: win, h: baseA }, 'pre-encode': pre }, codesA);
    const b = run(n, { base: { grid: win, h: baseB }, 'pre-encode': pre }, codesB);
    const r = attributeStages(a, b);
    expect(r.byStage).toEqual({ 'outside-window': 1, base: 1, 'final-only': 1 });
  });

  it('refuses dumps with another pixel size or misaligned centres', () => {
    const a = run(2, { base: { grid: grid(1, 0, 2), h: Float32Array.from([1]) } }, [0, 0, 0, 1]);
    expect(() => attributeStages(a, a)).toThrow(MismatchError);
    const shifted = run(2, { base: { grid: grid(2, 0.5, 2), h: new Float32Array(4) } }, [0, 0, 0, 1]);
    expect(() => attributeStages(shifted, shifted)).toThrow(/not aligned/);
  });
});

describe('attributeRunFolders: f32 against f64 runs of the teaching request (256²)', () => {
  it('every differing code is attributed once; the counts add up to the code difference of the files', async () => {
    const d32 = join(tempDir(), 'f32');
    const d64 = join(tempDir(), 'f64');
    expect((await cli('run', 'teaching-512', '--size', '256', '--precision', 'f32', '--out', d32)).code).toBe(0);
    expect((await cli('run', 'teaching-512', '--size', '256', '--precision', 'f64', '--out', d64)).code).toBe(0);
    const r = attributeRunFolders(d32, d64);
    const qa = new Uint16Array(new Uint8Array(readFileSync(join(d32, 'final.r16'))).buffer);
    const qb = new Uint16Array(new Uint8Array(readFileSync(join(d64, 'final.r16'))).buffer);
    let differing = 0;
    for (let k = 0; k < qa.length; k++) if (qa[k] !== qb[k]) differing++;
    expect(differing).toBeGreaterThan(0); // not vacuous: float32 rounding moves some codes at 256²
    expect(r.differing).toBe(differing);
    expect(Object.values(r.byStage).reduce((s, x) => s + x, 0)).toBe(differing);
    expect(r.stages).toEqual(['raster-layer0', 'raster', 'base', 'after-support', 'after-stamps', 'after-locations', 'pre-encode']);
    // With an ε larger than any float32 rounding here, every difference appears only at the encode.
    const wide = attributeRunFolders(d32, d64, { epsilonMm: 1e6 });
    expect(wide.byStage).toEqual(differing ? { 'final-only': differing } : {});
    expect(Object.values(r.byCause).reduce((x, y) => x + y, 0)).toBe(differing);
  });
});

describe('attributeRunFolders: the mimic run against the GPU executor, whole-field dumps (teaching request, 128²)', () => {
  it('every differing pixel has a stage and a cause; none is outside a window', async () => {
    const gpu = join(tempDir(), 'gpu');
    const mimic = join(tempDir(), 'mimic');
    const g = await cli('run', 'teaching-512', '--size', '128', '--backend', 'webgpu', '--adapter', 'swiftshader', '--out', gpu);
    expect(g.code, g.err).toBe(0);
    const m = await cli('run', 'teaching-512', '--size', '128', '--precision', 'f32', '--subpixel-bits', '4', '--quad-coverage', 'snapped', '--out', mimic);
    expect(m.code, m.err).toBe(0);
    const r = attributeRunFolders(mimic, gpu);
    const qa = new Uint16Array(new Uint8Array(readFileSync(join(mimic, 'final.r16'))).buffer);
    const qb = new Uint16Array(new Uint8Array(readFileSync(join(gpu, 'final.r16'))).buffer);
    let differing = 0;
    for (let k = 0; k < qa.length; k++) if (qa[k] !== qb[k]) differing++;
    expect(r.differing).toBe(differing);
    expect(r.byStage['outside-window']).toBeUndefined();
    expect(r.byCause['outside the dumped window']).toBeUndefined();
    expect(Object.values(r.byCause).reduce((x, y) => x + y, 0)).toBe(differing);
  }, 120_000);
});
