// Report figures a researcher reads: the signed difference map (PNG colours equal to the page's colour scale, sign kept),
// --self-contained pages, the message a page shows when Plotly does not load, and the 3D view's vertical exaggeration.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { decode } from 'fast-png';
import { describe, expect, it } from 'vitest';
import { codeHeightfield, domainGrid, writeHeightfieldFile } from '../src/index.js';
import { signedBlockDq, verticalExaggeration } from '../src/compare/report.js';
import { cli, tempDir } from './helpers.js';

/** The JSON data island of a report page. */
function pageData(html: string): { colours: Record<string, [number, string][]>; diff: { signed: boolean; zmax: number } } {
  const m = /<script id="data" type="application\/json">(.*?)<\/script>/s.exec(html);
  if (!m) throw new Error('no data island in the page');
  return JSON.parse(m[1]);
}
const rgb = (s: string) => s.match(/\d+/g)!.map(Number);

describe('signed block map', () => {
  it('keeps the sign of the largest |Δq| per block (hand example)', () => {
    // 4×2 pixels, blocks of 2: block 0 holds +1 and −2 → −2; block 1 holds +3 → +3.
    const ref = new Uint16Array(8).fill(100);
    const gen = ref.slice();
    gen[0] += 1;
    gen[5] -= 2;
    gen[3] += 3;
    const b = signedBlockDq(gen, ref, 4, 2, 2);
    expect([b.columns, b.rows]).toEqual([2, 1]);
    expect(Array.from(b.data)).toEqual([-2, 3]);
  });
});

describe('difference map colours', () => {
  const d = tempDir('hb-fig-');
  // 64×64 codes; the block map uses 4×4 blocks (16×16). Block (2, 3) has Δq = +1, block (10, 12) has Δq = −1.
  const g = domainGrid(64);
  const ref = new Uint16Array(64 * 64).fill(30000);
  const gen = ref.slice();
  gen[(3 * 4 + 1) * 64 + 2 * 4 + 2] += 1;
  gen[12 * 4 * 64 + 10 * 4 + 3] -= 1;
  const refPath = join(d, 'ref.r16');
  const genPath = join(d, 'gen.r16');
  writeHeightfieldFile(refPath, codeHeightfield(g, ref));
  writeHeightfieldFile(genPath, codeHeightfield(g, gen));

  it('diffmap.png paints +1 and −1 with the end colours of the page colour scale, zero with its middle', async () => {
    const rep = join(d, 'rep');
    expect((await cli('compare', genPath, refPath, '--report', rep)).code).toBe(0);
    const page = pageData(readFileSync(join(rep, 'index.html'), 'utf8'));
    expect(page.diff.signed).toBe(true);
    const scale = page.colours.diverging;
    expect(scale[0][0]).toBe(0);
    expect(scale[scale.length - 1][0]).toBe(1);
    const png = decode(readFileSync(join(rep, 'diffmap.png')));
    expect([png.width, png.height, png.channels]).toEqual([16, 16, 3]);
    // row0-at-ymin: block row j is drawn at image row 15 − j (north up).
    const at = (bi: number, bj: number) => Array.from(png.data.subarray(((15 - bj) * 16 + bi) * 3, ((15 - bj) * 16 + bi) * 3 + 3));
    const plus = at(2, 3);
    const minus = at(10, 12);
    expect(plus).toEqual(rgb(scale[scale.length - 1][1]));
    expect(minus).toEqual(rgb(scale[0][1]));
    expect(at(0, 0)).toEqual(rgb(scale.find(([t]) => t === 0.5)![1]));
    // Generated above the reference reads red, below reads blue (as the page's note says).
    expect(plus[0]).toBeGreaterThan(plus[2]);
    expect(minus[2]).toBeGreaterThan(minus[0]);
  });

  it('titles every figure and names the colour bar with the sign', () => {
    const html = readFileSync(join(d, 'rep', 'index.html'), 'utf8');
    expect(html).toContain("colorbar: {title: {text: 'Δq (codes)'}");
    expect(html).toContain('Signed difference Δq = generated − reference');
    expect(html).toContain("yaxis2: {title: {text: 'max |Δ| (mm)'}");
    expect(html).toContain("range: x, constrain: 'domain'");
    // Every Plotly.newPlot call gives a title.
    const calls = html.split('Plotly.newPlot(').slice(1);
    expect(calls.length).toBe(5); // the two heightmaps and the two 3D panels are drawn in loops
    for (const c of calls) expect(c).toMatch(/title: ttl\(/);
  });

  it('--self-contained inlines Plotly; a linked page says so when Plotly does not load', async () => {
    const rep = join(d, 'self');
    await cli('compare', genPath, refPath, '--report', rep, '--self-contained');
    const html = readFileSync(join(rep, 'index.html'), 'utf8');
    expect(existsSync(join(rep, 'plotly.min.js'))).toBe(false);
    expect(html).not.toMatch(/<script src=/);
    const lib = readFileSync(join('node_modules', 'plotly.js-dist-min', 'plotly.min.js'), 'utf8');
    expect(html.length).toBeGreaterThan(lib.length);
    expect(html).toContain(lib.slice(0, 200));
    const linked = readFileSync(join(d, 'rep', 'index.html'), 'utf8');
    expect(linked).toMatch(/<p id="plotly-missing" class="warn" hidden>Plotly did not load \(this page expects it at plotly\.min\.js/);
    expect(linked).toContain("if (!window.Plotly) document.getElementById('plotly-missing').hidden = false;");
  });
});

describe('3D view', () => {
  it('vertical exaggeration: 1, 2 or 5 × 10^k up to 30 % of the width, never below 1', () => {
    expect(verticalExaggeration(30, 1250)).toBe(10); // 0.3 × 1250 / 30 = 12.5
    expect(verticalExaggeration(50, 1250)).toBe(5); // 7.5
    expect(verticalExaggeration(150, 1250)).toBe(2); // 2.5
    expect(verticalExaggeration(500, 1250)).toBe(1); // 0.75: never flattened
    expect(verticalExaggeration(0, 1250)).toBe(1);
  });
});
