import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll } from 'vitest';
import { runCli } from '../src/cli/main.js';

/** A fresh temporary folder, removed after the test file finishes. */
export function tempDir(prefix = 'hb-'): string {
  const d = mkdtempSync(join(tmpdir(), prefix));
  afterAll(() => rmSync(d, { recursive: true, force: true }));
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
