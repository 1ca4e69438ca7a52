/** Shared benchmark helpers: timing (median of repeats), synthetic inputs, result rows. */
import { mkdirSync } from 'node:fs';

export interface BenchRow {
  name: string;
  ms: number;
  /** Peer measurement of the same work, when one exists. */
  peer?: { name: string; ms: number };
  target?: string;
  note?: string;
}

export const BENCH_DIR = '.bench';
mkdirSync(BENCH_DIR, { recursive: true });

/** Median wall time of `repeats` runs after `warmup` untimed runs (JIT tiers settle during warm-up). */
export function timeMedian(fn: () => void, repeats = 5, warmup = 2): number {
  for (let w = 0; w < warmup; w++) fn();
  const t: number[] = [];
  for (let r = 0; r < repeats; r++) {
    const g = (globalThis as { gc?: () => void }).gc;
    if (g) g();
    const t0 = process.hrtime.bigint();
    fn();
    t.push(Number(process.hrtime.bigint() - t0) / 1e6);
  }
  t.sort((a, b) => a - b);
  return t[Math.floor(t.length / 2)];
}

/** A deterministic terrain-like 16-bit field: broad relief, ridges and a little noise (compresses like real maps). */
export function syntheticCodes(n: number, seed = 1): Uint16Array {
  const q = new Uint16Array(n * n);
  let s = seed >>> 0 || 1;
  for (let j = 0; j < n; j++) {
    for (let i = 0; i < n; i++) {
      s ^= s << 13;
      s >>>= 0;
      s ^= s >>> 17;
      s ^= s << 5;
      s >>>= 0;
      const x = i / n;
      const y = j / n;
      const h = 0.5 + 0.2 * Math.sin(7 * x) * Math.cos(5 * y) + 0.05 * Math.sin(60 * x + 40 * y) + (s / 4294967296) * 0.002;
      q[j * n + i] = Math.max(0, Math.min(65535, Math.round(h * 65535)));
    }
  }
  return q;
}

/** Prints the section's rows as one JSON line (the runner collects them) with the process's peak RSS. */
export function report(section: string, rows: BenchRow[]): void {
  const peakRssMB = process.resourceUsage().maxRSS / 1024;
  process.stdout.write(`${JSON.stringify({ section, rows, peakRssMB })}\n`);
}
