/**
 * The public API is a checked-in report (api/exports.txt: every name each package entry point exports, with its
 * signature, made by scripts/api-report.mjs with the TypeScript compiler API): the report matches the code, so a change
 * to the surface is a visible diff; the package root stays a curated set (≤ 60 values); and the report is live — it
 * renders a signature as written and changes when a signature changes.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempDir } from './helpers.js';

const root = resolve(import.meta.dirname, '..');
const script = join(root, 'scripts', 'api-report.mjs');
const report = (...args: string[]) => spawnSync(process.execPath, [script, ...args], { cwd: root, encoding: 'utf8' });

describe('public API report', () => {
  it('api/exports.txt matches the entry points as they are (regenerate with node scripts/api-report.mjs)', () => {
    const r = report('--check');
    expect(r.status, r.stderr).toBe(0);
  }, 60_000);

  it('the package root holds at most 60 values, with the calls users and notebooks make', () => {
    const text = readFileSync(join(root, 'api', 'exports.txt'), 'utf8');
    const head = /^## \. \(src\/index\.ts\): (\d+) values, (\d+) types$/m.exec(text);
    expect(head).not.toBeNull();
    expect(Number(head![1])).toBeLessThanOrEqual(60);
    const rootPart = text.slice(head!.index, text.indexOf('\n## ', head!.index + 1));
    for (const f of [
      'runPipeline',
      'loadRequest',
      'readHeightfieldFile',
      'readHeightfieldFileAsync',
      'writeHeightfieldFile',
      'writeHeightfieldFileAsync',
      'compareHeightfields',
      'diagnose',
      'encodeUnorm16',
    ])
      expect(rootPart, f).toMatch(new RegExp(`^function ${f}\\(`, 'm'));
    // Executor internals and strays stay out of the root.
    for (const f of ['runContext', 'kernelRefusals', 'EXECUTORS', 'bellHelperReady', 'lerp2', 'plotlyFigure'])
      expect(rootPart).not.toMatch(new RegExp(`^\\w+ ${f}\\b`, 'm'));
    // The teaching names (each formula as a function, wherever its code lives) sit behind heightbench/notebook, so
    // moving a formula between files does not change the root's contract.
    const nb = /^## \.\/notebook \(src\/api\/notebook\.ts\)/m.exec(text);
    expect(nb).not.toBeNull();
    const notebookPart = text.slice(nb!.index, text.indexOf('\n## ', nb!.index + 1));
    for (const f of ['barycentric', 'SMOOTHING_TAPS', 'mipWeights', 'sourceHeight', 'minstdRand0', 'accumulateBells']) {
      expect(rootPart, f).not.toMatch(new RegExp(`^\\w+ ${f}\\b`, 'm'));
      expect(notebookPart, f).toMatch(new RegExp(`^\\w+ ${f}\\b`, 'm'));
    }
  });

  it('renders what a module exports as written, and a changed signature changes the report', () => {
    const d = tempDir('hb-api-');
    const src = join(d, 'entry.ts');
    const out = join(d, 'report.txt');
    writeFileSync(
      src,
      'export interface Box { w: number; label?: string }\nexport function area(b: Box, scale = 1): number { return b.w * scale; }\nexport const UNIT: Box = { w: 1 };\n',
    );
    expect(report('--entry', `.=${src}`, '--out', out).status).toBe(0);
    const a = readFileSync(out, 'utf8');
    expect(a).toContain('## . (');
    expect(a).toContain(': 2 values, 1 types');
    expect(a).toMatch(/^function area\(b: Box, scale\?: number\) => number$/m);
    expect(a).toMatch(/^interface Box\n {2}w: number\n {2}label\?: string \| undefined$/m);
    expect(a).toMatch(/^const UNIT: Box$/m);
    writeFileSync(src, readFileSync(src, 'utf8').replace('scale = 1', 'scale: bigint'));
    const r = report('--entry', `.=${src}`, '--out', out, '--check');
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(/committed: function area\(b: Box, scale\?: number\) => number\n\s+now: +function area\(b: Box, scale: bigint\) => number/);
  }, 60_000);
});
