/**
 * GPU rasterizer on tiny targets with hand-computed answers (Dawn for Node on SwiftShader). Every expected value
 * here comes from the article's teaching examples or from arithmetic written in this file, never from src/gpu.
 * No adapter is a failure naming what to install, not a skip.
 */
import { Delaunay } from 'd3-delaunay';
import { beforeAll, describe, expect, it } from 'vitest';
import { fieldTexture, readField, type GpuContext } from '../src/gpu/context.js';
import { openDawn } from '../src/gpu/dawn-host.js';
import { rasterTriangles } from '../src/gpu/raster.js';

let ctx: GpuContext;
beforeAll(async () => {
  ctx = await openDawn(); // throws GpuUnavailableError naming chromium when SwiftShader is missing
});

describe('GPU raster (Dawn on SwiftShader)', () => {
  it('reports the adapter it ran on', () => {
    expect(ctx.adapter.vendor.length + ctx.adapter.architecture.length).toBeGreaterThan(0);
    expect(ctx.adapter.features).toContain('float32-blendable');
    expect(ctx.adapter.features).toContain('float32-filterable');
  });

  it('barycentric example: A=(0,0) 0 m, B=(10,0) 10 m, C=(0,10) 20 m gives 8 m at P=(2,3)', async () => {
    // 16 × 16 pixels of 1 m from xmin = ymin = −0.5: pixel (i, j) has its centre at world (i, j), so P is pixel (2, 3).
    const grid = { xmin: -0.5, ymin: -0.5, size: 16, n: 16 };
    const t = fieldTexture(ctx, 16, 16, 'bary');
    await rasterTriangles(ctx, grid, [0, 0, 0, 10, 0, 10, 0, 10, 20], t);
    const f = await readField(ctx, t);
    expect(f[3 * 16 + 2]).toBeCloseTo(8, 5);
    // Everywhere inside, h = 10·λ1 + 20·λ2 with λ1 = x/10, λ2 = y/10: h = x + 2y. Row j is world y = j (row0 at ymin).
    let covered = 0;
    for (let j = 0; j < 16; j++) {
      for (let i = 0; i < 16; i++) {
        const v = f[j * 16 + i];
        if (i + j < 10) expect(Math.abs(v - (i + 2 * j))).toBeLessThan(1e-5);
        if (i + j > 10) expect(v).toBe(0);
        if (v !== 0 || (i === 0 && j === 0)) covered++;
      }
    }
    // Top-left rule with framebuffer rows as screen y (row 0 = world y 0 on top): the edge y = 0 is the top edge and
    // x = 0 the left edge — both owned — while the hypotenuse x + y = 10 is a right edge: 1 + 2 + … + 10 = 55 pixels.
    expect(covered).toBe(55);
    t.destroy();
  });

  it('a random triangulation of the whole target, every triangle at height 1, sums to exactly 1 at every pixel', async () => {
    const n = 64;
    const grid = { xmin: 0, ymin: 0, size: 64, n };
    // Half the points on pixel centres (so many edges pass exactly through centres), half anywhere; plus the corners.
    let s = 12345;
    const rnd = () => (s = (Math.imul(s, 48271) >>> 0) % 2147483647) / 2147483647;
    const pts: number[] = [0, 0, 64, 0, 0, 64, 64, 64];
    for (let k = 0; k < 120; k++) {
      if (k % 2 === 0) pts.push(Math.floor(rnd() * 64) + 0.5, Math.floor(rnd() * 64) + 0.5);
      else pts.push(rnd() * 64, rnd() * 64);
    }
    // Points on the boundary too, so hull edges are shared by nothing and interior edges by two triangles.
    for (let k = 1; k < 8; k++) pts.push(k * 8, 0, k * 8, 64, 0, k * 8, 64, k * 8);
    const d = new Delaunay(Float64Array.from(pts));
    const xyh: number[] = [];
    for (let t = 0; t < d.triangles.length; t += 3) {
      for (let v = 0; v < 3; v++) {
        const p = d.triangles[t + v];
        xyh.push(pts[2 * p], pts[2 * p + 1], 1);
      }
    }
    const tex = fieldTexture(ctx, n, n, 'tri');
    await rasterTriangles(ctx, grid, xyh, tex);
    const f = await readField(ctx, tex);
    const off = [...f].filter((v) => v !== 1);
    expect(off.length, `pixels not covered exactly once: ${off.slice(0, 8).join(', ')}`).toBe(0);
    tex.destroy();
  });

  it('ADD blending accumulates a second draw onto the first (the layer rule: 3 m + 2 m = 5 m)', async () => {
    const grid = { xmin: 0, ymin: 0, size: 4, n: 4 };
    const t = fieldTexture(ctx, 4, 4, 'add');
    const full = (h: number) => [0, 0, h, 4, 0, h, 0, 4, h, 4, 0, h, 4, 4, h, 0, 4, h];
    await rasterTriangles(ctx, grid, full(3), t, true);
    await rasterTriangles(ctx, grid, [0, 0, 2, 2, 0, 2, 0, 2, 2], t, false); // covers the lower-left corner only
    const f = await readField(ctx, t);
    expect(f[0]).toBe(5); // pixel (0, 0), centre (0.5, 0.5), inside both
    expect(f[3 * 4 + 3]).toBe(3); // pixel (3, 3): first layer only
    t.destroy();
  });
});

describe('GPU raster snapping (measured, not assumed)', () => {
  it('SwiftShader snaps vertices to 1/16 pixel (4 fraction bits), and edges move accordingly', async () => {
    const { measureSubpixelBits } = await import('../src/gpu/raster.js');
    const bits = await measureSubpixelBits(ctx);
    expect(bits).toBe(4);
    // Consistency: a left edge 0.75·2^−(B+1) right of a centre snaps onto it (covered); 1.5·2^−(B+1) does not.
    const covered = async (dx: number) => {
      const t = fieldTexture(ctx, 8, 8, 'snap');
      const x = 2.5 + dx;
      await rasterTriangles(ctx, { xmin: 0, ymin: 0, size: 8, n: 8 }, [x, 0, 1, 8, 0, 1, x, 8, 1, 8, 0, 1, 8, 8, 1, x, 8, 1], t);
      const v = (await readField(ctx, t))[3 * 8 + 2];
      t.destroy();
      return v === 1;
    };
    const half = 2 ** -(bits + 1);
    expect(await covered(0.75 * half)).toBe(true);
    expect(await covered(1.5 * half)).toBe(false);
  });
});
