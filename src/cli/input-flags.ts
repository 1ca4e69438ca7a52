/**
 * The flags every command that reads heightfield files shares (info, compare, diagnose, convert, import): raw sizes and
 * byte order, the conventions of a file without sidecar (src/io/input-conventions.ts), and the subresource of a
 * container that holds several (DDS level/slice, a DDS/EXR channel, a TIFF band).
 */
import { InvalidArgumentError, Option, type Command } from 'commander';
import { parseRowDirection, type RowDirection } from '../core/grid.js';
import { MissingConventionsError, SIDE_CONVENTION_FLAGS, type ConventionSources, type SideConvention } from '../io/input-conventions.js';
import { readHeightfieldFileAhead, readHeightfieldFileAsync, sideNamed, type LoadedHeightfield, type ReadSettings } from '../io/heightfield-file.js';
import { UsageError } from '../errors.js';
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

/** --row-direction: a canonical name or an alias (north-up, south-up), as commander's argument error otherwise. */
function cliRowDirection(v: string): RowDirection {
  try {
    return parseRowDirection(v);
  } catch (e) {
    throw new InvalidArgumentError(e instanceof Error ? e.message : String(e));
  }
}

/** Adds the shared input flags; `what` names the inputs in the help ("inputs", "the input"). */
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

/** The per-side convention flags of a two-file command (commander's camel-case names). */
export interface SideFlags {
  generatedExtent?: InputFlags['extent'];
  generatedRowDirection?: InputFlags['rowDirection'];
  generatedRange?: InputFlags['range'];
  generatedEncoding?: InputFlags['encoding'];
  referenceExtent?: InputFlags['extent'];
  referenceRowDirection?: InputFlags['rowDirection'];
  referenceRange?: InputFlags['range'];
  referenceEncoding?: InputFlags['encoding'];
}

/**
 * Adds the per-side form of every convention flag to a two-file command: `--generated-extent`,
 * `--reference-row-direction`, … (one scheme for compare and diagnose). [R] A shared flag (`--extent`) applies to both
 * sides and is refused, naming both values, where it contradicts what a side's file carries; a per-side flag describes
 * that side alone and may override a container's default.
 */
export function addSideFlags(cmd: Command): Command {
  for (const [side, what] of [
    ['generated', 'the generated side'],
    ['reference', 'the reference'],
  ] as const) {
    cmd
      .option(`--${side}-extent <XMIN,YMIN,SIZE>`, `world extent of ${what} only, metres`, parseExtent)
      .addOption(
        new Option(`--${side}-row-direction <dir>`, `world y of row 0 of ${what} only (row0-at-ymin | row0-at-ymax, or north-up | south-up)`).argParser(
          (v: string) => cliRowDirection(v),
        ),
      )
      .option(`--${side}-range <MIN,MAX>`, `integer samples of ${what} only are UNORM16 codes of this height range, metres`, parseRange)
      .addOption(new Option(`--${side}-encoding <kind>`, `what integer samples of ${what} only mean`).choices(['metres', 'unorm16']));
  }
  return cmd;
}

const SIDE_KEYS = {
  generated: { extent: 'generatedExtent', rowDirection: 'generatedRowDirection', range: 'generatedRange', encoding: 'generatedEncoding' },
  reference: { extent: 'referenceExtent', rowDirection: 'referenceRowDirection', range: 'referenceRange', encoding: 'referenceEncoding' },
} as const;

function shown(v: unknown): string {
  if (typeof v === 'string') return v;
  const o = v as Record<string, number>;
  return 'xmin' in o ? `${o.xmin},${o.ymin},${o.sizeX},${o.sizeY}` : `${o.min},${o.max}`;
}

/**
 * The read settings of each side of a two-file command: a per-side flag for that side, else the shared flag (noted as
 * shared, so a contradiction with the side's file is refused naming both). `perSide`: whether any per-side flag was
 * given (the sides' settings then differ).
 */
export function sideSettings(o: InputFlags & SideFlags, require: boolean): { generated: ReadSettings; reference: ReadSettings; perSide: boolean } {
  const base = readSettingsFrom(o, require);
  let perSide = false;
  const one = (key: 'generated' | 'reference', label: string): ReadSettings => {
    const shared: SideConvention[] = [];
    const s: ReadSettings = { ...base };
    for (const c of ['extent', 'rowDirection', 'range', 'encoding'] as const) {
      const own = o[SIDE_KEYS[key][c]];
      const both = base[c];
      if (own !== undefined) {
        perSide = true;
        if (both !== undefined && shown(both) !== shown(own))
          throw new UsageError(
            `--${SIDE_CONVENTION_FLAGS[c]} ${shown(both)} and --${key}-${SIDE_CONVENTION_FLAGS[c]} ${shown(own)} disagree for the ${label}: give one`,
          );
        (s as Record<string, unknown>)[c] = own;
      } else if (both !== undefined) shared.push(c);
    }
    s.side = { label, prefix: `--${key}-`, shared };
    return s;
  };
  const generated = one('generated', 'generated side');
  const reference = one('reference', 'reference');
  return { generated, reference, perSide };
}

/**
 * Reads both sides of a two-file command, each with its own settings. [R] A side lacking
 * conventions does not stop the other from being read: the refusal names every side that lacks them.
 */
export async function readSides(
  generated: string,
  reference: string,
  s: { generated: ReadSettings; reference: ReadSettings },
): Promise<{ generated: LoadedHeightfield; reference: LoadedHeightfield }> {
  // Both read at once; the outcome is the one-by-one reading's: the reference's refusal first, then the generated
  // side's, and the missing conventions of both, the generated side's named first. [R] A sidecar-described R16 or R32
  // side is read and hashed by a worker thread while this one reads the other side (the reference when both are).
  const refAhead = readHeightfieldFileAhead(reference, s.reference);
  const genAhead = refAhead ? null : readHeightfieldFileAhead(generated, s.generated);
  const [ref, gen] = await Promise.allSettled([
    refAhead ? refAhead.finish() : readHeightfieldFileAsync(reference, s.reference),
    genAhead ? genAhead.finish() : readHeightfieldFileAsync(generated, s.generated),
  ]);
  const missing = [gen, ref].flatMap((r) => (r.status === 'rejected' && r.reason instanceof MissingConventionsError ? [r.reason.message as string] : []));
  if (ref.status === 'rejected' && !(ref.reason instanceof MissingConventionsError)) throw sideNamed('reference', reference, ref.reason);
  if (gen.status === 'rejected' && !(gen.reason instanceof MissingConventionsError)) throw sideNamed('generated side', generated, gen.reason);
  if (ref.status === 'rejected' || gen.status === 'rejected') throw new MissingConventionsError(missing.join('\n  and '));
  return { generated: gen.value, reference: ref.value };
}
