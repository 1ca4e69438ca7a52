/**
 * The `heightbench` command line. Exit codes (src/errors.ts): 0 success; 2 the user's input, usage or environment
 * (one-line reason on stderr, file-system failures name the path and the cause); 3 a gate failed; 1 internal failure
 * (a bug, printed with its stack). `runCli` is the whole program, callable in-process by tests.
 */
import { Command, CommanderError, Option } from 'commander';
import { EXIT_INPUT, EXIT_INTERNAL, inputErrorMessage, isInputError } from '../errors.js';
import { PRODUCER_VERSION } from '../version.js';
import { parseEndian, parseExtent, parseGridConvention, parsePath, parseRange, parseSize } from './args.js';
import { CliExit, processIO, type CliIO, type CommandInstaller } from './io.js';
import { groupsFor } from './commands.js';
import { setConfigDir } from '../pipeline/request.js';
import { terminalText } from '../core/text.js';

/**
 * The program with info, convert and the given command groups. Command modules load on use (commands.ts): info and
 * convert import their implementation inside the action, the other groups are passed in already loaded.
 */
function buildProgram(io: CliIO, installers: readonly CommandInstaller[]): Command {
  const program = new Command('heightbench')
    .description('Procedural terrain heightmap workbench: pipeline stages, comparison, interchange formats.')
    .version(PRODUCER_VERSION)
    .exitOverride()
    .configureOutput({ writeOut: io.out, writeErr: io.err, outputError: (s, write) => write(s) })
    .option(
      '--config <dir>',
      "folder holding the worlds/ and requests/ (default: $HEIGHTBENCH_ROOT/config, else the nearest config/ above the working directory, else the installed package's)",
    )
    .hook('preAction', (root) => setConfigDir((root.opts() as { config?: string }).config ?? null));

  program
    .command('info')
    .description('describe a heightfield file (.r16, .png, .r32) and its sidecar')
    .argument('<file>', 'heightfield file', parsePath)
    .option('--json', 'print JSON')
    .option('--size <WxH>', 'size of a raw file without sidecar', parseSize)
    .addOption(new Option('--endian <le|be>', 'byte order of a raw .r16 without sidecar').argParser(parseEndian))
    .option('--range <MIN,MAX>', 'height range of a 16-bit file without sidecar, metres', parseRange)
    .action(async (file: string, opts) => {
      const { infoCommand } = await import('./info.js');
      throw new CliExit(infoCommand(file, opts, io));
    });

  program
    .command('convert')
    .description('convert between .r16, .png (16-bit grey) and .r32, optionally resampling through world coordinates')
    .argument('<in>', 'input heightfield file', parsePath)
    .argument('<out>', 'output heightfield file', parsePath)
    .option('--size <WxH>', 'size of a raw input without sidecar, and of a raw output', parseSize)
    .addOption(new Option('--endian <le|be>', 'byte order of a raw input without sidecar, and of a raw .r16 output').argParser(parseEndian))
    .option('--range <MIN,MAX>', 'height range of a 16-bit input without sidecar, and of the output encoding', parseRange)
    .addOption(new Option('--grid <texel|vertex>', 'sample convention of the output').argParser(parseGridConvention))
    .option('--resample <N>', 'output samples per axis (N or WxH), resampled through world coordinates', parseSize)
    .option('--extent <XMIN,YMIN,SIZE>', 'world extent of an input without sidecar, metres', parseExtent)
    .addOption(new Option('--row-direction <dir>', 'row order of an input without sidecar').choices(['row0-at-ymin', 'row0-at-ymax']))
    .option('--interlace', 'write PNG output with Adam7 interlacing')
    .action(async (input: string, output: string, opts) => {
      const { convertCommand } = await import('./convert.js');
      throw new CliExit(convertCommand(input, output, opts, io));
    });

  for (const install of installers) install(program, io);
  return program;
}

function oneLine(s: string): string {
  return s.replace(/\s*\n\s*/g, ' ').trim();
}

export async function runCli(argv: readonly string[], io: CliIO = processIO): Promise<number> {
  try {
    const installers = await Promise.all(groupsFor(argv).map((g) => g.load()));
    const program = buildProgram(io, installers);
    await program.parseAsync([...argv], { from: 'user' });
    return 0;
  } catch (e) {
    if (e instanceof CliExit) return e.code;
    if (e instanceof CommanderError) {
      // Help and version requests end with code 0; every other commander error is a usage error.
      if (e.code === 'commander.helpDisplayed' || e.code === 'commander.version' || e.code === 'commander.help') return 0;
      return EXIT_INPUT;
    }
    if (isInputError(e)) {
      io.err(`heightbench: ${terminalText(oneLine(inputErrorMessage(e)))}\n`);
      return EXIT_INPUT;
    }
    io.err(`heightbench: internal error: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}\n`);
    return EXIT_INTERNAL;
  }
}
