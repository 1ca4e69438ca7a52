/**
 * Bell-shaped accumulation (seed 002): terrain as a sum of Gaussian bells around seeded points.
 *
 * Inputs: seed, generator count, shaping parameters p1, p2, p3, grid size n.
 * Outputs: H (n × n), float64.
 * Seed rules (002_737b643a2c890193.cells.md):
 *  - generator points: minstd_rand0(seed), u = raw / (2³¹ − 1), x drawn before y, one pair per generator;
 *  - generator k (0-based) at (xg, yg): z = 1 + p1·k, f1 = p2·z, f2 = p3·z;
 *    H[i][j] += exp(−f1·((i·δ − xg)² + (j·δ − yg)²)) / f2 with δ = 1/n — earlier generators are wider and taller;
 *  - the loops walk x = −xg, −xg + δ, … by repeated addition (and y likewise); both paths here use that same sequence.
 * [R] Storage: H[i][j] is written at row j, column i (index j·n + i): columns follow x (the first coordinate drawn),
 *     rows follow y, row 0 at y = 0. As a grid: texel centres at x = i/n, i.e. xmin = −1/(2n), size 1 (unit square),
 *     texel-centre, row0-at-ymin. The same statement goes into every sidecar.
 * Paths: 'naive' is the seed's loops (the reference). 'fast' uses separability,
 *   exp(−f1(x² + y²))/f2 = [exp(−f1x²)/f2]·exp(−f1y²): per generator two 1-D factor arrays, then for each output row
 *   a multiply-add of the x factors scaled by that row's y factor, in generator order (the same summation order).
 *   Products whose factor is exactly 0 are skipped (lossless). With `tolerance` > 0 it also skips every product
 *   below `tolerance` (absolute, in H units): the result then differs by at most generators × tolerance.
 */
import { minstdRand0 } from '../core/minstd.js';
import { requireFinite, requireInteger, InputRangeError } from '../errors.js';
import { compiledWasm, ensureMemory, instantiateWasm, newSharedWasmMemory, wasmDisabled, type WasmMemory } from '../core/wasm.js';
import { readyHelper, startOnHelper, threadsWanted, waitHelper } from './helper.js';
import { BELL_WASM_BASE64 } from './wasm/bell-wasm.js';

export interface BellParams {
  seed: number;
  /** Number of generators. */
  nb: number;
  p1: number;
  p2: number;
  p3: number;
  /** Grid size n (n × n samples). */
  size: number;
}

export const BELL_DEFAULTS: BellParams = { seed: 1, nb: 100, p1: 0.5, p2: 30, p3: 3, size: 256 };

export type BellPath = 'naive' | 'fast';

export function validateBellParams(p: BellParams): BellParams {
  requireInteger('bell seed', p.seed, 1, 2147483646);
  requireInteger('bell nb', p.nb, 1, 100000);
  requireInteger('bell size', p.size, 1, 16384);
  for (const k of ['p1', 'p2', 'p3'] as const) requireFinite(`bell ${k}`, p[k]);
  if (!(p.p3 > 0)) throw new InputRangeError(`bell p3: expected > 0 (it divides every bell), got ${p.p3}`);
  if (!(p.p1 >= 0)) throw new InputRangeError(`bell p1: expected ≥ 0, got ${p.p1}`);
  return p;
}

/** The seed's generator points: [xg, yg] per generator, x drawn before y. */
export function bellGenerators(seed: number, nb: number): [number, number][] {
  const rnd = minstdRand0(seed);
  const g: [number, number][] = [];
  for (let k = 0; k < nb; k++) {
    const x = rnd.uniform();
    const y = rnd.uniform();
    g.push([x, y]);
  }
  return g;
}

/** The seed's loops, writing H[i][j] at index j·n + i. */
export function accumulateNaive(p: BellParams, out: Float64Array = new Float64Array(p.size * p.size)): Float64Array {
  validateBellParams(p);
  const n = p.size;
  const delta = 1 / n;
  const gens = bellGenerators(p.seed, p.nb);
  for (let k = 0; k < gens.length; k++) {
    const [xg, yg] = gens[k];
    const z = 1 + p.p1 * k;
    const f1 = p.p2 * z;
    const f2 = p.p3 * z;
    for (let i = 0, x = -xg; i < n; i++, x += delta) {
      const x2 = x * x;
      for (let j = 0, y = -yg; j < n; j++, y += delta) {
        const dist2 = x2 + y * y;
        out[j * n + i] += Math.exp(-f1 * dist2) / f2;
      }
    }
  }
  return out;
}

interface BellKernel {
  accumulate(out: number, fx: number, fy: number, rng: number, n: number, m: number, j0: number, j1: number): void;
  dense(out: number, fx: number, fxp: number, fyp: number, n: number, m: number, j0: number, j1: number): void;
  hasNegativeZero(p: number, count: number): number;
}

/** The kernels and their shared memory, made once and grown as needed (pages stay committed between calls). */
let cached: { kernel: BellKernel; memory: WasmMemory } | null = null;

function bellKernel(bytes: number): { kernel: BellKernel; memory: WasmMemory } | null {
  if (wasmDisabled()) return null;
  if (!cached) {
    const memory = newSharedWasmMemory(bytes);
    const kernel = memory ? instantiateWasm<BellKernel>(BELL_WASM_BASE64, { env: { memory } }) : null;
    if (!memory || !kernel) return null;
    cached = { kernel, memory };
  }
  ensureMemory(cached.memory, bytes);
  return cached;
}

/** [R] Fields from 256² up split their rows with the helper thread (below that, the hand-off costs more than it saves). */
const THREADS_FROM = 256;

/**
 * Starts the bell helper thread (if threads are wanted and WebAssembly SIMD is available) and resolves once it can
 * take rows — true — or after `timeoutMs` — false. Without it the helper starts on the first large call and serves
 * from a later one; long-running callers and the benchmark call this first to measure the steady state.
 */
export async function bellHelperReady(timeoutMs = 5000): Promise<boolean> {
  const k = bellKernel(65536);
  const mod = compiledWasm(BELL_WASM_BASE64);
  if (!k || !mod) return false;
  const deadline = Date.now() + timeoutMs;
  while (!readyHelper(mod, k.memory)) {
    if (!threadsWanted() || Date.now() > deadline) return false;
    await new Promise((r) => setTimeout(r, 10));
  }
  return true;
}

/** Runs a row kernel over rows [0, n): the helper, when ready, takes rows [split, n) while this thread runs [0, split). */
function runRows(memory: WasmMemory, n: number, split: number, run: (j0: number, j1: number) => void, fn: string, args: number[]): void {
  const mod = compiledWasm(BELL_WASM_BASE64);
  const h = n >= THREADS_FROM && mod ? readyHelper(mod, memory) : null;
  if (!h) {
    run(0, n);
    return;
  }
  startOnHelper(h, fn, [...args, split, n]);
  run(0, split);
  waitHelper(h);
}

/**
 * Separable path. `tolerance` 0 (default) skips only exact-zero products. The products are listed as one column
 * range [a0, a1) per output row and generator; the accumulation over them runs on the WebAssembly SIMD kernels
 * (bell.wat) where available — the exact path on the dense kernel (sums in registers, two rows × eight columns),
 * the tolerance path on the range kernel — otherwise in the JavaScript loop below: same products, same order,
 * bit-identical (tested).
 */
export function accumulateFast(p: BellParams, out: Float64Array = new Float64Array(p.size * p.size), tolerance = 0): Float64Array {
  validateBellParams(p);
  if (!(tolerance >= 0)) throw new InputRangeError(`bell tolerance: expected ≥ 0, got ${tolerance}`);
  if (out.length !== p.size * p.size) throw new RangeError(`bell output: expected ${p.size * p.size} samples, got ${out.length}`);
  const n = p.size;
  const m = p.nb;
  const at = bellLayout(n, m);
  const k = bellKernel(at.end);
  const kernel = k?.kernel ?? null;
  const buf = k ? k.memory.buffer : null;
  // Exact path on the kernel: the dense variant adds every product (skipped ones are exactly 0; see bell.wat).
  const acc = buf ? new Float64Array(buf, at.out, n * n) : null;
  if (acc) acc.set(out);
  const dense = kernel !== null && acc !== null && tolerance === 0 && n % 2 === 0 && !kernel.hasNegativeZero(at.out, n * n);
  const f: BellFactors = {
    fx: buf ? new Float64Array(buf, at.fx, m * n) : new Float64Array(m * n),
    fy: buf ? new Float64Array(buf, at.fy, m * n) : new Float64Array(m * n),
    fxp: null,
    fyp: null,
  };
  if (dense) {
    f.fxp = new Float64Array(buf!, at.fxp, m * n);
    f.fyp = new Float64Array(buf!, at.fyp, m * n);
  }
  const support = fillFactors(p, f, tolerance);
  if (dense) {
    const args = [at.out, at.fx, at.fxp, at.fyp, n, m];
    runRows(k!.memory, n, (n >> 2) << 1, (j0, j1) => kernel!.dense(at.out, at.fx, at.fxp, at.fyp, n, m, j0, j1), 'dense', args);
    out.set(acc!);
    return out;
  }
  const rng = buf ? new Int32Array(buf, at.rng, n * m * 2) : new Int32Array(n * m * 2);
  columnRanges(f, support, n, m, tolerance, rng);
  if (kernel && acc) {
    const args = [at.out, at.fx, at.fy, at.rng, n, m];
    runRows(k!.memory, n, n >> 1, (j0, j1) => kernel.accumulate(at.out, at.fx, at.fy, at.rng, n, m, j0, j1), 'accumulate', args);
    out.set(acc);
    return out;
  }
  accumulateRangesJs(out, f, rng, n, m);
  return out;
}

/**
 * Byte offsets in kernel memory: out n²·8 | fx m·n·8 | fy m·n·8 | ranges n·m·2·4 | fx per 8-column block | fy per row.
 * Without the kernel the same arrays are plain typed arrays.
 */
function bellLayout(n: number, m: number): { out: number; fx: number; fy: number; rng: number; fxp: number; fyp: number; end: number } {
  const out = 0;
  const fx = n * n * 8;
  const fy = fx + m * n * 8;
  const rng = fy + m * n * 8;
  const fxp = rng + n * m * 8;
  const fyp = fxp + m * n * 8;
  return { out, fx, fy, rng, fxp, fyp, end: fyp + m * n * 8 };
}

/**
 * Factor arrays, generator-major: fx_k[i] = exp(−f1·x_i²)/f2 (x_i by repeated addition, as the seed), fy_k[j] =
 * exp(−f1·y_j²). The dense kernel reads them packed instead (fxp: fx per 8-column block, written beside fx; fyp: fy
 * per row, written instead of fy).
 */
interface BellFactors {
  fx: Float64Array;
  fy: Float64Array;
  fxp: Float64Array | null;
  fyp: Float64Array | null;
}

/** Where fx_k can matter: columns [lo, hi) per generator (above the tolerance, or non-zero when it is 0), and the peak column. */
interface FactorSupport {
  lo: Int32Array;
  hi: Int32Array;
  peak: Int32Array;
}

function fillFactors(p: BellParams, f: BellFactors, tolerance: number): FactorSupport {
  const n = p.size;
  const m = p.nb;
  const delta = 1 / n;
  const gens = bellGenerators(p.seed, m);
  const { fx, fy, fxp, fyp } = f;
  const lo = new Int32Array(m);
  const hi = new Int32Array(m);
  const peak = new Int32Array(m);
  for (let k = 0; k < m; k++) {
    const [xg, yg] = gens[k];
    const z = 1 + p.p1 * k;
    const f1 = p.p2 * z;
    const f2 = p.p3 * z;
    const base = k * n;
    let first = n;
    let last = -1;
    let top = 0;
    for (let i = 0, x = -xg; i < n; i++, x += delta) {
      const v = Math.exp(-f1 * (x * x)) / f2;
      fx[base + i] = v;
      if (fxp) fxp[(((i >> 3) * m + k) << 3) + (i & 7)] = v;
      if (v > fx[base + top]) top = i;
      if (v > tolerance || (tolerance === 0 && v !== 0)) {
        if (first === n) first = i;
        last = i;
      }
    }
    lo[k] = first;
    hi[k] = last + 1;
    peak[k] = Math.min(Math.max(top, first), Math.max(first, last));
    if (fyp) for (let j = 0, y = -yg; j < n; j++, y += delta) fyp[j * m + k] = Math.exp(-f1 * (y * y));
    else for (let j = 0, y = -yg; j < n; j++, y += delta) fy[base + j] = Math.exp(-f1 * (y * y));
  }
  return { lo, hi, peak };
}

/** The products of each output row: one column range [a0, a1) per row and generator, written into `rng` (row-major). */
function columnRanges(f: BellFactors, s: FactorSupport, n: number, m: number, tolerance: number, rng: Int32Array): void {
  const { fx, fy } = f;
  for (let j = 0, r = 0; j < n; j++) {
    for (let k = 0; k < m; k++, r += 2) {
      const b = fy[k * n + j];
      const a0 = s.lo[k];
      const a1 = b === 0 ? a0 : s.hi[k];
      rng[r] = a0;
      rng[r + 1] = a1;
      if (tolerance > 0 && a0 < a1) keepColumns(fx, k * n, s.peak[k], tolerance / b, rng, r);
    }
  }
}

/**
 * Narrows the range at rng[r], rng[r + 1] to its columns where fx ≥ t. fx_k never falls before its peak and never rises after it (x steps up by δ, and
 * x², exp and the division are monotone), so the kept columns are one run around the peak, found by bisection on
 * each side; an empty run when even the peak is below t.
 */
function keepColumns(fx: Float64Array, base: number, pk: number, t: number, rng: Int32Array, r: number): void {
  const a0 = rng[r];
  const a1 = rng[r + 1];
  if (fx[base + pk] < t) {
    rng[r + 1] = a0;
    return;
  }
  let l = a0;
  let h = pk; // first column in [a0, pk] with fx ≥ t
  while (l < h) {
    const mid = (l + h) >>> 1;
    if (fx[base + mid] >= t) h = mid;
    else l = mid + 1;
  }
  rng[r] = l;
  l = pk;
  h = a1 - 1; // last column in [pk, a1) with fx ≥ t
  while (l < h) {
    const mid = (l + h + 1) >>> 1;
    if (fx[base + mid] >= t) l = mid;
    else h = mid - 1;
  }
  rng[r + 1] = l + 1;
}

/** The JavaScript accumulation (no kernel): per row, per generator in order, row[i] += fx_k[i]·fy_k[j] over its range. */
function accumulateRangesJs(out: Float64Array, f: BellFactors, rng: Int32Array, n: number, m: number): void {
  const { fx, fy } = f;
  for (let j = 0, r = 0; j < n; j++) {
    const row = out.subarray(j * n, j * n + n);
    for (let k = 0; k < m; k++, r += 2) {
      const b = fy[k * n + j];
      const xk = fx.subarray(k * n, k * n + n);
      for (let i = rng[r]; i < rng[r + 1]; i++) row[i] += xk[i] * b;
    }
  }
}

export function accumulateBells(p: BellParams, path: BellPath = 'fast', tolerance = 0): Float64Array {
  return path === 'naive' ? accumulateNaive(p) : accumulateFast(p, undefined, tolerance);
}

/** Maximum over samples of |a − b| / |b| (0 where both are 0, Infinity where only b is 0). */
export function maxRelativeDeviation(a: ArrayLike<number>, b: ArrayLike<number>): number {
  let worst = 0;
  for (let k = 0; k < b.length; k++) {
    const d = Math.abs(a[k] - b[k]);
    if (d === 0) continue;
    const r = b[k] === 0 ? Infinity : d / Math.abs(b[k]);
    if (r > worst) worst = r;
  }
  return worst;
}

/** The grid the bell field describes: the unit square scaled to `worldSize`. */
export function bellGrid(size: number, worldSize = 1) {
  return {
    xmin: -worldSize / (2 * size),
    ymin: -worldSize / (2 * size),
    sizeX: worldSize,
    sizeY: worldSize,
    columns: size,
    rows: size,
    convention: 'texel-centre' as const,
    rowDirection: 'row0-at-ymin' as const,
  };
}

export const BELL_INDEX_MAPPING =
  'seed H[i][j] is stored at row j, column i: columns follow x = i/n (the first coordinate drawn), rows follow y = j/n, row 0 at y = 0';
