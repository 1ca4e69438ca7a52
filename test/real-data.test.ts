/** Real elevation models nobody in this project made (see test/fixtures/real/PROVENANCE.md). */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readHeightfieldFile, summarizeHeightfield } from '../src/index.js';
import { cli, tempDir } from './helpers.js';

const fixtures = join(import.meta.dirname, 'fixtures', 'real');

describe('Maunga Whau (R datasets volcano, via vega-datasets)', () => {
  const source = JSON.parse(readFileSync(join(fixtures, 'volcano.source.json'), 'utf8')) as { width: number; height: number; values: number[] };
  it('the PNG16 fixture decodes to exactly the source file values, in metres', () => {
    const v = readHeightfieldFile(join(fixtures, 'volcano.png'));
    expect(v.field.grid.columns).toBe(source.width);
    expect(v.field.grid.rows).toBe(source.height);
    expect(v.field.kind).toBe('codes');
    if (v.field.kind !== 'codes') return;
    expect(Array.from(v.field.code_px)).toEqual(source.values);
    const s = summarizeHeightfield(v);
    expect([s.minMetres, s.maxMetres]).toEqual([94, 195]);
    expect(v.sidecar?.grid).toMatchObject({ sizeX: 870, sizeY: 610, rowDirection: 'row0-at-ymax' });
  });
  it('converts to a vertex grid through world coordinates and back to the texel grid', async () => {
    const d = tempDir();
    const vtx = join(d, 'volcano-vertex.r32');
    const r = await cli('convert', join(fixtures, 'volcano.png'), vtx, '--grid', 'vertex');
    expect(r.code).toBe(0);
    const v = readHeightfieldFile(vtx);
    expect([v.field.grid.columns, v.field.grid.rows, v.field.grid.convention]).toEqual([88, 62, 'vertex']);
    if (v.field.kind !== 'float') throw new Error('float expected');
    // Interior vertex (1,1) sits at the corner shared by texels (0,0),(1,0),(0,1),(1,1): their mean.
    const t = source.values;
    expect(v.field.height_px[1 * 88 + 1]).toBeCloseTo((t[0] + t[1] + t[87] + t[88]) / 4, 4);
    // Corner vertex: clamp addressing reads the corner texel.
    expect(v.field.height_px[0]).toBe(t[0]);
  });
});

describe('Jacksboro fault DEM (Debian python-matplotlib-data)', () => {
  it('reads as 403 × 344 R16 with its published height range and north-first rows', () => {
    const j = readHeightfieldFile(join(fixtures, 'jacksboro.r16'));
    const s = summarizeHeightfield(j);
    expect([s.width, s.height]).toEqual([403, 344]);
    expect([s.minMetres, s.maxMetres]).toEqual([236, 1076]);
    expect(j.field.grid.rowDirection).toBe('row0-at-ymax');
  });
});
