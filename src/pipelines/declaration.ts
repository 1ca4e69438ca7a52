/**
 * A pipeline declaration: a staged heightmap pipeline described as data, so that import, check, attribution, reports
 * and regress speak its own stage names, order and causes (docs/pipelines.md).
 *
 * Inputs: a parsed YAML/JSON document (or a file, read through the hardened readers) and a name for messages.
 * Outputs: a checked, frozen PipelineDeclaration; the stage file names a run folder holds; the first difference of two
 * declarations; the stage files of a folder the declaration does not name.
 * Rules:
 *  - `version: 1`; `name`, stage and mask names are safe names (src/core/names.ts): they become file names;
 *  - stages in execution order; each holds float heights in a `unit`, or codes (`encoding: unorm16`, `min`…`max` in
 *    the unit of the stage they are encoded from); [R] the last stage holds codes (the map `check` compares code by
 *    code) and it is the only one; `encodedFrom` names an earlier float stage;
 *  - `cause`: the text shown when a pixel first differs at the stage (absent: "first differs at STAGE");
 *    `causeAboveOneCode`: the text when the stage adds more than one code of difference there;
 *  - `footprint`: how far one input pixel's change can spread through the stage, `{ pixels: r }` or `{ metres: r }`
 *    (0 for a per-pixel stage, the kernel radius for a filter); absent: unknown, and no difference is counted as
 *    propagated into the stage;
 *  - masks (disk, annulus, outside, window; metres about the domain centre), anchors (a stage's RMS in a declared mask
 *    from another experiment, shown for scale) and a 3D view radius are optional: reports show them only when declared;
 *  - every refusal names the key path, what was expected and what was found; unknown keys are refused.
 */
import { readdirSync } from 'node:fs';
import { FormatError, show } from '../errors.js';
import { nameProblem } from '../core/names.js';
import { checkArray, checkNumber, checkObject, checkOneOf, checkString, type JsonObject } from '../io/json-check.js';
import { readInputText } from '../io/read-input.js';
import { parseDocument } from '../io/yaml-text.js';

export const PIPELINE_DECLARATION_VERSION = 1;
/** The name of the declaration a run folder records. */
export const PIPELINE_FILE = 'pipeline.json';
/** [R] Most stages a declaration may have (a stage is a file pair in a run folder; real pipelines have under 20). */
export const MAX_DECLARED_STAGES = 64;
/** Names attribution gives to pixels that differ at no declared float stage: no stage may take them. */
export const RESERVED_STAGE_NAMES: readonly string[] = ['final-only', 'outside-window'];

export type StageHolds =
  { readonly kind: 'float'; readonly unit: string } | { readonly kind: 'codes'; readonly encoding: 'unorm16'; readonly min: number; readonly max: number };
export type Footprint = { readonly pixels: number } | { readonly metres: number };

export interface DeclaredStage {
  readonly name: string;
  readonly holds: StageHolds;
  readonly encodedFrom?: string;
  readonly cause?: string;
  readonly causeAboveOneCode?: string;
  readonly footprint?: Footprint;
}

export type DeclaredMask =
  | { readonly name: string; readonly kind: 'disk'; readonly radius: number }
  | { readonly name: string; readonly kind: 'annulus'; readonly inner: number; readonly outer: number }
  | { readonly name: string; readonly kind: 'outside'; readonly radius: number }
  | { readonly name: string; readonly kind: 'window'; readonly size: number };

export interface DeclaredAnchor {
  readonly stage: string;
  readonly mask: string;
  readonly rmsMm: number;
  readonly basis: string;
}

export interface PipelineDeclaration {
  readonly version: 1;
  readonly name: string;
  readonly description?: string;
  readonly stages: readonly DeclaredStage[];
  readonly masks?: readonly DeclaredMask[];
  readonly anchors?: readonly DeclaredAnchor[];
  /** The report's 3D view: a disk of this radius (metres) about the domain centre. */
  readonly view3d?: { readonly radius: number };
}

const freeze = <T>(o: T): T => {
  for (const v of Object.values(o as object)) if (v && typeof v === 'object') freeze(v);
  return Object.freeze(o);
};

function fail(path: string, expected: string, found: unknown): never {
  throw new FormatError(`${path}: expected ${expected}, found ${show(found)}`);
}

function onlyKeys(path: string, o: JsonObject, allowed: readonly string[]): void {
  for (const k of Object.keys(o)) if (!allowed.includes(k)) throw new FormatError(`${path}: unknown key ${show(k)} (expected one of ${allowed.join(', ')})`);
}

function safeName(path: string, v: unknown): string {
  const s = checkString(path, v);
  const p = nameProblem(s);
  if (p) fail(path, "a name of 1–100 characters A-Z a-z 0-9 . _ -, not starting with '.' or '-'", s);
  return s;
}

/** A short line of text (causes, descriptions, units): no control characters. */
function text(path: string, v: unknown, max: number): string {
  const s = checkString(path, v);
  // eslint-disable-next-line no-control-regex
  if (s.length === 0 || s.length > max || /[\u0000-\u001f\u007f]/.test(s)) fail(path, `a line of 1–${max} characters without control characters`, s);
  return s;
}

const LIMIT = 1e7;

function parseHolds(path: string, v: unknown): StageHolds {
  const o = checkObject(path, v);
  const kind = checkOneOf(`${path}.kind`, o.kind, ['float', 'codes'] as const);
  if (kind === 'float') {
    onlyKeys(path, o, ['kind', 'unit']);
    return { kind, unit: text(`${path}.unit`, o.unit, 40) };
  }
  onlyKeys(path, o, ['kind', 'encoding', 'min', 'max']);
  const encoding = checkOneOf(`${path}.encoding`, o.encoding, ['unorm16'] as const);
  const min = checkNumber(`${path}.min`, o.min, { min: -LIMIT, max: LIMIT });
  const max = checkNumber(`${path}.max`, o.max, { min: -LIMIT, max: LIMIT });
  if (!(max > min)) fail(`${path}.max`, `a number above min (${min})`, max);
  return { kind, encoding, min, max };
}

function parseFootprint(path: string, v: unknown): Footprint {
  const o = checkObject(path, v);
  onlyKeys(path, o, ['pixels', 'metres']);
  const keys = Object.keys(o);
  if (keys.length !== 1) fail(path, 'exactly one of pixels, metres', o);
  return keys[0] === 'pixels'
    ? { pixels: checkNumber(`${path}.pixels`, o.pixels, { min: 0, max: 65536 }) }
    : { metres: checkNumber(`${path}.metres`, o.metres, { min: 0, max: LIMIT }) };
}

function parseStage(path: string, v: unknown): DeclaredStage {
  const o = checkObject(path, v);
  onlyKeys(path, o, ['name', 'holds', 'encodedFrom', 'cause', 'causeAboveOneCode', 'footprint']);
  const name = safeName(`${path}.name`, o.name);
  if (RESERVED_STAGE_NAMES.includes(name)) fail(`${path}.name`, `a name other than ${RESERVED_STAGE_NAMES.join(', ')} (attribution's own)`, name);
  const s: { -readonly [K in keyof DeclaredStage]: DeclaredStage[K] } = { name, holds: parseHolds(`${path}.holds`, o.holds) };
  if (o.encodedFrom !== undefined) s.encodedFrom = safeName(`${path}.encodedFrom`, o.encodedFrom);
  if (o.cause !== undefined) s.cause = text(`${path}.cause`, o.cause, 200);
  if (o.causeAboveOneCode !== undefined) s.causeAboveOneCode = text(`${path}.causeAboveOneCode`, o.causeAboveOneCode, 200);
  if (o.footprint !== undefined) s.footprint = parseFootprint(`${path}.footprint`, o.footprint);
  return s;
}

function parseMask(path: string, v: unknown): DeclaredMask {
  const o = checkObject(path, v);
  const name = safeName(`${path}.name`, o.name);
  const kind = checkOneOf(`${path}.kind`, o.kind, ['disk', 'annulus', 'outside', 'window'] as const);
  const metres = (k: string) => checkNumber(`${path}.${k}`, o[k], { min: 0, max: LIMIT });
  switch (kind) {
    case 'disk':
    case 'outside':
      onlyKeys(path, o, ['name', 'kind', 'radius']);
      return { name, kind, radius: metres('radius') };
    case 'window':
      onlyKeys(path, o, ['name', 'kind', 'size']);
      return { name, kind, size: metres('size') };
    case 'annulus': {
      onlyKeys(path, o, ['name', 'kind', 'inner', 'outer']);
      const inner = metres('inner');
      const outer = metres('outer');
      if (!(outer > inner)) fail(`${path}.outer`, `a radius above inner (${inner})`, outer);
      return { name, kind, inner, outer };
    }
  }
}

/**
 * Checks a parsed declaration document (see the header) and returns it frozen, in the canonical key order. `what`
 * prefixes every message (the file's name).
 */
export function parsePipelineDeclaration(v: unknown, what = 'pipeline'): PipelineDeclaration {
  const o = checkObject(what, v);
  onlyKeys(what, o, ['version', 'name', 'description', 'stages', 'masks', 'anchors', 'view3d']);
  if (o.version !== PIPELINE_DECLARATION_VERSION) fail(`${what}.version`, String(PIPELINE_DECLARATION_VERSION), o.version);
  const name = safeName(`${what}.name`, o.name);
  const list = checkArray(`${what}.stages`, o.stages);
  if (list.length < 1 || list.length > MAX_DECLARED_STAGES) fail(`${what}.stages`, `1 to ${MAX_DECLARED_STAGES} stages`, `${list.length} stages`);
  const stages = list.map((s, i) => parseStage(`${what}.stages[${i}]`, s));
  const seen = new Map<string, number>();
  stages.forEach((s, i) => {
    const at = `${what}.stages[${i}]`;
    // Stage files differ only in case on case-insensitive file systems: the names must too.
    const key = s.name.toLowerCase();
    if (seen.has(key)) fail(`${at}.name`, `a name not used before (stages[${seen.get(key)}] is ${show(stages[seen.get(key)!].name)})`, s.name);
    seen.set(key, i);
    if (s.holds.kind === 'codes' && i !== stages.length - 1) fail(`${at}.holds.kind`, '"float" (only the last stage holds codes)', 'codes');
    if (s.encodedFrom !== undefined) {
      if (s.holds.kind !== 'codes') fail(`${at}.encodedFrom`, 'no encodedFrom on a float stage (only codes are encoded from a stage)', s.encodedFrom);
      const j = stages.findIndex((t) => t.name === s.encodedFrom);
      if (j < 0 || j >= i)
        fail(
          `${at}.encodedFrom`,
          `an earlier stage (one of ${
            stages
              .slice(0, i)
              .map((t) => t.name)
              .join(', ') || 'none'
          })`,
          s.encodedFrom,
        );
    }
  });
  const last = stages[stages.length - 1];
  if (last.holds.kind !== 'codes')
    fail(`${what}.stages[${stages.length - 1}].holds.kind`, '"codes" (the last stage is the encoded map a check compares code by code)', last.holds.kind);
  // Built key by key, in the canonical order a recorded declaration is written in.
  const out: { -readonly [K in keyof PipelineDeclaration]?: PipelineDeclaration[K] } = { version: 1, name };
  if (o.description !== undefined) out.description = text(`${what}.description`, o.description, 2000);
  out.stages = stages;
  if (o.masks !== undefined) {
    const m = checkArray(`${what}.masks`, o.masks).map((x, i) => parseMask(`${what}.masks[${i}]`, x));
    m.forEach((x, i) => {
      if (m.findIndex((y) => y.name === x.name) !== i) fail(`${what}.masks[${i}].name`, 'a mask name not used before', x.name);
    });
    out.masks = m;
  }
  if (o.anchors !== undefined) {
    out.anchors = checkArray(`${what}.anchors`, o.anchors).map((x, i): DeclaredAnchor => {
      const at = `${what}.anchors[${i}]`;
      const a = checkObject(at, x);
      onlyKeys(at, a, ['stage', 'mask', 'rmsMm', 'basis']);
      const stage = checkString(`${at}.stage`, a.stage);
      const floats = stages.filter((s) => s.holds.kind === 'float').map((s) => s.name);
      if (!floats.includes(stage)) fail(`${at}.stage`, `a declared float stage (one of ${floats.join(', ')})`, stage);
      const mask = checkString(`${at}.mask`, a.mask);
      const masks = (out.masks ?? []).map((m) => m.name);
      if (!masks.includes(mask)) fail(`${at}.mask`, masks.length ? `a declared mask (one of ${masks.join(', ')})` : 'a declared mask (none declared)', mask);
      return { stage, mask, rmsMm: checkNumber(`${at}.rmsMm`, a.rmsMm, { min: 0, max: LIMIT }), basis: text(`${at}.basis`, a.basis, 400) };
    });
  }
  if (o.view3d !== undefined) {
    const w = checkObject(`${what}.view3d`, o.view3d);
    onlyKeys(`${what}.view3d`, w, ['radius']);
    out.view3d = { radius: checkNumber(`${what}.view3d.radius`, w.radius, { min: 0, max: LIMIT }) };
    if (out.view3d.radius === 0) fail(`${what}.view3d.radius`, 'a radius above 0 metres', 0);
  }
  return freeze(out as PipelineDeclaration);
}

/** Reads a declaration file (YAML, or JSON for a .json name) of at most 1 MiB and checks it. */
export function readPipelineDeclaration(path: string): PipelineDeclaration {
  return parsePipelineDeclaration(parseDocument(readInputText(path, 1 << 20), path), path);
}

/** The declaration as the JSON text a run folder records (canonical key order, one trailing newline). */
export function pipelineJson(d: PipelineDeclaration): string {
  return `${JSON.stringify(d, null, 2)}\n`;
}

/** The file a stage is stored under in a run folder: `<name>.r16` for codes, `<name>.r32` for float heights. */
export function stageFileName(s: DeclaredStage): string {
  return `${s.name}.${s.holds.kind === 'codes' ? 'r16' : 'r32'}`;
}

/** The stages holding float fields, in declared order (what attribution and the stage tables compare). */
export function floatStageNames(d: PipelineDeclaration): string[] {
  return d.stages.filter((s) => s.holds.kind === 'float').map((s) => s.name);
}

/** The encoded (last) stage. */
export function encodedStage(d: PipelineDeclaration): DeclaredStage {
  return d.stages[d.stages.length - 1];
}

export function declaredStage(d: PipelineDeclaration, name: string): DeclaredStage | undefined {
  return d.stages.find((s) => s.name === name);
}

/**
 * The first difference between two declarations, as "PATH: A vs B" (key paths as in the document, values as JSON),
 * or null when they are the same declaration.
 */
export function firstDeclarationDifference(a: PipelineDeclaration, b: PipelineDeclaration): string | null {
  const walk = (x: unknown, y: unknown, path: string): string | null => {
    if (Array.isArray(x) && Array.isArray(y)) {
      for (let i = 0; i < Math.max(x.length, y.length); i++) {
        if (i >= x.length || i >= y.length) return `${path}[${i}]: ${i >= x.length ? 'absent' : show(x[i])} vs ${i >= y.length ? 'absent' : show(y[i])}`;
        const d = walk(x[i], y[i], `${path}[${i}]`);
        if (d) return d;
      }
      return null;
    }
    if (x && y && typeof x === 'object' && typeof y === 'object' && !Array.isArray(x) && !Array.isArray(y)) {
      const keys = [...new Set([...Object.keys(x), ...Object.keys(y)])];
      for (const k of keys) {
        const p = path ? `${path}.${k}` : k;
        const xv = (x as Record<string, unknown>)[k];
        const yv = (y as Record<string, unknown>)[k];
        if (xv === undefined || yv === undefined) {
          if (xv !== yv) return `${p}: ${xv === undefined ? 'absent' : show(xv)} vs ${yv === undefined ? 'absent' : show(yv)}`;
          continue;
        }
        const d = walk(xv, yv, p);
        if (d) return d;
      }
      return null;
    }
    return Object.is(x, y) ? null : `${path}: ${show(x)} vs ${show(y)}`;
  };
  return walk(a, b, '');
}

/**
 * The heightfield files of a folder (`*.r32`, `*.r16`) that are not a declared stage's file, sorted: what a check or
 * an import must report rather than skip.
 */
export function undeclaredStageFiles(dir: string, d: PipelineDeclaration): string[] {
  const declared = new Set(d.stages.map(stageFileName));
  return readdirSync(dir)
    .filter((e) => /\.(r32|r16)$/.test(e) && !declared.has(e))
    .sort();
}
