/**
 * decodeNpy / encodeNpy against numpy itself (test/peers/npy_peer.py, run with .venv/bin/python):
 * - numpy writes every dtype heightbench reads, both byte orders, C and Fortran order, versions 1.0/2.0/3.0, plus
 *   files that must be refused; it also dumps the values it holds as raw float64, which the decoder must match
 *   exactly (NaN, ±Inf, -0, subnormals included);
 * - np.load reads what encodeNpy wrote (dtype, shape, values), and np.save of that array is byte-identical to
 *   encodeNpy's output; re-encoding numpy's own C-order little-endian files reproduces them byte for byte.
 * The peer is required: a missing .venv or numpy is a setup bug and fails these tests.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { GCProfiler } from 'node:v8';
import { beforeAll, describe, expect, it } from 'vitest';
import { decodeNpy, encodeNpy, parseNpyHeader } from '../src/io/formats/npy.js';
import { FormatError, InputRangeError, LimitError } from '../src/errors.js';
import { readF64, sameValues, tempDir, testRandom } from './helpers.js';

const root = join(import.meta.dirname, '..');
const python = join(root, '.venv', 'bin', 'python');
const dir = tempDir('hb-npy-');
const LIMITS = { pixelLimit: 1 << 26 };

interface Case {
  name: string;
  file: string;
  descr: string;
  shape: number[];
  fortran: boolean;
  values?: string;
}

function peer(...args: string[]): string {
  const r = spawnSync(python, [join(root, 'test', 'peers', 'npy_peer.py'), ...args], { encoding: 'utf8' });
  if (r.error) throw new Error(`npy peer could not start (${python}): ${r.error.message}`);
  if (r.status !== 0) throw new Error(`npy peer failed (${r.status}): ${r.stderr}`);
  return r.stdout;
}

let cases: Map<string, Case>;
beforeAll(() => {
  peer('write', dir);
  const m = JSON.parse(readFileSync(join(dir, 'manifest.json'), 'utf8')) as { cases: Case[] };
  cases = new Map(m.cases.map((c) => [c.name, c]));
});

function fileOf(name: string): Uint8Array {
  return new Uint8Array(readFileSync(join(dir, cases.get(name)!.file)));
}

const f64 = readF64;

function decodeFails(bytes: Uint8Array, limits = LIMITS, sel = {}): Error {
  try {
    decodeNpy(bytes, 'a.npy', sel, limits);
  } catch (e) {
    return e as Error;
  }
  throw new Error('decodeNpy accepted the file');
}

const READABLE = [
  ...['u2', 'i2', 'f2', 'f4', 'f8'].flatMap((c) => ['le_c', 'le_f', 'be_c', 'be_f'].map((v) => `${c}_${v}`)),
  'f4_v2',
  'u2_v3',
  'f8_be_f_v2',
  'hw1',
  'tall',
  'wide_f',
  'one',
];
const TYPES: Record<string, [string, string]> = {
  u2: ['uint16', 'Uint16Array'],
  i2: ['int16', 'Int16Array'],
  f2: ['float16', 'Float32Array'],
  f4: ['float32', 'Float32Array'],
  f8: ['float64', 'Float64Array'],
};

describe('files numpy wrote', () => {
  it.each(READABLE)('%s decodes to exactly the values numpy holds, row 0 = a[0, :]', (name) => {
    const c = cases.get(name)!;
    const r = decodeNpy(fileOf(name), name, {}, LIMITS);
    expect([r.height, r.width]).toEqual(c.shape.slice(0, 2));
    const [type, ctor] = TYPES[c.descr.slice(1)];
    expect([r.sampleType, r.values.constructor.name, r.unorm16, r.container]).toEqual([type, ctor, false, 'npy']);
    sameValues(r.values, f64(join(dir, c.values!)));
  });

  it('the numpy files really cover both orders and byte orders, and the edge values', () => {
    expect(cases.get('f4_be_f')!).toMatchObject({ descr: '>f4', fortran: true });
    expect(cases.get('u2_le_c')!).toMatchObject({ descr: '<u2', fortran: false });
    const u2 = decodeNpy(fileOf('u2_be_f'), 'a', {}, LIMITS).values;
    expect([Math.min(...u2), Math.max(...u2)]).toEqual([0, 65535]);
    const i2 = decodeNpy(fileOf('i2_be_c'), 'a', {}, LIMITS).values;
    expect([Math.min(...i2), Math.max(...i2)]).toEqual([-32768, 32767]);
    for (const name of ['f2_be_f', 'f4_le_f', 'f8_be_c']) {
      const v = Array.from(decodeNpy(fileOf(name), 'a', {}, LIMITS).values);
      expect(v.some(Number.isNaN) && v.includes(Infinity) && v.includes(-Infinity) && v.some((x) => Object.is(x, -0))).toBe(true);
    }
    expect(parseNpyHeader(fileOf('f4_v2'), 'a').version).toBe('2.0');
    expect(parseNpyHeader(fileOf('u2_v3'), 'a').version).toBe('3.0');
  });

  it('the description names version, dtype, order and shape', () => {
    expect(decodeNpy(fileOf('f8_be_f_v2'), 'a', {}, LIMITS).description).toBe(
      'NumPy .npy v2.0, >f8 (float64, big-endian), Fortran order (transposed to rows), shape (9, 4)',
    );
    expect(decodeNpy(fileOf('hw1'), 'a', {}, LIMITS).description).toBe(
      'NumPy .npy v1.0, <f4 (float32, little-endian), C order, shape (6, 5, 1) read as (6, 5)',
    );
  });
});

describe('encodeNpy', () => {
  const W = 13;
  const H = 9;
  const rnd = testRandom(7);
  const inputs: [string, Uint16Array | Int16Array | Float32Array | Float64Array][] = [
    ['<u2', Uint16Array.from({ length: W * H }, (_, i) => (i === 0 ? 0 : i === 1 ? 65535 : Math.floor(rnd() * 65536)))],
    ['<i2', Int16Array.from({ length: W * H }, (_, i) => (i === 0 ? -32768 : Math.floor(rnd() * 65536) - 32768))],
    ['<f4', Float32Array.from({ length: W * H }, (_, i) => [NaN, Infinity, -Infinity, -0][i] ?? (rnd() - 0.5) * 1e4)],
    ['<f8', Float64Array.from({ length: W * H }, (_, i) => [NaN, 5e-324, -0][i] ?? (rnd() - 0.5) * 1e300)],
  ];

  it.each(inputs)('%s: np.load reads back dtype, shape and values; np.save of it is byte-identical', (descr, values) => {
    const bytes = encodeNpy(values, W, H);
    const p = join(dir, `enc${descr.slice(1)}.npy`);
    writeFileSync(p, bytes);
    const out = join(dir, `load-${descr.slice(1)}`);
    mkdirSync(out, { recursive: true });
    const info = JSON.parse(peer('load', p, out)) as { dtype: string; shape: number[] };
    expect(info).toMatchObject({ dtype: descr, shape: [H, W] });
    sameValues(f64(join(out, 'values.f64')), Float64Array.from(values));
    expect(Buffer.compare(Buffer.from(readFileSync(join(out, 'resaved.npy'))), Buffer.from(bytes))).toBe(0);
    expect(parseNpyHeader(bytes, 'a').dataOffset % 64).toBe(0);
  });

  it.each(['u2_le_c', 'i2_le_c', 'f4_le_c', 'f8_le_c', 'tall', 'one'])('re-encoding numpy’s own %s reproduces its bytes exactly', (name) => {
    const original = fileOf(name);
    const r = decodeNpy(original, name, {}, LIMITS);
    const again = encodeNpy(r.values, r.width, r.height);
    expect(Buffer.compare(Buffer.from(again), Buffer.from(original))).toBe(0);
  });

  it('refuses a size that does not match the samples', () => {
    expect(() => encodeNpy(new Float32Array(6), 4, 2)).toThrow(InputRangeError);
    expect(() => encodeNpy(new Float32Array(6), 4, 2)).toThrow('6 samples for 4×2; expected 8');
    expect(() => encodeNpy(new Float32Array(0), 0, 0)).toThrow('size 0×0');
  });
});

describe('refusals name the value', () => {
  it.each([
    ['oned', 'shape (12,) is 1-D'],
    ['threed', 'shape (2, 3, 4) is 3-D'],
    ['u1', `descr "|u1" is refused: 8-bit`],
    ['i4', 'descr "<i4" is refused: signed 32-bit integers have no defined height mapping'],
    ['c8', 'descr "<c8" is refused: complex'],
    ['obj', 'descr "|O" is refused: an object array holds pickled Python objects'],
    ['structured', 'descr is a list of fields (a structured dtype)'],
    ['empty', 'shape (0, 4) is empty'],
  ])('%s: %s', (name, message) => {
    const e = decodeFails(fileOf(name));
    expect(e).toBeInstanceOf(FormatError);
    expect(e.message).toContain(message);
  });

  it('truncation at each cut point: prefix, header, payload; and bytes after the array', () => {
    const full = fileOf('f4_le_c');
    const off = parseNpyHeader(full, 'a').dataOffset;
    expect(decodeFails(full.subarray(0, 5)).message).toContain('file is 5 bytes, shorter than the 10-byte');
    expect(decodeFails(full.subarray(0, 40)).message).toMatch(/truncated header: declared \d+ bytes after byte 10, the file has 30/);
    expect(decodeFails(full.subarray(0, off)).message).toContain(`needs ${7 * 11 * 4} bytes after the ${off}-byte header, the file has 0`);
    expect(decodeFails(full.subarray(0, full.length - 1)).message).toContain(`the file has ${7 * 11 * 4 - 1}`);
    const longer = new Uint8Array(full.length + 3);
    longer.set(full);
    expect(decodeFails(longer).message).toContain('3 bytes follow the 308-byte array');
  });

  /** A hand-made v1.0 file with the given header text (padded as the spec asks) and payload. */
  function handMade(header: string, payload = new Uint8Array(0), version = 1): Uint8Array {
    const prefix = version === 1 ? 10 : 12;
    let text = header;
    text += ' '.repeat(63 - ((prefix + text.length) % 64)) + '\n';
    const enc = new TextEncoder().encode(text);
    const out = new Uint8Array(prefix + enc.length + payload.length);
    out.set([0x93, 0x4e, 0x55, 0x4d, 0x50, 0x59, version, 0]);
    const dv = new DataView(out.buffer);
    if (version === 1) dv.setUint16(8, enc.length, true);
    else dv.setUint32(8, enc.length, true);
    out.set(enc, prefix);
    out.set(payload, prefix + enc.length);
    return out;
  }

  it('a hand-made header in the documented form decodes (and a UTF-8 v3 header is read)', () => {
    const r = decodeNpy(
      handMade(`{"descr": ">u2", "fortran_order": True, "shape": (2, 3)}`, new Uint8Array([0, 1, 0, 2, 0, 3, 0, 4, 0, 5, 0, 6])),
      'a',
      {},
      LIMITS,
    );
    // Fortran order: a[:, 0] = 1, 2; a[:, 1] = 3, 4; a[:, 2] = 5, 6.
    expect(Array.from(r.values)).toEqual([1, 3, 5, 2, 4, 6]);
    const v3 = handMade(`{'descr': '<i2', 'fortran_order': False, 'shape': (1, 1), }`, new Uint8Array([0xff, 0xff]), 3);
    expect(Array.from(decodeNpy(v3, 'a', {}, LIMITS).values)).toEqual([-1]);
  });

  it.each([
    [`{'descr': '<f4', 'fortran_order': False, 'shape': (2, 2), 'extra': 1, }`, 'is not a string, True/False or a tuple'],
    [`{'descr': '<f4', 'fortran_order': False, 'shape': (2, 2), 'x': 'y', }`, 'header keys are {descr, fortran_order, shape, x}'],
    [`{'descr': '<f4', 'fortran_order': False, }`, 'header keys are {descr, fortran_order}'],
    [`{'descr': '<f4', 'descr': '<f4', 'fortran_order': False, 'shape': (2, 2), }`, 'repeats the key "descr"'],
    [`{'descr': '<f4', 'fortran_order': 0, 'shape': (2, 2), }`, 'is not a string, True/False or a tuple'],
    [`{'descr': '<f4', 'fortran_order': False, 'shape': (4), }`, 'is an integer, not a tuple'],
    [`{'descr': '<f4', 'fortran_order': False, 'shape': (2, -2), }`, 'not a non-negative integer'],
    [`{'descr': '<f4', 'fortran_order': False, 'shape': (2 2), }`, 'expected "," or ")"'],
    [`{'descr': '<f4', 'fortran_order': False, 'shape': (2, 2), } __import__('os')`, 'text after the closing brace'],
    [`{'descr': '=f4', 'fortran_order': False, 'shape': (2, 2), }`, 'byte order "=" is not explicit'],
    [`{'descr': '<f4', 'fortran_order': False, 'shape': (99999999999999999999, 2), }`, 'shape entry 99999999999999999999 that overflows'],
  ])('header %s is refused (%s)', (header, message) => {
    const e = decodeFails(handMade(header, new Uint8Array(16)));
    expect(e).toBeInstanceOf(FormatError);
    expect(e.message).toContain(message);
  });

  it('a shape over the pixel limit is refused before allocating; a product past 2^53 too', () => {
    const big = handMade(`{'descr': '<f8', 'fortran_order': False, 'shape': (100000, 100000), }`);
    const e = decodeFails(big);
    expect(e).toBeInstanceOf(LimitError);
    expect(e.message).toContain('shape (100000, 100000) = 10000000000 samples exceeds the limit of 67108864');
    const huge = handMade(`{'descr': '<f8', 'fortran_order': False, 'shape': (9007199254740991, 9007199254740991), }`);
    expect(decodeFails(huge)).toBeInstanceOf(LimitError);
    // Regression fixture `side-limit-of-a-strip`: within the sample limit, a side over every heightfield's 2^20.
    const strip = handMade(`{'descr': '<f4', 'fortran_order': False, 'shape': (1, 2000000), }`);
    const s = decodeFails(strip);
    expect(s).toBeInstanceOf(LimitError);
    expect(s.message).toContain('2000000x1 has a side over the limit of 1048576');
  });

  it('a header over the 64 KiB bound and a bad version are refused with the numbers', () => {
    const b = new Uint8Array(12 + 70000);
    b.set([0x93, 0x4e, 0x55, 0x4d, 0x50, 0x59, 2, 0]);
    new DataView(b.buffer).setUint32(8, 70000, true);
    expect(decodeFails(b).message).toContain('header length 70000 bytes exceeds the 65536-byte bound');
    const v4 = fileOf('one').slice();
    v4[6] = 4;
    expect(decodeFails(v4).message).toContain('format version 4.0 is not read');
    const notNpy = fileOf('one').slice();
    notNpy[1] = 0x41;
    expect(decodeFails(notNpy).message).toContain('no "\\x93NUMPY" magic');
  });

  it('a selection is refused: an .npy has no channel, level or slice', () => {
    expect(decodeFails(fileOf('one'), LIMITS, { channel: 'R' }).message).toContain('no channel, mip level or slice');
  });
});

describe('work of the worst path (counted, not timed)', () => {
  it('4096² float32 big-endian Fortran order decodes without allocating per sample (garbage collections counted)', () => {
    const n = 4096;
    const header = `{'descr': '>f4', 'fortran_order': True, 'shape': (${n}, ${n}), }`;
    const text = header + ' '.repeat(63 - ((10 + header.length) % 64)) + '\n';
    const b = new Uint8Array(10 + text.length + n * n * 4);
    b.set([0x93, 0x4e, 0x55, 0x4d, 0x50, 0x59, 1, 0]);
    new DataView(b.buffer).setUint16(8, text.length, true);
    b.set(new TextEncoder().encode(text), 10);
    const dv = new DataView(b.buffer, 10 + text.length);
    dv.setFloat32(4 * (5 * n + 3), 42.5, false); // column 5, row 3 in Fortran order
    // A decoder that allocated an object per sample (16.7 M of them) would run hundreds of young-generation
    // collections (a typed array per sample: ~850 here); the bulk paths run one or two, for the output buffers.
    const gc = new GCProfiler();
    gc.start();
    const r = decodeNpy(b, 'big', {}, { pixelLimit: n * n });
    const collections = gc.stop().statistics.length;
    expect(r.values[3 * n + 5]).toBe(42.5);
    expect(collections).toBeLessThanOrEqual(8);
  });
});
