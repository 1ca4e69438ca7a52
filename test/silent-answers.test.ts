/**
 * No silent wrong answer, two regression fixtures found by comparing against numpy:
 * - `float64-narrowed-unsaid`: two float64 .npy files 0.2 mm apart compared as "0 differ, equal 100 %" with passing
 *   gates; the reader narrows float64 to float32 (heightfields hold float32) and only `info` said so. The narrowing,
 *   with its largest change, now travels with the side's conventions into every comparison output.
 * - `resample-beyond-extent`: `compare --resample` of a generated side whose extent does not cover the reference's
 *   clamped the edge texel outward and counted invented heights as compared (64 of 64, all gates passing, for extents
 *   that do not even overlap). It is refused now, naming both spans.
 * - `nonfinite-in-headline`: a pixel NaN on one side only is left out of every count, and the headline read "0 of 63
 *   pixels differ … equal 100 %"; the headline now says how many pixels were not compared.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { floatHeightfield, writeHeightfieldFile, type GridDescription } from '../src/index.js';
import { cli, tempDir } from './helpers.js';

const dir = tempDir('hb-silent-');

/** A little-endian float64 C-order .npy of an h × w array (the format's version 1.0, written here byte by byte). */
function writeNpyF64(path: string, h: number, w: number, values: Float64Array): void {
  let header = `{'descr': '<f8', 'fortran_order': False, 'shape': (${h}, ${w}), }`;
  header += ' '.repeat(64 - ((10 + header.length + 1) % 64)) + '\n';
  const head = Buffer.alloc(10 + header.length);
  head.write('\x93NUMPY', 0, 'latin1');
  head[6] = 1;
  head[7] = 0;
  head.writeUInt16LE(header.length, 8);
  head.write(header, 10, 'latin1');
  writeFileSync(path, Buffer.concat([head, Buffer.from(values.buffer)]));
}

function grid(xmin: number, size: number, n: number): GridDescription {
  return { xmin, ymin: xmin, sizeX: size, sizeY: size, columns: n, rows: n, convention: 'texel-centre', rowDirection: 'row0-at-ymin' };
}

describe('no silent wrong answer', () => {
  it('float64-narrowed-unsaid: the narrowing and its largest change are stated in the comparison, text and --json', async () => {
    const a = Float64Array.from({ length: 64 }, (_, k) => 5000 + k * 0.5);
    const b = a.slice();
    b[21] += 2e-4; // 0.2 mm: below float32's resolution at 5 km (0.49 mm)
    expect(Math.fround(a[21]) === Math.fround(b[21])).toBe(true);
    writeNpyF64(join(dir, 'a.npy'), 8, 8, a);
    writeNpyF64(join(dir, 'b.npy'), 8, 8, b);
    const json = await cli('compare', join(dir, 'a.npy'), join(dir, 'b.npy'), '--assume-defaults', '--json');
    expect(json.code, json.err).toBe(0);
    const doc = JSON.parse(json.out) as { differing: number; inputs: { generated: { notes: string[] }; reference: { notes: string[] } } };
    for (const side of [doc.inputs.generated, doc.inputs.reference]) {
      const note = side.notes.find((n) => n.startsWith('float64 samples narrowed to float32'));
      expect(note).toBeDefined();
      // The largest change, computed independently: |fround(x) − x| over the side's samples, in mm.
      const values = side === doc.inputs.generated ? a : b;
      const largest = Math.max(...Array.from(values, (x) => Math.abs(Math.fround(x) - x)));
      expect(note).toContain(`largest change ${(largest * 1000).toPrecision(3)} mm`);
    }
    const text = await cli('compare', join(dir, 'a.npy'), join(dir, 'b.npy'), '--assume-defaults');
    expect(text.out).toContain('float64 samples narrowed to float32');
  });

  it('resample-beyond-extent: a reference reaching outside the generated extent is refused; one inside it is resampled', async () => {
    const flat = (n: number) => new Float32Array(n * n).fill(10);
    writeHeightfieldFile(join(dir, 'far.r32'), floatHeightfield(grid(50000, 1024, 4), flat(4)));
    writeHeightfieldFile(join(dir, 'part.r32'), floatHeightfield(grid(-1024, 1024, 4), flat(4)));
    writeHeightfieldFile(join(dir, 'whole.r32'), floatHeightfield(grid(-1024, 2048, 4), flat(4)));
    writeHeightfieldFile(join(dir, 'ref.r32'), floatHeightfield(grid(-1024, 2048, 8), flat(8)));
    for (const g of ['far.r32', 'part.r32']) {
      const r = await cli('compare', join(dir, g), join(dir, 'ref.r32'), '--resample', '--json');
      expect(r.code, r.err).toBe(2);
      expect(r.err).toContain("--resample: the reference reaches outside the generated side's extent");
      expect(r.out).toBe('');
    }
    const ok = await cli('compare', join(dir, 'whole.r32'), join(dir, 'ref.r32'), '--resample', '--json');
    expect(ok.code, ok.err).toBe(0);
    expect((JSON.parse(ok.out) as { differing: number }).differing).toBe(0);
  });

  it('nonfinite-in-headline: pixels left out of the counts are said in the headline', async () => {
    const g = grid(-1024, 2048, 8);
    const a = Float32Array.from({ length: 64 }, (_, k) => k);
    const b = a.slice();
    b[9] = Number.NaN;
    writeHeightfieldFile(join(dir, 'na.r32'), floatHeightfield(g, a));
    writeHeightfieldFile(join(dir, 'nb.r32'), floatHeightfield(g, b));
    const r = await cli('compare', join(dir, 'na.r32'), join(dir, 'nb.r32'));
    expect(r.code, r.err).toBe(0);
    const headline = r.out.split('\n').find((l) => l.includes('pixels differ'));
    expect(headline).toContain('**0 of 63 pixels differ in height**');
    expect(headline).toContain('**1 more pixel not compared** (non-finite on a side)');
  });
});
