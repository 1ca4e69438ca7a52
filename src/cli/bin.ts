/** Entry point of the `heightbench` executable. */
import { prestartStreamWorker } from '../io/stream-worker.js';
import { prestartInflateHelperFor } from '../io/formats/exr-helper.js';
import { requestedCommand } from './commands.js';

// [R] `compare` streams the reference through a worker thread (src/io/stream-worker.ts): the thread starts now, so its
//     start-up overlaps the loading of the command modules below. Unused, it costs nothing at exit (unref'd).
const argv = process.argv.slice(2);
const command = requestedCommand(argv);
if (command === 'compare') prestartStreamWorker();
// [R] `info` of a large ZIP/ZIPS OpenEXR file shares its blocks with a helper thread (src/io/formats/exr-helper.ts),
//     started now for the same reason.
if (command === 'info') for (const a of argv) prestartInflateHelperFor(a);
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
