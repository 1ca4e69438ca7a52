#!/usr/bin/env node
// Runs several commands at once and fails as the first failing one does: `jobs.mjs CMD ARGS… ::: CMD ARGS… ::: …`.
// Each command's argv is passed as the shell split it (no second shell); at most HEIGHTBENCH_JOBS at a time (default:
// the number of CPUs, at most 4). [R] Each job's stdout and stderr are buffered and printed whole when it ends, in the
// order the jobs were given, so a DVC log reads as if they had run one after the other. Exit status: 0 when every job
// succeeded, else the status of the first job (in the given order) that failed — 3 for a failed gate stays 3.
import { spawn } from 'node:child_process';
import { availableParallelism, constants } from 'node:os';

const argv = process.argv.slice(2);
const jobs = [[]];
for (const a of argv) {
  if (a === ':::') jobs.push([]);
  else jobs[jobs.length - 1].push(a);
}
if (jobs.some((j) => j.length === 0)) {
  console.error('jobs.mjs: expected CMD ARGS… [::: CMD ARGS…]…, got an empty command');
  process.exit(2);
}
const env = Number(process.env.HEIGHTBENCH_JOBS);
const width = Number.isInteger(env) && env > 0 ? env : Math.min(4, availableParallelism());
const results = new Array(jobs.length);
let next = 0;
let printed = 0;

function flush() {
  while (printed < jobs.length && results[printed]) {
    const r = results[printed++];
    process.stdout.write(r.out);
    process.stderr.write(r.err);
  }
}

function start() {
  if (next >= jobs.length) return null;
  const i = next++;
  const [cmd, ...args] = jobs[i];
  return new Promise((done) => {
    const p = spawn(cmd, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    const out = [];
    const err = [];
    p.stdout.on('data', (b) => out.push(b));
    p.stderr.on('data', (b) => err.push(b));
    p.on('error', (e) => err.push(Buffer.from(`jobs.mjs: cannot start ${cmd}: ${e.message}\n`)));
    p.on('close', (code, signal) => {
      // A job killed by a signal reads as a shell reports it: 128 + the signal's number.
      results[i] = { out: Buffer.concat(out), err: Buffer.concat(err), status: code ?? 128 + (constants.signals[signal] ?? 0) };
      flush();
      done(start());
    });
  });
}

// Each lane's promise settles only when the last job it started has ended (a finished job hands on the next).
await Promise.all(Array.from({ length: Math.min(width, jobs.length) }, () => start()));
flush();
const failed = results.find((r) => r.status !== 0);
process.exit(failed ? failed.status : 0);
