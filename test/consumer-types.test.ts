// A strict TypeScript consumer of the package: the root and every subpath export compile under `tsc --strict` with
// skipLibCheck off, in a project that has only what an install gives it — the package's declarations and its
// `dependencies` (never its devDependencies such as @types/d3-delaunay) — plus @types/node, which any Node consumer
// adds itself. Needs dist/ built (make test builds it first).
import { spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempDir } from './helpers.js';

const root = resolve(import.meta.dirname, '..');
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { exports: Record<string, unknown>; dependencies: Record<string, string> };

/** The consumer project: declarations of heightbench copied (so module lookups start inside the consumer), dependencies linked. */
function consumer(source: string): string {
  const d = tempDir('hb-consumer-');
  const nm = join(d, 'node_modules');
  const own = join(nm, 'heightbench');
  mkdirSync(own, { recursive: true });
  cpSync(join(root, 'package.json'), join(own, 'package.json'));
  cpSync(join(root, 'dist'), join(own, 'dist'), { recursive: true, filter: (p) => !/\.(js|map)$/.test(p) });
  for (const dep of [...Object.keys(pkg.dependencies), '@types/node']) {
    mkdirSync(dirname(join(nm, dep)), { recursive: true });
    symlinkSync(join(root, 'node_modules', dep), join(nm, dep), 'dir');
  }
  writeFileSync(join(d, 'package.json'), '{"name":"strict-consumer","private":true,"type":"module"}\n');
  writeFileSync(
    join(d, 'tsconfig.json'),
    JSON.stringify({
      compilerOptions: {
        strict: true,
        skipLibCheck: false,
        noEmit: true,
        module: 'NodeNext',
        moduleResolution: 'NodeNext',
        target: 'ES2022',
        lib: ['ES2022'],
        types: ['node'],
      },
      files: ['main.ts'],
    }),
  );
  writeFileSync(join(d, 'main.ts'), source);
  return d;
}

function tsc(dir: string): { status: number | null; out: string } {
  const r = spawnSync(process.execPath, [join(root, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', join(dir, 'tsconfig.json')], { encoding: 'utf8' });
  return { status: r.status, out: `${r.stdout}${r.stderr}` };
}

describe('a strict consumer (tsc --strict, no skipLibCheck)', () => {
  it('lists every subpath it imports below in package.json "exports"', () => {
    expect(Object.keys(pkg.exports).sort()).toEqual([
      '.',
      './cli',
      './compare',
      './conventions',
      './experiments',
      './formats',
      './notebook',
      './package.json',
      './pipeline',
      './terrain',
    ]);
  });

  it('compiles against the root and each subpath, using the types a user writes down', () => {
    const d = consumer(`
import * as hb from 'heightbench';
import * as pipeline from 'heightbench/pipeline';
import * as formats from 'heightbench/formats';
import * as notebook from 'heightbench/notebook';
import { runCli, type CliIO } from 'heightbench/cli';
import * as conventions from 'heightbench/conventions';
import * as compare from 'heightbench/compare';
import * as experiments from 'heightbench/experiments';
import * as terrainApi from 'heightbench/terrain';

const grid: hb.GridDescription = hb.domainGrid(64);
const field: hb.Heightfield = hb.codeHeightfield(grid, new Uint16Array(64 * 64));
const result: hb.ComparisonResult = hb.compareHeightfields(field, field);
const diagnosis: hb.Diagnosis = hb.diagnose(field, field);
const plan: hb.Plan | null = null;
const run: hb.RunResult | null = null;
const terrain: terrainApi.Terrain | null = null;
const masks: compare.MaskSettings = compare.DEFAULT_MASKS;
const lod: conventions.Conventions['draws']['lod'] = conventions.DEFAULT_CONVENTIONS.draws.lod;
const atlas: experiments.Atlas | null = null;
const planned: pipeline.PlannedDrawList | null = null;
const regions: pipeline.RegionMap | null = plan === null ? null : (plan as hb.Plan).regions;
const draws: pipeline.DrawList | null = null;
const bytes: Uint8Array = formats.encodeR16(new Uint16Array(4), 'le');
const trace: notebook.Trace = notebook.heatmapTrace(new Float32Array(64 * 64), grid, 32);
const io: CliIO = { out: () => undefined, err: () => undefined };
const code: Promise<number> = runCli(['--version'], io);
export const used = [result.exact, diagnosis, run, terrain, masks, lod, atlas, planned, regions, draws, bytes.length, trace, code, hb.encodeUnorm16(0.5)];
`);
    const r = tsc(d);
    expect(r.out).toBe('');
    expect(r.status).toBe(0);
  }, 120_000);

  it('fails on a real type error (the check is live)', () => {
    const d = consumer(`import * as hb from 'heightbench';\nexport const n: string = hb.encodeUnorm16(0.5);\n`);
    const r = tsc(d);
    expect(r.status).not.toBe(0);
    expect(r.out).toMatch(/TS2322/);
  }, 120_000);
});
