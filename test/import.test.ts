/**
 * `heightbench import`: captures without heightbench sidecars become a reference run folder that `check` (with stage
 * attribution) reads unchanged; the sidecars record the capture's hash and source; stages are added, replaced only
 * with --replace; a float final is refused (a CPU encoding would not prove codewise equivalence).
 */
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
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
