/** Entry point of the `heightbench` executable. */
import { prestartStreamWorker } from '../io/stream-worker.js';
import { requestedCommand } from './commands.js';

// [R] `compare` streams the reference through a worker thread (src/io/stream-worker.ts): the thread starts now, so its
//     start-up overlaps the loading of the command modules below. Unused, it costs nothing at exit (unref'd).
const argv = process.argv.slice(2);
if (requestedCommand(argv) === 'compare') prestartStreamWorker();
const { runCli } = await import('./main.js');

runCli(argv).then(
  (code) => {
    process.exitCode = code;
  },
  (e: unknown) => {
    process.stderr.write(`heightbench: internal error: ${String(e)}\n`);
    process.exitCode = 1;
  },
);
