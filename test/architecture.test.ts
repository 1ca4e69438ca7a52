/**
 * The architecture as data: every src/**\/*.ts import (static `from '…'`, side-effect `import '…'`, re-export, dynamic
 * `import('…')`, type-only too) read with a regular expression, folded into a folder-level graph (a top-level file —
 * errors.ts, version.ts, index.ts — is its own node). Rules: the graph has no cycle, and every edge points to a lower
 * layer of LAYERS (siblings in one layer import nothing from each other). A new folder must be placed in LAYERS.
 * Inside a folder, the file-level graph (dynamic imports included) has no cycle either.
 * I/O at the edges: of the planner, the draw list and the executors, only the named loader and writer files touch the
 * file system (node:fs or an io/ module that reads or writes files); planning and execution take loaded inputs.
 * Configuration is a value: the CLI's --config lives in its invocation's context, not in a module-level variable.
 */
import { cpSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempDir } from './helpers.js';

/** Bottom to top: a folder may import only from folders in lower layers. */
const LAYERS: readonly (readonly string[])[] = [
  ['errors', 'version'], // error classes, the producer's name and version
  ['conventions'], // the declaration of every convention
  ['core'], // grids, heightfields, fields, affine transforms, geometry, encoding, sampling, threads, the WebAssembly layout
  ['io', 'project'], // readers, writers, sidecars, atomic writes, run-folder swaps; where the project's data folders are
  ['pipelines'], // pipeline declarations: stage names, order, holdings, causes, footprints, masks, anchors (the seed's among them)
  ['bell'], // the bell accumulation (asset and region shapes)
  ['world'], // the world file: its schema and loader
  ['assets'], // the height assets: built from the bell generator, KTX2 containers
  ['drawlist'], // the seam: the draw list's types, serial form and draw placement
  ['plan'], // request → plan → draw list: layout, regions, sources, corners, fans, stamp and support selection, emit
  ['cpu', 'gpu'], // the executors of a draw list: the CPU kernels, the WGSL executor and its hosts
  ['pipeline', 'terrain'], // a run: plan + an executor → fields (loaders at its edge); the engine heightfield
  ['compare'], // metrics, attribution, diagnose
  ['experiments', 'sweep'], // the ablation atlas (pipelines run with a convention broken on purpose); sweeps (batches of requests, records)
  ['report'], // HTML, Markdown, pictures, the check command's report folder, the static GPU page
  ['runs'], // the run folder's contract and the use cases that write and read it (check, import, bless, regress)
  ['notebook'], // notebook figures and sessions
  ['cli'], // commands
  ['index'], // the package root
  ['api'], // the package's subpath entry points (the notebooks' namespace builds on the root)
];
/** The executors take a draw list: neither imports the planner (what is drawn is decided once, in plan/). */
const EXECUTORS = ['cpu', 'gpu'];

const SRC = resolve(import.meta.dirname, '..', 'src');
const IMPORT = /(?:\bfrom\s*|\bimport\s*\(\s*|\bimport\s+)['"](\.{1,2}\/[^'"]+)['"]/g;

function tsFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((e) => {
    const p = join(dir, e);
    return statSync(p).isDirectory() ? tsFiles(p) : p.endsWith('.ts') ? [p] : [];
  });
}

/** The folder node of a path under src/: its first segment, or a top-level file's name without extension. */
function nodeOf(path: string): string {
  const parts = relative(SRC, path).split(/[\\/]/);
  return parts.length === 1 ? parts[0].replace(/\.[jt]s$/, '') : parts[0];
}

/** Folder-level edges "a → b" with the imports that make each. */
function folderGraph(): Map<string, Map<string, string[]>> {
  const g = new Map<string, Map<string, string[]>>();
  for (const f of tsFiles(SRC)) {
    const a = nodeOf(f);
    if (!g.has(a)) g.set(a, new Map());
    for (const m of readFileSync(f, 'utf8').matchAll(IMPORT)) {
      const b = nodeOf(resolve(dirname(f), m[1]));
      if (a === b) continue;
      const via = g.get(a)!;
      via.set(b, [...(via.get(b) ?? []), `${relative(SRC, f)} imports ${m[1]}`]);
    }
  }
  return g;
}

/** One cycle of the graph (as a path a → … → a), or null. */
export function findCycle(g: ReadonlyMap<string, ReadonlyMap<string, unknown>>): string[] | null {
  const state = new Map<string, 'open' | 'done'>();
  const stack: string[] = [];
  const visit = (v: string): string[] | null => {
    state.set(v, 'open');
    stack.push(v);
    for (const w of g.get(v)?.keys() ?? []) {
      if (state.get(w) === 'open') return [...stack.slice(stack.indexOf(w)), w];
      if (!state.has(w)) {
        const c = visit(w);
        if (c) return c;
      }
    }
    stack.pop();
    state.set(v, 'done');
    return null;
  };
  for (const v of [...g.keys()].sort()) {
    if (state.has(v)) continue;
    const c = visit(v);
    if (c) return c;
  }
  return null;
}

/** Edges that do not point to a strictly lower layer, each with the imports that make it. */
function upwardEdges(g: ReadonlyMap<string, ReadonlyMap<string, string[]>>, layers: readonly (readonly string[])[]): string[] {
  const level = new Map(layers.flatMap((l, i) => l.map((n) => [n, i] as const)));
  const out: string[] = [];
  for (const [a, via] of g)
    for (const [b, why] of via) if (!((level.get(b) ?? Infinity) < (level.get(a) ?? -Infinity))) out.push(`${a} → ${b}: ${why.join('; ')}`);
  return out.sort();
}

describe('architecture: the folder-level import graph', () => {
  const g = folderGraph();

  it('reads the imports it should: a graph of the known folders, with the seam edges present', () => {
    expect(g.get('gpu')?.has('drawlist')).toBe(true);
    expect(g.get('plan')?.has('drawlist')).toBe(true);
    expect(g.get('cpu')?.has('drawlist')).toBe(true);
    expect(g.get('cli')?.has('gpu')).toBe(true); // a dynamic import('../gpu/run.js')
    expect(g.size).toBeGreaterThanOrEqual(14);
  });

  it('places every folder of src/ in exactly one layer', () => {
    const placed = LAYERS.flat();
    expect(new Set(placed).size).toBe(placed.length);
    expect([...g.keys()].filter((n) => !placed.includes(n)).sort()).toEqual([]);
  });

  it('the executors read the draw list, not the planner: cpu/ and gpu/ import nothing from plan/', () => {
    for (const x of EXECUTORS) expect([...(g.get(x)?.entries() ?? [])].filter(([b]) => b === 'plan' || EXECUTORS.includes(b))).toEqual([]);
  });

  it('has no folder-level cycle', () => {
    expect(findCycle(g)).toBeNull();
  });

  it('imports only downward: every edge points to a lower layer', () => {
    expect(upwardEdges(g, LAYERS)).toEqual([]);
  });

  it('the checks catch what they are for: a cycle and an upward edge in a small graph', () => {
    const bad = new Map([
      ['core', new Map([['pipeline', ['core/encoding.ts imports ../pipeline/wasm/layouts.js']]])],
      ['pipeline', new Map([['core', ['pipeline/run.ts imports ../core/grid.js']]])],
    ]);
    expect(findCycle(bad)).toEqual(['core', 'pipeline', 'core']);
    expect(upwardEdges(bad, [['core'], ['pipeline']])).toEqual(['core → pipeline: core/encoding.ts imports ../pipeline/wasm/layouts.js']);
  });
});

/**
 * The files of the world, the assets, the planner, the draw list and the executors allowed to touch files: loaders and
 * GPU hosts. (The run's own loaders and writers live one floor up, in pipeline/inputs.ts and pipeline/outputs.ts.)
 */
const IO_EDGE = new Set([
  'plan/request.ts', // request files and the config folder
  'world/world.ts', // world files
  'assets/assets.ts', // the asset folder's builder and loader
  'gpu/dawn-host.ts', // the Dawn host (its native module)
  'gpu/browser-host.ts', // the Chromium host (its page and bundle)
]);
const FILE_IO =
  /(?:\bfrom\s*|\bimport\s*\(\s*|\bimport\s+)['"](node:fs(?:\/promises)?|fs|[./]+(?:io\/)?(?:read-input|atomic|heightfield-file|fs-ops|folder-swap|background-writer)\.js)['"]/;

/**
 * The file-level graph inside each folder: an edge for every import (static, re-export, type-only or dynamic
 * `import()`) from one file to another of the same folder node, keyed by the path under src/. A dynamic import counts:
 * it dodges load order, not the dependency.
 */
function fileGraphWithinFolders(): Map<string, Map<string, string[]>> {
  const g = new Map<string, Map<string, string[]>>();
  for (const f of tsFiles(SRC)) {
    const a = relative(SRC, f).split(/[\\/]/).join('/');
    const via = new Map<string, string[]>();
    g.set(a, via);
    for (const m of readFileSync(f, 'utf8').matchAll(IMPORT)) {
      const target = resolve(dirname(f), m[1]).replace(/\.js$/, '.ts');
      if (!target.endsWith('.ts') || nodeOf(target) !== nodeOf(f)) continue;
      const b = relative(SRC, target).split(/[\\/]/).join('/');
      via.set(b, [...(via.get(b) ?? []), `${a} imports ${m[1]}`]);
    }
  }
  return g;
}

describe('architecture: the file-level import graph inside each folder', () => {
  const g = fileGraphWithinFolders();

  it('reads the imports it should: same-folder edges, dynamic import() included', () => {
    expect(g.get('io/heightfield-file.ts')?.has('io/containers.ts')).toBe(true);
    expect(g.get('io/heightfield-file.ts')?.has('io/outside.ts')).toBe(true); // a dynamic import('./outside.js')
    expect(g.get('io/containers.ts')?.has('io/formats/tiff.ts')).toBe(true); // a dynamic import('./formats/tiff.js')
  });

  it('has no file-level cycle inside any folder', () => {
    expect(findCycle(g)).toBeNull();
  });

  it('catches a cycle made by a dynamic import', () => {
    const bad = new Map([
      ['io/a.ts', new Map([['io/b.ts', ["io/a.ts imports './b.js'"]]])],
      ['io/b.ts', new Map([['io/a.ts', ["io/b.ts imports ('./a.js') dynamically"]]])],
    ]);
    expect(findCycle(bad)).toEqual(['io/a.ts', 'io/b.ts', 'io/a.ts']);
  });
});

describe('architecture: I/O at the edges', () => {
  it('planning, the draw list and the executors touch no file outside the named loaders and writers', () => {
    const core = tsFiles(SRC)
      .map((f) => relative(SRC, f).split(/[\\/]/).join('/'))
      .filter((f) => /^(world|assets|plan|drawlist|cpu|gpu|conventions)\//.test(f));
    expect(core).toContain('cpu/execute.ts');
    const touching = core.filter((f) => FILE_IO.test(readFileSync(join(SRC, f), 'utf8')));
    expect(touching.filter((f) => !IO_EDGE.has(f))).toEqual([]);
    // The list is not stale: each named edge file still does I/O.
    expect([...IO_EDGE].filter((f) => !touching.includes(f))).toEqual([]);
  });
});

describe('architecture: configuration is a value, not module state', () => {
  it('--config acts for its own invocation only: the library and the next invocation read the default config', async () => {
    const { runCli } = await import('../src/cli/main.js');
    const { loadRequest } = await import('../src/plan/request.js');
    const d = tempDir('hb-config-');
    cpSync(join(SRC, '..', 'config'), join(d, 'config'), { recursive: true });
    const teaching = JSON.parse(readFileSync(join(d, 'config', 'requests', 'teaching-512.json'), 'utf8')) as Record<string, unknown>;
    writeFileSync(join(d, 'config', 'requests', 'only-here.json'), JSON.stringify({ ...teaching, id: 'only-here' }));
    const io = { out: () => undefined, err: () => undefined };
    const args = (out: string) => ['run', 'only-here', '--stages', 'layout', '--out', join(d, out), '--quiet'];
    expect(await runCli(['--config', d, ...args('a')], io)).toBe(0);
    expect(JSON.parse(readFileSync(join(d, 'a', 'layout.json'), 'utf8')).request).toBe('only-here');
    // Nothing of that invocation stays behind in the process.
    expect(() => loadRequest('only-here')).toThrow(/no such request file/);
    expect(await runCli(args('b'), io)).toBe(2);
  }, 60_000);
});
