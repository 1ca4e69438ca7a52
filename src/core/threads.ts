/**
 * Whether heightbench may start helper threads (the bell kernels' helper, the comparison's stream reader).
 * [R] HEIGHTBENCH_NO_THREADS=1, or a single CPU, keeps all work on the calling thread (results are the same; only
 *     the time differs).
 */
import { availableParallelism } from 'node:os';

export function threadsWanted(): boolean {
  return process.env.HEIGHTBENCH_NO_THREADS !== '1' && availableParallelism() >= 2;
}
