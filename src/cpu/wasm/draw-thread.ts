/**
 * One helper thread for the executor's kernels: it shares the arena's memory (arena.ts) and runs a kernel over some
 * row bands of a field while the calling thread runs it over the others; the call returns when every band is done.
 * Every row is written by exactly one thread with the kernel's own steps, in the order a single thread would take,
 * so the field is bit-identical to a single-threaded run whatever the split (tested): the draws (draw-kernel.ts:
 * pixels are independent within a draw), a stage's draw queue (draw-queue.ts: whole draws, each after the earlier
 * ones it overlaps), every step of the smoothing chain (kernels.ts: rows another band
 * overwrites in place are copied first), the outer blend (outer-kernel.ts), the encode (encode-kernel.ts) and the
 * raster (raster-kernel.ts: whole bands of rows, each band's triangles in draw order).
 * [R] The bands are claimed one at a time by whichever thread is free (an atomic claim word), the helper from the
 *     first band on and this thread from the last one back: on a machine whose other core is busy the helper wakes
 *     late, and this thread then runs the bands itself instead of waiting. Run alone, this thread writes each band
 *     before the one above it reads its neighbours, so rows a band must copy first are exercised on any machine.
 * [R] The helper is started when an arena large enough to profit is made and serves once it is ready (no call waits
 *     for its start); it is unref'd, so it never keeps a process alive. HEIGHTBENCH_NO_THREADS=1, or a single CPU,
 *     keeps every band on the calling thread.
 * [R] The two threads meet through Atomics on a small shared control block rather than messages: a draw takes a
 *     fraction of a millisecond, about what a message's round trip costs.
 */
import { MessageChannel, Worker, type MessagePort } from 'node:worker_threads';
import { threadsWanted } from '../../core/threads.js';
import { compiledWasm, type WasmMemory } from '../../core/wasm.js';
import { DRAW_WASM_BASE64 } from './draw-wasm.js';
import { SMOOTHING_WASM_BASE64 } from './smoothing-wasm.js';
import { ENCODE_SHARED_WASM_BASE64 } from '../../core/wasm/encode-shared-wasm.js';
import { OUTER_WASM_BASE64 } from './outer-wasm.js';
import { RASTER_WASM_BASE64 } from './raster-wasm.js';
import { runDrawQueue } from './draw-queue-run.js';
import { SUPPORT_WASM_BASE64 } from './support-wasm.js';

/**
 * Control block (Int32): ready, request count, the claim word (request generation << 16 | bands claimed from the
 * end << 8 | bands claimed from the start), bands finished, failed flag, kernel, argument count, band count, sum of
 * the kernels' results, bands the helper ran; from byte ARGS_AT each band's arguments for this thread and for the
 * helper, as float64 (exact for i32 and f32 parameters).
 */
const READY = 0;
const ASKED = 1;
const CLAIM = 2;
const FINISHED = 3;
const FAILED = 4;
const KERNEL = 5;
const NARGS = 6;
const NBANDS = 7;
const SUM = 8;
const HELPER_BANDS = 9;
/** Set by the calling thread when the pages the helper was asked to page in will not be used (stopPagingIn). */
const PAGE_IN_STOP = 10;
/** Pages the helper has paged in so far (tests count them). */
const PAGED_IN = 11;
const ARGS_AT = 64;
const MAX_ARGS = 16;
/** Most bands one call hands out (the claim word counts the bands claimed in 8 bits each way). */
export const MAX_BANDS = 8;

/**
 * The kernels the helper runs, by id: draw.wat's draw, smoothing.wat's exports, encode.wat's encode, outer.wat's
 * blendRows, its share of a draw queue (draw-queue-run.ts), raster.wat's bands, and support.wat's rows.
 */
export const KERNEL_ID = {
  draw: 0,
  downsample: 1,
  filterX: 2,
  filterY: 3,
  lerpLevelRows: 4,
  composeRows: 5,
  encode: 6,
  outer: 7,
  drawQueue: 8,
  raster: 9,
  support: 10,
  pngUp: 11,
} as const;
export type KernelName = keyof typeof KERNEL_ID;

/**
 * [R] Loads of the control word before either thread sleeps. Short: the caller never waits for a sleeping helper to
 *     start (it runs the unclaimed bands itself), and on a busy machine a longer spin only burns CPU.
 */
const SPIN = 100;
/** Int32 words per 4 KiB page. */
const PAGE_WORDS = 1024;

const SOURCE = `
const { workerData, receiveMessageOnPort } = require('node:worker_threads');
const c = new Int32Array(workerData.ctrl);
const table = new Float64Array(workerData.ctrl, ${ARGS_AT});
const port = workerData.port;
let fns = [];
const runDrawQueue = ${runDrawQueue.toString()};
const use = (memory) => {
  const env = { env: { memory } };
  const d = new WebAssembly.Instance(workerData.draw, env).exports;
  const s = new WebAssembly.Instance(workerData.smoothing, env).exports;
  const e = new WebAssembly.Instance(workerData.encode, env).exports;
  const o = new WebAssembly.Instance(workerData.outer, env).exports;
  const r = new WebAssembly.Instance(workerData.raster, env).exports;
  const buffer = memory.buffer;
  const queue = (...a) => runDrawQueue(buffer, d.draw, d.envelope, ...a);
  const sp = new WebAssembly.Instance(workerData.support, env).exports;
  fns = [d.draw, s.downsample, s.filterX, s.filterY, s.lerpLevelRows, s.composeRows, e.encode, o.blendRows, queue, r.bands, sp.rows, e.up];
};
// Page-in: one word per page of the given ranges (i32 indices, start and end in pairs), by a compare-exchange of 0
// with 0 — a write to the hardware, so the page is mapped, and no change to a word the other thread already wrote.
// Once done or stopped, nothing here references the memory (a stopped arena's pages can be freed).
let pageIn = workerData.pageIn;
workerData.pageIn = null;
let words = pageIn ? new Int32Array(pageIn.memory.buffer) : null;
let range = 0;
let word = pageIn ? pageIn.ranges[0] : 0;
const pageInSome = () => {
  while (words) {
    if (range >= pageIn.ranges.length || Atomics.load(c, ${PAGE_IN_STOP}) !== 0) {
      words = null;
      pageIn = null;
      return;
    }
    const end = pageIn.ranges[range + 1];
    let k = 0;
    for (; word < end && k < 64; word += ${PAGE_WORDS}, k++) Atomics.compareExchange(words, word, 0, 0);
    Atomics.add(c, ${PAGED_IN}, k);
    if (word >= end) {
      // The last page too when the range does not start on a page boundary.
      Atomics.compareExchange(words, end - 1, 0, 0);
      range += 2;
      word = pageIn.ranges[range] ?? 0;
    }
    if (Atomics.load(c, ${ASKED}) !== seen) return;
  }
};
if (pageIn) use(pageIn.memory);
Atomics.store(c, ${READY}, 1);
let seen = 0;
for (;;) {
  pageInSome();
  for (let k = 0; k < ${SPIN} && Atomics.load(c, ${ASKED}) === seen; k++);
  Atomics.wait(c, ${ASKED}, seen);
  seen = Atomics.load(c, ${ASKED});
  for (let m = receiveMessageOnPort(port); m; m = receiveMessageOnPort(port)) use(m.message);
  const gen = seen & 0xffff;
  for (;;) {
    const w = Atomics.load(c, ${CLAIM});
    const band = w & 255;
    // A request already finished, or a newer one (picked up on the next turn of the outer loop): nothing to claim.
    if (w >>> 16 !== gen || band + ((w >>> 8) & 255) >= Atomics.load(c, ${NBANDS})) break;
    if (Atomics.compareExchange(c, ${CLAIM}, w, w + 1) !== w) continue;
    try {
      const at = (band * 2 + 1) * ${MAX_ARGS};
      const r = fns[Atomics.load(c, ${KERNEL})](...table.subarray(at, at + Atomics.load(c, ${NARGS})));
      if (r) Atomics.add(c, ${SUM}, r);
      Atomics.add(c, ${HELPER_BANDS}, 1);
    } catch {
      Atomics.store(c, ${FAILED}, 1);
    }
    Atomics.add(c, ${FINISHED}, 1);
    Atomics.notify(c, ${FINISHED});
  }
}
`;

interface Helper {
  worker: Worker;
  ctrl: Int32Array;
  port: MessagePort;
  /** The memory the helper's draw instance runs on. */
  memory: WasmMemory | null;
}

let helper: Helper | null | undefined;
let calls = 0;

/** [R] Arenas smaller than this never start the helper: their draws are too small to be worth a thread. */
export const HELPER_MIN_SIDE = 256;
/**
 * [R] Draws over fewer pixels (box) than this, or fewer rows than 2 × HELPER_MIN_ROWS, stay on the calling thread;
 *     larger ones get a band per HELPER_MIN_PIXELS pixels and HELPER_MIN_ROWS rows, up to MAX_BANDS.
 */
export const HELPER_MIN_PIXELS = 16_384;
export const HELPER_MIN_ROWS = 8;

const callsBy = new Map<KernelName, number>();

/**
 * How many kernel calls this process shared with the helper, all or of one kernel (diagnostics and tests); how many
 * of their bands the helper ran depends on when it woke (helperBands).
 */
export function helperCalls(kernel?: KernelName): number {
  return kernel === undefined ? calls : (callsBy.get(kernel) ?? 0);
}

/** How many bands the helper has run in this process. */
export function helperBands(): number {
  return helper ? Atomics.load(helper.ctrl, HELPER_BANDS) : 0;
}

/** Starts the helper when threads are wanted and it has not been started (nothing waits for it). */
export function startHelper(pageIn?: PageIn): void {
  if (helper !== undefined || !threadsWanted()) return;
  try {
    const draw = compiledWasm(DRAW_WASM_BASE64);
    const smoothing = compiledWasm(SMOOTHING_WASM_BASE64);
    const encode = compiledWasm(ENCODE_SHARED_WASM_BASE64);
    const outer = compiledWasm(OUTER_WASM_BASE64);
    const raster = compiledWasm(RASTER_WASM_BASE64);
    const support = compiledWasm(SUPPORT_WASM_BASE64);
    if (!draw || !smoothing || !encode || !outer || !raster || !support) {
      helper = null;
      return;
    }
    const ctrl = new Int32Array(new SharedArrayBuffer(ARGS_AT + 8 * MAX_ARGS * 2 * MAX_BANDS));
    const { port1, port2 } = new MessageChannel();
    const workerData = { draw, smoothing, encode, outer, raster, support, ctrl: ctrl.buffer, port: port2, pageIn };
    const worker = new Worker(SOURCE, { eval: true, workerData, transferList: [port2] });
    worker.unref();
    port1.unref();
    worker.on('error', () => (helper = null));
    helper = { worker, ctrl, port: port1, memory: pageIn?.memory ?? null };
  } catch {
    helper = null;
  }
}

/**
 * A memory whose pages a new helper maps while this thread loads and plans: `ranges` are Int32 word indices, start and
 * end in pairs, in the order the run will write them.
 */
export interface PageIn {
  memory: WasmMemory;
  ranges: readonly number[];
}

/**
 * Starts the helper with `pageIn` when it has not been started: true when it will page those ranges in (between and
 * before kernel calls, never delaying one by more than 64 pages), false when it cannot (no thread, or a helper
 * already running on another memory) and the caller maps them itself.
 */
export function startHelperPagingIn(pageIn: PageIn): boolean {
  if (helper !== undefined || !threadsWanted()) return false;
  startHelper(pageIn);
  return helper !== null && helper !== undefined;
}

/** Tells the helper to stop paging in (its memory will not be used); the pages already mapped stay. */
export function stopPagingIn(): void {
  if (helper) Atomics.store(helper.ctrl, PAGE_IN_STOP, 1);
}

/** How many pages the helper has paged in (tests). */
export function pagedInPages(): number {
  return helper ? Atomics.load(helper.ctrl, PAGED_IN) : 0;
}

/** Whether the helper has started and can take rows now (tests wait for it). */
export function helperReady(): boolean {
  return readyHelper() !== null;
}

/** The helper when it is ready (and threads are still wanted), otherwise null. */
function readyHelper(): Helper | null {
  if (!helper || !threadsWanted() || Atomics.load(helper.ctrl, READY) !== 1) return null;
  return helper;
}

type Band = { mine: readonly number[]; helper: readonly number[] };

/** A request handed to the helper and not yet joined (at most one at a time: the control block holds one). */
let pending: { bands: readonly Band[]; mine: (args: readonly number[]) => number | void } | null = null;

/** Hands `bands` of `kernel` to the helper (nothing runs on this thread yet); false when the helper is not ready. */
function request(memory: WasmMemory, kernel: KernelName, bands: readonly Band[], mine: (args: readonly number[]) => number | void): boolean {
  if (pending) join();
  const h = readyHelper();
  if (!h) return false;
  if (bands.length > MAX_BANDS) throw new RangeError(`executor: ${bands.length} bands, the helper takes at most ${MAX_BANDS}`);
  const c = h.ctrl;
  const table = new Float64Array(c.buffer, ARGS_AT);
  let nargs = 0;
  bands.forEach((b, k) => {
    if (b.mine.length > MAX_ARGS || b.helper.length !== b.mine.length)
      throw new RangeError(`executor: ${kernel} takes ${b.mine.length} arguments, the helper passes at most ${MAX_ARGS}, the same on both threads`);
    table.set(b.mine, 2 * k * MAX_ARGS);
    table.set(b.helper, (2 * k + 1) * MAX_ARGS);
    nargs = b.mine.length;
  });
  if (h.memory !== memory) {
    h.port.postMessage(memory);
    h.memory = memory;
  }
  calls++;
  callsBy.set(kernel, (callsBy.get(kernel) ?? 0) + 1);
  Atomics.store(c, KERNEL, KERNEL_ID[kernel]);
  Atomics.store(c, NARGS, nargs);
  Atomics.store(c, NBANDS, bands.length);
  Atomics.store(c, FINISHED, 0);
  Atomics.store(c, FAILED, 0);
  Atomics.store(c, SUM, 0);
  const gen = (Atomics.load(c, ASKED) + 1) & 0xffff;
  Atomics.store(c, CLAIM, gen << 16);
  Atomics.store(c, ASKED, gen);
  Atomics.notify(c, ASKED);
  pending = { bands, mine };
  return true;
}

/**
 * Completes the pending request: runs on this thread every band the helper has not claimed (from the last one back),
 * waits for the helper's, and returns the sum of the kernels' results.
 */
function join(): number {
  const p = pending;
  if (!p || !helper) return 0;
  pending = null;
  const { bands, mine } = p;
  const c = helper.ctrl;
  let sum = 0;
  let err: unknown = null;
  for (;;) {
    const w = Atomics.load(c, CLAIM);
    const back = (w >>> 8) & 255;
    if ((w & 255) + back >= bands.length) break;
    if (Atomics.compareExchange(c, CLAIM, w, w + 256) !== w) continue;
    const band = bands.length - 1 - back;
    try {
      if (err === null) sum += mine(bands[band].mine) ?? 0;
    } catch (e) {
      err = e;
    }
    Atomics.add(c, FINISHED, 1);
  }
  // The helper's bands must be done before anything reads them or reuses its buffers, even when this thread failed.
  for (let k = 0; k < SPIN && Atomics.load(c, FINISHED) !== bands.length; k++);
  const deadline = Date.now() + 60_000;
  for (let f = Atomics.load(c, FINISHED); f !== bands.length; f = Atomics.load(c, FINISHED)) {
    if (Date.now() > deadline) throw new Error('executor: the helper thread did not finish its rows within 60 s');
    Atomics.wait(c, FINISHED, f, 1000);
  }
  if (err !== null) throw err;
  if (Atomics.load(c, FAILED) !== 0) throw new Error('executor: the helper thread failed while running a kernel on its rows');
  return sum + Atomics.load(c, SUM);
}

/**
 * Runs `kernel` over `bands` (each band's arguments for this thread and for the helper), each band once, on whichever
 * thread claims it first; `mine` runs a band's arguments on this thread. Returns the sum of the kernels' results (a
 * kernel without a result counts 0), or null when the helper is not ready (nothing ran: the caller does all rows).
 */
export function onBands(memory: WasmMemory, kernel: KernelName, bands: readonly Band[], mine: (args: readonly number[]) => number | void): number | null {
  return request(memory, kernel, bands, mine) ? join() : null;
}

/**
 * Hands one call of `kernel` to the helper and returns at once; the returned join runs it on this thread if the helper
 * has not started it, waits for it, and returns its result. Null when the helper is not ready (the caller runs it).
 * Until it is joined, the call's memory belongs to it; the next request joins it first.
 */
export function postToHelper(
  memory: WasmMemory,
  kernel: KernelName,
  args: readonly number[],
  mine: (args: readonly number[]) => number | void,
): (() => number) | null {
  if (!request(memory, kernel, [{ mine: args, helper: args }], mine)) return null;
  const mineP = pending;
  // Joined already when a later request came first (its result then counted there).
  return () => (pending === mineP ? join() : 0);
}

/**
 * Runs draw.wat's `draw` for each block at `ats` (one band of a draw's rows each), each on whichever thread claims it,
 * in `memory`, and returns the pixels drawn by all; null when the helper is not ready (the caller draws all rows).
 */
export function drawBands(memory: WasmMemory, draw: (params: number) => number, ats: readonly number[]): number | null {
  return onBands(
    memory,
    'draw',
    ats.map((at) => ({ mine: [at], helper: [at] })),
    (a) => draw(a[0]),
  );
}
