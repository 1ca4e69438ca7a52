// Report figures a researcher reads: the signed difference map (PNG colours equal to the page's colour scale, sign kept),
// --self-contained pages, the message a page shows when Plotly does not load, and the 3D view's vertical exaggeration.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { decode } from 'fast-png';
import { describe, expect, it } from 'vitest';
import { codeHeightfield, domainGrid, writeHeightfieldFile } from '../src/index.js';
import { signedBlockDq, verticalExaggeration } from '../src/report/comparison-report.js';
import { dqColour } from '../src/report/pictures.js';
import { cli, tempDir } from './helpers.js';

/** The JSON data island of a report page. */
function pageData(html: string): { viewer: { signed: boolean } } {
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

  it("diffmap.png paints +1 and −1 in the page legend's colours (dqColour), zero white, north-up", async () => {
    const rep = join(d, 'rep');
    expect((await cli('compare', genPath, refPath, '--report', rep)).code).toBe(0);
    const html = readFileSync(join(rep, 'index.html'), 'utf8');
    const page = pageData(html);
    expect(page.viewer.signed).toBe(true);
    // The legend's swatches carry the colours the maps use.
    const swatch = (dq: number) => rgb(new RegExp(`data-dq="${dq}" style="background:(rgb\\([^)]*\\))`).exec(html)![1]);
    expect(swatch(1)).toEqual(dqColour(1));
    expect(swatch(-1)).toEqual(dqColour(-1));
    const png = decode(readFileSync(join(rep, 'diffmap.png')));
    // 64² is below the 512² overview: one block per pixel.
    expect([png.width, png.height, png.channels]).toEqual([64, 64, 3]);
    const at = (i: number, j: number) => Array.from(png.data.subarray(((63 - j) * 64 + i) * 3, ((63 - j) * 64 + i) * 3 + 3));
    const plus = at(2 * 4 + 2, 3 * 4 + 1);
    const minus = at(10 * 4 + 3, 12 * 4);
    expect(plus).toEqual(swatch(1));
    expect(minus).toEqual(swatch(-1));
    expect(at(0, 0)).toEqual([255, 255, 255]);
    // Generated above the reference reads warm, below reads cool (as the legend says).
    expect(plus[0]).toBeGreaterThan(plus[2]);
    expect(minus[2]).toBeGreaterThan(minus[0]);
  });

  it('titles every Plotly figure and axis; the 3D view is the difference over the generated surface', () => {
    const html = readFileSync(join(d, 'rep', 'index.html'), 'utf8');
    // The page's script as bundled (src/report/page/plots.ts, printed by esbuild).
    expect(html).toContain('colorbar: { title: { text: "Δq (codes)" }');
    expect(html).toContain('Generated surface coloured by Δq');
    expect(html).toContain('zaxis: { title: { text: "height z (m)" }');
    expect(html).toContain('yaxis2: { title: { text: "max |Δ| (mm)" }');
    const calls = html.split('Plotly.newPlot(').slice(1);
    expect(calls.length).toBe(3); // histogram, radial profile, 3D
    // The seed's page has the 3D view's element (a declared pipeline without it does not: pipeline-attribution).
    expect(html).toContain('<div id="d3diff"');
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
    // One file to send keeps its full resolution and its pictures: tiles inline, gallery cards as data URIs.
    expect(html).toContain('<script id="tiles-0_0" type="text/plain">HB_TILE("0_0",64,64,"');
    expect(html).not.toMatch(/src="gallery\//);
    expect(html).toMatch(/<img src="data:image\/png;base64,[A-Za-z0-9+/=]+" alt="crops around pixel/);
    const linked = readFileSync(join(d, 'rep', 'index.html'), 'utf8');
    expect(linked).toMatch(/<p id="plotly-missing" class="warn" hidden>Plotly did not load \(this page expects it at plotly\.min\.js/);
    expect(linked).toContain('"plotly-missing").hidden = false;');
    expect(linked).toContain('const PLOTLY_SRC = "plotly.min.js";');
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
