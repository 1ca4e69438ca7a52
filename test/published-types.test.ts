/**
 * The published types (dist/**\/*.d.ts, as package.json's exports name them) compile for a strict consumer that has
 * no @types/node ("types": [], lib ES2022 only, skipLibCheck off): a type from Node (NodeJS.*, Buffer) reaching a
 * public declaration fails it. The control shows the consumer set-up does catch a Node type.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { projectRoot } from '../src/project/paths.js';
import { tempDir } from './helpers.js';

const root = projectRoot();
const tsc = join(root, 'node_modules', 'typescript', 'bin', 'tsc');

/** A consumer project importing every entry point of the package; returns tsc's exit status and output. */
function compileConsumer(extra = ''): { status: number | null; out: string } {
  const d = tempDir('hb-consumer-');
  mkdirSync(join(d, 'node_modules'));
  symlinkSync(root, join(d, 'node_modules', 'heightbench'), 'dir');
  const exports = Object.keys((JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { exports: Record<string, unknown> }).exports).filter(
    (k) => k !== './package.json',
  );
  const spec = (k: string) => (k === '.' ? 'heightbench' : `heightbench/${k.slice(2)}`);
  const lines = exports.map((k, i) => `import * as m${i} from '${spec(k)}';`);
  writeFileSync(join(d, 'main.ts'), `${lines.join('\n')}\nexport const all = [${exports.map((_, i) => `m${i}`).join(', ')}];\n${extra}`);
  writeFileSync(
    join(d, 'tsconfig.json'),
    JSON.stringify({
      compilerOptions: {
        target: 'ES2022',
        lib: ['ES2022'],
        module: 'NodeNext',
        moduleResolution: 'NodeNext',
        strict: true,
        types: [],
        noEmit: true,
        skipLibCheck: false,
      },
      include: ['main.ts'],
    }),
  );
  const r = spawnSync(process.execPath, [tsc, '-p', d], { encoding: 'utf8' });
  return { status: r.status, out: `${r.stdout}${r.stderr}` };
}

describe('published types', () => {
  it('every entry point compiles for a strict consumer without @types/node', () => {
    const r = compileConsumer();
    expect(r.out).toBe('');
    expect(r.status).toBe(0);
  }, 120_000);

  it('the consumer set-up catches a Node type (control)', () => {
    const r = compileConsumer('export const b: Buffer | null = null;\n');
    expect(r.status).not.toBe(0);
    expect(r.out).toMatch(/Cannot find name 'Buffer'/);
  }, 120_000);
});
