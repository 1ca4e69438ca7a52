/**
 * Issue 25, the loop: executing the notebooks as `make test` and the DVC notebooks stage do
 * (scripts/run-notebooks.mjs: every notebook from its .nb.ts source, two kernels at a time, 01-formulas twice, HTML
 * export), node start to exit under GNU time. Before: the ordinary tslab kernel, each cell type checked as it
 * compiles (HEIGHTBENCH_NOTEBOOK_KERNEL=tslab, how the notebooks ran until the headless kernel); after: the default,
 * tslab-headless (scripts/tslab-headless.mjs, no per-cell type check) with every cell type checked once beside it
 * (scripts/check-notebooks.mjs). Target ≤ 30 s on the 2-core machine. Each figure is one run, with the load average
 * read before it (the machine is shared; docs/speed.md); dist must be built (make build).
 */
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { BENCH_DIR, report, type BenchRow } from '../util.js';
import { wholeProcess } from '../whole.js';

const rows: BenchRow[] = [];
for (const kernel of ['tslab', 'tslab-headless'] as const) {
  process.env.HEIGHTBENCH_NOTEBOOK_KERNEL = kernel;
  const load = loadavg()[0];
  const r = wholeProcess([
    process.execPath,
    'scripts/run-notebooks.mjs',
    '--results',
    join(BENCH_DIR, `notebooks-${kernel}.json`),
    '--export',
    join(BENCH_DIR, 'notebooks-html'),
  ]);
  if (r.status !== 0) throw new Error(`run-notebooks on ${kernel} exited ${r.status}: ${r.stderr.slice(-2000)}`);
  rows.push({
    name:
      kernel === 'tslab'
        ? 'notebooks, execute + export, tslab kernel, every cell type checked as it compiles (before)'
        : 'notebooks, execute + export, tslab-headless + one type check of every cell (after)',
    ms: r.wallMs,
    target: kernel === 'tslab-headless' ? '≤ 30 s' : undefined,
    note: `whole process, one run, load average ${load.toFixed(2)} before it; peak RSS ${r.peakRssMB.toFixed(0)} MB`,
  });
}
delete process.env.HEIGHTBENCH_NOTEBOOK_KERNEL;
report('notebooks', rows);
