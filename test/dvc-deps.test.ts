// The DVC stages depend on the sources their commands load, not on dist/ (issue 25: a change under src/report/ must
// not rerun the pipelines). Each stage's code is found from its command line — `bin/heightbench.mjs CMD` is the CLI
// entry plus the command group that owns CMD (src/cli/commands.ts), `scripts/X.mjs` is whatever it imports from dist/,
// the notebooks stage also every notebook's dist/ imports — and walked through the import graph (static imports and
// import() calls, except the command-group and root-command loaders). Every file reached must be under a listed
// dependency; a stage that runs built code must also list what the build reads. And dist/ must be built from the
// sources beside it (bin/source-check.mjs), or a stage would record new sources beside old code's output.
import { mkdirSync, readFileSync, readdirSync, utimesSync, writeFileSync, existsSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
// @ts-expect-error plain JavaScript module (bin/ ships as .mjs)
import { distStaleness, RECORD, sourceDigest } from '../bin/source-check.mjs';
import { spawnSync } from 'node:child_process';
import { tempDir } from './helpers.js';

const ROOT = resolve(import.meta.dirname, '..');
const SRC = join(ROOT, 'src');
/** What the build reads besides src/ (bin/source-check.mjs BUILD_INPUTS, and the entry scripts in bin/). */
const BUILD_INPUTS = ['package-lock.json', 'tsconfig.json', 'tsconfig.build.json', 'scripts/bundle-cli.mjs', 'scripts/bundle-pages.mjs', 'bin'];
/** Loaders whose import() calls reach every command: not edges of one command's closure. */
const LOADERS = new Set(['cli/commands.ts', 'cli/main.ts']);

/** src-relative files reached from `entries` (src-relative .ts paths). */
function closure(entries: readonly string[]): Set<string> {
  const seen = new Set<string>();
  const todo = entries.map((e) => join(SRC, e));
  while (todo.length) {
    const f = todo.pop()!;
    const rel = relative(SRC, f);
    if (seen.has(rel)) continue;
    seen.add(rel);
    const text = readFileSync(f, 'utf8');
    const specs = [...text.matchAll(/^(?:import|export)\s+(?!type\b)[^;]*?\sfrom\s+'(\.[^']+)';/gms)].map((m) => m[1]);
    if (!LOADERS.has(rel)) specs.push(...[...text.matchAll(/import\('(\.[^']+)'\)/g)].map((m) => m[1]));
    for (const s of specs) {
      const p = resolve(dirname(f), s.replace(/\.js$/, '.ts'));
      if (existsSync(p)) todo.push(p);
    }
  }
  return seen;
}

/** Command name → the cli module of its group, read from src/cli/commands.ts. */
function commandModules(): Map<string, string> {
  const text = readFileSync(join(SRC, 'cli', 'commands.ts'), 'utf8');
  const map = new Map<string, string>();
  for (const m of text.matchAll(/commands: \[([^\]]*)\], load: async \(\) => \(await import\('\.\/([^']+)\.js'\)\)/g)) {
    for (const c of m[1].matchAll(/'([^']+)'/g)) map.set(c[1], `cli/${m[2]}.ts`);
  }
  return map;
}

/** src-relative modules a script or notebook imports from dist/ (static or import()). */
function distImports(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  return [...text.matchAll(/['"](?:\.\.?\/)+dist\/([^'"]+)\.js['"]/g)].map((m) => `${m[1]}.ts`).filter((f) => existsSync(join(SRC, f)));
}

interface Stage {
  cmd: string;
  deps?: string[];
  outs?: (string | Record<string, unknown>)[];
}

/** The code a stage's command runs: src-relative entry modules. */
function stageEntries(stage: Stage, modules: Map<string, string>): string[] {
  const entries: string[] = [];
  for (const m of stage.cmd.matchAll(/bin\/heightbench\.mjs\s+([a-z-]+)/g)) {
    const mod = modules.get(m[1]);
    if (!mod) throw new Error(`dvc.yaml runs heightbench ${m[1]}, which no command group owns`);
    entries.push('cli/bin.ts', mod);
  }
  for (const m of stage.cmd.matchAll(/scripts\/([a-z-]+\.mjs)/g)) {
    entries.push(...distImports(join(ROOT, 'scripts', m[1])));
    if (m[1] === 'run-notebooks.mjs') {
      for (const nb of readdirSync(join(ROOT, 'notebooks')).filter((f) => f.endsWith('.nb.ts'))) entries.push(...distImports(join(ROOT, 'notebooks', nb)));
    }
  }
  return entries;
}

/** What is wrong with a stage's deps: files its code loads that no dependency covers, build inputs it lacks. */
export function depProblems(stage: Stage, modules: Map<string, string>): string[] {
  const deps = stage.deps ?? [];
  const problems: string[] = [];
  if (deps.includes('dist')) problems.push('depends on dist (every stage would rerun on any change): list the sources instead');
  const entries = stageEntries(stage, modules);
  if (entries.length === 0) return problems;
  const covered = (f: string) => deps.some((d) => d === f || f.startsWith(`${d}/`));
  const reached = closure(entries);
  for (const f of [...reached].sort()) if (!covered(`src/${f}`)) problems.push(`loads src/${f}, not a dependency`);
  // The pages' browser scripts are not imported but read as the build bundled them: a stage that inlines them depends
  // on their sources.
  if (reached.has('report/page-scripts.ts') && !covered('src/report/page/comparison-page.ts'))
    problems.push('inlines the page scripts (src/report/page-scripts.ts) but does not depend on src/report/page');
  for (const b of BUILD_INPUTS) if (!deps.includes(b)) problems.push(`runs built code but does not depend on ${b}`);
  return problems;
}

const dvc = parse(readFileSync(join(ROOT, 'dvc.yaml'), 'utf8')) as { stages: Record<string, Stage & { do?: Stage }> };
/** Stages whose outputs are references: they change only through `heightbench bless`, never because code changed. */
const isReferenceStage = (s: Stage) => (s.outs ?? []).some((o) => typeof o === 'string' && o.startsWith('references/'));

describe('DVC stage dependencies (dvc.yaml)', () => {
  const modules = commandModules();

  it('reads the command groups: run, check, atlas, assets are owned', () => {
    expect(modules.get('run')).toBe('cli/run.ts');
    expect(modules.get('check')).toBe('cli/check.ts');
    expect(modules.get('atlas')).toBe('cli/atlas.ts');
    expect(modules.get('assets')).toBe('cli/pipeline-commands.ts');
  });

  it('every stage that runs code depends on each source file it loads and on the build inputs, never on dist', () => {
    const report: Record<string, string[]> = {};
    let checked = 0;
    for (const [name, s] of Object.entries(dvc.stages)) {
      const stage = s.do ?? s;
      if (isReferenceStage(stage)) {
        expect(stage.deps?.some((d) => d.startsWith('src/') || d === 'dist') ?? false, `${name} is a reference stage`).toBe(false);
        continue;
      }
      const p = depProblems(stage, modules);
      if (p.length) report[name] = p;
      if (stageEntries(stage, modules).length) checked++;
    }
    expect(report).toEqual({});
    expect(checked).toBeGreaterThanOrEqual(9); // assets, generate, mimic, gpucompare, compare, atlas, sweep, notebooks, report
  });

  it('a check stage does not depend on the pipeline, a run stage not on the report (what makes the loop incremental)', () => {
    const deps = (n: string) => (dvc.stages[n].do ?? dvc.stages[n]).deps ?? [];
    for (const n of ['gpucompare', 'compare']) for (const d of ['src/cpu', 'src/plan', 'src/pipeline', 'src/gpu']) expect(deps(n)).not.toContain(d);
    for (const n of ['generate', 'mimic']) for (const d of ['src/report', 'src/compare', 'src/experiments', 'src/notebook']) expect(deps(n)).not.toContain(d);
    // The check's report writer is not the notebooks' code, nor the atlas's.
    for (const n of ['notebooks', 'atlas']) expect(deps(n).some((d) => d === 'src/report' || d === 'src/runs/check.ts')).toBe(false);
  });

  it('regression fixture undeclared-notebook-input: every project file a notebook reads is a dependency of the notebooks stage', () => {
    // Notebook 10 read reports/atlas/metrics.json, an output of the atlas stage, without declaring it: run beside the
    // atlas (which removes its outputs before it runs) it printed "missing", and reports/notebooks changed.
    const deps = (dvc.stages.notebooks.do ?? dvc.stages.notebooks).deps ?? [];
    const read = new Set<string>();
    for (const nb of readdirSync(join(ROOT, 'notebooks')).filter((f) => f.endsWith('.nb.ts'))) {
      const text = readFileSync(join(ROOT, 'notebooks', nb), 'utf8');
      for (const m of text.matchAll(/'((?:reports|build|references|assets|config)\/[^' ]+)'/g)) read.add(m[1]);
    }
    expect(read.size).toBeGreaterThanOrEqual(2);
    expect([...read].filter((p) => !deps.some((d) => p === d || p.startsWith(`${d}/`)))).toEqual([]);
  });

  it('regression fixture assets-built-beside-the-assets-stage: every stage that runs a pipeline depends on assets', () => {
    // The sweep ran `heightbench run` without declaring assets/: run beside the assets stage (which had removed the
    // folder) it built the assets itself, into the folder DVC was hashing.
    const runsPipelines = (s: Stage) => /bin\/heightbench\.mjs\s+(run|atlas|drawlist|sweep)\b/.test(s.cmd) || s.cmd.includes('run-notebooks.mjs');
    const missing = Object.entries(dvc.stages)
      .filter(([name, s]) => name !== 'assets' && runsPipelines(s.do ?? s) && !((s.do ?? s).deps ?? []).includes('assets'))
      .map(([name]) => name);
    expect(missing).toEqual([]);
    expect(Object.values(dvc.stages).filter((s) => runsPipelines(s.do ?? s)).length).toBeGreaterThanOrEqual(6);
  });

  it('control: a dependency taken out, or dist put back, is reported', () => {
    const g = dvc.stages.generate.do!;
    expect(depProblems({ ...g, deps: g.deps!.filter((d) => d !== 'src/cpu') }, modules).some((p) => p.startsWith('loads src/cpu/'))).toBe(true);
    expect(depProblems({ ...g, deps: g.deps!.filter((d) => d !== 'package-lock.json') }, modules)).toContain(
      'runs built code but does not depend on package-lock.json',
    );
    expect(depProblems({ ...g, deps: [...g.deps!, 'dist'] }, modules)[0]).toMatch(/depends on dist/);
  });
});

describe('dist/ built from the sources beside it (bin/source-check.mjs)', () => {
  function project(): string {
    const root = tempDir('source-check-');
    mkdirSync(join(root, 'src', 'cpu'), { recursive: true });
    mkdirSync(join(root, 'dist'), { recursive: true });
    writeFileSync(join(root, 'src', 'cpu', 'raster.ts'), 'export const a = 1;\n');
    writeFileSync(join(root, 'tsconfig.json'), '{}\n');
    writeFileSync(join(root, RECORD), JSON.stringify({ files: sourceDigest(root) }));
    const past = new Date(Date.now() - 60_000);
    for (const f of ['src/cpu/raster.ts', 'tsconfig.json']) utimesSync(join(root, f), past, past);
    return root;
  }

  it('is fresh after a build, and after a checkout that only touched the files', () => {
    const root = project();
    expect(distStaleness(root)).toBeNull();
    const later = new Date(Date.now() + 60_000);
    utimesSync(join(root, 'src', 'cpu', 'raster.ts'), later, later);
    expect(distStaleness(root)).toBeNull();
  });

  it('names the file that changed, appeared or went away', () => {
    const root = project();
    writeFileSync(join(root, 'src', 'cpu', 'raster.ts'), 'export const a = 2;\n');
    expect(distStaleness(root)).toBe('src/cpu/raster.ts changed since dist/ was built');
    writeFileSync(join(root, 'src', 'cpu', 'raster.ts'), 'export const a = 1;\n');
    writeFileSync(join(root, 'src', 'new.ts'), '\n');
    expect(distStaleness(root)).toBe('src/new.ts is new since dist/ was built');
    writeFileSync(join(root, 'src', 'cpu', 'raster.ts'), 'export const a = 1;\n');
    const root2 = project();
    writeFileSync(join(root2, 'tsconfig.json'), '{"x":1}\n');
    expect(distStaleness(root2)).toBe('tsconfig.json changed since dist/ was built');
  });

  it("this checkout's dist/ is fresh, and its record lists every source file", () => {
    expect(distStaleness(ROOT)).toBeNull();
    const rec = JSON.parse(readFileSync(join(ROOT, RECORD), 'utf8')) as { files: Record<string, string> };
    expect(Object.keys(rec.files)).toContain('src/cli/check.ts');
    expect(Object.keys(rec.files)).toContain('package-lock.json');
  });

  it('the CLI refuses to run from a stale dist/ with exit 2 (a copy of bin/ beside an edited src/)', () => {
    const root = project();
    mkdirSync(join(root, 'bin'));
    writeFileSync(join(root, 'bin', 'source-check.mjs'), readFileSync(join(ROOT, 'bin', 'source-check.mjs')));
    writeFileSync(join(root, 'bin', 'heightbench.mjs'), readFileSync(join(ROOT, 'bin', 'heightbench.mjs')));
    mkdirSync(join(root, 'dist', 'cli-bundle'));
    writeFileSync(join(root, 'dist', 'cli-bundle', 'heightbench.js'), "process.stdout.write('ran\\n');\n");
    expect(spawnSync(process.execPath, [join(root, 'bin', 'heightbench.mjs')], { encoding: 'utf8' }).stdout).toBe('ran\n');
    writeFileSync(join(root, 'src', 'cpu', 'raster.ts'), 'export const a = 3;\n');
    const r = spawnSync(process.execPath, [join(root, 'bin', 'heightbench.mjs')], { encoding: 'utf8' });
    expect(r.status).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(/dist\/ is stale: src\/cpu\/raster\.ts changed since dist\/ was built; run `make build`/);
  });
});
