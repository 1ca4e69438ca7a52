/**
 * The edit-to-report loop as a user times it (issue 25): a one-line change under src/ (a comment line appended to one
 * file), then the whole `make reproduce` — node start to exit of make under GNU time, the build of dist/ included —
 * and again after the line is taken out (the same edit class; it also leaves the tree as it was). Which stages rerun
 * depends on which file changed (each stage depends on the sources its command loads, dvc.yaml):
 *   - src/report/check.ts: the check's report writer → the comparisons only;
 *   - src/compare/compare.ts: the comparison engine → the comparisons, the notebooks, the atlas, the sweep;
 *   - src/cpu/raster.ts: the CPU executor → every pipeline run, the notebooks, the atlas, the sweep (their outputs come
 *     out byte-identical, so no comparison reruns);
 *   - src/core/text.ts: every stage's code (the worst case: everything but the references reruns).
 * HEIGHTBENCH_LOOP_FILES=a,b picks the files. The peer row for the first file: the same edit with
 * HEIGHTBENCH_REPRO_JOBS=1 (one stage at a time, as `dvc repro` runs them). Needs a reproduced tree (make reproduce).
 * Each row also carries the stage table's sums (wall and CPU seconds of the stages that ran).
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { report, type BenchRow } from '../util.js';
import { wholeProcess } from '../whole.js';

const files = (process.env.HEIGHTBENCH_LOOP_FILES ?? 'src/report/check.ts,src/compare/compare.ts,src/cpu/raster.ts,src/core/text.ts').split(',');
const LINE = '// heightbench bench: a one-line edit (bench/sections/reproduce-loop.ts)\n';

interface Loop {
  wallMs: number;
  stages: string;
  cpu: string;
  ran: number;
}

function reproduce(env: Record<string, string> = {}): Loop {
  for (const [k, v] of Object.entries(env)) process.env[k] = v;
  const r = wholeProcess(['make', '--no-print-directory', 'reproduce']);
  for (const k of Object.keys(env)) delete process.env[k];
  if (r.status !== 0) throw new Error(`make reproduce exited ${r.status}: ${r.stderr.slice(-2000)}`);
  const total = /^total\s+\|\s+([0-9.]+)\s+\|\s+([0-9.]+)$/m.exec(r.stdout);
  const wall = /^wall \(stages at once\)\s+\|\s+([0-9.]+)/m.exec(r.stdout);
  const ran = (r.stdout.match(/^Finished stage '/gm) ?? []).length;
  return { wallMs: r.wallMs, stages: wall ? wall[1] : '0', cpu: total ? total[2] : '0', ran };
}

function edited<T>(file: string, fn: () => T): T {
  const before = readFileSync(file, 'utf8');
  writeFileSync(file, before + LINE);
  try {
    return fn();
  } finally {
    writeFileSync(file, before);
  }
}

const rows: BenchRow[] = [];
const note = (l: Loop) => `whole make reproduce; ${l.ran} stages ran, ${l.stages} s of stage wall time, ${l.cpu} s of CPU`;
for (const [n, file] of files.entries()) {
  const on = edited(file, () => reproduce());
  const off = reproduce();
  rows.push({ name: `one line added to ${file}, then make reproduce`, ms: on.wallMs, target: '≤ 60 s', note: note(on) });
  if (n === 0) {
    // The peer: the same edit, the stages one at a time (what dvc repro does).
    const serialOn = edited(file, () => reproduce({ HEIGHTBENCH_REPRO_JOBS: '1' }));
    reproduce();
    rows.push({
      name: `one line added to ${file}, stages one at a time (HEIGHTBENCH_REPRO_JOBS=1)`,
      ms: serialOn.wallMs,
      note: note(serialOn),
    });
    rows[rows.length - 2].peer = { name: 'stages one at a time', ms: serialOn.wallMs };
  }
  rows.push({ name: `the line taken out of ${file}, then make reproduce`, ms: off.wallMs, target: '≤ 60 s', note: note(off) });
}
report('reproduce-loop', rows);
