/**
 * GPU reference (issue 16) on Dawn for Node + SwiftShader:
 *  - one 5-tap filter pass (X) and the whole smoothing chain (corrected rule: four filtered levels + combine) at
 *    1024² and 4096², in-process (median of repeats, each waited with onSubmittedWorkDone) and whole-process (node
 *    start to exit of a child that opens the device, uploads a field, runs once and exits);
 *  - the whole GPU reference of tundra-r19 (plan → draw list → GPU executor → codes) at 1024² (target ≤ 20 s) and
 *    4096² (target ≤ 120 s), whole process, with the child's peak RSS (target ≤ 1 GB).
 * Timings include the GPU work only for in-process rows (no read-back); whole-process rows include everything.
 */
import { spawnSync } from 'node:child_process';
import { report, type BenchRow } from '../util.js';

const mode = process.argv[2];

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
    const { loadRequest } = await import('../../src/pipeline/request.js');
    const { buildPlan } = await import('../../src/pipeline/plan.js');
    const { ensureAssets } = await import('../../src/pipeline/run.js');
    const { selectStamps } = await import('../../src/pipeline/stamps.js');
    const { buildDrawList } = await import('../../src/drawlist/emit.js');
    const { runGpu } = await import('../../src/gpu/run.js');
    const { join } = await import('node:path');
    const req = loadRequest(what, n);
    const plan = buildPlan(req);
    const assetsDir = join(process.cwd(), 'assets');
    const assets = ensureAssets(plan.world, assetsDir);
    const stamps = selectStamps(plan.regions, plan.world, plan.stream);
    const dl = buildDrawList(plan, { size: n, stamps, assets, assetsDir });
    const t0 = performance.now();
    // Stage fields are handed over and dropped (as a writer would), so the Node side holds one at a time.
    const r = await runGpu(dl, { assetsDir, onStage: () => {} });
    process.stderr.write(`${JSON.stringify({ gpuMs: performance.now() - t0, timings: r.timings })}\n`);
  }
  process.stdout.write(`${JSON.stringify({ rssMB: process.resourceUsage().maxRSS / 1024 })}\n`);
  process.exit(0);
}

function wholeProcess(args: string[]): { ms: number; rssMB: number; detail: string } {
  const t0 = performance.now();
  const c = spawnSync(process.execPath, ['--import', 'tsx', 'bench/sections/gpu.ts', '--child', ...args], { encoding: 'utf8' });
  const ms = performance.now() - t0;
  if (c.status !== 0) throw new Error(`child ${args.join(' ')} failed: ${c.stderr}`);
  const last = JSON.parse(c.stdout.trim().split('\n').pop() ?? '{}') as { rssMB: number };
  return { ms, rssMB: last.rssMB, detail: c.stderr.trim().split('\n').filter((l) => l.startsWith('{')).pop() ?? '' };
}

const rows: BenchRow[] = [];
for (const n of [1024, 4096]) {
  const reps = n === 4096 ? 3 : 5;
  const p = await passOnce(n, 'pass', reps);
  rows.push({ name: `GPU one 5-tap pass (X), ${n}², in-process`, ms: p.median, note: `median of ${reps}: ${p.all.map((v) => v.toFixed(0)).join(', ')} ms` });
  const c = await passOnce(n, 'chain', reps);
  rows.push({ name: `GPU smoothing chain (4 filtered levels + combine), ${n}², in-process`, ms: c.median, note: `median of ${reps}: ${c.all.map((v) => v.toFixed(0)).join(', ')} ms` });
}
for (const n of [1024, 4096]) {
  for (const what of ['pass', 'chain'] as const) {
    const w = wholeProcess([what, String(n)]);
    rows.push({ name: `GPU ${what === 'pass' ? 'one 5-tap pass' : 'smoothing chain'}, ${n}², whole process (node start → exit)`, ms: w.ms, note: `peak RSS ${w.rssMB.toFixed(0)} MB` });
  }
}
for (const [n, target] of [
  [1024, '≤ 20 s whole process'],
  [4096, '≤ 120 s whole process, peak RSS ≤ 1 GB'],
] as const) {
  const w = wholeProcess(['tundra-r19', String(n)]);
  rows.push({ name: `GPU reference tundra-r19, ${n}², whole process (plan + draw list + GPU + read-backs)`, ms: w.ms, target, note: `peak RSS ${w.rssMB.toFixed(0)} MB; ${w.detail}` });
}
report('gpu', rows);
process.exit(0);
