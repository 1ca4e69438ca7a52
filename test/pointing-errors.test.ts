/**
 * Errors that point the way: the wrong command for a folder or a file, a folder of outside captures given to check,
 * an unknown option with the nearest known one, the north-up/south-up aliases (shown in --help, acting as their
 * canonical names); and check --all's one exit status over a list of comparisons with one summary table.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { cli, tempDir } from './helpers.js';

const d = tempDir('hb-point-');
const py = join(process.cwd(), '.venv', 'bin', 'python');
const gen = join(d, 'gen');
const flags = ['--extent', '-1024,-1024,2048', '--range', '-500,500'];
// The capture is the generated side of compare; the reference (a run folder's file) carries its own sidecar.
const side = ['--generated-extent', '-1024,-1024,2048', '--generated-range', '-500,500'];

beforeAll(async () => {
  expect((await cli('run', 'teaching-512', '--size', '32', '--out', gen, '--stages', 'final')).code).toBe(0);
  mkdirSync(join(d, 'caps'));
  // numpy writes the same codes north-up (row 0 = y max) and south-up (heightbench's own order).
  const r = spawnSync(
    py,
    ['-c', `import numpy as np; a=np.fromfile('gen/final.r16','<u2').reshape(32,32); np.save('caps/north.npy', np.flipud(a)); np.save('caps/south.npy', a)`],
    {
      cwd: d,
      encoding: 'utf8',
    },
  );
  expect(r.stderr).toBe('');
});

describe('errors that point the way', () => {
  it('compare of two folders names check; check of two files names compare; check of a folder of captures names import', async () => {
    const c = await cli('compare', gen, gen);
    expect(c.code).toBe(2);
    expect(c.err).toContain(`compare: ${gen} is a folder; compare reads heightfield files — for two run folders use \`heightbench check GEN_DIR REF_DIR\``);
    const f = join(gen, 'final.r16');
    const k = await cli('check', f, f);
    expect(k.code).toBe(2);
    expect(k.err).toContain('check compares run folders — for two heightfield files use `heightbench compare A B`');
    const n = await cli('check', gen, join(d, 'caps'));
    expect(n.code).toBe(2);
    expect(n.err).toMatch(
      /caps holds no final\.r16 but captures \(north\.npy, south\.npy\); check reads run folders — make one first with `heightbench import --manifest FILE`/,
    );
  });

  it("an unknown option names the nearest known one, beyond commander's three edits", async () => {
    const r = await cli('compare', 'a.npy', 'b.npy', '--row-dir', 'north-up');
    expect(r.code).toBe(2);
    expect(r.err).toContain("unknown option '--row-dir'\n(Did you mean --row-direction?)");
    const s = await cli('check', gen, gen, '--attrib');
    expect(s.err).toContain('(Did you mean --attribution?)');
  });

  it('north-up and south-up are shown in --help and read as row0-at-ymax and row0-at-ymin', async () => {
    const help = await cli('compare', '--help');
    expect(help.out.replace(/\s+/g, ' ')).toContain('aliases: north-up = row0-at-ymax, south-up = row0-at-ymin');
    const f = join(gen, 'final.r16');
    const north = await cli('compare', join(d, 'caps', 'north.npy'), f, ...side, '--generated-row-direction', 'north-up', '--json');
    expect(north.code).toBe(0);
    expect(JSON.parse(north.out).exactPercent).toBe(100);
    const south = await cli('compare', join(d, 'caps', 'south.npy'), f, ...side, '--generated-row-direction', 'south-up', '--json');
    expect(JSON.parse(south.out).exactPercent).toBe(100);
    // The alias names the same order as its canonical name: north-up read as south-up no longer matches.
    const wrong = await cli('compare', join(d, 'caps', 'north.npy'), f, ...side, '--generated-row-direction', 'south-up', '--json');
    expect(JSON.parse(wrong.out).exactPercent).toBeLessThan(100);
    const bad = await cli('compare', join(d, 'caps', 'north.npy'), f, ...side, '--generated-row-direction', 'up');
    expect(bad.code).toBe(2);
    expect(bad.err).toContain('expected row0-at-ymin, row0-at-ymax, north-up (= row0-at-ymax) or south-up (= row0-at-ymin), got "up"');
  });
});

describe('check --list: many comparisons, one table, one exit status', () => {
  it('passes, fails a gate with --strict (3), and reports a comparison that cannot run (2) in its row', async () => {
    const list = join(d, 'pairs.yaml');
    const manifest = join(d, 'caps.yaml');
    writeFileSync(
      manifest,
      `runs:\n  - out: ref-north\n    captures: [{ file: caps/north.npy, stage: final, rowDirection: north-up, extent: "-1024,-1024,2048", range: "-500,500" }]\n  - out: ref-south\n    captures: [{ file: caps/south.npy, stage: final, rowDirection: south-up, extent: "-1024,-1024,2048", range: "-500,500" }]\n`,
    );
    const imp = await cli('import', '--manifest', manifest);
    expect(imp.err).toBe('');
    expect(imp.out.match(/^imported /gm)?.length).toBe(2);
    const pair = (name: string, ref: string, gates: string) => `  - { name: ${name}, generated: gen, reference: ${ref}, gates: ${gates} }\n`;
    writeFileSync(list, `comparisons:\n${pair('north', 'ref-north', '{ min-exact: 100 }')}${pair('south', 'ref-south', '{ max-code: 0 }')}`);
    const ok = await cli('check', '--list', list, '--strict');
    expect(ok.err).toBe('');
    expect(ok.code).toBe(0);
    const summary = JSON.parse(readFileSync(join(d, 'reports', 'check', 'summary.json'), 'utf8'));
    expect(summary.comparisons.map((c: { name: string; verdict: string }) => `${c.name}:${c.verdict}`)).toEqual(['north:pass', 'south:pass']);
    for (const f of ['index.html', 'summary.md']) expect(readFileSync(join(d, 'reports', 'check', f), 'utf8')).toContain('south');
    expect(Object.keys(JSON.parse(readFileSync(join(d, 'reports', 'north', 'hashes.json'), 'utf8')).generated)).toContain('final.r16');
    // A reference whose rows are the other way round fails its gate: exit 3 with --strict, 0 without.
    writeFileSync(
      list,
      `comparisons:\n${pair('north', 'ref-north', '{ min-exact: 100 }')}${pair('flipped', 'ref-north', '{ min-exact: 100 }').replace('gen,', 'gen-flipped,')}`,
    );
    mkdirSync(join(d, 'gen-flipped'));
    const flip = await cli(
      'import',
      join(d, 'caps', 'north.npy'),
      '--stage',
      'final',
      '--out',
      join(d, 'gen-flipped'),
      ...flags,
      '--row-direction',
      'south-up',
    );
    expect(flip.code).toBe(0);
    const fail = await cli('check', '--list', list, '--strict');
    expect(fail.code).toBe(3);
    expect(fail.out).toMatch(/\| flipped \| gen-flipped \| ref-north \| .*\*\*FAIL\*\*/);
    expect((await cli('check', '--list', list)).code).toBe(0);
    // A comparison whose folder is missing: its row says why, the others still run, and the one status is 2.
    writeFileSync(list, `comparisons:\n${pair('north', 'ref-north', '{ min-exact: 100 }')}${pair('gone', 'no-such-folder', '{}')}`);
    const gone = await cli('check', '--list', list, '--strict');
    expect(gone.code).toBe(2);
    expect(gone.out).toMatch(/\| gone \| .*\*\*error\*\*: .*no-such-folder/);
    expect(gone.out).toMatch(/\| north \| .* pass \|/);
  });
});
