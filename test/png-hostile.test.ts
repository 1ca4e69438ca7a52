/**
 * Hostile PNG16 files: decompression bombs are refused from the IHDR or stopped at the cap;
 * image data is verified (length, Adler-32, trailing bytes, chunk rules, CRCs) and refused with the reason.
 * Files are built here from node:zlib (deflate, crc32) and fast-png's encoder — never from heightbench's decoder.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { crc32, deflateSync, inflateSync } from 'node:zlib';
import { encode } from 'fast-png';
import { describe, expect, it } from 'vitest';
import { decodePng16 } from '../src/io/png16.js';
import { pngImageDataBytes } from '../src/io/png16.js';
import { cli, tempDir, testRandom } from './helpers.js';

const SIG = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

function chunk(type: string, data: Uint8Array = new Uint8Array(0), badCrc = false): Buffer {
  const head = Buffer.alloc(8);
  head.writeUInt32BE(data.length, 0);
  head.write(type, 4, 'latin1');
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE((crc32(Buffer.concat([head.subarray(4), data])) ^ (badCrc ? 1 : 0)) >>> 0, 0);
  return Buffer.concat([head, data, crc]);
}

function ihdr(w: number, h: number, o: { depth?: number; colour?: number; interlace?: number } = {}): Buffer {
  const d = Buffer.alloc(13);
  d.writeUInt32BE(w, 0);
  d.writeUInt32BE(h, 4);
  d[8] = o.depth ?? 16;
  d[9] = o.colour ?? 0;
  d[12] = o.interlace ?? 0;
  return chunk('IHDR', d);
}

/** Filtered rows (filter byte 0) of big-endian codes, as the PNG spec lays them out for a non-interlaced image. */
function rawRows(codes: Uint16Array, w: number, h: number): Buffer {
  const out = Buffer.alloc(h * (1 + 2 * w));
  for (let y = 0; y < h; y++) for (let x = 0; x < w; x++) out.writeUInt16BE(codes[y * w + x], y * (1 + 2 * w) + 1 + 2 * x);
  return out;
}

function png(...chunks: Buffer[]): Buffer {
  return Buffer.concat([SIG, ...chunks]);
}

const W = 16;
const H = 16;
const rnd = testRandom(19);
const codes = Uint16Array.from({ length: W * H }, () => Math.floor(rnd() * 65536));
const raw = rawRows(codes, W, H);
const good = png(ihdr(W, H), chunk('IDAT', deflateSync(raw)), chunk('IEND'));

describe('PNG16 decompression bombs', () => {
  it('a well-formed file built here decodes to its codes (the baseline the mutations break)', () => {
    expect(Array.from(decodePng16(good).codes)).toEqual(Array.from(codes));
  });
  it('the cap is rows × (1 + row bytes): 16 × (1 + 32) = 528 bytes; Adam7 sums the passes (checked against fast-png + zlib)', () => {
    expect(pngImageDataBytes({ width: 16, height: 16, interlace: 0 })).toBe(528);
    for (const [w, h] of [
      [1, 1],
      [3, 2],
      [37, 23],
      [8, 8],
      [9, 1],
    ]) {
      const p = encode({ width: w, height: h, data: new Uint16Array(w * h), depth: 16, channels: 1 }, { interlace: 'Adam7' });
      // The IDAT chunks of fast-png's interlaced file, inflated by zlib: the real byte count of the seven passes.
      const ids: Buffer[] = [];
      const b = Buffer.from(p);
      for (let off = 8; off < b.length;) {
        const len = b.readUInt32BE(off);
        if (b.toString('latin1', off + 4, off + 8) === 'IDAT') ids.push(b.subarray(off + 8, off + 8 + len));
        off += 12 + len;
      }
      expect(pngImageDataBytes({ width: w, height: h, interlace: 1 }), `${w}×${h}`).toBe(inflateSync(Buffer.concat(ids)).length);
    }
  });
  it('a 16×16 IHDR over 64 MiB of deflated zeros stops at the cap and is refused, without inflating the rest', () => {
    const bomb = png(ihdr(W, H), chunk('IDAT', deflateSync(Buffer.alloc(64 << 20))), chunk('IEND'));
    expect(bomb.length).toBeLessThan(100_000);
    const before = process.memoryUsage().arrayBuffers;
    expect(() => decodePng16(bomb)).toThrow('PNG: image data inflates past the 528 bytes a 16×16 non-interlaced 16-bit grey IHDR allows; stopped there');
    // Bounded: far less than the 64 MiB the stream would inflate to.
    expect(process.memoryUsage().arrayBuffers - before).toBeLessThan(8 << 20);
  });
  it('a 268435456×1 IHDR is refused from the header alone (its image data is not even valid zlib)', () => {
    const p = png(ihdr(268435456, 1), chunk('IDAT', Buffer.from('not zlib at all')), chunk('IEND'));
    expect(() => decodePng16(p)).toThrow('PNG: IHDR announces 268435456×1, a side over the limit of 1048576');
    const q = png(ihdr(20000, 20000), chunk('IDAT', Buffer.from('not zlib')), chunk('IEND'));
    expect(() => decodePng16(q)).toThrow('PNG: IHDR announces 20000×20000 = 400000000 pixels, over the limit of 268435456');
  });
  it('the CLI refuses a bomb with exit 2 and one line', async () => {
    const d = tempDir('hb-bomb-');
    const p = join(d, 'bomb.png');
    writeFileSync(p, png(ihdr(W, H), chunk('IDAT', deflateSync(Buffer.alloc(8 << 20))), chunk('IEND')));
    const r = await cli('info', p);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/^heightbench: \S*bomb\.png: PNG: image data inflates past the 528 bytes .*\n$/);
  });
});

describe('PNG16 image data is verified', () => {
  const cases: [string, Buffer, string | RegExp][] = [
    [
      'too little data (one row short)',
      png(ihdr(W, H), chunk('IDAT', deflateSync(raw.subarray(0, raw.length - 33))), chunk('IEND')),
      'PNG: image data inflates to 495 bytes, a 16×16 non-interlaced 16-bit grey IHDR needs 528',
    ],
    ['one byte too much', png(ihdr(W, H), chunk('IDAT', deflateSync(Buffer.concat([raw, Buffer.of(0)]))), chunk('IEND')), /inflates past the 528 bytes/],
    [
      'bad Adler-32',
      (() => {
        const z = Buffer.from(deflateSync(raw));
        z[z.length - 1] ^= 0x01;
        return png(ihdr(W, H), chunk('IDAT', z), chunk('IEND'));
      })(),
      'PNG: corrupt: zlib Adler-32 checksum of the image data does not match',
    ],
    [
      'a zlib stream cut short',
      png(ihdr(W, H), chunk('IDAT', deflateSync(raw).subarray(0, 20)), chunk('IEND')),
      /PNG: truncated: the zlib stream of the image data ends early/,
    ],
    [
      'bytes after the zlib stream',
      png(ihdr(W, H), chunk('IDAT', Buffer.concat([deflateSync(raw), Buffer.from('junk')])), chunk('IEND')),
      'PNG: 4 bytes after the end of the zlib stream in IDAT',
    ],
    [
      'an unknown critical chunk',
      png(ihdr(W, H), chunk('HUGE', Buffer.from('x')), chunk('IDAT', deflateSync(raw)), chunk('IEND')),
      'PNG: unknown critical chunk "HUGE" at byte 33: it cannot be skipped safely',
    ],
    [
      'PLTE in a greyscale file',
      png(ihdr(W, H), chunk('PLTE', Buffer.alloc(6)), chunk('IDAT', deflateSync(raw)), chunk('IEND')),
      'PNG: PLTE chunk at byte 33 in a greyscale file (a palette is not allowed there)',
    ],
    ['a second IHDR', png(ihdr(W, H), ihdr(W, H), chunk('IDAT', deflateSync(raw)), chunk('IEND')), 'PNG: a second IHDR chunk at byte 33'],
    ['data after IEND', Buffer.concat([good, Buffer.from('trailing')]), `PNG: 8 bytes after IEND (byte ${good.length} onwards)`],
    ['a chunk after IEND', Buffer.concat([good, chunk('tEXt', Buffer.from('a\0b'))]), /PNG: 15 bytes after IEND/],
    [
      'a bad CRC on an ancillary chunk',
      png(ihdr(W, H), chunk('tEXt', Buffer.from('k\0v'), true), chunk('IDAT', deflateSync(raw)), chunk('IEND')),
      /PNG: corrupt: CRC mismatch in chunk "tEXt" at byte 33/,
    ],
    ['a bad CRC on IDAT', png(ihdr(W, H), chunk('IDAT', deflateSync(raw), true), chunk('IEND')), /PNG: corrupt: CRC mismatch in chunk "IDAT"/],
    [
      'IDAT chunks that are not consecutive',
      (() => {
        const z = deflateSync(raw);
        return png(ihdr(W, H), chunk('IDAT', z.subarray(0, 10)), chunk('tEXt', Buffer.from('k\0v')), chunk('IDAT', z.subarray(10)), chunk('IEND'));
      })(),
      /IDAT chunks must be consecutive/,
    ],
    ['no IDAT', png(ihdr(W, H), chunk('IEND')), 'PNG: no IDAT chunk before IEND'],
    ['no IEND', png(ihdr(W, H), chunk('IDAT', deflateSync(raw))), /PNG: truncated: no IEND chunk/],
    [
      'an IEND with data',
      png(ihdr(W, H), chunk('IDAT', deflateSync(raw)), chunk('IEND', Buffer.of(1))),
      'PNG: IEND chunk at byte 586 carries 1 data bytes, expected 0'.replace('586', String(8 + 25 + 12 + deflateSync(raw).length)),
    ],
    [
      'an unknown filter type',
      (() => {
        const r = Buffer.from(raw);
        r[5 * 33] = 7;
        return png(ihdr(W, H), chunk('IDAT', deflateSync(r)), chunk('IEND'));
      })(),
      'PNG: corrupt: unknown filter type 7 at row 5 (0…4 expected)',
    ],
    [
      'a length field that lies',
      (() => {
        const b = Buffer.from(good);
        b.writeUInt32BE(0x7ffffff0, 33);
        return b;
      })(),
      /PNG: truncated: chunk "IDAT" at byte 33 needs 2147483632 data bytes/,
    ],
  ];
  for (const [name, bytes, message] of cases) {
    it(`refuses ${name}`, () => {
      expect(() => decodePng16(bytes)).toThrow(message);
    });
  }
  it('accepts what the rules allow: ancillary chunks with good CRCs, IDAT split into consecutive chunks', () => {
    const z = deflateSync(raw);
    const p = png(
      ihdr(W, H),
      chunk('tEXt', Buffer.from('Software\0test')),
      chunk('IDAT', z.subarray(0, 7)),
      chunk('IDAT', z.subarray(7, 8)),
      chunk('IDAT', z.subarray(8)),
      chunk('gAMA', Buffer.alloc(4)),
      chunk('IEND'),
    );
    expect(Array.from(decodePng16(p).codes)).toEqual(Array.from(codes));
  });
  it('the CLI refuses each with exit 2 and the reason on one line', async () => {
    const d = tempDir('hb-pngbad-');
    for (const [i, [, bytes]] of cases.entries()) {
      const p = join(d, `c${i}.png`);
      writeFileSync(p, bytes);
      const r = await cli('info', p);
      expect(r.code, p).toBe(2);
      expect(r.err).toMatch(/^heightbench: [^\n]+\n$/);
    }
  });
});
