/**
 * The execution context passed into the stages: which executor runs them and which conventions
 * are in force. Nothing is decided by where an array came from: a stage runs the SIMD kernels only when its context
 * says 'simd' and hands it the arena (the WebAssembly memory the fields live in).
 *
 * Executors:
 *  'simd'   float32, on the WebAssembly SIMD kernels (src/cpu/wasm/*.wat) where a stage has one;
 *  'js-f32' float32, the same operations in JavaScript (Math.fround after every step) — the kernels' reference;
 *  'f64'    the same code unrounded (references).
 * [R] All three can run in one process, one after the other or interleaved: an arena belongs to one context and no
 *     stage keeps state between calls (test/conventions.test.ts runs them side by side).
 */
import { DEFAULT_CONVENTIONS, type Conventions } from '../conventions/index.js';
import { InputRangeError } from '../errors.js';
import type { Precision } from '../core/precision.js';
import { createArena, discardPreparedArena, prepareArena, wasmKernelsAvailable, type Arena } from './wasm/arena.js';
import { HELPER_MIN_SIDE, startHelper } from './wasm/draw-thread.js';

export type Executor = 'simd' | 'js-f32' | 'f64';
export const EXECUTORS: readonly Executor[] = ['simd', 'js-f32', 'f64'];

export interface StageContext {
  executor: Executor;
  conventions: Conventions;
  /** The arena of the run's fields (executor 'simd' only). */
  arena?: Arena | null;
}

export function precisionOf(ctx: StageContext): Precision {
  return ctx.executor === 'f64' ? 'f64' : 'f32';
}

/** Rounding of every step: Math.fround for the float32 executors, identity for f64. */
export function roundingOf(ctx: StageContext): (x: number) => number {
  return ctx.executor === 'f64' ? (x: number) => x : Math.fround;
}

/**
 * A context from a bare precision (the teaching API and older callers): the JavaScript executor of that precision
 * with the declared conventions. A context passes through unchanged.
 */
export function stageContext(p: Precision | StageContext): StageContext {
  if (typeof p !== 'string') return p;
  if (p !== 'f32' && p !== 'f64') throw new InputRangeError(`precision: expected 'f32' or 'f64', got ${JSON.stringify(p)}`);
  return { executor: p === 'f64' ? 'f64' : 'js-f32', conventions: DEFAULT_CONVENTIONS };
}

/** Whether the SIMD executor can run an n × n field here (kernels compiled, not disabled, n a multiple of 32). */
export function simdAvailable(n: number): boolean {
  return n % 32 === 0 && wasmKernelsAvailable();
}

/**
 * The executor a precision gets when the caller names none: f64 → 'f64'; f32 → 'simd' where the kernels can run
 * (HEIGHTBENCH_NO_WASM=1 turns them off) and implement the conventions (kernelRefusals), else 'js-f32'. The run
 * records the executor it used (RunResult.executor).
 */
export function defaultExecutor(precision: Precision, n: number, c: Conventions = DEFAULT_CONVENTIONS): Executor {
  return precision === 'f64' ? 'f64' : simdAvailable(n) && kernelRefusals(c).length === 0 ? 'simd' : 'js-f32';
}

/** Reasons the SIMD kernels cannot implement `c` (empty when they can): checked before a 'simd' run starts. */
export function kernelRefusals(c: Conventions): string[] {
  const out: string[] = [];
  if (c.sampling.addressing !== 'clamp')
    out.push(
      `sampling.addressing ${JSON.stringify(c.sampling.addressing)}: the smoothing kernels implement clamp addressing only (their Y pass keeps a ring of rows made in ascending order)`,
    );
  if (c.sampling.texelCentre !== DEFAULT_CONVENTIONS.sampling.texelCentre)
    out.push(`sampling.texelCentre ${c.sampling.texelCentre}: the draw kernel was built with texel centres at ${DEFAULT_CONVENTIONS.sampling.texelCentre}`);
  if (c.draws.borderWindow !== DEFAULT_CONVENTIONS.draws.borderWindow)
    out.push(
      `draws.borderWindow ${c.draws.borderWindow}: the draw kernel was built with the window ${DEFAULT_CONVENTIONS.draws.borderWindow} (scripts/build-wasm.mjs)`,
    );
  return out;
}

/**
 * A run's context: executor (default from the precision), conventions (the declaration with `override`), and for
 * 'simd' a new arena for an n × n field. Refuses 'simd' where the kernels cannot run or cannot implement the
 * conventions, with the reason.
 */
export function runContext(opts: {
  precision?: Precision;
  executor?: Executor;
  /** The run's resolved conventions (default: the declaration). */
  conventions?: Conventions;
  n: number;
  baseOverRaster?: boolean;
}): StageContext {
  const conventions = opts.conventions ?? DEFAULT_CONVENTIONS;
  const executor = opts.executor ?? defaultExecutor(opts.precision ?? 'f32', opts.n, conventions);
  if (!EXECUTORS.includes(executor)) throw new InputRangeError(`executor: expected one of ${EXECUTORS.join(', ')}, got ${JSON.stringify(executor)}`);
  if (opts.precision && precisionOf({ executor, conventions }) !== opts.precision) {
    throw new InputRangeError(`executor ${executor} computes in ${precisionOf({ executor, conventions })}, but precision ${opts.precision} was asked for`);
  }
  if (executor !== 'simd') {
    discardPreparedArena();
    return { executor, conventions, arena: null };
  }
  if (!simdAvailable(opts.n))
    throw new InputRangeError(
      `executor simd: the WebAssembly SIMD kernels cannot run a ${opts.n}² field here (they need WebAssembly SIMD, HEIGHTBENCH_NO_WASM unset, and a size that is a multiple of 32); use executor js-f32`,
    );
  const refused = kernelRefusals(conventions);
  if (refused.length > 0) throw new InputRangeError(`executor simd cannot implement these conventions: ${refused.join('; ')}; use executor js-f32`);
  const made = createArena(opts.n, { baseOverRaster: opts.baseOverRaster });
  if (!made) throw new InputRangeError(`executor simd: no WebAssembly memory for a ${opts.n}² arena`);
  return { executor, conventions, arena: made.arena };
}

/**
 * Ahead of a run whose context will be 'simd' at n × n: makes its arena and starts the executor's helper thread
 * (draw-thread.ts), which maps the arena's pages while this thread loads and plans — so the helper's start and the
 * first writes to 0.2 GB at 4096² overlap loading and planning instead of the raster. `keep` names the stages the run
 * keeps (a kept raster needs its own buffer); `pngRows`, that the run writes its final map as a PNG (the arena then
 * holds the PNG's scanlines too: CpuExecution.pngRows). Nothing otherwise (the arena starts the helper anyway).
 */
export function prepareExecutor(opts: { precision?: Precision; executor?: Executor; n: number; keep?: readonly string[]; pngRows?: boolean }): void {
  const executor = opts.executor ?? defaultExecutor(opts.precision ?? 'f32', opts.n, DEFAULT_CONVENTIONS);
  if (executor !== 'simd' || opts.n < HELPER_MIN_SIDE || !simdAvailable(opts.n)) return;
  prepareArena(opts.n, { baseOverRaster: !(opts.keep ?? []).includes('raster'), pngRows: opts.pngRows });
  startHelper();
}
