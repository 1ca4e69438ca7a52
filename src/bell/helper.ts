/**
 * One helper thread for the bell kernels: it shares the kernels' memory and runs a kernel over the lower half of the
 * output rows while the calling thread runs the upper half. Each pixel's sum is still formed by one thread in
 * generator order, so the field is bit-identical to a single-threaded run (tested).
 * [R] The helper starts on the first large call and serves from the next one on (the first call does not wait for
 *     it); it is unref'd, so it never keeps a process alive. HEIGHTBENCH_NO_THREADS=1, or a single CPU, keeps every
 *     call on the calling thread.
 */
import { Worker } from 'node:worker_threads';
import { threadsWanted } from '../core/threads.js';
import type { WasmMemory } from '../core/wasm.js';

const SOURCE = `
const { parentPort } = require('node:worker_threads');
let kernels = null;
parentPort.on('message', (m) => {
  const flag = new Int32Array(m.flag);
  if (m.module) {
    kernels = new WebAssembly.Instance(m.module, { env: { memory: m.memory } }).exports;
    Atomics.store(flag, 0, 1);
    return;
  }
  let state = 1;
  try {
    kernels[m.fn](...m.args);
  } catch {
    state = 2;
  }
  Atomics.store(flag, 1, state);
  Atomics.notify(flag, 1);
});
`;

export interface BellHelper {
  worker: Worker;
  /** [0] ready; [1] 0 running, 1 done, 2 failed. */
  flag: Int32Array;
}

let helper: BellHelper | null | undefined;
let calls = 0;

/** How many kernel calls the helper has run in this process (diagnostics and tests). */
export function helperCalls(): number {
  return calls;
}

export { threadsWanted };

/** The helper when it is ready to run kernels in `memory`; otherwise null (starting it the first time). */
export function readyHelper(module: object, memory: WasmMemory): BellHelper | null {
  if (!threadsWanted()) return null;
  if (helper === undefined) {
    try {
      const flag = new Int32Array(new SharedArrayBuffer(16));
      const worker = new Worker(SOURCE, { eval: true });
      worker.unref();
      worker.on('error', () => (helper = null));
      worker.postMessage({ module, memory, flag: flag.buffer });
      helper = { worker, flag };
    } catch {
      helper = null;
    }
    return null;
  }
  return helper && Atomics.load(helper.flag, 0) === 1 ? helper : null;
}

/** Starts kernel `fn(...args)` on the helper; finish with waitHelper. */
export function startOnHelper(h: BellHelper, fn: string, args: number[]): void {
  calls++;
  Atomics.store(h.flag, 1, 0);
  h.worker.postMessage({ fn, args, flag: h.flag.buffer });
}

/** Waits for the helper's kernel; throws when it failed or did not finish within a minute. */
export function waitHelper(h: BellHelper): void {
  const deadline = Date.now() + 60_000;
  while (Atomics.load(h.flag, 1) === 0) {
    if (Date.now() > deadline) throw new Error('bell: the helper thread did not finish its rows within 60 s');
    Atomics.wait(h.flag, 1, 0, 1000);
  }
  if (Atomics.load(h.flag, 1) !== 1) throw new Error('bell: the helper thread failed while accumulating its rows');
}
