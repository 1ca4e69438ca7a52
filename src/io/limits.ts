/**
 * The documented limits on what heightbench will read, allocate or compute (README "Limits"), checked before work.
 *
 * [R] A heightfield has at most 2^28 samples (a 16384² map) and at most 2^20 per side, whatever its container.
 * [R] Work that allocates in proportion to its arguments estimates its memory first and refuses an estimate over the
 *     budget: HEIGHTBENCH_MAX_MEMORY_MB when set, else 80 % of the machine's memory.
 * [R] Readers of files other people made (DDS, EXR, TIFF, .npy) share one tighter budget, because a file declares its
 *     own sizes: HEIGHTBENCH_MAX_MEMORY_MB when set, else a quarter of the machine's memory. Every reader checks what
 *     it will allocate against it (checkReaderMemory) before allocating, and reads only bytes the file holds.
 */
import { totalmem } from 'node:os';
import { LimitError } from '../errors.js';

export const MAX_FIELD_PIXELS = 1 << 28;
export const MAX_FIELD_SIDE = 1 << 20;

const MB = 1024 * 1024;

/** [R] Default cap of the CSV pixel list of `check`/`compare --differences-csv` (rows): ~10 MB of text. */
export const DEFAULT_DIFFERENCES_CAP = 100_000;

/** The memory budget in bytes. */
export function memoryBudgetBytes(): number {
  const env = process.env.HEIGHTBENCH_MAX_MEMORY_MB;
  if (env !== undefined && env !== '') {
    const mb = Number(env);
    if (!Number.isFinite(mb) || mb <= 0) throw new LimitError(`HEIGHTBENCH_MAX_MEMORY_MB: expected a positive number of MiB, got ${JSON.stringify(env)}`);
    return mb * MB;
  }
  return Math.floor(totalmem() * 0.8);
}

function budgetSource(): string {
  return process.env.HEIGHTBENCH_MAX_MEMORY_MB ? 'HEIGHTBENCH_MAX_MEMORY_MB' : "80 % of this machine's memory; set HEIGHTBENCH_MAX_MEMORY_MB to change it";
}

/** The memory budget of a file reader in bytes (see the header). */
export function readerBudgetBytes(): number {
  const env = process.env.HEIGHTBENCH_MAX_MEMORY_MB;
  if (env !== undefined && env !== '') return memoryBudgetBytes();
  return Math.floor(machineMemory() / 4);
}

let total: number | undefined;
/** The machine's memory, asked once: a reader checks its budget before every read (thousands for a ZIPS EXR). */
function machineMemory(): number {
  return (total ??= totalmem());
}

/**
 * Refuses a reader's allocation over the reader budget, naming the file, what it was for, the need and the budget.
 * `bytes` is what the reader will hold at once for this file (output plus the largest scratch).
 */
export function checkReaderMemory(where: string, what: string, bytes: number): void {
  const budget = readerBudgetBytes();
  if (!(bytes <= budget)) {
    const source = process.env.HEIGHTBENCH_MAX_MEMORY_MB
      ? 'HEIGHTBENCH_MAX_MEMORY_MB'
      : "a quarter of this machine's memory, the reader budget; set HEIGHTBENCH_MAX_MEMORY_MB to change it";
    throw new LimitError(
      `${where}: ${what} needs ${bytes} bytes (about ${Math.ceil(bytes / MB)} MiB), over the memory budget of ${Math.floor(budget / MB)} MiB (${source})`,
    );
  }
}

/** Refuses work whose estimated memory exceeds the budget, naming what and both figures. */
export function checkMemoryEstimate(what: string, bytes: number): void {
  const budget = memoryBudgetBytes();
  if (!(bytes <= budget)) {
    throw new LimitError(`${what} needs about ${Math.ceil(bytes / MB)} MiB, over the memory budget of ${Math.floor(budget / MB)} MiB (${budgetSource()})`);
  }
}

/** Refuses a grid over the sample limits, naming the setting and its value. */
export function checkFieldSize(what: string, width: number, height: number, pixelLimit = MAX_FIELD_PIXELS): void {
  if (width > MAX_FIELD_SIDE || height > MAX_FIELD_SIDE) {
    throw new LimitError(`${what}: ${width}x${height} has a side over the limit of ${MAX_FIELD_SIDE}`);
  }
  if (width * height > pixelLimit) {
    throw new LimitError(`${what}: ${width}x${height} = ${width * height} samples, over the limit of ${pixelLimit}`);
  }
}
