/**
 * `heightbench atlas`: the ablations that exist today (renormalised weights, integer taps, 8-bit sub-texel weights,
 * float64 arithmetic), each run against the correct run of tundra-r19 at 128². The expected signatures come from the
 * article's numbers, not from the code under test:
 *  - renormalised weights: the five weights sum to 1.000002, so every 1-D pass scales by s = 1/1.000002; level N/2 has
 *    passed 2 such passes, N/4 4, N/8 6, and the base blends N/4 and N/8, so the base is scaled by a factor in
 *    [s⁶, s⁴] about 0 m — a gain;
 *  - integer taps: rounding the offsets (−4.30908, −2.37532, −0.5, 1.37532, 3.30908) moves the kernel's weighted mean
 *    offset from Σw·o = −0.500001 to Σw·round(o) = −0.299066 texel, +0.200935 texel of each level per pass. Along either
 *    axis level N/2 moves by 0.2·2 = 0.40, N/4 by 0.40 + 0.2·4 = 1.20, N/8 by 1.20 + 0.2·8 = 2.81 texels of N, and
 *    the base, half N/4 and half N/8, must show a shift between 1.20 and 2.81 texels in x and in y.
 * Validation: every ablation with an expected signature is named first by diagnose at its first
 * divergent stage, and where the article's geometry predicts a value, the value is right:
 *  - pixel corners: every pixel reads its world point half a pixel lower, so pixel i shows the reference at i − 0.5;
 *  - a half-texel move of each pass of each level (recentred +0.5, no cross-axis half texel −0.5, index 2i −0.5 of the
 *    finer level per halving) adds up along the chain as above: the base lies between the N/4 and the N/8 level's sum;
 *  - the N² filter left out, or taps pulled toward the kernel's centre by rounding their fractions to 1/256 (computed
 *    here from the article's offsets): the base is sharper, a net negative Laplacian Σ c_s·s²/4 over the blur terms
 *    (B_s H − H ≈ s²/4·∇²H, diagnose's signature) and no shift;
 *  - reversed rows: undoing the flip removes the whole difference.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { ABLATIONS, buildAtlas, type AtlasEntry } from '../src/experiments/atlas.js';
import { scaleColour } from '../src/report/atlas-report.js';
import { diverging } from '../src/report/pictures.js';
import { SMOOTHING_TAPS } from '../src/cpu/smoothing.js';
import { loadRequest } from '../src/plan/request.js';
import { cli, tempDir } from './helpers.js';

const ARTICLE_WEIGHTS = [0.055028, 0.244038, 0.40187, 0.244038, 0.055028];
const ARTICLE_OFFSETS = [-4.30908, -2.37532, -0.5, 1.37532, 3.30908];

describe('heightbench atlas tundra-r19 --size 128', () => {
  const d = tempDir('hb-atlas-');
  const out = join(d, 'atlas');
  let json: { entries: AtlasEntry[]; scaleM: number; size: number; request: string };
  let stdout = '';
  beforeAll(async () => {
    const r = await cli('atlas', 'tundra-r19', '--size', '128', '--out', out, '--json');
    expect(r.code).toBe(0);
    stdout = r.out;
    json = JSON.parse(readFileSync(join(out, 'atlas.json'), 'utf8'));
  }, 120_000);

  const entry = (name: string) => json.entries.find((e) => e.name === name)!;

  it('writes index.html, atlas.json and one map per ablation; the table is sorted by effect', () => {
    expect(JSON.parse(stdout).entries.length).toBe(ABLATIONS.length);
    expect(json.entries.map((e) => e.name).sort()).toEqual(ABLATIONS.map((a) => a.name).sort());
    for (const e of json.entries) expect(existsSync(join(out, 'maps', `${e.name}.png`))).toBe(true);
    const html = readFileSync(join(out, 'index.html'), 'utf8');
    for (const a of ABLATIONS) expect(html).toContain(`maps/${a.name}.png`);
    const rms = json.entries.map((e) => e.final.floatRmsMm);
    expect([...rms].sort((a, b) => b - a)).toEqual(rms);
    expect(json.scaleM).toBe(Math.max(...json.entries.map((e) => e.map.maxAbsM)));
  });

  it('the smoothing ablations leave the raster exactly as it was and diverge first at the base stage', () => {
    for (const name of ['renormalized-weights', 'integer-taps', 'subtexel-8bit']) {
      const e = entry(name);
      expect(e.stages.find((s) => s.stage === 'raster')!.rmsMm).toBe(0);
      expect(e.firstDivergentStage).toBe('base');
    }
  });

  it('renormalised weights: diagnose names a gain about 0 m first, with the factor the weight sum 1.000002 predicts', () => {
    const sum = ARTICLE_WEIGHTS.reduce((a, b) => a + b, 0);
    expect(sum).toBeCloseTo(1.000002, 9);
    const s = 1 / sum;
    const e = entry('renormalized-weights');
    const top = e.diagnosisAtFirstStage!.top!;
    expect(e.diagnosisAtFirstStage!.stage).toBe('base');
    expect(top.kind).toBe('gain');
    // The N/4 level has been through three filters (N², N/2, N/4: six passes), the N/8 level four (eight passes).
    expect(top.value).toBeGreaterThanOrEqual(s ** 8);
    expect(top.value).toBeLessThanOrEqual(s ** 6);
    expect(top.sentence).toContain('about 0 m');
    expect(e.namedFirst).toBe(true);
  });

  it("integer taps: diagnose names a shift first, between the N/4 and N/8 levels' shifts along both axes", () => {
    expect(Array.from(SMOOTHING_TAPS.offsets)).toEqual(ARTICLE_OFFSETS);
    const perPass = ARTICLE_WEIGHTS.reduce((a, w, t) => a + w * (Math.round(ARTICLE_OFFSETS[t]) - ARTICLE_OFFSETS[t]), 0);
    expect(perPass).toBeCloseTo(0.200935, 6);
    // Shifts in full-resolution texels: one filtered level each at N² (1), N/2 (2), N/4 (4), then N/8 (8).
    const n4 = perPass * 1 + perPass * 2 + perPass * 4;
    const n8 = n4 + perPass * 8;
    const e = entry('integer-taps');
    const c = e.diagnosisAtFirstStage!.coefficients;
    expect(['shiftX', 'shiftY']).toContain(e.diagnosisAtFirstStage!.top!.kind);
    for (const k of ['shiftX', 'shiftY'] as const) {
      expect(c[k]).toBeGreaterThanOrEqual(n4);
      expect(c[k]).toBeLessThanOrEqual(n8);
    }
    expect(e.namedFirst).toBe(true);
  });

  it('float64 arithmetic diverges at no stage beyond rounding, and diagnose finds no signature in it', () => {
    const e = entry('f64-arithmetic');
    expect(e.firstDivergentStage).toBeNull();
    expect(e.final.maxAbsCode).toBeLessThanOrEqual(1);
    // Float32 weights sum to 1.0000020117 against 1.000002 in float64: over the chain's six to eight passes that
    // predicts a gain of about 1 − 1e-7 of f64 against f32. Whatever diagnose finds here is at most such a gain.
    if (e.diagnosis.verdict === 'explained') {
      expect(e.diagnosis.top!.kind).toBe('gain');
      expect(Math.abs(e.diagnosis.top!.value - 1)).toBeLessThan(1e-6);
    }
  });

  it('the shared scale: zero is the neutral colour of the palette, positive red, negative blue; signed-log in between', () => {
    // The report palette (pictures.ts DIVERGING_STOPS): near-white at 0, red at +1, blue at −1.
    const [r0, g0, b0] = scaleColour(0, 1);
    expect(Math.min(r0, g0, b0)).toBeGreaterThanOrEqual(240);
    expect(scaleColour(0, 1)).toEqual(diverging(0));
    const [rp, , bp] = scaleColour(1, 1);
    expect(rp).toBeGreaterThan(bp + 100);
    const [rn, , bn] = scaleColour(-1, 1);
    expect(bn).toBeGreaterThan(rn + 100);
    // Signed-log: 1 mm on a 1 m scale sits half-way in colour (three decades of six above the 1 µm floor).
    const half = scaleColour(1e-3, 1);
    const want = diverging(0.5);
    for (let c = 0; c < 3; c++) expect(Math.abs(half[c] - want[c])).toBeLessThanOrEqual(2);
  });

  it('validation: every ablation with an expected signature is named first at its first divergent stage (the confusion table)', () => {
    const withSig = json.entries.filter((e) => e.expect !== null);
    expect(withSig.map((e) => e.name).sort()).toEqual(
      ABLATIONS.filter((a) => a.expect !== null)
        .map((a) => a.name)
        .sort(),
    );
    expect(withSig.length).toBeGreaterThanOrEqual(10);
    for (const e of withSig) {
      const d = e.diagnosisAtFirstStage!;
      expect(d.stage, e.name).toBe(e.firstDivergentStage);
      expect(d.verdict, e.name).toBe('explained');
      expect(e.expect, `${e.name}: top ${d.top?.kind}`).toContain(d.top!.kind);
      expect(e.namedFirst, e.name).toBe(true);
    }
    // Every ablation without one still gets a reading and a reason on the page.
    for (const e of json.entries.filter((x) => x.expect === null)) expect(e.signatureNote, e.name).toBeTruthy();
  });

  it('pixel corners: diagnose recovers the half-pixel shift along both axes at the raster', () => {
    const e = entry('pixel-corner-samples');
    expect(e.firstDivergentStage).toBe('raster');
    const c = e.diagnosisAtFirstStage!.coefficients;
    expect(c.shiftX).toBeGreaterThan(-0.55);
    expect(c.shiftX).toBeLessThan(-0.45);
    expect(c.shiftY).toBeGreaterThan(-0.55);
    expect(c.shiftY).toBeLessThan(-0.45);
  });

  it("half-texel moves per pass add up along the chain: the base shift lies between the N/4 and N/8 levels' sums, with the predicted sign", () => {
    // Per-level move in texels of that level, and the levels filtered: N² (1 px), N/2 (2 px), N/4 (4 px), N/8 (8 px).
    const sums = (perLevel: (px: number) => number) => {
      const n4 = [1, 2, 4].reduce((s, px) => s + perLevel(px), 0);
      return [n4, n4 + perLevel(8)];
    };
    const cases: [string, number[]][] = [
      ['recentred-kernel', sums((px) => 0.5 * px)],
      ['no-cross-axis-half-texel', sums((px) => -0.5 * px)],
      // Index 2i instead of 2i + 0.5: each halving reads half a texel of the finer level lower (none at N²).
      ['resample-2i', sums((px) => (px === 1 ? 0 : -0.5 * (px / 2)))],
    ];
    for (const [name, [a, b]] of cases) {
      const c = entry(name).diagnosisAtFirstStage!.coefficients;
      const lo = Math.min(a, b);
      const hi = Math.max(a, b);
      for (const k of ['shiftX', 'shiftY'] as const) {
        expect(c[k], `${name} ${k} in [${lo}, ${hi}]`).toBeGreaterThanOrEqual(lo);
        expect(c[k], `${name} ${k} in [${lo}, ${hi}]`).toBeLessThanOrEqual(hi);
      }
    }
  });

  it('the N² filter left out and 8-bit tap fractions both leave the base sharper (net negative Laplacian), without a shift', () => {
    // 8-bit fractions: each outer tap's fraction rounded to the nearest 1/256 moves it toward the centre −0.5.
    for (const o of ARTICLE_OFFSETS) {
      const f = o - Math.floor(o);
      const moved = Math.floor(o) + Math.round(f * 256) / 256;
      expect(Math.abs(moved + 0.5)).toBeLessThanOrEqual(Math.abs(o + 0.5));
    }
    for (const name of ['unfiltered-raster', 'subtexel-8bit']) {
      const e = entry(name);
      const d = e.diagnosisAtFirstStage!;
      expect(d.top!.kind).toMatch(/^blur/);
      expect(d.top!.value, name).toBeLessThan(0);
      const c = d.coefficients;
      const laplacian = ([1, 2, 4, 8] as const).reduce((s, k) => s + ((c[`blur${k}`] ?? 0) * (k * k)) / 4, 0);
      expect(laplacian, name).toBeLessThan(0);
      for (const k of ['shiftX', 'shiftY'] as const) expect(Math.abs(c[k] ?? 0), `${name} ${k}`).toBeLessThan(0.05);
    }
  });

  it('reversed rows: undoing the flip removes the whole difference; wrap addressing: named by the edge band', () => {
    const f = entry('flipped-rows').diagnosisAtFirstStage!;
    expect(f.top!.kind).toBe('rowFlip');
    expect(f.top!.value).toBeGreaterThan(0.999);
    expect(entry('wrap-addressing').diagnosisAtFirstStage!.top!.kind).toBe('edgeBand');
  });

  it('the page shows the confusion table, the masks, the radial and per-stage figures and links the real-fixture validation; metrics.json repeats atlas.json', () => {
    const html = readFileSync(join(out, 'index.html'), 'utf8');
    expect(html).toContain('id="validation"');
    const named = json.entries.filter((e) => e.namedFirst).length;
    const expected = json.entries.filter((e) => e.expect !== null).length;
    expect(html).toContain(`<b>${named} of ${expected}</b>`);
    for (const a of ABLATIONS) expect((html.match(new RegExp(`<b>${a.name}</b>`, 'g')) ?? []).length, a.name).toBeGreaterThanOrEqual(4);
    for (const m of ['innerDisk', 'centralWindow', 'blendRing', 'outsideRing']) expect(html).toContain(`<th colspan="3">${m}</th>`);
    expect(html).toContain('<div id="radial"');
    expect(html).toContain('<div id="stages"');
    expect(html).toMatch(/href="[^"]*docs\/atlas-and-diagnose\.md#diagnosing-a-difference/);
    expect(html).toContain('test/diagnose.test.ts');
    expect(existsSync(join(out, 'plotly.min.js'))).toBe(true);
    const m = JSON.parse(readFileSync(join(out, 'metrics.json'), 'utf8'));
    expect(m.namedFirst).toBe(named);
    expect(m.withSignature).toBe(expected);
    for (const e of json.entries) {
      expect(m.ablations[e.name].exactPercent).toBe(e.final.exactPercent);
      expect(m.ablations[e.name].rmsMm).toBe(e.final.rmsMm);
      expect(m.ablations[e.name].namedFirst).toBe(e.namedFirst);
    }
  });

  it('the page in headless chromium, offline: both Plotly figures drawn, every map and the scale load, links resolve, no console error', async () => {
    const { chromium } = await import('playwright-core');
    const browser = await chromium.launch({ executablePath: process.env.HEIGHTBENCH_CHROMIUM ?? '/usr/bin/chromium', headless: true, args: ['--no-sandbox'] });
    try {
      const page = await (await browser.newContext({ offline: true })).newPage();
      const errors: string[] = [];
      page.on('console', (m) => void (m.type() === 'error' && errors.push(m.text())));
      page.on('pageerror', (e) => void errors.push(String(e)));
      await page.goto(pathToFileURL(join(out, 'index.html')).href, { waitUntil: 'load' });
      // Evaluated in the page (strings: the test's TypeScript has no DOM types).
      await page.waitForFunction("document.querySelectorAll('.js-plotly-plot .main-svg').length >= 2", undefined, { timeout: 20_000 });
      const figs = (await page.evaluate(
        "[...document.querySelectorAll('.js-plotly-plot')].map((e) => ({ id: e.id, w: e.getBoundingClientRect().width, traces: (e.data || []).length }))",
      )) as { id: string; w: number; traces: number }[];
      expect(figs.map((f) => f.id).sort()).toEqual(['radial', 'stages']);
      for (const f of figs) expect(f.w).toBeGreaterThan(0);
      expect(figs.find((f) => f.id === 'radial')!.traces).toBe(ABLATIONS.length);
      expect(await page.isVisible('#plotly-missing')).toBe(false);
      const imgs = (await page.evaluate(
        "[...document.querySelectorAll('img')].map((e) => ({ src: e.getAttribute('src'), ok: e.complete && e.naturalWidth > 0 }))",
      )) as { src: string; ok: boolean }[];
      expect(imgs.length).toBe(ABLATIONS.length + 1);
      expect(imgs.filter((i) => !i.ok)).toEqual([]);
      const links = (await page.evaluate("[...document.querySelectorAll('a[href]')].map((a) => a.href)")) as string[];
      expect(links.length).toBeGreaterThan(0);
      for (const l of links) expect(existsSync(fileURLToPath(l.split('#')[0])), l).toBe(true);
      expect(errors).toEqual([]);
    } finally {
      await browser.close();
    }
  }, 60_000);

  it('refuses an --out folder that holds something other than an atlas, before running anything', async () => {
    const busy = join(d, 'busy');
    mkdirSync(busy);
    writeFileSync(join(busy, 'keep.txt'), 'x');
    const r = await cli('atlas', 'tundra-r19', '--size', '128', '--out', busy);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/keep\.txt\); refusing to replace it/);
  });
});

describe('ablations are data', () => {
  it('a list with one entry runs just that one; a duplicate name is refused', () => {
    const req = loadRequest('tundra-r19', 64);
    const a = buildAtlas(req, { ablations: [{ name: 'only-renorm', label: 'renormalised', option: { ablation: { renormalize: true } }, expect: ['gain'] }] });
    expect(a.entries.map((e) => e.name)).toEqual(['only-renorm']);
    expect(a.entries[0].firstDivergentStage).toBe('base');
    const dup = { name: 'x', label: 'x', option: {}, expect: null };
    expect(() => buildAtlas(req, { ablations: [dup, dup] })).toThrow(/appears twice/);
  });
});
