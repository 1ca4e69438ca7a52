/**
 * Whether heightbench may start helper threads (the bell kernels' helper, the comparison's stream reader).
 * [R] HEIGHTBENCH_NO_THREADS=1, or a single CPU, keeps all work on the calling thread (results are the same; only
 *     the time differs).
 */
import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';

export function threadsWanted(): boolean {
  return process.env.HEIGHTBENCH_NO_THREADS !== '1' && availableParallelism() >= 2;
}

/**
 * A worker started ahead of its use from `source` (evaluated), unref'd so that an unused one never holds the process
 * open; null where none starts. `onError` runs if it fails later (the caller then stops counting on it).
 */
export function prestartWorker(source: string, onError: (w: Worker) => void): Worker | null {
  try {
    const w = new Worker(source, { eval: true });
    w.unref();
    w.on('error', () => onError(w));
    return w;
  } catch {
    return null;
  }
}
