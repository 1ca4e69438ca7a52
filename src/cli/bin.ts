/** Entry point of the `heightbench` executable. */
import { runCli } from './main.js';

runCli(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (e: unknown) => {
    process.stderr.write(`heightbench: internal error: ${String(e)}\n`);
    process.exitCode = 1;
  },
);
