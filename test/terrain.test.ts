import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { FIELD_STAGES, loadRequest, readHeightfieldFile, runPipeline } from '../src/index.js';
import { CHUNK, LayerStack } from '../src/terrain/layers.js';
import { deltaLayer, readStore, writeStore } from '../src/terrain/store.js';
import { describeTerrain } from '../src/terrain/description.js';
import { maxReduce, readTile, tileWindow } from '../src/terrain/tiles.js';
import { cli, tempDir } from './helpers.js';

describe('terrain description (engine notes)', () => {
  it('four tiles of 128 samples at a metre a quad: 508 m, 509 samples, 1.0 MB of float heights, sixteen collision shapes', () => {
    const d = describeTerrain({ kind: 'collision', tileSamples: 128, tilesX: 4, tilesY: 4, metresPerQuad: 1, range: { min: -500, max: 500 } });
    expect([d.extentX, d.samplesX, d.collisionShapes, d.quadsPerTile]).toEqual([508, 509, 16, 127]);
    expect((d.bytesFloat32 / 1e6).toFixed(1)).toBe('1.0');
    expect(d.blocksPerAxis).toBe(16);
  });
  it('the authored range sets the step: 40 m → 0.6 mm, 1000 m → 15.3 mm, same bytes', () => {
    const base = { kind: 'collision' as const, tileSamples: 128, tilesX: 1, tilesY: 1, metresPerQuad: 1 };
    const a = describeTerrain({ ...base, range: { min: 0, max: 40 } });
    const b = describeTerrain({ ...base, range: { min: -500, max: 500 } });
    expect((a.metresPerStep * 1000).toFixed(1)).toBe('0.6');
    expect((b.metresPerStep * 1000).toFixed(1)).toBe('15.3');
    expect(a.bytesR16).toBe(b.bytesR16);
  });
  it('refuses the sample-count vs quad-count trap, naming the rule', () => {
    expect(() => describeTerrain({ kind: 'collision', tileSamples: 129, tilesX: 4, tilesY: 4, metresPerQuad: 1, range: { min: 0, max: 1 } })).toThrow(
      'collision tile of 129 samples: the sample count must be a power of two (129 samples are 128 quads: the power of two is the sample count, not the quad count — use 128 samples)',
    );
  });
  it('refuses fewer than two collision blocks per axis instead of returning nothing', () => {
    expect(() =>
      describeTerrain({ kind: 'collision', tileSamples: 8, tilesX: 1, tilesY: 1, metresPerQuad: 1, range: { min: 0, max: 1 }, blockSize: 8 }),
    ).toThrow(/fewer than two collision blocks per axis .* use blocks of at most 4/);
  });
  it('LOD tiles are 2ⁿ + 1 samples', () => {
    expect(describeTerrain({ kind: 'lod', tileSamples: 129, tilesX: 32, tilesY: 32, metresPerQuad: 0.5, range: { min: -500, max: 500 } }).samplesX).toBe(4097);
    expect(() => describeTerrain({ kind: 'lod', tileSamples: 128, tilesX: 1, tilesY: 1, metresPerQuad: 1, range: { min: 0, max: 1 } })).toThrow(
      /expected 2ⁿ \+ 1 samples/,
    );
  });
});

describe('one grid, tile windows sharing boundary samples', () => {
  it('an edit on a shared boundary sample is seen identically by both tiles', () => {
    const S = 5;
    const n = 2 * (S - 1) + 1; // two tiles per axis
    const grid = new Float32Array(n * n);
    grid[2 * n + (S - 1)] = 7.5; // column 4: the boundary between tiles (0, 0) and (1, 0), row 2
    const left = readTile(grid, n, tileWindow(0, 0, S), new Float32Array(S * S));
    const right = readTile(grid, n, tileWindow(1, 0, S), new Float32Array(S * S));
    expect(left[2 * S + (S - 1)]).toBe(7.5); // last column of the left tile
    expect(right[2 * S + 0]).toBe(7.5); // first column of the right tile
  });
});

describe('edit-layer stack', () => {
  const range = { min: 0, max: 10 };
  const make = () => new LayerStack(128, 128, new Float32Array(128 * 128).fill(5), range);
  it('composite = base + Σ visible deltas × alpha, clamped to the range', () => {
    const s = make();
    const a = s.addLayer('a');
    a.addDelta(3, 4, 2);
    const b = s.addLayer('b');
    b.alpha = -0.5;
    b.addDelta(3, 4, 2);
    expect(s.compositeAt(3, 4)).toBe(6); // 5 + 2 − 1
    b.visible = false;
    expect(s.compositeAt(3, 4)).toBe(7);
  });
  it('order matters because of the clamp', () => {
    const s = make();
    s.addLayer('up').addDelta(0, 0, 8); // pushes past the ceiling of 10
    s.addLayer('down').addDelta(0, 0, -4);
    const upFirst = s.compositeAt(0, 0); // min(13, 10) − 4 = 6
    s.moveLayer(1, 0);
    const downFirst = s.compositeAt(0, 0); // 5 − 4 + 8 = 9
    expect([upFirst, downFirst]).toEqual([6, 9]);
  });
  it('the cache is per tile and invalidated by rectangle; the point query never reads it', () => {
    const s = make();
    s.resolve();
    expect(s.lastResolved).toBe(4); // 2 × 2 tiles of 64
    const l = s.addLayer('hill');
    l.addDelta(70, 10, 3);
    expect(s.cached()[10 * 128 + 70]).toBe(5); // stale: nothing invalidated yet
    expect(s.compositeAt(70, 10)).toBe(8); // the definition is never stale
    s.invalidate({ i0: 68, j0: 8, i1: 72, j1: 12 });
    s.resolve();
    expect(s.lastResolved).toBe(1); // only the tile containing the rectangle
    expect(s.cached()[10 * 128 + 70]).toBe(8);
  });
  it('collapse adds a layer into the one below and drops it', () => {
    const s = make();
    s.addLayer('a').addDelta(1, 1, 1);
    const b = s.addLayer('b');
    b.alpha = 2;
    b.addDelta(1, 1, 1);
    const before = s.compositeAt(1, 1);
    s.collapse(1);
    expect(s.layers.map((l) => l.name)).toEqual(['a']);
    expect(s.compositeAt(1, 1)).toBe(before);
    expect(() => s.collapse(0)).toThrow(/layer 0 has no layer below it/);
  });
});

describe('versioned binary store', () => {
  it('a layer with one hill costs kilobytes, and reading recomposites', () => {
    const n = 1024;
    const s = new LayerStack(n, n, new Float32Array(n * n), { min: -100, max: 100 });
    const hill = s.addLayer('hill');
    for (let j = 0; j < 40; j++) for (let i = 0; i < 40; i++) hill.addDelta(500 + i, 500 + j, 3 * Math.exp(-((i - 20) ** 2 + (j - 20) ** 2) / 100));
    const bytes = writeStore(s, { what: 'test' });
    const baseBytes = n * n * 4;
    expect(hill.chunks.size).toBeLessThanOrEqual(4);
    expect(bytes.length - baseBytes).toBeLessThan(64 * 1024); // the layer: a few deflated chunks, not the whole grid
    const back = readStore(bytes);
    expect(back.stack.compositeAt(520, 520)).toBe(s.compositeAt(520, 520));
    expect(back.stack.layers[0].chunks.size).toBe(hill.chunks.size);
  });
  it('checks the version first and refuses a mismatch with both values', () => {
    const bytes = writeStore(new LayerStack(64, 64, new Float32Array(64 * 64), { min: 0, max: 1 })).slice();
    new DataView(bytes.buffer).setUint32(8, 7, true);
    expect(() => readStore(bytes)).toThrow('terrain store: this heightbench reads versions 1 and 2, the file has version 7');
    expect(() => readStore(bytes.subarray(0, 40))).toThrow(/version/);
  });
});

describe('LOD mips reduced by maximum', () => {
  it('129 → 65 → 33 keeps boundary samples on the boundary and keeps a ridge', () => {
    const n = 129;
    const t = new Float32Array(n * n);
    t[61 * n + 63] = 50; // a one-sample peak at an odd index: averaging would sink it, a max keeps it
    const a = maxReduce(t, n);
    expect(a.size).toBe(65);
    expect(Math.max(...a.data)).toBe(50);
    const b = maxReduce(a.data, a.size);
    expect(b.size).toBe(33);
    expect(Math.max(...b.data)).toBe(50);
  });
  it('two tiles sharing a boundary row agree after reduction', () => {
    const S = 9;
    const n = 2 * (S - 1) + 1;
    const grid = Float32Array.from({ length: n * n }, (_, k) => Math.sin(k * 0.37) * 10);
    const left = maxReduce(readTile(grid, n, tileWindow(0, 0, S), new Float32Array(S * S)), S);
    const right = maxReduce(readTile(grid, n, tileWindow(1, 0, S), new Float32Array(S * S)), S);
    for (let j = 0; j < left.size; j++) expect(left.data[j * left.size + left.size - 1]).toBe(right.data[j * right.size]);
  });
});

describe('engine export and run store', () => {
  const d = tempDir('hb-tiles-');
  it('tiles a delivered map through world coordinates with shared boundaries and a manifest', async () => {
    const run = await cli('run', 'teaching-512', '--stages', 'final', '--out', d);
    expect(run.code).toBe(0);
    const out = join(d, 'tiles');
    const r = await cli('tiles', join(d, 'final.r16'), out, '--tile-samples', '65');
    expect(r.code).toBe(0);
    const m = JSON.parse(readFileSync(join(out, 'manifest.json'), 'utf8'));
    expect(m.tiles).toHaveLength(64);
    expect(m.vertexGrid.columns).toBe(513);
    const t00 = readHeightfieldFile(join(out, m.tiles[0].file)).field;
    const t10 = readHeightfieldFile(join(out, m.tiles[1].file)).field;
    expect(m.tiles[1]).toMatchObject({ tx: 1, ty: 0 });
    if (t00.kind !== 'codes' || t10.kind !== 'codes') throw new Error('codes expected');
    for (let j = 0; j < 65; j++) expect(t00.code_px[j * 65 + 64]).toBe(t10.code_px[j * 65]);
    expect(t00.grid).toMatchObject({ convention: 'vertex', xmin: -1024, sizeX: 256 });
    expect((await cli('tiles', join(d, 'final.r16'), out, '--preset', 'nope')).code).toBe(2);
  });
  it('a run kept as base + one delta layer per local stage reproduces every stage bit for bit', () => {
    const req = loadRequest('teaching-512');
    const r = runPipeline(req, { precision: 'f32', keep: [...FIELD_STAGES] });
    const names = ['base', 'after-support', 'after-stamps', 'after-locations', 'pre-encode'];
    const f = (s: string) => r.fields.get(s) as Float32Array;
    const s = new LayerStack(512, 512, Float32Array.from(f('base')), { min: -1e6, max: 1e6 });
    for (let k = 1; k < names.length; k++) deltaLayer(s, names[k], f(names[k - 1]), f(names[k]));
    const back = readStore(writeStore(s)).stack;
    for (let k = 1; k < names.length; k++) {
      back.layers.forEach((l, idx) => (l.visible = idx < k));
      back.invalidateAll();
      back.resolve();
      const got = back.cached();
      const want = f(names[k]);
      let diff = 0;
      for (let q = 0; q < want.length; q++) if (got[q] !== want[q]) diff++;
      expect(diff, `${names[k]}: ${diff} samples differ`).toBe(0);
    }
    expect(CHUNK).toBe(64);
  });
});
