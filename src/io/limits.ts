/**
 * The documented limits on what heightbench will read, allocate or compute (README "Limits"), checked before work.
 *
 * [R] A heightfield has at most 2^28 samples (a 16384² map) and at most 2^20 per side, whatever its container.
 * [R] Work that allocates in proportion to its arguments estimates its memory first and refuses an estimate over the
 *     budget: HEIGHTBENCH_MAX_MEMORY_MB when set, else 80 % of the machine's memory.
 */
import { totalmem } from 'node:os';
import { LimitError } from '../errors.js';

export const MAX_FIELD_PIXELS = 1 << 28;
export const MAX_FIELD_SIDE = 1 << 20;

const MB = 1024 * 1024;

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
