/**
 * The conventions of an input file that has no heightbench sidecar: where each one comes from, and the refusal when a
 * comparison would otherwise rest on a guess.
 *
 * Inputs: what the file itself carries (GeoTIFF georeferencing, a format that says its samples are UNORM16 codes, a
 * container's documented row order), the flags the user gave, and whether the command requires stated conventions.
 * Output: the grid, the encoding, and per convention its origin — 'file', 'container' (a container's default, stated
 * with its reason), 'flag', or 'default' (heightbench's own defaults, taken only when allowed).
 * Rules [R] (the article: "Delivery must include world extent, resolution, coordinate direction, and decoding
 * conventions alongside pixels. … Without those conventions, a pixel file cannot identify where a world position should
 * sample or how many meters it should return."):
 *  - a convention the file carries wins; a flag given beside it must agree (refused naming both values);
 *  - a container default (row order of frame captures) may be overridden by a flag;
 *  - a convention neither carried nor given is taken from heightbench's defaults only when the command does not
 *    require stated conventions (info, convert) or the user said --assume-defaults; compare, check and diagnose refuse,
 *    naming what is missing and the flags that give it.
 */
import {
  DEFAULT_RANGE,
  DOMAIN_SIZE,
  DOMAIN_XMIN,
  extentsAgree,
  type GridDescription,
  type HeightRange,
  type RowDirection,
  type SampleConvention,
} from '../core/grid.js';
import { basename } from 'node:path';
import { MismatchError, UsageError } from '../errors.js';
import type { Sidecar } from './sidecar.js';

/** Where a convention came from. */
export type ConventionOrigin = 'sidecar' | 'file' | 'container' | 'flag' | 'default';

export interface ConventionSources {
  readonly extent: ConventionOrigin;
  readonly rowDirection: ConventionOrigin;
  /** What the samples mean: UNORM16 codes of a range, heights in metres (integers or floats). */
  readonly encoding: ConventionOrigin;
  /** One line per convention saying what it is and why (for reports and --json). */
  readonly notes: readonly string[];
}

/** How samples map to heights. */
export type SampleEncoding = { readonly kind: 'unorm16'; readonly range: HeightRange } | { readonly kind: 'metres' };

export interface Extent {
  readonly xmin: number;
  readonly ymin: number;
  readonly sizeX: number;
  readonly sizeY: number;
}

/** What a file carries about its own grid and samples, besides a sidecar. */
export interface FileConventions {
  readonly extent?: { readonly value: Extent; readonly why: string };
  readonly rowDirection?: { readonly value: RowDirection; readonly origin: 'file' | 'container'; readonly why: string };
  /** Set when the format itself says what integer samples mean (DDS R16_UNORM: codes; int16 DEM: metres). */
  readonly encoding?: { readonly kind: 'unorm16' | 'metres'; readonly why: string };
  readonly convention?: SampleConvention;
}

/** The convention flags of the read settings (src/io/heightfield-types.ts ReadSettings). */
export interface ConventionFlags {
  extent?: Extent;
  rowDirection?: RowDirection;
  convention?: SampleConvention;
  range?: HeightRange;
  /** `--encoding metres`: integer samples are heights in metres (as a DEM stores them), not UNORM16 codes. */
  encoding?: 'metres' | 'unorm16';
  /** Compare, check and diagnose: refuse a convention that would come from heightbench's defaults. */
  requireConventions?: boolean;
  /** `--assume-defaults`: the user says heightbench's stated defaults are meant. */
  assumeDefaults?: boolean;
  /**
   * A two-file command's side: its name in refusals ("reference") and its per-side flag prefix ("--reference-"), and
   * the conventions given by a flag shared by both sides. [R] A shared flag that contradicts what this side's file
   * carries — its own conventions, or a container's default — is refused naming both; a per-side flag may override a
   * container's default.
   */
  side?: { readonly label: string; readonly prefix: string; readonly shared: readonly SideConvention[] };
}

/** The conventions a two-file command takes per side (`--reference-extent`, `--generated-row-direction`, …). */
export type SideConvention = 'extent' | 'rowDirection' | 'range' | 'encoding';
export const SIDE_CONVENTION_FLAGS: Readonly<Record<SideConvention, string>> = Object.freeze({
  extent: 'extent',
  rowDirection: 'row-direction',
  range: 'range',
  encoding: 'encoding',
});

/** The flag that gave convention `c` to this side, as a refusal names it. */
export function flagName(flags: ConventionFlags, c: SideConvention): string {
  const side = flags.side;
  return !side || side.shared.includes(c) ? `--${SIDE_CONVENTION_FLAGS[c]}` : `${side.prefix}${SIDE_CONVENTION_FLAGS[c]}`;
}

/** "--extent 0,0,10,10": the flag that gave convention `c`, and its value. */
function given(flags: ConventionFlags, c: SideConvention, value: string): string {
  return `${flagName(flags, c)} ${value}`;
}

/** A flag contradicting a side's file, refused naming both values; a shared flag's refusal says how to give one side's. */
function contradiction(flags: ConventionFlags, c: SideConvention, message: string): MismatchError {
  const f = SIDE_CONVENTION_FLAGS[c];
  const hint = flags.side?.shared.includes(c) ? ` — --${f} was given for both sides; --generated-${f} or --reference-${f} describes one side alone` : '';
  return new MismatchError(`${message}${hint}`);
}

/** The flag that would give a missing convention (the shared one; the refusal adds this side's own). */
function giveFlag(_flags: ConventionFlags, c: SideConvention, value: string): string {
  return `--${SIDE_CONVENTION_FLAGS[c]} ${value}`;
}

/** A file that lacks conventions a command requires (a UsageError: exit 2); two-file commands gather every side's. */
export class MissingConventionsError extends UsageError {
  override readonly name: string = 'MissingConventionsError';
}

export interface ResolvedConventions {
  readonly grid: GridDescription;
  /** For integer samples: codes of a range, or metres. Float samples are always metres. */
  readonly encoding: SampleEncoding;
  readonly sources: ConventionSources;
}

/** heightbench's defaults for a file that states nothing, as the refusal and the notes name them. */
export const INPUT_DEFAULTS = Object.freeze({
  extent: Object.freeze({ xmin: DOMAIN_XMIN, ymin: DOMAIN_XMIN, sizeX: DOMAIN_SIZE, sizeY: DOMAIN_SIZE }),
  rowDirection: 'row0-at-ymin' as RowDirection,
  convention: 'texel-centre' as SampleConvention,
  range: DEFAULT_RANGE,
});

function extentText(e: Extent): string {
  return `${e.xmin},${e.ymin},${e.sizeX},${e.sizeY}`;
}

/** Whether two statements of an extent agree (core/grid.ts extentsAgree: within rounding, far below a texel). */
export function sameExtent(a: Extent, b: Extent): boolean {
  return extentsAgree(a, b);
}

/**
 * Resolves the grid and encoding of a file without sidecar (see the header for the rules). `samples` says whether
 * the stored samples are integers (whose meaning must be stated) or floats (heights in metres).
 */
export function resolveInputConventions(
  path: string,
  width: number,
  height: number,
  samples: 'integer' | 'float',
  file: FileConventions,
  flags: ConventionFlags,
): ResolvedConventions {
  const notes: string[] = [];
  const missing: string[] = [];
  const allowDefaults = !flags.requireConventions || flags.assumeDefaults === true;

  let extent: Extent;
  let extentOrigin: ConventionOrigin;
  if (file.extent) {
    if (flags.extent && !sameExtent(flags.extent, file.extent.value)) {
      throw contradiction(
        flags,
        'extent',
        `${path}: ${given(flags, 'extent', extentText(flags.extent))} contradicts the file's ${extentText(file.extent.value)} (${file.extent.why})`,
      );
    }
    extent = file.extent.value;
    extentOrigin = 'file';
    notes.push(`extent ${extentText(extent)} from the file (${file.extent.why})`);
  } else if (flags.extent) {
    extent = flags.extent;
    extentOrigin = 'flag';
    notes.push(`extent ${extentText(extent)} from ${flagName(flags, 'extent')}`);
  } else {
    extent = INPUT_DEFAULTS.extent;
    extentOrigin = 'default';
    missing.push(`its extent (${giveFlag(flags, 'extent', 'XMIN,YMIN,SIZE[,SIZEY]')})`);
    notes.push(`extent ${extentText(extent)}: heightbench's default (the file carries none)`);
  }

  let rowDirection: RowDirection;
  let rowOrigin: ConventionOrigin;
  const carried = file.rowDirection;
  if (carried && carried.origin === 'file') {
    if (flags.rowDirection && flags.rowDirection !== carried.value) {
      throw contradiction(
        flags,
        'rowDirection',
        `${path}: ${given(flags, 'rowDirection', flags.rowDirection)} contradicts the file's ${carried.value} (${carried.why})`,
      );
    }
    rowDirection = carried.value;
    rowOrigin = 'file';
    notes.push(`row direction ${rowDirection} from the file (${carried.why})`);
  } else if (flags.rowDirection) {
    if (carried && carried.value !== flags.rowDirection && flags.side?.shared.includes('rowDirection'))
      throw new MismatchError(
        `${path}: --row-direction ${flags.rowDirection} was given for both sides, but the ${flags.side.label} carries ${carried.value} (${carried.why}); give ${flags.side.prefix}row-direction to override it for this side alone, or the other side's own flag`,
      );
    rowDirection = flags.rowDirection;
    rowOrigin = 'flag';
    notes.push(`row direction ${rowDirection} from ${flagName(flags, 'rowDirection')}${carried ? ` (over the container's default ${carried.value})` : ''}`);
  } else if (carried) {
    rowDirection = carried.value;
    rowOrigin = 'container';
    notes.push(`row direction ${rowDirection}: the container's default [R] (${carried.why})`);
  } else {
    rowDirection = INPUT_DEFAULTS.rowDirection;
    rowOrigin = 'default';
    missing.push(`its row direction (${giveFlag(flags, 'rowDirection', 'row0-at-ymin|row0-at-ymax')})`);
    notes.push(`row direction ${rowDirection}: heightbench's default (the file carries none)`);
  }

  let encoding: SampleEncoding;
  let encodingOrigin: ConventionOrigin;
  if (flags.encoding === 'metres' && flags.range && samples === 'integer' && !file.encoding) {
    throw new UsageError(
      `${path}: --encoding metres and --range ${flags.range.min},${flags.range.max} contradict each other (a range describes UNORM16 codes)`,
    );
  }
  if (samples === 'float') {
    if (flags.encoding === 'unorm16')
      throw contradiction(flags, 'encoding', `${path}: ${given(flags, 'encoding', 'unorm16')} given for a file of float samples (heights in metres)`);
    encoding = { kind: 'metres' };
    encodingOrigin = 'file';
    notes.push(
      `float samples: heights in metres${flags.range ? '; --range is no property of these samples (compare encodes heights through it to compare codes)' : ''}`,
    );
  } else if (file.encoding) {
    if (flags.encoding && flags.encoding !== file.encoding.kind) {
      throw contradiction(
        flags,
        'encoding',
        `${path}: ${given(flags, 'encoding', flags.encoding)} contradicts the file, whose samples are ${file.encoding.kind === 'metres' ? 'heights in metres' : 'UNORM16 codes'} (${file.encoding.why})`,
      );
    }
    if (file.encoding.kind === 'metres') {
      encoding = { kind: 'metres' };
      encodingOrigin = 'file';
      notes.push(
        `samples are heights in metres (${file.encoding.why})${flags.range ? '; --range is no property of these samples (compare encodes heights through it to compare codes)' : ''}`,
      );
    } else if (flags.range) {
      encoding = { kind: 'unorm16', range: flags.range };
      encodingOrigin = 'flag';
      notes.push(`UNORM16 codes (${file.encoding.why}) of range ${flags.range.min},${flags.range.max} from ${flagName(flags, 'range')}`);
    } else {
      encoding = { kind: 'unorm16', range: INPUT_DEFAULTS.range };
      encodingOrigin = 'default';
      missing.push(`the height range of its UNORM16 codes (${giveFlag(flags, 'range', 'MIN,MAX')})`);
      notes.push(`UNORM16 codes (${file.encoding.why}) of range ${INPUT_DEFAULTS.range.min},${INPUT_DEFAULTS.range.max}: heightbench's default`);
    }
  } else if (flags.encoding === 'metres') {
    encoding = { kind: 'metres' };
    encodingOrigin = 'flag';
    notes.push(`integer samples are heights in metres (${flagName(flags, 'encoding')} metres)`);
  } else if (flags.range) {
    encoding = { kind: 'unorm16', range: flags.range };
    encodingOrigin = 'flag';
    notes.push(`integer samples are UNORM16 codes of range ${flags.range.min},${flags.range.max} (${flagName(flags, 'range')})`);
  } else {
    encoding = { kind: 'unorm16', range: INPUT_DEFAULTS.range };
    encodingOrigin = 'default';
    missing.push(
      `what its integer samples mean (${giveFlag(flags, 'range', 'MIN,MAX')} for UNORM16 codes, or ${giveFlag(flags, 'encoding', 'metres')} for heights)`,
    );
    notes.push(`integer samples taken as UNORM16 codes of range ${INPUT_DEFAULTS.range.min},${INPUT_DEFAULTS.range.max}: heightbench's default`);
  }

  if (missing.length && !allowDefaults) {
    throw new MissingConventionsError(
      `${flags.side ? `the ${flags.side.label} ` : ''}${path}: has no sidecar and does not carry ${missing.join(', ')}; give ${missing.length > 1 ? 'them' : 'it'}${flags.side ? ` (for both sides, or ${flags.side.prefix}extent, ${flags.side.prefix}row-direction, ${flags.side.prefix}range, ${flags.side.prefix}encoding for the ${flags.side.label} alone)` : ''}, or --assume-defaults to take heightbench's stated defaults (extent ${extentText(INPUT_DEFAULTS.extent)}, ${INPUT_DEFAULTS.rowDirection}, UNORM16 range ${INPUT_DEFAULTS.range.min},${INPUT_DEFAULTS.range.max}) — conventions are asked for, never guessed`,
    );
  }
  if (missing.length) notes.push('defaults taken: ' + (flags.assumeDefaults ? '--assume-defaults' : 'this command does not require stated conventions'));

  const grid: GridDescription = {
    ...extent,
    columns: width,
    rows: height,
    convention: flags.convention ?? file.convention ?? INPUT_DEFAULTS.convention,
    rowDirection,
  };
  return { grid, encoding, sources: { extent: extentOrigin, rowDirection: rowOrigin, encoding: encodingOrigin, notes } };
}

/**
 * The key, in a sidecar's `notes`, listing the conventions that were heightbench's defaults when the file was written
 * from one that carried none (`convert` without them): [R] a default stays a default through a conversion, so the
 * written file is not compared on it unless --assume-defaults says so, as for the file it came from.
 */
export const DEFAULTS_NOTE = 'conventionsTakenAsDefaults';

type ConventionName = 'extent' | 'rowDirection' | 'encoding';
const CONVENTION_NAMES: readonly ConventionName[] = ['extent', 'rowDirection', 'encoding'];
const CONVENTION_WORDS: Readonly<Record<ConventionName, string>> = { extent: 'extent', rowDirection: 'row direction', encoding: 'encoding' };

/** The conventions of `c` that came from heightbench's defaults, for the DEFAULTS_NOTE of a file written from it. */
export function conventionsFromDefaults(c: ConventionSources): ConventionName[] {
  return CONVENTION_NAMES.filter((k) => c[k] === 'default');
}

/**
 * The sources of a file read through its heightbench sidecar: every convention from the sidecar, except those its
 * DEFAULTS_NOTE lists, which are heightbench's defaults — refused where conventions are required (compare, check,
 * diagnose, import) unless --assume-defaults is given.
 */
export function sidecarSources(sidecarPath: string, sc?: Sidecar, flags: ConventionFlags = {}): ConventionSources {
  const listed = sc?.notes?.[DEFAULTS_NOTE];
  // A flag given beside the sidecar (and, checked before this, agreeing with it) states that convention; the range
  // of float heights decoded from default-range codes cannot be stated afterwards.
  const stated: Readonly<Record<ConventionName, boolean>> = {
    extent: flags.extent !== undefined,
    rowDirection: flags.rowDirection !== undefined,
    encoding: flags.range !== undefined && sc?.encoding.kind === 'unorm16',
  };
  const recorded = Array.isArray(listed) ? CONVENTION_NAMES.filter((k) => listed.includes(k)) : [];
  if (recorded.length === 0) {
    return { extent: 'sidecar', rowDirection: 'sidecar', encoding: 'sidecar', notes: [`every convention from the sidecar ${sidecarPath}`] };
  }
  const defaulted = recorded.filter((k) => !stated[k]);
  const words = (ks: readonly ConventionName[]) => ks.map((k) => CONVENTION_WORDS[k]).join(', ');
  if (defaulted.length && flags.requireConventions && !flags.assumeDefaults) {
    throw new UsageError(
      `${sidecarPath}: records that its ${words(defaulted)} ${defaulted.length > 1 ? 'were' : 'was'} heightbench's default when the file was converted from one that carried none; give --assume-defaults to take ${defaulted.length > 1 ? 'them' : 'it'}, or convert again with the conventions stated — conventions are asked for, never guessed`,
    );
  }
  const origin = (k: ConventionName): ConventionOrigin => (defaulted.includes(k) ? 'default' : recorded.includes(k) ? 'flag' : 'sidecar');
  const notes = [
    `conventions from the sidecar ${sidecarPath}, which records that its ${words(recorded)} were not stated when the file was converted (defaults were taken)`,
  ];
  if (defaulted.length < recorded.length) notes.push(`${words(recorded.filter((k) => stated[k]))} stated by flags that agree with it`);
  if (defaulted.length)
    notes.push(
      `${words(defaulted)}: heightbench's default (defaults taken: ${flags.assumeDefaults ? '--assume-defaults' : 'this command does not require stated conventions'})`,
    );
  return { extent: origin('extent'), rowDirection: origin('rowDirection'), encoding: origin('encoding'), notes };
}

/**
 * The part of the sidecar check every container shares (heightbench's own, src/io/heightfield-file.ts
 * checkSettingsAgainstSidecar, and the outside ones, src/io/outside.ts): the sidecar names this file, and the size, range, encoding, extent, row direction and sample
 * convention given beside it agree with its own.
 */
export function checkConventionFlagsAgainstSidecar(path: string, sc: Sidecar, s: ConventionFlags & { size?: { width: number; height: number } }): void {
  if (sc.file !== basename(path)) {
    throw new MismatchError(
      `${path}: the sidecar describes file ${JSON.stringify(sc.file)}, not ${JSON.stringify(basename(path))} (a pair renamed one file at a time?)`,
    );
  }
  const g = sc.grid;
  if (s.size && (s.size.width !== g.columns || s.size.height !== g.rows)) {
    throw new MismatchError(`${path}: --size ${s.size.width}x${s.size.height} contradicts the sidecar's ${g.columns}x${g.rows}`);
  }
  if (s.range && sc.encoding.kind === 'unorm16' && (s.range.min !== sc.encoding.range.min || s.range.max !== sc.encoding.range.max)) {
    throw contradiction(
      s,
      'range',
      `${path}: ${given(s, 'range', `${s.range.min},${s.range.max}`)} contradicts the sidecar's ${sc.encoding.range.min},${sc.encoding.range.max}`,
    );
  }
  const sidecarEncoding = sc.encoding.kind === 'unorm16' ? 'unorm16' : 'metres';
  if (s.encoding && s.encoding !== sidecarEncoding) {
    throw contradiction(
      s,
      'encoding',
      `${path}: ${given(s, 'encoding', s.encoding)} contradicts the sidecar, whose samples are ${sidecarEncoding === 'unorm16' ? 'UNORM16 codes' : 'float32 heights in metres'}`,
    );
  }
  if (s.extent && !sameExtent(s.extent, g)) {
    throw contradiction(s, 'extent', `${path}: ${given(s, 'extent', extentText(s.extent))} contradicts the sidecar's ${extentText(g)} (xmin,ymin,sizeX,sizeY)`);
  }
  if (s.rowDirection && s.rowDirection !== g.rowDirection) {
    throw contradiction(s, 'rowDirection', `${path}: ${given(s, 'rowDirection', s.rowDirection)} contradicts the sidecar's ${g.rowDirection}`);
  }
  if (s.convention && s.convention !== g.convention) {
    throw new MismatchError(`${path}: sample convention ${s.convention} contradicts the sidecar's ${g.convention}`);
  }
}
