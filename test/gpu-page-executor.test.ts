/**
 * Changes to the WebGPU executor made for the page and for speed keep its results (Dawn on SwiftShader):
 *  - a set of asset draws sharing one render pass, one vertex buffer and one uniform buffer gives the same bytes as
 *    the same draws each in a pass of its own (add, max and lerp programs, overlapping, with footprint queries before
 *    the max and lerp draws);
 *  - the smoothing chain with lent N² textures (the executor lends its field and copy) gives the same base as with
 *    textures of its own;
 *  - a run that reads back only some stages gives those stages and the final codes unchanged, and hands no other
 *    stage over; stage events come in draw-list order, each 'start' before its 'done'.
 * Every comparison is of the executor with itself (consistency); the hand-computed values are in gpu-draws.test.ts
 * and gpu-hosts.test.ts.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { assetDrawSet, assetTexture, encodeAssetDraw, type AssetDrawParams, type AssetDrawSpec } from '../src/gpu/asset-draw.js';
import { fieldTexture, readField, textureFrom, type GpuContext, type GpuGrid } from '../src/gpu/context.js';
import { openDawn } from '../src/gpu/dawn-host.js';
import { envelopeRunner } from '../src/gpu/envelope.js';
import { executeDrawList, type StageEvent } from '../src/gpu/execute.js';
import { encodeSmoothingChain } from '../src/gpu/smoothing.js';
import { loadDrawListAssets } from '../src/gpu/run.js';
import { readListAssetBytes } from '../src/pipeline/inputs.js';
import { emitRequestDrawList } from '../src/cli/gpu-run.js';
import { loadRequest } from '../src/plan/request.js';

let ctx: GpuContext;
beforeAll(async () => {
  ctx = await openDawn();
});

const bytes = (a: Float32Array | Uint16Array) => Buffer.from(a.buffer, a.byteOffset, a.byteLength);

/** A field with structure: a tilted ramp plus a ripple (metres). */
function startField(n: number): Float32Array {
  return new Float32Array(n * n).map((_, k) => 0.37 * (k % n) - 0.21 * Math.floor(k / n) + 3 * Math.sin(k * 0.05));
}

describe('executor changes keep results', () => {
  it('asset draws in one pass with shared buffers equal one pass per draw', async () => {
    const grid: GpuGrid = { xmin: 0, ymin: 0, size: 64, n: 64 };
    const n0 = 32;
    const sizes = [32, 16, 8, 4, 2, 1];
    const asset = assetTexture(
      ctx,
      sizes.map((s, k) => new Float32Array(s * s).map((_, i) => 5 + k + Math.cos(i * 0.3))),
      sizes,
      'bumps',
    );
    const place = (x: number, y: number, th: number, sc: number) => {
      const [c, s] = [Math.cos(th) * sc, Math.sin(th) * sc];
      const det = c * c + s * s;
      // localToWorld [c, s, −s, c, x, y] and its inverse.
      return { l2w: [c, s, -s, c, x, y], w2l: [c / det, -s / det, s / det, c / det, -(c * x + s * y) / det, (s * x - c * y) / det] };
    };
    const programs: Omit<AssetDrawParams, 'worldToLocal' | 'envIndex'>[] = [
      { mode: 'add', k: 1.5 },
      { mode: 'add', k: -0.75 },
      { mode: 'max', k: 0.5, operand: 'footprint-max', plus: 0.25 },
      { mode: 'add', k: 2 },
      { mode: 'lerp', k: 1, a: 0.6, sMax: 7, operand: 'footprint-min' },
      { mode: 'add', k: 0.3 },
      { mode: 'min', k: 1, operand: 'footprint-centre' },
    ];
    const specs: AssetDrawSpec[] = programs.map((p, k) => {
      const m = place(20 + 4 * k, 30 + 3 * (k % 3), 0.4 * k, 0.8 + 0.1 * k);
      return {
        asset,
        worldSize: 24,
        localToWorld: m.l2w,
        params: { ...p, envIndex: k, lodSource: 'derivatives', uvSource: 'inverse', worldToLocal: m.w2l } as AssetDrawParams,
      };
    });
    const queries = specs.map((_, k) => ({ i0: 10 + k, i1: 40 + k, j0: 12, j1: 44, ci: 25 + k, cj: 30 }));
    const dummy = ctx.device.createBuffer({ size: 16, usage: 0x80 | 0x8 });
    const run = async (together: boolean) => {
      const f = textureFrom(ctx, startField(64), 64, 64, 'field');
      const old = fieldTexture(ctx, 64, 64, 'old');
      const env = envelopeRunner(ctx, grid, queries);
      const enc = ctx.device.createCommandEncoder();
      const trash: GPUBuffer[] = [];
      const before = (k: number) => (specs[k].params.mode === 'add' ? undefined : (e: GPUCommandEncoder) => env.encode(e, f, k, 1));
      if (together) {
        const set = assetDrawSet(ctx, grid, specs, f, { env: env.result, targets: dummy, old });
        specs.forEach((_, k) => set.encode(enc, k, before(k)));
        set.end();
        trash.push(...set.buffers);
      } else {
        specs.forEach((s, k) => {
          before(k)?.(enc);
          trash.push(...encodeAssetDraw(ctx, enc, grid, s.asset, s.worldSize, s.localToWorld, s.params, f, { env: env.result, targets: dummy, old }));
        });
      }
      ctx.device.queue.submit([enc.finish()]);
      const out = await readField(ctx, f);
      for (const t of [f, old]) t.destroy();
      for (const b of trash) b.destroy();
      env.destroy();
      return out;
    };
    const one = await run(true);
    const each = await run(false);
    // The draws did something (the field moved) and both ways agree bit for bit.
    const start = startField(64);
    expect(one.filter((v, k) => v !== Math.fround(start[k])).length).toBeGreaterThan(500);
    expect(bytes(one).equals(bytes(each))).toBe(true);
    asset.destroy();
    dummy.destroy();
  });

  it('the smoothing chain with lent N² textures gives the same base', async () => {
    const n = 64;
    const raster = textureFrom(ctx, startField(n), n, n, 'raster');
    const base = async (lend: boolean) => {
      const field = fieldTexture(ctx, n, n, 'field');
      const spare = fieldTexture(ctx, n, n, 'spare');
      const enc = ctx.device.createCommandEncoder();
      const chain = encodeSmoothingChain(ctx, enc, raster, field, true, lend ? { scratch: spare, level: field } : undefined);
      ctx.device.queue.submit([enc.finish()]);
      const out = await readField(ctx, field);
      expect(chain.created.includes(field) || chain.created.includes(spare)).toBe(false);
      expect(chain.created.length).toBe(lend ? 9 : 11);
      for (const t of [...chain.created, field, spare]) t.destroy();
      for (const b of chain.buffers) b.destroy();
      return out;
    };
    expect(bytes(await base(true)).equals(bytes(await base(false)))).toBe(true);
    raster.destroy();
  });

  it('reading back some stages leaves them and the codes unchanged; stage events in order', async () => {
    const { drawList, assetsDir } = emitRequestDrawList(loadRequest('teaching-512', 64));
    const assets = loadDrawListAssets(drawList, readListAssetBytes(drawList, assetsDir));
    const all = await executeDrawList(ctx, drawList, assets);
    const events: StageEvent[] = [];
    const handed: string[] = [];
    const some = await executeDrawList(ctx, drawList, assets, {
      readBack: (s) => s === 'base' || s === 'after-stamps',
      onProgress: (e) => events.push(e),
      onStage: (s) => void handed.push(s),
    });
    expect(handed).toEqual(['base', 'after-stamps']);
    expect(Object.keys(some.fields)).toEqual([]);
    expect(bytes(some.codes).equals(bytes(all.codes))).toBe(true);
    const again = await executeDrawList(ctx, drawList, assets, { readBack: (s) => s === 'base' || s === 'after-stamps' });
    expect(Object.keys(again.fields)).toEqual(['base', 'after-stamps']);
    expect(bytes(again.fields.base!).equals(bytes(all.fields.base!))).toBe(true);
    expect(bytes(again.fields['after-stamps']!).equals(bytes(all.fields['after-stamps']!))).toBe(true);
    const order = ['raster-layer0', 'raster', 'base', 'after-support', 'after-stamps', 'after-locations', 'pre-encode', 'final'];
    expect(events.map((e) => `${e.stage}:${e.phase}`)).toEqual(order.flatMap((s) => [`${s}:start`, `${s}:done`]));
    for (const e of events) if (e.phase === 'done') expect(e.ms).toBeGreaterThanOrEqual(e.gpuMs + e.readbackMs - 1e-6);
  }, 120_000);
});
