/**
 * The request's one random stream: a minstd_rand0 whose state flows through the stages in a fixed order.
 *
 * Order [R] (each stage draws only in its own step; nothing re-seeds mid-run):
 *   1 recipe selection → 2 region sites → 3 parents and height groups → 4 location layout (mission, extraction,
 *   outpost, exploration, satellite) → 5 source fallbacks → 6 natural stamp selection and placement.
 * Support, location textures, outer blend and encoding draw nothing.
 * Every draw is counted against the stage label current at the time, for the run manifest.
 */
import { minstdRand0, type MinstdRand0 } from '../core/minstd.js';

export class PrngStream {
  private readonly g: MinstdRand0;
  private label = 'start';
  readonly drawsByStage: Record<string, number> = {};

  constructor(readonly seed: number) {
    this.g = minstdRand0(seed);
  }

  /** Subsequent draws count against `name`. */
  stage(name: string): this {
    this.label = name;
    this.drawsByStage[name] ??= 0;
    return this;
  }

  /** u ∈ (0, 1): raw / (2³¹ − 1). */
  uniform(): number {
    this.drawsByStage[this.label] = (this.drawsByStage[this.label] ?? 0) + 1;
    return this.g.uniform();
  }

  /** An integer in [0, n): floor(u·n). */
  below(n: number): number {
    return Math.min(n - 1, Math.floor(this.uniform() * n));
  }

  /** A number in [a, b). */
  between(a: number, b: number): number {
    return a + (b - a) * this.uniform();
  }

  get draws(): number {
    return this.g.draws;
  }

  get state(): number {
    return this.g.state;
  }
}
