/**
 * `heightbench/cli`: the command line as a function. `runCli(argv, io?)` runs one `heightbench …` invocation
 * in-process and resolves to its exit code (0 success, 2 input/usage/environment, 3 gate failed, 1 internal).
 */
export { runCli } from '../cli/main.js';
export type { CliIO } from '../cli/io.js';
