/**
 * The WebAssembly kernels and their one layout description (src/core/wasm/layouts.ts): the committed modules are
 * assembled from the .wat templates as they stand (scripts/build-wasm.mjs --check), a template naming an unknown
 * field fails the build, a missing .wat fails the build, a block value outside what a kernel handles is refused with
 * the reason, and a module built from another description is refused at load.
 */
import { spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, rmSync, writeFileSync, readFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { blockBytes, blockLayout, checkModule, expandTemplate, layoutHash, writeBlock } from '../src/core/wasm/layouts.js';
import { createArena } from '../src/cpu/wasm/arena.js';
import { tapRefusal } from '../src/cpu/wasm/kernels.js';

describe('WebAssembly kernels and the layout description', () => {
  it('the embedded modules are assembled from the .wat templates and the description (in sync)', () => {
    const r = spawnSync(process.execPath, ['scripts/build-wasm.mjs', '--check'], { encoding: 'utf8' });
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/smoothing-wasm\.ts matches/);
  });

  it('lays the blocks out as the kernels were written for: 208-byte triangle record; taps and draw blocks by field', () => {
    expect(blockBytes('triangle')).toBe(26 * 8);
    expect(blockLayout('triangle').fields.invArea.offset).toBe(21 * 8);
    const taps = blockLayout('taps');
    // k[5] i32, g[5], f[5], w[5] f32: the order smoothing.wat's loads were written against, then the new fields.
    expect([taps.fields.k.offset, taps.fields.g.offset, taps.fields.f.offset, taps.fields.w.offset]).toEqual([0, 20, 40, 60]);
    expect(taps.size % 16).toBe(0);
    const draw = blockLayout('draw');
    expect(draw.fields.inv.offset).toBe(0);
    expect(draw.fields.i0.offset).toBe(17 * 8); // after the 17 float64 fields
    expect(draw.size).toBeGreaterThanOrEqual(17 * 8 + 12 * 4);
  });

  it('a template naming an unknown block, field or constant fails with the placeholder named', () => {
    expect(() => expandTemplate('(i32.load offset={{taps.nope}} (local.get $p))', 'x.wat')).toThrow(/x\.wat: \{\{taps\.nope\}\}: block taps has no field nope/);
    expect(() => expandTemplate('{{tapz.k}}', 'x.wat')).toThrow(/names no block/);
    expect(() => expandTemplate('{{const.missing}}', 'x.wat')).toThrow(/names no constant/);
    expect(expandTemplate('offset={{taps.w[2]}}', 'x.wat')).toBe('offset=68');
  });

  it('a missing .wat fails the build with its name', () => {
    const dir = mkdtempSync(join(tmpdir(), 'hb-wasm-'));
    try {
      for (const d of ['scripts', 'src']) cpSync(d, join(dir, d), { recursive: true });
      rmSync(join(dir, 'src/cpu/wasm/raster.wat'));
      mkdirSync(join(dir, 'node_modules'));
      // The copy resolves its packages (tsx, wabt) from this checkout's node_modules.
      for (const p of ['tsx', 'wabt', 'esbuild', 'get-tsconfig', 'resolve-pkg-maps', '@esbuild']) {
        try {
          cpSync(join('node_modules', p), join(dir, 'node_modules', p), { recursive: true, dereference: true });
        } catch {}
      }
      writeFileSync(join(dir, 'package.json'), readFileSync('package.json'));
      const r = spawnSync(process.execPath, ['scripts/build-wasm.mjs', '--check'], { cwd: dir, encoding: 'utf8' });
      expect(r.status).not.toBe(0);
      expect(r.stderr).toMatch(/src\/cpu\/wasm\/raster\.wat: cannot read the WebAssembly source/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('writes each field of a block at its offset, with its type, anywhere in the buffer; refuses unknown and missing fields', () => {
    const l = blockLayout('draw');
    const values: Record<string, number | number[]> = {};
    let k = 1;
    for (const [name, p] of Object.entries(l.fields)) {
      const one = () => (p.range ? p.range[1] : p.type === 'i32' ? k++ * 7 : k++ * 1.1);
      values[name] = p.count === 1 ? one() : Array.from({ length: p.count }, one);
    }
    for (const at of [0, 16, 3 * 16 + l.size]) {
      const buf = new ArrayBuffer(at + l.size + 64);
      writeBlock(buf, at, 'draw', values as Parameters<typeof writeBlock<'draw'>>[3]);
      for (const [name, p] of Object.entries(l.fields)) {
        const want = ([] as number[]).concat(values[name]);
        const View = p.type === 'i32' ? Int32Array : p.type === 'f32' ? Float32Array : Float64Array;
        const got = [...new View(buf, at + p.offset, p.count)];
        expect(got, name).toEqual(want.map((v) => (p.type === 'f32' ? Math.fround(v) : v)));
      }
    }
    const buf = new ArrayBuffer(l.size);
    const { mode, ...noMode } = values;
    expect(mode).toBeDefined();
    expect(() => writeBlock(buf, 0, 'draw', noMode as never)).toThrow('kernel block draw: field mode not given');
    expect(() => writeBlock(buf, 0, 'draw', { ...noMode, mood: 1 } as never)).toThrow(/kernel block draw: no field mood/);
    expect(() => writeBlock(buf, 0, 'draw', { ...values, extra: 1 } as never)).toThrow(/kernel block draw: no field extra/);
    expect(() => writeBlock(new ArrayBuffer(blockBytes('draw') - 4), 0, 'draw', values as never)).toThrow(RangeError);
  });

  it('refuses a block value outside what the kernel handles, naming field, value and range', () => {
    const buf = new ArrayBuffer(blockLayout('taps').size);
    const ok = {
      k: [-5, -3, -1, 1, 3],
      g: [0, 0, 0, 0, 0],
      f: [0, 0, 0, 0, 0],
      w: [0, 0, 0, 0, 0],
      crossG: 0.5,
      crossF: 0.5,
      downG: 0.5,
      downF: 0.5,
      combine: 0,
    };
    expect(() => writeBlock(buf, 0, 'taps', ok)).not.toThrow();
    expect(() => writeBlock(buf, 0, 'taps', { ...ok, k: [-9, -3, -1, 1, 3] })).toThrow('kernel block taps.k: -9 is outside what the kernel handles [-8, 7]');
    expect(() => writeBlock(buf, 0, 'taps', { ...ok, combine: 2 })).toThrow(/taps\.combine: 2 is outside/);
    expect(() => writeBlock(buf, 0, 'taps', { ...ok, k: [1, 2] })).toThrow(/expected 5 values, got 2/);
    expect(tapRefusal([-5, -3, -1, 1, 3])).toBeNull();
    expect(tapRefusal([-8, -3, -1, 1, 7])).toMatch(/do not fit the Y pass's ring of 16 rows/);
  });

  it('refuses at load a module built from another description, or an export with another parameter count', () => {
    const arena = createArena(32)!.arena;
    const ex = arena.smoothing as unknown as Record<string, unknown>;
    expect(() => checkModule('smoothing', ex)).not.toThrow();
    expect(() => checkModule('smoothing', { ...ex, layoutHash: { value: layoutHash() ^ 1 } })).toThrow(/built from layout .*run node scripts\/build-wasm\.mjs/);
    expect(() => checkModule('smoothing', { ...ex, downsample: (a: number, b: number, c: number) => a + b + c })).toThrow(
      'WebAssembly module smoothing: export downsample takes 3 parameters, the description lists 6 (s, o, n, tp, j0, j1)',
    );
  });
});
