/**
 * Writers the readers accept: every writer (.r16, .png, .r32, .tif, .npy) × row direction × extent writes a file that
 * heightbench reads back with the same heights at the same world texels on the same extent — the sidecar and what the
 * file itself carries agreeing — and, for .tif and .npy, a file GDAL (rasterio) and numpy read with the same values
 * and bounds. [R] A .tif is written north-up whatever the field's row direction, so a row0-at-ymin field comes back
 * row0-at-ymax: the same heights with the rows listed the other way, which the comparison undoes (withRowDirection).
 * Independent readers: GDAL and numpy (the .venv); heightbench's own read-back proves consistency only.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { codeHeightfield, floatHeightfield, withRowDirection, type Heightfield } from '../src/core/heightfield.js';
import type { GridDescription } from '../src/core/grid.js';
import { readHeightfieldFileAsync, writeHeightfieldFileAsync } from '../src/io/heightfield-file.js';
import { cli, sameValues, tempDir } from './helpers.js';

const py = join(process.cwd(), '.venv', 'bin', 'python');
const d = tempDir('hb-writers-');

const EXTENTS = [
  { xmin: -1024, ymin: -1024, sizeX: 2048, sizeY: 2048 },
  { xmin: 350000.5, ymin: 5600000.25, sizeX: 960, sizeY: 330 },
  { xmin: 0, ymin: -3, sizeX: 1, sizeY: 0.375 },
];
const W = 24;
const H = 11;

function field(kind: 'codes' | 'float', grid: GridDescription): Heightfield {
  if (kind === 'codes')
    return codeHeightfield(
      grid,
      new Uint16Array(W * H).map((_, i) => (i * 2654435761) >>> 16),
      { min: -500, max: 500 },
    );
  return floatHeightfield(
    grid,
    new Float32Array(W * H).map((_, i) => Math.sin(i / 5) * 300 + i * 0.125),
  );
}
const valuesOf = (f: Heightfield): Uint16Array | Float32Array => (f.kind === 'codes' ? f.code_px : f.height_px);

describe('every writer × row direction × extent reads back with the same values and conventions', () => {
  it('heightbench reads back what it wrote; GDAL reads the .tif and numpy the .npy with the same values and bounds', async () => {
    const written: { path: string; f: Heightfield; ext: string }[] = [];
    let n = 0;
    for (const [e, extent] of EXTENTS.entries()) {
      for (const rowDirection of ['row0-at-ymin', 'row0-at-ymax'] as const) {
        const grid: GridDescription = { ...extent, columns: W, rows: H, convention: 'texel-centre', rowDirection };
        for (const [kind, exts] of [
          ['codes', ['r16', 'png', 'tif', 'npy']],
          ['float', ['r32', 'tif', 'npy']],
        ] as const) {
          const f = field(kind, grid);
          for (const ext of exts) {
            const path = join(d, `w${e}-${rowDirection}-${kind}.${ext}`);
            await writeHeightfieldFileAsync(path, f);
            const back = await readHeightfieldFileAsync(path);
            const same = withRowDirection(back.field, rowDirection);
            expect(same.grid, path).toEqual(grid);
            expect(same.kind, path).toBe(kind);
            sameValues(valuesOf(same), valuesOf(f));
            if (ext === 'tif') expect(back.field.grid.rowDirection, path).toBe('row0-at-ymax');
            else expect(back.field.grid.rowDirection, path).toBe(rowDirection);
            written.push({ path, f, ext });
            n++;
          }
        }
      }
    }
    expect(n).toBe(EXTENTS.length * 2 * 7);
    const peers = written.filter((w) => w.ext === 'tif' || w.ext === 'npy');
    const r = spawnSync(
      py,
      [
        '-c',
        `
import json, sys, numpy as np, rasterio, warnings
warnings.simplefilter('ignore')
out = []
for p in json.load(sys.stdin):
    if p.endswith('.npy'):
        a = np.load(p); np.ascontiguousarray(a.astype('<f8')).tofile(p + '.f64'); out.append(None)
    else:
        with rasterio.open(p) as ds:
            a = ds.read(1); b = ds.bounds
        np.ascontiguousarray(a.astype('<f8')).tofile(p + '.f64')
        out.append([b.left, b.bottom, b.right, b.top])
print(json.dumps(out))
`,
      ],
      { input: JSON.stringify(peers.map((p) => p.path)), encoding: 'utf8' },
    );
    expect(r.status, r.stderr).toBe(0);
    const bounds = JSON.parse(r.stdout) as ([number, number, number, number] | null)[];
    for (const [i, w] of peers.entries()) {
      const g = w.f.grid;
      const raw = readFileSync(`${w.path}.f64`);
      const theirs = new Float64Array(raw.buffer, raw.byteOffset, raw.byteLength / 8);
      // GDAL's array is north-up (row 0 = ymax); numpy's is the payload, row 0 first as the sidecar describes it.
      const expected = w.ext === 'tif' ? valuesOf(withRowDirection(w.f, 'row0-at-ymax')) : valuesOf(w.f);
      sameValues(theirs, Float64Array.from(expected));
      if (w.ext === 'tif') expect(bounds[i], w.path).toEqual([g.xmin, g.ymin, g.xmin + g.sizeX, g.ymin + g.sizeY]);
    }
  });

  it('tif-row0-at-ymin-unreadable: convert a.npy b.tif --row-direction row0-at-ymin writes a file heightbench reads back (info, compare)', async () => {
    const npy = join(d, 'a.npy');
    const py2 = spawnSync(py, ['-c', `import numpy as np; np.save(${JSON.stringify(npy)}, (np.arange(${W * H}, dtype='f4') * 0.25).reshape(${H}, ${W}))`]);
    expect(py2.status).toBe(0);
    const flags = ['--extent', '10,20,240,110', '--row-direction', 'row0-at-ymin'];
    expect((await cli('convert', npy, join(d, 'b.tif'), ...flags)).code).toBe(0);
    const info = await cli('info', join(d, 'b.tif'));
    expect(info.err).toBe('');
    expect(info.code).toBe(0);
    const cmp = await cli('compare', join(d, 'b.tif'), npy, '--reference-extent', '10,20,240,110', '--reference-row-direction', 'row0-at-ymin', '--json');
    expect(cmp.err).toBe('');
    expect(cmp.code).toBe(0);
    expect(JSON.parse(cmp.out)).toMatchObject({ pixels: W * H, differing: 0, floatMaxAbsMm: 0 });
  });
});
