/**
 * `diagnose` validated on real elevation models nobody in this project made (test/fixtures/real/): each case applies a
 * known change to the reference with this file's own code (exact bilinear resampling for shifts, a gain about the
 * mean, one separable [¼ ½ ¼] pass, a bias, a row flip, a transposition, wrap addressing at the border) and checks that
 * diagnose names it first and recovers the applied value within the stated tolerance. The applied values are the
 * independent side: they are chosen here, not produced by the code under test. The confusion table (applied → top
 * diagnosis) is printed at the end.
 */
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { diagnose, type Diagnosis } from '../src/compare/diagnose.js';
import { encodeFieldR16 } from '../src/core/encoding.js';
import { codeHeightfield, floatHeightfield, heightsOf, type Heightfield } from '../src/core/heightfield.js';
import type { GridDescription } from '../src/core/grid.js';
import { readHeightfieldFile, writeHeightfieldFile } from '../src/io/heightfield-file.js';
import { cli, tempDir, testRandom } from './helpers.js';

const fixtures = join(import.meta.dirname, 'fixtures', 'real');

/** [R] Tolerances of the recovered values (stated in README). */
const TOL = { shiftTexel: 0.01, shiftTexelCodes: 0.03, gain: 2e-4, blurPasses: 0.02, biasM: 1e-3 };

interface Fixture {
  name: string;
  ref: Heightfield;
  R: Float64Array;
  W: number;
  H: number;
}

function load(file: string, name: string): Fixture {
  const ref = readHeightfieldFile(join(fixtures, file)).field;
  return { name, ref, R: Float64Array.from(heightsOf(ref)), W: ref.grid.columns, H: ref.grid.rows };
}

const FIXTURES = [load('volcano.png', 'volcano'), load('jacksboro.r16', 'jacksboro')];

/** Generated pixel (i, j) = the reference bilinearly sampled at (i + dx, j + dy), clamped to the grid. */
function shifted(f: Fixture, dx: number, dy: number): Float32Array {
  const { R, W, H } = f;
  const out = new Float32Array(W * H);
  for (let j = 0; j < H; j++) {
    for (let i = 0; i < W; i++) {
      const x = Math.min(Math.max(i + dx, 0), W - 1);
      const y = Math.min(Math.max(j + dy, 0), H - 1);
      const i0 = Math.floor(x);
      const j0 = Math.floor(y);
      const i1 = Math.min(i0 + 1, W - 1);
      const j1 = Math.min(j0 + 1, H - 1);
      const fx = x - i0;
      const fy = y - j0;
      const a = R[j0 * W + i0] * (1 - fx) + R[j0 * W + i1] * fx;
      const b = R[j1 * W + i0] * (1 - fx) + R[j1 * W + i1] * fx;
      out[j * W + i] = a * (1 - fy) + b * fy;
    }
  }
  return out;
}

/** One [¼ ½ ¼] pass along x, then one along y on its result; `wrap` reads across the border instead of clamping. */
function threeTap(f: Fixture, wrap = false): Float32Array {
  const { R, W, H } = f;
  const at = (v: number, n: number) => (wrap ? (v + n) % n : Math.min(Math.max(v, 0), n - 1));
  const tmp = new Float64Array(W * H);
  for (let j = 0; j < H; j++) for (let i = 0; i < W; i++) tmp[j * W + i] = 0.25 * R[j * W + at(i - 1, W)] + 0.5 * R[j * W + i] + 0.25 * R[j * W + at(i + 1, W)];
  const out = new Float32Array(W * H);
  for (let j = 0; j < H; j++)
    for (let i = 0; i < W; i++) out[j * W + i] = 0.25 * tmp[at(j - 1, H) * W + i] + 0.5 * tmp[j * W + i] + 0.25 * tmp[at(j + 1, H) * W + i];
  return out;
}

function mean(R: Float64Array): number {
  let s = 0;
  for (const v of R) s += v;
  return s / R.length;
}

function asFloat(f: Fixture, v: Float32Array | Float64Array): Heightfield {
  return floatHeightfield(f.ref.grid, Float32Array.from(v));
}

/** Encodes into the reference's own 16-bit range (1 m per code for both fixtures). */
function asCodes(f: Fixture, v: Float32Array): Heightfield {
  if (f.ref.kind !== 'codes') throw new Error('code fixture expected');
  const q = new Uint16Array(v.length);
  encodeFieldR16(v, q, f.ref.range);
  return codeHeightfield(f.ref.grid, q, f.ref.range);
}

interface Row {
  fixture: string;
  applied: string;
  expectedKind: string;
  appliedValue: number | string;
  top: string;
  recovered: number | null;
  share: number;
}
const table: Row[] = [];

function record(
  f: Fixture,
  applied: string,
  expectedKind: string,
  appliedValue: number | string,
  d: Diagnosis,
  valueOf: (d: Diagnosis) => number | null,
): number | null {
  const top = d.findings[0];
  const recovered = valueOf(d);
  table.push({ fixture: f.name, applied, expectedKind, appliedValue, top: top ? top.kind : `(${d.verdict})`, recovered, share: top?.share ?? 0 });
  return recovered;
}

const coef = (name: string) => (d: Diagnosis) => d.terms.find((t) => t.name === name)?.coefficient ?? null;

afterAll(() => {
  const lines = [
    '',
    'diagnose confusion table (applied → top diagnosis)',
    '| fixture | applied | value | top diagnosis | recovered | share |',
    '|---|---|---|---|---|---|',
  ];
  for (const r of table) {
    lines.push(
      `| ${r.fixture} | ${r.applied} | ${r.appliedValue} | ${r.top}${r.top === r.expectedKind ? '' : ' ✗'} | ${r.recovered === null ? '–' : r.recovered.toFixed(4)} | ${(r.share * 100).toFixed(1)} % |`,
    );
  }
  const hits = table.filter((r) => r.top === r.expectedKind).length;
  lines.push(`${hits} of ${table.length} cases named first correctly`);
  console.log(lines.join('\n'));
});

describe.each(FIXTURES)('diagnose on $name', (f) => {
  for (const [axis, dx, dy] of [
    ['X', 0.25, 0],
    ['X', -0.25, 0],
    ['X', 0.5, 0],
    ['X', -0.5, 0],
    ['Y', 0, 0.25],
    ['Y', 0, -0.25],
    ['Y', 0, 0.5],
    ['Y', 0, -0.5],
  ] as const) {
    const s = axis === 'X' ? dx : dy;
    it(`a bilinear shift of ${s} texel in ${axis.toLowerCase()} (floats) is named first and recovered within ±${TOL.shiftTexel}`, () => {
      const d = diagnose(asFloat(f, shifted(f, dx, dy)), f.ref);
      const v = record(f, `shift ${axis.toLowerCase()} (float)`, `shift${axis}`, s, d, coef(`shift${axis}`));
      expect(d.findings[0].kind).toBe(`shift${axis}`);
      expect(Math.abs((v ?? Number.NaN) - s)).toBeLessThanOrEqual(TOL.shiftTexel);
      expect(d.verdict).toBe('explained');
      expect(d.findings[0].sentence).toContain(`shifted by ${s > 0 ? '+' : '−'}${Math.abs(s).toFixed(2)} texel in ${axis.toLowerCase()}`);
    });
  }

  it(`a shift of +0.5 texel in x on R16 codes (1 m per code) is still named first, within ±${TOL.shiftTexelCodes}`, () => {
    const d = diagnose(asCodes(f, shifted(f, 0.5, 0)), f.ref);
    const v = record(f, 'shift x (codes)', 'shiftX', 0.5, d, coef('shiftX'));
    expect(d.findings[0].kind).toBe('shiftX');
    expect(Math.abs((v ?? Number.NaN) - 0.5)).toBeLessThanOrEqual(TOL.shiftTexelCodes);
  });

  for (const g of [1.01, 0.99]) {
    it(`a gain of ×${g} about the mean is named first and recovered within ±${TOL.gain}`, () => {
      const m = mean(f.R);
      const d = diagnose(
        asFloat(
          f,
          f.R.map((r) => m + g * (r - m)),
        ),
        f.ref,
      );
      const v = record(f, 'gain about the mean', 'gain', g, d, (x) => 1 + (coef('gain')(x) ?? Number.NaN));
      expect(d.findings[0].kind).toBe('gain');
      expect(Math.abs((v ?? Number.NaN) - g)).toBeLessThanOrEqual(TOL.gain);
    });
  }

  it(`one [¼ ½ ¼] pass in x then y is named first as blur1 ≈ 1 pass (±${TOL.blurPasses})`, () => {
    const d = diagnose(asFloat(f, threeTap(f)), f.ref);
    const v = record(f, 'blur: one 3-tap pass', 'blur1', 1, d, coef('blur1'));
    expect(d.findings[0].kind).toBe('blur1');
    expect(Math.abs((v ?? Number.NaN) - 1)).toBeLessThanOrEqual(TOL.blurPasses);
    expect(d.findings[0].sentence).toContain('smoother');
  });

  it('the reverse (reference blurred, generated sharp) is a sharpening: blur1 ≈ −1 pass', () => {
    const blurred = floatHeightfield(f.ref.grid, threeTap(f));
    const d = diagnose(f.ref, blurred);
    // Signatures come from the blurred reference here, so the value is near, not at, −1.
    const v = record(f, 'sharpen (reference blurred by one pass)', 'blur1', '< 0', d, coef('blur1'));
    expect(d.findings[0].kind).toBe('blur1');
    expect(v).toBeLessThan(-0.5);
    expect(d.findings[0].sentence).toContain('sharper');
  });

  it(`a bias of +0.37 m is named first and recovered within ±${TOL.biasM} m`, () => {
    const d = diagnose(
      asFloat(
        f,
        f.R.map((r) => r + 0.37),
      ),
      f.ref,
    );
    const v = record(f, 'bias', 'bias', 0.37, d, coef('bias'));
    expect(d.findings[0].kind).toBe('bias');
    expect(Math.abs((v ?? Number.NaN) - 0.37)).toBeLessThanOrEqual(TOL.biasM);
    expect(d.explainedShare).toBeGreaterThan(0.9999);
  });

  it('a row flip is found by the direct check and undoing it removes the whole difference', () => {
    if (f.ref.kind !== 'codes') throw new Error('code fixture expected');
    const { W, H } = f;
    const q = new Uint16Array(W * H);
    for (let j = 0; j < H; j++) q.set(f.ref.code_px.subarray((H - 1 - j) * W, (H - j) * W), j * W);
    const d = diagnose(codeHeightfield(f.ref.grid, q, f.ref.range), f.ref);
    const v = record(f, 'row flip', 'rowFlip', 1, d, (x) => x.directChecks.find((c) => c.name === 'rowFlip')?.explainedShare ?? null);
    expect(d.findings[0].kind).toBe('rowFlip');
    expect(v).toBe(1);
    expect(d.directChecks.find((c) => c.name === 'rowFlip')?.residualRmsM).toBe(0);
  });

  it('a transposition (on the square top-left crop) is found by the direct check', () => {
    const n = Math.min(f.W, f.H);
    const grid: GridDescription = { ...f.ref.grid, columns: n, rows: n, sizeX: (f.ref.grid.sizeX / f.W) * n, sizeY: (f.ref.grid.sizeX / f.W) * n };
    const crop = new Float32Array(n * n);
    const tr = new Float32Array(n * n);
    for (let j = 0; j < n; j++) {
      for (let i = 0; i < n; i++) {
        crop[j * n + i] = f.R[j * f.W + i];
        tr[i * n + j] = f.R[j * f.W + i];
      }
    }
    const d = diagnose(floatHeightfield(grid, tr), floatHeightfield(grid, crop));
    const v = record(
      { ...f, name: `${f.name} ${n}² crop` },
      'transposition',
      'transpose',
      1,
      d,
      (x) => x.directChecks.find((c) => c.name === 'transpose')?.explainedShare ?? null,
    );
    expect(d.findings[0].kind).toBe('transpose');
    expect(v).toBe(1);
  });

  it('wrap addressing in a 3-tap pass (vs clamp) shows as the edge band', () => {
    const d = diagnose(asFloat(f, threeTap(f, true)), asFloat(f, threeTap(f, false)));
    record(f, 'wrap vs clamp addressing', 'edgeBand', 1, d, (x) => x.edgeBand.differenceEnergyShare);
    expect(d.findings[0].kind).toBe('edgeBand');
    // Only the outermost ring of pixels differs: all of Δ lies in the band.
    expect(d.edgeBand.differenceEnergyShare).toBe(1);
  });

  it('a shift and a bias together are both found, each with its value', () => {
    const s = shifted(f, 0.25, 0);
    const d = diagnose(
      asFloat(
        f,
        s.map((v) => v + 2),
      ),
      f.ref,
    );
    expect(
      d.findings
        .map((x) => x.kind)
        .slice(0, 2)
        .sort(),
    ).toEqual(['bias', 'shiftX']);
    expect(Math.abs((coef('shiftX')(d) ?? Number.NaN) - 0.25)).toBeLessThanOrEqual(TOL.shiftTexel);
    expect(Math.abs((coef('bias')(d) ?? Number.NaN) - 2)).toBeLessThan(0.05);
  });

  it('independent noise is said to be unexplained', () => {
    const rnd = testRandom(17);
    const d = diagnose(
      asFloat(
        f,
        f.R.map((r) => r + (rnd() - 0.5) * 4),
      ),
      f.ref,
    );
    table.push({
      fixture: f.name,
      applied: 'uniform noise ±2 m',
      expectedKind: '(unexplained)',
      appliedValue: 0,
      top: d.verdict === 'unexplained' ? '(unexplained)' : (d.findings[0]?.kind ?? '–'),
      recovered: d.explainedShare,
      share: d.explainedShare,
    });
    expect(d.verdict).toBe('unexplained');
    expect(d.explainedShare).toBeLessThan(0.05);
    expect(d.summary).toMatch(/^nothing in the signature set explains the difference/);
  });

  it('identical fields give the verdict "identical"', () => {
    const d = diagnose(f.ref, f.ref);
    expect(d.verdict).toBe('identical');
    expect(d.findings).toEqual([]);
  });
});

describe('diagnose: fit mechanics', () => {
  const f = FIXTURES[1];
  it('[consistency] the lattice fit (stride 4) agrees with the full fit on a shift within 0.01 texel', () => {
    const g = asFloat(f, shifted(f, 0.25, -0.5));
    const full = diagnose(g, f.ref);
    const lattice = diagnose(g, f.ref, { maxFitPixels: 10_000 });
    expect(full.sampling.stride).toBe(1);
    expect(lattice.sampling.stride).toBe(4);
    expect(lattice.sampling.fitPixels).toBeLessThan(full.sampling.fitPixels / 4);
    for (const name of ['shiftX', 'shiftY']) expect(Math.abs((coef(name)(lattice) ?? Number.NaN) - (coef(name)(full) ?? Number.NaN))).toBeLessThan(0.01);
  });

  it('shares are Shapley values: they sum to the fit R²', () => {
    const d = diagnose(
      asFloat(
        f,
        shifted(f, 0.5, 0.25).map((v) => v * 1.001 + 1),
      ),
      f.ref,
    );
    const sum = d.terms.reduce((a, t) => a + t.share, 0);
    expect(sum).toBeCloseTo(d.explainedShare, 10);
  });

  it('a flat reference leaves the shift, gain and blur terms out with the reason', () => {
    const grid: GridDescription = { ...f.ref.grid, columns: 16, rows: 16 };
    const flat = new Float32Array(256).fill(100);
    const d = diagnose(
      floatHeightfield(
        grid,
        flat.map((v) => v + 0.5),
      ),
      floatHeightfield(grid, flat),
    );
    expect(d.terms.find((t) => t.name === 'shiftX')?.leftOut).toMatch(/flat/);
    expect(d.findings[0].kind).toBe('bias');
    expect(d.findings[0].value).toBeCloseTo(0.5, 12);
  });

  it('non-finite pixels are left out and counted', () => {
    const g = shifted(f, 0.25, 0);
    g[5000] = Number.NaN;
    const d = diagnose(asFloat(f, g), f.ref);
    expect(d.sampling.excludedNonFinite).toBeGreaterThanOrEqual(1);
    expect(d.findings[0].kind).toBe('shiftX');
  });

  it('refuses a pair on different grids, naming both values', () => {
    const other = floatHeightfield({ ...f.ref.grid, columns: 10, rows: 10 }, new Float32Array(100));
    expect(() => diagnose(other, f.ref)).toThrow(/columns: 10 vs 403/);
    expect(() => diagnose(f.ref, f.ref, { edgeBand: -1 })).toThrow(/edge band: expected an integer ≥ 0 texels, got -1/);
  });
});

describe('heightbench diagnose / compare --diagnose', () => {
  const f = FIXTURES[1];
  const d = tempDir();
  const gen = join(d, 'gen.r32');
  const genCodes = join(d, 'gen.r16');
  writeHeightfieldFile(gen, asFloat(f, shifted(f, -0.5, 0)));
  writeHeightfieldFile(genCodes, asCodes(f, shifted(f, -0.5, 0)));
  const ref = join(fixtures, 'jacksboro.r16');

  it('prints the top finding as a sentence', async () => {
    const r = await cli('diagnose', gen, ref);
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/^diagnosis: generated is shifted by −0\.50 texel in x/);
  });

  it('--json carries the documented fields; --generated-float takes Δ from the floats', async () => {
    const r = await cli('diagnose', genCodes, ref, '--generated-float', gen, '--json');
    expect(r.code).toBe(0);
    const j = JSON.parse(r.out);
    expect(j.format).toBe('heightbench.diagnosis');
    expect(j.generatedSource).toBe('generated-float');
    expect(j.findings[0].kind).toBe('shiftX');
    expect(Math.abs(j.terms.find((t: { name: string }) => t.name === 'shiftX').coefficient + 0.5)).toBeLessThan(TOL.shiftTexel);
    for (const k of [
      'grid',
      'sampling',
      'differenceRmsM',
      'terms',
      'explainedShare',
      'residualRmsM',
      'conditionNumber',
      'edgeBand',
      'directChecks',
      'findings',
      'verdict',
      'summary',
    ])
      expect(j).toHaveProperty(k);
  });

  it('compare --diagnose appends the diagnosis (text and JSON)', async () => {
    const t = await cli('compare', genCodes, ref, '--diagnose');
    expect(t.code).toBe(0);
    expect(t.out).toContain('## Diagnosis');
    expect(t.out).toContain('shifted by −0.50 texel in x');
    const j = await cli('compare', genCodes, ref, '--diagnose', '--json');
    expect(JSON.parse(j.out).diagnosis.findings[0].kind).toBe('shiftX');
  });

  it('bad input exits 2 with the reason', async () => {
    const r = await cli('diagnose', join(fixtures, 'volcano.png'), ref);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/grids differ/);
    const b = await cli('diagnose', gen, ref, '--edge-band', 'x');
    expect(b.code).toBe(2);
  });
});
