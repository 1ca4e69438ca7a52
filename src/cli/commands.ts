/**
 * The subcommand groups beyond info/convert, in the order `--help` lists them. Each group names the top-level
 * commands it installs and loads its module only when asked: `heightbench compare …` loads the compare group alone,
 * never the pipeline, the GPU reference or the terrain engine (startup is part of every command's time). Help, an
 * unknown command or no command loads every group. test/cli-lazy.test.ts checks each list against what its installer
 * really adds, and that the compare path's static imports reach no pipeline, GPU or terrain module.
 */
import type { CommandInstaller } from './io.js';

export interface CommandGroup {
  /** Top-level command names the group's installer adds. */
  readonly commands: readonly string[];
  load(): Promise<CommandInstaller>;
}

export const COMMAND_GROUPS: readonly CommandGroup[] = [
  { commands: ['run'], load: async () => (await import('./run.js')).installRun },
  { commands: ['drawlist'], load: async () => (await import('./gpu-run.js')).installDrawList },
  { commands: ['gpu-page'], load: async () => (await import('./gpu-page.js')).installGpuPage },
  { commands: ['assets', 'bless'], load: async () => (await import('./pipeline-commands.js')).installPipelineCommands },
  { commands: ['check'], load: async () => (await import('./check.js')).installCheck },
  { commands: ['compare'], load: async () => (await import('./compare.js')).installCompare },
  { commands: ['import'], load: async () => (await import('./import.js')).installImport },
  { commands: ['diagnose'], load: async () => (await import('./diagnose.js')).installDiagnose },
  { commands: ['atlas'], load: async () => (await import('./atlas.js')).installAtlas },
  { commands: ['bell'], load: async () => (await import('./bell.js')).installBell },
  { commands: ['tiles', 'describe', 'terrain'], load: async () => (await import('./terrain-commands.js')).installTerrainCommands },
  { commands: ['regress'], load: async () => (await import('./regress.js')).installRegress },
  { commands: ['init'], load: async () => (await import('./init.js')).installInit },
  { commands: ['coverage', 'sweep', 'sweep-batch'], load: async () => (await import('./sweep.js')).installSweep },
];

/** The command an argument list asks for: the first word that is not a root option (--config takes a value). */
export function requestedCommand(argv: readonly string[]): string | null {
  for (let k = 0; k < argv.length; k++) {
    const a = argv[k];
    if (a === '--config') k++;
    else if (!a.startsWith('-')) return a;
  }
  return null;
}

/** The commands the program itself installs (main.ts); each loads its implementation in its action. */
export const BUILT_IN_COMMANDS: readonly string[] = ['info', 'convert'];

/**
 * Does `argv`, which names no command, ask for the version? The root's -V/--version answers as soon as commander parses
 * it, whatever else is given (`--help` too), so no group is needed. A --config value or an argument after `--` is not
 * the option.
 */
function asksForVersion(argv: readonly string[]): boolean {
  for (let k = 0; k < argv.length; k++) {
    const a = argv[k];
    if (a === '--') return false;
    if (a === '--config') k++;
    else if (a === '-V' || a === '--version') return true;
  }
  return false;
}

/**
 * The groups to install for `argv`: none for a built-in command or a version request, the one owning its command, else
 * all of them (help, unknown or no command).
 */
export function groupsFor(argv: readonly string[]): readonly CommandGroup[] {
  const name = requestedCommand(argv);
  if (name !== null && BUILT_IN_COMMANDS.includes(name)) return [];
  if (name === null && asksForVersion(argv)) return [];
  const owner = name === null ? undefined : COMMAND_GROUPS.find((g) => g.commands.includes(name));
  return owner ? [owner] : COMMAND_GROUPS;
}
