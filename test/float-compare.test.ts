/**
 * Float fields are compared as floats, in metres — never through a default code range — on files independent writers
 * made (test/peers/float_fields.py: numpy, rasterio/GDAL, the OpenEXR bindings): the issue's reproduction (heights
 * 100–1,600 m, three pixels changed by 2 m and 60 m) reports 3 differing pixels and fails its gate; a difference
 * planted below, inside and above the range −500…500 m (two of them far below one code of it) is found at its pixel
 * and world position in each format; `--range` acts (the answer moves, clamped heights are counted per side and fail
 * the gates unless --allow-clamped); gates that can never pass are refused with exit 2; a failed gate prints one line
 * each on stderr in compare and in check --strict.
 * What these cannot catch: a reader that mis-decodes both sides of a pair identically (format-*.test.ts hold each
 * reader against its writer).
 */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { compareHeightfields } from '../src/compare/compare.js';
import { evaluateGates } from '../src/compare/gates.js';
import { domainGrid } from '../src/core/grid.js';
import { codeHeightfield, floatHeightfield, withRowDirection } from '../src/core/heightfield.js';
import { alignExactly } from '../src/core/align.js';
import { cli, tempDir } from './helpers.js';

const root = join(import.meta.dirname, '..');
const python = join(root, '.venv', 'bin', 'python');
const dir = tempDir('hb-float-compare-');

interface Planted {
  column: number;
  row: number;
  height: number;
  delta: number;
}
let manifest: { width: number; height: number; planted: Record<string, Planted> };

beforeAll(() => {
  const r = spawnSync(python, [join(root, 'test', 'peers', 'float_fields.py'), dir], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`float_fields.py failed (${python}): ${r.error?.message ?? r.stderr}`);
  manifest = JSON.parse(readFileSync(join(dir, 'manifest.json'), 'utf8')) as typeof manifest;
});

const f = (name: string) => join(dir, name);
const REPRO_FLAGS = ['--extent', '0,0,512', '--row-direction', 'row0-at-ymax', '--encoding', 'metres'];
// The .npy and .exr fields carry no georeferencing: the extent the GeoTIFF carries, stated.
const PLAIN_FLAGS = ['--extent', '1000,2000,384,320', '--row-direction', 'row0-at-ymax'];

describe('the reproduction: numpy float fields of 100–1,600 m with three pixels changed', () => {
  it('reports 3 differing pixels, the 60 m maximum where it is, and fails --min-exact 100 (exit 3, one stderr line)', async () => {
    const r = await cli('compare', f('repro-a.npy'), f('repro-b.npy'), ...REPRO_FLAGS, '--range', '0,2000', '--min-exact', '100', '--json');
    expect(r.code).toBe(3);
    const j = JSON.parse(r.out) as Record<string, unknown> & { floatMaxAbsAt: { pixel: number[] }; codeRange: { min: number; max: number; source: string } };
    expect(j.comparedIn).toBe('metres');
    expect(j.differing).toBe(3);
    expect(j.floatMaxAbsMm).toBe(60000);
    expect([
      [30, 20],
      [50, 40],
    ]).toContainEqual(j.floatMaxAbsAt.pixel);
    expect(j.exactPercent).not.toBe(100);
    expect(j.codeRange).toEqual({ min: 0, max: 2000, source: '--range' });
    expect(r.err).toMatch(/^heightbench: gate failed: equal heights % ≥ 100, measured 99\.92/);
    expect(r.err.trim().split('\n')).toHaveLength(1);
  });

  it('without --range the heights are compared in metres only: no code metric, no range, still 3 differing', async () => {
    const r = await cli('compare', f('repro-a.npy'), f('repro-b.npy'), ...REPRO_FLAGS, '--json');
    expect(r.code).toBe(0);
    const j = JSON.parse(r.out) as Record<string, unknown>;
    expect(j.differing).toBe(3);
    expect(j.codeRange).toBeNull();
    expect(j.range).toBeUndefined();
    expect(j.exactPercent).toBeNull(); // NaN: not measured, never 100
    const text = await cli('compare', f('repro-a.npy'), f('repro-b.npy'), ...REPRO_FLAGS);
    expect(text.out).toMatch(/\*\*3 of 4096 pixels differ in height\*\*/);
    expect(text.out).toMatch(/Codes not compared: both sides hold float heights and no range was stated/);
    expect(text.out).not.toMatch(/identical|0 of 4096 pixels differ/);
  });

  it('--range acts: the old default −500…500 clamps every height above 500 m, counted per side, and fails the gate', async () => {
    const a = await cli('compare', f('repro-a.npy'), f('repro-b.npy'), ...REPRO_FLAGS, '--range=-500,500', '--min-exact', '0', '--json');
    const b = await cli('compare', f('repro-a.npy'), f('repro-b.npy'), ...REPRO_FLAGS, '--range', '0,2000', '--min-exact', '0', '--json');
    const ja = JSON.parse(a.out) as { maxAbsCode: number; clamped: { generated: { low: number; high: number }; reference: { high: number }; total: number } };
    const jb = JSON.parse(b.out) as { maxAbsCode: number; clamped: { total: number } };
    // Through −500…500 every height clamps to 65535 on both sides: codes equal; through 0…2000 the 60 m is 1966 codes.
    expect(ja.maxAbsCode).toBe(0);
    expect(jb.maxAbsCode).toBe(1966);
    const above500 = Array.from(new Float32Array(readFileSync(f('repro-a.npy')).buffer.slice(128))).filter((h) => h > 500).length;
    expect(ja.clamped.generated).toEqual({ low: 0, high: above500 });
    expect(above500).toBeGreaterThan(2900); // heights 100…1,600 m: about two thirds of 4096
    expect(ja.clamped.total).toBe(ja.clamped.generated.high + ja.clamped.reference.high);
    expect(jb.clamped.total).toBe(0);
    expect(a.code).toBe(3);
    expect(a.err).toMatch(/gate failed: clamped pixels/);
    expect(b.code).toBe(0);
    const allowed = await cli('compare', f('repro-a.npy'), f('repro-b.npy'), ...REPRO_FLAGS, '--range=-500,500', '--min-exact', '0', '--allow-clamped');
    expect(allowed.code).toBe(0);
    expect(allowed.out).toMatch(/clamped by the range: generated 0 low, \d+ high; reference 0 low, \d+ high/);
    expect(allowed.out).toMatch(/code range -500…500 m from --range/);
  });

  it('the float gates act: --max-abs-mm, --max-rms-mm, --max-beyond-tolerance with --tolerance-mm', async () => {
    const pass = await cli(
      'compare',
      f('repro-a.npy'),
      f('repro-b.npy'),
      ...REPRO_FLAGS,
      '--max-abs-mm',
      '60000',
      '--max-beyond-tolerance',
      '2',
      '--tolerance-mm',
      '2000',
    );
    expect(pass.code).toBe(0);
    const fail = await cli(
      'compare',
      f('repro-a.npy'),
      f('repro-b.npy'),
      ...REPRO_FLAGS,
      '--max-abs-mm',
      '59999',
      '--max-rms-mm',
      '1',
      '--max-beyond-tolerance',
      '2',
    );
    expect(fail.code).toBe(3);
    const lines = fail.err.trim().split('\n');
    expect(lines).toEqual([
      'heightbench: gate failed: RMS mm ≤ 1, measured ' + lines[0].split('measured ')[1],
      'heightbench: gate failed: max |Δ| mm ≤ 59999, measured 60000',
      'heightbench: gate failed: pixels beyond 0 mm ≤ 2, measured 3',
    ]);
  });

  it('gates that can never pass, negative tolerances, and a code gate where codes are not compared exit 2', async () => {
    for (const bad of [
      ['--min-exact', '101'],
      ['--min-exact', '-1'],
      ['--tolerance-mm', '-1'],
      ['--max-rms-mm', '-0.5'],
      ['--max-abs-mm', '-1'],
      ['--max-beyond-tolerance', '-3'],
      ['--max-code', '-1'],
      ['--max-code', '2'],
    ]) {
      const r = await cli('compare', f('repro-a.npy'), f('repro-b.npy'), ...REPRO_FLAGS, ...bad);
      expect(r.code, bad.join(' ')).toBe(2);
      // The refusal names the offending value.
      expect(r.err, bad.join(' ')).toContain(bad[1] === '2' ? '--max-code 2' : bad[1]);
    }
    const r = await cli('compare', f('repro-a.npy'), f('repro-b.npy'), ...REPRO_FLAGS, '--max-code', '2');
    expect(r.err).toMatch(/codes were not compared.*--max-abs-mm/);
  });
});

describe('differences planted below, inside and above −500…500 m are found at their pixels (numpy, rasterio, OpenEXR)', () => {
  for (const ext of ['npy', 'tif', 'exr'] as const) {
    for (const name of ['low', 'inside', 'high'] as const) {
      it(`${name}.${ext}`, async () => {
        const p = manifest.planted[name];
        const flags = ext === 'tif' ? [] : PLAIN_FLAGS;
        const r = await cli('compare', f(`${name}.${ext}`), f(`base.${ext}`), ...flags, '--json');
        expect(r.code, r.err).toBe(0);
        const j = JSON.parse(r.out) as {
          differing: number;
          floatMaxAbsMm: number;
          floatBiasMm: number;
          pixels: number;
          floatMaxAbsAt: { pixel: number[]; world: number[] };
          floatHistogramMm: { sign: number; loMm: number; hiMm: number | null; count: number }[];
        };
        expect(j.differing).toBe(1);
        expect(j.floatMaxAbsAt.pixel).toEqual([p.column, p.row]);
        // 8 m pixels from (1000, 2320) at the top-left corner, rows going south.
        expect(j.floatMaxAbsAt.world).toEqual([1000 + (p.column + 0.5) * 8, 2320 - (p.row + 0.5) * 8]);
        expect(j.floatMaxAbsMm).toBeCloseTo(Math.abs(p.delta) * 1000, 9);
        expect(Math.sign(j.floatBiasMm)).toBe(Math.sign(p.delta));
        const bin = j.floatHistogramMm.find((b) => b.sign !== 0 && b.count > 0)!;
        expect(bin.sign).toBe(Math.sign(p.delta));
        expect(Math.abs(p.delta) * 1000).toBeGreaterThan(bin.loMm);
        if (bin.hiMm !== null) expect(Math.abs(p.delta) * 1000).toBeLessThanOrEqual(bin.hiMm);
      });
    }
  }
});

describe('the library', () => {
  it('a float pair without code range has no code metrics; with one, the clamped counts are per side', () => {
    const g = domainGrid(4);
    const ref = Float32Array.from({ length: 16 }, (_, k) => 100 * k);
    const gen = ref.slice();
    gen[15] += 0.001;
    const none = compareHeightfields(floatHeightfield(g, gen), floatHeightfield(g, ref));
    expect(none.codeRange).toBeNull();
    expect(none.differing).toBe(1);
    expect(Number.isNaN(none.exactPercent)).toBe(true);
    expect(() => evaluateGates(none, { maxCode: 0 })).toThrow(/codes were not compared/);
    expect(evaluateGates(none, { minExact: 100 })[0]).toMatchObject({ name: 'equal heights %', passed: false });
    const through = compareHeightfields(floatHeightfield(g, gen), floatHeightfield(g, ref), { codeRange: { min: 0, max: 1000 }, rangeSource: 'test' });
    // Heights 1100…1500 m lie above 0…1000 m: 5 per side.
    expect(through.clamped).toEqual({ generated: { low: 0, high: 5 }, reference: { low: 0, high: 5 }, total: 10 });
    expect(through.codeRange).toEqual({ min: 0, max: 1000, source: 'test' });
    expect(evaluateGates(through, { minExact: 0 }).at(-1)).toMatchObject({ name: 'clamped pixels', passed: false });
    expect(evaluateGates(through, { minExact: 0, allowClamped: true }).at(-1)).toMatchObject({ name: 'clamped pixels', passed: true });
  });

  it('a code side carries its range: a stated range that contradicts it is refused naming both', () => {
    const g = domainGrid(4);
    const codes = codeHeightfield(g, new Uint16Array(16).fill(30000), { min: -500, max: 500 });
    const heights = floatHeightfield(g, new Float32Array(16).fill(10));
    expect(() => compareHeightfields(heights, codes, { codeRange: { min: 0, max: 2000 }, rangeSource: '--range' })).toThrow(
      /code range 0,2000 \(--range\) contradicts the reference's codes, of range -500,500/,
    );
    const r = compareHeightfields(heights, codes);
    expect(r.codeRange?.source).toBe("the reference's codes");
    expect(r.comparedIn).toBe('metres');
  });

  it('alignExactly reorders rows and crops a whole-texel window bit for bit, and refuses what only resampling could do', () => {
    const big = { xmin: 0, ymin: 0, sizeX: 8, sizeY: 6, columns: 8, rows: 6, convention: 'texel-centre' as const, rowDirection: 'row0-at-ymin' as const };
    const h = Float32Array.from({ length: 48 }, (_, k) => k + 0.25);
    const f = floatHeightfield(big, h);
    const window = { ...big, xmin: 2, ymin: 1, sizeX: 4, sizeY: 3, columns: 4, rows: 3, rowDirection: 'row0-at-ymax' as const };
    const a = alignExactly(f, window);
    expect(a.grid).toEqual(window);
    // Row 0 of the window is its top (y = 3.5 m: the field's row 3), column 0 the field's column 2.
    expect(a.kind === 'float' && Array.from(a.height_px.subarray(0, 4))).toEqual([26.25, 27.25, 28.25, 29.25]);
    expect(alignExactly(withRowDirection(f, 'row0-at-ymax'), big)).toEqual(f);
    expect(() => alignExactly(f, { ...window, xmin: 2.5 })).toThrow(/x offset is 2\.5 texels, not a whole number/);
    expect(() => alignExactly(f, { ...window, sizeX: 8 })).toThrow(/pixels of 1×1 m vs 2×1 m/);
    // compareHeightfields aligns when told, and refuses otherwise.
    const ref = floatHeightfield(window, (a as { height_px: Float32Array }).height_px.slice());
    expect(compareHeightfields(f, ref, { align: 'exact' }).differing).toBe(0);
    expect(() => compareHeightfields(f, ref)).toThrow(/grids differ .*align: 'exact'/);
  });
});
