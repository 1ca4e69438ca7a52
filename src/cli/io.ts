/** Where CLI commands write: real streams in the bin, buffers in tests. */
export interface CliIO {
  out(text: string): void;
  err(text: string): void;
}

export const processIO: CliIO = {
  out: (t) => void process.stdout.write(t),
  err: (t) => void process.stderr.write(t),
};

/** An exit code carried out of a command action (commander actions cannot return one). */
export class CliExit extends Error {
  constructor(readonly code: number) {
    super(`exit ${code}`);
  }
}

/** Adds one group of subcommands to the program (see commands.ts). */
export type CommandInstaller = (program: import('commander').Command, io: CliIO) => void;
