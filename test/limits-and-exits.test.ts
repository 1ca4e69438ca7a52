/**
 * Limits checked before work, special files refused, and exit codes that tell the truth.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { codeHeightfield, domainGrid, writeHeightfieldFile } from '../src/index.js';
import { FormatError, InputRangeError, InputTypeError, isInputError } from '../src/errors.js';
import { withFaultsAsync } from '../src/io/fs-ops.js';
import { loadWorldFile } from '../src/world/world.js';
import { runCli } from '../src/cli/main.js';
import { cli, tempDir } from './helpers.js';

const d = tempDir('hb-limits-');
const map = join(d, 'map.r16');
writeHeightfieldFile(map, codeHeightfield(domainGrid(64), new Uint16Array(64 * 64).fill(30000)));

async function refused(args: string[], message: RegExp): Promise<void> {
  const r = await cli(...args);
  expect(r.code, `${args.join(' ')}: ${r.err}`).toBe(2);
  expect(r.err).toMatch(message);
  expect(r.err.split('\n').length, 'one line').toBe(2);
}

describe('limits checked before work', () => {
  it('compare --radial-step: a step giving too many rings, a negative step and zero are refused', async () => {
    await refused(['compare', map, map, '--radial-step', '1e-6'], /--radial-step 0.000001: 1448154688 rings over a 2048×2048 m grid, over the limit of 100000/);
    await refused(['compare', map, map, '--radial-step', '-1'], /expected a number > 0, got "-1"/);
    await refused(['compare', map, map, '--radial-step', '0'], /expected a number > 0, got "0"/);
    expect((await cli('compare', map, map, '--radial-step', '0.02', '--json')).code).toBe(0);
  });
  it('convert --resample 40000 is refused before allocating', async () => {
    await refused(
      ['convert', map, join(d, 'big.r16'), '--resample', '40000'],
      /convert output \(--resample\/--grid\): 40000x40000 = 1600000000 samples, over the limit of 268435456/,
    );
    expect(readdirSync(d).filter((f) => f.startsWith('big') || f.startsWith('.big'))).toEqual([]);
  });
  it('bell --size over its limit, and a naive path too long, are refused', async () => {
    await refused(['bell', join(d, 'b.r32'), '--size', '16384'], /--size 16384: over the bell limit of 8192 samples per axis/);
    await refused(
      ['bell', join(d, 'b.r32'), '--size', '4096', '--nb', '1000', '--path', 'naive'],
      /16777216000 generator × sample products, over the limit of 4294967296 \(use --path fast\)/,
    );
  });
  it('a world zone item asking for a million stamps is refused when the world is read', () => {
    const world = JSON.parse(readFileSync(join(import.meta.dirname, '..', 'config', 'worlds', 'tundra.json'), 'utf8'));
    world.stamps.zoneItems[0].countRange = [0, 1000000];
    const p = join(d, 'world.json');
    writeFileSync(p, JSON.stringify(world));
    expect(() => loadWorldFile(p)).toThrow(/stamps.zoneItems\[0\].countRange: expected integers 0 ≤ a ≤ b ≤ 1000, found \[0,1000000\]/);
  });
  it('special files are refused by type before reading: a link to /dev/zero, a FIFO, a folder as sidecar', async () => {
    const zero = join(d, 'zero.r16');
    symlinkSync('/dev/zero', zero);
    await refused(['info', zero], /zero.r16: is a character device, expected a regular file/);
    const fifo = join(d, 'pipe.r16');
    execFileSync('mkfifo', [fifo]);
    await refused(['info', fifo], /pipe.r16: is a FIFO \(named pipe\), expected a regular file/);
    const odd = join(d, 'odd.r16');
    writeFileSync(odd, new Uint8Array(8));
    mkdirSync(`${odd}.json`);
    await refused(['info', odd], /odd.r16.json: is a folder, expected a regular file/);
  });
  it('a run whose memory estimate exceeds the budget is refused before work, writing nothing', async () => {
    const out = join(d, 'run-mem');
    process.env.HEIGHTBENCH_MAX_MEMORY_MB = '8';
    try {
      await refused(
        ['run', 'teaching-512', '--out', out],
        /run teaching-512 at 512² \(f32, 12 stages kept\) needs about 17 MiB, over the memory budget of 8 MiB \(HEIGHTBENCH_MAX_MEMORY_MB\)/,
      );
    } finally {
      delete process.env.HEIGHTBENCH_MAX_MEMORY_MB;
    }
    expect(readdirSync(d).filter((f) => f.includes('run-mem'))).toEqual([]);
  });
});

describe('exit codes', () => {
  it('file-system failures are exit 2 with the path and the cause on one line', async () => {
    const file = join(d, 'plain-file');
    writeFileSync(file, 'x');
    await refused(
      ['convert', map, join(file, 'out.r16')],
      /plain-file: (a part of the path is a file, not a folder \(ENOTDIR|already exists \(EEXIST), mkdir\)/,
    );
    mkdirSync(join(d, 'taken.r16.json'));
    await refused(['convert', map, join(d, 'taken.r16')], /taken.r16.json: is a folder, expected a file \(EISDIR, rename\)/);
    const r = await withFaultsAsync({ at: 1, mode: 'error', code: 'EACCES' }, () => cli('convert', map, join(d, 'denied.png')));
    expect(r.result?.code).toBe(2);
    expect(r.result?.err).toMatch(/denied.png.pending-[0-9a-f]{16}: permission denied \(EACCES, write\)\n$/);
  });
  it('a TypeError from inside heightbench is a bug: exit 1 with the stack, not disguised as bad input', async () => {
    let err = '';
    const code = await runCli(['info', map], {
      out: () => {
        (undefined as unknown as { length: number }).length; // a real TypeError, as a bug would raise
      },
      err: (t) => void (err += t),
    });
    expect(code).toBe(1);
    expect(err).toMatch(/^heightbench: internal error: TypeError: Cannot read properties of undefined \(reading 'length'\)\n\s+at /);
  });
  it('only deliberate validation errors count as input errors', () => {
    expect(isInputError(new TypeError('x'))).toBe(false);
    expect(isInputError(new RangeError('Invalid array length'))).toBe(false);
    expect(isInputError(new InputTypeError('x'))).toBe(true);
    expect(isInputError(new InputRangeError('x'))).toBe(true);
    expect(new InputRangeError('x')).toBeInstanceOf(RangeError);
    expect(isInputError(new FormatError('x'))).toBe(true);
    expect(isInputError(Object.assign(new Error('ENOSPC'), { code: 'ENOSPC', syscall: 'write', path: '/x' }))).toBe(true);
  });
  it('a request whose domain is too small is refused naming domain.size (once a TypeError deep in the layout)', async () => {
    const req = JSON.parse(readFileSync(join(import.meta.dirname, '..', 'config', 'requests', 'teaching-512.json'), 'utf8'));
    req.domain.size = 0.5;
    const p = join(d, 'tiny.json');
    writeFileSync(p, JSON.stringify(req));
    await refused(
      ['run', p, '--stages', 'layout', '--out', join(d, 'tiny-out')],
      /regions: request domain.size 0.5 m holds only 1 region site\(s\) 55 m apart; at least 3 are needed/,
    );
  });
});

describe('argument parsing: empty paths and non-decimal integers', () => {
  it('empty paths and non-decimal integers are refused', async () => {
    await refused(['convert', map, ''], /expected a path, got an empty string ""/);
    await refused(['run', 'teaching-512', '--stages', 'layout', '--out', ''], /expected a path, got an empty string ""/);
    await refused(['bell', join(d, 'b.r32'), '--size', '0x200'], /expected a positive decimal integer, got "0x200"/);
    await refused(['run', 'teaching-512', '--size', '0x200', '--out', join(d, 'x')], /expected a positive decimal integer, got "0x200"/);
    await refused(['info', map, '--size', '0x200'], /expected sizes in \[1, 1048576\], got 0x200|expected WxH/);
    await refused(['compare', map, map, '--max-code', '0x10'], /expected a finite decimal number, got "0x10"/);
  });
});
