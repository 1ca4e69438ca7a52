import { describe, expect, it } from 'vitest';
import { domainGrid, texelCentreWorld, worldToTexel, type GridDescription } from '../src/index.js';
import { columnWorldX, rowWorldY, validateGrid, vertexWorld, worldToColumn, worldToRow, worldToVertex } from '../src/core/grid.js';
import { sampleBilinear } from '../src/core/sampling.js';

describe('sample conventions (article: Mapping Pixel Centers to Texture Coordinates)', () => {
  const xmin = -1024;
  it('puts the first and last texel centres 0.25 m inside a 2048 m / 4096 domain', () => {
    expect(texelCentreWorld(0, xmin, 2048, 4096)).toBe(xmin + 0.25);
    expect(texelCentreWorld(4095, xmin, 2048, 4096)).toBe(xmin + 2047.75);
  });
  it('puts the 4097² vertex grid on both edges', () => {
    expect(vertexWorld(0, xmin, 2048, 4097)).toBe(xmin);
    expect(vertexWorld(4096, xmin, 2048, 4097)).toBe(xmin + 2048);
    expect(vertexWorld(1, xmin, 2048, 4097)).toBe(xmin + 0.5);
  });
  it('maps world x to continuous texel coordinate (x − xmin)·N/L − 0.5 and back', () => {
    expect(worldToTexel(xmin, xmin, 2048, 4096)).toBe(-0.5);
    expect(worldToTexel(xmin + 0.25, xmin, 2048, 4096)).toBe(0);
    for (const i of [0, 1, 17.5, 4095]) expect(worldToTexel(texelCentreWorld(i, xmin, 2048, 4096), xmin, 2048, 4096)).toBeCloseTo(i, 12);
    for (const i of [0, 3, 4096]) expect(worldToVertex(vertexWorld(i, xmin, 2048, 4097), xmin, 2048, 4097)).toBeCloseTo(i, 12);
  });
  it('shows the half-pixel error on a 1 m/m slope at true scale: 0.25 m', () => {
    // 4096 texels over 2048 m (two rows), a ramp rising 1 m per metre eastwards, sampled at texel centres.
    const g: GridDescription = { ...domainGrid(4096), rows: 2 };
    const field = new Float64Array(4096 * 2);
    for (let j = 0; j < 2; j++) for (let i = 0; i < 4096; i++) field[j * 4096 + i] = columnWorldX(g, i);
    const x = 100.3;
    const right = sampleBilinear(field, 4096, 2, worldToColumn(g, x), 0);
    const wrong = sampleBilinear(field, 4096, 2, ((x - g.xmin) * 4096) / g.sizeX, 0); // pixel corner, not centre
    expect(right).toBeCloseTo(x, 9);
    expect(wrong - x).toBeCloseTo(0.25, 9);
  });
});

describe('row direction', () => {
  const base: GridDescription = { xmin: 0, ymin: 0, sizeX: 100, sizeY: 50, columns: 10, rows: 5, convention: 'texel-centre', rowDirection: 'row0-at-ymin' };
  it('row0-at-ymin: row 0 is the southernmost row', () => {
    expect(rowWorldY(base, 0)).toBe(5);
    expect(rowWorldY(base, 4)).toBe(45);
    expect(worldToRow(base, 45)).toBe(4);
  });
  it('row0-at-ymax: row 0 is the northernmost row, and the inverse agrees', () => {
    const g = { ...base, rowDirection: 'row0-at-ymax' as const };
    expect(rowWorldY(g, 0)).toBe(45);
    expect(rowWorldY(g, 4)).toBe(5);
    for (const j of [0, 1.5, 4]) expect(worldToRow(g, rowWorldY(g, j))).toBeCloseTo(j, 12);
  });
});

describe('validateGrid refuses with expected and actual values', () => {
  const g = domainGrid(8);
  it.each([
    [{ ...g, columns: 0 }, /grid.columns: expected an integer in \[1, 1048576\], got 0/],
    [{ ...g, columns: 2.5 }, /grid.columns: expected an integer .* got 2.5/],
    [{ ...g, sizeX: -1 }, /grid.sizeX: expected > 0 m, got -1/],
    [{ ...g, xmin: Number.NaN }, /grid.xmin: expected a finite number, got NaN/],
    [{ ...g, convention: 'corner' as never }, /grid.convention: expected one of texel-centre, vertex, got "corner"/],
    [{ ...g, convention: 'vertex' as const, columns: 1 }, /grid.columns: expected an integer in \[2,/],
  ])('%#', (bad, msg) => {
    expect(() => validateGrid(bad as GridDescription)).toThrow(msg);
  });
});
