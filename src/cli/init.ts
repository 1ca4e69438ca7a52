/**
 * `heightbench init [DIR]`: scaffolds a researcher's repository around heightbench.
 * Inputs: the package's templates/init/ (heightbench.yaml with the comparisons, pipeline.yaml — a pipeline
 * declaration to fill in, captures.yaml — the capture manifest, dvc.yaml — import and check stages, reports/.gitignore,
 * the GitHub Actions workflow, the notebook template). Outputs: each template file DIR lacks; then, when DVC is on PATH,
 * `dvc init` (where DIR has no .dvc/) and a default remote `storage` (where none is configured) — a folder beside the
 * repository, to point at S3, SSH or HTTP with `dvc remote modify storage url …`.
 * Rules: idempotent — a file already there with the template's bytes is left as it is, and a file that differs (the
 * user's) is never overwritten: it is kept and named, and the run exits 0 with the rest scaffolded. Anything at a
 * template's path that is not a regular file (a link, a folder) is kept too. New files are written whole (temp, then
 * rename); nothing is written through a link.
 */
import { spawnSync } from 'node:child_process';
import { lstatSync, mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { basename, dirname, join, relative, resolve } from 'node:path';
import type { Command } from 'commander';
import { UsageError } from '../errors.js';
import { writeFileAtomic } from '../io/atomic.js';
import { packageRoot } from '../project/paths.js';
import { parsePath } from './args.js';
import { CliExit, type CliIO, type CommandInstaller } from './io.js';

/** The template files, relative to templates/init/, sorted. */
export function templateFiles(dir = join(packageRoot(), 'templates', 'init')): string[] {
  const out: string[] = [];
  const walk = (d: string) => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      const p = join(d, e.name);
      if (e.isDirectory()) walk(p);
      else if (e.isFile()) out.push(relative(dir, p).split('\\').join('/'));
    }
  };
  walk(dir);
  return out.sort();
}

/**
 * Where a template lands: a path segment `dot-NAME` is `.NAME` (npm leaves .gitignore files out of a package, so the
 * templates cannot carry dot names themselves).
 */
export function scaffoldPath(template: string): string {
  return template
    .split('/')
    .map((s) => (s.startsWith('dot-') ? `.${s.slice(4)}` : s))
    .join('/');
}

/** Whether some folder between `root` (excluded) and `p` is a link or a file: nothing is created through one. */
function blockedParent(root: string, p: string): string | null {
  for (let d = dirname(p); d !== root && d.startsWith(root); d = dirname(d)) {
    try {
      const s = lstatSync(d);
      if (!s.isDirectory()) return d;
    } catch {
      /* absent: created */
    }
  }
  return null;
}

export function initCommand(dirArg: string | undefined, io: CliIO): number {
  const root = resolve(dirArg ?? '.');
  try {
    const s = lstatSync(root);
    if (!s.isDirectory()) throw new UsageError(`init: ${root} is not a folder`);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
    mkdirSync(root, { recursive: true });
  }
  const tdir = join(packageRoot(), 'templates', 'init');
  const written: string[] = [];
  const same: string[] = [];
  const kept: string[] = [];
  for (const t of templateFiles(tdir)) {
    const want = readFileSync(join(tdir, t));
    const f = scaffoldPath(t);
    const target = join(root, f);
    let st: ReturnType<typeof lstatSync> | null = null;
    try {
      st = lstatSync(target);
    } catch {
      /* absent */
    }
    if (st) {
      if (st.isFile() && readFileSync(target).equals(want)) same.push(f);
      else kept.push(f);
      continue;
    }
    const blocked = blockedParent(root, target);
    if (blocked) {
      kept.push(`${f} (not written: ${relative(root, blocked)} is not a folder)`);
      continue;
    }
    mkdirSync(dirname(target), { recursive: true });
    writeFileAtomic(target, want);
    written.push(f);
  }
  const lines: string[] = [];
  if (written.length) lines.push(`wrote ${written.length} file(s) in ${root}: ${written.join(', ')}`);
  if (same.length) lines.push(`already there, unchanged: ${same.join(', ')}`);
  for (const k of kept)
    lines.push(
      `kept ${k}: it is yours (it differs from heightbench's template), so init leaves it; the template is in node_modules/heightbench/templates/init/ (dot-NAME for .NAME)`,
    );
  const dvc = dvcSetup(root);
  lines.push(...dvc.filter((l) => !l.startsWith(DVC_FAILED)));
  lines.push(
    `next: fill in pipeline.yaml, captures.yaml and heightbench.yaml; put the captures under captures/ and \`dvc add captures\`; your run folders under rebuild/; then \`dvc repro\`, commit, \`dvc push\` (guide: node_modules/heightbench/docs/your-repository.md)`,
  );
  io.out(`${lines.join('\n')}\n`);
  // A DVC step that failed is said on stderr with DVC's reason, and the exit status is the environment's (2).
  const failed = dvc.filter((l) => l.startsWith(DVC_FAILED));
  for (const l of failed) io.err(`${l}\n`);
  return failed.length ? 2 : 0;
}

/** The prefix of a DVC step that failed: init says it and exits 2 (the files it wrote stay; a rerun completes it). */
const DVC_FAILED = 'heightbench: ';

/** The last line DVC printed (its reason). */
const lastLine = (r: { stderr: string; stdout: string }): string => (r.stderr || r.stdout).trim().split('\n').at(-1) ?? '';

/** `dvc init` and a default remote where they are missing and DVC is installed; what was done, in words. */
function dvcSetup(root: string): string[] {
  const env = { ...process.env, DVC_NO_ANALYTICS: '1' };
  const run = (args: string[]) => spawnSync('dvc', args, { cwd: root, env, encoding: 'utf8' });
  const probe = run(['--version']);
  if (probe.error)
    return ['DVC is not on PATH: install it (`pip install dvc`; https://dvc.org/doc/install), then run `dvc init` and `heightbench init` again for the remote'];
  const out: string[] = [];
  let has = false;
  try {
    has = lstatSync(join(root, '.dvc')).isDirectory();
  } catch {
    /* absent */
  }
  if (!has) {
    let git = false;
    try {
      lstatSync(join(root, '.git'));
      git = true;
    } catch {
      /* not a git repository */
    }
    const r = run(git ? ['init', '-q'] : ['init', '-q', '--no-scm']);
    if (r.status !== 0) return [`${DVC_FAILED}dvc init failed: ${lastLine(r)}`];
    out.push(`dvc init${git ? '' : ' --no-scm (no git repository here: `git init` first for CI and regress)'}`);
  }
  const remotes = run(['remote', 'list']);
  if (remotes.status === 0 && remotes.stdout.trim() === '') {
    // Relative, so the record holds in any clone placed the same way (DVC stores it relative to .dvc/).
    const storage = `../${basename(root)}-dvc-storage`;
    const r = run(['remote', 'add', '-d', 'storage', storage]);
    if (r.status === 0)
      out.push(
        `DVC remote "storage" (default): ${join(dirname(root), basename(root) + '-dvc-storage')}, a folder beside the repository; point it at your team's storage with \`dvc remote modify storage url s3://BUCKET/PATH\` (or ssh://HOST/PATH, https://HOST/PATH)`,
      );
    else out.push(`${DVC_FAILED}dvc remote add failed: ${lastLine(r)}; add one yourself: \`dvc remote add -d storage PATH\``);
  } else if (remotes.status === 0) {
    out.push(`DVC remotes kept as configured: ${remotes.stdout.trim().split('\n').join('; ')}`);
  } else out.push(`${DVC_FAILED}dvc remote list failed: ${lastLine(remotes)}; no remote was set`);
  return out;
}

export const installInit: CommandInstaller = (program: Command, io: CliIO) => {
  program
    .command('init')
    .description(
      "scaffold a researcher's repository: heightbench.yaml (comparisons), pipeline.yaml, captures.yaml, dvc.yaml, a DVC remote, a GitHub Actions workflow, a notebook; never overwrites a file",
    )
    .argument('[dir]', 'the repository folder (default: the current folder)', parsePath)
    .action((dir: string | undefined) => {
      throw new CliExit(initCommand(dir, io));
    });
};
