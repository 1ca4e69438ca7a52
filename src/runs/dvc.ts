/**
 * DVC and git as `import --dvc` and `init` meet them in a user's repository.
 * Inputs: a folder (the run folder's parent), paths to track. Outputs: the DVC project's root, `dvc add` run there.
 * Rules: [R] everything is asked before anything is written — `dvc` is found (PATH, else the `.venv/bin` of a
 * heightbench clone) or named with how to install it; `dvc root` must succeed, and its own reason is quoted when it
 * does not; a path git already tracks is left to git (DVC would refuse it); a path outside the project is refused.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, lstatSync } from 'node:fs';
import { delimiter, dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import { FileSystemError, UsageError } from '../errors.js';
import { packageRoot } from '../project/paths.js';

/** How to install DVC, for a message (no make target: the user's repository has none). */
export const DVC_INSTALL_HINT = 'install DVC (`pip install dvc`, or `pipx install dvc`; https://dvc.org/doc/install) and put `dvc` on PATH';

/** The environment DVC runs in: PATH plus a heightbench clone's own venv where there is one; no analytics. */
function dvcEnv(): NodeJS.ProcessEnv {
  const venv = join(packageRoot(), '.venv', 'bin');
  const path = existsSync(join(venv, 'dvc')) ? `${process.env.PATH ?? ''}${delimiter}${venv}` : (process.env.PATH ?? '');
  return { ...process.env, PATH: path, DVC_NO_ANALYTICS: '1' };
}

/** DVC's own reason from its output: the ERROR lines without the prefix, else the last line. */
export function dvcReason(text: string): string {
  const lines = text
    .split('\n')
    .map((l) => l.trim())
    .filter(Boolean);
  const errors = lines.filter((l) => l.startsWith('ERROR:')).map((l) => l.replace(/^ERROR:\s*/, ''));
  return (errors.length ? errors.join('; ') : (lines.at(-1) ?? '(no message)')).slice(0, 500);
}

function dvc(args: string[], cwd: string): { status: number; out: string } {
  const r = spawnSync('dvc', args, { cwd, env: dvcEnv(), encoding: 'utf8' });
  if (r.error) {
    const code = (r.error as NodeJS.ErrnoException).code;
    throw new FileSystemError(`--dvc: ${code === 'ENOENT' ? '`dvc` was not found on PATH' : `could not run dvc (${r.error.message})`}; ${DVC_INSTALL_HINT}`);
  }
  return { status: r.status ?? 1, out: `${r.stderr ?? ''}\n${r.stdout ?? ''}` };
}

/** The root of the DVC project holding `dir`, or a UsageError quoting DVC's reason (nothing is written). */
export function dvcRoot(dir: string): string {
  const r = dvc(['root'], dir);
  if (r.status !== 0)
    throw new UsageError(
      `--dvc: ${resolve(dir)}: DVC says: ${dvcReason(r.out)} — run \`dvc init\` in your repository (or heightbench init), or import without --dvc`,
    );
  const line = r.out.split('\n').find((l) => l.trim() !== '');
  return resolve(dir, (line ?? '.').trim());
}

/** Whether `p` lies inside `base` or is it; both absolute. */
export function inside(base: string, p: string): boolean {
  const rel = relative(base, p);
  return rel === '' || (rel !== '..' && !rel.startsWith(`..${sep}`) && !isAbsolute(rel));
}

/** Whether git tracks the file (false outside a git repository or when git is absent). */
export function gitTracks(file: string): boolean {
  const r = spawnSync('git', ['ls-files', '--error-unmatch', '--', file], { cwd: dirname(file), stdio: 'ignore' });
  return r.status === 0;
}

/**
 * The repository a path belongs to: the nearest folder above it holding `.git` or `.dvc`, or null. Paths recorded in
 * a run folder are relative to it, so a clone elsewhere reads the same record.
 */
export function repositoryRoot(start: string): string | null {
  for (let d = resolve(start); ; d = dirname(d)) {
    for (const m of ['.git', '.dvc']) {
      try {
        lstatSync(join(d, m));
        return d;
      } catch {
        /* keep looking */
      }
    }
    if (dirname(d) === d) return null;
  }
}

/** `dvc add` of the given paths (absolute, inside `root`) from the project's root; DVC's reason when it fails. */
export function dvcAdd(root: string, paths: readonly string[]): void {
  const rel = paths.map((p) => relative(root, p));
  const r = dvc(['add', ...rel], root);
  if (r.status !== 0) throw new FileSystemError(`--dvc: dvc add ${rel.join(' ')} failed; DVC says: ${dvcReason(r.out)}`);
}
