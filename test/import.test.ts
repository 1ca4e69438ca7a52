/**
 * `heightbench import`: captures without heightbench sidecars become a reference run folder that `check` (with stage
 * attribution) reads unchanged; the sidecars record the capture's hash and source; stages are added, replaced only
 * with --replace; a float final is refused (a CPU encoding would not prove codewise equivalence).
 */
import { createHash } from 'node:crypto';
import { existsSync, lstatSync, mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { readHeightfieldFile } from '../src/index.js';
import { withRowDirection } from '../src/core/heightfield.js';
import { cli, tempDir } from './helpers.js';

const d = tempDir('hb-import-');
const gen = join(d, 'gen');
const extent = '-1024,-1024,2048';

/** A stage of the generated run written as a bare north-up file, as a numpy user's `a[::-1].tofile()` would. */
function bareNorthUp(stage: string, file: string): string {
  const f = withRowDirection(readHeightfieldFile(join(gen, stage)).field, 'row0-at-ymax');
  const bytes = f.kind === 'codes' ? Buffer.from(f.code_px.buffer) : Buffer.from(f.height_px.buffer);
  const p = join(d, file);
  writeFileSync(p, bytes);
  return p;
}

beforeAll(async () => {
  const r = await cli('run', 'teaching-512', '--size', '128', '--out', gen);
  expect(r.code).toBe(0);
}, 60_000);

describe('heightbench import', () => {
  it('bare captures become a run folder that check reads: every code equal, every stage equal', async () => {
    const fin = bareNorthUp('final.r16', 'capture-final.r16');
    const base = bareNorthUp('base.r32', 'capture-base.r32');
    const ref = join(d, 'ref');
    const common = ['--extent', extent, '--row-direction', 'row0-at-ymax', '--out', ref, '--request', 'teaching-512', '--source', 'numpy test writer'];
    const a = await cli('import', fin, '--stage', 'final', '--range', '-500,500', ...common);
    expect(a.err).toBe('');
    expect(a.code).toBe(0);
    const b = await cli('import', base, '--stage', 'base', ...common);
    expect(b.code).toBe(0);
    const sc = JSON.parse(readFileSync(join(ref, 'final.r16.json'), 'utf8'));
    expect(sc.stage).toBe('final');
    expect(sc.request).toBe('teaching-512');
    expect(sc.notes.import.sha256).toBe(createHash('sha256').update(readFileSync(fin)).digest('hex'));
    expect(sc.notes.import.source).toBe('numpy test writer');
    expect(sc.notes.import.conventions).toMatchObject({ extent: 'flag', rowDirection: 'flag', encoding: 'flag' });
    const imports = JSON.parse(readFileSync(join(ref, 'imports.json'), 'utf8'));
    expect(imports.imports.map((r: { stage: string }) => r.stage)).toEqual(['final', 'base']);
    // Stored in heightbench's row order: the same codes as the run's own final, pixel for pixel.
    const ours = readHeightfieldFile(join(gen, 'final.r16')).field;
    const theirs = readHeightfieldFile(join(ref, 'final.r16')).field;
    expect(theirs.grid.rowDirection).toBe('row0-at-ymin');
    expect(sc.notes.import.description.join(' ')).toMatch(/rows reordered exactly from the capture's row0-at-ymax/);
    expect(theirs.kind === 'codes' && ours.kind === 'codes' && Buffer.compare(Buffer.from(theirs.code_px.buffer), Buffer.from(ours.code_px.buffer))).toBe(0);
    const rep = join(d, 'rep');
    const c = await cli('check', gen, ref, '--attribution', '--report', rep);
    expect(c.code).toBe(0);
    const m = JSON.parse(readFileSync(join(rep, 'metrics.json'), 'utf8'));
    expect(m.exactPercent).toBe(100);
    expect(existsSync(join(rep, 'index.html'))).toBe(true);
    // check-report-names-imported-conventions: the report (the page, not only summary.md) says where the imported
    // reference's conventions came from.
    const line = `The reference final map was imported from capture-final.r16 (r16, SHA-256 ${sc.notes.import.sha256.slice(0, 12)}…, source numpy test writer); its conventions: extent from flag, row direction from flag, encoding from flag.`;
    expect(readFileSync(join(rep, 'summary.md'), 'utf8')).toContain(line);
    expect(readFileSync(join(rep, 'index.html'), 'utf8')).toContain(line);
  }, 60_000);
  it('a stage already there is replaced only with --replace; the folder is untouched by a refusal', async () => {
    const ref = join(d, 'ref2');
    const base = bareNorthUp('base.r32', 'b2.r32');
    const args = ['--stage', 'base', '--extent', extent, '--row-direction', 'row0-at-ymax', '--out', ref];
    expect((await cli('import', base, ...args)).code).toBe(0);
    const before = readFileSync(join(ref, 'base.r32.json'));
    const again = await cli('import', base, ...args);
    expect(again.code).toBe(2);
    expect(again.err).toMatch(/already holds stage base \(base\.r32\); give --replace/);
    expect(readFileSync(join(ref, 'base.r32.json'))).toEqual(before);
    expect((await cli('import', base, ...args, '--replace')).code).toBe(0);
  });
  it('a float final is refused with the reason; a capture without conventions is refused naming them', async () => {
    const base = bareNorthUp('base.r32', 'b3.r32');
    const f = await cli('import', base, '--stage', 'final', '--extent', extent, '--row-direction', 'row0-at-ymax', '--out', join(d, 'ref3'));
    expect(f.code).toBe(2);
    expect(f.err).toMatch(/stage final holds R16 codes read back from the render target; this file holds float heights — import it as pre-encode/);
    const g = await cli('import', base, '--stage', 'base', '--out', join(d, 'ref3'));
    expect(g.code).toBe(2);
    expect(g.err).toMatch(/has no sidecar and does not carry its extent/);
    expect(existsSync(join(d, 'ref3'))).toBe(false);
    const s = await cli('import', base, '--stage', 'bedrock', '--out', join(d, 'ref3'));
    expect(s.code).toBe(2);
    expect(s.err).toMatch(/stage "bedrock" is not one of the pipeline's stages/);
  });
  it('a manifest maps many captures to stages in one call, paths relative to the manifest', async () => {
    bareNorthUp('final.r16', 'm-final.r16');
    bareNorthUp('after-support.r32', 'm-support.r32');
    const manifest = join(d, 'captures.yaml');
    writeFileSync(
      manifest,
      [
        'out: ref-m',
        'source: frame debugger',
        'captures:',
        '  - { file: m-final.r16, stage: final, extent: "-1024,-1024,2048", rowDirection: row0-at-ymax, range: "-500,500" }',
        '  - { file: m-support.r32, stage: after-support, extent: "-1024,-1024,2048", rowDirection: row0-at-ymax }',
        '',
      ].join('\n'),
    );
    const r = await cli('import', '--manifest', manifest);
    expect(r.err).toBe('');
    expect(r.code).toBe(0);
    const c = await cli('check', gen, join(d, 'ref-m'));
    expect(c.code).toBe(0);
    const sc = JSON.parse(readFileSync(join(d, 'ref-m', 'after-support.r32.json'), 'utf8'));
    expect(sc.notes.import.source).toBe('frame debugger');
    writeFileSync(manifest, 'captures:\n  - { file: m-final.r16, stage: final, colour: red }\n');
    const bad = await cli('import', '--manifest', manifest, '--out', join(d, 'ref-m2'));
    expect(bad.code).toBe(2);
    expect(bad.err).toMatch(/unknown key "colour"/);
  });
});

describe('import refuses what would write outside --out or swap a folder it must not (exit 2, one line)', () => {
  it("manifest-out-escapes-its-folder: a manifest's out: is refused unless it stays inside the manifest's folder; --out is honoured", async () => {
    const m = join(d, 'mf');
    mkdirSync(m);
    bareNorthUp('base.r32', join('mf', 'cap.r32'));
    const escape = join(d, 'escaped-run');
    for (const out of ['../escaped-run', escape, '.', 'sub/../..']) {
      const manifest = join(m, 'esc.yaml');
      writeFileSync(manifest, `out: ${JSON.stringify(out)}\ncaptures:\n  - { file: cap.r32, stage: base, extent: "${extent}", rowDirection: row0-at-ymax }\n`);
      const r = await cli('import', '--manifest', manifest);
      expect(r.code).toBe(2);
      expect(r.err.trim().split('\n')).toHaveLength(1);
      expect(r.err).toContain(`out ${JSON.stringify(out)} is not a folder inside the manifest's folder`);
      expect(existsSync(escape)).toBe(false);
    }
    // The user names a folder elsewhere on the command line: allowed, and only there.
    const r = await cli('import', '--manifest', join(m, 'esc.yaml'), '--out', escape);
    expect(r.code).toBe(0);
    expect(readdirSync(escape).sort()).toEqual(['base.r32', 'base.r32.json', 'imports.json']);
    // A capture outside the manifest's folder is the user's to name: read, and its hash recorded.
    writeFileSync(
      join(m, 'outside.yaml'),
      `out: run\ncaptures:\n  - { file: ${JSON.stringify(join(m, 'cap.r32'))}, stage: base, extent: "${extent}", rowDirection: row0-at-ymax }\n`,
    );
    expect((await cli('import', '--manifest', join(m, 'outside.yaml'))).code).toBe(0);
    expect(existsSync(join(m, 'run', 'base.r32'))).toBe(true);
  });
  it('manifest-with-more-captures-than-stages: 10^5 captures are refused before any is examined', async () => {
    const manifest = join(d, 'many.json');
    // Inside the manifest's 1 MiB bound: 10^5 one-key captures.
    writeFileSync(manifest, JSON.stringify({ captures: Array.from({ length: 100_000 }, () => ({ f: 1 })) }));
    const r = await cli('import', '--manifest', manifest, '--out', join(d, 'many-run'));
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/100000 captures, more than the 64 stages a pipeline may declare/);
  });
  it('show-of-a-deeply-nested-value: a manifest (or any JSON document) nested 10^5 deep is refused with exit 2, not a stack overflow', async () => {
    const manifest = join(d, 'deep.json');
    writeFileSync(manifest, `{"captures":${'['.repeat(100_000)}${']'.repeat(100_000)}}`);
    const r = await cli('import', '--manifest', manifest, '--out', join(d, 'deep-run'));
    expect(r.code).toBe(2);
    expect(r.err).toMatch(
      /captures\[0\]: expected an object, found an array too deeply nested to show|JSON nested deeper than 64 levels; refused before parsing/,
    );
    const yaml = join(d, 'aliases.yaml');
    let text = 'a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n';
    for (let i = 1; i < 30; i++)
      text += `a${i}: &a${i} [${Array(10)
        .fill(`*a${i - 1}`)
        .join(', ')}]\n`;
    writeFileSync(yaml, `${text}captures:\n  - { file: x.npy, stage: final }\n`);
    const y = await cli('import', '--manifest', yaml, '--out', join(d, 'alias-run'));
    expect(y.code).toBe(2);
    expect(y.err).toMatch(/not valid YAML \(Excessive alias count/);
  });
  it('out-is-a-symlink / out-holds-the-current-folder / out-not-a-run-folder / out-named-like-a-swap-folder: refused, nothing moved', async () => {
    const base = bareNorthUp('base.r32', 'sym-cap.r32');
    const flags = ['--stage', 'base', '--extent', extent, '--row-direction', 'row0-at-ymax'];
    const real = join(d, 'real-run');
    mkdirSync(real);
    const link = join(d, 'link-run');
    symlinkSync(real, link);
    const s = await cli('import', base, ...flags, '--out', link);
    expect(s.code).toBe(2);
    expect(s.err).toContain(`--out ${link}: is a symbolic link (to ${real})`);
    expect(lstatSync(link).isSymbolicLink()).toBe(true);
    expect(readdirSync(real)).toEqual([]);
    // The current folder, or a folder holding it, is never swapped.
    for (const out of [process.cwd(), dirname(process.cwd())]) {
      const c = await cli('import', base, ...flags, '--out', out);
      expect(c.code).toBe(2);
      expect(c.err).toContain('is the current folder or holds it');
    }
    // A folder of other files is not a run folder: the swap would replace it whole.
    const docs = join(d, 'documents');
    mkdirSync(docs);
    writeFileSync(join(docs, 'letter.txt'), 'keep me');
    const n = await cli('import', base, ...flags, '--out', docs);
    expect(n.code).toBe(2);
    expect(n.err).toMatch(/holding 1 entries but no stage file or imports\.json, so not a run folder/);
    expect(readdirSync(docs)).toEqual(['letter.txt']);
    const p = await cli('import', base, ...flags, '--out', join(d, '.ref.previous'));
    expect(p.code).toBe(2);
    expect(p.err).toMatch(/named like a staged or kept folder of a swap/);
  });
});

describe('import-over-a-corrupt-imports-json', () => {
  it('an earlier imports.json whose records are not objects naming a stage is refused with exit 2 (was a TypeError, exit 1); the run is untouched', async () => {
    const run = join(d, 'ref-corrupt');
    const base = bareNorthUp('base.r32', 'corrupt-cap.r32');
    const flags = ['--extent', extent, '--row-direction', 'row0-at-ymax', '--out', run];
    expect((await cli('import', base, '--stage', 'base', ...flags)).code).toBe(0);
    for (const [text, message] of [
      ['{"imports":[null]}', /imports\.json\.imports\[0\]: expected an object, found null/],
      ['{"imports":[{"stage":{"a":1}}]}', /imports\.json\.imports\[0\]\.stage: expected a string, found \{"a":1\}/],
      ['{"imports":5}', /imports\.json\.imports: expected an array, found 5/],
    ] as const) {
      writeFileSync(join(run, 'imports.json'), text);
      const r = await cli('import', base, '--stage', 'after-support', ...flags);
      expect(r.code).toBe(2);
      expect(r.err).toMatch(message);
      expect(readdirSync(run).sort()).toEqual(['base.r32', 'base.r32.json', 'imports.json']);
      expect(readdirSync(d).filter((e) => e.startsWith('.ref-corrupt.'))).toEqual([]);
    }
  });
});

describe('mkdir-loops-on-procfs', () => {
  // Node's mkdirSync({ recursive: true }) never returns where a file system answers ENOENT for a child of a folder
  // that exists (procfs); the staged folder of --out /proc/… hung import for good.
  it('an --out on a file system that refuses new folders is refused with exit 2, promptly', async () => {
    const base = bareNorthUp('base.r32', 'proc-cap.r32');
    const r = await cli('import', base, '--stage', 'base', '--extent', extent, '--row-direction', 'row0-at-ymax', '--out', '/proc/heightbench-run');
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/^heightbench: \/proc\/\.heightbench-run\.stage-[^\n]*: no such file or folder \(ENOENT, mkdir\)\n$/);
  }, 10_000);
});
