/**
 * GPU reference (issue 16) on Dawn for Node + SwiftShader:
 *  - one 5-tap filter pass (X) and the whole smoothing chain (corrected rule: four filtered levels + combine) at
 *    1024² and 4096², in-process (median of repeats, each waited with onSubmittedWorkDone) and whole-process (node
 *    start to exit of a child that opens the device, uploads a field, runs once and exits);
 *  - the GPU reference of tundra-r19 as a user runs it — `heightbench run tundra-r19 --size N --backend webgpu` from
 *    dist/, writing every stage file — at 1024² (target ≤ 20 s) and 4096² (target ≤ 120 s), whole process, with that
 *    process's peak RSS (target ≤ 1 GB; read at exit by a preloaded one-line module) and its timings.json;
 *  - where the time goes at 4096², in-process: the draw list (plan + emit), then per executor stage the GPU work (wait
 *    on onSubmittedWorkDone), the read-back and the hand-over (the stage events of execute.ts; the hand-over here
 *    drops the field, so it is ~0, while the CLI row above includes writing each file).
 * Timings include the GPU work only for in-process rows (no read-back); whole-process rows include everything.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { BENCH_DIR, report, type BenchRow } from '../util.js';

const mode = process.argv[2];

/**
 * This process's peak resident set, MB: VmHWM from /proc/self/status where it exists. Not getrusage's maxRSS: Linux
 * carries the parent's resident size at fork into a child's ru_maxrss across exec, so a child started by this (large)
 * bench process would report at least the parent's size.
 */
function peakRssMB(): number {
  try {
    const m = /VmHWM:\s+(\d+) kB/.exec(readFileSync('/proc/self/status', 'utf8'));
    if (m) return Number(m[1]) / 1024;
  } catch {
    // not Linux: fall back below
  }
  return process.resourceUsage().maxRSS / 1024;
}

async function ctxAndField(n: number) {
  const { openDawn } = await import('../../src/gpu/dawn-host.js');
  const { textureFrom, fieldTexture } = await import('../../src/gpu/context.js');
  const ctx = await openDawn();
  const f = new Float32Array(n * n);
  for (let k = 0; k < f.length; k++) f[k] = Math.sin(k * 0.001) * 50 + (k % 97) * 0.01;
  const src = textureFrom(ctx, f, n, n, 'src');
  const a = fieldTexture(ctx, n, n, 'a');
  const b = fieldTexture(ctx, n, n, 'b');
  return { ctx, src, a, b };
}

async function timeGpu(repeats: number, fn: () => Promise<void>): Promise<{ median: number; all: number[] }> {
  await fn(); // warm-up: pipeline creation, shader compilation
  const t: number[] = [];
  for (let r = 0; r < repeats; r++) {
    const t0 = performance.now();
    await fn();
    t.push(performance.now() - t0);
  }
  const s = [...t].sort((x, y) => x - y);
  return { median: s[Math.floor(s.length / 2)], all: t };
}

async function passOnce(n: number, what: 'pass' | 'chain', repeats: number): Promise<{ median: number; all: number[] }> {
  const { encodeSmoothingPass, encodeSmoothingChain } = await import('../../src/gpu/smoothing.js');
  const { ctx, src, a, b } = await ctxAndField(n);
  return timeGpu(repeats, async () => {
    const enc = ctx.device.createCommandEncoder();
    if (what === 'pass') encodeSmoothingPass(ctx, enc, 'fs_filter_x', src, a);
    const res = what === 'chain' ? encodeSmoothingChain(ctx, enc, src, b, true) : null;
    ctx.device.queue.submit([enc.finish()]);
    await ctx.device.queue.onSubmittedWorkDone();
    if (res) for (const t of [...res.levels, ...res.scratch]) t.destroy();
  });
}

if (mode === '--child') {
  const [what, nArg] = process.argv.slice(3);
  const n = Number(nArg);
  if (what === 'pass' || what === 'chain') {
    await passOnce(n, what, 0);
  } else {
    // Where the time goes: the draw list, then each stage's GPU work, read-back and hand-over.
    const { loadRequest } = await import('../../src/plan/request.js');
    const { emitRequestDrawList } = await import('../../src/cli/gpu-run.js');
    const { runGpu } = await import('../../src/gpu/run.js');
    const { readListAssetBytes } = await import('../../src/pipeline/inputs.js');
    const t0 = performance.now();
    const { drawList, assetsDir } = emitRequestDrawList(loadRequest(what, n));
    const parts = [`draw list ${((performance.now() - t0) / 1000).toFixed(2)} s`];
    const t1 = performance.now();
    await runGpu(drawList, {
      assetBytes: readListAssetBytes(drawList, assetsDir),
      onStage: () => {},
      onProgress: (e) => {
        if (e.phase === 'done') parts.push(`${e.stage} ${(e.gpuMs / 1000).toFixed(2)} + ${(e.readbackMs / 1000).toFixed(2)} s`);
      },
    });
    process.stderr.write(`${JSON.stringify({ totalMs: performance.now() - t0, gpuMs: performance.now() - t1, parts })}\n`);
  }
  process.stdout.write(`${JSON.stringify({ rssMB: peakRssMB() })}\n`);
  process.exit(0);
}

function wholeProcess(args: string[]): { ms: number; rssMB: number; detail: string } {
  const t0 = performance.now();
  const c = spawnSync(process.execPath, ['--import', 'tsx', 'bench/sections/gpu.ts', '--child', ...args], { encoding: 'utf8' });
  const ms = performance.now() - t0;
  if (c.status !== 0) throw new Error(`child ${args.join(' ')} failed: ${c.stderr}`);
  const last = JSON.parse(c.stdout.trim().split('\n').pop() ?? '{}') as { rssMB: number };
  return {
    ms,
    rssMB: last.rssMB,
    detail:
      c.stderr
        .trim()
        .split('\n')
        .filter((l) => l.startsWith('{'))
        .pop() ?? '',
  };
}

const rows: BenchRow[] = [];
for (const n of [1024, 4096]) {
  const reps = n === 4096 ? 3 : 5;
  const p = await passOnce(n, 'pass', reps);
  rows.push({ name: `GPU one 5-tap pass (X), ${n}², in-process`, ms: p.median, note: `median of ${reps}: ${p.all.map((v) => v.toFixed(0)).join(', ')} ms` });
  const c = await passOnce(n, 'chain', reps);
  rows.push({
    name: `GPU smoothing chain (4 filtered levels + combine), ${n}², in-process`,
    ms: c.median,
    note: `median of ${reps}: ${c.all.map((v) => v.toFixed(0)).join(', ')} ms`,
  });
}
for (const n of [1024, 4096]) {
  for (const what of ['pass', 'chain'] as const) {
    const w = wholeProcess([what, String(n)]);
    rows.push({
      name: `GPU ${what === 'pass' ? 'one 5-tap pass' : 'smoothing chain'}, ${n}², whole process (node start → exit)`,
      ms: w.ms,
      note: `peak RSS ${w.rssMB.toFixed(0)} MB`,
    });
  }
}
/** Prints the process's peak RSS (MB, VmHWM as peakRssMB reads it) as the last stderr line at exit (preloaded into the CLI). */
const RSS_AT_EXIT =
  "data:text/javascript,process.on('exit',()=>{let mb=process.resourceUsage().maxRSS/1024;" +
  "try{const m=/VmHWM:\\s+(\\d+) kB/.exec(process.getBuiltinModule('fs').readFileSync('/proc/self/status','utf8'));if(m)mb=Number(m[1])/1024}catch{}" +
  "process.stderr.write('\\n{\"rssMB\":'+mb+'}\\n')})";

function cliRun(request: string, n: number): { ms: number; rssMB: number; timings: Record<string, number> } {
  const out = join(BENCH_DIR, `gpu-${request}-${n}`);
  rmSync(out, { recursive: true, force: true });
  const t0 = performance.now();
  const c = spawnSync(
    process.execPath,
    ['--import', RSS_AT_EXIT, 'bin/heightbench.mjs', 'run', request, '--size', String(n), '--backend', 'webgpu', '--quiet', '--out', out],
    { encoding: 'utf8' },
  );
  const ms = performance.now() - t0;
  if (c.status !== 0) throw new Error(`heightbench run ${request} --size ${n} --backend webgpu failed (exit ${c.status}): ${c.stderr}`);
  const rss = JSON.parse(c.stderr.trim().split('\n').pop() ?? '{}') as { rssMB: number };
  const timings = (JSON.parse(readFileSync(join(out, 'timings.json'), 'utf8')) as { timingsMs: Record<string, number> }).timingsMs;
  rmSync(out, { recursive: true, force: true });
  return { ms, rssMB: rss.rssMB, timings };
}

for (const [n, target] of [
  [1024, '≤ 20 s whole process, peak RSS ≤ 1 GB'],
  [4096, '≤ 120 s whole process, peak RSS ≤ 1 GB'],
] as const) {
  const w = cliRun('tundra-r19', n);
  const stages = Object.entries(w.timings)
    .map(([k, v]) => `${k} ${(v / 1000).toFixed(2)}`)
    .join(', ');
  rows.push({
    name: `GPU reference tundra-r19, ${n}², whole process (heightbench run --backend webgpu: plan, draw list, GPU, read-backs, every stage file written)`,
    ms: w.ms,
    target,
    note: `peak RSS ${w.rssMB.toFixed(0)} MB; stages incl. writing (s): ${stages}`,
  });
}
{
  const w = wholeProcess(['tundra-r19', '4096']);
  const d = JSON.parse(w.detail) as { totalMs: number; gpuMs: number; parts: string[] };
  rows.push({
    name: 'GPU reference tundra-r19, 4096², where the time goes (in-process: draw list, then per stage GPU work + read-back)',
    ms: d.totalMs,
    note: `${d.parts.join('; ')}; peak RSS ${w.rssMB.toFixed(0)} MB (tsx child, fields dropped)`,
  });
}
report('gpu', rows);
process.exit(0);
