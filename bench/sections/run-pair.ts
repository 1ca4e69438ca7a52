/**
 * Issue 41, item 3: `heightbench run tundra-r19 --stages final` (and the every-stage run) of this build against a
 * previous build, whole process (node start to exit, GNU time), pairs interleaved A B A B in one run, so that a busy
 * machine slows both alike: the median of the per-pair wall ratios, each side's median wall and CPU (user + system),
 * peak RSS, and that both wrote the same final bytes.
 * The previous build is a git worktree built in a folder of its own:
 *   git worktree add --detach /tmp/hb-base a4aa3a3 && cd /tmp/hb-base && ln -s $PWD/../<checkout>/node_modules . \
 *     && node scripts/build-dist.mjs
 * HEIGHTBENCH_BENCH_BASE names it (default /tmp/hb-base); HEIGHTBENCH_BENCH_PAIRS the number of pairs (default 7).
 * A last row pairs this build on two threads against itself on one (HEIGHTBENCH_NO_THREADS=1): what the executor's
 * helper thread (src/cpu/wasm/draw-thread.ts) alone is worth, with the same bytes.
 */
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { planRequest, ensureAssets } from '../../src/pipeline/inputs.js';
import { loadRequest } from '../../src/plan/request.js';
import { BENCH_DIR, report, type BenchRow } from '../util.js';
import { wholeProcess, type WholeRun } from '../whole.js';

const base = process.env.HEIGHTBENCH_BENCH_BASE ?? '/tmp/hb-base';
const pairs = Number(process.env.HEIGHTBENCH_BENCH_PAIRS ?? 7);
const rows: BenchRow[] = [];
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

const haveBase = existsSync(join(base, 'bin/heightbench.mjs'));
if (!haveBase) rows.push({ name: `run pair: no previous build at ${base} (see this file's header)`, ms: 0 });
ensureAssets(planRequest(loadRequest('tundra-r19')).world);

function side(root: string, args: string[], out: string, oneThread = false): WholeRun {
  rmSync(out, { recursive: true, force: true });
  const r = wholeProcess([
    ...(oneThread ? ['/usr/bin/env', 'HEIGHTBENCH_NO_THREADS=1'] : []),
    process.execPath,
    join(root, 'bin/heightbench.mjs'),
    'run',
    'tundra-r19',
    ...args,
    '--out',
    out,
    '--quiet',
  ]);
  if (r.status !== 0) throw new Error(`${root}: heightbench run exited ${r.status}: ${r.stderr}`);
  return r;
}

for (const [label, args] of haveBase
  ? ([
      ['--stages final', ['--stages', 'final']],
      ['every stage', []],
    ] as const)
  : []) {
  const ours: WholeRun[] = [];
  const theirs: WholeRun[] = [];
  const ratios: number[] = [];
  const a = join(BENCH_DIR, 'run-pair-this');
  const b = join(BENCH_DIR, 'run-pair-base');
  const n = label === 'every stage' ? Math.max(3, Math.ceil(pairs / 2)) : pairs;
  for (let k = 0; k < n; k++) {
    // Alternate which side goes first, so neither always runs after the other's disk write-back.
    const [x, y] = k % 2 ? [side(base, [...args], b), side('.', [...args], a)] : [side('.', [...args], a), side(base, [...args], b)];
    const [me, them] = k % 2 ? [y, x] : [x, y];
    ours.push(me);
    theirs.push(them);
    ratios.push(them.wallMs / me.wallMs);
  }
  const same = readFileSync(join(a, 'final.r16')).equals(readFileSync(join(b, 'final.r16')));
  const fmt = (rs: WholeRun[]) =>
    `wall median ${median(rs.map((r) => r.wallMs)).toFixed(0)} ms, CPU median ${median(rs.map((r) => r.cpuMs)).toFixed(0)} ms, peak RSS ${Math.max(...rs.map((r) => r.peakRssMB)).toFixed(0)} MB`;
  rows.push({
    name: `run tundra-r19 ${label}, whole process: this build (${n} interleaved pairs)`,
    ms: median(ours.map((r) => r.wallMs)),
    peer: { name: `previous build ${base}`, ms: median(theirs.map((r) => r.wallMs)) },
    target: label === '--stages final' ? 'ratio ≥ 1.8×, peak RSS ≤ 400 MB' : 'not slower',
    note: `median of per-pair ratios ${median(ratios).toFixed(2)}× (pairs ${ratios.map((r) => r.toFixed(2)).join(' ')}); this: ${fmt(ours)}; previous: ${fmt(theirs)}; final.r16 ${same ? 'byte-identical' : 'DIFFERS'}`,
  });
}
{
  const two: WholeRun[] = [];
  const one: WholeRun[] = [];
  const ratios: number[] = [];
  const a = join(BENCH_DIR, 'run-pair-two');
  const b = join(BENCH_DIR, 'run-pair-one');
  for (let k = 0; k < pairs; k++) {
    const [x, y] =
      k % 2
        ? [side('.', ['--stages', 'final'], b, true), side('.', ['--stages', 'final'], a)]
        : [side('.', ['--stages', 'final'], a), side('.', ['--stages', 'final'], b, true)];
    const [t, o] = k % 2 ? [y, x] : [x, y];
    two.push(t);
    one.push(o);
    ratios.push(o.wallMs / t.wallMs);
  }
  const same = readFileSync(join(a, 'final.r16')).equals(readFileSync(join(b, 'final.r16')));
  rows.push({
    name: `run tundra-r19 --stages final, whole process: this build on two threads (${pairs} interleaved pairs)`,
    ms: median(two.map((r) => r.wallMs)),
    peer: { name: 'this build, HEIGHTBENCH_NO_THREADS=1', ms: median(one.map((r) => r.wallMs)) },
    note: `median of per-pair ratios ${median(ratios).toFixed(2)}× (pairs ${ratios.map((r) => r.toFixed(2)).join(' ')}); CPU medians ${median(two.map((r) => r.cpuMs)).toFixed(0)} / ${median(one.map((r) => r.cpuMs)).toFixed(0)} ms; final.r16 ${same ? 'byte-identical' : 'DIFFERS'}`,
  });
}
report('run-pair', rows);
