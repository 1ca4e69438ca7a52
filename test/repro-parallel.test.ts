// scripts/repro-parallel.py (what make reproduce runs) against DVC itself: the same small project reproduced by
// `dvc repro --keep-going` in one folder and by repro-parallel.py in another must leave the same dvc.lock after each
// of three edits, while the two independent stages ran at the same time; a stage whose input came out byte-identical
// is skipped by both; a failed stage skips what depends on it and nothing else; `dvc status` agrees afterwards.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { tempDir } from './helpers.js';

const ROOT = resolve(import.meta.dirname, '..');
const PY = join(ROOT, '.venv', 'bin', 'python');
const DVC = join(ROOT, '.venv', 'bin', 'dvc');

// b and c each take ~0.6 s (b sleeping, c mostly counting in awk) and log when they ran (outside their outputs); a keeps only the first character of its
// input; e fails (exit 3) when fail.txt says so; f depends on e; h then exits 0 without its output (DVC's save
// fails); g has a parameter, an uncached output and a folder.
const DVC_YAML = `stages:
  a:
    cmd: cut -c1 in.txt > a.txt
    deps: [in.txt]
    outs: [a.txt]
  b:
    cmd: echo "b $(date +%s.%N)" >> ran.log && sleep 0.6 && cat a.txt > b.txt && echo "b-end $(date +%s.%N)" >> ran.log
    deps: [a.txt]
    outs: [b.txt]
  c:
    cmd: echo "c $(date +%s.%N)" >> ran.log && awk 'BEGIN { for (i = 0; i < 1.5e7; i++) s += i }' && cat a.txt a.txt > c.txt && echo "c-end $(date +%s.%N)" >> ran.log
    deps: [a.txt]
    outs: [c.txt]
  d:
    cmd: cat b.txt c.txt > d.txt
    deps: [b.txt, c.txt]
    outs: [d.txt]
  e:
    cmd: if grep -q 1 fail.txt; then exit 3; fi; cp fail.txt e.txt
    deps: [fail.txt]
    outs: [e.txt]
  f:
    cmd: cat e.txt > f.txt
    deps: [e.txt]
    outs: [f.txt]
  h:
    cmd: if grep -q 1 fail.txt; then rm -f h.txt; else cp fail.txt h.txt; fi
    deps: [fail.txt]
    outs: [h.txt]
  g:
    cmd: mkdir -p g && echo \${size} > g/size.txt && cat d.txt > g.json
    deps: [d.txt]
    params: [size]
    outs:
      - g
      - g.json:
          cache: false
`;

function run(cmd: string, args: string[], cwd: string) {
  const r = spawnSync(cmd, args, { cwd, encoding: 'utf8', env: { ...process.env, SHELL: '/bin/bash' } });
  return { status: r.status, out: `${r.stdout}${r.stderr}` };
}

function project(): { par: string; ser: string } {
  const base = tempDir('repro-parallel-');
  const par = join(base, 'par');
  const ser = join(base, 'ser');
  for (const dir of [par, ser]) {
    mkdirSync(dir, { recursive: true });
    expect(run(DVC, ['init', '--no-scm', '-q'], dir).status).toBe(0);
    writeFileSync(join(dir, 'dvc.yaml'), DVC_YAML);
    writeFileSync(join(dir, 'params.yaml'), 'size: 4\n');
    writeFileSync(join(dir, 'in.txt'), 'xy\n');
    writeFileSync(join(dir, 'fail.txt'), '0\n');
  }
  return { par, ser };
}

const lock = (dir: string) => parse(readFileSync(join(dir, 'dvc.lock'), 'utf8')) as Record<string, unknown>;
const lockText = (dir: string) => readFileSync(join(dir, 'dvc.lock'), 'utf8');
// repro-parallel.py writes the run's lock entries together, once (DVC logs this line for each rewrite that changes it).
const lockWrites = (out: string) => out.split('\n').filter((l) => l.includes("Updating lock file 'dvc.lock'")).length;
const ranStages = (dir: string) =>
  readFileSync(join(dir, 'ran.log'), 'utf8')
    .trim()
    .split('\n')
    .map((l) => l.split(' '));

function both(p: { par: string; ser: string }) {
  const ser = run(DVC, ['repro', '--keep-going'], p.ser);
  const par = run(PY, [join(ROOT, 'scripts', 'repro-parallel.py'), '--jobs', '2'], p.par);
  return { ser, par };
}

describe('repro-parallel.py against dvc repro', () => {
  it('writes the lock dvc repro writes, running independent stages at once, after each of three edits', () => {
    const p = project();
    // 1. Everything from nothing.
    let r = both(p);
    expect(r.ser.status, r.ser.out).toBe(0);
    expect(r.par.status, r.par.out).toBe(0);
    expect(lock(p.par)).toEqual(lock(p.ser));
    expect(lockText(p.par)).toBe(lockText(p.ser)); // in plan order, as dvc repro writes them one by one
    expect(lockWrites(r.par.out)).toBe(1);
    expect(lockWrites(r.ser.out)).toBeGreaterThan(1);
    expect(run(DVC, ['status'], p.par).out).toMatch(/up to date/);
    // b and c overlapped in time in the parallel folder (each began before the other ended).
    const t = Object.fromEntries(ranStages(p.par).map(([k, v]) => [k, Number(v)]));
    expect(t.b).toBeLessThan(t['c-end']);
    expect(t.c).toBeLessThan(t['b-end']);
    // The CPU time reported is the command's: c counted, b slept.
    const cpu = (st: string) => Number(new RegExp(`Finished stage '${st}' in [0-9.]+ s \\(([0-9.]+) s of CPU\\)`).exec(r.par.out)![1]);
    expect(cpu('c')).toBeGreaterThan(0.1);
    expect(cpu('b')).toBeLessThan(cpu('c'));
    // In DVC's folder they did not.
    const s = Object.fromEntries(ranStages(p.ser).map(([k, v]) => [k, Number(v)]));
    expect(Math.min(s['b-end'], s['c-end'])).toBeLessThanOrEqual(Math.max(s.b, s.c));

    // 2. An edit that leaves a's output byte-identical: a reruns, b, c, d and g are skipped by both.
    for (const d of [p.par, p.ser]) writeFileSync(join(d, 'in.txt'), 'xz\n');
    r = both(p);
    expect(r.par.status, r.par.out).toBe(0);
    expect(r.par.out).toMatch(/Finished stage 'a' in [0-9.]+ s \([0-9.]+ s of CPU\)/);
    for (const st of ['b', 'c', 'd', 'g']) expect(r.par.out).toContain(`Stage '${st}' didn't change, skipping`);
    expect(ranStages(p.par)).toHaveLength(4); // b and c did not run again
    expect(lock(p.par)).toEqual(lock(p.ser));
    expect(lockText(p.par)).toBe(lockText(p.ser));

    // 3. A parameter change reruns g alone; a failing stage (e) skips f, not the others; both exit non-zero.
    for (const d of [p.par, p.ser]) {
      writeFileSync(join(d, 'params.yaml'), 'size: 5\n');
      writeFileSync(join(d, 'fail.txt'), '1\n');
    }
    r = both(p);
    expect(r.ser.status).not.toBe(0);
    expect(r.par.status).toBe(1);
    expect(r.par.out).toMatch(/stage 'e' failed: its command exited with 3/);
    expect(r.par.out).toMatch(/Stage 'f' is skipped: it depends on the failed stage 'e'/);
    expect(r.par.out).toMatch(/stage 'h' failed after its command: .*h\.txt/);
    expect(readFileSync(join(p.par, 'g', 'size.txt'), 'utf8')).toBe('5\n');
    expect(lock(p.par)).toEqual(lock(p.ser));
    expect(lockText(p.par)).toBe(lockText(p.ser));
    const status = run(DVC, ['status'], p.par).out;
    expect(status).toMatch(/e:/);
    expect(status).not.toMatch(/\bg:/);
  });

  it('writes the lock entries of the stages that ended when interrupted (Ctrl-C) while another runs', async () => {
    const dir = tempDir('repro-parallel-int-');
    expect(run(DVC, ['init', '--no-scm', '-q'], dir).status).toBe(0);
    writeFileSync(
      join(dir, 'dvc.yaml'),
      'stages:\n  a:\n    cmd: cp in.txt a.txt\n    deps: [in.txt]\n    outs: [a.txt]\n' +
        '  slow:\n    cmd: while [ ! -e go ]; do sleep 0.05; done && cp a.txt slow.txt\n    deps: [a.txt]\n    outs: [slow.txt]\n',
    );
    writeFileSync(join(dir, 'in.txt'), 'x\n');
    const child = spawn(PY, [join(ROOT, 'scripts', 'repro-parallel.py')], { cwd: dir, env: { ...process.env, SHELL: '/bin/bash' } });
    let out = '';
    const ended = new Promise<number | null>((res) => child.on('close', (code) => res(code)));
    await new Promise<void>((res) => {
      const look = (d: Buffer) => {
        out += d.toString();
        if (out.includes("Started stage 'slow'")) res();
      };
      child.stdout.on('data', look);
      child.stderr.on('data', look);
    });
    child.kill('SIGINT');
    const code = await ended;
    writeFileSync(join(dir, 'go'), ''); // the stage's command, left behind, ends
    expect(code, out).not.toBe(0);
    const l = lock(dir) as { stages: Record<string, unknown> };
    expect(Object.keys(l.stages)).toEqual(['a']);
    // The entry is DVC's own: its status names only the stage that did not end.
    const status = run(DVC, ['status'], dir).out;
    expect(status).toMatch(/slow:/);
    expect(status).not.toMatch(/\ba:/);
  });

  it('refuses --jobs 0 and HEIGHTBENCH_REPRO_JOBS=two with exit 2, naming the value', () => {
    const p = project();
    const r = run(PY, [join(ROOT, 'scripts', 'repro-parallel.py'), '--jobs', '0'], p.par);
    expect(r.status).toBe(2);
    expect(r.out).toMatch(/must be an integer ≥ 1, got '0'/);
    const e = spawnSync(PY, [join(ROOT, 'scripts', 'repro-parallel.py')], {
      cwd: p.par,
      encoding: 'utf8',
      env: { ...process.env, HEIGHTBENCH_REPRO_JOBS: 'two' },
    });
    expect(e.status).toBe(2);
    expect(e.stderr).toMatch(/must be an integer ≥ 1, got 'two'/);
    expect(existsSync(join(p.par, 'dvc.lock'))).toBe(false); // nothing ran
  });
});
