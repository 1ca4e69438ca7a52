/**
 * A helper thread for the OpenEXR decoder's zlib blocks (ZIP, ZIPS): it reads blocks of the file ahead of the decoding
 * thread, inflates them and undoes the predictor on its own instance of the block kernel (wasm/exr-predictor.wat), and
 * leaves each decoded block in a ring of shared slots; the decoding thread copies a finished block out and places it,
 * and decodes every other block itself, in placement order as before.
 *
 * Each block has a state word moved with Atomics — 0 free, 1 taken by the helper, 2 decoded by the helper (in slot
 * p mod slots), 3 given back (the helper read or inflated it short: the decoding thread decodes it and makes any
 * refusal), 4 the decoding thread's, 5 taken back from the helper — and ctrl[0] is the first block the decoding
 * thread has not finished, ctrl[1] a stop request, ctrl[2] the ctrl[0] at which a waiting helper wants waking. The helper takes free blocks `ahead` or more past ctrl[0], so the
 * decoding thread rarely finds a block still in the helper's hands, and fewer than `slots` past it, so a slot is
 * reused only once its block is done (a block taken back leaves its slot unread).
 * [R] A decoding thread that finds its next block still in the helper's hands first does other work (the caller's
 *     `busy`: the block after it), then waits as long as inflating the block takes at a fraction of the helper's speed
 *     (WAIT_BYTES_PER_MS), then takes it back and decodes it itself: on a machine whose cores are busy the helper may
 *     not run for a while, and the decode must not wait on it.
 * [R] The same kernel code decodes a block on either thread, so the bytes are those of a one-thread decode; a block
 *     the helper cannot finish is decoded on the calling thread by the reference path, whose checks and messages are
 *     the only ones made. HEIGHTBENCH_NO_THREADS=1 or a single CPU (src/core/threads.ts) starts no helper; the thread
 *     is unref'd and stopped when the decode ends, however it ends.
 */
import { closeSync, constants, fstatSync, openSync, readSync } from 'node:fs';
import { availableParallelism, loadavg } from 'node:os';
import { Worker } from 'node:worker_threads';
import { prestartWorker, threadsWanted } from '../../core/threads.js';

const SOURCE = `
const { parentPort } = require('node:worker_threads');
const { readSync } = require('node:fs');
parentPort.once('message', (m) => {
  const ctrl = new Int32Array(m.ctrl);
  const state = new Int32Array(m.state);
  const ring = new Uint8Array(m.ring);
  const starts = new Float64Array(m.starts);
  const sizes = new Int32Array(m.sizes);
  const expected = new Int32Array(m.expected);
  const k = new WebAssembly.Instance(m.module).exports;
  const a = m.blockBytes;
  const tabs = 3 * a + 32;
  const need = tabs + 16384 - k.memory.buffer.byteLength;
  if (need > 0) k.memory.grow(Math.ceil(need / 65536));
  const mem = new Uint8Array(k.memory.buffer);
  const n = state.length;
  let q = 0;
  for (;;) {
    if (Atomics.load(ctrl, 1) !== 0) return;
    const done = Atomics.load(ctrl, 0);
    if (q < done + m.ahead) q = done + m.ahead;
    if (q >= n) return;
    if (q >= done + m.slots) {
      // Woken once a quarter of the slots are free, not at every block.
      Atomics.store(ctrl, 2, q - m.slots + Math.max(1, m.slots >> 2));
      if (Atomics.load(ctrl, 0) === done) Atomics.wait(ctrl, 0, done, 50);
      continue;
    }
    if (Atomics.compareExchange(state, q, 0, 1) !== 0) {
      q++;
      continue;
    }
    let ok = false;
    try {
      const size = sizes[q];
      const exp = expected[q];
      const src = 2 * a;
      let got = 0;
      while (got < size) {
        const r = readSync(m.fd, mem, src + got, size - got, starts[q] + got);
        if (r === 0) break;
        got += r;
      }
      if (got === size) {
        mem.fill(0, src + size, src + size + 16);
        if (k.inflate(src, size, 0, exp, tabs) === exp) {
          k.unpredict(exp, a);
          ring.set(mem.subarray(a, a + exp), (q % m.slots) * m.slotBytes);
          ok = true;
        }
      }
    } catch {
      ok = false;
    }
    // A block the decoding thread stopped waiting for (state 5) is its own by now.
    if (Atomics.compareExchange(state, q, 1, ok ? 2 : 3) === 1) Atomics.notify(state, q);
    q++;
  }
});
`;

/** [R] About 4 MiB of slots, at least 4; the helper keeps half of them between itself and the decoding thread. */
const RING_BYTES = 4 << 20;
/** [R] Blocks larger than this are decoded on the calling thread alone (the ring would grow past its few MiB). */
export const HELPER_MAX_BLOCK = 1 << 20;
/**
 * [R] Decoded bytes per ms at which a wait for the helper's block gives up: a few times slower than the helper inflates
 * (250–400 MB/s), so a helper still holding the block by then is not running, and decoding it again costs less.
 */
const WAIT_BYTES_PER_MS = 100_000;

let taken = 0;

/** How many blocks helpers have handed over in this process (diagnostics and tests). */
export function helperBlocks(): number {
  return taken;
}

/** The zlib blocks a helper may take, by placement index: where each one's stored bytes lie and its decoded size. */
export interface HelperBlocks {
  readonly starts: Float64Array;
  readonly sizes: Int32Array;
  readonly expected: Int32Array;
  /** False for the blocks the decoding thread keeps (stored raw, or not zlib). */
  readonly eligible: Uint8Array;
}

export interface InflateHelper {
  /**
   * Block p decoded by the helper (a view of its slot, valid until the next call), or null: the caller decodes it.
   * `busy` runs first where the helper is still decoding it.
   */
  take(p: number, busy?: () => void): Uint8Array | null;
  /** Claims block p for the caller; false when the helper has it. */
  claim(p: number): boolean;
  /** The caller is done with every block before p. */
  release(p: number): void;
  stop(): void;
}

let prestarted: Worker | null = null;

/**
 * Whether a helper would likely run beside the decoding thread. [R] On a machine whose cores are all busy (the
 * 1-minute load average within half a process of the CPU count) the helper does not run in parallel and only adds its
 * start and its share of the work's overhead (measured: about +0.1 s of CPU for a 4096² FLOAT ZIP file, the same
 * wall time or worse), so none is started there. The results are the same either way.
 */
export function helperWanted(): boolean {
  return threadsWanted() && loadavg()[0] < availableParallelism() - 0.5;
}

/**
 * [R] Stored bytes of zlib blocks from which a file's blocks are shared with a helper thread: below it the thread's
 * start (tens of ms) would cost about what it saves (inflating takes time by the bytes and symbols stored; long
 * matches, as in well-compressed HALF samples, are cheap).
 */
export const HELPER_FROM = 16 << 20;
/** The header bytes that state ZIPS (2) or ZIP (3) compression, but for the code. */
const COMPRESSION_ATTRIBUTE = Buffer.from('compression\0compression\0\x01\0\0\0', 'latin1');

/**
 * For a command about to read `path`: starts a helper thread now when the file looks like a large ZIP or ZIPS
 * OpenEXR file (its first 64 KiB state the compression), so the thread's start-up overlaps the loading of the
 * command's modules. A guess only: the decoder checks the file and starts or skips the helper as before.
 */
export function prestartInflateHelperFor(path: string): void {
  if (!path.toLowerCase().endsWith('.exr') || !helperWanted()) return;
  let fd: number | null = null;
  try {
    // As the reader opens it (src/io/read-input.ts openRegular): a FIFO or device is neither waited on nor read.
    fd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK);
    const st = fstatSync(fd);
    if (!st.isFile() || st.size < HELPER_FROM) return;
    const head = Buffer.alloc(1 << 16);
    const n = readSync(fd, head, 0, head.length, 0);
    const at = head.subarray(0, n).indexOf(COMPRESSION_ATTRIBUTE);
    const code = at >= 0 && at + COMPRESSION_ATTRIBUTE.length < n ? head[at + COMPRESSION_ATTRIBUTE.length] : -1;
    if (code === 2 || code === 3) prestartInflateHelper();
  } catch {
    // Not readable now: the command reports it.
  } finally {
    if (fd !== null) closeSync(fd);
  }
}

/**
 * Starts a helper thread now, for a decode that will likely use one (a large zlib file whose chunk headers are still
 * to be read): its start-up then overlaps that work. Unused, it waits, unref'd, for the next decode. `anyLoad`: even
 * where helperWanted says the cores are busy (a decode told to use a helper).
 */
export function prestartInflateHelper(anyLoad = false): void {
  if (prestarted || !(anyLoad ? threadsWanted() : helperWanted())) return;
  prestarted = prestartWorker(SOURCE, (w) => {
    if (prestarted === w) prestarted = null;
  });
}

/**
 * A helper decoding the zlib blocks of the file open as `fd` with the compiled block kernel `module`, blocks of at most
 * `blockBytes` bytes; null where threads are not wanted or none starts (the caller decodes every block).
 */
export function startInflateHelper(module: object, fd: number, blocks: HelperBlocks, blockBytes: number): InflateHelper | null {
  if (!threadsWanted() || blockBytes > HELPER_MAX_BLOCK) return null;
  const n = blocks.eligible.length;
  const slotBytes = (blockBytes + 15) & ~15;
  const slots = Math.max(4, Math.min(256, Math.floor(RING_BYTES / slotBytes)));
  const ctrl = new Int32Array(new SharedArrayBuffer(12));
  const state = new Int32Array(new SharedArrayBuffer(4 * n));
  for (let p = 0; p < n; p++) if (blocks.eligible[p] === 0) state[p] = 4;
  const ring = new Uint8Array(new SharedArrayBuffer(slots * slotBytes));
  let worker: Worker;
  if (prestarted) {
    worker = prestarted;
    prestarted = null;
  } else {
    try {
      worker = new Worker(SOURCE, { eval: true });
    } catch {
      return null;
    }
    worker.unref();
  }
  let stopped = false;
  // A helper that fails takes no more blocks; the one it held is taken back after a short wait.
  worker.on('error', () => undefined);
  worker.postMessage({
    module,
    fd,
    ctrl: ctrl.buffer,
    state: state.buffer,
    ring: ring.buffer,
    starts: blocks.starts.slice().buffer,
    sizes: blocks.sizes.slice().buffer,
    expected: blocks.expected.slice().buffer,
    blockBytes: slotBytes,
    slots,
    slotBytes,
    ahead: slots >> 1,
  });
  const stop = (): void => {
    if (stopped) return;
    stopped = true;
    Atomics.store(ctrl, 1, 1);
    Atomics.notify(ctrl, 0);
    void worker.terminate();
  };
  return {
    take(p, busy) {
      let s = Atomics.compareExchange(state, p, 0, 4);
      if (s === 1) {
        busy?.();
        const wait = 0.1 + blocks.expected[p] / WAIT_BYTES_PER_MS;
        const deadline = performance.now() + wait;
        for (let left = wait; (s = Atomics.load(state, p)) === 1 && left > 0; left = deadline - performance.now()) {
          Atomics.wait(state, p, 1, left);
        }
        if (s === 1) s = Atomics.compareExchange(state, p, 1, 5);
      }
      if (s !== 2) return null;
      taken++;
      const at = (p % slots) * slotBytes;
      return ring.subarray(at, at + blocks.expected[p]);
    },
    claim(p) {
      const s = Atomics.compareExchange(state, p, 0, 4);
      return s === 0 || s === 3 || s === 4 || s === 5;
    },
    release(p) {
      Atomics.store(ctrl, 0, p);
      if (p >= Atomics.load(ctrl, 2)) Atomics.notify(ctrl, 0);
    },
    stop,
  };
}
