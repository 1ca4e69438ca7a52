/**
 * Settings that contradict a sidecar are refused naming both values; every sidecar field is checked
 * (file, metresPerCode, endian per container, encoding kind per container).
 */
import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { codeHeightfield, domainGrid, floatHeightfield, readHeightfieldFile, writeHeightfieldFile } from '../src/index.js';
import { cli, tempDir, testRandom } from './helpers.js';

const d = tempDir('hb-contra-');
const rnd = testRandom(5);
const q = Uint16Array.from({ length: 32 * 32 }, () => Math.floor(rnd() * 65536));
const grid = { ...domainGrid(32), xmin: -100, ymin: -50, sizeX: 200, sizeY: 200 };
const r16 = join(d, 'a.r16');
writeHeightfieldFile(r16, codeHeightfield(grid, q, { min: -2, max: 43.3 }));
const png = join(d, 'a.png');
writeHeightfieldFile(png, codeHeightfield(grid, q, { min: -2, max: 43.3 }));

function editSidecar(file: string, edit: (o: Record<string, any>) => void): string {
  const copy = join(d, `e${Math.floor(rnd() * 1e9)}-${file.split('/').pop()}`);
  writeFileSync(copy, readFileSync(file));
  const o = JSON.parse(readFileSync(`${file}.json`, 'utf8'));
  o.file = copy.split('/').pop();
  edit(o);
  writeFileSync(`${copy}.json`, JSON.stringify(o));
  return copy;
}

describe('settings beside a sidecar', () => {
  it('info --range: refused when it contradicts, accepted when it agrees', async () => {
    const r = await cli('info', r16, '--range', '0,1000');
    expect(r.code).toBe(2);
    expect(r.err).toBe(`heightbench: ${r16}: --range 0,1000 contradicts the sidecar's -2,43.3\n`);
    expect((await cli('info', r16, '--range', '-2,43.3')).code).toBe(0);
  });
  it('compare --range: refused naming both', async () => {
    const r = await cli('compare', r16, png, '--range', '0,1');
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/--range 0,1 contradicts the sidecar's -2,43.3/);
  });
  it('convert --extent and --row-direction: refused naming both, no output written', async () => {
    const out = join(d, 'out.r16');
    const a = await cli('convert', r16, out, '--extent', '0,0,100');
    expect(a.code).toBe(2);
    expect(a.err).toMatch(/--extent 0,0,100,100 contradicts the sidecar's -100,-50,200,200 \(xmin,ymin,sizeX,sizeY\)/);
    const b = await cli('convert', png, out, '--row-direction', 'row0-at-ymax');
    expect(b.code).toBe(2);
    expect(b.err).toMatch(/--row-direction row0-at-ymax contradicts the sidecar's row0-at-ymin/);
    expect(existsSync(out)).toBe(false);
    // Agreeing values pass, and the output keeps the sidecar's extent.
    expect((await cli('convert', r16, out, '--extent', '-100,-50,200', '--row-direction', 'row0-at-ymin')).code).toBe(0);
    expect(readHeightfieldFile(out).field.grid).toMatchObject({ xmin: -100, ymin: -50, sizeX: 200 });
  });
  it('a pair renamed one file at a time is refused by the sidecar\u2019s file field', async () => {
    const moved = join(d, 'moved.r16');
    writeHeightfieldFile(join(d, 'orig.r16'), codeHeightfield(grid, q));
    renameSync(join(d, 'orig.r16'), moved);
    renameSync(join(d, 'orig.r16.json'), `${moved}.json`);
    const r = await cli('info', moved);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/the sidecar describes file "orig.r16", not "moved.r16"/);
  });
  it('metresPerCode that contradicts the range is refused with both values', async () => {
    const f = editSidecar(r16, (o) => (o.encoding.metresPerCode = 0.001));
    const r = await cli('info', f);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(
      new RegExp(`encoding.metresPerCode: 0.001 contradicts its range -2,43.3, which gives ${(45.3 / 65535).toString().replace('.', '\\.')}`),
    );
  });
  it('endian and encoding kind must fit the container', async () => {
    expect(
      (
        await cli(
          'info',
          editSidecar(png, (o) => (o.endian = 'le')),
        )
      ).err,
    ).toMatch(/sidecar says endian le, a PNG is big-endian/);
    const r32 = join(d, 'f.r32');
    writeHeightfieldFile(r32, floatHeightfield(domainGrid(8), new Float32Array(64).fill(1)));
    const bad = editSidecar(r32, (o) => (o.encoding = { kind: 'unorm16', range: { min: 0, max: 1 }, metresPerCode: 1 / 65535 }));
    const r = await cli('info', bad);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/sidecar says unorm16 samples, an R32 holds float32/);
  });
  it('a range whose span overflows is refused (on the command line and in a sidecar)', async () => {
    const r = await cli('info', join(d, 'none.r16'), '--range', '-1e308,1e308');
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/the span MAX − MIN overflows a double, got "-1e308,1e308"/);
    const f = editSidecar(r16, (o) => (o.encoding = { kind: 'unorm16', range: { min: -1e308, max: 1e308 }, metresPerCode: 1 }));
    expect((await cli('info', f)).err).toMatch(/span max − min overflows \(min -1e\+308, max 1e\+308\)/);
  });
});
