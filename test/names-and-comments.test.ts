/**
 * Names that say what they hold and comments that stay true: two files of the same base name in different src/ folders
 * mean the same thing (or are listed here with what they share), and src/ comments carry no issue numbers, timings or
 * history (those belong in the git log and docs/speed.md).
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { basename, join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

const root = join(import.meta.dirname, '..');
const src = join(root, 'src');

function files(dir: string, ext: RegExp): string[] {
  const out: string[] = [];
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) out.push(...files(p, ext));
    else if (ext.test(e.name)) out.push(p);
  }
  return out;
}

/** Base names shared on purpose: the same concept seen from each folder. */
const SAME_MEANING: Record<string, string> = {
  'smoothing.ts': 'the smoothing chain, per executor (cpu/, gpu/)',
  'support.ts': 'the support stage, per executor',
  'outer.ts': 'the outer blend, per executor',
  'execute.ts': 'executing a draw list, per executor',
  'context.ts': "an executor's per-run context",
  'assets.ts': 'height assets: loading (assets/) and their GPU upload (gpu/)',
  'run.ts': 'a whole run: the CPU run (pipeline/), the GPU run (gpu/), the run command (cli/)',
  'run-folder.ts': 'the run folder (its declaration in pipelines/, the command side in cli/)',
  'check.ts': 'checking a run folder: the use case (runs/) and its command (cli/)',
  'import.ts': 'importing captures as a run: the use case (runs/) and its command (cli/)',
  'regress.ts': 'the regression review: the use case (runs/) and its command (cli/)',
  'compare.ts': 'comparison: the engine (compare/), its entry point (api/) and its command (cli/)',
  'diagnose.ts': 'diagnosis: the fit (compare/) and its command (cli/)',
  'atlas.ts': 'the ablation atlas (experiments/) and its command (cli/)',
  'terrain.ts': 'the engine heightfield (terrain/) and its entry point (api/)',
  'pipeline.ts': 'a declared pipeline: the bell generator, the terrain stack, and the pipeline entry point (api/)',
  'index.ts': "a folder's or the package's entry",
  'raster.ts': 'triangle rasterisation, per executor (cpu/, gpu/)',
};

/** Every folder of src/ (a new folder is covered as it appears). */
const CLEANED = readdirSync(src, { withFileTypes: true })
  .filter((e) => e.isDirectory())
  .map((e) => e.name);

/** The comments of a TypeScript or WAT source: // and ;; lines and /* … *\/ blocks. */
function comments(text: string): string[] {
  const out: string[] = [];
  for (const m of text.matchAll(/\/\*[\s\S]*?\*\/|(?<![:'"`\\])\/\/.*|;;.*/g)) out.push(m[0]);
  return out;
}

describe('names and comments', () => {
  it('no two src/ files of the same base name mean different things', () => {
    const byName = new Map<string, string[]>();
    for (const f of files(src, /\.ts$/)) {
      const b = basename(f);
      byName.set(b, [...(byName.get(b) ?? []), relative(src, f)]);
    }
    const clashes = [...byName].filter(([b, fs]) => fs.length > 1 && !(b in SAME_MEANING)).map(([, fs]) => fs.join(' ~ '));
    expect(clashes).toEqual([]);
    // The renamed pairs stay apart.
    for (const b of ['regions.ts', 'accumulate.ts', 'summary.ts', 'helper.ts']) expect(byName.get(b)?.length ?? 0, b).toBeLessThanOrEqual(1);
    expect(existsSync(join(src, 'terrain', 'import.ts'))).toBe(false);
  });

  it('the cleaned folders have no issue numbers, timings or history in their comments', () => {
    const bad: string[] = [];
    const rules: [RegExp, string][] = [
      [/\bissues? \d+|#\d{2,}\b/i, 'issue number'],
      [/~\s?\d+(\.\d+)?\s?(ms|s)\b|\b\d+(\.\d+)?\s?(ms|µs)\b/, 'timing'],
      [/\b(previously|formerly|no longer|earlier name|old name|the older)\b/i, 'history'],
    ];
    for (const folder of CLEANED)
      for (const f of files(join(src, folder), /\.(ts|wat)$/))
        for (const c of comments(readFileSync(f, 'utf8')))
          for (const [re, what] of rules) if (re.test(c)) bad.push(`${relative(root, f)}: ${what}: ${c.match(re)![0]}`);
    expect(bad).toEqual([]);
  });

  it('catches what it looks for', () => {
    expect(comments('const a = 1; // see issue 28\n/* ran in ~2.9 s */ const u = "http://x";')).toEqual(['// see issue 28', '/* ran in ~2.9 s */']);
  });
});
