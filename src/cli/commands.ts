/** The subcommand groups beyond info/convert, in the order `--help` lists them. */
import type { CommandInstaller } from './io.js';

export const COMMAND_GROUPS: CommandInstaller[] = [];
