// Is dist/ built from the sources beside it? The DVC stages depend on the sources each command loads (src/…, the
// lockfile, the build's configuration), not on dist/, so a stage run from a dist/ older than src/ would record the
// new sources' hashes beside the old code's output. The build writes dist/.sources.json (sourceDigest below, after
// the bundle); the CLI and the scripts DVC runs call assertFreshDist first and refuse (exit 2) when the digest of the
// tree differs, naming the first file that differs. Nothing is checked where there is no src/ (an installed package)
// or no record (a dist built by hand without the bundle step).
// [R] Fast path: when no input is newer than the record, nothing is hashed (stat only, ~1 ms); otherwise (an edit, or
// a checkout that touched every file) the inputs are hashed (~2 MB, a few ms) and compared.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
/** What determines dist/ besides src/: the build's configuration and the installed packages' versions. */
const BUILD_INPUTS = ['tsconfig.json', 'tsconfig.build.json', 'package-lock.json', 'scripts/bundle-cli.mjs', 'scripts/bundle-pages.mjs'];
export const RECORD = 'dist/.sources.json';

function inputs(root) {
  const files = [];
  // One recursive listing, names joined as strings (a walk of readdir calls, or path.relative per file, costs several
  // times more at every start).
  const src = join(root, 'src');
  for (const e of readdirSync(src, { recursive: true, withFileTypes: true })) {
    if (e.isFile()) files.push(`src${e.parentPath.slice(src.length).split(sep).join('/')}/${e.name}`);
  }
  for (const f of BUILD_INPUTS) if (existsSync(join(root, f))) files.push(f);
  return files.sort();
}

/**
 * Is every input older than `built`? The same inputs as inputs(), stat'ed as the listing goes: no list is sorted or
 * joined, and a missing build input is one failed stat instead of an existence check and a stat (every start pays it).
 */
function allOlder(root, built) {
  for (const e of readdirSync(join(root, 'src'), { recursive: true, withFileTypes: true })) {
    if (e.isFile() && !(statSync(`${e.parentPath}${sep}${e.name}`).mtimeMs < built)) return false;
  }
  for (const f of BUILD_INPUTS) {
    const s = statSync(join(root, f), { throwIfNoEntry: false });
    if (s && !(s.mtimeMs < built)) return false;
  }
  return true;
}

/** Each input's SHA-256, by path (sorted). */
export function sourceDigest(root = ROOT) {
  // node:crypto is loaded only here: its load is a noticeable part of a one-shot command's start, and the fast path
  // above never hashes.
  const { createHash } = createRequire(import.meta.url)('node:crypto');
  const files = {};
  for (const f of inputs(root))
    files[f] = createHash('sha256')
      .update(readFileSync(join(root, f)))
      .digest('hex');
  return files;
}

/** null when dist/ is fresh (or nothing can be checked); otherwise why not. */
export function distStaleness(root = ROOT) {
  const record = join(root, RECORD);
  if (!existsSync(join(root, 'src')) || !existsSync(record)) return null;
  const built = statSync(record).mtimeMs;
  // Strictly older: the clock behind mtimes is coarse (a few ms), so a file written in the same tick as the record
  // may hold its change and is hashed.
  if (allOlder(root, built)) return null;
  const was = JSON.parse(readFileSync(record, 'utf8')).files ?? {};
  const now = sourceDigest(root);
  for (const f of new Set([...Object.keys(was), ...Object.keys(now)].sort())) {
    if (was[f] !== now[f]) return `${f} ${now[f] === undefined ? 'was removed' : was[f] === undefined ? 'is new' : 'changed'} since dist/ was built`;
  }
  return null;
}

/** Exits 2 with the reason when dist/ is older than the sources beside it. */
export function assertFreshDist(who = 'heightbench') {
  const why = distStaleness();
  if (why) {
    process.stderr.write(`${who}: dist/ is stale: ${why}; run \`make build\` (make reproduce and make test do)\n`);
    process.exit(2);
  }
}
