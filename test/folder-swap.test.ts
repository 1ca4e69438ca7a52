/**
 * Whole folders replaced safely: references swapped in by bless, and a run's --out folder,
 * with a fault injected at every file-system step (a failing step, and a crash after which nothing more runs).
 * A reader must find the old folder or the new one, complete; the next bless/run cleans what the fault left.
 */
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { blessSwapNames, cleanBlessLeftovers } from '../src/runs/bless.js';
import { folderForReading, makeStage, swapFolderIn } from '../src/io/folder-swap.js';
import { withFaults, withFaultsAsync } from '../src/io/fs-ops.js';
import { readHeightfieldFile } from '../src/index.js';
import { cli, tempDir } from './helpers.js';

const root = tempDir('hb-swap-');

function content(dir: string): string {
  return readdirSync(dir)
    .sort()
    .map((f) => `${f}=${readFileSync(join(dir, f), 'utf8')}`)
    .join(';');
}

function fill(dir: string, tag: string): void {
  mkdirSync(dir, { recursive: true });
  for (const f of ['final.r16', 'final.r16.json', 'manifest.json']) writeFileSync(join(dir, f), `${tag}:${f}`);
}

describe('bless replaces references by a swap that keeps the old folder until the new one is in place', () => {
  const name = 'tundra-r19';
  const OLD = 'final.r16=old:final.r16;final.r16.json=old:final.r16.json;manifest.json=old:manifest.json';
  const NEW = OLD.replaceAll('old:', 'new:');
  for (const before of ['references', 'none'] as const) {
    for (const mode of ['error', 'crash'] as const) {
      it(`${before === 'none' ? 'first bless' : 'over current references'}, ${mode} at every step`, () => {
        const setup = (k: number) => {
          const refs = join(root, `${before}-${mode}-${k}`, 'references');
          mkdirSync(join(refs, 'bless'), { recursive: true });
          const target = join(refs, name);
          if (before === 'references') fill(target, 'old');
          const stage = makeStage(target, blessSwapNames(name));
          fill(stage, 'new');
          return { refs, target, stage };
        };
        const dry = setup(-1);
        const steps = withFaults(null, () => swapFolderIn(dry.stage, dry.target, blessSwapNames(name))).steps;
        expect(content(dry.target)).toBe(NEW);
        expect(steps.length).toBeGreaterThanOrEqual(before === 'none' ? 3 : 5);
        for (let k = 0; k < steps.length; k++) {
          const { refs, target, stage } = setup(k);
          const r = withFaults({ at: k, mode }, () => swapFolderIn(stage, target, blessSwapNames(name)));
          expect(r.fired).toBe(true);
          // What a reader (check, compare) sees: the old folder or the new one, complete — never none, never a mix.
          const view = folderForReading(target);
          if (before === 'none' && !existsSync(view)) expect(existsSync(stage), `step ${k}: the staged folder survives`).toBe(true);
          else expect([OLD, NEW], `step ${k} (${steps[k].kind} ${steps[k].path})`).toContain(content(view));
          // The next bless: restores or drops the kept old folder, removes the stale stage, swaps a fresh one in.
          cleanBlessLeftovers(refs, name);
          const again = makeStage(target, blessSwapNames(name));
          fill(again, 'new');
          swapFolderIn(again, target, blessSwapNames(name));
          expect(content(target)).toBe(NEW);
          expect(readdirSync(refs).sort(), `step ${k}: nothing left behind`).toEqual(['bless', name]);
        }
      });
    }
  }
  it('stale staging folders of an unfinished bless (current and older names) are removed; other runs\u2019 are kept', () => {
    const refs = join(root, 'stale', 'references');
    fill(join(refs, name), 'old');
    fill(join(refs, `.bless-${name}.stage-123-abcd`), 'half');
    fill(join(refs, `.bless-${name}-Ab12Cd`), 'half'); // mkdtemp name of earlier versions
    fill(join(refs, `.bless-${name}-1024.stage-9-ffff`), 'other run');
    fill(join(refs, `.${name}.previous`), 'old');
    const removed = cleanBlessLeftovers(refs, name);
    expect(removed.map((p) => p.slice(refs.length + 1)).sort()).toEqual([`.bless-${name}-Ab12Cd`, `.bless-${name}.stage-123-abcd`]);
    expect(readdirSync(refs).sort()).toEqual([`.bless-${name}-1024.stage-9-ffff`, name]);
    expect(content(join(refs, name))).toBe(OLD);
  });
});

describe('run writes into a staged folder and swaps it in (--out holds one run, complete)', () => {
  const base = join(root, 'runs');
  const old = join(base, 'old-32');
  it('prepares an earlier run of another size', async () => {
    const r = await cli('run', 'teaching-512', '--stages', 'layout,final', '--size', '32', '--out', old);
    expect(r.code, r.err).toBe(0);
  });
  const oldView = () => readdirSync(old).sort().join();

  for (const mode of ['error', 'crash'] as const) {
    it(`a run over it, ${mode} at every step: the folder is the earlier run or the new one, never a mix`, async () => {
      const dryOut = join(base, `dry-${mode}`);
      cpSync(old, dryOut, { recursive: true });
      const dry = await withFaultsAsync(null, () => cli('run', 'teaching-512', '--stages', 'layout', '--out', dryOut));
      expect(dry.result?.code).toBe(0);
      expect(readdirSync(dryOut)).toEqual(['layout.json']); // the earlier run's final.* went with the old folder
      for (let k = 0; k < dry.steps.length; k++) {
        const out = join(base, `${mode}-${k}`, 'run');
        cpSync(old, out, { recursive: true });
        const r = await withFaultsAsync({ at: k, mode }, () => cli('run', 'teaching-512', '--stages', 'layout', '--out', out));
        expect(r.result?.code, `step ${k}`).toBe(2);
        expect(r.result?.err, `step ${k}`).toMatch(/^heightbench: .*\((ENOSPC|EIO), [a-z]+\)\n$/);
        const view = folderForReading(out);
        const names = readdirSync(view).sort().join();
        expect([oldView(), 'layout.json'], `step ${k} (${dry.steps[k].kind})`).toContain(names);
        if (names !== 'layout.json') {
          const f = readHeightfieldFile(join(view, 'final.r16')).field;
          expect(f.grid.columns).toBe(32);
        }
        // The next run cleans up and leaves exactly its own folder.
        expect((await cli('run', 'teaching-512', '--stages', 'layout', '--out', out)).code).toBe(0);
        expect(readdirSync(join(base, `${mode}-${k}`))).toEqual(['run']);
        expect(readdirSync(out)).toEqual(['layout.json']);
      }
    });
  }

  it('refuses an --out folder holding files a run does not write, and an empty --out, before work', async () => {
    const mixed = join(base, 'mixed');
    mkdirSync(mixed, { recursive: true });
    writeFileSync(join(mixed, 'notes.txt'), 'mine');
    const r = await cli('run', 'teaching-512', '--stages', 'layout', '--out', mixed);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/--out .*mixed: holds 1 entry a run does not write \("notes.txt"\); a run replaces its whole folder/);
    expect(readdirSync(mixed)).toEqual(['notes.txt']);
    const e = await cli('run', 'teaching-512', '--stages', 'layout', '--out', '');
    expect(e.code).toBe(2);
    expect(e.err).toMatch(/--out.*empty/);
  });
});
