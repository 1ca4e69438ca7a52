/**
 * Issue 30, class 7 — report folders are written whole (src/io/report-folder.ts): compare --report builds its
 * folder under a staged name and swaps it in, one writer at a time (an O_EXCL lock file holding the pid, stale once
 * that pid is gone). A real SIGKILL at spread moments of a `compare --report` leaves the old report or the new one,
 * whole — its summary.md, index.html and metrics.json all from the same run — and the next write cleans up.
 * Class 8 items are at the end: long names (hashed temporary names), a full disk named with its path.
 */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { codeHeightfield } from '../src/core/heightfield.js';
import { fileSystemMessage } from '../src/errors.js';
import { writeFileAtomic } from '../src/io/atomic.js';
import { folderForReading } from '../src/io/folder-swap.js';
import { withFaults } from '../src/io/fs-ops.js';
import { writeHeightfieldFile } from '../src/io/heightfield-file.js';
import { lockFolder } from '../src/io/report-folder.js';
import { cli, tempDir } from './helpers.js';

const BIN = join(process.cwd(), 'bin', 'heightbench.mjs');
const N = 1024;

/** A reference and two generated fields that differ from it at different counts of pixels (1 in 7, 1 in 11). */
function inputs(dir: string): { ref: string; gens: Record<'A' | 'B', string> } {
  mkdirSync(dir, { recursive: true });
  const grid = { xmin: 0, ymin: 0, sizeX: 2048, sizeY: 2048, columns: N, rows: N, convention: 'texel-centre', rowDirection: 'row0-at-ymin' } as const;
  const ref = new Uint16Array(N * N).map((_, k) => 20000 + ((k * 7) % 3001));
  writeHeightfieldFile(join(dir, 'ref.r16'), codeHeightfield(grid, ref));
  writeHeightfieldFile(
    join(dir, 'A.r16'),
    codeHeightfield(
      grid,
      ref.map((v, k) => (k % 7 ? v : v + 1)),
    ),
  );
  writeHeightfieldFile(
    join(dir, 'B.r16'),
    codeHeightfield(
      grid,
      ref.map((v, k) => (k % 11 ? v : v + 1)),
    ),
  );
  return { ref: join(dir, 'ref.r16'), gens: { A: join(dir, 'A.r16'), B: join(dir, 'B.r16') } };
}

const args = (gen: string, ref: string, out: string, title: string) => [BIN, 'compare', gen, ref, '--report', out, '--title', title];

/** Which run the folder holds; throws when its files come from different runs. */
function wholeReport(dir: string, exactOf: Record<string, number>): string {
  const summary = readFileSync(join(dir, 'summary.md'), 'utf8');
  const title = /^# (\S+)/.exec(summary)?.[1] ?? '?';
  const html = readFileSync(join(dir, 'index.html'), 'utf8');
  if (!html.includes(`<h1>${title}</h1>`)) throw new Error(`index.html is not the page of run ${title}`);
  const metrics = JSON.parse(readFileSync(join(dir, 'metrics.json'), 'utf8')) as { exact: number };
  if (metrics.exact !== exactOf[title]) throw new Error(`metrics.json (exact ${metrics.exact}) is not from run ${title} (${exactOf[title]})`);
  if (!existsSync(join(dir, 'plotly.min.js'))) throw new Error('plotly.min.js missing');
  return title;
}

describe('report folders are written whole', () => {
  it('report-sigkill-mix: SIGKILL at spread moments of compare --report leaves the old or the new report whole', async () => {
    const d = tempDir('hb-repkill-');
    const { ref, gens } = inputs(join(d, 'in'));
    const out = join(d, 'report');
    const exactOf: Record<string, number> = {};
    for (const t of ['B', 'A'] as const) {
      const t0 = performance.now();
      const r = spawnSync(process.execPath, args(gens[t], ref, out, t), { encoding: 'utf8' });
      expect(r.status, r.stderr).toBe(0);
      exactOf[t] = (JSON.parse(readFileSync(join(out, 'metrics.json'), 'utf8')) as { exact: number }).exact;
      exactOf.life = performance.now() - t0;
    }
    expect(exactOf.A).not.toBe(exactOf.B);
    let current = 'A';
    let killed = 0;
    const seen = new Set<string>();
    for (const [k, f] of [0.15, 0.3, 0.45, 0.55, 0.65, 0.75, 0.85, 0.92, 0.97, 1.02].entries()) {
      const next = current === 'A' ? 'B' : 'A';
      const child = spawn(process.execPath, args(gens[next as 'A' | 'B'], ref, out, next), { stdio: 'ignore' });
      const exited = new Promise((r) => child.once('exit', r));
      await new Promise((r) => setTimeout(r, Math.round(f * exactOf.life)));
      const finished = child.exitCode !== null || child.signalCode !== null;
      if (!finished) child.kill('SIGKILL');
      await exited;
      if (!finished) killed++;
      const held = wholeReport(folderForReading(out), exactOf);
      expect([current, next], `kill ${k}`).toContain(held);
      seen.add(held);
      current = held;
    }
    expect(killed).toBeGreaterThan(3);
    // The next write cleans up whatever the kills left (staged folders, a kept old folder, a stale lock).
    const last = spawnSync(process.execPath, args(gens.A, ref, out, 'A'), { encoding: 'utf8' });
    expect(last.status, last.stderr).toBe(0);
    expect(wholeReport(out, exactOf)).toBe('A');
    expect(readdirSync(d).sort()).toEqual(['in', 'report']);
  }, 180_000);

  it('report-concurrent-writers: a second writer of the same folder is refused (exit 2) naming the holder; a stale lock is taken over', async () => {
    const d = tempDir('hb-replock-');
    const { ref, gens } = inputs(join(d, 'in'));
    const out = join(d, 'report');
    const release = lockFolder(out);
    const r = await cli('compare', gens.A, ref, '--report', out);
    expect(r.code).toBe(2);
    expect(r.err).toContain(`another heightbench (pid ${process.pid}) is writing this report folder`);
    release();
    // A lock left by a process that is gone (a kill) is stale: the next writer takes it over.
    const gone = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' }).stdout;
    writeFileSync(join(d, '.report.lock'), `${gone}\n`);
    const ok = await cli('compare', gens.A, ref, '--report', out);
    expect(ok.code, ok.err).toBe(0);
    expect(readdirSync(d).sort()).toEqual(['in', 'report']);
  }, 60_000);
});

describe('smaller items', () => {
  it('long-name-temp: a 240-byte file name is written (its temporary name is hashed, not too long)', () => {
    const d = tempDir('hb-longname-');
    const name = `${'n'.repeat(240)}.json`;
    writeFileAtomic(join(d, name), '{}');
    expect(readdirSync(d)).toEqual([name]);
  });

  it('enospc-names-path: a full disk is reported with the file, not "(no path)"', () => {
    const d = tempDir('hb-enospc-');
    const r = withFaults({ at: 1, mode: 'error', code: 'ENOSPC' }, () => writeFileAtomic(join(d, 'a.json'), '{}'));
    expect(r.fired).toBe(true);
    const msg = fileSystemMessage(r.error as NodeJS.ErrnoException);
    expect(msg).toMatch(new RegExp(`^${d}/\\.a\\.json\\.tmp-\\d+-[0-9a-f]{8}: no space left on the device \\(ENOSPC, write\\)$`));
  });
});
