/**
 * One helper thread for the executor's kernels: it shares the arena's memory (arena.ts) and runs a kernel over the
 * lower rows of a field while the calling thread runs it over the upper rows; the call returns when both are done.
 * Every row is written by exactly one thread with the kernel's own steps, in the order a single thread would take,
 * so the field is bit-identical to a single-threaded run whatever the split (tested): the draws (draw-kernel.ts:
 * pixels are independent within a draw), every step of the smoothing chain (kernels.ts: rows another thread
 * overwrites in place are copied first), the outer blend (outer-kernel.ts) and the encode (encode-kernel.ts).
 * [R] Not the raster: its spans split by row stripes (one queue per band, each in order) wrote the same bytes but ran
 *     slower on two threads than on one on the shared 2-core machine, so they stay on this thread.
 * [R] The helper is started when an arena large enough to profit is made and serves once it is ready (no call waits
 *     for its start); it is unref'd, so it never keeps a process alive. HEIGHTBENCH_NO_THREADS=1, or a single CPU,
 *     keeps every draw on the calling thread.
 * [R] The two threads meet through Atomics on a small shared control block rather than messages: a draw takes a
 *     fraction of a millisecond, about what a message's round trip costs.
 */
import { MessageChannel, Worker, type MessagePort } from 'node:worker_threads';
import { threadsWanted } from '../../core/threads.js';
import { compiledWasm, type WasmMemory } from '../../core/wasm.js';
import { DRAW_WASM_BASE64 } from './draw-wasm.js';
import { SMOOTHING_WASM_BASE64 } from './smoothing-wasm.js';
import { ENCODE_SHARED_WASM_BASE64 } from './encode-shared-wasm.js';
import { OUTER_WASM_BASE64 } from './outer-wasm.js';

/**
 * Control block (Int32): [0] ready, [1] request count, [2] requests done, [3] result (−1 failed), [4] kernel, [5]
 * argument count; the arguments follow as float64 (exact for i32 and f32 parameters) from byte ARGS_AT.
 */
const READY = 0;
const ASKED = 1;
const DONE = 2;
const RESULT = 3;
const KERNEL = 4;
const NARGS = 5;
const ARGS_AT = 32;
const MAX_ARGS = 16;

/** The kernels the helper runs, by id: draw.wat's draw, smoothing.wat's exports, encode.wat's encode, outer.wat's blendRows. */
export const KERNEL_ID = {
  draw: 0,
  downsample: 1,
  filterX: 2,
  filterY: 3,
  lerpLevelRows: 4,
  composeRows: 5,
  encode: 6,
  outer: 7,
} as const;
export type KernelName = keyof typeof KERNEL_ID;

/**
 * [R] Loads of the control word before either thread sleeps: draws come back to back, and waking a sleeping thread
 *     costs about as much as a small draw; a spin of this length is well under a millisecond.
 */
const SPIN = 2_000;

const SOURCE = `
const { workerData, receiveMessageOnPort } = require('node:worker_threads');
const c = new Int32Array(workerData.ctrl);
const args = new Float64Array(workerData.ctrl, ${ARGS_AT}, ${MAX_ARGS});
const port = workerData.port;
let fns = [];
Atomics.store(c, ${READY}, 1);
let seen = 0;
for (;;) {
  for (let k = 0; k < ${SPIN} && Atomics.load(c, ${ASKED}) === seen; k++);
  Atomics.wait(c, ${ASKED}, seen);
  seen = Atomics.load(c, ${ASKED});
  let r = -1;
  try {
    for (let m = receiveMessageOnPort(port); m; m = receiveMessageOnPort(port)) {
      const env = { env: { memory: m.message } };
      const d = new WebAssembly.Instance(workerData.draw, env).exports;
      const s = new WebAssembly.Instance(workerData.smoothing, env).exports;
      const e = new WebAssembly.Instance(workerData.encode, env).exports;
      const o = new WebAssembly.Instance(workerData.outer, env).exports;
      fns = [d.draw, s.downsample, s.filterX, s.filterY, s.lerpLevelRows, s.composeRows, e.encode, o.blendRows];
    }
    const a = Array.from(args.subarray(0, Atomics.load(c, ${NARGS})));
    r = fns[Atomics.load(c, ${KERNEL})](...a) ?? 0;
  } catch {
    r = -1;
  }
  Atomics.store(c, ${RESULT}, r);
  Atomics.store(c, ${DONE}, seen);
  Atomics.notify(c, ${DONE});
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
/** [R] Draws over fewer pixels (box) than this, or fewer rows than 2 × HELPER_MIN_ROWS, stay on the calling thread. */
export const HELPER_MIN_PIXELS = 16_384;
export const HELPER_MIN_ROWS = 8;

const callsBy = new Map<KernelName, number>();

/** How many kernel calls the helper has run in this process, all or of one kernel (diagnostics and tests). */
export function helperCalls(kernel?: KernelName): number {
  return kernel === undefined ? calls : (callsBy.get(kernel) ?? 0);
}

/** Starts the helper when threads are wanted and it has not been started (nothing waits for it). */
export function startHelper(): void {
  if (helper !== undefined || !threadsWanted()) return;
  try {
    const draw = compiledWasm(DRAW_WASM_BASE64);
    const smoothing = compiledWasm(SMOOTHING_WASM_BASE64);
    const encode = compiledWasm(ENCODE_SHARED_WASM_BASE64);
    const outer = compiledWasm(OUTER_WASM_BASE64);
    if (!draw || !smoothing || !encode || !outer) {
      helper = null;
      return;
    }
    const ctrl = new Int32Array(new SharedArrayBuffer(ARGS_AT + 8 * MAX_ARGS));
    const { port1, port2 } = new MessageChannel();
    const workerData = { draw, smoothing, encode, outer, ctrl: ctrl.buffer, port: port2 };
    const worker = new Worker(SOURCE, { eval: true, workerData, transferList: [port2] });
    worker.unref();
    port1.unref();
    worker.on('error', () => (helper = null));
    helper = { worker, ctrl, port: port1, memory: null };
  } catch {
    helper = null;
  }
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

/** Starts `kernel(args)` on the helper when it is ready (null otherwise); finish with `finish`. */
function start(memory: WasmMemory, kernel: KernelName, args: readonly number[]): { h: Helper; asked: number } | null {
  const h = readyHelper();
  if (!h) return null;
  if (args.length > MAX_ARGS) throw new RangeError(`executor: ${kernel} takes ${args.length} arguments, the helper passes at most ${MAX_ARGS}`);
  if (h.memory !== memory) {
    h.port.postMessage(memory);
    h.memory = memory;
  }
  calls++;
  callsBy.set(kernel, (callsBy.get(kernel) ?? 0) + 1);
  Atomics.store(h.ctrl, KERNEL, KERNEL_ID[kernel]);
  Atomics.store(h.ctrl, NARGS, args.length);
  new Float64Array(h.ctrl.buffer, ARGS_AT, args.length).set(args);
  const asked = Atomics.add(h.ctrl, ASKED, 1) + 1;
  Atomics.notify(h.ctrl, ASKED);
  return { h, asked };
}

/** Waits for the helper's kernel and returns its result; throws when it failed or did not finish within a minute. */
function finish({ h, asked }: { h: Helper; asked: number }): number {
  for (let k = 0; k < SPIN && Atomics.load(h.ctrl, DONE) !== asked; k++);
  const deadline = Date.now() + 60_000;
  for (let d = Atomics.load(h.ctrl, DONE); d !== asked; d = Atomics.load(h.ctrl, DONE)) {
    if (Date.now() > deadline) throw new Error('executor: the helper thread did not finish its rows within 60 s');
    Atomics.wait(h.ctrl, DONE, d, 1000);
  }
  const r = Atomics.load(h.ctrl, RESULT);
  if (r < 0) throw new Error('executor: the helper thread failed while running a kernel on its rows');
  return r;
}

/**
 * Runs draw.wat's `draw` for the block at `mainAt` (rows j0..jm − 1) on this thread and for the block at `helperAt`
 * (rows jm..j1) on the helper, in `memory`, and returns the pixels drawn by both; null when the helper is not ready
 * (the caller then draws all rows itself).
 */
export function drawOnBoth(memory: WasmMemory, draw: (params: number) => number, mainAt: number, helperAt: number): number | null {
  return onBoth(memory, 'draw', [helperAt], () => draw(mainAt));
}

/**
 * Runs `kernel(...helperArgs)` on the helper while `mine` runs on this thread, and returns the sum of both results
 * (a kernel without a result counts 0); null when the helper is not ready (nothing ran: the caller does all the rows).
 */
export function onBoth(memory: WasmMemory, kernel: KernelName, helperArgs: readonly number[], mine: () => number | void): number | null {
  const job = start(memory, kernel, helperArgs);
  if (!job) return null;
  let r: number | void = 0;
  let theirs = 0;
  try {
    r = mine();
  } finally {
    // The helper's rows must be done before anything reads them or reuses its buffers, even when this thread failed.
    theirs = finish(job);
  }
  return (r ?? 0) + theirs;
}
