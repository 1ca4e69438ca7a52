import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  codeHeightfield,
  compareHeightfields,
  domainGrid,
  encodeHeightR16,
  floatHeightfield,
  heightToUnorm,
  writeHeightfieldFile,
  type GridDescription,
} from '../src/index.js';
import { CompensatedSum } from '../src/compare/metric-accumulators.js';
import { cli, tempDir, testRandom } from './helpers.js';

const CODE_MM = (1000 / 65535) * 1000;

describe('hand-computed statistics', () => {
  // 8×8 map, reference all 30000; generated: +1 at 5 pixels, −1 at 2 pixels, +3 at pixel (6, 2).
  const g = domainGrid(8);
  const ref = new Uint16Array(64).fill(30000);
  const gen = ref.slice();
  for (const k of [0, 9, 18, 27, 36]) gen[k] += 1;
  for (const k of [40, 41]) gen[k] -= 1;
  gen[2 * 8 + 6] += 3;
  const r = compareHeightfields(codeHeightfield(g, gen), codeHeightfield(g, ref));
  it('counts, histogram, maximum and its position', () => {
    expect(r.pixels).toBe(64);
    expect(r.exact).toBe(56);
    expect(r.exactPercent).toBe(87.5);
    expect(r.histogram).toEqual({ '-1': 2, '0': 56, '1': 5, '3': 1 });
    expect(r.maxAbsCode).toBe(3);
    expect(r.maxAbsCodeAt?.pixel).toEqual([6, 2]);
    // 8 texels over 2048 m: column 6 centre at −1024 + 6.5 × 256 = 640; row 2 at −1024 + 2.5 × 256 = −384.
    expect(r.maxAbsCodeAt?.world).toEqual([640, -384]);
  });
  it('mean, RMS and maximum in mm', () => {
    expect(r.meanSignedCode).toBe((5 - 2 + 3) / 64);
    expect(r.rmsMm).toBeCloseTo(Math.sqrt((5 + 2 + 9) / 64) * CODE_MM, 12);
    expect(r.maxAbsMm).toBeCloseTo(3 * CODE_MM, 12);
    expect(r.floatRmsMm).toBeUndefined();
  });
});

describe('large code differences', () => {
  it('counts |Δq| beyond the dense range exactly, including the extremes ±65535', () => {
    const g = domainGrid(4);
    const ref = new Uint16Array(16).fill(30000);
    const gen = ref.slice();
    gen[1] = 30200;
    gen[2] = 29000;
    gen[3] = 30064;
    ref[4] = 0;
    gen[4] = 65535;
    ref[5] = 65535;
    gen[5] = 0;
    const r = compareHeightfields(codeHeightfield(g, gen), codeHeightfield(g, ref));
    expect(r.histogram).toEqual({ '-65535': 1, '-1000': 1, '0': 11, '64': 1, '200': 1, '65535': 1 });
    expect(r.maxAbsCode).toBe(65535);
    const sumSq = 200 ** 2 + 1000 ** 2 + 64 ** 2 + 2 * 65535 ** 2;
    expect(r.rmsMm).toBeCloseTo(Math.sqrt(sumSq / 16) * CODE_MM, 9);
    expect(r.meanSignedCode).toBe((200 - 1000 + 64) / 16);
  });
});

describe("the article's relation: k pixels at ±1 give RMS = sqrt(k/N) × 1000/65535 m", () => {
  it('reproduces 99.7904 % exact and ≈ 0.699 mm on a 4096² map with 35,171 pixels off by one', () => {
    const n = 4096;
    const ref = new Uint16Array(n * n);
    const rnd = testRandom(1);
    for (let k = 0; k < ref.length; k++) ref[k] = 20000 + ((k * 7) % 9000);
    const gen = ref.slice();
    const k = 16777216 - 16742045; // the article's differing pixels
    let placed = 0;
    while (placed < k) {
      const p = Math.floor(rnd() * ref.length);
      if (gen[p] !== ref[p]) continue;
      gen[p] += placed % 3 === 0 ? -1 : 1;
      placed++;
    }
    const r = compareHeightfields(codeHeightfield(domainGrid(n), gen), codeHeightfield(domainGrid(n), ref));
    expect(r.exact).toBe(16742045);
    expect(r.exactPercent.toFixed(4)).toBe('99.7904');
    expect(r.maxAbsCode).toBe(1);
    expect(r.rmsMm).toBeCloseTo(Math.sqrt(k / (n * n)) * CODE_MM, 12);
    expect(r.rmsMm.toFixed(3)).toBe('0.699');
    expect(r.maxAbsMm.toFixed(3)).toBe('15.259');
    expect(r.histogram['1'] + r.histogram['-1']).toBe(k);
  });
});

describe('block-maximum map', () => {
  it('keeps the largest |Δq| of each 4×4 block', () => {
    const g = domainGrid(8);
    const ref = new Uint16Array(64).fill(100);
    const gen = ref.slice();
    gen[0] = 101; // block (0,0): 1
    gen[1 * 8 + 2] = 97; // block (0,0): 3 wins
    gen[5 * 8 + 7] = 102; // block (1,1): 2
    const r = compareHeightfields(codeHeightfield(g, gen), codeHeightfield(g, ref), { block: 4 });
    expect([r.blocks.columns, r.blocks.rows]).toEqual([2, 2]);
    expect(Array.from(r.blocks.maxAbsCode)).toEqual([3, 0, 0, 2]);
  });
  it('keeps the signed maximum for floats', () => {
    const g = domainGrid(4);
    const ref = new Float32Array(16).fill(10);
    const gen = ref.slice();
    gen[0] = 9.5;
    gen[1] = 10.25;
    const r = compareHeightfields(floatHeightfield(g, gen), floatHeightfield(g, ref), { block: 2 });
    expect(r.blocks.signedMaxM?.[0]).toBe(-0.5);
  });
});

describe('masks on known geometry (texel-centre coordinates)', () => {
  // One row of 4002 texels over 800.4 m centred on 0: centres at −400.1, −399.9, …, 399.9, 400.1.
  const g: GridDescription = {
    xmin: -400.2,
    ymin: -0.5,
    sizeX: 800.4,
    sizeY: 1,
    columns: 4002,
    rows: 1,
    convention: 'texel-centre',
    rowDirection: 'row0-at-ymin',
  };
  const ref = new Uint16Array(4002).fill(1000);
  const gen = ref.slice();
  gen[0] += 2; // r = 400.1 m: outside the 400 m disk
  gen[1] += 1; // r = 399.9 m: inside
  const r = compareHeightfields(codeHeightfield(g, gen), codeHeightfield(g, ref), { masks: { windowSize: 100, ringInner: 399.95, ringOuter: 500 } });
  it('a pixel at 399.9 m is inside the 400 m disk, one at 400.1 m is not', () => {
    expect(r.masks.innerDisk.pixels).toBe(4000);
    expect(r.masks.innerDisk.maxAbsCode).toBe(1);
    expect(r.masks.innerDisk.histogram).toEqual({ '0': 3999, '1': 1 });
  });
  it('ring and outside masks use the same squared-radius predicates, counts from geometry', () => {
    expect(r.masks.blendRing.pixels).toBe(2); // 400.1 m on both sides
    expect(r.masks.blendRing.maxAbsCode).toBe(2);
    expect(r.masks.outsideRing.pixels).toBe(0);
    expect(r.masks.centralWindow.pixels).toBe(500); // |x| ≤ 50 m at 0.2 m spacing
    expect(r.masks.centralWindow.exact).toBe(500);
  });
  it('the radial profile puts each pixel in one 10 m ring and the ring counts add up', () => {
    const total = r.radial.rings.reduce((s, x) => s + x.pixels, 0);
    expect(total).toBe(4002);
    const ring40 = r.radial.rings[40]; // [400, 410)
    expect(ring40.pixels).toBe(2);
    expect(ring40.maxAbsCode).toBe(2);
    expect(r.radial.rings[39].maxAbsCode).toBe(1);
  });
});

describe('refusals and non-finite values', () => {
  it('refuses mismatched grids, naming both values', () => {
    expect(() => compareHeightfields(codeHeightfield(domainGrid(8), new Uint16Array(64)), codeHeightfield(domainGrid(16), new Uint16Array(256)))).toThrow(
      'grids differ (generated vs reference) in columns: 8 vs 16',
    );
    const a = codeHeightfield(domainGrid(4), new Uint16Array(16));
    const b = codeHeightfield({ ...domainGrid(4), rowDirection: 'row0-at-ymax' }, new Uint16Array(16));
    expect(() => compareHeightfields(a, b)).toThrow('rowDirection: "row0-at-ymin" vs "row0-at-ymax"');
    const c = codeHeightfield(domainGrid(4), new Uint16Array(16), { min: -100, max: 100 });
    expect(() => compareHeightfields(a, c)).toThrow('height ranges differ (generated vs reference): -500..500 m vs -100..100 m');
  });
  it('counts NaN on its own and keeps it out of every metric', () => {
    const g = domainGrid(4);
    const ref = Float32Array.from({ length: 16 }, (_, k) => k);
    const gen = ref.slice();
    gen[3] = Number.NaN;
    gen[4] += 0.5;
    ref[7] = Infinity;
    // A stated code range, so that the code metrics are measured too (a NaN must not reach them either).
    const r = compareHeightfields(floatHeightfield(g, gen), floatHeightfield(g, ref), { codeRange: { min: -10, max: 30 } });
    expect(r.nonFinite).toEqual({ generated: 1, reference: 1, pixelsExcluded: 2 });
    expect(r.pixels).toBe(14);
    expect(r.differing).toBe(1);
    expect(r.floatRmsMm).toBeCloseTo(Math.sqrt(0.25 / 14) * 1000, 9);
    expect(r.floatMaxAbsMm).toBe(500);
    expect(Number.isFinite(r.rmsMm)).toBe(true);
    const inMasks = Object.values(r.masks).map((m) => m.pixels);
    expect(inMasks.every((p) => Number.isFinite(p))).toBe(true);
  });
});

describe('accumulation', () => {
  it('compensated summation keeps what naive summation cancels', () => {
    const s = new CompensatedSum();
    for (const x of [1e16, 1, -1e16]) s.add(x);
    expect(s.value).toBe(1);
    expect(1e16 + 1 - 1e16).toBe(0); // what a plain sum returns
  });
  it('a large field with tiny differences keeps its RMS exact to 1e-12 relative', () => {
    const n = 1024;
    const rnd = testRandom(9);
    const ref = new Float32Array(n * n);
    const gen = new Float32Array(n * n);
    let sumM2 = 0n;
    for (let k = 0; k < ref.length; k++) {
      ref[k] = 300 + rnd() * 100; // 256–512 m: float32 spacing 2^-15 m
      const m = Math.floor(rnd() * 15) - 7; // −7 … 7 units of 2^-15
      gen[k] = ref[k] + m * 2 ** -15;
      sumM2 += BigInt(m * m);
    }
    const expected = Math.sqrt(Number(sumM2) / (n * n)) * 2 ** -15 * 1000;
    const r = compareHeightfields(floatHeightfield(domainGrid(n), gen), floatHeightfield(domainGrid(n), ref));
    expect(Math.abs((r.floatRmsMm as number) - expected) / expected).toBeLessThan(1e-12);
  });
});

describe('residual attribution', () => {
  it('separates quantization straddles from real deviations', () => {
    const g = domainGrid(4);
    const mpc = 1000 / 65535;
    // Heights on or right next to code boundaries (q + 0.5 codes) and one far from any boundary.
    const h = new Float32Array(16);
    for (let k = 0; k < 16; k++) h[k] = -500 + (30000 + k * 10 + 0.5) * mpc;
    h[15] = -500 + (40000 + 0.2) * mpc; // 0.3 code from the nearest boundary
    const genCodes = Uint16Array.from(h, (x) => encodeHeightR16(x));
    const refCodes = genCodes.slice();
    // The neighbour across the nearest boundary: the float32 product p = u × 65535 rounds up when frac(p) ≥ 0.5.
    const p = Math.fround(heightToUnorm(h[2]) * 65535);
    expect(Math.abs((p % 1) - 0.5)).toBeLessThan(0.01);
    refCodes[2] = p % 1 >= 0.5 ? genCodes[2] - 1 : genCodes[2] + 1;
    refCodes[5] = genCodes[5] + 3; // a real deviation: three codes
    refCodes[15] = genCodes[15] + 1; // one code, but the float is far from the boundary
    const r = compareHeightfields(codeHeightfield(g, genCodes), codeHeightfield(g, refCodes), { generatedFloat: h });
    expect(r.attribution).toMatchObject({ differing: 3, deviation: 2, inconsistent: 0 });
    expect(r.attribution?.straddle).toBe(1);
  });
});

describe('heightbench compare', () => {
  const d = tempDir('hb-cmp-');
  const g = domainGrid(64);
  const ref = Uint16Array.from({ length: 64 * 64 }, (_, k) => 30000 + (k % 500));
  const gen = ref.slice();
  gen[100] += 1;
  gen[2000] -= 1;
  const refPath = join(d, 'ref.r16');
  const genPath = join(d, 'gen.png');
  writeHeightfieldFile(refPath, codeHeightfield(g, ref));
  writeHeightfieldFile(genPath, codeHeightfield(g, gen));
  it('--json prints the contract fields at the top level', async () => {
    const r = await cli('compare', genPath, refPath, '--json');
    expect(r.code).toBe(0);
    const j = JSON.parse(r.out);
    for (const k of ['pixels', 'exact', 'exactPercent', 'histogram', 'maxAbsCode', 'meanSignedCode', 'rmsMm', 'maxAbsMm']) expect(j).toHaveProperty(k);
    expect(j.histogram).toEqual({ '-1': 1, '0': 4094, '1': 1 });
    expect(j.masks.innerDisk.definition).toEqual({ kind: 'disk', radius: 400 });
  });
  it('gates: exit 3 when one fails (distinct from 1, an internal failure), 0 when all pass', async () => {
    expect((await cli('compare', genPath, refPath, '--min-exact', '99.9', '--max-code', '1')).code).toBe(0);
    const r = await cli('compare', genPath, refPath, '--min-exact', '99.99');
    expect(r.code).toBe(3);
    expect(r.err).toMatch(/gate failed: exact codes % ≥ 99.99, measured 99.95/);
  });
  it('refuses mismatched grids with exit 2, and --resample compares in metres', async () => {
    const small = join(d, 'small.r16');
    writeHeightfieldFile(small, codeHeightfield(domainGrid(32), new Uint16Array(32 * 32).fill(30000)));
    const r = await cli('compare', small, refPath);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/grids differ \(generated vs reference\) in columns: 32 vs 64/);
    const s = await cli('compare', small, refPath, '--resample', '--json');
    expect(s.code).toBe(0);
    expect(JSON.parse(s.out).kind.generated).toBe('float');
  });
  it('--report writes the HTML, Markdown, flat metrics and pictures', async () => {
    const rep = join(d, 'report');
    const r = await cli('compare', genPath, refPath, '--report', rep, '--max-rms-mm', '1');
    expect(r.code).toBe(0);
    for (const f of ['index.html', 'summary.md', 'metrics.json', 'histogram.json', 'radial.json', 'diffmap.png', 'heightmaps.png', 'plotly.min.js']) {
      expect(existsSync(join(rep, f))).toBe(true);
    }
    const m = JSON.parse(readFileSync(join(rep, 'metrics.json'), 'utf8'));
    expect(m.exact).toBe(4094);
    expect(m['masks.innerDisk.pixels']).toBeGreaterThan(0);
    expect(Object.values(m).every((v) => typeof v === 'number')).toBe(true);
    // Scalars only: the Δq bins are plot data (histogram.json), with every pixel counted once.
    expect(Object.keys(m).filter((k) => /(^|\.)histogram\./.test(k))).toEqual([]);
    const hist = JSON.parse(readFileSync(join(rep, 'histogram.json'), 'utf8')) as { dq: number; count: number }[];
    expect(hist.reduce((a, b) => a + b.count, 0)).toBe(m.pixels);
    expect(hist.find((b) => b.dq === 0)?.count).toBe(m.exact);
    const html = readFileSync(join(rep, 'index.html'), 'utf8');
    // Plotly is loaded by the page after its first map is drawn; the maps say what is display-only.
    expect(html).toContain('const PLOTLY_SRC = "plotly.min.js";');
    expect(html).toContain('display only');
    expect(readFileSync(join(rep, 'summary.md'), 'utf8')).toMatch(/\| RMS mm \| ≤ 1 \| .* \| pass \|/);
  });
});

describe('a float pair summary (CompareOptions.summary, the stage table of check)', () => {
  it('gives the whole map and the inner disk bit for bit as the full comparison, and nothing else', () => {
    const g = domainGrid(256);
    const rnd = testRandom(29);
    const a = new Float32Array(256 * 256);
    const b = new Float32Array(256 * 256);
    for (let k = 0; k < a.length; k++) {
      a[k] = 400 * rnd() - 200;
      b[k] = a[k] + (rnd() < 0.3 ? (rnd() - 0.5) * 0.02 : 0);
    }
    b[7] = Number.NaN; // an excluded pixel on one side
    const full = compareHeightfields(floatHeightfield(g, a), floatHeightfield(g, b));
    const sum = compareHeightfields(floatHeightfield(g, a), floatHeightfield(g, b), { summary: true });
    for (const key of ['pixels', 'floatRmsMm', 'floatMaxAbsMm', 'floatBiasMm', 'rmsMm', 'maxAbsCode', 'exact'] as const) {
      expect(sum[key]).toBe(full[key]);
      expect(sum.masks.innerDisk[key]).toBe(full.masks.innerDisk[key]);
    }
    expect(sum.nonFinite).toEqual(full.nonFinite);
    expect(Object.keys(sum.masks)).toEqual(['innerDisk']);
    expect(Object.keys(full.masks).length).toBeGreaterThan(1);
    expect(sum.radial.rings).toEqual([]);
    expect(full.radial.rings.length).toBeGreaterThan(0);
    expect(sum.blocks.signedMaxM).toBeNull();
  });
});
