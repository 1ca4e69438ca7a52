// The installed package works outside the clone: `npm pack`, install the tarball into a temporary folder from the local
// npm cache, then run the CLI there (info, run, compare --report, bell), import it as an ES module, and find config
// through --config DIR and HEIGHTBENCH_ROOT. Needs dist/ built (make test builds it first).
import { spawnSync, type SpawnSyncReturns } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, posix, resolve } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { tempDir } from './helpers.js';

const root = resolve(import.meta.dirname, '..');
const d = tempDir('hb-pkg-');
const app = join(d, 'app');
const pkgDir = join(app, 'node_modules', 'heightbench');
// No HEIGHTBENCH_ROOT, and a working directory outside the clone: config must come from the package itself.
// The user cache (where the installed package puts its assets) inside the temporary folder.
const xdgCache = join(d, 'xdg-cache');
const env: NodeJS.ProcessEnv = {
  ...process.env,
  npm_config_cache: join(root, '.cache', 'npm'),
  npm_config_update_notifier: 'false',
  XDG_CACHE_HOME: xdgCache,
};
delete env.HEIGHTBENCH_ROOT;

function hb(args: string[], extraEnv: NodeJS.ProcessEnv = {}): SpawnSyncReturns<string> {
  return spawnSync(process.execPath, [join(app, 'node_modules', '.bin', 'heightbench'), ...args], { cwd: app, env: { ...env, ...extraEnv }, encoding: 'utf8' });
}

let tarball = '';
beforeAll(() => {
  const pack = spawnSync('npm', ['pack', '--json', '--ignore-scripts', '--pack-destination', d], { cwd: root, env, encoding: 'utf8' });
  if (pack.status !== 0) throw new Error(`npm pack failed: ${pack.stderr}`);
  const info = JSON.parse(pack.stdout) as { filename: string; files: { path: string }[] }[];
  tarball = join(d, info[0].filename);
  writeFileSync(join(d, 'files.json'), JSON.stringify(info[0].files.map((f) => f.path)));
  mkdirSync(app, { recursive: true });
  writeFileSync(join(app, 'package.json'), '{"name":"hb-user","private":true,"type":"module"}\n');
  // From the local npm cache (filled by `npm ci`); --prefer-offline only reaches the registry for a package it lacks.
  const inst = spawnSync('npm', ['install', '--prefer-offline', '--no-audit', '--no-fund', '--loglevel=error', tarball], { cwd: app, env, encoding: 'utf8' });
  if (inst.status !== 0) throw new Error(`npm install of the tarball failed: ${inst.stderr}`);
}, 240_000);

describe('npm package', () => {
  it('ships config/, LICENSE, README, dist and bin, and no tests or sources', () => {
    const files: string[] = JSON.parse(readFileSync(join(d, 'files.json'), 'utf8'));
    for (const f of [
      'LICENSE',
      'README.md',
      'package.json',
      'bin/heightbench.mjs',
      'dist/index.js',
      'dist/cli/bin.js',
      'config/worlds/tundra.json',
      'config/requests/tundra-r19.json',
      'config/requests/teaching-512.json',
    ]) {
      expect(files).toContain(f);
    }
    expect(files.some((f) => f.startsWith('test/') || f.startsWith('src/') || f.startsWith('references/'))).toBe(false);
    expect(readFileSync(join(pkgDir, 'LICENSE'), 'utf8')).toMatch(/^MIT License/);
    // Reports need Plotly at run time: installed as a dependency of the package.
    expect(existsSync(join(app, 'node_modules', 'plotly.js-dist-min', 'plotly.min.js'))).toBe(true);
  });

  it('every relative link of a shipped Markdown file (README, docs/, examples/) names a file the package ships', () => {
    const files: string[] = JSON.parse(readFileSync(join(d, 'files.json'), 'utf8'));
    const shipped = new Set(files);
    const md = files.filter((f) => f.endsWith('.md'));
    expect(md).toEqual(expect.arrayContaining(['README.md', 'docs/cli.md', 'examples/external-reconstruction/README.md']));
    const broken: string[] = [];
    for (const f of md) {
      for (const m of readFileSync(join(pkgDir, f), 'utf8').matchAll(/\]\(([^)\s]+)\)/g)) {
        const target = m[1].split('#')[0];
        if (!target || /^[a-z]+:/i.test(target)) continue;
        const p = posix.normalize(posix.join(posix.dirname(f), target));
        if (!shipped.has(p) && !files.some((x) => x.startsWith(`${p.replace(/\/$/, '')}/`))) broken.push(`${f} → ${target}`);
      }
    }
    expect(broken).toEqual([]);
  });

  it('runs teaching-512, compares with --report, describes the map, and draws a bell field, from a folder outside the clone', () => {
    const run = hb(['run', 'teaching-512', '--out', 'out']);
    expect(run.stderr).toBe('');
    expect(run.status).toBe(0);
    expect(run.stdout).toMatch(/^teaching-512 \(seed \d+, 512²\)/);
    // Assets are never written inside node_modules: without a project they go to the user cache.
    expect(existsSync(join(pkgDir, 'assets'))).toBe(false);
    expect(readdirSync(join(xdgCache, 'heightbench', 'assets')).length).toBeGreaterThan(0);
    const ref = hb(['run', 'teaching-512', '--out', 'ref', '--precision', 'f64', '--stages', 'final']);
    expect(ref.status).toBe(0);
    const info = hb(['info', 'out/final.r16', '--json']);
    expect(info.status).toBe(0);
    const j = JSON.parse(info.stdout);
    expect(JSON.stringify(j)).toContain('"columns":512');
    const cmp = hb(['compare', 'out/final.r16', 'ref/final.r16', '--report', 'rep']);
    expect(cmp.status).toBe(0);
    for (const f of ['index.html', 'plotly.min.js', 'metrics.json', 'diffmap.png']) expect(existsSync(join(app, 'rep', f))).toBe(true);
    expect(readFileSync(join(app, 'rep', 'plotly.min.js'))).toEqual(readFileSync(join(app, 'node_modules', 'plotly.js-dist-min', 'plotly.min.js')));
    const bell = hb(['bell', 'bell.r32', '--size', '64', '--nb', '5']);
    expect(bell.status).toBe(0);
    expect(readFileSync(join(app, 'bell.r32')).length).toBe(64 * 64 * 4);
  }, 120_000);

  it('imports as an ES module (UNORM16 of 0.5 is floor(0.5·65535 + 0.5) = 32768)', () => {
    const r = spawnSync(
      process.execPath,
      ['--input-type=module', '-e', "import * as hb from 'heightbench'; console.log(hb.encodeUnorm16(0.5), typeof hb.compareHeightfields)"],
      { cwd: app, env, encoding: 'utf8' },
    );
    expect(r.stderr).toBe('');
    expect(r.stdout.trim()).toBe('32768 function');
  });

  it('--config DIR and HEIGHTBENCH_ROOT point at another config folder', () => {
    const cfg = join(d, 'myconfig');
    cpSync(join(pkgDir, 'config'), cfg, { recursive: true });
    const req = JSON.parse(readFileSync(join(cfg, 'requests', 'teaching-512.json'), 'utf8'));
    writeFileSync(join(cfg, 'requests', 'tiny.json'), JSON.stringify({ ...req, id: 'tiny', size: 64 }));
    const without = hb(['run', 'tiny', '--out', 'tiny']);
    expect(without.status).toBe(2);
    expect(without.stderr).toMatch(/request "tiny": no such request file .*known requests: teaching-512, tundra-r19, tundra-seed2/);
    const withCfg = hb(['--config', cfg, 'run', 'tiny', '--out', 'tiny', '--stages', 'layout']);
    expect(withCfg.stderr).toBe('');
    expect(withCfg.status).toBe(0);
    expect(readdirSync(join(app, 'tiny'))).toContain('layout.json');
    const after = hb(['run', 'tiny', '--out', 'tiny2', '--stages', 'layout', '--config', cfg]);
    expect(after.status).toBe(0);
    const rootDir = join(d, 'project');
    cpSync(cfg, join(rootDir, 'config'), { recursive: true });
    const viaEnv = hb(['run', 'tiny', '--out', 'tiny3', '--stages', 'layout'], { HEIGHTBENCH_ROOT: rootDir });
    expect(viaEnv.status).toBe(0);
    // HEIGHTBENCH_ROOT at an empty writable folder: the package's config, and the data (assets) written there.
    const empty = join(d, 'empty-root');
    mkdirSync(empty);
    const inEmpty = hb(['run', 'teaching-512', '--size', '64', '--out', join(empty, 'out'), '--stages', 'final'], { HEIGHTBENCH_ROOT: empty });
    expect(inEmpty.stderr).toBe('');
    expect(inEmpty.status).toBe(0);
    expect(readdirSync(join(empty, 'assets')).length).toBeGreaterThan(0);
    expect(existsSync(join(empty, 'out', 'final.r16'))).toBe(true);
    const missing = hb(['run', 'teaching-512', '--out', 'x'], { HEIGHTBENCH_ROOT: join(d, 'no-such-root') });
    expect(missing.status).toBe(2);
    expect(missing.stderr).toMatch(/HEIGHTBENCH_ROOT=".*no-such-root": expected an existing folder/);
    const bad = hb(['--config', join(d, 'nowhere'), 'run', 'tiny', '--out', 'x']);
    expect(bad.status).toBe(2);
    expect(bad.stderr).toMatch(/--config ".*nowhere": expected a folder holding worlds\/ and requests\//);
  }, 60_000);
});
