/**
 * What a file and its records state is what they hold. An outside file's byte order is the file's. Regression fixture `big-endian-said-little`: `info` of a big-endian .npy
 * (or an "MM" TIFF) printed "little-endian" and `"endian": "le"` (the samples were read right; the statement was
 * hard-coded), and a sidecar whose `endian` contradicted the file was accepted. Files written here by hand (the .npy
 * format's own header) and by numpy's documented byte orders. And a JSON record (a sidecar) naming a key twice in
 * one object is refused: JSON.parse kept the last value silently.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { domainGrid, floatHeightfield } from '../src/index.js';
import { writeAnyHeightfieldFile } from '../src/api/formats.js';
import { cli, tempDir } from './helpers.js';

const dir = tempDir('hb-endian-');

/** A C-order .npy of an h × w float32 array in the given byte order (format version 1.0). */
function npyF32(path: string, h: number, w: number, values: Float32Array, big: boolean): void {
  let header = `{'descr': '${big ? '>' : '<'}f4', 'fortran_order': False, 'shape': (${h}, ${w}), }`;
  header += ' '.repeat(64 - ((10 + header.length + 1) % 64)) + '\n';
  const head = Buffer.alloc(10 + header.length);
  head.write('\x93NUMPY', 0, 'latin1');
  head[6] = 1;
  head.writeUInt16LE(header.length, 8);
  head.write(header, 10, 'latin1');
  const data = Buffer.alloc(4 * values.length);
  values.forEach((v, k) => (big ? data.writeFloatBE(v, 4 * k) : data.writeFloatLE(v, 4 * k)));
  writeFileSync(path, Buffer.concat([head, data]));
}

describe("an outside file's byte order", () => {
  it('info states the byte order the file stores, and reads the same values in both', async () => {
    const v = Float32Array.from({ length: 64 }, (_, k) => k * 1.5 - 20);
    for (const big of [false, true]) {
      const p = join(dir, big ? 'be.npy' : 'le.npy');
      npyF32(p, 8, 8, v, big);
      const r = await cli('info', p, '--json', '--assume-defaults');
      expect(r.code, r.err).toBe(0);
      const doc = JSON.parse(r.out) as { endian: string; minMetres: number; maxMetres: number };
      expect(doc.endian).toBe(big ? 'be' : 'le');
      expect([doc.minMetres, doc.maxMetres]).toEqual([-20, 63 * 1.5 - 20]);
    }
  });

  it("a sidecar whose endian contradicts the file's is refused, naming both", async () => {
    const p = join(dir, 'side.npy');
    await writeAnyHeightfieldFile(p, floatHeightfield(domainGrid(8), new Float32Array(64).fill(3)));
    const sc = JSON.parse(readFileSync(`${p}.json`, 'utf8')) as { endian: string };
    expect(sc.endian).toBe('le');
    expect((await cli('info', p)).code).toBe(0);
    writeFileSync(`${p}.json`, JSON.stringify({ ...sc, endian: 'be' }));
    const r = await cli('info', p);
    expect(r.code).toBe(2);
    expect(r.err).toContain('the sidecar says endian be, the file stores its samples le');
  });
});

describe('a JSON record that says two things', () => {
  it('regression fixture duplicate-sidecar-key: a key named twice in one object is refused, naming it', async () => {
    const { duplicateKey, parseJson } = await import('../src/io/json-check.js');
    expect(duplicateKey('{"a": 1, "b": {"a": 2}, "c": [{"a": 3}, {"a": 4}]}')).toBeNull();
    expect(duplicateKey('{"a": 1, "b": 2, "a" : 3}')).toEqual({ key: 'a', at: 17 });
    expect(duplicateKey('{"a": 1, "\\u0061": 2}')?.key).toBe('a');
    expect(duplicateKey('{"x": "a", "a": 1, "y": ["a", "a"]}')).toBeNull();
    expect(() => parseJson('{"columns": 8, "columns": 16}', 'f.json')).toThrow(/f\.json: key "columns" appears twice in one object/);
    // Whole process: a sidecar naming its grid's columns twice.
    const p = join(dir, 'dup.npy');
    await writeAnyHeightfieldFile(p, floatHeightfield(domainGrid(8), new Float32Array(64).fill(3)));
    const text = readFileSync(`${p}.json`, 'utf8');
    writeFileSync(`${p}.json`, text.replace('"columns": 8', '"columns": 16, "columns": 8'));
    const r = await cli('info', p);
    expect(r.code).toBe(2);
    expect(r.err).toContain('key "columns" appears twice in one object');
  });
});
