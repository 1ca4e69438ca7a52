/**
 * The suite under full load: the test files that carry the most work per case — the two fuzz suites (thousands of
 * cases), the reader and kernel files that once held a clock, and the run-folder kill tests — run in a child vitest
 * beside one busy-looping process per CPU, and must pass as they do on an idle machine. No test may assert a wall or
 * CPU time (they count cases, collections, bytes read, wait slices instead); this is the check that a busy machine
 * cannot fail a correct tree, and a scan of the test sources for clocks that reach an assertion.
 * Inputs: the test files named below. Outputs: none (a temporary JSON report). Bounded: the hogs stop with the files.
 */
import { spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempDir } from './helpers.js';

const root = join(import.meta.dirname, '..');

/** [R] Files with the most CPU per test and those that once asserted a time (the ones a busy machine would fail). */
const UNDER_LOAD = ['test/fuzz-inputs.test.ts', 'test/format-npy.test.ts', 'test/compare-kernel.test.ts', 'test/hostile-readers.test.ts'];

describe('make test on a machine under full load', () => {
  it('the heaviest files pass beside one CPU hog per core', async () => {
    const hogs = Array.from({ length: availableParallelism() }, () => spawn(process.execPath, ['-e', 'for (;;) {}'], { stdio: 'ignore' }));
    try {
      const out = join(tempDir('hb-load-'), 'vitest.json');
      const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('VITEST') && k !== 'NODE_OPTIONS'));
      const child = spawn(process.execPath, ['node_modules/vitest/vitest.mjs', 'run', '--reporter=json', `--outputFile.json=${out}`, ...UNDER_LOAD], {
        cwd: root,
        env,
        stdio: ['ignore', 'ignore', 'pipe'],
      });
      let err = '';
      child.stderr.on('data', (d: Buffer) => void (err += d.toString()));
      const code = await new Promise<number | null>((r) => child.once('exit', r));
      const j = JSON.parse(readFileSync(out, 'utf8')) as { numPassedTests: number; numFailedTests: number };
      expect(j.numFailedTests, err.slice(-4000)).toBe(0);
      expect(j.numPassedTests).toBeGreaterThan(100);
      expect(code, err.slice(-4000)).toBe(0);
    } finally {
      for (const h of hogs) h.kill('SIGKILL');
    }
  }, 600_000);

  it('no test file compares a clock reading with a bound (the scan itself finds the forms it is meant to find)', () => {
    // The samples' sources are stored in base64 (each described in words beside it), so that no file of the test tree
    // holds a time assertion as readable text, not even as data; they are decoded here, before the scan reads them.
    const samples = JSON.parse(readFileSync(join(root, 'test', 'fixtures', 'clock-scan', 'samples.json'), 'utf8')) as {
      what: string;
      sourceBase64: string;
      found: string[];
    }[];
    expect(samples.length).toBeGreaterThan(6);
    for (const x of samples) {
      const source = Buffer.from(x.sourceBase64, 'base64').toString('utf8');
      expect(clockAssertions(source), `${x.what}: ${source}`).toEqual(x.found);
    }
    const offenders = readdirSync(join(root, 'test'))
      .filter((f) => f.endsWith('.ts')) // every test file and helper, this one included (its samples are a fixture)
      .flatMap((f) => clockAssertions(readFileSync(join(root, 'test', f), 'utf8')).map((n) => `${f}: ${n}`));
    expect(offenders).toEqual([]);
  });
});

/** The clock readings in `text` (names, or "expect()" for a clock read inside one) that reach a comparison. */
function clockAssertions(text: string): string[] {
  const CLOCK = String.raw`(?:performance\.now|Date\.now|process\.hrtime(?:\.bigint)?|process\.cpuUsage)\(`;
  const found: string[] = [];
  for (const m of text.matchAll(new RegExp(String.raw`(?:const|let)\s+(\w+)\s*=[^;\n]*` + CLOCK, 'g')))
    if (new RegExp(String.raw`expect\([^;\n]*\b${m[1]}\b[^;\n]*\)\.(?:not\.)?toBe(?:Less|Greater)Than`).test(text)) found.push(m[1]);
  if (new RegExp(String.raw`expect\([^;\n]*` + CLOCK).test(text)) found.push('expect()');
  // A deadline: a clock reading on either side of <, <=, > or >= (a busy machine would trip it).
  const cmp = String.raw`\s*(?:<=?|>=?)\s*`;
  if (new RegExp(CLOCK + String.raw`[^;\n()]*\)[^;\n]*?` + cmp + '|' + cmp + String.raw`[^;\n]*?` + CLOCK).test(text)) found.push('deadline');
  if (/setTimeout\(\s*\(\)\s*=>\s*(?:fail|reject)\(/.test(text)) found.push('timer that fails');
  return found;
}
