import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { decodeHeightR16, loadRequest, mipWeights, parentChildReference, runPipeline, smoothstepBlend, supportExtentFactor } from '../src/api/notebook.js';
import { chain, compose, rotation, scaling, transformPoint, translation } from '../src/core/transforms.js';
import { encodeFieldR16 } from '../src/core/encoding.js';
import { loadWorld } from '../src/pipeline/inputs.js';
import { applyOuterBlend, buildMipChain, readAssetKtx2, shapeDistance, stampHeights, supportExtent, writeAssetKtx2 } from '../src/api/pipeline.js';
import { bytes, cli, tempDir, testRandom } from './helpers.js';
import { sampleLevelF32 } from '../src/cpu/mips.js';
import { drawAsset, footprintQuery, type DrawProgram } from '../src/cpu/draw.js';
import type { HeightAsset } from '../src/assets/assets.js';
import { runContext } from '../src/cpu/context.js';
import { sampleTexel } from '../src/core/sampling.js';

describe('teaching numbers (article, support to outer blend)', () => {
  it('smoothstep band: 20 m inside, −2 m outside → 16.5625 at 635 m, 9 at 650 m, 1.4375 at 665 m', () => {
    expect(smoothstepBlend(620, 20, -2)).toBe(20);
    expect(smoothstepBlend(635, 20, -2)).toBe(16.5625);
    expect(smoothstepBlend(650, 20, -2)).toBe(9);
    expect(smoothstepBlend(665, 20, -2)).toBe(1.4375);
    expect(smoothstepBlend(680, 20, -2)).toBe(-2);
    // (500, 500) lies at ≈ 707.1 m: beyond the band although neither coordinate exceeds 620.
    expect(smoothstepBlend(Math.hypot(500, 500), 20, -2)).toBe(-2);
  });
  it('extent factor: t = 0.5 with relief 0.2 → 0.6, relief 1 → 1', () => {
    expect(supportExtentFactor(0.5, 0.2)).toBeCloseTo(0.6, 15);
    expect(supportExtentFactor(0.5, 1)).toBe(1);
    const e = supportExtent(10, 2, 8, 12, 0.05, 20); // t = log(1.5), relief = (12 − 2)/20 = 0.5
    expect(e.t).toBeCloseTo(Math.log(1.5), 15);
    expect(e.relief).toBe(0.5);
    expect(e.k).toBeCloseTo(1 - e.t + e.t * 0.5, 15);
  });
  it('parent–child averaging: 12 m with children 8 and 20 at 0.5 and 0.25 → 12 m; without the second → 10.667 m', () => {
    expect(
      parentChildReference(12, [
        { height: 8, weight: 0.5 },
        { height: 20, weight: 0.25 },
      ]),
    ).toBe(12);
    expect(parentChildReference(12, [{ height: 8, weight: 0.5 }]).toFixed(3)).toBe('10.667');
  });
  it('transform order: (10, 0) rotated 90° then moved by (100, 50) → (100, 60); moved first → (−50, 110)', () => {
    const a = transformPoint(chain(rotation(Math.PI / 2), translation(100, 50)), [10, 0]);
    expect(a[0]).toBeCloseTo(100, 12);
    expect(a[1]).toBeCloseTo(60, 12);
    const b = transformPoint(compose(rotation(Math.PI / 2), translation(100, 50)), [10, 0]);
    expect(b[0]).toBeCloseTo(-50, 12);
    expect(b[1]).toBeCloseTo(110, 12);
  });
  it('trilinear mip weights: LOD 2.25 → levels 2 and 3 at 0.75 and 0.25', () => {
    expect(mipWeights(2.25)).toEqual({ lower: 2, upper: 3, weightLower: 0.75, weightUpper: 0.25 });
    expect(mipWeights(-1, 8)).toEqual({ lower: 0, upper: 1, weightLower: 1, weightUpper: 0 });
    expect(mipWeights(9, 8)).toEqual({ lower: 7, upper: 7, weightLower: 1, weightUpper: 0 });
  });
  it('support shapes: signed distance to circles and rotated rectangles', () => {
    const circle = { kind: 'circle' as const, x: 10, y: 0, radius: 5, halfSize: [0, 0] as [number, number], angle: 0, strength: 1, transitionWidth: 4 };
    expect(shapeDistance(circle, 18, 0)).toBe(3);
    expect(shapeDistance(circle, 10, 0)).toBe(-5);
    const rect = { kind: 'rect' as const, x: 0, y: 0, radius: 0, halfSize: [4, 2] as [number, number], angle: Math.PI / 2, strength: 1, transitionWidth: 4 };
    expect(shapeDistance(rect, 0, 5)).toBeCloseTo(1, 12); // the long side now runs along Y
    expect(shapeDistance(rect, 3, 0)).toBeCloseTo(1, 12);
  });
});

describe('static height assets', () => {
  const world = loadWorld('tundra');
  const key = world.stamps.keys[2];
  it('stores every mip level in a KTX2 R16_UNORM container and reads them back exactly', () => {
    const h = stampHeights(key);
    const d = key.decode;
    const q0 = Uint16Array.from(h, (x) => Math.min(65535, Math.max(0, Math.floor((x - d.offsetMetres) / d.metresPerCode + 0.5))));
    const chain0 = buildMipChain(q0, key.size, d);
    expect(chain0.sizes).toEqual([256, 128, 64, 32, 16, 8, 4, 2, 1]);
    const bytes = writeAssetKtx2(key.key, key.size, key.worldSize, d, chain0);
    expect(Array.from(bytes.subarray(0, 12))).toEqual([0xab, 0x4b, 0x54, 0x58, 0x20, 0x32, 0x30, 0xbb, 0x0d, 0x0a, 0x1a, 0x0a]); // «KTX 20»
    const a = readAssetKtx2(bytes, 'test');
    expect(a.sizes).toEqual(chain0.sizes);
    expect(a.worldSize).toBe(key.worldSize);
    for (let l = 0; l < a.levels.length; l++) {
      const want = Array.from(chain0.levels[l], (q) => Math.fround(q * d.metresPerCode + d.offsetMetres));
      expect(Array.from(a.levels[l])).toEqual(want);
    }
  });
  it('mip levels nest: each texel of level k+1 is the 2×2 mean of level k (even sizes), within one code', () => {
    const d = key.decode;
    const c = buildMipChain(
      Uint16Array.from(stampHeights(key), (x) => Math.floor((x - d.offsetMetres) / d.metresPerCode + 0.5)),
      key.size,
      d,
    );
    for (let l = 0; l + 1 < c.levels.length; l++) {
      const n = c.sizes[l];
      const m = c.sizes[l + 1];
      for (let j = 0; j < m; j++) {
        for (let i = 0; i < m; i++) {
          const mean =
            (c.levels[l][2 * j * n + 2 * i] +
              c.levels[l][2 * j * n + 2 * i + 1] +
              c.levels[l][(2 * j + 1) * n + 2 * i] +
              c.levels[l][(2 * j + 1) * n + 2 * i + 1]) /
            4;
          expect(Math.abs(c.levels[l + 1][j * m + i] - mean)).toBeLessThanOrEqual(0.5 + 1e-9);
        }
      }
    }
  });
  it('stamp textures fade to zero at their border', () => {
    const h = stampHeights(key);
    const n = key.size;
    for (let i = 0; i < n; i++) {
      expect(Math.abs(h[i])).toBeLessThan(1e-3);
      expect(Math.abs(h[(n - 1) * n + i])).toBeLessThan(1e-3);
    }
  });
});

describe('draw sampling', () => {
  it('sampleLevelF32 equals sampleTexel (exact) at every u, v, including clamped edges, in f32 and f64', () => {
    const n = 37;
    const rnd = testRandom(5);
    const level = Float32Array.from({ length: n * n }, () => rnd() * 20 - 5);
    for (const R of [Math.fround, (x: number) => x]) {
      for (let k = 0; k < 2000; k++) {
        const u = k < 8 ? [0, 0.999999, 0.5 / n, 1 - 0.5 / n, 0.25, 0.5, 1e-9, 0.75][k] : rnd();
        const v = rnd();
        expect(sampleLevelF32(level, n, u, v, R)).toBe(sampleTexel(level, n, n, u * n - 0.5, v * n - 0.5, R));
      }
    }
  });
});

describe('draw kernel (draw.wat) on arena fields', () => {
  it('draws add, max, min, lerp and location instances bit-identical to the JavaScript loop, one level or two; envelopes agree', () => {
    const n = 96;
    const rnd = testRandom(21);
    const sizes = [40, 20, 10, 5, 2, 1];
    const asset: HeightAsset = {
      key: 'test',
      size: 40,
      worldSize: 30,
      decode: { metresPerCode: 1, offsetMetres: 0 },
      sizes,
      levels: sizes.map((m) => Float32Array.from({ length: m * m }, () => rnd() * 8 - 2)),
    };
    const g = { xmin: -48, ymin: -48, size: 96, n };
    const programs: DrawProgram[] = [
      { mode: 'add', k: 0.7 },
      { mode: 'max', k: 1.3, c: 0.25 },
      { mode: 'min', k: 0.9, c: 3.5 },
      { mode: 'lerp', k: 1.1, c: 2, a: 0.6, sMax: 6 },
      { mode: 'lerp', k: 0.8, c: -1, a: 0.4, sMax: -4 },
      { mode: 'location', c: 4.5 },
    ];
    const js = Float32Array.from({ length: n * n }, () => rnd() * 10);
    const ctx = runContext({ executor: 'simd', n });
    const simd = ctx.arena!.rasterView;
    simd.set(js);
    let twoLevels = 0;
    for (let t = 0; t < 60; t++) {
      // scales from 0.6 to 2.4: LOD from below 0 (level 0 alone) to blends of two levels
      const m = chain(scaling(0.6 + 1.8 * rnd()), rotation(rnd() * 7), translation(rnd() * 90 - 45, rnd() * 90 - 45));
      const program = programs[t % programs.length];
      expect(footprintQuery(simd, g, asset, m, ctx)).toEqual(footprintQuery(js, g, asset, m)); // envelope kernel
      const a = drawAsset(js, g, asset, m, Math.fround, program);
      const b = drawAsset(simd, g, asset, m, Math.fround, program, ctx);
      expect(b).toEqual(a);
      if (a.lod > 0) twoLevels++;
    }
    expect(twoLevels).toBeGreaterThan(10);
    expect(bytes(simd).equals(bytes(js))).toBe(true);
  });
});

describe('outer blend runs', () => {
  /** The blend written pixel by pixel, the plain reading of outer.ts's header (the reference for the run split). */
  const perPixel = (
    field: Float32Array | Float64Array,
    g: { xmin: number; ymin: number; size: number; n: number },
    outer: Float32Array | Float64Array | number,
    R: (x: number) => number,
  ) => {
    const px = g.size / g.n;
    const [cx, cy] = [g.xmin + g.size / 2, g.ymin + g.size / 2];
    for (let j = 0; j < g.n; j++) {
      const dy = R(g.ymin + (j + 0.5) * px - cy);
      for (let i = 0; i < g.n; i++) {
        const dx = R(g.xmin + (i + 0.5) * px - cx);
        const r = R(Math.sqrt(R(R(dx * dx) + R(dy * dy))));
        if (r <= 620) continue;
        const t = Math.min(R(R(r - 620) / 60), 1);
        const a = R(R(t * t) * R(3 - R(2 * t)));
        const k = j * g.n + i;
        const ho = R(typeof outer === 'number' ? outer : outer[k]);
        field[k] = R(R(R(1 - a) * field[k]) + R(a * ho));
      }
    }
  };
  it.each([
    ['f32', 300, -700.3],
    ['f64', 300, -700.3],
    ['f32', 512, -1024],
    ['f64', 257, -1500],
  ] as const)('equal the per-pixel formula bit for bit (%s, %i², domain from %f m)', (precision, n, xmin) => {
    const R = precision === 'f32' ? Math.fround : (x: number) => x;
    const g = { xmin, ymin: xmin + 3.7, size: 1500 + n, n };
    const rnd = testRandom(n);
    const make = () => {
      const f = precision === 'f32' ? new Float32Array(n * n) : new Float64Array(n * n);
      for (let k = 0; k < f.length; k++) f[k] = rnd() * 100 - 20;
      return f;
    };
    for (const outer of [-2, make()]) {
      const a = make();
      const b = a.slice();
      const counts = applyOuterBlend(a, g, { inner: 620, outer: 680 }, outer, precision);
      perPixel(b, g, outer, R);
      expect(counts.blendedPixels + counts.fullyOuter).toBeGreaterThan(0);
      expect(Buffer.from(a.buffer).equals(Buffer.from(b.buffer))).toBe(true);
    }
  });
});

describe('the whole run (teaching-512)', () => {
  const req = loadRequest('teaching-512');
  const keep = ['base', 'after-support', 'after-stamps', 'after-locations'];
  const r = runPipeline(req, { precision: 'f32', keep });
  it('reaches every stage with the request’s counts', () => {
    // tundra-r19's 54 draws of 44 resources (84 circles) plus the world's four survey sites, admitted by category 8:
    // one rectangle each and one more circle; their textures add two assets the 44 do not already use.
    expect(r.manifest.counts).toMatchObject({
      locationDraws: 58,
      locationResources: 48,
      supportCircles: 85,
      supportRectangles: 4,
      locationTextureDraws: 58,
      locationTextures: 46,
      outerDrawEligible: false,
    });
    expect(r.stamps.instances.length).toBeGreaterThan(1000);
    expect(Object.keys(r.stamps.drawsPerKey)).toHaveLength(24);
    expect(r.manifest.drawsByStage.stamps).toBeGreaterThan(0);
  });
  it('support, stamps and location textures each raise and lower the ground', () => {
    const pairs: [string, string][] = [
      ['base', 'after-support'],
      ['after-support', 'after-stamps'],
      ['after-stamps', 'after-locations'],
    ];
    for (const [a, b] of pairs) {
      const fa = r.fields.get(a)!;
      const fb = r.fields.get(b)!;
      let up = 0;
      let down = 0;
      for (let k = 0; k < fa.length; k++) {
        if (fb[k] > fa[k]) up++;
        else if (fb[k] < fa[k]) down++;
      }
      expect(up, `${b} raises`).toBeGreaterThan(0);
      expect(down, `${b} lowers`).toBeGreaterThan(0);
    }
  });
  it('the outer blend leaves r ≤ 620 m untouched and sets r ≥ 680 m to the initial outer value (0 m: a cleared target)', () => {
    const pre = r.fields.get('pre-encode')!;
    const loc = r.fields.get('after-locations')!;
    const n = 512;
    const px = 2048 / n;
    for (const [i, j] of [
      [256, 256],
      [300, 200],
      [5, 5],
      [500, 20],
    ]) {
      const rr = Math.hypot(-1024 + (i + 0.5) * px, -1024 + (j + 0.5) * px);
      const k = j * n + i;
      if (rr <= 620) expect(pre[k]).toBe(loc[k]);
      if (rr >= 680) expect(pre[k]).toBe(0);
    }
  });
  it('encodes the pre-encode field with the UNORM16 rule; decodes within half a code plus float32 rounding of H + 500', () => {
    const pre = r.fields.get('pre-encode')!;
    const q = new Uint16Array(pre.length);
    encodeFieldR16(pre, q, req.encoding);
    expect(Array.from(q)).toEqual(Array.from(r.codes));
    // Each float32 step of the map rounds (H + 500, the constant 0.001, u, u·65535): together ≤ 0.14 mm, so a height
    // that close to a code boundary may round across it (notebook 07b derives the bound).
    for (let k = 0; k < pre.length; k++) expect(Math.abs(decodeHeightR16(r.codes[k]) - pre[k])).toBeLessThanOrEqual(1000 / 65535 / 2 + 0.14e-3);
  });
  it('is deterministic: the same request gives the same bytes', () => {
    const again = runPipeline(req, { precision: 'f32' });
    expect(bytes(again.codes).equals(bytes(r.codes))).toBe(true);
  });
  it('gives the same bytes at every stage on the JavaScript f32 executor as on the SIMD kernels (one process)', () => {
    const js = runPipeline(req, { precision: 'f32', executor: 'js-f32', keep });
    const pre = (x: ReturnType<typeof runPipeline>) => x.fields.get('pre-encode') as Float32Array;
    expect(pre(js).buffer.byteLength).toBe(pre(js).byteLength); // its own array: the JavaScript paths ran
    expect(pre(r).buffer.byteLength).toBeGreaterThan(pre(r).byteLength); // a view of the arena: the kernels ran
    for (const stage of [...keep, 'pre-encode']) expect(bytes(js.fields.get(stage)!).equals(bytes(r.fields.get(stage)!)), stage).toBe(true);
    for (const stage of [...keep, 'pre-encode']) expect(bytes(js.fields.get(stage)!).equals(bytes(r.fields.get(stage)!)), stage).toBe(true);
    expect(bytes(js.codes).equals(bytes(r.codes))).toBe(true);
  });
});

describe('heightbench run (all stages)', () => {
  it('writes every stage named by content, the final R16 and PNG16, and a manifest', async () => {
    const d = tempDir('hb-run-all-');
    const res = await cli('run', 'teaching-512', '--out', d);
    expect(res.code).toBe(0);
    expect(res.out).toMatch(/58 draws of 46 assets/);
    const m = JSON.parse(readFileSync(join(d, 'manifest.json'), 'utf8'));
    expect(m.counts.stampInstances).toBeGreaterThan(1000);
    expect(m.timingsMs).toBeUndefined(); // the manifest is deterministic; timings live beside it
    const t = JSON.parse(readFileSync(join(d, 'timings.json'), 'utf8'));
    expect(Object.keys(t.timingsMs)).toContain('stamps.draw');
    for (const f of [
      'raster-layer0.r32',
      'raster.r32',
      'base.r32',
      'after-support.r32',
      'after-stamps.r32',
      'after-locations.r32',
      'pre-encode.r32',
      'final.r16',
      'final.png',
    ]) {
      const sc = JSON.parse(readFileSync(join(d, `${f}.json`), 'utf8'));
      expect(sc.stage).toBe(f.split('.')[0]);
      expect(sc.request).toBe('teaching-512');
    }
    const png = await cli('compare', join(d, 'final.png'), join(d, 'final.r16'), '--json');
    expect(JSON.parse(png.out).exactPercent).toBe(100);
  });
});
