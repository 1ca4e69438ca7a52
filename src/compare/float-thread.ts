/**
 * One helper thread for the float-pair full kernel (float-kernel.ts floatFullScan): it runs the region and ring
 * passes (float-pair.wat `regions`) of one sub-block while the calling thread prepares the next one (`prepare`) into
 * another slot of the scratch (SLOTS of them); the whole map's pass stays on the calling thread (`region`) where the
 * scan's first chunk says so (float-kernel.ts WHOLE_HERE_WIDE_SHARE). Sub-blocks reach the region passes one at a
 * time and in pixel order, whichever thread runs them, so every sum, maximum and wide-Δq order is the one thread's
 * (tested).
 * [R] Each sub-block's region pass is claimed by whichever thread is free (an atomic turn word): the helper when it
 *     is awake, this thread when it needs the scratch slot back and the helper has not taken it, so a helper that
 *     wakes late (a busy machine), or never, does not hold this thread up. HEIGHTBENCH_NO_THREADS=1, or a single CPU, keeps
 *     every pass on the calling thread.
 * [R] The threads meet through Atomics on a small shared control block rather than messages: a sub-block's pass takes
 *     tens of microseconds, less than a message's round trip.
 * [R] The helper is started ahead (prestartFloatHelper, from compareHeightfields) and unref'd, so it never keeps a
 *     process alive.
 */
import { MessageChannel, Worker, type MessagePort } from 'node:worker_threads';
import { threadsWanted } from '../core/threads.js';
import type { WasmMemory } from '../core/wasm.js';

/**
 * Control block (Int32): ready, bell (bumped on each post), turn (2s: sub-block s's region pass is next and free,
 * 2s + 1: it is being run), sub-blocks posted, the memory generation, failed flag, passes the helper ran, whether
 * the helper sleeps; from byte
 * ARGS_AT the arguments of `regions` for each scratch slot, as float64 (exact for i32). Turn and posted count every
 * sub-block this process posted, so a value never repeats across scans.
 */
const READY = 0;
const BELL = 1;
const TURN = 2;
const POSTED = 3;
const GEN = 4;
const FAILED = 5;
const HELPER_RUNS = 6;
const SLEEPING = 7;
const ARGS_AT = 64;
/** Parameters of float-pair.wat's `regions`. */
export const REGION_ARGS = 25;
/**
 * [R] Scratch slots: this thread may prepare up to SLOTS sub-blocks ahead of the region passes, so a helper that the
 *     system pauses for a moment holds it up only when that moment is longer than SLOTS sub-blocks take.
 */
export const SLOTS = 8;
const CTRL_BYTES = ARGS_AT + SLOTS * REGION_ARGS * 8;
/** Loads of the turn word before this thread sleeps on a pass the helper runs (short: passes are short). */
const SPIN = 100;
/**
 * [R] Passes waiting before a sleeping helper is woken. The helper sleeps as soon as no pass is left rather than
 *     spinning on the bell: a spinning helper burns a CPU that a busy machine needs, and where both CPUs are threads
 *     of one core it can slow the thread that prepares (the scan then takes less CPU and no more wall time); woken
 *     for WAKE_AT passes at once, it pays one system call for several passes.
 */
const WAKE_AT = 4;

const SOURCE = `
const { workerData, receiveMessageOnPort } = require('node:worker_threads');
const c = new Int32Array(workerData.ctrl);
const args = new Float64Array(workerData.ctrl, ${ARGS_AT}, ${SLOTS * REGION_ARGS});
const port = workerData.port;
let regions = null;
let gen = -1;
Atomics.store(c, ${READY}, 1);
let seen = 0;
for (;;) {
  Atomics.store(c, ${SLEEPING}, 1);
  Atomics.wait(c, ${BELL}, seen);
  Atomics.store(c, ${SLEEPING}, 0);
  seen = Atomics.load(c, ${BELL});
  for (let m = receiveMessageOnPort(port); m; m = receiveMessageOnPort(port)) {
    regions = new WebAssembly.Instance(m.message.module, { env: { memory: m.message.memory } }).exports.regions;
    gen = m.message.gen;
  }
  for (;;) {
    const t = Atomics.load(c, ${TURN});
    if (t & 1 || t >>> 1 >= Atomics.load(c, ${POSTED})) break;
    if (Atomics.compareExchange(c, ${TURN}, t, t + 1) !== t) continue;
    // A pass of a newer scan than this instance's memory: handed back to the caller (the turn made free again).
    if (Atomics.load(c, ${GEN}) !== gen) { Atomics.store(c, ${TURN}, t); Atomics.notify(c, ${TURN}); break; }
    try {
      const at = ((t >>> 1) % ${SLOTS}) * ${REGION_ARGS};
      regions(...args.subarray(at, at + ${REGION_ARGS}));
      Atomics.add(c, ${HELPER_RUNS}, 1);
    } catch {
      Atomics.store(c, ${FAILED}, 1);
    }
    Atomics.store(c, ${TURN}, t + 2);
    Atomics.notify(c, ${TURN});
  }
}
`;

interface Helper {
  worker: Worker;
  ctrl: Int32Array;
  args: Float64Array;
  port: MessagePort;
}

let helper: Helper | null | undefined;
let generation = 0;

/**
 * Starts the helper if threads are wanted and none was started; it serves once it is ready (no scan waits for it).
 * [R] Scans smaller than FLOAT_HELPER_MIN_PIXELS never start it: their passes are too few to be worth a thread.
 */
export function prestartFloatHelper(): void {
  if (helper !== undefined || !threadsWanted()) return;
  try {
    const sab = new SharedArrayBuffer(CTRL_BYTES);
    const { port1, port2 } = new MessageChannel();
    const worker = new Worker(SOURCE, { eval: true, workerData: { ctrl: sab, port: port2 }, transferList: [port2] });
    worker.unref();
    const made: Helper = { worker, ctrl: new Int32Array(sab), args: new Float64Array(sab, ARGS_AT, SLOTS * REGION_ARGS), port: port1 };
    worker.on('error', () => {
      if (helper === made) helper = null;
    });
    helper = made;
  } catch {
    helper = null;
  }
}

export const FLOAT_HELPER_MIN_PIXELS = 1 << 20;

/** Whether the helper has started and waits for work (tests wait for it; scans never do). */
export function floatHelperReady(): boolean {
  return !!helper && Atomics.load(helper.ctrl, READY) === 1;
}

/** Region passes the helper ran in this process (diagnostics and tests: they count work, not time). */
export function floatHelperRuns(): number {
  return helper ? Atomics.load(helper.ctrl, HELPER_RUNS) : 0;
}

/**
 * The region passes of one scan, sub-block after sub-block: begin() at each chunk (the helper joins at the first chunk
 * after it is ready), slot() is the scratch slot the next sub-block is to be prepared into, free() returns once that
 * slot's earlier pass is done (this thread runs it if the helper has not taken it), post(args) hands the pass of the
 * sub-block just prepared to whichever thread is free, drain() returns once every posted pass is done. `run` is this
 * thread's own `regions`. A pass that failed on the helper (a wide-bin memory refused) throws in free or drain.
 */
export interface RegionPasses {
  /** Whether this chunk's passes may go to the helper (else the caller runs the whole chunk itself). */
  begin(): boolean;
  slot(): number;
  free(): void;
  post(args: readonly number[]): void;
  drain(): void;
  /** Passes posted and not yet finished: how far the helper is behind this thread (0 without a helper). */
  backlog(): number;
}

export function regionPasses(run: (...args: number[]) => void, memory: WasmMemory, module: object, pixels: number): RegionPasses {
  if (pixels >= FLOAT_HELPER_MIN_PIXELS) prestartFloatHelper();
  let h: Helper | null = null;
  // Sub-block s of the process goes into slot s % SLOTS (the helper reads its arguments there).
  let posted = 0;
  /** Until every pass before sub-block `limit` is done, running the free ones here. */
  const settle = (limit: number) => {
    if (!h) return;
    const { ctrl: c, args } = h;
    // A pass the helper took and never finished (the helper died) must not hang the comparison.
    let waiting = -1;
    let since = 0;
    for (;;) {
      const t = Atomics.load(c, TURN);
      if (t >= 2 * limit) break;
      if (!(t & 1)) {
        if (Atomics.compareExchange(c, TURN, t, t + 1) !== t) continue;
        const at = ((t >>> 1) % SLOTS) * REGION_ARGS;
        try {
          run(...args.subarray(at, at + REGION_ARGS));
        } finally {
          Atomics.store(c, TURN, t + 2);
        }
        continue;
      }
      if (waiting !== t) [waiting, since] = [t, Date.now()];
      else if (Date.now() - since > 60_000) throw new Error('float-pair helper: a region pass did not finish within 60 s');
      let k = 0;
      while (k < SPIN && Atomics.load(c, TURN) === t) k++;
      if (k === SPIN) Atomics.wait(c, TURN, t, 50);
    }
    if (Atomics.load(c, FAILED)) throw new Error('float-pair helper: a region pass failed');
  };
  return {
    begin() {
      if (h || pixels < FLOAT_HELPER_MIN_PIXELS || !helper || !threadsWanted() || !floatHelperReady()) return !!h;
      h = helper;
      const gen = ++generation;
      Atomics.store(h.ctrl, GEN, gen);
      Atomics.store(h.ctrl, FAILED, 0);
      h.port.postMessage({ gen, memory, module });
      posted = Atomics.load(h.ctrl, POSTED);
      return true;
    },
    slot: () => posted % SLOTS,
    // The slot's earlier pass is that of sub-block posted - SLOTS.
    free: () => settle(posted - SLOTS + 1),
    post(args) {
      if (!h) return run(...args);
      h.args.set(args, (posted % SLOTS) * REGION_ARGS);
      posted++;
      Atomics.store(h.ctrl, POSTED, posted);
      Atomics.add(h.ctrl, BELL, 1);
      // The helper sets SLEEPING before it compares the bell, so either it sees this post or this sees it asleep;
      // asleep, it is woken for WAKE_AT passes at once (a wake-up is a system call, and this thread runs the passes
      // that are left unclaimed when it needs their slots).
      if (Atomics.load(h.ctrl, SLEEPING) && posted - (Atomics.load(h.ctrl, TURN) >>> 1) >= WAKE_AT) Atomics.notify(h.ctrl, BELL);
    },
    drain: () => settle(posted),
    backlog: () => (h ? posted - (Atomics.load(h.ctrl, TURN) >>> 1) : 0),
  };
}
