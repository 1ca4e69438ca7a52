// The PNG16 writer's Up filter on its WebAssembly kernel equals the JavaScript loop byte for byte, across block
// boundaries and widths that are not a multiple of the kernel's eight lanes; the file it makes decodes to the codes.
import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { decodePng16, encodePng16, upFilteredRows, upFilteredRowsWasm } from '../src/io/png16.js';
import { writeOwnHeightfieldFile, writeScanlinesPng } from '../src/io/heightfield-file.js';
import { codeHeightfield, floatHeightfield } from '../src/core/heightfield.js';
import { domainGrid } from '../src/core/grid.js';
import { tempDir } from './helpers.js';

/** A deterministic code field with smooth rows, steps, and the extremes 0 and 65535 (borrows in both bytes). */
function codes(width: number, height: number, seed: number): Uint16Array {
  const out = new Uint16Array(width * height);
  let s = seed >>> 0;
  for (let k = 0; k < out.length; k++) {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    const smooth = (30000 + 20 * (k % width) + 7 * Math.floor(k / width)) & 0xffff;
    out[k] = s % 7 === 0 ? s >>> 16 : s % 11 === 0 ? (s % 2 ? 0 : 65535) : smooth;
  }
  return out;
}

describe('PNG16 Up filter kernel', () => {
  it('serves on this host and equals the JavaScript loop for every shape tried', () => {
    const shapes: [number, number][] = [
      [1, 1],
      [1, 9],
      [7, 3],
      [8, 8],
      [9, 5],
      [17, 33],
      [255, 2],
      [3000, 400], // three blocks of rows
      [4099, 130], // two blocks, width mod 8 = 3
      [600_000, 2], // one row a block
    ];
    let served = 0;
    for (const [w, h] of shapes) {
      const c = codes(w, h, w * 31 + h);
      const got = upFilteredRowsWasm(c, w, h);
      if (got) served++;
      expect(got === null ? null : Buffer.from(got).equals(Buffer.from(upFilteredRows(c, w, h))), `${w}×${h}`).toBe(true);
    }
    expect(served).toBe(shapes.length);
  });

  it('writes a PNG that decodes to the codes it was given', () => {
    const c = codes(1023, 77, 5);
    const png = encodePng16(c, 1023, 77);
    const back = decodePng16(png);
    expect([back.width, back.height]).toEqual([1023, 77]);
    expect(Buffer.from(back.codes.buffer).equals(Buffer.from(c.buffer))).toBe(true);
  });

  it('writes the scanlines into a caller-owned buffer with the same file bytes, and refuses one too small or overlapping the codes', () => {
    const [w, h] = [1023, 77];
    const need = (2 * w + 1) * h;
    // Codes and a dirty scanline buffer in one shared memory, as in the executor's arena.
    const memory = new SharedArrayBuffer(2 * w * h + need + 64);
    const c = new Uint16Array(memory, 0, w * h);
    c.set(codes(w, h, 9));
    const rows = new Uint8Array(memory, 2 * w * h + 32, need + 16).fill(0xa5);
    const fresh = encodePng16(c, w, h);
    const inRows = encodePng16(c, w, h, { rows });
    expect(Buffer.from(inRows).equals(Buffer.from(fresh))).toBe(true);
    // The buffer holds the JavaScript loop's scanlines, and the bytes past them are untouched.
    expect(Buffer.from(rows.subarray(0, need)).equals(Buffer.from(upFilteredRows(c, w, h)))).toBe(true);
    expect(rows[need]).toBe(0xa5);
    expect(() => encodePng16(c, w, h, { rows: rows.subarray(0, need - 1) })).toThrow(`holds ${need - 1} bytes, ${w}×${h} needs ${need}`);
    const overlapping = new Uint8Array(memory, 2 * w * h - 2, need);
    expect(() => encodePng16(c, w, h, { rows: overlapping })).toThrow('overlaps the codes');
    // Interlaced files build their own pass order and leave the buffer alone.
    rows.fill(0xa5);
    encodePng16(c, w, h, { rows, interlace: true });
    expect(rows[0]).toBe(0xa5);
  });

  it('writes a PNG file from given scanlines with the bytes and sidecar of the ordinary writer, and refuses what does not fit', () => {
    const d = tempDir('hb-png-scan-');
    const n = 96;
    const field = codeHeightfield(domainGrid(n), codes(n, n, 4), { min: -300, max: 300 });
    const settings = { stage: 'final', request: 'r', notes: { precision: 'f32' } };
    writeOwnHeightfieldFile(join(d, 'a.png'), field, settings);
    writeScanlinesPng(join(d, 'b.png'), field, upFilteredRows(field.code_px, n, n), settings);
    expect(readFileSync(join(d, 'b.png')).equals(readFileSync(join(d, 'a.png')))).toBe(true);
    const sidecar = (f: string) => JSON.parse(readFileSync(join(d, `${f}.json`), 'utf8').replaceAll(f, 'X'));
    expect(sidecar('b.png')).toEqual(sidecar('a.png'));
    const rows = upFilteredRows(field.code_px, n, n);
    expect(() => writeScanlinesPng(join(d, 'c.png'), field, rows.subarray(1), settings)).toThrow(
      `${rows.length - 1} bytes of scanlines, a ${n}×${n} field has ${rows.length}`,
    );
    expect(() => writeScanlinesPng(join(d, 'c.r16'), field, rows, settings)).toThrow('as a PNG16 (.png) file');
    expect(() => writeScanlinesPng(join(d, 'c.png'), floatHeightfield(domainGrid(n), new Float32Array(n * n)), rows, settings)).toThrow('got float');
    expect(() => writeScanlinesPng(join(d, 'c.png'), field, rows, { ...settings, interlace: true })).toThrow('as they are');
  });
});
