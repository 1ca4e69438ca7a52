/**
 * A flag given acts or is refused (exit 2, naming the flag and what it needs), never silently ignored. Regression
 * fixture `idle-flags`: each case below was accepted with exit 0 and changed nothing — `check --list` with gates
 * passed a comparison the gate would have failed; `compare --generated-range` on a float side still compared in
 * metres; `--level` on an .r16 read the one field there is. Each refusal is paired with the same command without the
 * idle flag, which runs (the check is not broader than the rule).
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { codeHeightfield, domainGrid, floatHeightfield, writeHeightfieldFile } from '../src/index.js';
import { cli, tempDir } from './helpers.js';

const dir = tempDir('hb-flags-');
const f = (name: string) => join(dir, name);

beforeAll(async () => {
  const g = domainGrid(8);
  writeHeightfieldFile(
    f('a.r16'),
    codeHeightfield(
      g,
      Uint16Array.from({ length: 64 }, (_, k) => 1000 + k),
    ),
  );
  writeHeightfieldFile(
    f('b.r16'),
    codeHeightfield(
      g,
      Uint16Array.from({ length: 64 }, (_, k) => 1000 + k + (k % 9 === 0 ? 2 : 0)),
    ),
  );
  writeHeightfieldFile(
    f('a.r32'),
    floatHeightfield(
      g,
      Float32Array.from({ length: 64 }, (_, k) => k * 0.5),
    ),
  );
  writeHeightfieldFile(
    f('b.r32'),
    floatHeightfield(
      g,
      Float32Array.from({ length: 64 }, (_, k) => k * 0.5 + (k % 7 === 0 ? 0.01 : 0)),
    ),
  );
  // Two small run folders that differ (f32 against f64), and a list declaring their comparison.
  for (const [out, precision] of [
    ['ra', 'f32'],
    ['rb', 'f64'],
  ])
    expect((await cli('run', 'tundra-seed2', '--size', '16', '--stages', 'base,final', '--precision', precision, '--quiet', '--out', f(out))).code).toBe(0);
  writeFileSync(f('list.yaml'), 'comparisons:\n  - name: x\n    generated: ra\n    reference: rb\n');
  mkdirSync(f('rc'), { recursive: true });
}, 120_000);

/** [refused command, the flag its message names, the same command without the idle flag]. */
const CASES: [string, string[], string, string[]][] = [
  [
    'a side range on a float side',
    ['compare', f('a.r32'), f('b.r32'), '--generated-range', '-500,500'],
    '--generated-range',
    ['compare', f('a.r32'), f('b.r32'), '--range', '-500,500'],
  ],
  [
    '--straddle-eps without --generated-float',
    ['compare', f('a.r16'), f('b.r16'), '--straddle-eps', '1'],
    '--straddle-eps',
    ['compare', f('a.r16'), f('b.r16')],
  ],
  [
    '--differences-cap without --differences-csv',
    ['compare', f('a.r16'), f('b.r16'), '--differences-cap', '3'],
    '--differences-cap',
    ['compare', f('a.r16'), f('b.r16')],
  ],
  ['--self-contained without --report', ['compare', f('a.r16'), f('b.r16'), '--self-contained'], '--self-contained', ['compare', f('a.r16'), f('b.r16')]],
  ['--title with --json alone', ['compare', f('a.r16'), f('b.r16'), '--json', '--title', 'T'], '--title', ['compare', f('a.r16'), f('b.r16'), '--title', 'T']],
  ['--level on an .r16', ['info', f('a.r16'), '--level', '3'], '--level', ['info', f('a.r16')]],
  ['--channel on an .r16 pair', ['compare', f('a.r16'), f('b.r16'), '--channel', 'G'], '--channel', ['compare', f('a.r16'), f('b.r16')]],
  ['check --list with a gate', ['check', '--list', f('list.yaml'), '--min-exact', '100'], '--min-exact', ['check', '--list', f('list.yaml'), '--strict']],
  ['diagnose of folders with --threshold', ['diagnose', f('ra'), f('rb'), '--threshold', '0.9'], '--threshold', ['diagnose', f('ra'), f('rb'), '--json']],
  [
    'run of plan stages with --executor',
    ['run', 'tundra-seed2', '--size', '16', '--stages', 'layout,regions', '--executor', 'f64', '--quiet', '--out', f('rc')],
    '--executor',
    ['run', 'tundra-seed2', '--size', '16', '--stages', 'layout,regions', '--quiet', '--out', f('rc')],
  ],
  [
    'run --dump-window with final alone',
    ['run', 'tundra-seed2', '--size', '16', '--stages', 'final', '--dump-window', '10', '--quiet', '--out', f('rc')],
    '--dump-window',
    ['run', 'tundra-seed2', '--size', '16', '--stages', 'base,final', '--dump-window', '10', '--quiet', '--out', f('rc')],
  ],
];

describe('a flag given acts or is refused', () => {
  for (const [what, refused, flag, accepted] of CASES) {
    it(
      what,
      async () => {
        const r = await cli(...refused);
        expect(r.code, r.err).toBe(2);
        expect(r.err).toContain(flag);
        expect(r.out).toBe('');
        const ok = await cli(...accepted);
        expect(ok.code, ok.err).toBe(0);
      },
      60_000,
    );
  }

  it('import --manifest with --stage', async () => {
    writeFileSync(f('m.json'), JSON.stringify({ runs: [{ out: 'imported', captures: [{ file: 'a.r32', stage: 'base' }] }] }));
    const r = await cli('import', '--manifest', f('m.json'), '--stage', 'base');
    expect(r.code, r.err).toBe(2);
    expect(r.err).toContain('--stage base');
  });

  it("import --manifest: a flag is every capture's default, and a capture stating another value is refused", async () => {
    const capture = { file: 'a.r32', stage: 'base', range: '0,100' };
    writeFileSync(f('m2.json'), JSON.stringify({ runs: [{ out: 'imported2', captures: [capture] }] }));
    const r = await cli('import', '--manifest', f('m2.json'), '--range', '0,200');
    expect(r.code, r.err).toBe(2);
    expect(r.err).toContain('captures[0].range: "0,100" contradicts --range');
    const same = await cli('import', '--manifest', f('m2.json'), '--range', '0,100');
    expect(same.err).not.toContain('contradicts');
  });
});
