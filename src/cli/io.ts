import type { ConfigContext } from '../plan/request.js';
import type { LoadedHeightfield } from '../io/heightfield-file.js';
import { terminalText } from '../core/text.js';

/** Where CLI commands write: real streams in the bin, buffers in tests; and the invocation's configuration. */
export interface CliIO {
  out(text: string): void;
  err(text: string): void;
  /** The invocation's config context (runCli sets it from --config before the command runs; absent: the default search). */
  readonly config?: ConfigContext;
  /** How `check` reads heightfield files (default: readHeightfieldFile); scripts/checks.mjs shares one across checks. */
  readonly readHeightfield?: (path: string) => LoadedHeightfield;
}

/** The terminal: every line passes terminalText (src/core/text.ts), so control bytes never reach it raw. */
export const processIO: CliIO = {
  out: (t) => void process.stdout.write(terminalText(t)),
  err: (t) => void process.stderr.write(terminalText(t)),
};

/** An exit code carried out of a command action (commander actions cannot return one). */
export class CliExit extends Error {
  constructor(readonly code: number) {
    super(`exit ${code}`);
  }
}

/** Adds one group of subcommands to the program (see commands.ts). */
export type CommandInstaller = (program: import('commander').Command, io: CliIO) => void;
