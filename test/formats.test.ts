import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { encode } from 'fast-png';
import { crc32 } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { codeHeightfield, domainGrid, floatHeightfield, readHeightfieldFile, writeHeightfieldFile } from '../src/index.js';
import { countNonFinite, decodePng16, decodeR16, decodeR32, encodePng16, encodeR16, encodeR32, writeFileAtomic } from '../src/api/formats.js';
import { sidecarPathFor } from '../src/io/sidecar.js';
import { tempDir, testRandom } from './helpers.js';

function randomCodes(n: number, seed: number): Uint16Array {
  const rnd = testRandom(seed);
  return Uint16Array.from({ length: n }, () => Math.floor(rnd() * 65536));
}

describe('R16 raw', () => {
  it('round-trips little- and big-endian, with the bytes in the stated order', () => {
    const q = Uint16Array.of(0x0102, 0xfffe, 0, 65535, 0x8001, 7);
    const le = encodeR16(q, 'le');
    const be = encodeR16(q, 'be');
    expect(Array.from(le.subarray(0, 2))).toEqual([0x02, 0x01]);
    expect(Array.from(be.subarray(0, 2))).toEqual([0x01, 0x02]);
    expect(Array.from(decodeR16(le, 3, 2, 'le'))).toEqual(Array.from(q));
    expect(Array.from(decodeR16(be, 3, 2, 'be'))).toEqual(Array.from(q));
  });
  it('refuses a byte count that does not fit, with the arithmetic', () => {
    expect(() => decodeR16(new Uint8Array(1000), 16, 16)).toThrow('R16: 1000 bytes do not fit 16×16 samples: 16 × 16 × 2 bytes = 512 bytes');
  });
  it('round-trips through files with sidecars (both byte orders)', () => {
    const d = tempDir();
    const g = domainGrid(32);
    const q = randomCodes(32 * 32, 1);
    for (const endian of ['le', 'be'] as const) {
      const p = join(d, `m-${endian}.r16`);
      writeHeightfieldFile(p, codeHeightfield(g, q), { endian, stage: 'final', request: 'unit' });
      const back = readHeightfieldFile(p);
      expect(back.endian).toBe(endian);
      expect(back.field.kind === 'codes' && Array.from(back.field.code_px)).toEqual(Array.from(q));
      expect(back.sidecar?.stage).toBe('final');
      expect(back.sidecar?.grid).toEqual(g);
    }
  });
});

describe('R32 raw', () => {
  it('round-trips floats bit for bit and counts NaN and ±Inf', () => {
    const v = Float32Array.of(1.5, Number.NaN, Infinity, -Infinity, -0, 3.4e38, 1e-45);
    const back = decodeR32(encodeR32(v), 7, 1);
    expect(new Uint8Array(back.buffer)).toEqual(new Uint8Array(v.buffer));
    expect(countNonFinite(back)).toEqual({ nan: 1, posInf: 1, negInf: 1 });
  });
  it('refuses a byte count that does not fit', () => {
    expect(() => decodeR32(new Uint8Array(10), 2, 2)).toThrow('R32: 10 bytes do not fit 2×2 samples: 2 × 2 × 4 bytes = 16 bytes');
  });
  it('file round trip keeps NaN and reports it', () => {
    const d = tempDir();
    const p = join(d, 'stage.r32');
    const h = Float32Array.from({ length: 16 }, (_, i) => i * 0.25 - 1);
    h[3] = Number.NaN;
    writeHeightfieldFile(p, floatHeightfield(domainGrid(4), h), { stage: 'base' });
    const back = readHeightfieldFile(p);
    expect(back.field.kind).toBe('float');
    if (back.field.kind === 'float') {
      expect(Number.isNaN(back.field.height_px[3])).toBe(true);
      expect(back.field.height_px[5]).toBe(0.25);
    }
  });
});

describe('PNG16', () => {
  it('round-trips plain and Adam7-interlaced files', () => {
    for (const interlace of [false, true]) {
      const q = randomCodes(37 * 23, interlace ? 2 : 3);
      const png = encodePng16(q, 37, 23, { interlace });
      const back = decodePng16(png);
      expect(back.interlaced).toBe(interlace);
      expect(back.width).toBe(37);
      expect(Array.from(back.codes)).toEqual(Array.from(q));
    }
  });
  it('refuses 8-bit instead of widening it', () => {
    const png = encode({ width: 4, height: 4, data: new Uint8Array(16), depth: 8, channels: 1 });
    expect(() => decodePng16(png)).toThrow('PNG: bit depth 8, expected 16: a heightfield of fewer bits is refused, not widened');
  });
  it.each([
    [3, 2, 'truecolour (RGB)'],
    [2, 4, 'greyscale with alpha'],
    [4, 6, 'truecolour with alpha (RGBA)'],
  ])('refuses %i channels (colour type %i) instead of averaging', (channels, type, name) => {
    const png = encode({ width: 2, height: 2, data: new Uint16Array(4 * channels), depth: 16, channels });
    expect(() => decodePng16(png)).toThrow(`PNG: colour type ${type} (${name}), expected 0 (greyscale)`);
  });
  it('refuses a palette PNG', () => {
    const png = encode({
      width: 2,
      height: 2,
      data: new Uint8Array(4),
      depth: 8,
      channels: 1,
      palette: [
        [0, 0, 0],
        [255, 255, 255],
      ],
    });
    expect(() => decodePng16(png)).toThrow(/colour type 3 \(palette \(indexed colour\)\)/);
  });
  it('refuses a truncated file with the reason', () => {
    const png = encodePng16(randomCodes(64 * 64, 4), 64, 64);
    expect(() => decodePng16(png.subarray(0, png.length - 30))).toThrow(
      /PNG: truncated: chunk "IDAT" at byte \d+ needs \d+ data bytes, the file ends \d+ bytes short/,
    );
    expect(() => decodePng16(png.subarray(0, 20))).toThrow('PNG: truncated: 20 bytes, an IHDR needs at least 33');
  });
  it('refuses a corrupted IDAT (CRC) with the reason', () => {
    const png = encodePng16(randomCodes(64 * 64, 5), 64, 64).slice();
    png[60] ^= 0xff; // inside the first IDAT's data
    expect(() => decodePng16(png)).toThrow(/PNG: corrupt: .*CRC/i);
  });
  it('refuses an IHDR over the pixel limit before allocating', () => {
    const png = encodePng16(new Uint16Array(4), 2, 2).slice();
    const dv = new DataView(png.buffer);
    dv.setUint32(16, 200000); // width
    dv.setUint32(20, 200000); // height: 4e10 pixels would be 80 GB
    expect(() => decodePng16(png)).toThrow('PNG: corrupt: CRC mismatch in chunk "IHDR" at byte 8');
    dv.setUint32(29, crc32(png.subarray(12, 29))); // an honest hostile file: the IHDR's CRC matches its lie
    expect(() => decodePng16(png)).toThrow('PNG: IHDR announces 200000×200000 = 40000000000 pixels, over the limit of 268435456');
    expect(() => decodePng16(encodePng16(new Uint16Array(16), 4, 4), { pixelLimit: 15 })).toThrow(/4×4 = 16 pixels, over the limit of 15/);
  });
  it("lets the PNG's own size override a size setting", () => {
    const d = tempDir();
    const p = join(d, 'own-size.png');
    writeFileSync(p, encodePng16(randomCodes(12 * 8, 6), 12, 8));
    const r = readHeightfieldFile(p, { size: { width: 100, height: 100 } });
    expect(r.field.grid.columns).toBe(12);
    expect(r.field.grid.rows).toBe(8);
    expect(r.notes[0]).toMatch(/size setting 100x100 ignored: the PNG is 12x8/);
  });
});

describe('atomic writes and sidecars', () => {
  it('leaves neither a partial file nor a temporary one when the write is interrupted', () => {
    const d = tempDir();
    const p = join(d, 'x.r16');
    writeFileSync(p, 'old contents');
    expect(() =>
      writeFileAtomic(p, new Uint8Array(1000), {
        beforeRename: () => {
          throw new Error('simulated crash');
        },
      }),
    ).toThrow('simulated crash');
    expect(readFileSync(p, 'utf8')).toBe('old contents');
    expect(readdirSync(d)).toEqual(['x.r16']);
  });
  it('writes a sidecar with the conventions and the payload hash next to every file', () => {
    const d = tempDir();
    const p = join(d, 'final.r16');
    const w = writeHeightfieldFile(p, floatHeightfield(domainGrid(8), new Float32Array(64).fill(12.5)), { stage: 'final', request: 'tundra-r19' });
    const s = JSON.parse(readFileSync(sidecarPathFor(p), 'utf8'));
    expect(s).toMatchObject({
      format: 'heightbench.sidecar',
      version: 1,
      file: 'final.r16',
      container: 'r16',
      endian: 'le',
      stage: 'final',
      request: 'tundra-r19',
      producer: { name: 'heightbench' },
      grid: { xmin: -1024, ymin: -1024, sizeX: 2048, sizeY: 2048, columns: 8, rows: 8, convention: 'texel-centre', rowDirection: 'row0-at-ymin' },
      encoding: { kind: 'unorm16', range: { min: -500, max: 500 }, metresPerCode: 1000 / 65535 },
    });
    expect(s.payload.bytes).toBe(128);
    expect(s.payload.sha256).toMatch(/^[0-9a-f]{64}$/);
    expect(w.encodeCounts).toEqual({ clampedLow: 0, clampedHigh: 0, nan: 0 });
  });
  it('refuses a sidecar of another version, naming both versions, before reading anything else', () => {
    const d = tempDir();
    const p = join(d, 'v.r16');
    writeHeightfieldFile(p, codeHeightfield(domainGrid(2), new Uint16Array(4)));
    writeFileSync(sidecarPathFor(p), JSON.stringify({ format: 'heightbench.sidecar', version: 7, grid: 'garbage' }));
    expect(() => readHeightfieldFile(p)).toThrow('v.r16.json.version: this heightbench reads sidecar version 1, the file has version 7');
  });
  it('refuses a payload whose hash differs from its sidecar', () => {
    const d = tempDir();
    const p = join(d, 'h.r16');
    writeHeightfieldFile(p, codeHeightfield(domainGrid(2), Uint16Array.of(1, 2, 3, 4)));
    writeFileSync(p, encodeR16(Uint16Array.of(1, 2, 3, 5)));
    expect(() => readHeightfieldFile(p)).toThrow(/h.r16: SHA-256 [0-9a-f]{64} does not match the sidecar's [0-9a-f]{64}/);
  });
  it('names the JSON path and the bad value of a malformed sidecar', () => {
    const d = tempDir();
    const p = join(d, 'm.r16');
    writeHeightfieldFile(p, codeHeightfield(domainGrid(2), new Uint16Array(4)));
    const s = JSON.parse(readFileSync(sidecarPathFor(p), 'utf8'));
    s.grid.rowDirection = 'upside-down';
    writeFileSync(sidecarPathFor(p), JSON.stringify(s));
    expect(() => readHeightfieldFile(p)).toThrow('m.r16.json.grid.rowDirection: expected one of "row0-at-ymin", "row0-at-ymax", found "upside-down"');
  });
  it('encodes floats into a 16-bit container and reports clamped pixels', () => {
    const d = tempDir();
    const h = Float32Array.of(-600, 0, 600, Number.NaN);
    const w = writeHeightfieldFile(join(d, 'c.png'), floatHeightfield({ ...domainGrid(2) }, h));
    expect(w.encodeCounts).toEqual({ clampedLow: 1, clampedHigh: 1, nan: 1 });
    expect(existsSync(join(d, 'c.png.json'))).toBe(true);
  });
});
