// Lazy command loading (src/cli/commands.ts) and the concurrent-digest reader the compare command uses: each group's
// declared command names are the ones its installer really adds; `compare`'s static import graph reaches no pipeline,
// GPU, terrain or bell module; readHeightfieldFiles and readHeightfieldFileAhead refuse and recover exactly like
// readHeightfieldFile.
import { readFileSync, writeFileSync, existsSync, renameSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { COMMAND_GROUPS, groupsFor, requestedCommand } from '../src/cli/commands.js';
import { codeHeightfield, domainGrid, readHeightfieldFile, writeHeightfieldFile } from '../src/index.js';
import { readHeightfieldFileAhead, readHeightfieldFiles, writeAnyHeightfieldFile } from '../src/io/heightfield-file.js';
import { floatHeightfield } from '../src/core/heightfield.js';
import { pendingPathFor } from '../src/io/atomic.js';
import { readSidecarFor } from '../src/io/sidecar.js';
import { cli, tempDir, testRandom } from './helpers.js';

const io = { out: () => undefined, err: () => undefined };

/** Files reached from `entry` through static `import … from` / `export … from` (type-only imports and dynamic import() excluded). */
function staticClosure(entry: string): Set<string> {
  const seen = new Set<string>();
  const todo = [resolve(entry)];
  while (todo.length) {
    const f = todo.pop()!;
    if (seen.has(f)) continue;
    seen.add(f);
    const text = readFileSync(f, 'utf8');
    for (const m of text.matchAll(/^(?:import|export)\s+(?!type\b)[^;]*?\sfrom\s+'(\.[^']+)';/gms)) {
      todo.push(resolve(dirname(f), m[1].replace(/\.js$/, '.ts')));
    }
  }
  return seen;
}

/** Writes `code_px` as an R16 pair at `path`, then changes one payload byte behind its sidecar's back. */
function writeChangedPayload(path: string, code_px: Uint16Array): void {
  writeHeightfieldFile(path, codeHeightfield(domainGrid(64), code_px));
  const bytes = readFileSync(path);
  bytes[100] ^= 1;
  writeFileSync(path, bytes);
}

/**
 * Writes `code_px` as an R16 pair at `path` and leaves it as an interrupted commit does: the payload still under its
 * pending name, an old payload under the real one. Returns the pending path.
 */
function writeInterruptedPair(path: string, code_px: Uint16Array): string {
  writeHeightfieldFile(path, codeHeightfield(domainGrid(64), code_px));
  const pending = pendingPathFor(path, readSidecarFor(path)!.payload.sha256);
  renameSync(path, pending);
  writeFileSync(path, Buffer.alloc(64 * 64 * 2));
  return pending;
}

describe('lazy command groups', () => {
  it('each group declares exactly the top-level commands its installer adds', async () => {
    for (const g of COMMAND_GROUPS) {
      const program = new Command('heightbench');
      (await g.load())(program, io);
      expect(program.commands.map((c) => c.name())).toEqual([...g.commands]);
    }
  });

  it('finds the command after root options, and loads every group for help or an unknown command', () => {
    expect(requestedCommand(['--config', 'compare', 'run', 'x'])).toBe('run');
    expect(requestedCommand(['-V'])).toBeNull();
    expect(groupsFor(['compare', 'a.r16', 'b.r16']).map((g) => g.commands)).toEqual([['compare']]);
    expect(groupsFor(['--help'])).toHaveLength(COMMAND_GROUPS.length);
    expect(groupsFor(['no-such-command'])).toHaveLength(COMMAND_GROUPS.length);
  });

  it('a version request loads no command group, unless the flag is a --config value or follows --', () => {
    for (const argv of [['--version'], ['-V'], ['--help', '--version'], ['--config', 'cfg', '-V']]) expect(groupsFor(argv)).toEqual([]);
    expect(groupsFor(['--config', '--version'])).toHaveLength(COMMAND_GROUPS.length);
    expect(groupsFor(['--', '--version'])).toHaveLength(COMMAND_GROUPS.length);
    expect(groupsFor(['--versio'])).toHaveLength(COMMAND_GROUPS.length);
  });

  it('info and convert (installed by the program itself) load no command group', async () => {
    expect(groupsFor(['info', 'a.npy', '--json'])).toEqual([]);
    expect(groupsFor(['--config', 'cfg', 'convert', 'a.tif', 'b.r16'])).toEqual([]);
    // ...and still answer: the help of info, and a usage error for a missing argument.
    let out = '';
    const { runCli } = await import('../src/cli/main.js');
    expect(await runCli(['info', '--help'], { out: (t) => void (out += t), err: () => undefined })).toBe(0);
    expect(out).toContain('Usage: heightbench info [options] <file>');
    expect(await runCli(['convert', 'only-one.r16'], { out: () => undefined, err: () => undefined })).toBe(2);
  });

  it('--help still lists every command, in the same order', async () => {
    let out = '';
    const { runCli } = await import('../src/cli/main.js');
    expect(await runCli(['--help'], { out: (t) => void (out += t), err: () => undefined })).toBe(0);
    const listed = [...out.matchAll(/^ {2}([a-z][a-z-]*)\b/gm)].map((m) => m[1]).filter((c) => c !== 'help');
    expect(listed).toEqual(['info', 'convert', ...COMMAND_GROUPS.flatMap((g) => g.commands)]);
  });

  it("compare's static imports reach no pipeline stage, GPU, terrain, draw-list or bell module", () => {
    const root = resolve(import.meta.dirname, '..', 'src');
    const files = [...staticClosure(join(root, 'cli', 'main.ts')), ...staticClosure(join(root, 'cli', 'compare.ts'))].map((f) => f.slice(root.length + 1));
    expect(files).toContain('compare/compare.ts');
    // The UNORM16 encode kernel checks its module at load against core/wasm/layouts.ts (the kernels' layout
    // description, which imports only the conventions); of the pipeline, only the request loader is reached.
    const light = new Set(['plan/request.ts']);
    const heavy = files.filter((f) => /^(gpu|terrain|drawlist|bell)\//.test(f) || (f.startsWith('pipeline/') && !light.has(f)));
    expect(heavy).toEqual([]);
  });

  it("compare's static imports reach no report writer, Markdown summary, difference export or YAML parser (they load when asked for)", () => {
    const root = resolve(import.meta.dirname, '..', 'src');
    const files = new Set(
      [...staticClosure(join(root, 'cli', 'main.ts')), ...staticClosure(join(root, 'cli', 'compare.ts'))].map((f) => f.slice(root.length + 1)),
    );
    expect(files.has('report/metrics.ts')).toBe(true);
    const onDemand = [
      'report/comparison-report.ts',
      'report/summary-markdown.ts',
      'report/report-maps.ts',
      'runs/check.ts',
      'io/report-folder.ts',
      'io/yaml-text.ts',
      'pipelines/declaration.ts',
    ];
    expect(onDemand.filter((f) => files.has(f))).toEqual([]);
  });
});

describe('readHeightfieldFiles (digests off the main thread)', () => {
  const d = tempDir('hb-lazy-');
  const rnd = testRandom(3);
  const codes = () => new Uint16Array(64 * 64).map(() => (rnd() * 65536) | 0);
  const a = join(d, 'a.r16');
  const b = join(d, 'b.r16');
  writeHeightfieldFile(a, codeHeightfield(domainGrid(64), codes()));
  writeHeightfieldFile(b, codeHeightfield(domainGrid(64), codes()));

  it('returns what readHeightfieldFile returns', async () => {
    const [x, y] = await readHeightfieldFiles([a, b]);
    expect(x).toEqual(readHeightfieldFile(a));
    expect(y).toEqual(readHeightfieldFile(b));
  });

  it('refuses a payload changed after its sidecar with the same message, first file first', async () => {
    const c = join(d, 'c.r16');
    writeChangedPayload(c, codes());
    const sync = (() => {
      try {
        readHeightfieldFile(c);
      } catch (e) {
        return (e as Error).message;
      }
      return 'no error';
    })();
    expect(sync).toMatch(/SHA-256 [0-9a-f]{64} does not match the sidecar's/);
    await expect(readHeightfieldFiles([a, c])).rejects.toThrow(sync);
    const r = await cli('compare', c, a, '--json');
    expect(r.code).toBe(2);
    expect(r.err).toBe(`heightbench: ${sync}\n`);
  });

  it('recovers an interrupted pair write (payload still pending) like the synchronous reader', async () => {
    const e = join(d, 'e.r16');
    const pending = writeInterruptedPair(e, codes());
    const [got] = await readHeightfieldFiles([e]);
    expect(got).toEqual(readHeightfieldFile(e));
    expect(got.notes.join(' ')).toMatch(/payload read from .*pending/);
    expect(existsSync(pending)).toBe(true);
  });
});

describe('readHeightfieldFileAhead (a payload read and hashed by a worker)', () => {
  const d = tempDir('hb-ahead-');
  const rnd = testRandom(5);
  const codes = () => new Uint16Array(64 * 64).map(() => (rnd() * 65536) | 0);
  const syncMessage = (path: string): string => {
    try {
      readHeightfieldFile(path);
    } catch (e) {
      return (e as Error).message;
    }
    return 'no error';
  };

  it('returns what readHeightfieldFile returns, R16 and R32, the payload read into shared memory by the worker', async () => {
    const r16 = join(d, 'a.r16');
    const r32 = join(d, 'a.r32');
    writeHeightfieldFile(r16, codeHeightfield(domainGrid(64), codes()));
    writeHeightfieldFile(
      r32,
      floatHeightfield(
        domainGrid(64),
        Float32Array.from(codes(), (q) => q / 7 - 3000),
      ),
    );
    for (const path of [r16, r32]) {
      const ahead = readHeightfieldFileAhead(path);
      expect(ahead).not.toBeNull();
      const got = await ahead!.finish();
      expect(got).toEqual(readHeightfieldFile(path));
      const samples = got.field.kind === 'codes' ? got.field.code_px : got.field.height_px;
      expect(samples.buffer).toBeInstanceOf(SharedArrayBuffer); // the worker's bytes, not a second read
    }
  });

  it('leaves to the ordinary reader what it cannot read ahead', async () => {
    const bare = join(d, 'bare.r16');
    writeFileSync(bare, Buffer.alloc(64 * 64 * 2));
    expect(readHeightfieldFileAhead(bare)).toBeNull(); // no sidecar
    const png = join(d, 'p.png');
    writeHeightfieldFile(png, codeHeightfield(domainGrid(64), codes()));
    expect(readHeightfieldFileAhead(png)).toBeNull();
    const short = join(d, 'short.r16');
    writeHeightfieldFile(short, codeHeightfield(domainGrid(64), codes()));
    writeFileSync(short, readFileSync(short).subarray(0, 100)); // not the sidecar's size
    expect(readHeightfieldFileAhead(short)).toBeNull();
    expect(syncMessage(short)).not.toBe('no error');
  });

  it('refuses a payload changed after its sidecar with the synchronous message, and so does compare of an outside file against it', async () => {
    const c = join(d, 'c.r16');
    writeChangedPayload(c, codes());
    const sync = syncMessage(c);
    expect(sync).toMatch(/SHA-256 [0-9a-f]{64} does not match the sidecar's/);
    await expect(readHeightfieldFileAhead(c)!.finish()).rejects.toThrow(sync);
    const npy = join(d, 'g.npy');
    await writeAnyHeightfieldFile(npy, floatHeightfield(domainGrid(64), new Float32Array(64 * 64).fill(5)));
    const r = await cli('compare', npy, c, '--json');
    expect(r.code).toBe(2);
    expect(r.err).toContain(sync);
  });

  it('recovers an interrupted pair write (payload still pending) like the synchronous reader', async () => {
    const e = join(d, 'e.r16');
    writeInterruptedPair(e, codes());
    const got = await readHeightfieldFileAhead(e)!.finish();
    expect(got).toEqual(readHeightfieldFile(e));
    expect(got.notes.join(' ')).toMatch(/payload read from .*pending/);
  });
});
