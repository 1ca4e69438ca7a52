/**
 * Issue 17 targets: `heightbench diagnose` on a 4096² R16 pair ≤ 2 s, whole process (node start to exit); the atlas
 * for tundra-r19 at 1024² ≤ 60 s.
 * The pair: a terrain-like reference and the same surface sampled half a texel further along x (bilinear, re-encoded),
 * so the diagnosis has a real finding to make. Whole-process time runs the built CLI (dist/, `make build`) when it
 * exists, else the TypeScript sources through tsx (slower start, stated in the row); in-process time (read both files
 * and diagnose) is measured in a child process of its own.
 */
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { diagnose } from '../../src/compare/diagnose.js';
import { readHeightfieldFile, writeHeightfieldFile } from '../../src/io/heightfield-file.js';
import { codeHeightfield } from '../../src/core/heightfield.js';
import { domainGrid } from '../../src/core/grid.js';
import { BENCH_DIR, report, syntheticCodes, type BenchRow } from '../util.js';

if (process.argv[2] === '--child') {
  const [a, b] = process.argv.slice(3);
  const t0 = process.hrtime.bigint();
  const g = readHeightfieldFile(a).field;
  const r = readHeightfieldFile(b).field;
  const t1 = process.hrtime.bigint();
  const d = diagnose(g, r);
  const t2 = process.hrtime.bigint();
  process.stdout.write(
    `${JSON.stringify({ readMs: Number(t1 - t0) / 1e6, diagnoseMs: Number(t2 - t1) / 1e6, top: d.findings[0]?.kind, value: d.findings[0]?.value, rssMB: process.resourceUsage().maxRSS / 1024 })}\n`,
  );
  process.exit(0);
}

const N = 4096;
const refPath = join(BENCH_DIR, 'diag-ref.r16');
const genPath = join(BENCH_DIR, 'diag-gen.r16');
const ref = syntheticCodes(N, 7);
const gen = new Uint16Array(N * N);
for (let j = 0; j < N; j++) {
  for (let i = 0; i < N; i++) {
    const k = j * N + i;
    gen[k] = Math.round(0.5 * ref[k] + 0.5 * ref[i + 1 < N ? k + 1 : k]);
  }
}
writeHeightfieldFile(refPath, codeHeightfield(domainGrid(N), ref));
writeHeightfieldFile(genPath, codeHeightfield(domainGrid(N), gen));

const built = existsSync('dist/cli/bin.js');
const cliArgs = built ? ['bin/heightbench.mjs'] : ['--import', 'tsx', 'src/cli/bin.ts'];
const runs: { wall: number; read: number; fit: number; rss: number; top: string; value: number }[] = [];
for (let rep = 0; rep < 3; rep++) {
  const t0 = process.hrtime.bigint();
  const c = spawnSync(process.execPath, [...cliArgs, 'diagnose', genPath, refPath, '--json'], { encoding: 'utf8', maxBuffer: 1 << 24 });
  const wall = Number(process.hrtime.bigint() - t0) / 1e6;
  if (c.status !== 0) throw new Error(`diagnose exited ${c.status}: ${c.stderr}`);
  const child = spawnSync(process.execPath, ['--import', 'tsx', 'bench/sections/diagnose.ts', '--child', genPath, refPath], { encoding: 'utf8' });
  const j = JSON.parse(child.stdout.trim());
  runs.push({ wall, read: j.readMs, fit: j.diagnoseMs, rss: j.rssMB, top: j.top, value: j.value });
}
runs.sort((a, b) => a.wall - b.wall);
const m = runs[1];
const rows: BenchRow[] = [
  {
    name: `diagnose 4096² R16 pair, whole process (${built ? 'dist CLI' : 'tsx, dist not built'}: node start, read, fit, JSON out)`,
    ms: m.wall,
    target: '≤ 2000 ms',
    note: `in-process: read both ${m.read.toFixed(0)} ms + diagnose ${m.fit.toFixed(0)} ms; peak RSS ${m.rss.toFixed(0)} MB; top finding ${m.top} ${Number(m.value).toFixed(3)} (applied shiftX +0.5)`,
  },
];
// Issue 17 target: the whole atlas for tundra-r19 at 1024² ≤ 60 s (whole process, the same CLI: node start, the correct
// run and 20 ablations, comparisons, diagnoses, the folder written).
{
  const out = join(BENCH_DIR, 'atlas-1024');
  const t0 = process.hrtime.bigint();
  const c = spawnSync(process.execPath, [...cliArgs, 'atlas', 'tundra-r19', '--size', '1024', '--out', out, '--json'], {
    encoding: 'utf8',
    maxBuffer: 1 << 26,
  });
  const wall = Number(process.hrtime.bigint() - t0) / 1e6;
  if (c.status !== 0) throw new Error(`atlas exited ${c.status}: ${c.stderr}`);
  const j = JSON.parse(c.stdout) as {
    entries: { name: string; namedFirst: boolean | null }[];
    totalMs: number;
    timings: { correctRunMs: number; runs: Record<string, { ms: number; planReused: boolean }> };
  };
  const runs = Object.entries(j.timings.runs);
  const runMs = runs.reduce((s, [, r]) => s + r.ms, 0);
  const reused = runs.filter(([, r]) => r.planReused).length;
  const named = j.entries.filter((e) => e.namedFirst).length;
  const expected = j.entries.filter((e) => e.namedFirst !== null).length;
  rows.push({
    name: `atlas tundra-r19 1024², ${j.entries.length} ablations + the correct run, whole process (${built ? 'dist CLI' : 'tsx'})`,
    ms: wall,
    target: '≤ 60000 ms',
    note: `in-process ${Math.round(j.totalMs)} ms: correct run ${Math.round(j.timings.correctRunMs)} ms, ${runs.length} ablation runs ${Math.round(runMs)} ms (${reused} reuse the correct run's plan and draw list), the rest comparisons, diagnoses and the folder; diagnose named ${named} of ${expected} expected signatures first; runs ${runs.map(([n, r]) => `${n} ${Math.round(r.ms)}`).join(', ')} ms`,
  });
}
report('diagnose', rows);
