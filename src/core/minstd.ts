/**
 * minstd_rand0: the project's one seeded generator.
 *
 * x ← 16807 · x mod (2³¹ − 1), the raw integer sequence of C++ `std::minstd_rand0` (multiplier 16807, increment 0,
 * modulus 2147483647). Seeding follows the standard's linear_congruential_engine: x₀ = seed mod m, and 1 when that is 0.
 * The standard's check value: the 10000th draw from the default seed (1) is 1043618065.
 * 16807 · x < 2⁴⁶, so float64 arithmetic is exact and no BigInt is needed.
 */
import { requireInteger } from '../errors.js';

export const MINSTD_MODULUS = 2147483647;
export const MINSTD_MULTIPLIER = 16807;
export const MINSTD_DEFAULT_SEED = 1;

export interface MinstdRand0 {
  /** Advances and returns the raw integer in [1, 2³¹ − 2]. */
  next(): number;
  /** Advances and returns raw / (2³¹ − 1) ∈ (0, 1), the seed notebook's uniform value. */
  uniform(): number;
  /** Current state (the last raw value, or the seeded state before any draw). */
  readonly state: number;
  /** Number of draws made so far. */
  readonly draws: number;
}

export function minstdRand0(seed: number = MINSTD_DEFAULT_SEED): MinstdRand0 {
  requireInteger('minstdRand0 seed', seed, 0, Number.MAX_SAFE_INTEGER);
  let x = seed % MINSTD_MODULUS;
  if (x === 0) x = 1;
  let draws = 0;
  const next = (): number => {
    x = (x * MINSTD_MULTIPLIER) % MINSTD_MODULUS;
    draws++;
    return x;
  };
  return {
    next,
    uniform: () => next() / MINSTD_MODULUS,
    get state() {
      return x;
    },
    get draws() {
      return draws;
    },
  };
}
