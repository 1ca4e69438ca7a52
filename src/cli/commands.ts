/** The subcommand groups beyond info/convert, in the order `--help` lists them. */
import { installBell } from './bell.js';
import { installCompare } from './compare.js';
import { installRun } from './run.js';
import { installRegress } from './regress.js';
import { installPipelineCommands } from './pipeline-commands.js';
import { installTerrainCommands } from './terrain-commands.js';
import type { CommandInstaller } from './io.js';

export const COMMAND_GROUPS: CommandInstaller[] = [installRun, installPipelineCommands, installCompare, installBell, installTerrainCommands, installRegress];
