/**
 * Conventions are asked for, not guessed: a file without sidecar or georeferencing is compared only when its extent,
 * row direction and (for integer samples) encoding are given, or --assume-defaults says the defaults are meant; every
 * output says where each side's conventions came from.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { codeHeightfield, domainGrid, floatHeightfield, writeHeightfieldFile } from '../src/index.js';
import { withRowDirection } from '../src/core/heightfield.js';
import { resolveInputConventions } from '../src/io/input-conventions.js';
import { cli, tempDir, testRandom } from './helpers.js';

const d = tempDir('hb-conv-');
const n = 64;
const rnd = testRandom(11);
const heights = Float32Array.from({ length: n * n }, (_, i) => 40 * Math.sin(i / 37) + 10 * rnd());
const grid = domainGrid(n);
const ref = join(d, 'ref.r32');
writeHeightfieldFile(ref, floatHeightfield(grid, heights));
// The same heights north-up (row 0 at ymax), headerless — as numpy's `a[::-1].tofile()` writes them.
const northUp = withRowDirection(floatHeightfield(grid, heights), 'row0-at-ymax');
const bare = join(d, 'north-up.r32');
writeFileSync(bare, Buffer.from((northUp.kind === 'float' ? northUp.height_px : new Float32Array()).buffer));

describe('a headerless file in compare', () => {
  it('headerless-r32-compared-on-defaults: refused with exit 2, naming what is missing and the flags', async () => {
    const r = await cli('compare', bare, ref, '--json');
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/north-up\.r32: has no sidecar and does not carry its extent \(--extent/);
    expect(r.err).toMatch(/its row direction \(--row-direction/);
    expect(r.err).toMatch(/--assume-defaults/);
    expect(r.out).toBe('');
  });
  it('with its conventions given it compares exactly, reordering rows, and says where each came from', async () => {
    // The extent agrees with the reference's sidecar (given for both sides); the row direction is the bare side's alone.
    const r = await cli('compare', bare, ref, '--extent', '-1024,-1024,2048', '--generated-row-direction', 'row0-at-ymax', '--json');
    expect(r.err).toBe('');
    expect(r.code).toBe(0);
    const j = JSON.parse(r.out);
    expect(j.floatEqualPercent).toBe(100);
    expect(j.inputs.generated).toMatchObject({ extent: 'flag', rowDirection: 'flag', encoding: 'file' });
    expect(j.inputs.reference).toMatchObject({ extent: 'sidecar', rowDirection: 'sidecar', encoding: 'sidecar' });
  });
  it('--assume-defaults takes the stated defaults, says so on stderr, and the wrong row order shows', async () => {
    const r = await cli('compare', bare, ref, '--assume-defaults', '--json');
    expect(r.code).toBe(0);
    expect(r.err).toMatch(/generated .*north-up\.r32: no sidecar; took extent -1024,-1024,2048,2048: heightbench's default/);
    const j = JSON.parse(r.out);
    expect(j.inputs.generated).toMatchObject({ extent: 'default', rowDirection: 'default' });
    expect(j.floatEqualPercent).toBeLessThan(50);
  });
  it('flags describe the inputs without sidecar; with every input carrying one they must agree with it', async () => {
    const other = join(d, 'other.r32');
    writeHeightfieldFile(other, floatHeightfield(grid, heights));
    const r = await cli('compare', other, ref, '--extent', '0,0,100');
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/--extent 0,0,100,100 contradicts the sidecar's -1024,-1024,2048,2048/);
    // A shared flag applies to both sides: beside the reference's sidecar it is refused, naming both values and the
    // per-side flags.
    const shared = await cli('compare', bare, ref, '--extent', '0,0,100', '--row-direction', 'row0-at-ymax');
    expect(shared.code).toBe(2);
    expect(shared.err).toMatch(
      /ref\.r32: --extent 0,0,100,100 contradicts the sidecar's -1024,-1024,2048,2048 \(xmin,ymin,sizeX,sizeY\) — --extent was given for both sides; --generated-extent or --reference-extent describes one side alone/,
    );
    // The headerless side's own flags: a wrong extent then shows as a grid mismatch, not a pass.
    const m = await cli('compare', bare, ref, '--generated-extent', '0,0,100', '--generated-row-direction', 'row0-at-ymax');
    expect(m.code).toBe(2);
    expect(m.err).toMatch(/xmin: 0 vs -1024/);
    // A side's own flag and the shared one must not disagree.
    const both = await cli('compare', bare, ref, '--extent', '0,0,100', '--generated-extent', '0,0,200');
    expect(both.code).toBe(2);
    expect(both.err).toMatch(/--extent 0,0,100,100 and --generated-extent 0,0,200,200 disagree for the generated side/);
  });
  it('integer samples need a range or --encoding metres', async () => {
    const q = Uint16Array.from({ length: n * n }, (_, i) => i % 65536);
    const r16 = join(d, 'bare.r16');
    writeFileSync(r16, Buffer.from(q.buffer));
    const withSidecar = join(d, 'codes.r16');
    writeHeightfieldFile(withSidecar, codeHeightfield(grid, q, { min: -500, max: 500 }));
    const r = await cli('compare', r16, withSidecar, '--extent', '-1024,-1024,2048', '--row-direction', 'row0-at-ymin');
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/what its integer samples mean \(--range MIN,MAX for UNORM16 codes, or --encoding metres/);
    expect(r.err).toMatch(
      /for both sides, or --generated-extent, --generated-row-direction, --generated-range, --generated-encoding for the generated side alone/,
    );
    const ok = await cli('compare', r16, withSidecar, '--extent', '-1024,-1024,2048', '--row-direction', 'row0-at-ymin', '--range', '-500,500', '--json');
    expect(ok.code).toBe(0);
    expect(JSON.parse(ok.out).exactPercent).toBe(100);
  });
  it('info does not require conventions but lists where each came from', async () => {
    const r = await cli('info', bare, '--json');
    expect(r.code).toBe(0);
    const j = JSON.parse(r.out);
    expect(j.conventions).toMatchObject({ extent: 'default', rowDirection: 'default', encoding: 'file' });
  });
});

describe('resolveInputConventions', () => {
  it('a container default row order yields to a flag; a file-carried one must agree', () => {
    const cap = { rowDirection: { value: 'row0-at-ymax' as const, origin: 'container' as const, why: 'capture' } };
    const r = resolveInputConventions('c.dds', 4, 4, 'float', cap, {
      rowDirection: 'row0-at-ymin',
      extent: { xmin: 0, ymin: 0, sizeX: 1, sizeY: 1 },
      requireConventions: true,
    });
    expect(r.grid.rowDirection).toBe('row0-at-ymin');
    expect(r.sources.rowDirection).toBe('flag');
    const geo = { rowDirection: { value: 'row0-at-ymax' as const, origin: 'file' as const, why: 'GeoTIFF' } };
    expect(() => resolveInputConventions('g.tif', 4, 4, 'float', geo, { rowDirection: 'row0-at-ymin' })).toThrow(
      /contradicts the file's row0-at-ymax \(GeoTIFF\)/,
    );
  });
  it('UNORM16 samples the format declares still need their range in a comparison', () => {
    const dds = {
      encoding: { kind: 'unorm16' as const, why: 'R16_UNORM' },
      rowDirection: { value: 'row0-at-ymax' as const, origin: 'container' as const, why: 'capture' },
    };
    expect(() =>
      resolveInputConventions('c.dds', 4, 4, 'integer', dds, { extent: { xmin: 0, ymin: 0, sizeX: 1, sizeY: 1 }, requireConventions: true }),
    ).toThrow(/the height range of its UNORM16 codes \(--range MIN,MAX\)/);
    const r = resolveInputConventions('c.dds', 4, 4, 'integer', dds, {
      extent: { xmin: 0, ymin: 0, sizeX: 1, sizeY: 1 },
      range: { min: -500, max: 500 },
      requireConventions: true,
    });
    expect(r.encoding).toEqual({ kind: 'unorm16', range: { min: -500, max: 500 } });
    expect(r.sources).toMatchObject({ extent: 'flag', rowDirection: 'container', encoding: 'flag' });
  });
});

describe('a flag beside a sidecar must agree with it, for every container', () => {
  it('encoding-flag-beside-a-sidecar: --encoding that contradicts a sidecar (own or outside container) is refused, not dropped', async () => {
    const codes = Uint16Array.from(heights, (h) => Math.round(((h + 500) / 1000) * 65535));
    const r16 = join(d, 'codes.r16');
    const npy = join(d, 'codes.npy');
    writeHeightfieldFile(r16, codeHeightfield(grid, codes));
    expect((await cli('convert', r16, npy)).code).toBe(0);
    for (const f of [r16, npy]) {
      const r = await cli('info', f, '--encoding', 'metres');
      expect(r.code).toBe(2);
      expect(r.err).toContain(`${f}: --encoding metres contradicts the sidecar, whose samples are UNORM16 codes`);
      expect((await cli('info', f, '--encoding', 'unorm16')).code).toBe(0);
    }
    const f32npy = join(d, 'heights.npy');
    expect((await cli('convert', ref, f32npy)).code).toBe(0);
    // Given for both sides, it is refused at the first side it contradicts (the reference is read first).
    const r = await cli('compare', f32npy, ref, '--encoding', 'unorm16');
    expect(r.code).toBe(2);
    expect(r.err).toContain('--encoding unorm16 contradicts the sidecar, whose samples are float32 heights in metres');
    const own = await cli('compare', f32npy, ref, '--generated-encoding', 'unorm16');
    expect(own.code).toBe(2);
    expect(own.err).toContain('heights.npy: --generated-encoding unorm16 contradicts the sidecar, whose samples are float32 heights in metres');
  });
  it("outside-sidecar-checks-match-own: an outside file's sidecar is held to the same flag checks (--size, --extent, --row-direction)", async () => {
    const tif = join(d, 'heights.tif');
    expect((await cli('convert', ref, tif)).code).toBe(0);
    const size = await cli('info', tif, '--size', '32x32');
    expect(size.code).toBe(2);
    expect(size.err).toContain("--size 32x32 contradicts the sidecar's 64x64");
    // heightbench writes a TIFF north-up (its sidecar says so): the other row direction contradicts it.
    const rows = await cli('info', tif, '--row-direction', 'row0-at-ymin');
    expect(rows.code).toBe(2);
    expect(rows.err).toContain("--row-direction row0-at-ymin contradicts the sidecar's row0-at-ymax");
  });
});

describe('defaults-laundered-through-convert', () => {
  it('a bare file converted on defaults keeps them as defaults: compare refuses the output until they are stated or --assume-defaults', async () => {
    const out = join(d, 'converted.r32');
    const c = await cli('convert', bare, out);
    expect(c.code).toBe(0);
    expect(c.err).toMatch(/^heightbench: input .*north-up\.r32: no sidecar; took extent -1024,-1024,2048,2048: heightbench's default/);
    expect(JSON.parse(readFileSync(`${out}.json`, 'utf8')).notes.conventionsTakenAsDefaults).toEqual(['extent', 'rowDirection']);
    const refused = await cli('compare', out, ref, '--json');
    expect(refused.code).toBe(2);
    expect(refused.err).toContain("converted.r32.json: records that its extent, row direction were heightbench's default");
    // The defaults (row0-at-ymin) were wrong for this north-up file: stated, the flip shows; taken, it is said.
    const taken = await cli('compare', out, ref, '--assume-defaults', '--json');
    expect(taken.code).toBe(0);
    const j = JSON.parse(taken.out);
    expect(j.inputs.generated).toMatchObject({ extent: 'default', rowDirection: 'default', encoding: 'sidecar' });
    expect(j.floatEqualPercent).toBeLessThan(100);
    const stated = await cli('compare', out, ref, '--extent', '-1024,-1024,2048', '--row-direction', 'row0-at-ymin', '--json');
    expect(stated.code).toBe(0);
    expect(JSON.parse(stated.out).inputs.generated).toMatchObject({ extent: 'flag', rowDirection: 'flag' });
    // Stated at conversion, the output carries no such note and compares exactly.
    const right = join(d, 'converted-stated.r32');
    expect((await cli('convert', bare, right, '--extent', '-1024,-1024,2048', '--row-direction', 'row0-at-ymax')).err).toBe('');
    expect(JSON.parse(readFileSync(`${right}.json`, 'utf8')).notes).toBeUndefined();
    const exact = await cli('compare', right, ref, '--json');
    expect(exact.code).toBe(0);
    expect(JSON.parse(exact.out).floatEqualPercent).toBe(100);
  });
});
