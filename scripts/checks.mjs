#!/usr/bin/env node
// A DVC stage's checks in one process:
//   checks.mjs node bin/heightbench.mjs check ARGS… [::: node bin/heightbench.mjs check ARGS…]… [::: node scripts/stage-hashes.mjs GEN REF OUT]
// (the command lines jobs.mjs takes, limited to these two commands, so dvc.yaml reads the same either way).
// [R] Why one process: a run's three GPU checks share its GPU reference folder, and stage-hashes hashes the files the
//     checks have just read and verified; as separate processes each read and hashed them again (at 4096² about 1 GB
//     a check). Here:
//     - the jobs run one after another in the given order, each through the CLI's own runCli (the same output, the
//       same refusals and exit codes as `node bin/heightbench.mjs check …`);
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
for (const job of jobs) {
  if (!kindOf(job)) {
    console.error(
      `checks.mjs: expected "node bin/heightbench.mjs check ARGS…" or "node scripts/stage-hashes.mjs GEN REF OUT" between ":::", got ${JSON.stringify(job.join(' '))}`,
    );
    process.exit(2);
  }
}

const { runCli } = await import('../dist/cli/main.js');
const { processIO } = await import('../dist/cli/io.js');
const { readHeightfieldFile } = await import('../dist/io/heightfield-file.js');

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
      ? await runCli(job.slice(2), {
          ...processIO,
          readHeightfield: (path) => {
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
