/**
 * PNG16 files written by external encoders decode to the codes those tools report.
 * Peers (Debian): ImageMagick 6 (`convert`), netpbm (`pnmtopng`, which can force each filter type).
 * scripts/ensure-debian-peers.sh installs them; these tests fail, not skip, when they are missing.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { inflateSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { readHeightfieldFile } from '../src/index.js';
import { decodePng16 } from '../src/api/formats.js';
import { cli, tempDir, testRandom } from './helpers.js';

const W = 97;
const H = 61;
const dir = tempDir('hb-ext-');

/** A terrain-like 16-bit pattern with smooth and noisy parts, so every PNG filter has work to do. */
function pattern(): Uint16Array {
  const rnd = testRandom(99);
  const q = new Uint16Array(W * H);
  for (let j = 0; j < H; j++) {
    for (let i = 0; i < W; i++) {
      const smooth = 30000 + 12000 * Math.sin(i / 9) * Math.cos(j / 7);
      q[j * W + i] = Math.max(0, Math.min(65535, Math.round(smooth + (i % 13 === 0 ? rnd() * 9000 : 0))));
    }
  }
  return q;
}
const codes = pattern();

/** 16-bit PGM (P5): big-endian samples, the input netpbm tools take. */
function writePgm16(path: string): void {
  const header = Buffer.from(`P5\n${W} ${H}\n65535\n`, 'ascii');
  const body = Buffer.alloc(W * H * 2);
  for (let k = 0; k < codes.length; k++) body.writeUInt16BE(codes[k], 2 * k);
  writeFileSync(path, Buffer.concat([header, body]));
}

/** Codes as ImageMagick reads them back from a PNG: raw 16-bit little-endian grey. */
function imagemagickCodes(png: string): Uint16Array {
  const raw = execFileSync('/usr/bin/convert', [png, '-depth', '16', '-endian', 'LSB', 'gray:-'], { maxBuffer: 1 << 26 });
  return new Uint16Array(raw.buffer.slice(raw.byteOffset, raw.byteOffset + raw.byteLength));
}

/** The filter type byte of every scanline of a non-interlaced PNG (inflating its IDAT chunks). */
function filterTypes(png: Uint8Array): Set<number> {
  const b = Buffer.from(png);
  const idat: Buffer[] = [];
  let rowBytes = 0;
  for (let off = 8; off < b.length;) {
    const len = b.readUInt32BE(off);
    const type = b.toString('ascii', off + 4, off + 8);
    if (type === 'IHDR') rowBytes = b.readUInt32BE(off + 8) * 2;
    if (type === 'IDAT') idat.push(b.subarray(off + 8, off + 8 + len));
    off += 12 + len;
  }
  const raw = inflateSync(Buffer.concat(idat));
  const types = new Set<number>();
  for (let r = 0; r < raw.length; r += rowBytes + 1) types.add(raw[r]);
  return types;
}

describe('PNG16 written by netpbm pnmtopng, one file per forced filter type', () => {
  const pgm = join(dir, 'src.pgm');
  writePgm16(pgm);
  it.each([
    ['-nofilter', 0],
    ['-sub', 1],
    ['-up', 2],
    ['-avg', 3],
    ['-paeth', 4],
  ])('%s (filter %i) decodes to the source codes and to what ImageMagick reads', (flag, filter) => {
    const out = join(dir, `f${filter}.png`);
    writeFileSync(out, execFileSync('/usr/bin/pnmtopng', [flag, pgm], { stdio: ['ignore', 'pipe', 'ignore'] }));
    const bytes = readFileSync(out);
    expect(filterTypes(bytes)).toEqual(new Set([filter]));
    const d = decodePng16(bytes);
    expect(d.width).toBe(W);
    expect(Array.from(d.codes)).toEqual(Array.from(codes));
    expect(Array.from(d.codes)).toEqual(Array.from(imagemagickCodes(out)));
  });
  it('interlaced (Adam7) decodes to the same codes', () => {
    const out = join(dir, 'adam7.png');
    writeFileSync(out, execFileSync('/usr/bin/pnmtopng', ['-interlace', '-paeth', pgm], { stdio: ['ignore', 'pipe', 'ignore'] }));
    const d = decodePng16(readFileSync(out));
    expect(d.interlaced).toBe(true);
    expect(Array.from(d.codes)).toEqual(Array.from(codes));
  });
});

describe('PNG16 written by ImageMagick', () => {
  const raw = join(dir, 'src-le.gray');
  writeFileSync(raw, Buffer.from(codes.buffer));
  it.each([
    ['plain', []],
    ['interlaced', ['-interlace', 'PNG']],
  ])('%s 16-bit grey decodes to the codes ImageMagick reports', (_name, extra) => {
    const out = join(dir, `im-${_name}.png`);
    execFileSync('/usr/bin/convert', [
      '-size',
      `${W}x${H}`,
      '-depth',
      '16',
      '-endian',
      'LSB',
      `gray:${raw}`,
      ...(extra as string[]),
      '-define',
      'png:color-type=0',
      '-define',
      'png:bit-depth=16',
      out,
    ]);
    const d = decodePng16(readFileSync(out));
    expect(d.interlaced).toBe(_name === 'interlaced');
    expect(Array.from(d.codes)).toEqual(Array.from(imagemagickCodes(out)));
    expect(Array.from(d.codes)).toEqual(Array.from(codes));
  });
  it('an 8-bit ImageMagick PNG is refused by info and convert with exit 2', async () => {
    const out = join(dir, 'im8.png');
    execFileSync('/usr/bin/convert', ['-size', '8x8', 'gradient:', '-depth', '8', '-colorspace', 'Gray', out]);
    const r = await cli('info', out);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/^heightbench: \S*im8\.png: PNG: bit depth 8, expected 16/);
    expect(r.err.trim().split('\n')).toHaveLength(1);
  });
  it('our PNG output reads back identically in ImageMagick', async () => {
    const p = join(dir, 'ours.png');
    const r16 = join(dir, 'ours.r16');
    writeFileSync(r16, Buffer.from(codes.buffer));
    expect((await cli('convert', r16, p, '--size', `${W}x${H}`)).code).toBe(0);
    expect(Array.from(imagemagickCodes(p))).toEqual(Array.from(codes));
    const back = readHeightfieldFile(p);
    expect(back.field.kind === 'codes' && Array.from(back.field.code_px)).toEqual(Array.from(codes));
  });
  it('our Adam7 output (--interlace, written without a PNG library) reads back identically in ImageMagick', async () => {
    const p = join(dir, 'ours-adam7.png');
    const r16 = join(dir, 'ours-adam7.r16');
    writeFileSync(r16, Buffer.from(codes.buffer));
    expect((await cli('convert', r16, p, '--size', `${W}x${H}`, '--interlace')).code).toBe(0);
    expect(readFileSync(p)[28]).toBe(1); // IHDR interlace method: Adam7
    expect(Array.from(imagemagickCodes(p))).toEqual(Array.from(codes));
  });
  it('our writer (Up filter on every row, Z_RLE deflate, IDAT chunks ≤ 1 MiB) reads back identically in ImageMagick, also split over chunks', async () => {
    const { encodePng16 } = await import('../src/api/formats.js');
    // Noise compresses badly: 1200×1000 samples need well over 1 MiB of deflate output, so several IDAT chunks.
    const w = 1200;
    const h = 1000;
    const rnd = testRandom(7);
    const q = new Uint16Array(w * h).map((_, k) => (k % 3 === 0 ? (rnd() * 65536) | 0 : 20000 + (k % w)));
    const png = encodePng16(q, w, h);
    const p = join(dir, 'chunks.png');
    writeFileSync(p, png);
    // Walk the chunks independently of the decoder under test.
    const types: string[] = [];
    const idat: Buffer[] = [];
    for (let at = 8; at < png.length;) {
      const len = Buffer.from(png.buffer, png.byteOffset + at, 4).readUInt32BE(0);
      const type = Buffer.from(png.subarray(at + 4, at + 8)).toString('ascii');
      types.push(type);
      if (type === 'IDAT') {
        expect(len).toBeLessThanOrEqual(1 << 20);
        idat.push(Buffer.from(png.subarray(at + 8, at + 8 + len)));
      }
      at += 12 + len;
    }
    expect(types[0]).toBe('IHDR');
    expect(types.at(-1)).toBe('IEND');
    expect(idat.length).toBeGreaterThan(1);
    const raw = inflateSync(Buffer.concat(idat));
    expect(raw.length).toBe(h * (1 + 2 * w));
    for (let j = 0; j < h; j++) expect(raw[j * (1 + 2 * w)]).toBe(2);
    expect(Array.from(imagemagickCodes(p))).toEqual(Array.from(q));
  });
});
