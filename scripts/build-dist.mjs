#!/usr/bin/env node
// Builds dist/ (make build, npm run build): tsc -p tsconfig.build.json, then the pages' browser scripts
// (scripts/bundle-pages.mjs) and the CLI bundle (scripts/bundle-cli.mjs, which also records the sources,
// bin/source-check.mjs).
// [R] tsc runs incrementally (its build information in .cache/tsc/): after a one-line edit it re-emits the files the
//     edit reaches, ~2 s instead of ~6 s of the edit-to-report loop. The output is the same bytes as a build from
//     nothing (test/build-reproducible.test.ts builds both ways and compares every file). Because incremental tsc
//     trusts its record, not the folder, a missing dist/ or a missing output starts over from nothing, and outputs
//     whose source is gone (a file deleted or renamed under src/) are removed.
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, rmSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';

const root = resolve(import.meta.dirname, '..');
const info = join(root, '.cache', 'tsc', 'build.tsbuildinfo');
const dist = join(root, 'dist');
// What tsconfig.build.json emits for each source (sourceMap and declaration; no declarationMap).
const OUTPUTS = ['.js', '.js.map', '.d.ts'];

function tsc() {
  const r = spawnSync(
    process.execPath,
    [join(root, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', 'tsconfig.build.json', '--incremental', '--tsBuildInfoFile', info],
    {
      cwd: root,
      stdio: 'inherit',
    },
  );
  if (r.status !== 0) process.exit(r.status ?? 1);
}

/** Files under dir, relative to it (the CLI bundle is the bundler's, not tsc's). */
function files(dir, base = dir) {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = join(dir, e.name);
    if (e.isDirectory()) return relative(base, p) === 'cli-bundle' ? [] : files(p, base);
    return [relative(base, p)];
  });
}

const sources = files(join(root, 'src')).filter((f) => f.endsWith('.ts') && !f.endsWith('.d.ts'));
const expected = new Set(sources.flatMap((f) => OUTPUTS.map((ext) => f.slice(0, -3) + ext)));
if (!existsSync(dist)) rmSync(info, { force: true });
tsc();
// Every source must have its outputs: otherwise the record did not match the folder (outputs deleted by hand).
if ([...expected].some((f) => !existsSync(join(dist, f)))) {
  rmSync(info, { force: true });
  tsc();
}
for (const f of files(dist)) {
  if (OUTPUTS.some((ext) => f.endsWith(ext)) && !expected.has(f)) rmSync(join(dist, f));
}
// The pages' browser scripts (scripts/bundle-pages.mjs), then the CLI bundle, which records the sources last.
for (const script of ['bundle-pages.mjs', 'bundle-cli.mjs']) {
  const b = spawnSync(process.execPath, [join(root, 'scripts', script)], { cwd: root, stdio: 'inherit' });
  if (b.status !== 0) process.exit(b.status ?? 1);
}
