/**
 * heightbench as a researcher meets it, in an empty folder outside this repository: installed from a git URL
 * (`git+file://` of a repository holding this working tree as it is; npm clones it, installs its development
 * dependencies from the local npm cache and runs `prepare`), then the CLI and the typed API used there.
 * The real npm, git, DVC and numpy; nothing of this checkout is reachable from the project but through the install.
 */
import { spawnSync, type SpawnSyncReturns } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
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
