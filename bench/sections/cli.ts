/**
 * Issue 15: the run as a user times it — node start to exit (GNU time: wall, peak RSS) — beside the in-process figures.
 *  - `heightbench run tundra-r19 --stages final --out DIR` ≤ 1.5 s and ≤ 400 MB peak RSS; in-process pipeline ≤ 1.0 s;
 *  - the default all-stage run ≤ 3.0 s;
 *  - where the time goes outside the pipeline: the final map's PNG16 encode (Up filter, then deflate), the SHA-256
 *    digests the sidecars record, the durable writes — each measured on its own, with the former PNG writer (fast-png,
 *    filter None + fflate level 3) beside ours on the same codes.
 * Assets are built beforehand (a run only loads them). Each whole-process figure is the median of three runs.
 */
import { createHash } from 'node:crypto';
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { deflateSync, constants as zlibConstants } from 'node:zlib';
import { encode } from 'fast-png';
import { planRequest } from '../../src/pipeline/inputs.js';
import { loadRequest } from '../../src/plan/request.js';
import { ensureAssets } from '../../src/pipeline/inputs.js';
import { encodePng16 } from '../../src/io/png16.js';
import { writeFileAtomic } from '../../src/io/atomic.js';
import { BENCH_DIR, report, timeMedian, type BenchRow } from '../util.js';
import { medianOf, wholeProcess } from '../whole.js';

ensureAssets(planRequest(loadRequest('tundra-r19')).world);
const rows: BenchRow[] = [];
const out = join(BENCH_DIR, 'run-final');

function runs(args: string[], n = 3): { wall: ReturnType<typeof medianOf>; rss: number; inProcess: ReturnType<typeof medianOf> } {
  const wall: number[] = [];
  const inner: number[] = [];
  let rss = 0;
  for (let k = 0; k < n; k++) {
    rmSync(out, { recursive: true, force: true });
    const r = wholeProcess([process.execPath, 'bin/heightbench.mjs', 'run', 'tundra-r19', ...args, '--out', out, '--json', '--quiet']);
    if (r.status !== 0) throw new Error(`heightbench run exited ${r.status}: ${r.stderr}`);
    wall.push(r.wallMs);
    inner.push(JSON.parse(r.stdout).runMs as number);
    rss = Math.max(rss, r.peakRssMB);
  }
  return { wall: medianOf(wall), rss, inProcess: medianOf(inner) };
}

const fin = runs(['--stages', 'final']);
rows.push({
  name: 'heightbench run tundra-r19 --stages final (4096², f32), whole process (node start to exit, GNU time)',
  ms: fin.wall.median,
  target: '≤ 1500 ms, peak RSS ≤ 400 MB',
  note: `peak RSS ${fin.rss.toFixed(0)} MB; ${fin.wall.spread}`,
});
rows.push({ name: '  in-process: plan + pipeline (runMs, before the writes)', ms: fin.inProcess.median, target: '≤ 1000 ms', note: fin.inProcess.spread });

// What the writes cost, on the final codes the run just wrote.
const r16 = readFileSync(join(out, 'final.r16'));
const codes = new Uint16Array(r16.buffer, r16.byteOffset, r16.length / 2);
const N = 4096;
let png: Uint8Array = new Uint8Array(0);
const ours = timeMedian(
  () => {
    png = encodePng16(codes, N, N);
  },
  3,
  1,
);
rows.push({ name: `  final.png encode, ours (Up filter + zlib Z_RLE): ${(png.length / 1e6).toFixed(2)} MB`, ms: ours });
const stride = 1 + 2 * N;
const filtered = new Uint8Array(stride * N);
const filterMs = timeMedian(
  () => {
    for (let j = 0; j < N; j++) {
      filtered[j * stride] = 2;
      for (let i = 0; i < N; i++) {
        const q = codes[j * N + i];
        const u = j ? codes[(j - 1) * N + i] : 0;
        filtered[j * stride + 1 + 2 * i] = ((q >> 8) - (u >> 8)) & 255;
        filtered[j * stride + 2 + 2 * i] = (q - u) & 255;
      }
    }
  },
  3,
  1,
);
const deflateMs = timeMedian(() => void deflateSync(filtered, { level: 6, strategy: zlibConstants.Z_RLE }), 3, 1);
rows.push({ name: '    of which the Up filter (JavaScript, 4096² samples)', ms: filterMs });
rows.push({ name: '    of which deflate (node:zlib, Z_RLE)', ms: deflateMs });
let old: Uint8Array = new Uint8Array(0);
const oldMs = timeMedian(
  () => {
    old = encode({ width: N, height: N, data: codes, depth: 16, channels: 1 });
  },
  2,
  1,
);
rows.push({ name: `  final.png encode, former writer (fast-png: filter None + fflate level 3): ${(old.length / 1e6).toFixed(2)} MB`, ms: oldMs });
rows.push({ name: '  SHA-256 of final.r16 (32 MiB), for its sidecar', ms: timeMedian(() => void createHash('sha256').update(r16).digest('hex'), 3, 1) });
rows.push({
  name: `  SHA-256 of final.png (${(png.length / 1e6).toFixed(2)} MB)`,
  ms: timeMedian(() => void createHash('sha256').update(png).digest('hex'), 3, 1),
});
rows.push({ name: '  durable write of final.r16 (temp, fsync, rename)', ms: timeMedian(() => writeFileAtomic(join(BENCH_DIR, 'w.r16'), r16), 3, 1) });
rows.push({ name: '  durable write of final.png', ms: timeMedian(() => writeFileAtomic(join(BENCH_DIR, 'w.png'), png), 3, 1) });

const all = runs([]);
rows.push({
  name: 'heightbench run tundra-r19 (every stage, 4096², f32), whole process',
  ms: all.wall.median,
  target: '≤ 3000 ms',
  note: `peak RSS ${all.rss.toFixed(0)} MB; in-process plan + pipeline ${all.inProcess.median.toFixed(0)} ms; ${all.wall.spread}`,
});
rmSync(out, { recursive: true, force: true });
report('cli', rows);
