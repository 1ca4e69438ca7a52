#!/usr/bin/env node
// A DVC stage's checks in one process:
//   checks.mjs node bin/heightbench.mjs check ARGS… [::: node bin/heightbench.mjs check ARGS…]… [::: node scripts/stage-hashes.mjs GEN REF OUT]
// (the command lines jobs.mjs takes, limited to these two commands, so dvc.yaml reads the same either way).
// [R] Why one process: a run's three GPU checks share its GPU reference folder, and stage-hashes hashes the files the
//     checks have just read and verified; as separate processes each read and hashed them again (at 4096² about 1 GB
//     a check). Here:
//     - the jobs run one after another in the given order, each through the library's checkFoldersStatus
//       (src/runs/check-folders.ts: what `heightbench check GEN_DIR REF_DIR` runs, so the same output, reports,
//       refusals and exit codes as `node bin/heightbench.mjs check …`);
//     - a check's flags are read here (CHECK_FLAGS: the flags of `check GEN_DIR REF_DIR`, values parsed as the CLI
//       parses them); a flag it does not know, a malformed value or --all/--list is refused (exit 2) before any job runs;
//     - a heightfield file is read once and kept while a later check still names its folder, then dropped (memory: one
//       check's files plus the shared folder's);
//     - a file read with its sidecar's SHA-256 checked against its bytes (LoadedHeightfield.verifiedSha256) lends that
//       digest to stage-hashes, which hashes every other file itself (all of them when run on its own).
// Exit status: 0 when every job succeeded, else the status of the first job that failed (3 for a failed gate); every
// job runs (a failed DVC stage keeps none of its outputs). A command line that is not one of the two forms: exit 2.
import { dirname, resolve } from 'node:path';
import { assertFreshDist } from '../bin/source-check.mjs';
import { writeStageHashes } from './stage-hashes.mjs';

// dist/ must be built from the sources the DVC stages depend on (bin/source-check.mjs).
assertFreshDist('checks');

const jobs = [[]];
for (const a of process.argv.slice(2)) {
  if (a === ':::') jobs.push([]);
  else jobs[jobs.length - 1].push(a);
}
const kindOf = (job) =>
  job[0] === 'node' && job[1] === 'bin/heightbench.mjs' && job[2] === 'check'
    ? 'check'
    : job[0] === 'node' && job[1] === 'scripts/stage-hashes.mjs' && job.length === 5
      ? 'stage-hashes'
      : null;
const refuse = (why) => {
  console.error(`checks.mjs: ${why}`);
  process.exit(2);
};
for (const job of jobs) {
  if (!kindOf(job))
    refuse(
      `expected "node bin/heightbench.mjs check ARGS…" or "node scripts/stage-hashes.mjs GEN REF OUT" between ":::", got ${JSON.stringify(job.join(' '))}`,
    );
}

// The flags of `check GEN_DIR REF_DIR` (src/cli/check.ts, src/cli/gate-flags.ts) → their option and how the value is read.
const DECIMAL = /^[+-]?(\d+\.?\d*|\.\d+)(e[+-]?\d+)?$/i;
const number = (test, what) => (v) => {
  const n = DECIMAL.test(v.trim()) ? Number(v.trim()) : NaN;
  return Number.isFinite(n) && test(n) ? n : refuse(`expected ${what}, got ${JSON.stringify(v)}`);
};
const finite = number(() => true, 'a finite decimal number');
const nonNegative = number((n) => n >= 0, 'a number ≥ 0');
const percent = number((n) => n >= 0 && n <= 100, 'a percentage 0…100 (a gate that can pass)');
const count = (v) => (/^\s*\d+\s*$/.test(v) && Number.isSafeInteger(Number(v)) ? Number(v) : refuse(`expected an integer ≥ 0, got ${JSON.stringify(v)}`));
const path = (v) => (v.trim() === '' ? refuse(`expected a path, got an empty string ${JSON.stringify(v)}`) : v);
const text = (v) => v;
const CHECK_FLAGS = {
  '--report': ['report', path],
  '--title': ['title', text],
  '--shared-plotly': ['sharedPlotly', text],
  '--strict': ['strict', null],
  '--reference-kind': ['referenceKind', text],
  '--attribution': ['attribution', null],
  '--attribution-eps-mm': ['attributionEpsMm', finite],
  '--differences': ['differences', path],
  '--differences-csv': ['differencesCsv', path],
  '--differences-cap': ['differencesCap', count],
  '--diagnose': ['diagnose', null],
  '--note': ['note', text, 'repeat'],
  '--min-exact': ['minExact', percent, 'gate'],
  '--max-code': ['maxCode', nonNegative, 'gate'],
  '--max-rms-mm': ['maxRmsMm', nonNegative, 'gate'],
  '--max-abs-mm': ['maxAbsMm', nonNegative, 'gate'],
  '--max-beyond-tolerance': ['maxBeyondTolerance', nonNegative, 'gate'],
  '--max-nonfinite': ['maxNonFinite', nonNegative, 'gate'],
  '--allow-clamped': ['allowClamped', null, 'gate'],
  '--tolerance-mm': ['toleranceMm', nonNegative],
};

/** A check job's arguments (after `check`) → [GEN_DIR, REF_DIR, FolderCheckOptions]. */
function checkArgs(args) {
  const folders = [];
  // The gates' shape as the CLI hands them on (every gate named, unset ones undefined).
  const o = {
    gates: { minExact: undefined, maxCode: undefined, maxRmsMm: undefined, maxAbsMm: undefined, maxBeyondTolerance: undefined, maxNonFinite: undefined },
  };
  for (let i = 0; i < args.length; i++) {
    const a = args[i];
    if (!a.startsWith('--')) {
      folders.push(path(a));
      continue;
    }
    const eq = a.indexOf('=');
    const flag = eq < 0 ? a : a.slice(0, eq);
    const spec = CHECK_FLAGS[flag];
    if (!Object.hasOwn(CHECK_FLAGS, flag)) refuse(`check: flag ${JSON.stringify(flag)} is not one checks.mjs runs; use \`heightbench check\` for it`);
    const [key, parse, how] = spec;
    let value = true;
    if (parse) {
      if (eq >= 0) value = a.slice(eq + 1);
      else if (i + 1 < args.length) value = args[++i];
      else refuse(`check: ${flag} needs a value`);
      value = parse(value);
    } else if (eq >= 0) refuse(`check: ${flag} takes no value`);
    if (how === 'gate') o.gates[key] = value;
    else if (how === 'repeat') o[key] = [...(o[key] ?? []), value];
    else o[key] = value;
  }
  if (folders.length !== 2) refuse(`check: expected GEN_DIR REF_DIR, got ${JSON.stringify(folders.join(' '))}`);
  return [folders[0], folders[1], o];
}
const parsed = jobs.map((job) => (kindOf(job) === 'check' ? checkArgs(job.slice(3)) : null));

const { checkFoldersStatus } = await import('../dist/runs/check-folders.js');
const { readHeightfieldFile } = await import('../dist/io/heightfield-file.js');
const { terminalText } = await import('../dist/core/text.js');
// As the CLI writes (src/cli/io.ts): control bytes of a name or message shown, not obeyed, by a terminal.
const io = { out: (t) => void process.stdout.write(terminalText(t)), err: (t) => void process.stderr.write(terminalText(t)) };

/** Resolved path → the file as read, while a later check names its folder. */
const kept = new Map();
let reads = 0;
let reused = 0;
let lent = 0;
/** Resolved path → SHA-256 of the file's bytes, for every file read with its sidecar's hash checked. */
const verified = new Map();
let status = 0;
for (let i = 0; i < jobs.length; i++) {
  const job = jobs[i];
  // The folders a later check names (stage-hashes needs only the digests, not the files).
  const later = new Set(
    jobs
      .slice(i + 1)
      .filter((j) => kindOf(j) === 'check')
      .flatMap((j) => j.map((t) => resolve(t))),
  );
  const code =
    kindOf(job) === 'check'
      ? await checkFoldersStatus(
          parsed[i][0],
          parsed[i][1],
          {
            ...parsed[i][2],
            readFile: (path) => {
              const p = resolve(path);
              let f = kept.get(p);
              if (f) reused++;
              else {
                reads++;
                f = readHeightfieldFile(path);
                if (f.verifiedSha256) verified.set(p, f.verifiedSha256);
                if (later.has(dirname(p))) kept.set(p, f);
              }
              return f;
            },
          },
          io,
        ).catch((e) => {
          // As the CLI reports a bug (exit 1); the later jobs still run.
          io.err(`heightbench: internal error: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}\n`);
          return 1;
        })
      : await writeStageHashes(job[2], job[3], job[4], (path) => {
          const d = verified.get(resolve(path));
          if (d) lent++;
          return d;
        });
  for (const p of [...kept.keys()]) if (!later.has(dirname(p))) kept.delete(p);
  if (code !== 0 && status === 0) status = code;
}
// What the sharing did, for the stage's log (and test/checks.test.ts).
console.error(
  `checks.mjs: ${jobs.length} job(s); ${reads} heightfield file(s) read, ${reused} read(s) served from a file kept for a later check, ${lent} digest(s) lent to stage-hashes`,
);
process.exit(status);
