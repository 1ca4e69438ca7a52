/**
 * The flags every command that reads heightfield files shares (info, compare, diagnose, convert, import): raw sizes and
 * byte order, the conventions of a file without sidecar (src/io/input-conventions.ts), and the subresource of a
 * container that holds several (DDS level/slice, a DDS/EXR channel, a TIFF band).
 */
import { lstatSync } from 'node:fs';
import { InvalidArgumentError, Option, type Command } from 'commander';
import { sidecarPathFor } from '../io/sidecar.js';
import { parseRowDirection, type RowDirection } from '../core/grid.js';
import type { ConventionSources } from '../io/input-conventions.js';
import type { ReadSettings } from '../io/heightfield-file.js';
import { parseEndian, parseExtent, parseRange, parseSize } from './args.js';

export interface InputFlags {
  size?: { width: number; height: number };
  endian?: 'le' | 'be';
  range?: { min: number; max: number };
  extent?: { xmin: number; ymin: number; sizeX: number; sizeY: number };
  rowDirection?: 'row0-at-ymin' | 'row0-at-ymax';
  encoding?: 'metres' | 'unorm16';
  assumeDefaults?: boolean;
  channel?: string;
  level?: number;
  slice?: number;
}

function parseIndex(v: string): number {
  const t = v.trim();
  const n = /^\d+$/.test(t) ? Number(t) : NaN;
  if (!Number.isSafeInteger(n) || n > 1 << 16) throw new InvalidArgumentError(`expected an index 0…65536, got ${JSON.stringify(v)}`);
  return n;
}

function parseChannel(v: string): string {
  if (!/^[A-Za-z0-9_.-]{1,64}$/.test(v))
    throw new InvalidArgumentError(`expected a channel name (R, G, B, A, an EXR channel, a TIFF band number), got ${JSON.stringify(v)}`);
  return v;
}

/** Adds the shared input flags; `what` names the inputs in the help ("inputs", "the input"). */
/** --row-direction: a canonical name or an alias (north-up, south-up), as commander's argument error otherwise. */
function cliRowDirection(v: string): RowDirection {
  try {
    return parseRowDirection(v);
  } catch (e) {
    throw new InvalidArgumentError(e instanceof Error ? e.message : String(e));
  }
}

export function addInputFlags(cmd: Command, what = 'inputs'): Command {
  return cmd
    .option('--size <WxH>', `size of raw ${what} without sidecar`, parseSize)
    .addOption(new Option('--endian <le|be>', `byte order of raw ${what} without sidecar`).argParser(parseEndian))
    .option(
      '--extent <XMIN,YMIN,SIZE>',
      `world extent of ${what} without sidecar or georeferencing, metres (XMIN,YMIN,SIZE or XMIN,YMIN,SIZEX,SIZEY)`,
      parseExtent,
    )
    .addOption(
      new Option(
        '--row-direction <dir>',
        `world y of row 0 for ${what} without sidecar or georeferencing: row0-at-ymin | row0-at-ymax (aliases: north-up = row0-at-ymax, south-up = row0-at-ymin)`,
      ).argParser((v: string) => cliRowDirection(v)),
    )
    .option('--range <MIN,MAX>', `integer samples of ${what} without sidecar are UNORM16 codes of this height range, metres`, parseRange)
    .addOption(
      new Option('--encoding <kind>', `integer samples of ${what} without sidecar are heights in metres (as a DEM stores them)`).choices(['metres', 'unorm16']),
    )
    .option('--assume-defaults', "take heightbench's stated defaults for conventions a file without sidecar does not carry")
    .option('--channel <name>', 'channel of a multi-channel DDS (R|G|B|A) or EXR (default Y, else R), band of a TIFF (1-based)', parseChannel)
    .option('--level <n>', 'DDS mip level (default 0)', parseIndex)
    .option('--slice <n>', 'DDS array slice (default 0)', parseIndex);
}

/** Read settings from the shared flags; `require` for commands that compare (conventions must be stated). */
export function readSettingsFrom(o: InputFlags, require: boolean): ReadSettings {
  return {
    size: o.size,
    endian: o.endian,
    range: o.range,
    extent: o.extent,
    rowDirection: o.rowDirection,
    encoding: o.encoding,
    assumeDefaults: o.assumeDefaults,
    requireConventions: require,
    channel: o.channel,
    level: o.level,
    slice: o.slice,
  };
}

/** One line per side for stderr when a side took heightbench's defaults (said, never silent). */
export function defaultsWarning(label: string, path: string, c: ConventionSources): string | null {
  const taken = c.notes.filter((n) => n.includes("heightbench's default"));
  const why = c.notes[0]?.startsWith('conventions from the sidecar') ? 'its sidecar records conventions that were defaults' : 'no sidecar';
  return taken.length ? `heightbench: ${label} ${path}: ${why}; took ${taken.join('; ')}\n` : null;
}

/** Says on stderr, per side of a two-file command, which of heightbench's defaults a file without sidecar took. */
export function warnDefaults(io: { err(text: string): void }, sides: readonly (readonly [string, string, ConventionSources])[]): void {
  for (const [label, path, c] of sides) {
    const w = defaultsWarning(label, path, c);
    if (w) io.err(w);
  }
}

/** Markdown lines naming each side's conventions and where they came from. */
export function conventionLines(sides: readonly { label: string; conventions: ConventionSources }[]): string[] {
  return sides.map(
    (s) =>
      `Conventions of the ${s.label}: extent from ${s.conventions.extent}, row direction from ${s.conventions.rowDirection}, encoding from ${s.conventions.encoding} — ${s.conventions.notes.join('; ')}.`,
  );
}

/**
 * [R] Settings per input of a two-file command. The convention flags (extent, row direction, range, encoding) describe
 * the inputs that have no sidecar; an input with a sidecar keeps the sidecar's conventions and the flags are not
 * applied to it — unless every input has a sidecar, when the flags can only be meant for them and must agree (as a
 * flag beside any file carrying the same convention must).
 */
export function settingsPerInput(paths: readonly string[], settings: ReadSettings): ReadSettings[] {
  const has = paths.map((p) => sidecarPresent(p));
  if (has.every(Boolean) || !has.some(Boolean)) return paths.map(() => settings);
  const stripped: ReadSettings = { ...settings, extent: undefined, rowDirection: undefined, range: undefined, encoding: undefined };
  return has.map((h) => (h ? stripped : settings));
}

/** Whether `<path>.json` exists as a directory entry (a dangling link counts: the reader then refuses it). */
function sidecarPresent(path: string): boolean {
  try {
    lstatSync(sidecarPathFor(path));
    return true;
  } catch {
    return false;
  }
}
