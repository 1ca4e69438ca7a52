/**
 * A worker thread that reads a payload a chunk at a time into a ring of shared slots and hashes each chunk as it
 * reads it, ahead of the thread that consumes the chunks (r16-stream.ts): the reading and SHA-256 of one file of a
 * comparison move off the comparing thread, and the consumer only copies each ready slot out.
 *
 * The ring's counters are Int32 words moved with Atomics — ctrl[0] chunks produced, ctrl[1] chunks consumed,
 * ctrl[2] a stop request, ctrl[3] the worker failed — so there is no message per chunk; the worker waits only when every slot is unconsumed, the
 * consumer only when the next chunk is not read yet. At the end the worker posts whether it read exactly the
 * payload's bytes (no fewer, none after them) and the digest of what it read: the bytes the consumer copied out.
 * [R] `prestartStreamWorker` starts the thread before the CLI loads its command modules, so its start-up overlaps the
 *     loading rather than the comparison. The thread is unref'd until used and never keeps the process alive.
 *     HEIGHTBENCH_NO_THREADS=1 (src/core/threads.ts) starts none.
 */
import { Worker } from 'node:worker_threads';
import { prestartWorker, threadsWanted } from '../core/threads.js';

/** The worker's whole program. */
const SOURCE = `
const { parentPort } = require('node:worker_threads');
const { readSync } = require('node:fs');
const { createHash } = require('node:crypto');
parentPort.once('message', (m) => {
  const ctrl = new Int32Array(m.ctrl);
  try {
    run(m, ctrl);
  } catch (e) {
    // The consumer cannot hear an error event while it waits: a flag in the ring's words tells it at once.
    Atomics.store(ctrl, 3, 1);
    Atomics.notify(ctrl, 0);
    throw e;
  }
});
function run(m, ctrl) {
  const ring = new Uint8Array(m.ring);
  const h = createHash('sha256');
  let whole = true;
  const chunks = Math.ceil(m.bytes / m.slotBytes);
  for (let c = 0; c < chunks; c++) {
    for (;;) {
      if (Atomics.load(ctrl, 2) !== 0) return;
      const used = Atomics.load(ctrl, 1);
      if (c - used < m.slots) break;
      Atomics.wait(ctrl, 1, used, 50);
    }
    const off = c * m.slotBytes;
    const len = Math.min(m.slotBytes, m.bytes - off);
    const view = ring.subarray((c % m.slots) * m.slotBytes, (c % m.slots) * m.slotBytes + len);
    let got = 0;
    while (got < len) {
      const r = readSync(m.fd, view, got, len - got, off + got);
      if (r === 0) break;
      got += r;
    }
    if (got !== len) {
      whole = false; // the file shrank while it was read
      view.fill(0, got);
    }
    h.update(view);
    Atomics.store(ctrl, 0, c + 1);
    Atomics.notify(ctrl, 0);
  }
  const grew = readSync(m.fd, new Uint8Array(1), 0, 1, m.bytes) !== 0;
  parentPort.postMessage({ whole: whole && !grew, hex: h.digest('hex') });
}
`;

let prestarted: Worker | null = null;

/** Starts a stream worker now, for a command that will stream a file (see the header). */
export function prestartStreamWorker(): void {
  if (prestarted || !threadsWanted()) return;
  // A thread that fails to start is simply not used (the reading stays on the caller's thread).
  prestarted = prestartWorker(SOURCE, (w) => {
    if (prestarted === w) prestarted = null;
  });
}

/** [R] Ring of 16 slots of 128 KiB (one comparison chunk each): 2 MiB of shared memory. */
export const STREAM_SLOTS = 16;
export const STREAM_SLOT_BYTES = 128 * 1024;
/** [R] A consumer that waited this long for the next chunk without the worker producing one gives up (worker stuck). */
const STALL_MS = 10_000;

/** The consumer's side of a worker reading `bytes` bytes of descriptor `fd`. */
export interface StreamReader {
  /** Copies the next `out.length` bytes of the payload into `out`; false when the worker stopped or stalled. */
  read(out: Uint8Array): boolean;
  /** After the last byte: whether exactly the payload was read, and the SHA-256 of what was read. Rejects on failure. */
  result(): Promise<{ whole: boolean; hex: string }>;
  /** Stops the worker (idempotent). The descriptor stays the caller's. */
  stop(): void;
  /**
   * A `whole` reader's payload once the worker has read every chunk (after result()): a view of the ring, no copy;
   * null for a ring reader or before the last chunk.
   */
  payload(): Uint8Array | null;
}

/**
 * A worker reading `bytes` bytes of `fd` (the prestarted one if any); null where no thread can be started or threads
 * are not wanted (threadsWanted): the caller then reads on its own thread. [R] With `whole`, the ring has a slot for
 * every chunk: the worker reads and hashes the whole payload without waiting for a consumer, and it stays in shared
 * memory (`payload`) — a file the caller needs whole, read on another core while the caller reads something else.
 */
export function startStreamReader(fd: number, bytes: number, opts: { whole?: boolean } = {}): StreamReader | null {
  if (!threadsWanted()) return null;
  let worker = prestarted;
  prestarted = null;
  if (!worker) {
    try {
      worker = new Worker(SOURCE, { eval: true });
    } catch {
      return null;
    }
  }
  const w = worker;
  w.ref();
  const ctrl = new Int32Array(new SharedArrayBuffer(16));
  const chunks = Math.ceil(bytes / STREAM_SLOT_BYTES);
  const slots = opts.whole ? Math.max(1, chunks) : STREAM_SLOTS;
  const ringBuffer = new SharedArrayBuffer(slots * STREAM_SLOT_BYTES);
  const ring = new Uint8Array(ringBuffer);
  let failure: unknown = null;
  let stopped = false;
  const done = new Promise<{ whole: boolean; hex: string }>((resolve, reject) => {
    w.once('message', resolve);
    w.once('error', (e) => {
      failure = e;
      reject(e);
    });
    w.once('exit', () => reject(failure ?? new Error('stream worker stopped')));
  });
  done.catch(() => undefined); // observed by result(); a stopped reader's rejection is expected
  w.postMessage({ ctrl: ctrl.buffer, ring: ringBuffer, fd, bytes, slots, slotBytes: STREAM_SLOT_BYTES });
  let pos = 0; // bytes consumed
  const stop = (): void => {
    if (stopped) return;
    stopped = true;
    Atomics.store(ctrl, 2, 1);
    Atomics.notify(ctrl, 1);
    void w.terminate();
  };
  return {
    read(out) {
      if (stopped || pos + out.length > bytes) return false;
      let o = 0;
      while (o < out.length) {
        const c = Math.floor(pos / STREAM_SLOT_BYTES);
        let waited = 0;
        for (;;) {
          const produced = Atomics.load(ctrl, 0);
          if (produced > c) break;
          if (failure !== null || Atomics.load(ctrl, 3) !== 0 || waited >= STALL_MS) {
            stop();
            return false;
          }
          if (Atomics.wait(ctrl, 0, produced, 50) === 'timed-out') waited += 50;
        }
        const inSlot = pos % STREAM_SLOT_BYTES;
        const len = Math.min(out.length - o, STREAM_SLOT_BYTES - inSlot, bytes - pos);
        const from = (c % slots) * STREAM_SLOT_BYTES + inSlot;
        out.set(ring.subarray(from, from + len), o);
        o += len;
        pos += len;
        if (pos % STREAM_SLOT_BYTES === 0 || pos === bytes) {
          Atomics.store(ctrl, 1, c + 1);
          Atomics.notify(ctrl, 1);
        }
      }
      return true;
    },
    async result() {
      try {
        return await done;
      } finally {
        stop();
      }
    },
    stop,
    payload() {
      return opts.whole && Atomics.load(ctrl, 0) === chunks && Atomics.load(ctrl, 3) === 0 ? new Uint8Array(ringBuffer, 0, bytes) : null;
    },
  };
}
