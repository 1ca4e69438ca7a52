/**
 * The requests of a sweep: a base request, a seed range or list, variations of other request fields, one size.
 *
 * Inputs: the base request's JSON (as its file holds it), the seed spec ("1-1000", "1,7,19190418", "1-10,40"), the
 * variations ("locationCategories=[1,2,6],[8]": a field and its values, each value JSON), the size, a shard "I/N".
 * Outputs: SweepItem[], in a fixed order (variations outermost, seeds innermost), each with its key, its file-safe name
 * and the whole request JSON a batch runs (so a worker reads no request file).
 * Rules [R]: a shard I/N (0 ≤ I < N, the 0-based index a Kubernetes Indexed Job or a CI matrix gives) takes the items
 * whose position k has k mod N = I; every malformed spec is refused with the value (UsageError: exit 2). Each variation
 * is checked by the request parser before any work starts, so a bad value never reaches a worker.
 */
import { createHash } from 'node:crypto';
import { UsageError } from '../errors.js';
import { parseRequest } from '../plan/request.js';

/** The seed range heightbench accepts (minstd_rand0's state): an integer 1 … 2147483646. */
export const SEED_MIN = 1;
export const SEED_MAX = 2147483646;
/** [R] Bounded before anything is allocated: a sweep of more requests is split into shards or several sweeps. */
export const MAX_SWEEP_REQUESTS = 10_000_000;
/** Request fields a variation may set: everything but the identity (id, format, version), the seed and the size. */
export const VARIABLE_FIELDS = ['world', 'sceneTypes', 'recipeEntry', 'missionTags', 'locationCategories', 'domain', 'outerBlend', 'encoding'] as const;

export interface Variation {
  field: string;
  values: unknown[];
}

export interface SweepItem {
  /** `request@seed@size` plus `@` and the canonical JSON of the variation when there is one. */
  key: string;
  /** File-safe: `request-sSEED-nSIZE` plus `-v` and 12 hex digits of the variation's SHA-256. */
  name: string;
  base: string;
  seed: number;
  size: number;
  vary: Record<string, unknown>;
  /** The whole request a batch runs (id = the name without the size). */
  request: Record<string, unknown>;
}

/** "a-b" ranges and single seeds, comma-separated; every seed an integer in [1, 2147483646]; duplicates refused. */
export function parseSeeds(spec: string): number[] {
  const bad = (why: string) => new UsageError(`--seeds ${JSON.stringify(spec)}: ${why}`);
  if (spec.trim() === '') throw bad('expected seeds like 1-1000 or 1,7,19190418');
  const seeds: number[] = [];
  let total = 0;
  const parts = spec.split(',').map((p) => p.trim());
  const ranges: [number, number][] = [];
  for (const p of parts) {
    const m = /^(\d+)(?:-(\d+))?$/.exec(p);
    if (!m) throw bad(`${JSON.stringify(p)} is not a seed or a range a-b of integers`);
    const a = Number(m[1]);
    const b = m[2] === undefined ? a : Number(m[2]);
    for (const x of [a, b])
      if (!Number.isSafeInteger(x) || x < SEED_MIN || x > SEED_MAX) throw bad(`seed ${m[2] === undefined ? p : x} is outside ${SEED_MIN} … ${SEED_MAX}`);
    if (b < a) throw bad(`range ${JSON.stringify(p)} ends before it starts`);
    total += b - a + 1;
    if (total > MAX_SWEEP_REQUESTS) throw bad(`more than ${MAX_SWEEP_REQUESTS} seeds`);
    ranges.push([a, b]);
  }
  const seen = new Set<number>();
  for (const [a, b] of ranges)
    for (let s = a; s <= b; s++) {
      if (seen.has(s)) throw bad(`seed ${s} is named twice`);
      seen.add(s);
      seeds.push(s);
    }
  return seeds;
}

/** Splits "a,b" at the commas outside brackets and braces. */
function topLevelValues(text: string): string[] {
  const out: string[] = [];
  let depth = 0;
  let start = 0;
  for (let k = 0; k < text.length; k++) {
    const c = text[k];
    if (c === '[' || c === '{') depth++;
    else if (c === ']' || c === '}') depth--;
    else if (c === ',' && depth === 0) {
      out.push(text.slice(start, k));
      start = k + 1;
    }
  }
  out.push(text.slice(start));
  return out.map((s) => s.trim());
}

/** `field=a,b`: a request field (VARIABLE_FIELDS) and its values, each JSON ("[1,2,6],[8]" gives two arrays). */
export function parseVariation(spec: string): Variation {
  const bad = (why: string) => new UsageError(`--vary ${JSON.stringify(spec)}: ${why}`);
  const eq = spec.indexOf('=');
  if (eq <= 0) throw bad('expected FIELD=VALUE,VALUE (e.g. locationCategories=[1,2,6],[8])');
  const field = spec.slice(0, eq).trim();
  if (!(VARIABLE_FIELDS as readonly string[]).includes(field)) throw bad(`field ${JSON.stringify(field)}: expected one of ${VARIABLE_FIELDS.join(', ')}`);
  const texts = topLevelValues(spec.slice(eq + 1));
  const values = texts.map((t) => {
    if (t === '') throw bad('an empty value');
    try {
      return JSON.parse(t) as unknown;
    } catch {
      // A bare word is a string (a world's name).
      if (/^[A-Za-z0-9_.-]+$/.test(t) && !/^[0-9.-]/.test(t)) return t;
      throw bad(`value ${JSON.stringify(t)} is not JSON`);
    }
  });
  const seen = new Set<string>();
  for (const v of values) {
    const c = canonicalJson(v);
    if (seen.has(c)) throw bad(`value ${c} is named twice`);
    seen.add(c);
  }
  return { field, values };
}

/** "I/N" with 0 ≤ I < N (0-based, as JOB_COMPLETION_INDEX); N ≤ 1,000,000. */
export function parseShard(spec: string): { index: number; count: number } {
  const m = /^(\d+)\/(\d+)$/.exec(spec.trim());
  const bad = (why: string) => new UsageError(`--shard ${JSON.stringify(spec)}: ${why}`);
  if (!m) throw bad('expected I/N, e.g. 0/4 (I counts from 0)');
  const index = Number(m[1]);
  const count = Number(m[2]);
  if (count < 1 || count > 1_000_000) throw bad(`N must be 1 … 1000000, got ${count}`);
  if (index >= count) throw bad(`I must be 0 … ${count - 1}, got ${index}`);
  return { index, count };
}

/** A Dask scheduler address: tcp://, tls://, ws://, wss:// or ucx:// HOST:PORT (port 1 … 65535), or inproc://. */
export function parseSchedulerAddress(spec: string, where = '--scheduler'): string {
  const t = spec.trim();
  const m = /^(tcp|tls|ws|wss|ucx):\/\/(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9._-]+):(\d{1,5})\/?$/.exec(t);
  if (!m || Number(m[3]) < 1 || Number(m[3]) > 65535)
    throw new UsageError(`${where} ${JSON.stringify(spec)}: expected a scheduler address PROTOCOL://HOST:PORT (tcp, tls, ws, wss or ucx; port 1 … 65535)`);
  return t.replace(/\/$/, '');
}

/** JSON with object keys sorted: the same value gives the same text (keys, hashes). */
export function canonicalJson(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(canonicalJson).join(',')}]`;
  if (v !== null && typeof v === 'object')
    return `{${Object.keys(v)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonicalJson((v as Record<string, unknown>)[k])}`)
      .join(',')}}`;
  return JSON.stringify(v);
}

function sha256Hex(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

/** Every combination of the variations' values (the first variation outermost), as field → value records. */
function combinations(vary: readonly Variation[]): Record<string, unknown>[] {
  let out: Record<string, unknown>[] = [{}];
  for (const v of vary) out = out.flatMap((o) => v.values.map((x) => ({ ...o, [v.field]: x })));
  return out;
}

export interface SweepDefinition {
  /** The base request's id (its file's `id`). */
  base: string;
  /** The base request's JSON. */
  request: Record<string, unknown>;
  seeds: readonly number[];
  vary: readonly Variation[];
  size: number;
}

/**
 * Every request of the sweep, in order (variations outermost, seeds innermost), each checked by the request parser
 * (a bad variation value is refused here, naming the field and the value). Bounded by MAX_SWEEP_REQUESTS.
 */
export function expandSweep(d: SweepDefinition): SweepItem[] {
  const fields = d.vary.map((v) => v.field);
  const dup = fields.find((f, k) => fields.indexOf(f) !== k);
  if (dup) throw new UsageError(`--vary ${dup}: the field is varied twice; give its values in one --vary`);
  const combos = combinations(d.vary);
  if (combos.length * d.seeds.length > MAX_SWEEP_REQUESTS)
    throw new UsageError(`the sweep has ${combos.length * d.seeds.length} requests, over ${MAX_SWEEP_REQUESTS}: split it with --shard or into sweeps`);
  const items: SweepItem[] = [];
  for (const vary of combos) {
    const varied = Object.keys(vary).length > 0;
    const vtext = canonicalJson(vary);
    const vhash = varied ? `-v${sha256Hex(vtext).slice(0, 12)}` : '';
    // Checked once per combination (the seed and size are checked below by their own rules).
    if (varied)
      try {
        parseRequest({ ...d.request, ...vary, id: 'x' }, 'request');
      } catch (e) {
        throw new UsageError(`--vary ${vtext}: ${(e as Error).message}`);
      }
    for (const seed of d.seeds) {
      const id = `${d.base}-s${seed}${vhash}`;
      items.push({
        key: `${d.base}@${seed}@${d.size}${varied ? `@${vtext}` : ''}`,
        name: `${d.base}-s${seed}-n${d.size}${vhash}`,
        base: d.base,
        seed,
        size: d.size,
        vary,
        request: { ...d.request, ...vary, id, seed, size: d.size },
      });
    }
  }
  return items;
}

/** The shard's items: position k with k mod N = I. */
export function shardItems<T>(items: readonly T[], shard: { index: number; count: number } | undefined): T[] {
  return shard ? items.filter((_, k) => k % shard.count === shard.index) : [...items];
}
