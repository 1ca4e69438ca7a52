/**
 * `npm run bench`: runs each section in its own process (so peak RSS is per section) and prints a table.
 * `npm run bench -- formats compare` runs only the named sections. Results also go to .bench/results.json.
 */
import { spawnSync } from 'node:child_process';
import { readdirSync, writeFileSync } from 'node:fs';
import { BENCH_DIR, type BenchRow } from './util.js';

const all = readdirSync('bench/sections')
  .filter((f) => f.endsWith('.ts'))
  .map((f) => f.slice(0, -3))
  .sort();
const wanted = process.argv.slice(2).filter((a) => !a.startsWith('-'));
const sections = wanted.length ? all.filter((s) => wanted.includes(s)) : all;
const results: { section: string; rows: BenchRow[]; peakRssMB: number }[] = [];
for (const s of sections) {
  const r = spawnSync(process.execPath, ['--expose-gc', '--max-old-space-size=4096', '--import', 'tsx', `bench/sections/${s}.ts`], {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const line = r.stdout.trim().split('\n').pop() ?? '';
  if (r.status !== 0 || !line.startsWith('{')) {
    console.error(`bench section ${s} failed (exit ${r.status})`);
    process.exitCode = 1;
    continue;
  }
  const res = JSON.parse(line);
  results.push(res);
  console.log(`\n== ${s} (peak RSS ${res.peakRssMB.toFixed(0)} MB)`);
  for (const row of res.rows as BenchRow[]) {
    let line = `  ${row.name}: ${row.ms.toFixed(1)} ms`;
    if (row.peer) line += ` | ${row.peer.name}: ${row.peer.ms.toFixed(1)} ms | ratio peer/ours ${(row.peer.ms / row.ms).toFixed(2)}×`;
    if (row.target) line += ` | target ${row.target}`;
    if (row.note) line += ` | ${row.note}`;
    console.log(line);
  }
}
writeFileSync(`${BENCH_DIR}/results.json`, `${JSON.stringify(results, null, 2)}\n`);
