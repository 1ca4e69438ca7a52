/** Whole-process timing: node start to exit of a command, measured by GNU time (wall seconds, peak RSS). */
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { BENCH_DIR } from './util.js';

export const GNU_TIME = '/usr/bin/time';

export interface WholeRun {
  /** Wall time, ms (GNU time's %e, 10 ms resolution), and the same from this process's clock around the spawn. */
  wallMs: number;
  spawnMs: number;
  peakRssMB: number;
  /** User + system CPU of the command and every process it waited for, ms (GNU time's %U + %S). */
  cpuMs: number;
  status: number | null;
  stdout: string;
  stderr: string;
}

/** Runs `argv` once under GNU time (`-f '%e %M %U %S' -o FILE`, so the command's own stderr stays its own). */
export function wholeProcess(argv: readonly string[]): WholeRun {
  if (!existsSync(GNU_TIME)) throw new Error(`${GNU_TIME} is missing (Debian package "time"; scripts/ensure-debian-peers.sh --bench installs it)`);
  const out = join(BENCH_DIR, 'gnu-time.txt');
  rmSync(out, { force: true });
  const t0 = process.hrtime.bigint();
  const r = spawnSync(GNU_TIME, ['-f', '%e %M %U %S', '-o', out, ...argv], { encoding: 'utf8', maxBuffer: 1 << 26 });
  const spawnMs = Number(process.hrtime.bigint() - t0) / 1e6;
  const [e, m, u, sys] = readFileSync(out, 'utf8').trim().split('\n').pop()!.split(' ').map(Number);
  return { wallMs: e * 1000, spawnMs, peakRssMB: m / 1024, cpuMs: (u + sys) * 1000, status: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** Median of a list, and its spread as text. */
export function medianOf(xs: readonly number[]): { median: number; spread: string } {
  const s = [...xs].sort((a, b) => a - b);
  return { median: s[Math.floor(s.length / 2)], spread: `runs ${s.map((x) => x.toFixed(0)).join(' / ')} ms` };
}
