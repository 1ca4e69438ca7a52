// Report maps of issue 26: the fixed signed Δq scale, a lone ±1 in a 4096² block map, summary.md bounded with a folded
// histogram, the gallery's order, per-stage maps and data-metric numbers of a real check, the viewer tiles' round trip,
// and a report written again into its folder.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { inflateSync } from 'node:zlib';
import { decode } from 'fast-png';
import { describe, expect, it } from 'vitest';
import { codeHeightfield, domainGrid, writeHeightfieldFile } from '../src/index.js';
import { compareHeightfields } from '../src/compare/compare.js';
import { DQ_RAMP_TO, dqColour, mmColour, signedBlockMax, signedBlockMaxOfDifference } from '../src/report/pictures.js';
import { SUMMARY_MAX_BYTES, summaryMarkdown } from '../src/report/summary-markdown.js';
import { blockDqMap, blockPng, galleryPicks, overviewFactor, viewerTiles } from '../src/report/report-maps.js';
import { cli, tempDir, testRandom } from './helpers.js';

/** Relative luminance (Rec. 709 weights on the 8-bit values): darker means a larger |Δq| on the ramp. */
const lum = ([r, g, b]: number[]) => 0.2126 * r + 0.7152 * g + 0.0722 * b;

describe('Δq scale', () => {
  it('gives 0, ±1, ±2 and ±3 seven distinct colours, warm above the reference and cool below', () => {
    const cs = [-3, -2, -1, 0, 1, 2, 3].map((d) => dqColour(d).join(','));
    expect(new Set(cs).size).toBe(7);
    expect(dqColour(0)).toEqual([255, 255, 255]);
    for (const d of [1, 2, 3]) {
      const [r, , b] = dqColour(d);
      const [r2, , b2] = dqColour(-d);
      expect(r).toBeGreaterThan(b);
      expect(b2).toBeGreaterThan(r2);
    }
  });

  it('is logarithmic beyond ±3: each doubling of |Δq| darker, a fixed scale (the same colour whatever the maximum)', () => {
    for (const sign of [1, -1]) {
      let prev = lum(dqColour(sign * 3));
      for (let a = 4; a <= DQ_RAMP_TO; a *= 2) {
        const l = lum(dqColour(sign * a));
        expect(l).toBeLessThan(prev);
        prev = l;
      }
      // Equal ratios, equal steps along the ramp: 4 → 40 and 40 → 400 move the colour by about the same amount.
      const d1 = lum(dqColour(sign * 4)) - lum(dqColour(sign * 40));
      const d2 = lum(dqColour(sign * 40)) - lum(dqColour(sign * 400));
      expect(Math.abs(d1 - d2)).toBeLessThan(0.25 * Math.max(d1, d2));
      // ±4 is not one of the band colours.
      expect([1, 2, 3].map((d) => dqColour(sign * d).join(','))).not.toContain(dqColour(sign * 4).join(','));
    }
  });

  it('colours stage differences by the same rules: white within 0.01 mm, bands, then the code ramp', () => {
    expect(mmColour(0.009)).toEqual([255, 255, 255]);
    expect(mmColour(-0.009)).toEqual([255, 255, 255]);
    expect(mmColour(0.05)).toEqual(dqColour(1));
    expect(mmColour(-0.5)).toEqual(dqColour(-2));
    expect(mmColour(10)).toEqual(dqColour(3));
    expect(mmColour((1e6 / 65535) * 100)).toEqual(dqColour(100));
  });
});

describe('block map of a 4096² field at 512²', () => {
  it('keeps a lone +1 and a lone −1 visible, each as one block of its colour', () => {
    const n = 4096;
    const ref = new Uint16Array(n * n).fill(32768);
    const gen = ref.slice();
    gen[1234 * n + 3001] += 1; // column 3001, row 1234
    gen[4095 * n + 7] -= 1; // column 7, row 4095
    const f = overviewFactor(n, n);
    expect(f).toBe(8);
    const b = blockDqMap(gen, ref, n, n, f);
    expect([b.w, b.h]).toEqual([512, 512]);
    const nonZero = [...b.data.keys()].filter((k) => b.data[k] !== 0);
    expect(nonZero).toEqual([(1234 >> 3) * 512 + (3001 >> 3), (4095 >> 3) * 512 + (7 >> 3)]);
    expect(b.data[nonZero[0]]).toBe(1);
    expect(b.data[nonZero[1]]).toBe(-1);
    // The picture (north-up: row 0 at the bottom) holds exactly those two coloured pixels.
    const png = decode(blockPng(b.data, b.w, b.h, dqColour, true));
    const coloured: [number, number, number[]][] = [];
    for (let y = 0; y < 512; y++)
      for (let x = 0; x < 512; x++) {
        const p = Array.from(png.data.subarray((y * 512 + x) * 3, (y * 512 + x) * 3 + 3));
        if (p.join(',') !== '255,255,255') coloured.push([x, y, p]);
      }
    expect(coloured).toEqual([
      [0, 511 - (4095 >> 3), dqColour(-1)],
      [3001 >> 3, 511 - (1234 >> 3), dqColour(1)],
    ]);
  });
});

describe('summary.md', () => {
  it('stays within 60 KB for a histogram of 10,000 distinct bins, headline first, the folded counts stated', () => {
    // 128×128 codes; pixel k < 10000 has Δq = k − 5000 (every value −5000 … 4999 once), the rest Δq = 0.
    const g = domainGrid(128);
    const ref = new Uint16Array(128 * 128).fill(30000);
    const gen = ref.slice();
    for (let k = 0; k < 10000; k++) gen[k] = 30000 + k - 5000;
    const r = compareHeightfields(codeHeightfield(g, gen), codeHeightfield(g, ref));
    expect(Object.keys(r.histogram).length).toBe(10000);
    const md = summaryMarkdown(r, { generated: 'g.r16', reference: 'r.r16' });
    expect(Buffer.byteLength(md)).toBeLessThanOrEqual(SUMMARY_MAX_BYTES);
    const lines = md.split('\n');
    expect(lines[0]).toBe('# Comparison');
    // The headline: 9999 pixels differ (Δq = 0 at k = 5000 only), largest |Δq| 5000.
    expect(lines[2]).toMatch(/^\*\*9999 of 16384 pixels differ\*\*.*largest \|Δq\| = 5000/);
    // Folded: Δq −5000 … −9 is 4992 pixels in 4992 bins; +9 … +4999 is 4991.
    const full = lines.find((l) => l.startsWith('| full map |'))!;
    expect(full).toContain('folded: 4992 px below −8 (4992 bins, min -5000), 4991 px above +8 (4991 bins, max +4999)');
    expect(full).toContain('-8: 1,');
    expect(full).toContain('0: 6385,');
    expect(full).not.toContain('+9:');
  });
});

describe('gallery', () => {
  it('lists the largest |Δq| first, then the largest connected groups', () => {
    const n = 64;
    const ref = new Uint16Array(n * n).fill(1000);
    const gen = ref.slice();
    const at = (i: number, j: number, d: number) => (gen[j * n + i] += d);
    at(5, 5, 9);
    at(50, 50, -5);
    at(30, 5, 2);
    for (let i = 10; i < 20; i++) at(i, 40, 1); // a group of 10 (a row)
    for (const [i, j] of [
      [40, 20],
      [41, 21],
      [42, 22],
      [43, 22],
    ])
      at(i, j, -1); // a diagonal group of 4 (8-neighbour)
    const p = galleryPicks(gen, ref, n, n, 4);
    expect(p.map((x) => [x.column, x.row, x.dq, x.why, x.group])).toEqual([
      [5, 5, 9, 'largest |Δq|', 1],
      [50, 50, -5, 'largest |Δq|', 1],
      [10, 40, 1, 'largest group', 10],
      [40, 20, -1, 'largest group', 4],
    ]);
    // Twelve cards at most; every differing pixel here fits (3 singles + the representatives and the rest of the row
    // beyond the crop neighbourhood of the first pick of the group).
    const all = galleryPicks(gen, ref, n, n);
    expect(all[0]).toMatchObject({ column: 5, row: 5, dq: 9 });
    expect(all.length).toBeLessThanOrEqual(12);
    expect(new Set(all.map((x) => x.index)).size).toBe(all.length);
  });
});

describe('check --report --attribution of two real runs (teaching request, 256²)', () => {
  it('writes a difference map for every dumped stage, the first-divergence map and the gallery', async () => {
    const d = tempDir('hb-maps-');
    const a = join(d, 'f32');
    const b = join(d, 'f64');
    expect((await cli('run', 'teaching-512', '--size', '256', '--precision', 'f32', '--out', a, '--quiet')).code).toBe(0);
    expect((await cli('run', 'teaching-512', '--size', '256', '--precision', 'f64', '--out', b, '--quiet')).code).toBe(0);
    const rep = join(d, 'rep');
    expect((await cli('check', a, b, '--report', rep, '--attribution')).code).toBe(0);
    const stages = (JSON.parse(readFileSync(join(rep, 'stages.json'), 'utf8')) as { stages: { stage: string }[] }).stages.map((s) => s.stage);
    expect(stages).toEqual(['raster-layer0', 'raster', 'base', 'after-support', 'after-stamps', 'after-locations', 'pre-encode']);
    const html = readFileSync(join(rep, 'index.html'), 'utf8');
    for (const s of stages) {
      const png = decode(readFileSync(join(rep, 'stages', `${s}.png`)));
      expect([png.width, png.height]).toEqual([256, 256]);
      expect(html).toContain(`data-stage="${s}"><img src="stages/${s}.png"`);
    }
    const m = JSON.parse(readFileSync(join(rep, 'metrics.json'), 'utf8')) as Record<string, number>;
    expect(m.differing).toBeGreaterThan(0); // not vacuous: float32 rounding moves some codes at 256²
    expect(existsSync(join(rep, 'first-divergence.png'))).toBe(true);
    const cards = [...html.matchAll(/<figure class="card" data-pixel="(\d+),(\d+)" data-dq="(-?\d+)"/g)];
    expect(cards.length).toBeLessThanOrEqual(12);
    expect(cards.length).toBeGreaterThan(0);
    // The first card is the pixel of largest |Δq| (metrics.json), and every card's picture exists.
    expect([Number(cards[0][1]), Number(cards[0][2])]).toEqual([m['maxAbsCodeAt.column'], m['maxAbsCodeAt.row']]);
    expect(Math.abs(Number(cards[0][3]))).toBe(m.maxAbsCode);
    cards.forEach((_, k) => expect(existsSync(join(rep, 'gallery', `${k + 1}.png`))).toBe(true));
    // Each card shows every stage and the final layer: 8 rows of crops.
    const card = decode(readFileSync(join(rep, 'gallery', '1.png')));
    expect(card.height).toBe(8 * (17 * 5 + 6) - 6);
    // One source of counts: every number marked data-metric is a metrics.json key (histogram bins: histogram.json), shown
    // as that value to the digits printed.
    const hist = JSON.parse(readFileSync(join(rep, 'histogram.json'), 'utf8')) as { dq: number; count: number }[];
    const marked = [...html.matchAll(/<span data-metric="([^"]+)">([^<]*)<\/span>/g)];
    expect(marked.length).toBeGreaterThan(40);
    for (const [, key, text] of marked) {
      const bin = /^histogram\.(-?\d+)$/.exec(key);
      const v = key in m ? m[key] : bin ? hist.find((h) => h.dq === Number(bin[1]))?.count : undefined;
      expect(v, key).toBeTypeOf('number');
      const dec = text.includes('.') ? text.split('.')[1].length : 0;
      const sig = text.replace(/^[-+]?0*\.?0*/, '').replace(/\D/g, '').length;
      const tol = Math.max(0.5 * 10 ** -dec, Math.abs(v!) * 0.5 * 10 ** (1 - sig)) * 1.000001;
      expect(Math.abs(Number(text) - v!), `${key}: ${text} vs ${v}`).toBeLessThanOrEqual(tol);
    }
    const md = readFileSync(join(rep, 'summary.md'), 'utf8');
    expect(md.split('\n')[2]).toMatch(/^\*\*\d+ of 65536 pixels differ\*\*/);
  }, 60000);
});

describe('viewer tiles', () => {
  it('decode (inflate, then the gradient predictor undone) to both sides codes and the stage bytes, edge tiles included', () => {
    // 300×260 codes: tiles of 256² leave edge tiles of 44 and 4 pixels. Terrain-like ramp plus a few differences.
    const W = 300;
    const H = 260;
    const ref = new Uint16Array(W * H);
    for (let j = 0; j < H; j++) for (let i = 0; i < W; i++) ref[j * W + i] = 30000 + 7 * i - 3 * j + ((i * j) % 5);
    const gen = ref.slice();
    gen[10 * W + 20] += 1;
    gen[259 * W + 299] -= 40;
    gen[0] = 65535;
    const stageOf = new Uint8Array(W * H);
    stageOf[10 * W + 20] = 3;
    const t = viewerTiles(gen, ref, W, H, stageOf);
    expect(t.tiles.sort()).toEqual(['0_0', '0_1', '1_0', '1_1']);
    expect(t.leftOut).toBe(0);
    const text = [...t.files.values()].join('');
    const calls = [...text.matchAll(/HB_TILE\("(\d+)_(\d+)",(\d+),(\d+),"([^"]*)"\);/g)];
    expect(calls.length).toBe(4);
    const unpredict = (b: Uint8Array, at: number, w: number, h: number) => {
      const n = w * h;
      const v = new Uint16Array(n);
      for (let j = 0; j < h; j++)
        for (let i = 0; i < w; i++) {
          const k = j * w + i;
          const p = i > 0 && j > 0 ? v[k - 1] + v[k - w] - v[k - w - 1] : i > 0 ? v[k - 1] : j > 0 ? v[k - w] : 0;
          v[k] = (p + (b[at + k] | (b[at + n + k] << 8))) & 0xffff;
        }
      return v;
    };
    for (const [, tx, ty, ws, hs, b64] of calls) {
      const w = Number(ws);
      const h = Number(hs);
      expect([w, h]).toEqual([Math.min(256, W - 256 * Number(tx)), Math.min(256, H - 256 * Number(ty))]);
      const raw = new Uint8Array(inflateSync(Buffer.from(b64, 'base64')));
      expect(raw.length).toBe(5 * w * h);
      const r = unpredict(raw, 0, w, h);
      const d = unpredict(raw, 2 * w * h, w, h);
      for (let j = 0; j < h; j++)
        for (let i = 0; i < w; i++) {
          const k = (256 * Number(ty) + j) * W + 256 * Number(tx) + i;
          expect(r[j * w + i]).toBe(ref[k]);
          expect((r[j * w + i] + d[j * w + i]) & 0xffff).toBe(gen[k]);
          expect(raw[4 * w * h + j * w + i]).toBe(stageOf[k]);
        }
    }
    // A budget below one tile keeps none, and counts the tiles with a difference it left out.
    const none = viewerTiles(gen, ref, W, H, null, 10);
    expect(none.tiles).toEqual([]);
    expect(none.leftOut).toBe(2); // tiles 0_0 and 1_1 hold the differences
  });
});

describe('a report written again into its folder', () => {
  it('removes the tiles, cards and stage maps the new report did not write, and keeps its own', async () => {
    const d = tempDir('hb-again-');
    const g = domainGrid(64);
    const ref = new Uint16Array(64 * 64).fill(30000);
    const gen = ref.slice();
    gen[100] += 2;
    writeHeightfieldFile(join(d, 'ref.r16'), codeHeightfield(g, ref));
    writeHeightfieldFile(join(d, 'gen.r16'), codeHeightfield(g, gen));
    const rep = join(d, 'rep');
    for (const f of ['viewer/7_7.js', 'gallery/13.png', 'stages/base.png', 'first-divergence.png']) {
      mkdirSync(join(rep, f, '..'), { recursive: true });
      writeFileSync(join(rep, f), 'old');
    }
    expect((await cli('compare', join(d, 'gen.r16'), join(d, 'ref.r16'), '--report', rep)).code).toBe(0);
    for (const f of ['viewer/7_7.js', 'gallery/13.png', 'stages/base.png', 'first-divergence.png']) expect(existsSync(join(rep, f)), f).toBe(false);
    expect(existsSync(join(rep, 'viewer', '0_0.js'))).toBe(true);
    expect(existsSync(join(rep, 'gallery', '1.png'))).toBe(true);
  });
});

describe('signedBlockMaxOfDifference (the stage maps)', () => {
  it('gives signedBlockMax of the float32 difference field it never makes, NaN, ±Inf and ties included', () => {
    const rnd = testRandom(11);
    for (const [w, h, size] of [
      [1, 1, 1],
      [37, 23, 4],
      [64, 64, 8],
      [101, 7, 16],
    ]) {
      const gen = new Float32Array(w * h);
      const ref = new Float32Array(w * h);
      for (let k = 0; k < gen.length; k++) {
        ref[k] = (rnd() - 0.5) * 1000;
        const u = rnd();
        gen[k] = u < 0.2 ? ref[k] : u < 0.3 ? -ref[k] : u < 0.35 ? Number.NaN : u < 0.38 ? Infinity : ref[k] + (rnd() - 0.5) * 0.01;
        if (u > 0.98) ref[k] = -Infinity;
      }
      const d = new Float32Array(gen.length);
      for (let k = 0; k < d.length; k++) d[k] = (gen[k] - ref[k]) * 1000;
      const want = signedBlockMax(d, w, h, size);
      const got = signedBlockMaxOfDifference(gen, ref, w, h, size, 1000);
      expect(got.w).toBe(want.w);
      expect(got.h).toBe(want.h);
      expect(Array.from(got.data)).toEqual(Array.from(want.data));
    }
  });
});
