// The PNG16 writer's Up filter on its WebAssembly kernel equals the JavaScript loop byte for byte, across block
// boundaries and widths that are not a multiple of the kernel's eight lanes; the file it makes decodes to the codes.
import { describe, expect, it } from 'vitest';
import { decodePng16, encodePng16, upFilteredRows, upFilteredRowsWasm } from '../src/io/png16.js';

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
});
