/**
 * The run's background writer (src/io/background-writer.ts) and the prepared pair commit (commitPreparedPair,
 * commitPrepared): the same files, bytes and sidecars as a write on the calling thread; the pair protocol holds
 * under a fault at every step; a failed background write is a file-system error naming the path and the cause; and
 * `heightbench run` writes the same folder with and without threads.
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { codeHeightfield, domainGrid, floatHeightfield, readHeightfieldFile, writeHeightfieldFile } from '../src/index.js';
import { startBackgroundWriter } from '../src/io/background-writer.js';
import { commitPrepared, prepareR16Write, prepareR32Write } from '../src/io/heightfield-file.js';
import { withFaults, withFaultsAsync } from '../src/io/fs-ops.js';
import { fileSystemMessage, isFileSystemErrno } from '../src/errors.js';
import { cli, tempDir, testRandom } from './helpers.js';

const root = tempDir('hb-bgw-');
const N = 48;
const g = domainGrid(N);
const rnd = testRandom(11);
const heights = (k: number): Float32Array => {
  const h = new Float32Array(new SharedArrayBuffer(N * N * 4));
  for (let i = 0; i < h.length; i++) h[i] = (rnd() - 0.5) * 900 + k;
  return h;
};
const OLD = heights(1);
const NEW = heights(2);
const LATER = heights(3);

function seen(path: string): 'old' | 'new' | 'later' | 'absent' | 'refused' {
  try {
    const r = readHeightfieldFile(path);
    const f = r.field.kind === 'float' ? r.field.height_px : null;
    const eq = (a: Float32Array) => f !== null && f.length === a.length && f.every((v, i) => Object.is(v, a[i]));
    return eq(OLD) ? 'old' : eq(NEW) ? 'new' : eq(LATER) ? 'later' : 'refused';
  } catch (e) {
    return /no such file/.test((e as Error).message) ? 'absent' : 'refused';
  }
}

describe('background writer', () => {
  it('writes the bytes durably and answers their count and SHA-256', async () => {
    const w = startBackgroundWriter()!;
    expect(w).not.toBeNull();
    const bytes = new Uint8Array(NEW.buffer);
    const path = join(root, 'plain.bin');
    const r = await w.write(path, bytes);
    await w.close();
    expect(r.bytes).toBe(bytes.length);
    expect(r.sha256).toBe(createHash('sha256').update(bytes).digest('hex'));
    expect(Buffer.compare(readFileSync(path), Buffer.from(bytes))).toBe(0);
  });

  it('a failed write is the file-system error, naming the path and the cause', async () => {
    const w = startBackgroundWriter()!;
    const path = join(root, 'no-such-folder', 'x.bin');
    const e = await w.write(path, new Uint8Array(new SharedArrayBuffer(8))).catch((x: unknown) => x);
    await w.close();
    expect(isFileSystemErrno(e)).toBe(true);
    expect(fileSystemMessage(e as NodeJS.ErrnoException)).toBe(`${path}: no such file or folder (ENOENT, open)`);
  });

  it('refuses bytes that are not in shared memory (the worker could not read them)', async () => {
    const w = startBackgroundWriter()!;
    expect(() => w.write(join(root, 'y.bin'), new Uint8Array(4))).toThrow(/must be in shared memory/);
    await w.close();
  });
});

describe('prepared R32 pairs', () => {
  it('give exactly the files writeHeightfieldFile gives, into an empty folder and over an old pair', async () => {
    for (const before of ['none', 'pair'] as const) {
      const a = join(root, `same-${before}-a`, 'map.r32');
      const b = join(root, `same-${before}-b`, 'map.r32');
      mkdirSync(join(root, `same-${before}-a`), { recursive: true });
      mkdirSync(join(root, `same-${before}-b`), { recursive: true });
      if (before === 'pair') for (const p of [a, b]) writeHeightfieldFile(p, floatHeightfield(g, OLD));
      const s = { stage: 'base', request: 'test', notes: { precision: 'f32' } };
      writeHeightfieldFile(a, floatHeightfield(g, NEW), s);
      const w = startBackgroundWriter()!;
      await commitPrepared(prepareR32Write(w, b, g, NEW), s);
      await w.close();
      expect(readFileSync(b).equals(readFileSync(a))).toBe(true);
      expect(readFileSync(`${b}.json`, 'utf8')).toBe(readFileSync(`${a}.json`, 'utf8').replace(/same-\w+-a/g, (m) => m.replace(/-a$/, '-b')));
      expect(readdirSync(join(root, `same-${before}-b`)).sort()).toEqual(['map.r32', 'map.r32.json']);
    }
  });

  it("an R16 code field prepared on the writer gives exactly the files writeHeightfieldFile gives (a run's final map)", async () => {
    const codes = new Uint16Array(new SharedArrayBuffer(N * N * 2));
    for (let i = 0; i < codes.length; i++) codes[i] = Math.floor(rnd() * 65536);
    const field = codeHeightfield(g, codes, { min: -500, max: 500 });
    const dirs = ['r16-a', 'r16-b'].map((d) => join(root, d));
    for (const d of dirs) mkdirSync(d, { recursive: true });
    const s = { stage: 'final', request: 'test', notes: { precision: 'f32' } };
    writeHeightfieldFile(join(dirs[0], 'final.r16'), field, s);
    const w = startBackgroundWriter()!;
    await commitPrepared(prepareR16Write(w, join(dirs[1], 'final.r16'), field), s);
    await w.close();
    expect(readFileSync(join(dirs[1], 'final.r16')).equals(readFileSync(join(dirs[0], 'final.r16')))).toBe(true);
    expect(readFileSync(join(dirs[1], 'final.r16.json'), 'utf8')).toBe(readFileSync(join(dirs[0], 'final.r16.json'), 'utf8'));
    expect(readdirSync(dirs[1]).sort()).toEqual(['final.r16', 'final.r16.json']);
    expect(() => prepareR16Write(w, join(dirs[1], 'x.r32'), field)).toThrow(/an R16 \(\.r16\) payload/);
  });

  for (const mode of ['error', 'crash'] as const) {
    it(`a fault at every commit step (${mode}) leaves the old pair or the new one, and the next write leaves exactly the pair`, async () => {
      const prepare = async (k: number) => {
        const dir = join(root, `fault-${mode}-${k}`);
        mkdirSync(dir, { recursive: true });
        const path = join(dir, 'map.r32');
        writeHeightfieldFile(path, floatHeightfield(g, OLD));
        const w = startBackgroundWriter()!;
        const p = prepareR32Write(w, path, g, NEW);
        await p.written;
        await w.close();
        return { dir, path, p };
      };
      const dry = await prepare(-1);
      const steps = (await withFaultsAsync(null, () => commitPrepared(dry.p))).steps;
      expect(steps.map((s) => s.kind)).toEqual(['mkdir', 'rename', 'write', 'rename', 'rename', 'fsync-dir']);
      for (let k = 0; k < steps.length; k++) {
        const { dir, path, p } = await prepare(k);
        const r = await withFaultsAsync({ at: k, mode }, () => commitPrepared(p));
        expect(r.fired, `step ${k}`).toBe(true);
        // The commit point is the sidecar's rename (step 3): before it the old pair, after it the new one.
        expect(seen(path), `step ${k} (${steps[k].kind})`).toBe(k <= 3 ? 'old' : 'new');
        if (mode === 'error' && k <= 3) expect(readdirSync(dir).sort(), `step ${k}: clean-up ran`).toEqual(['map.r32', 'map.r32.json']);
        withFaults(null, () => writeHeightfieldFile(path, floatHeightfield(g, LATER)));
        expect(seen(path)).toBe('later');
        expect(readdirSync(dir).sort()).toEqual(['map.r32', 'map.r32.json']);
      }
    });
  }

  it('a background write that failed leaves nothing and rethrows its error', async () => {
    const dir = join(root, 'failed');
    const path = join(dir, 'map.r32'); // the folder does not exist: the worker's open fails
    const w = startBackgroundWriter()!;
    const p = prepareR32Write(w, path, g, NEW);
    const e = await commitPrepared(p).catch((x: unknown) => x);
    await w.close();
    expect(isFileSystemErrno(e)).toBe(true);
    expect(existsSync(dir)).toBe(false);
  });
});

describe('heightbench run', () => {
  it('writes the same folder with the background writer and without threads', async () => {
    const a = join(root, 'run-threads');
    const b = join(root, 'run-no-threads');
    expect((await cli('run', 'teaching-512', '--out', a, '--quiet')).code).toBe(0);
    const before = process.env.HEIGHTBENCH_NO_THREADS;
    process.env.HEIGHTBENCH_NO_THREADS = '1';
    try {
      expect(startBackgroundWriter()).toBeNull();
      expect((await cli('run', 'teaching-512', '--out', b, '--quiet')).code).toBe(0);
    } finally {
      if (before === undefined) delete process.env.HEIGHTBENCH_NO_THREADS;
      else process.env.HEIGHTBENCH_NO_THREADS = before;
    }
    const names = readdirSync(a).sort();
    expect(readdirSync(b).sort()).toEqual(names);
    expect(names).toContain('after-stamps.r32');
    for (const f of names.filter((n) => n !== 'timings.json')) expect(readFileSync(join(a, f)).equals(readFileSync(join(b, f))), f).toBe(true);
  });
});

describe('pending payload recovery of a rewrite', () => {
  it('regression fixture failed-rewrite-keeps-committed-pending: a failed rewrite of the same bytes keeps the committed pending payload', () => {
    const dir = join(root, 'rewrite');
    mkdirSync(dir, { recursive: true });
    const path = join(dir, 'map.r32');
    writeHeightfieldFile(path, floatHeightfield(g, OLD));
    // A crash after the commit point: the sidecar names NEW, the payload waits under its pending name.
    withFaults({ at: 4, mode: 'crash' }, () => writeHeightfieldFile(path, floatHeightfield(g, NEW)));
    expect(seen(path)).toBe('new');
    // The rerun writes the same bytes; its first recovery step (moving the committed pending payload in) fails once.
    const r = withFaults({ at: 1, mode: 'error', code: 'EIO' }, () => writeHeightfieldFile(path, floatHeightfield(g, NEW)));
    expect(r.fired).toBe(true);
    expect(seen(path)).toBe('new');
  });
});

describe('the stages a run hands its writer', () => {
  it('regression fixture duplicate-stage-names: --stages base,base writes base once', async () => {
    const out = join(root, 'dup-stages');
    const r = await cli('run', 'teaching-512', '--size', '128', '--stages', 'base,base', '--out', out, '--quiet');
    expect(r.err).toBe('');
    expect(r.code).toBe(0);
    expect(readdirSync(out).sort()).toEqual(['base.r32', 'base.r32.json', 'manifest.json', 'pipeline.json', 'timings.json']);
  });

  it('regression fixture onfield-before-flip: under row0-at-ymax a stage is handed out after its rows are flipped', async () => {
    const { runPipeline } = await import('../src/pipeline/run.js');
    const { loadRequest } = await import('../src/plan/request.js');
    const heard = new Map<string, Float32Array | Float64Array>();
    const r = runPipeline(loadRequest('teaching-512', 128), {
      precision: 'f32',
      keep: ['base', 'after-stamps'],
      conventions: { grid: { rowDirection: 'row0-at-ymax' } },
      onField: (s, f) => heard.set(s, f.slice()),
    });
    expect([...heard.keys()].sort()).toEqual(['after-stamps', 'base', 'pre-encode']);
    for (const [s, f] of heard) expect(Array.from(f), s).toEqual(Array.from(r.fields.get(s)!));
  });
});
