#!/usr/bin/env node
// Bundles the compiled CLI (dist/cli/bin.js and everything it imports, statically or lazily) into
// dist/cli-bundle/: one entry module plus shared chunks, so a command loads a few files instead of about forty —
// startup is part of every command's time (a one-shot `heightbench compare` spends about a quarter of its life
// loading modules). [R] The chunks sit beside the entry, at the depth of dist/<dir>/ that the modules' own
// import.meta.url paths assume (src/project/paths.ts finds the package root two folders up). Packages that load
// native code or browsers, and the ones only tests and builds use, stay external: they resolve from node_modules.
// The command groups stay lazy (a dynamic import becomes a chunk). Run by `npm run build` after tsc.
import { build } from 'esbuild';
import { rmSync, writeFileSync } from 'node:fs';
import { RECORD, sourceDigest } from '../bin/source-check.mjs';

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

rmSync('dist/cli-bundle', { recursive: true, force: true });
await build({
  entryPoints: { heightbench: 'dist/cli/bin.js' },
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
  plugins: [lazyChildProcessForCommander],
});
// The sources this dist/ was built from (bin/source-check.mjs): written last, so a build that failed leaves none.
writeFileSync(RECORD, `${JSON.stringify({ files: sourceDigest() }, null, 1)}\n`);
