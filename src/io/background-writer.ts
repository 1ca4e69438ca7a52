/**
 * A worker thread that writes payloads durably and hashes them while the calling thread goes on computing: the run
 * hands each kept stage to it as the pipeline produces it, so the stage dumps' SHA-256 and disk writes overlap the
 * later stages instead of following the whole pipeline.
 *
 * Input: a path for a new file and the payload's bytes in shared memory (read, never changed, by the worker).
 * Output: the file written and fsynced under that path (created exclusively, mode 0644), with the payload's byte
 * count and SHA-256 — what writeNewFileDurable and the sidecar's digest give on the calling thread.
 * Only the payload is written here; the pair's commit (sidecar, renames, folder fsync) stays with the caller
 * (commitPreparedPair in atomic.ts), so the commit order of an atomic pair is unchanged.
 * [R] One worker, jobs in the order given. A failed write answers with the file-system error (code, syscall, path),
 *     which the caller sees as the same error the calling thread's write would have thrown (exit 2).
 *     HEIGHTBENCH_NO_THREADS=1 (src/core/threads.ts) starts none: the caller then writes on its own thread. The
 *     thread starts with the first write (startBackgroundWriter).
 */
import { Worker } from 'node:worker_threads';
import { threadsWanted } from '../core/threads.js';
import { writeNewFileDurable } from './fs-ops.js';
import { sha256Hex } from './sidecar.js';

/**
 * The worker's whole program. Its write is writeNewFileDurable's (fs-ops.ts) — create exclusively, write all, fsync,
 * close — restated because an evaluated program imports no heightbench module; test/background-writer.test.ts checks
 * that the files are those the calling thread writes.
 */
const SOURCE = `
const { parentPort } = require('node:worker_threads');
const { openSync, writeSync, fsyncSync, closeSync } = require('node:fs');
const { createHash } = require('node:crypto');
parentPort.on('message', (m) => {
  try {
    const bytes = new Uint8Array(m.buffer, m.offset, m.length);
    const sha256 = createHash('sha256').update(bytes).digest('hex');
    const fd = openSync(m.path, 'wx', 0o644);
    try {
      let off = 0;
      while (off < bytes.length) off += writeSync(fd, bytes, off, bytes.length - off);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    parentPort.postMessage({ id: m.id, bytes: bytes.length, sha256 });
  } catch (e) {
    parentPort.postMessage({ id: m.id, error: { message: String(e && e.message), code: e && e.code, errno: e && e.errno, syscall: e && e.syscall, path: (e && e.path) || m.path } });
  }
});
`;

export interface WrittenPayload {
  bytes: number;
  sha256: string;
}

export interface BackgroundWriter {
  /** Writes `bytes` (a view of shared memory) to the new file `path`, durably, and hashes them. */
  write(path: string, bytes: Uint8Array): Promise<WrittenPayload>;
  /** Waits for every write given so far to settle, then stops the worker. */
  close(): Promise<void>;
}

interface ErrorReply {
  message: string;
  code?: string;
  errno?: number;
  syscall?: string;
  path?: string;
}

/**
 * A background writer, or null where no thread is wanted (write on the calling thread then).
 * [R] The worker starts with the first write, not here: a run that writes only its final map at the end (`--stages
 *     final`) then starts the thread while it encodes that map's PNG, when the other core is free, instead of while
 *     it loads, plans and pages its buffers in on both. A worker that cannot start then writes on the calling thread
 *     (the same file, count and digest).
 */
export function startBackgroundWriter(): BackgroundWriter | null {
  if (!threadsWanted()) return null;
  let worker: Worker | null = null;
  let noWorker = false;
  const pending = new Map<number, { resolve: (w: WrittenPayload) => void; reject: (e: unknown) => void }>();
  const settled: Promise<unknown>[] = [];
  let next = 0;
  let failure: unknown = null;
  const failAll = (e: unknown): void => {
    failure = e;
    for (const p of pending.values()) p.reject(e);
    pending.clear();
  };
  const started = (): Worker | null => {
    if (worker || noWorker) return worker;
    try {
      worker = new Worker(SOURCE, { eval: true });
    } catch {
      noWorker = true;
      return null;
    }
    worker.on('message', (m: { id: number; bytes?: number; sha256?: string; error?: ErrorReply }) => {
      const p = pending.get(m.id);
      pending.delete(m.id);
      if (!p) return;
      if (m.error) p.reject(Object.assign(new Error(m.error.message), m.error));
      else p.resolve({ bytes: m.bytes!, sha256: m.sha256! });
    });
    worker.on('error', failAll);
    worker.on('exit', () => failAll(failure ?? new Error('background writer stopped')));
    return worker;
  };
  return {
    write(path, bytes) {
      if (!(bytes.buffer instanceof SharedArrayBuffer)) throw new TypeError(`background write of ${path}: the bytes must be in shared memory`);
      if (failure !== null) return Promise.reject(failure);
      const w = started();
      if (!w) {
        // No thread after all: the calling thread's write (writeNewFileDurable), settled as the worker's would be.
        const done = (async (): Promise<WrittenPayload> => {
          writeNewFileDurable(path, bytes);
          return { bytes: bytes.length, sha256: sha256Hex(bytes) };
        })();
        settled.push(done.catch(() => undefined));
        return done;
      }
      const id = next++;
      const done = new Promise<WrittenPayload>((resolve, reject) => {
        pending.set(id, { resolve, reject });
        w.postMessage({ id, path, buffer: bytes.buffer, offset: bytes.byteOffset, length: bytes.length });
      });
      settled.push(done.catch(() => undefined));
      return done;
    },
    async close() {
      await Promise.all(settled);
      await worker?.terminate();
    },
  };
}
