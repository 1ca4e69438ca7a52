/**
 * Issue 30, class 3 — writes never follow links they did not create. Every output is a temporary file in the
 * destination folder renamed over the name (src/io/atomic.ts), so a symbolic link planted at a destination is
 * replaced, never written through; a shared file (--shared-plotly) that is a link is refused; report folders are
 * staged and swapped in (src/io/report-folder.ts); and `--config DIR` roots the assets it implies under DIR.
 */
import { cpSync, existsSync, lstatSync, mkdirSync, readFileSync, readdirSync, readlinkSync, symlinkSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { codeHeightfield } from '../src/core/heightfield.js';
import { writeFileAtomic } from '../src/io/atomic.js';
import { writeHeightfieldFile } from '../src/io/heightfield-file.js';
import { cli, tempDir } from './helpers.js';

const repo = resolve(import.meta.dirname, '..');

function pair(dir: string): { gen: string; ref: string } {
  const n = 32;
  const grid = { xmin: 0, ymin: 0, sizeX: 320, sizeY: 320, columns: n, rows: n, convention: 'texel-centre', rowDirection: 'row0-at-ymin' } as const;
  const a = new Uint16Array(n * n).map((_, k) => 20000 + (k % 31));
  mkdirSync(dir, { recursive: true });
  writeHeightfieldFile(join(dir, 'gen.r16'), codeHeightfield(grid, a));
  writeHeightfieldFile(
    join(dir, 'ref.r16'),
    codeHeightfield(
      grid,
      a.map((v, k) => (k % 7 ? v : v + 1)),
    ),
  );
  return { gen: join(dir, 'gen.r16'), ref: join(dir, 'ref.r16') };
}

describe('writes never follow links', () => {
  it('atomic-write-symlink: writing over a planted symlink replaces the link; its target keeps its bytes', () => {
    const d = tempDir('hb-link-');
    writeFileSync(join(d, 'victim'), 'precious');
    symlinkSync(join(d, 'victim'), join(d, 'out.json'));
    writeFileAtomic(join(d, 'out.json'), 'new');
    expect(readFileSync(join(d, 'victim'), 'utf8')).toBe('precious');
    expect(lstatSync(join(d, 'out.json')).isSymbolicLink()).toBe(false);
    expect(readFileSync(join(d, 'out.json'), 'utf8')).toBe('new');
  });

  it('report-plotly-symlink: a plotly.min.js link planted in a report folder is replaced, its target untouched', async () => {
    const d = tempDir('hb-link-rep-');
    const { gen, ref } = pair(join(d, 'in'));
    mkdirSync(join(d, 'report'));
    writeFileSync(join(d, 'victim.txt'), 'precious');
    symlinkSync(join(d, 'victim.txt'), join(d, 'report', 'plotly.min.js'));
    const r = await cli('compare', gen, ref, '--report', join(d, 'report'));
    expect(r.code, r.err).toBe(0);
    expect(readFileSync(join(d, 'victim.txt'), 'utf8')).toBe('precious');
    expect(lstatSync(join(d, 'report', 'plotly.min.js')).isSymbolicLink()).toBe(false);
    expect(readFileSync(join(d, 'report', 'plotly.min.js')).length).toBeGreaterThan(1e6);
  });

  it('shared-plotly-dangling-link: a dangling --shared-plotly link is refused (exit 2) and its target is not created', async () => {
    const d = tempDir('hb-link-shared-');
    const { gen, ref } = pair(join(d, 'in'));
    mkdirSync(join(d, 'elsewhere'));
    symlinkSync(join(d, 'elsewhere', 'created.js'), join(d, 'plotly.min.js'));
    for (const cmd of [['compare', gen, ref]]) {
      const r = await cli(...cmd, '--report', join(d, 'report'), '--shared-plotly', join(d, 'plotly.min.js'));
      expect(r.code).toBe(2);
      expect(r.err).toContain('is a symbolic link');
    }
    expect(readdirSync(join(d, 'elsewhere'))).toEqual([]);
    expect(existsSync(join(d, 'report'))).toBe(false);
    // A link to an existing file is refused the same way (never written through, never half-trusted).
    writeFileSync(join(d, 'elsewhere', 'real.js'), 'x');
    symlinkSync(join(d, 'elsewhere', 'real.js'), join(d, 'p2.js'));
    const r = await cli('compare', gen, ref, '--report', join(d, 'report'), '--shared-plotly', join(d, 'p2.js'));
    expect(r.code).toBe(2);
    expect(readFileSync(join(d, 'elsewhere', 'real.js'), 'utf8')).toBe('x');
  });

  it('report-folder-symlink: a --report that is itself a link is refused, the linked folder untouched', async () => {
    const d = tempDir('hb-link-dir-');
    const { gen, ref } = pair(join(d, 'in'));
    mkdirSync(join(d, 'elsewhere'));
    writeFileSync(join(d, 'elsewhere', 'keep'), 'k');
    symlinkSync(join(d, 'elsewhere'), join(d, 'report'));
    const r = await cli('compare', gen, ref, '--report', join(d, 'report'));
    expect(r.code).toBe(2);
    expect(r.err).toContain('is a symbolic link');
    expect(readdirSync(join(d, 'elsewhere'))).toEqual(['keep']);
    expect(readlinkSync(join(d, 'report'))).toBe(join(d, 'elsewhere'));
  });

  it('report-keeps-foreign-files: entries a report does not write (hashes.json, notes) survive the swap', async () => {
    const d = tempDir('hb-link-keep-');
    const { gen, ref } = pair(join(d, 'in'));
    mkdirSync(join(d, 'report'));
    writeFileSync(join(d, 'report', 'hashes.json'), '{"a":1}');
    const r = await cli('compare', gen, ref, '--report', join(d, 'report'));
    expect(r.code, r.err).toBe(0);
    expect(readFileSync(join(d, 'report', 'hashes.json'), 'utf8')).toBe('{"a":1}');
    expect(readdirSync(d).sort()).toEqual(['in', 'report']); // no stage, lock or previous folder left
  });
});

describe('--config roots what it implies', () => {
  it('config-roots-assets: run --config DIR builds and reads assets under DIR, never the project root', async () => {
    const d = tempDir('hb-config-');
    const root = join(d, 'root');
    mkdirSync(join(root, 'config'), { recursive: true });
    cpSync(join(repo, 'config'), join(root, 'config'), { recursive: true });
    const conf = join(d, 'mine');
    cpSync(join(repo, 'config'), join(conf, 'config'), { recursive: true });
    const saved = process.env.HEIGHTBENCH_ROOT;
    process.env.HEIGHTBENCH_ROOT = root;
    try {
      const r = await cli('--config', conf, 'run', 'teaching-512', '--size', '16', '--out', join(d, 'out'), '--quiet');
      expect(r.code, r.err).toBe(0);
    } finally {
      if (saved === undefined) delete process.env.HEIGHTBENCH_ROOT;
      else process.env.HEIGHTBENCH_ROOT = saved;
    }
    expect(existsSync(join(conf, 'assets', 'index.json'))).toBe(true);
    expect(readdirSync(root)).toEqual(['config']);
  }, 120_000);
});
