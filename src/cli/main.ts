/**
 * The `heightbench` command line. Exit codes (src/errors.ts): 0 success; 2 the user's input, usage or environment
 * (one-line reason on stderr, file-system failures name the path and the cause); 3 a gate failed; 1 internal failure
 * (a bug, printed with its stack). `runCli` is the whole program, callable in-process by tests.
 */
import { resolve } from 'node:path';
import { Command, CommanderError, Option } from 'commander';
import { EXIT_INPUT, EXIT_INTERNAL, inputErrorMessage, isInputError } from '../errors.js';
import { PRODUCER_VERSION } from '../version.js';
import { parseGridConvention, parsePath, parseSize } from './args.js';
import { addInputFlags } from './input-flags.js';
import { CliExit, processIO, type CliIO, type CommandInstaller } from './io.js';
import { COMMAND_GROUPS, groupsFor, requestedCommand } from './commands.js';
import { resolveConfigDir } from '../project/paths.js';
import { refuseFolders } from './wrong-kind.js';
import { terminalText } from '../core/text.js';

/**
 * The program with info, convert and the given command groups. Command modules load on use (commands.ts): info and
 * convert import their implementation inside the action, the other groups are passed in already loaded.
 */
function buildProgram(io: CliIO, installers: readonly CommandInstaller[], context: { configDir?: string; configRoot?: string }): Command {
  const program = new Command('heightbench')
    .description('Procedural terrain heightmap workbench: pipeline stages, comparison, interchange formats.')
    .version(PRODUCER_VERSION)
    .exitOverride()
    // Suggestions are runCli's (nearestOption): commander's reach three edits only, and pick --strict for --attrib.
    .showSuggestionAfterError(false)
    .configureOutput({ writeOut: io.out, writeErr: io.err, outputError: (s, write) => write(s) })
    .option(
      '--config <dir>',
      "folder holding the worlds/ and requests/ (default: $HEIGHTBENCH_ROOT/config, else the nearest config/ above the working directory, else the installed package's)",
    )
    .hook('preAction', (root) => {
      const dir = (root.opts() as { config?: string }).config;
      if (dir !== undefined) {
        context.configDir = resolveConfigDir(dir);
        context.configRoot = resolve(dir);
      }
    });

  addInputFlags(
    program
      .command('info')
      .description('describe a heightfield file (.r16, .png, .r32, .dds, .exr, .tif, .npy), its sidecar and where each convention came from')
      .argument('<file>', 'heightfield file', parsePath)
      .option('--json', 'print JSON'),
    'a file',
  ).action(async (file: string, opts) => {
    refuseFolders('info', [file]);
    const { infoCommand } = await import('./info.js');
    throw new CliExit(await infoCommand(file, opts, io));
  });

  addInputFlags(
    program
      .command('convert')
      .description(
        'convert between .r16, .png (16-bit grey), .r32, .tif (GeoTIFF) and .npy (reading .dds and .exr too), optionally resampling through world coordinates',
      )
      .argument('<in>', 'input heightfield file', parsePath)
      .argument('<out>', 'output heightfield file', parsePath)
      .addOption(new Option('--grid <texel|vertex>', 'sample convention of the output').argParser(parseGridConvention))
      .option('--resample <N>', 'output samples per axis (N or WxH), resampled through world coordinates', parseSize)
      .option('--interlace', 'write PNG output with Adam7 interlacing'),
    'the input (and the raw output: --size, --endian; the output encoding: --range)',
  ).action(async (input: string, output: string, opts) => {
    const { convertCommand } = await import('./convert.js');
    throw new CliExit(await convertCommand(input, output, opts, io));
  });

  for (const install of installers) install(program, io);
  return program;
}

function oneLine(s: string): string {
  return s.replace(/\s*\n\s*/g, ' ').trim();
}

/** Edit distance (insertions, deletions, substitutions) between two short strings. */
function distance(a: string, b: string): number {
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const cur = [i];
    for (let j = 1; j <= b.length; j++) cur[j] = Math.min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1));
    prev = cur;
  }
  return prev[b.length];
}

/**
 * [R] The known option nearest an unknown one, for the command it was given to: the only option it begins (a
 * shortened flag), else the nearest by edit distance within half its length. Commander suggests only within three
 * edits, so `--row-dir` got no suggestion.
 */
export function nearestOption(program: Command, argv: readonly string[], unknown: string): string | null {
  const name = requestedCommand(argv);
  const cmd = program.commands.find((c) => c.name() === name) ?? program;
  const longs = [...cmd.options, ...program.options].map((o) => o.long).filter((l): l is string => !!l);
  const flag = unknown.split('=')[0];
  const prefixed = longs.filter((l) => l.startsWith(flag)).sort((a, b) => a.length - b.length);
  if (prefixed.length) return prefixed[0];
  return nearest(flag, longs);
}

/** The candidate nearest `word` by edit distance, within half its length (at least three edits), or null. */
function nearest(word: string, candidates: readonly string[]): string | null {
  const flag = word;
  const longs = candidates;
  let best: string | null = null;
  let bestD = Infinity;
  for (const l of longs) {
    const d = distance(flag, l);
    if (d < bestD) [best, bestD] = [l, d];
  }
  return best !== null && bestD <= Math.max(3, Math.floor(best.length / 2)) ? best : null;
}

export async function runCli(argv: readonly string[], io: CliIO = processIO): Promise<number> {
  let built: Command | null = null;
  try {
    const installers = await Promise.all(groupsFor(argv).map((g) => g.load()));
    // The invocation's configuration: --config, resolved once before the command's action and handed to every command
    // through its io — no module-level state, so two invocations in one process never see each other's.
    const context: { configDir?: string; configRoot?: string } = {};
    const cio: CliIO = {
      out: (t) => io.out(t),
      err: (t) => io.err(t),
      config: context,
      ...(io.readHeightfield ? { readHeightfield: io.readHeightfield } : {}),
    };
    const program = buildProgram(cio, installers, context);
    built = program;
    await program.parseAsync([...argv], { from: 'user' });
    return 0;
  } catch (e) {
    if (e instanceof CliExit) return e.code;
    if (e instanceof CommanderError) {
      // Help and version requests end with code 0; every other commander error is a usage error.
      if (e.code === 'commander.helpDisplayed' || e.code === 'commander.version' || e.code === 'commander.help') return 0;
      const given = /'([^']+)'/.exec(e.message)?.[1];
      if (built && given !== undefined) {
        const near =
          e.code === 'commander.unknownOption'
            ? nearestOption(built, argv, given)
            : e.code === 'commander.unknownCommand'
              ? nearest(
                  given,
                  built.commands.map((c) => c.name()),
                )
              : null;
        if (near) io.err(`(Did you mean ${near}?)\n`);
      }
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

/** The whole parser, every command group installed and nothing run: what scripts/cli-reference.mjs writes docs/cli.md from. */
export async function cliProgram(): Promise<Command> {
  const installers = await Promise.all(COMMAND_GROUPS.map((g) => g.load()));
  const context: { configDir?: string; configRoot?: string } = {};
  return buildProgram({ out: () => undefined, err: () => undefined, config: context }, installers, context);
}
