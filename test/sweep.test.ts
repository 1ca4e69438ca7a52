/**
 * heightbench sweep: the request expansion and its refusals, one batch's records against the golden stage digests
 * (teaching-512: the same SHA-256 values test/golden.test.ts pins for the files `run` writes), a local Dask cluster of
 * two workers against committed per-request digests (test/fixtures/sweep-tundra-128.json — heightbench's own output:
 * a regression reference, not an independent one), resume and gather, and a worker of a loopback scheduler
 * (`dask scheduler` + two `dask worker`) killed mid-sweep: its batch is rescheduled and every record arrives once.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, rmSync, statSync, unlinkSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { expandSweep, parseSchedulerAddress, parseSeeds, parseShard, parseVariation, shardItems } from '../src/sweep/requests.js';
import { runBatch, type SweepRecord } from '../src/sweep/batch.js';
import { loadRequest } from '../src/plan/request.js';
import { cli, tempDir } from './helpers.js';

const root = resolve(import.meta.dirname, '..');
const bin = join(root, 'bin', 'heightbench.mjs');
const venv = join(root, '.venv', 'bin');
const env: NodeJS.ProcessEnv = { ...process.env, PATH: `${venv}:${process.env.PATH ?? ''}` };
delete env.DASK_SCHEDULER_ADDRESS;

function sweep(args: string[]): { code: number; out: string; err: string } {
  const r = spawnSync(process.execPath, [bin, 'sweep', ...args], { cwd: root, env, encoding: 'utf8', timeout: 170_000 });
  return { code: r.status ?? -1, out: r.stdout, err: r.stderr };
}

function records(dir: string): Map<string, SweepRecord> {
  const d = join(dir, 'records');
  return new Map(
    readdirSync(d)
      .filter((f) => f.endsWith('.json') && !f.startsWith('.'))
      .map((f) => [f.slice(0, -5), JSON.parse(readFileSync(join(d, f), 'utf8')) as SweepRecord]),
  );
}

describe('sweep: the requests and the refusals', () => {
  it('expands seed ranges and lists, variations and shards in a fixed order', () => {
    expect(parseSeeds('1-3,7, 10-11')).toEqual([1, 2, 3, 7, 10, 11]);
    expect(parseShard('2/5')).toEqual({ index: 2, count: 5 });
    expect(parseSchedulerAddress('tcp://10.0.0.5:8786')).toBe('tcp://10.0.0.5:8786');
    expect(parseVariation('locationCategories=[1,2,6],[8]')).toEqual({ field: 'locationCategories', values: [[1, 2, 6], [8]] });
    const req = loadRequest('tundra-r19');
    const { id, ...fields } = req;
    const items = expandSweep({
      base: id,
      request: { format: 'heightbench.request', version: 1, id, ...fields },
      seeds: [5, 6],
      vary: [parseVariation('locationCategories=[1,2,6],[8]')],
      size: 64,
    });
    expect(items.map((i) => i.key)).toEqual([
      'tundra-r19@5@64@{"locationCategories":[1,2,6]}',
      'tundra-r19@6@64@{"locationCategories":[1,2,6]}',
      'tundra-r19@5@64@{"locationCategories":[8]}',
      'tundra-r19@6@64@{"locationCategories":[8]}',
    ]);
    expect(new Set(items.map((i) => i.name)).size).toBe(4);
    expect(items[2].request).toMatchObject({ seed: 5, size: 64, locationCategories: [8] });
    // Shards partition the sweep: every request in exactly one.
    const shards = [0, 1, 2].map((k) => shardItems(items, { index: k, count: 3 }).map((i) => i.key));
    expect(shards.flat().sort()).toEqual(items.map((i) => i.key).sort());
  });

  it.each([
    [['--seeds', '9-3'], '"9-3"'],
    [['--seeds', '0'], 'seed 0'],
    [['--seeds', '1-2147483647'], '2147483647'],
    [['--seeds', '1,x'], '"x"'],
    [['--seeds', '1-2', '--size', '8'], '8'],
    [['--seeds', '1-2', '--size', '1e3'], '1e3'],
    [['--seeds', '1-2', '--shard', '4/4'], '"4/4"'],
    [['--seeds', '1-2', '--shard', '1-4'], '"1-4"'],
    [['--seeds', '1-2', '--scheduler', 'localhost:8786'], '"localhost:8786"'],
    [['--seeds', '1-2', '--scheduler', 'tcp://h:0'], '"tcp://h:0"'],
    [['--seeds', '1-2', '--vary', 'seed=1,2'], '"seed"'],
    [['--seeds', '1-2', '--vary', 'recipeEntry=1.5'], '1.5'],
    [['--seeds', '1-2', '--against', 'no-such-folder'], 'no-such-folder'],
  ])('refuses %j with exit 2, naming the value, and writes nothing', async (args, named) => {
    const d = tempDir('hb-sweep-bad-');
    const out = join(d, 'out');
    const r = await cli('sweep', 'tundra-r19', ...args, '--out', out);
    expect(r.code).toBe(2);
    expect(r.err).toContain(named);
    expect(existsSync(out)).toBe(false);
  });
});

describe('sweep: one batch (assets loaded once)', () => {
  it("teaching-512's records carry the stage digests of the files `run` writes (test/golden.test.ts)", async () => {
    const req = loadRequest('teaching-512');
    const { id, ...fields } = req;
    const [item] = expandSweep({
      base: id,
      request: { format: 'heightbench.request', version: 1, id, ...fields },
      seeds: [req.seed],
      vary: [],
      size: req.size,
    });
    const got: SweepRecord[] = [];
    await runBatch([item], { against: { kind: 'f64' }, detail: 'stages' }, (r) => got.push(r));
    expect(got).toHaveLength(1);
    const r = got[0];
    // The pins of test/golden.test.ts (payload digests of run's .r32/.r16 files and the f64 final).
    expect(r.sha256.generated['pre-encode']).toBe('5b2e891f1ecb484446ef2bb5679fa541529234057f539942095de4cd0822da3b');
    expect(r.sha256.generated['raster-layer0']).toBe('8a669270eec904c067a5d99a780a9781b3a538239529264af7a18dce2f15f3bd');
    expect(r.sha256.generated.final).toBe('599fe4fc2e7ca071637357560102d1c8fa8efccadaeceb082232cbb2ad8cb288');
    expect(r.sha256.reference.final).toBe('81f367e17da0e18f475734148721d4a910a1fac9a59545a5ea23b7cbce910b30');
    // Invariants of one comparison: the histogram sums to the pixels, exact is its 0 bin, and every differing pixel
    // has a first divergent stage.
    expect(Object.values(r.final.histogram).reduce((a, b) => a + b, 0)).toBe(512 * 512);
    expect(r.final.histogram['0']).toBe(r.final.exact);
    expect(Object.values(r.firstDivergence ?? {}).reduce((a, b) => a + b, 0)).toBe(r.final.pixels - r.final.exact);
    // teaching-512 asks for location category 8: the survey stage's rectangles are exercised.
    expect(r.branches['layout.shape-rect']).toBeGreaterThan(0);
  }, 120_000);
});

describe('sweep: on Dask', () => {
  const d = tempDir('hb-sweep-');
  const fixture = JSON.parse(readFileSync(join(root, 'test', 'fixtures', 'sweep-tundra-128.json'), 'utf8')) as {
    records: Record<string, { generated: Record<string, string>; reference: Record<string, string>; exact: number; maxAbsCode: number }>;
  };

  it('a local cluster of 2 workers: every request recorded once, each stage digest as committed; the survey report', () => {
    const out = join(d, 'local');
    const r = sweep(['tundra-r19', '--seeds', '1-4', '--size', '128', '--workers', '2', '--batch', '2', '--out', out]);
    expect(r.err + r.out).toMatch(/sweep/);
    expect(r.code).toBe(0);
    const got = records(out);
    expect([...got.keys()].sort()).toEqual(['tundra-r19-s1-n128', 'tundra-r19-s2-n128', 'tundra-r19-s3-n128', 'tundra-r19-s4-n128']);
    for (const rec of got.values()) {
      const want = fixture.records[rec.key];
      expect(want, rec.key).toBeDefined();
      expect(rec.sha256.generated).toEqual(want.generated);
      expect(rec.sha256.reference).toEqual(want.reference);
      expect(rec.final.exact).toBe(want.exact);
    }
    const mismatched = Object.entries(fixture.records).filter(([, v]) => v.exact < 128 * 128).length;
    const survey = JSON.parse(readFileSync(join(out, 'report', 'survey.json'), 'utf8'));
    expect(survey.headline).toContain(`${mismatched} of 4 requests mismatched`);
    expect(survey.mismatched.count).toBe(mismatched);
    expect(readFileSync(join(out, 'report', 'summary.md'), 'utf8')).toContain('Folded digest per stage');
    expect(JSON.parse(readFileSync(join(out, 'report', 'metrics.json'), 'utf8'))).toMatchObject({ requests: 4, mismatched, missing: 0 });
  }, 180_000);

  it('--resume runs only the requests without a record; without it the folder is refused', () => {
    const out = join(d, 'local');
    const keep = join(out, 'records', 'tundra-r19-s1-n128.json');
    const before = statSync(keep).mtimeMs;
    unlinkSync(join(out, 'records', 'tundra-r19-s3-n128.json'));
    const refused = sweep(['tundra-r19', '--seeds', '1-4', '--size', '128', '--out', out]);
    expect(refused.code).toBe(2);
    expect(refused.err).toContain('--resume');
    const r = sweep(['tundra-r19', '--seeds', '1-4', '--size', '128', '--workers', '1', '--out', out, '--resume']);
    expect(r.code).toBe(0);
    expect(r.err).toContain('3 recorded, 1 to run');
    expect(statSync(keep).mtimeMs).toBe(before);
    expect(records(out).get('tundra-r19-s3-n128')?.sha256.generated).toEqual(fixture.records['tundra-r19@3@128'].generated);
    // A resume of another sweep into the folder is refused.
    const other = sweep(['tundra-r19', '--seeds', '1-4', '--size', '64', '--out', out, '--resume']);
    expect(other.code).toBe(2);
    expect(other.err).toContain('definition');
  }, 180_000);

  it('gather joins shards, names missing requests, refuses records of other settings', async () => {
    const s0 = join(d, 's0');
    const s1 = join(d, 's1');
    const args = ['tundra-r19', '--seeds', '1-3', '--size', '64', '--workers', '1', '--detail', 'final', '--no-report'];
    expect(sweep([...args, '--shard', '0/2', '--out', s0]).code).toBe(0);
    expect([...records(s0).keys()].sort()).toEqual(['tundra-r19-s1-n64', 'tundra-r19-s3-n64']);
    const partial = await cli('sweep', 'gather', s0, '--out', join(d, 'g0'));
    expect(partial.code).toBe(3);
    expect(partial.err).toContain('1 of 3 request(s) missing: tundra-r19-s2-n64');
    expect(
      sweep(['tundra-r19', '--seeds', '1-3', '--size', '64', '--workers', '1', '--detail', 'stages', '--no-report', '--shard', '1/2', '--out', s1]).code,
    ).toBe(0);
    const mixed = await cli('sweep', 'gather', s0, s1, '--out', join(d, 'g1'));
    expect(mixed.code).toBe(2);
    expect(mixed.err).toMatch(/records of different detail: "final" .* and "stages"/);
    rmSync(s1, { recursive: true });
    expect(sweep([...args, '--shard', '1/2', '--out', s1]).code).toBe(0);
    const whole = await cli('sweep', 'gather', s0, s1, '--out', join(d, 'g2'));
    expect(whole.code).toBe(0);
    expect([...records(join(d, 'g2')).keys()].sort()).toEqual(['tundra-r19-s1-n64', 'tundra-r19-s2-n64', 'tundra-r19-s3-n64']);
  }, 240_000);
});

describe('sweep: a worker killed mid-sweep', () => {
  const procs: ChildProcess[] = [];
  afterAll(() => {
    for (const p of procs) if (p.exitCode === null && p.signalCode === null) p.kill('SIGKILL');
  });

  /** Pids whose parent is `pid` (Linux /proc). */
  function children(pid: number): number[] {
    return readdirSync('/proc')
      .filter((e) => /^\d+$/.test(e))
      .filter((e) => {
        try {
          const stat = readFileSync(`/proc/${e}/stat`, 'utf8');
          return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]) === pid;
        } catch {
          return false;
        }
      })
      .map(Number);
  }

  const wait = (ms: number) => new Promise((r) => setTimeout(r, ms));

  it.runIf(process.platform === 'linux' && existsSync(join(venv, 'dask')))(
    'a loopback scheduler with 2 workers: one is killed while it runs a batch; the batch is rescheduled, every record arrives once',
    async () => {
      const d = tempDir('hb-sweep-kill-');
      const file = join(d, 'scheduler.json');
      const dask = join(venv, 'dask');
      // Their scratch space in the test's folder, not the system's temporary folder.
      const quiet = { env: { ...env, DASK_TEMPORARY_DIRECTORY: join(d, 'scratch') }, stdio: 'ignore' as const };
      procs.push(spawn(dask, ['scheduler', '--host', '127.0.0.1', '--port', '0', '--no-dashboard', '--scheduler-file', file], { ...quiet, cwd: d }));
      for (let k = 0; k < 300 && !existsSync(file); k++) await wait(100);
      const address = (JSON.parse(readFileSync(file, 'utf8')) as { address: string }).address;
      const worker = () => spawn(dask, ['worker', address, '--nthreads', '1', '--no-nanny', '--no-dashboard', '--local-directory', join(d, 'scratch')], quiet);
      const a = worker();
      const b = worker();
      procs.push(a, b);
      const out = join(d, 'out');
      const run = spawn(
        process.execPath,
        [
          bin,
          'sweep',
          'tundra-r19',
          '--seeds',
          '1-6',
          '--size',
          '64',
          '--detail',
          'final',
          '--batch',
          '1',
          '--no-report',
          '--scheduler',
          address,
          '--out',
          out,
        ],
        {
          cwd: root,
          env,
        },
      );
      procs.push(run);
      let err = '';
      run.stderr.on('data', (c: Buffer) => (err += c.toString()));
      const exited = new Promise<number>((res) => run.on('exit', (code) => res(code ?? -1)));
      // Kill worker a as soon as it runs a batch (a heightbench process is its child).
      let batchPids: number[] = [];
      for (let k = 0; k < 1200 && batchPids.length === 0; k++) {
        batchPids = children(a.pid!);
        if (batchPids.length === 0) await wait(50);
      }
      expect(batchPids.length).toBeGreaterThan(0);
      const killedAt = Date.now();
      a.kill('SIGKILL');
      const code = await exited;
      expect(err).not.toContain('a batch failed');
      expect(code).toBe(0);
      const got = records(out);
      expect([...got.keys()].sort()).toEqual([1, 2, 3, 4, 5, 6].map((s) => `tundra-r19-s${s}-n64`));
      // No temporary left behind; each request once (one file per name, each naming its own key).
      expect(readdirSync(join(out, 'records')).filter((f) => f.startsWith('.'))).toEqual([]);
      expect(new Set([...got.values()].map((r) => r.key)).size).toBe(6);
      // The survivor recorded what came after the kill, and the killed worker's batch process did not outlive it.
      const after = [...got.entries()].filter(([n]) => statSync(join(out, 'records', `${n}.json`)).mtimeMs >= killedAt).map(([, r]) => r.worker);
      expect(after.length).toBeGreaterThan(0);
      expect(new Set(after).size).toBe(1);
      await wait(500);
      for (const p of batchPids) expect(existsSync(`/proc/${p}`) && !readFileSync(`/proc/${p}/stat`, 'utf8').includes(') Z ')).toBe(false);
    },
    240_000,
  );
});
