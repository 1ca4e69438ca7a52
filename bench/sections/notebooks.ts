/**
 * Issue 25, the loop: executing the notebooks as `make test` and the DVC notebooks stage do
 * (scripts/run-notebooks.mjs: every notebook from its .nb.ts source on the tslab kernel, 01-formulas twice, HTML
 * export), node start to exit under GNU time. Before: one kernel at a time (HEIGHTBENCH_NOTEBOOK_JOBS=1, how the
 * notebooks always ran); after: two kernels at a time (the default). Target ≤ 30 s on the 2-core machine.
 * Each figure is one run (the whole set takes a minute or more); dist must be built (make build).
 */
import { join } from 'node:path';
import { BENCH_DIR, report, type BenchRow } from '../util.js';
import { wholeProcess } from '../whole.js';

const rows: BenchRow[] = [];
for (const jobs of ['1', '2']) {
  process.env.HEIGHTBENCH_NOTEBOOK_JOBS = jobs;
  const r = wholeProcess([
    process.execPath,
    'scripts/run-notebooks.mjs',
    '--results',
    join(BENCH_DIR, `notebooks-${jobs}.json`),
    '--export',
    join(BENCH_DIR, 'notebooks-html'),
  ]);
  if (r.status !== 0) throw new Error(`run-notebooks with ${jobs} job(s) exited ${r.status}: ${r.stderr.slice(-2000)}`);
  rows.push({
    name: `notebooks, execute + export, ${jobs === '1' ? 'one kernel at a time (before)' : 'two kernels at a time (after)'}`,
    ms: r.wallMs,
    target: jobs === '2' ? '≤ 30 s' : undefined,
    note: `whole process, one run; peak RSS ${r.peakRssMB.toFixed(0)} MB`,
  });
}
report('notebooks', rows);
