/** The subcommand groups beyond info/convert, in the order `--help` lists them. */
import { installAtlas } from './atlas.js';
import { installBell } from './bell.js';
import { installCompare } from './compare.js';
import { installDiagnose } from './diagnose.js';
import { installRun } from './run.js';
import { installDrawList } from './gpu-run.js';
import { installGpuPage } from './gpu-page.js';
import { installRegress } from './regress.js';
import { installPipelineCommands } from './pipeline-commands.js';
import { installTerrainCommands } from './terrain-commands.js';
import type { CommandInstaller } from './io.js';

export const COMMAND_GROUPS: CommandInstaller[] = [installRun, installDrawList, installGpuPage, installPipelineCommands, installCompare, installDiagnose, installAtlas, installBell, installTerrainCommands, installRegress];
