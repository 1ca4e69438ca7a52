import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect } from 'vitest';
import { runCli } from '../src/cli/main.js';

/**
 * A fresh temporary folder, removed after the test file finishes. The removal retries on a folder that is not empty
 * yet: a process a test stopped (a DVC queue's killed workers) may still be writing into it as it exits.
 */
export function tempDir(prefix = 'hb-'): string {
  const d = mkdtempSync(join(tmpdir(), prefix));
  afterAll(() => rmSync(d, { recursive: true, force: true, maxRetries: 20, retryDelay: 100 }));
  return d;
}

export interface CliResult {
  code: number;
  out: string;
  err: string;
}

/** Runs the CLI in-process and captures its output. */
export async function cli(...argv: string[]): Promise<CliResult> {
  let out = '';
  let err = '';
  const code = await runCli(argv, { out: (t) => void (out += t), err: (t) => void (err += t) });
  return { code, out, err };
}

/** Deterministic pseudo-random values for test inputs (xorshift32), independent of the library's generator. */
export function testRandom(seed: number): () => number {
  let s = seed >>> 0 || 1;
  return () => {
    s ^= s << 13;
    s >>>= 0;
    s ^= s >>> 17;
    s ^= s << 5;
    s >>>= 0;
    return s / 4294967296;
  };
}

/** The bytes a typed array views (not its whole buffer: arena fields share one WebAssembly memory). */
export function bytes(a: ArrayBufferView): Buffer {
  return Buffer.from(a.buffer, a.byteOffset, a.byteLength);
}

/** The float64 values of a raw little-endian dump an independent peer wrote (its own buffer, aligned). */
export function readF64(path: string): Float64Array {
  const b = readFileSync(path);
  return new Float64Array(b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength));
}

/** Same values element by element: NaN equal to NaN, −0 distinct from +0; the first difference is named. */
export function sameValues(got: ArrayLike<number>, want: ArrayLike<number>): void {
  expect(got.length).toBe(want.length);
  let bad = -1;
  for (let i = 0; i < want.length; i++) {
    if (!Object.is(got[i], want[i])) {
      bad = i;
      break;
    }
  }
  expect(bad === -1 ? 'all equal' : `index ${bad}: got ${got[bad]}, want ${want[bad]}`).toBe('all equal');
}
