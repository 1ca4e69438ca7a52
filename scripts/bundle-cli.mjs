#!/usr/bin/env node
// Bundles the compiled CLI (dist/cli/bin.js and everything it imports, statically or lazily) into
// dist/cli-bundle/: one entry module plus shared chunks, so a command loads a few files instead of about forty —
// startup is part of every command's time (a one-shot `heightbench compare` spends about a quarter of its life
// loading modules). [R] The chunks sit beside the entry, at the depth of dist/<dir>/ that the modules' own
// import.meta.url paths assume (src/project/paths.ts finds the package root two folders up). Packages that load
// native code or browsers, and the ones only tests and builds use, stay external: they resolve from node_modules.
// The command groups stay lazy (a dynamic import becomes a chunk). Run by `npm run build` after tsc.
import { build } from 'esbuild';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { RECORD, sourceDigest } from '../bin/source-check.mjs';

const ENTRY = 'dist/cli/bin.js';
/** The module whose dynamic imports are the command groups (src/cli/commands.ts). */
const GROUPS_FROM = 'dist/cli/commands.js';
const options = {
  entryPoints: { heightbench: ENTRY },
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  outdir: 'dist/cli-bundle',
  chunkNames: '[name]-[hash]',
  external: ['webgpu', 'playwright-core', 'esbuild', 'typescript', 'wabt', 'tsx'],
  // CommonJS dependencies (commander) call require(); an ES module has none of its own.
  banner: { js: "import { createRequire as __heightbenchRequire } from 'node:module';\nconst require = __heightbenchRequire(import.meta.url);" },
  sourcemap: 'linked',
  // [R] Same sources, same bytes in any folder: a package is named by its path under this project's node_modules even
  // where node_modules is a symlink (a worktree sharing another checkout's install). Resolved through the link, the
  // source maps' paths — and with them the chunks' content hashes, hence file names — depended on where the link
  // points (test/build-reproducible.test.ts).
  preserveSymlinks: true,
  logLevel: 'warning',
  legalComments: 'none',
};

/**
 * [R] commander requires node:child_process when it loads, for executable subcommands, which heightbench never
 * declares: loading that module cost every command ~2.5 ms of startup, so commander is given it on first use instead.
 */
const lazyChildProcessForCommander = {
  name: 'lazy-child-process-for-commander',
  setup(b) {
    b.onResolve({ filter: /^node:child_process$/ }, (args) =>
      /[\\/]node_modules[\\/]commander[\\/]/.test(args.importer) ? { path: 'child-process-on-first-use', namespace: 'heightbench-lazy' } : undefined,
    );
    b.onLoad({ filter: /.*/, namespace: 'heightbench-lazy' }, () => ({
      contents: "module.exports = new Proxy({}, { get: (_, key) => require('node:child_process')[key] });",
      loader: 'js',
    }));
  },
};

/** Objects such a stand-in may also give, as a proxy of the real one (read only: sidecar.ts calls webcrypto.subtle). */
const LAZY_OBJECTS = { 'node:crypto': ['webcrypto'] };

/**
 * [R] Node modules that cost a few ms to load (crypto's ~20 internal modules, zlib, worker_threads) are imported by the
 * core for one function each that many commands never call (hashing a sidecar's payload, inflating a block, starting a
 * helper thread): an import that takes only functions (and classes called with `new`) is given a stand-in whose
 * functions load the real module on their first call. An import that takes anything else (but LAZY_OBJECTS) keeps
 * the real module.
 */
const lazyBuiltins = {
  name: 'lazy-builtins',
  setup(b) {
    const req = createRequire(import.meta.url);
    const functionsOf = (m) => Object.keys(req(m)).filter((k) => /^[A-Za-z_$][\w$]*$/.test(k) && typeof req(m)[k] === 'function');
    b.onResolve({ filter: /^node:(crypto|zlib|worker_threads)$/ }, (args) => {
      // Static imports of the project's own modules only (a dynamic import may read any member).
      if (args.kind !== 'import-statement' || !args.importer.endsWith('.js') || /[\\/]node_modules[\\/]/.test(args.importer)) return undefined;
      const text = readFileSync(args.importer, 'utf8');
      const clauses = [...text.matchAll(/^import\s+([^;]*?)\s+from\s+'([^']+)';/gm)].filter((m) => m[2] === args.path).map((m) => m[1]);
      const fns = new Set([...functionsOf(args.path), ...(LAZY_OBJECTS[args.path] ?? [])]);
      const lazy =
        clauses.length > 0 &&
        clauses.every(
          (c) =>
            /^\{[^}]*\}$/.test(c) &&
            c
              .slice(1, -1)
              .split(',')
              .every((n) => fns.has(n.trim().split(/\s+as\s+/)[0])),
        );
      return lazy ? { path: args.path, namespace: 'heightbench-lazy-builtin' } : undefined;
    });
    b.onLoad({ filter: /.*/, namespace: 'heightbench-lazy-builtin' }, (args) => ({
      contents: [
        `const real = () => require(${JSON.stringify(args.path)});`,
        ...functionsOf(args.path).map((k) => `export function ${k}(...a) { const f = real().${k}; return new.target ? new f(...a) : f(...a); }`),
        // An object's methods are called on the real object (webcrypto's check what they are called on).
        ...(LAZY_OBJECTS[args.path] ?? []).map(
          (k) =>
            `export const ${k} = new Proxy({}, { get: (_, p) => { const o = real().${k}; const v = o[p]; return typeof v === 'function' ? v.bind(o) : v; } });`,
        ),
      ].join('\n'),
      loader: 'js',
    }));
  },
};

/**
 * [R] One chunk for the program's core. Split by esbuild alone, the modules every command loads — main.js, commander,
 * the readers, info and convert, the formats' decoders — fell into some thirty chunks, one per set of command groups
 * that happen to share them, and each module costs a file read, a resolution and a link of its own (a one-shot `info`
 * spent about as long loading modules as decoding a DDS file). Yet every group loads after main.js, so the core is
 * always in memory by then: here every lazily loaded module (the groups, the core's own dynamic imports and the groups')
 * imports one virtual module that imports the whole core, which gives all of the core the same importers, hence one
 * chunk.
 * It changes no evaluation order that matters: the core is evaluated before any of those modules can load. The core
 * is what bin.js reaches without passing through a command group; the entry's own static imports (the worker prestarts)
 * stay a small chunk of their own, so the prestarts run before the core is read.
 */
async function coreChunkPlugin() {
  const { metafile } = await build({ ...options, write: false, metafile: true, outdir: 'dist/cli-bundle-plan' });
  const { inputs } = metafile;
  const lazy = (f) => (inputs[f]?.imports ?? []).filter((i) => i.kind === 'dynamic-import' && !i.external).map((i) => i.path);
  const groups = new Set(lazy(GROUPS_FROM));
  const core = new Set();
  const todo = [ENTRY];
  while (todo.length) {
    const f = todo.pop();
    if (core.has(f)) continue;
    core.add(f);
    for (const i of inputs[f]?.imports ?? []) if (!i.external && !groups.has(i.path)) todo.push(i.path);
  }
  const roots = [...new Set([...core].flatMap(lazy))].filter((f) => !groups.has(f)).sort();
  // The project's own modules (dist/): an import added to a package's module could change what kind of module it is.
  const targets = new Set(
    Object.keys(inputs)
      .flatMap(lazy)
      .filter((f) => f.startsWith('dist/')),
  );
  return {
    name: 'heightbench-core-chunk',
    setup(b) {
      b.onResolve({ filter: /^heightbench-core$/ }, () => ({ path: 'core', namespace: 'heightbench-core' }));
      b.onLoad({ filter: /.*/, namespace: 'heightbench-core' }, () => ({
        contents: roots.map((f) => `import ${JSON.stringify(`./${f}`)};`).join('\n'),
        resolveDir: process.cwd(),
        loader: 'js',
      }));
      // Appended, not prepended: the module's own source map (tsc's) keeps its lines.
      b.onLoad({ filter: /\.js$/ }, (args) => {
        const rel = args.path
          .slice(process.cwd().length + 1)
          .split('\\')
          .join('/');
        if (!targets.has(rel)) return undefined;
        return { contents: `${readFileSync(args.path, 'utf8')}\nimport 'heightbench-core';\n`, loader: 'js' };
      });
    },
  };
}

rmSync('dist/cli-bundle', { recursive: true, force: true });
await build({ ...options, plugins: [lazyChildProcessForCommander, lazyBuiltins, await coreChunkPlugin()] });
// The sources this dist/ was built from (bin/source-check.mjs): written last, so a build that failed leaves none.
writeFileSync(RECORD, `${JSON.stringify({ files: sourceDigest() }, null, 1)}\n`);
