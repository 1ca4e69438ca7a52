// What a one-shot command loads before it does its work, counted (no clocks): the bundle's module files it reads and
// the Node modules it loads. Each module costs a read, a resolution and a link of its own, whatever its size, so the
// modules every command needs share one chunk (scripts/bundle-cli.mjs), and Node modules that a command may never
// call into load on first call.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { domainGrid, floatHeightfield, PRODUCER_VERSION, writeHeightfieldFileAsync } from '../src/index.js';
import { tempDir } from './helpers.js';

const root = join(import.meta.dirname, '..');
const bin = join(root, 'bin', 'heightbench.mjs');
const built = existsSync(join(root, 'dist', 'cli-bundle', 'heightbench.js'));

const HOOKS = `export async function load(url, context, next) {
  const r = await next(url, context);
  if (url.startsWith('file:')) process.stderr.write('[module] ' + url + '\\n');
  return r;
}`;
const EXIT_LIST = `process.on('exit', () => process.stderr.write('[builtins] ' + process.moduleLoadList.filter((m) => m.startsWith('NativeModule ')).map((m) => m.slice(13)).join(' ') + '\\n'));`;
const REGISTER = `import { register } from 'node:module';
register(${JSON.stringify(`data:text/javascript,${encodeURIComponent(HOOKS)}`)});`;
const preload = (code: string): string[] => ['--import', `data:text/javascript,${encodeURIComponent(code)}`];

/**
 * The command's exit status and output, and the bundle files it loaded (through a module hook) or the Node modules
 * loaded by its exit (without the hook, which runs on a thread of its own and so loads worker_threads).
 */
function startup(args: string[], count: 'modules' | 'builtins'): { status: number | null; stdout: string; bundle: string[]; builtins: Set<string> } {
  const r = spawnSync(process.execPath, [...preload(count === 'modules' ? REGISTER : EXIT_LIST), bin, ...args], { encoding: 'utf8' });
  const bundle = [...r.stderr.matchAll(/^\[module\] (\S+)$/gm)].map((m) => m[1]).filter((u) => u.includes('/dist/cli-bundle/'));
  const builtins = new Set(/^\[builtins\] (.*)$/m.exec(r.stderr)?.[1].split(' ') ?? []);
  return { status: r.status, stdout: r.stdout, bundle, builtins };
}

describe.runIf(built)('start-up of one-shot commands', () => {
  it('--version reads the core chunk and the entry, no command group, and neither crypto, zlib nor worker_threads', () => {
    const r = startup(['--version'], 'modules');
    expect(r.status).toBe(0);
    expect(r.stdout).toBe(`${PRODUCER_VERSION}\n`);
    expect(r.bundle.length).toBeGreaterThan(0);
    expect(r.bundle.length).toBeLessThanOrEqual(6);
    const b = startup(['--version'], 'builtins');
    expect(b.stdout).toBe(`${PRODUCER_VERSION}\n`);
    expect(b.builtins.has('fs')).toBe(true);
    for (const m of ['crypto', 'zlib', 'worker_threads']) expect(b.builtins.has(m)).toBe(false);
  });

  it('info of a .npy adds only its command, the outside reader and the format (a few small entry files)', async () => {
    const d = tempDir('hb-startup-');
    const file = join(d, 'a.npy');
    await writeHeightfieldFileAsync(
      file,
      floatHeightfield(
        domainGrid(8),
        new Float32Array(64).map((_, i) => i),
      ),
    );
    const r = startup(['info', file, '--json'], 'modules');
    expect(r.status).toBe(0);
    expect(JSON.parse(r.stdout).width).toBe(8);
    expect(r.bundle.length).toBeLessThanOrEqual(10);
    expect(r.bundle.length - startup(['--version'], 'modules').bundle.length).toBeLessThanOrEqual(4);
  });
});
