/**
 * src/runs/bless.ts as a library call: the references are regenerated into a staged folder (here by a regeneration
 * that copies a real run folder the CLI wrote), compared with the current ones, and swapped in and recorded only when
 * asked; stale staged folders of an unfinished bless are removed and named; nothing staged is left behind.
 */
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { blessReason, blessReferences, type BlessRegeneration } from '../src/runs/bless.js';
import { parseParams } from '../src/pipeline/params.js';
import { loadRequest } from '../src/plan/request.js';
import { PRODUCER_VERSION } from '../src/version.js';
import { cli, tempDir } from './helpers.js';

describe('runs/bless.ts', () => {
  const base = tempDir('hb-bless-lib-');
  const made = join(base, 'made');
  beforeAll(async () => {
    expect((await cli('run', 'teaching-512', '--size', '64', '--precision', 'f64', '--quiet', '--out', made)).code).toBe(0);
  }, 120_000);

  const settings = (root: string, yes: boolean, asked: BlessRegeneration[], cleaned: string[][]) => {
    const params = parseParams({ dumpWindow: 64, runs: { t64: { request: 'teaching-512', size: 64 } } });
    const run = params.runs.get('t64')!;
    return {
      root,
      name: 't64',
      gpu: false,
      yes,
      reason: yes ? 'moved' : undefined,
      params,
      run,
      request: loadRequest(run.request, run.size),
      regenerate: (g: BlessRegeneration) => {
        asked.push(g);
        cpSync(made, g.dir, { recursive: true });
        return Promise.resolve();
      },
      onCleaned: (removed: readonly string[]) => void cleaned.push([...removed]),
    };
  };

  it('compares, replaces only with yes, records the blessing, and leaves nothing staged', async () => {
    const root = join(base, 'project');
    mkdirSync(join(root, 'references', 'bless'), { recursive: true });
    const asked: BlessRegeneration[] = [];
    const cleaned: string[][] = [];

    // No current references, not asked to replace: nothing is written.
    const dry = await blessReferences(settings(root, false, asked, cleaned));
    expect(dry).toEqual({ reference: 't64', comparison: null, replaced: false, dvc: null });
    expect(asked[0]).toEqual({ backend: 'cpu', dir: asked[0].dir, request: 'teaching-512', size: 64, precision: 'f64', dumpWindow: 64 });
    expect(asked[0].dir.startsWith(join(root, 'references', '.bless-t64.stage-'))).toBe(true);
    expect(readdirSync(join(root, 'references')).sort()).toEqual(['bless']);

    // With yes: swapped in and recorded (no .venv/bin/dvc under this root: no dvc commit).
    const yes = await blessReferences(settings(root, true, asked, cleaned));
    expect(yes.replaced).toBe(true);
    expect(yes.dvc).toBeNull();
    expect(readdirSync(join(root, 'references')).sort()).toEqual(['bless', 't64']);
    expect(readFileSync(join(root, 'references', 't64', 'final.r16'))).toEqual(readFileSync(join(made, 'final.r16')));
    expect(JSON.parse(readFileSync(join(root, 'references', 'bless', 't64.json'), 'utf8'))).toEqual({
      request: 'teaching-512',
      size: 64,
      precision: 'f64',
      dumpWindow: 64,
      producer: PRODUCER_VERSION,
      reason: 'moved',
    });

    // A stale staged folder of a killed bless is removed and named; the new references equal the current ones.
    const stale = join(root, 'references', '.bless-t64.stage-1-deadbeef');
    mkdirSync(stale);
    writeFileSync(join(stale, 'final.r16'), 'partial');
    const again = await blessReferences(settings(root, false, asked, cleaned));
    expect(cleaned[2]).toEqual([stale]);
    expect(again.comparison?.final.differing).toBe(0);
    expect(again.comparison?.final.pixels).toBe(64 * 64);
    expect(existsSync(join(root, 'reports', 'bless-t64', 'index.html'))).toBe(true);
    expect(readdirSync(join(root, 'references')).sort()).toEqual(['bless', 't64']);
  }, 120_000);

  it('refuses --yes without a reason, naming the command', () => {
    expect(() => blessReason('t64', { yes: true, gpu: true, reason: '  ' })).toThrow(
      'bless t64 --gpu: --yes needs --reason "<why the heights moved>" (the bless record keeps it), got "  "',
    );
    expect(blessReason('t64', { yes: true, reason: ' why ' })).toBe('why');
  });
});
