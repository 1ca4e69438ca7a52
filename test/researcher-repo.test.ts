/**
 * heightbench as a researcher meets it, in an empty folder outside this repository: installed from a git URL
 * (`git+file://` of a repository holding this working tree as it is; npm clones it, installs its development
 * dependencies from the local npm cache and runs `prepare`), then the CLI and the typed API used there.
 * The real npm, git, DVC and numpy; nothing of this checkout is reachable from the project but through the install.
 */
import { spawnSync, type SpawnSyncReturns } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { pipelineJson, readPipelineDeclaration } from '../src/pipelines/declaration.js';
import { SEED_PIPELINE } from '../src/pipelines/seed.js';
import { tempDir } from './helpers.js';

const root = resolve(import.meta.dirname, '..');
const w = tempDir('hb-researcher-');
const clone = join(w, 'heightbench');
const app = join(w, 'terrain-rebuild');
const py = join(root, '.venv', 'bin', 'python');
const venvBin = join(root, '.venv', 'bin');
// PATH without this checkout's tools: what a researcher has before installing DVC (git and node only).
const basePath = (process.env.PATH ?? '')
  .split(':')
  .filter((p) => !p.startsWith(root) && !p.includes('node_modules') && !p.includes('.venv'))
  .join(':');
const env: NodeJS.ProcessEnv = {
  ...process.env,
  PATH: basePath,
  npm_config_cache: process.env.npm_config_cache ?? join(root, '.cache', 'npm'),
  npm_config_update_notifier: 'false',
  npm_config_fund: 'false',
  npm_config_audit: 'false',
  DVC_NO_ANALYTICS: '1',
  XDG_CACHE_HOME: join(w, 'xdg-cache'),
  GIT_AUTHOR_NAME: 'r',
  GIT_AUTHOR_EMAIL: 'r@r',
  GIT_COMMITTER_NAME: 'r',
  GIT_COMMITTER_EMAIL: 'r@r',
};
delete env.HEIGHTBENCH_ROOT;
delete env.GITHUB_STEP_SUMMARY;
/** The researcher's environment once DVC is installed (here: this checkout's venv, which holds DVC). */
const withDvc: NodeJS.ProcessEnv = { ...env, PATH: `${basePath}:${venvBin}` };

function sh(cwd: string, cmd: string, args: string[], e: NodeJS.ProcessEnv = env): SpawnSyncReturns<string> {
  return spawnSync(cmd, args, { cwd, env: e, encoding: 'utf8', maxBuffer: 64 << 20 });
}
function ok(cwd: string, cmd: string, args: string[], e: NodeJS.ProcessEnv = env): string {
  const r = sh(cwd, cmd, args, e);
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')} in ${cwd} failed (${r.status}): ${r.stderr}${r.stdout}`);
  return r.stdout;
}
function hb(args: string[], e: NodeJS.ProcessEnv = env, cwd = app): SpawnSyncReturns<string> {
  return sh(cwd, process.execPath, [join(app, 'node_modules', '.bin', 'heightbench'), ...args], e);
}

beforeAll(() => {
  // The working tree as it is (tracked and new files, nothing ignored), committed in a repository of its own.
  const files = ok(root, 'git', ['ls-files', '-co', '--exclude-standard', '-z']).split('\0').filter(Boolean);
  for (const f of files) {
    if (!existsSync(join(root, f))) continue; // deleted in the working tree
    mkdirSync(dirname(join(clone, f)), { recursive: true });
    cpSync(join(root, f), join(clone, f));
  }
  ok(clone, 'git', ['init', '-q', '-b', 'main']);
  // Forced: a tracked file can lie under an ignored name (src/assets/ under the ignored assets/).
  const listed = join(w, 'files.txt');
  writeFileSync(listed, files.filter((f) => existsSync(join(clone, f))).join('\n'));
  ok(clone, 'git', ['add', '-f', `--pathspec-from-file=${listed}`]);
  ok(clone, 'git', ['commit', '-qm', 'heightbench']);
  mkdirSync(app);
  writeFileSync(join(app, 'package.json'), '{"name":"terrain-rebuild","private":true,"type":"module"}\n');
  const inst = sh(app, 'npm', ['install', '--prefer-offline', '--loglevel=error', `git+file://${clone}`]);
  if (inst.status !== 0) throw new Error(`npm install git+file:// failed: ${inst.stderr}`);
}, 400_000);

describe('installed from a git URL into an empty project', () => {
  it('has the built CLI and declarations, and no sources or tests', () => {
    const pkg = join(app, 'node_modules', 'heightbench');
    for (const f of ['dist/cli-bundle/heightbench.js', 'dist/index.d.ts', 'dist/api/compare.d.ts', 'docs/cli.md', 'README.md'])
      expect(existsSync(join(pkg, f)), f).toBe(true);
    expect(existsSync(join(pkg, 'src'))).toBe(false);
    expect(existsSync(join(pkg, 'test'))).toBe(false);
    const v = hb(['--version']);
    expect(v.status).toBe(0);
    expect(v.stdout.trim()).toBe(JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')).version);
  });

  it('imports a numpy capture and checks a run against it; the API imports and type-checks', () => {
    expect(hb(['run', 'teaching-512', '--size', '64', '--out', 'gen', '--stages', 'final']).status).toBe(0);
    // numpy writes the capture a researcher would: north-up UNORM16 codes.
    ok(app, py, ['-c', "import numpy as np; a=np.fromfile('gen/final.r16','<u2').reshape(64,64); np.save('final.npy', np.flipud(a))"]);
    const imp = hb([
      'import',
      'final.npy',
      '--stage',
      'final',
      '--out',
      'ref',
      '--extent',
      '-1024,-1024,2048',
      '--row-direction',
      'north-up',
      '--range',
      '-500,500',
    ]);
    expect(imp.stderr).toBe('');
    expect(imp.status).toBe(0);
    const chk = hb(['check', 'gen', 'ref', '--strict', '--min-exact', '100']);
    expect(chk.stderr).toBe('');
    expect(chk.status).toBe(0);
    expect(chk.stdout).toMatch(/exact 100\.0000 %/);
    // The typed API: a strict TypeScript file compiles against the installed declarations and runs.
    writeFileSync(join(app, 'main.ts'), "import { encodeUnorm16 } from 'heightbench';\nconst code: number = encodeUnorm16(0.5);\nconsole.log(code);\n");
    writeFileSync(
      join(app, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: { strict: true, noEmit: true, module: 'NodeNext', moduleResolution: 'NodeNext', target: 'ES2022', skipLibCheck: true, types: [] },
        files: ['main.ts'],
      }),
    );
    const tsc = sh(app, process.execPath, [join(root, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', 'tsconfig.json']);
    expect(tsc.stdout + tsc.stderr).toBe('');
    expect(tsc.status).toBe(0);
    const run = sh(app, process.execPath, ['--input-type=module', '-e', "import { encodeUnorm16 } from 'heightbench'; console.log(encodeUnorm16(0.5))"]);
    expect(run.stdout.trim()).toBe('32768'); // floor(0.5·65535 + 0.5)
  }, 120_000);

  it('import --dvc without DVC installed names DVC and how to install it (no make target), and writes nothing', () => {
    const r = hb([
      'import',
      'final.npy',
      '--stage',
      'final',
      '--out',
      'ref2',
      '--extent',
      '-1024,-1024,2048',
      '--row-direction',
      'north-up',
      '--range',
      '-500,500',
      '--dvc',
    ]);
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/`dvc` was not found on PATH; install DVC \(`pip install dvc`/);
    expect(r.stderr).not.toMatch(/make/);
    expect(existsSync(join(app, 'ref2'))).toBe(false);
  });
});

describe("the researcher's repository: init, import, DVC, check --all, CI review", () => {
  const dvcOk = (args: string[], cwd = app) => ok(cwd, 'dvc', args, withDvc);
  const git = (args: string[], cwd = app) => ok(cwd, 'git', args, withDvc);
  /** The workflow's review step, run as GitHub Actions would run it (bash, BASE and GITHUB_STEP_SUMMARY set). */
  const review = (base: string, summary: string) => {
    const wf = parseYaml(readFileSync(join(app, '.github', 'workflows', 'heightbench.yml'), 'utf8')) as {
      jobs: { review: { steps: { name?: string; run?: string }[] } };
    };
    const step = wf.jobs.review.steps.find((s) => s.name === 'Review against the base revision');
    expect(step?.run).toMatch(/npx heightbench regress --base "\$BASE"/);
    const e = { ...withDvc, PATH: `${join(app, 'node_modules', '.bin')}:${withDvc.PATH}`, BASE: base, GITHUB_STEP_SUMMARY: summary };
    return sh(app, 'bash', ['-e', '-c', step?.run ?? 'false'], e);
  };
  /** One code of a run folder's final map moved by +1, written through the installed package's API (sidecar and all). */
  const moveOneCode = (dir: string) =>
    ok(app, process.execPath, [
      '--input-type=module',
      '-e',
      `import { readHeightfieldFile, writeHeightfieldFile } from 'heightbench';
       const p = ${JSON.stringify(join(dir, 'final.r16'))};
       const l = readHeightfieldFile(p);
       l.field.code_px[100] += 1;
       writeHeightfieldFile(p, l.field, { stage: 'final', request: 'seed-1' });`,
    ]);

  it('init scaffolds every file, keeps a file of the user, and a second init changes nothing', () => {
    git(['init', '-q', '-b', 'main']);
    mkdirSync(join(app, 'notebooks'));
    writeFileSync(join(app, 'notebooks', 'check.nb.ts'), '// mine\n');
    const first = hb(['init'], withDvc);
    expect(first.stderr).toBe('');
    expect(first.status).toBe(0);
    for (const f of [
      'heightbench.yaml',
      'pipeline.yaml',
      'captures.yaml',
      'dvc.yaml',
      '.github/workflows/heightbench.yml',
      'reports/.gitignore',
      '.gitignore',
      '.dvc/config',
    ])
      expect(existsSync(join(app, f)), f).toBe(true);
    expect(first.stdout).toMatch(/kept notebooks\/check\.nb\.ts: it is yours/);
    expect(readFileSync(join(app, 'notebooks', 'check.nb.ts'), 'utf8')).toBe('// mine\n');
    expect(dvcOk(['remote', 'list'])).toMatch(/^storage\s/);
    const before = readFileSync(join(app, 'dvc.yaml'));
    const again = hb(['init'], withDvc);
    expect(again.status).toBe(0);
    expect(again.stdout).toMatch(/already there, unchanged: .*dvc\.yaml/);
    expect(readFileSync(join(app, 'dvc.yaml'))).toEqual(before);
    // The pipeline declaration to fill in is one the declaration reader accepts as it stands.
    expect(readPipelineDeclaration(join(app, 'pipeline.yaml')).stages.map((s) => s.name)).toEqual(['base', 'smoothed', 'final']);
  });

  it('imports a manifest of two seeds, shares captures and references through DVC, and dvc status is clean after dvc repro', () => {
    writeFileSync(join(app, '.gitignore'), `${readFileSync(join(app, '.gitignore'), 'utf8')}/ref/\n/ref2/\n/gen/\nfinal.npy\nmain.ts\ntsconfig.json\n`);
    // The reconstruction's run folders (a heightbench run stands in for the researcher's code) and numpy captures.
    for (const [seed, size] of [
      ['seed-1', 64],
      ['seed-2', 48],
    ] as const) {
      expect(hb(['run', 'teaching-512', '--size', String(size), '--out', `rebuild/${seed}`, '--stages', 'final']).status).toBe(0);
      mkdirSync(join(app, 'captures', seed), { recursive: true });
      ok(app, py, [
        '-c',
        `import numpy as np; a=np.fromfile('rebuild/${seed}/final.r16','<u2').reshape(${size},${size}); np.save('captures/${seed}/final.npy', np.flipud(a))`,
      ]);
    }
    // The researcher fills in the pipeline declaration: here the stand-in reconstruction's, the seed pipeline.
    writeFileSync(join(app, 'pipeline.yaml'), pipelineJson(SEED_PIPELINE));
    const manifest = readFileSync(join(app, 'captures.yaml'), 'utf8').replace('captures/seed-1/final.dds', 'captures/seed-1/final.npy');
    const seed2 = manifest.slice(manifest.indexOf('  - out: reference/seed-1')).replace(/seed-1/g, 'seed-2');
    writeFileSync(join(app, 'captures.yaml'), `${manifest}${seed2}`);
    const cfg = readFileSync(join(app, 'heightbench.yaml'), 'utf8');
    writeFileSync(
      join(app, 'heightbench.yaml'),
      `${cfg}  - name: seed-2\n    generated: rebuild/seed-2\n    reference: reference/seed-2\n    gates: { min-exact: 99.79, max-code: 1 }\n`,
    );
    dvcOk(['add', '-q', 'captures']);
    dvcOk(['repro', '-q']);
    for (const seed of ['seed-1', 'seed-2']) {
      const rec = JSON.parse(readFileSync(join(app, 'reference', seed, 'imports.json'), 'utf8')).imports[0];
      expect([rec.path, rec.pathFrom]).toEqual([`captures/${seed}/final.npy`, 'repository']);
    }
    const summary = JSON.parse(readFileSync(join(app, 'reports', 'check', 'summary.json'), 'utf8'));
    expect(summary.comparisons.map((c: { name: string; verdict: string; exactPercent: number }) => [c.name, c.verdict, c.exactPercent])).toEqual([
      ['seed-1', 'pass', 100],
      ['seed-2', 'pass', 100],
    ]);
    expect(dvcOk(['status'])).toMatch(/Data and pipelines are up to date/);
    git(['add', '-A']);
    git(['commit', '-qm', 'captures, references, reconstruction']);
    expect(git(['status', '--porcelain'])).toBe('');
    dvcOk(['push', '-q']);
    // A collaborator's clone: dvc pull brings the captures and the references, and the pipeline is up to date there.
    const other = join(w, 'collaborator');
    git(['clone', '-q', app, other], w);
    expect(existsSync(join(other, 'reference', 'seed-1'))).toBe(false);
    dvcOk(['pull', '-q'], other);
    expect(readFileSync(join(other, 'captures', 'seed-2', 'final.npy'))).toEqual(readFileSync(join(app, 'captures', 'seed-2', 'final.npy')));
    expect(readFileSync(join(other, 'reference', 'seed-1', 'final.r16'))).toEqual(readFileSync(join(app, 'reference', 'seed-1', 'final.r16')));
    symlinkSync(join(app, 'node_modules'), join(other, 'node_modules'));
    expect(dvcOk(['status'], other)).toMatch(/Data and pipelines are up to date/);
  }, 240_000);

  it("CI's review passes the unchanged commit, fails the commit that moves one code, and passes it once blessed", () => {
    const summary = join(w, 'step-summary.md');
    const same = review('HEAD', summary);
    expect(same.stderr).toBe('');
    expect(same.status).toBe(0);
    expect(same.stdout).toContain('Verdict: **pass** — 0 of 2 comparisons fail.');
    // Output under the repository it runs in, never inside the installed package.
    expect(existsSync(join(app, 'reports', 'regress', 'index.html'))).toBe(true);
    expect(existsSync(join(app, 'node_modules', 'heightbench', 'reports'))).toBe(false);
    const base = git(['rev-parse', 'HEAD']).trim();

    moveOneCode(join(app, 'rebuild', 'seed-1'));
    dvcOk(['repro', '-q']); // the gates still pass (max |Δq| 1): only the stage hash tells
    git(['add', '-A']);
    git(['commit', '-qm', 'moves one code']);
    const moved = review(base, summary);
    expect(moved.status).toBe(3);
    expect(moved.stdout).toContain('Verdict: **FAIL** — 1 of 2 comparisons fail.');
    expect(moved.stdout).toMatch(/\*\*seed-1\*\*: stage hash moved without a bless: generated final\.r16/);
    expect(readFileSync(summary, 'utf8')).toContain('Verdict: **FAIL**');

    const bless = hb(['bless', 'seed-1', '--yes', '--reason', 'the smoothing now rounds half away from zero'], withDvc);
    expect(bless.stderr).toBe('');
    expect(bless.status).toBe(0);
    expect(JSON.parse(readFileSync(join(app, 'blessed', 'seed-1.json'), 'utf8')).reason).toBe('the smoothing now rounds half away from zero');
    git(['add', '-A']);
    git(['commit', '-qm', 'bless the move']);
    const blessed = review(base, summary);
    expect(blessed.stdout).toContain('Verdict: **pass** — 0 of 2 comparisons fail.');
    expect(blessed.status).toBe(0);
  }, 240_000);
});
