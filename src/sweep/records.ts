/**
 * A sweep's folder: its manifest (sweep.json: what was asked, by which heightbench, under which conventions, which
 * shard) and its records (records/NAME.json, one per request, each written whole by the driver: temp, then rename).
 *
 * Inputs: folders on disk. Outputs: the manifest, the records by name, and the gather of several shards' folders.
 * Rules [R]: a record is read only through its name (checked like every name that becomes a path); a record whose
 * file name, format, version or key does not fit is refused, naming the file. Gather refuses records of different
 * heightbench versions, conventions, references, detail or size (naming both values and a record of each), a key
 * present twice with different digests, and shards of different sweeps; it names the requests no shard holds.
 */
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { FormatError, MismatchError } from '../errors.js';
import { checkName } from '../core/names.js';
import { readInputText } from '../io/read-input.js';
import { inputPresent } from '../io/read-input.js';
import { parseJson } from '../io/json-check.js';
import { canonicalJson, expandSweep, parseSeeds, shardItems, type SweepItem, type Variation } from './requests.js';
import { SWEEP_RECORD_FORMAT, type Detail, type SweepRecord } from './batch.js';

export const SWEEP_MANIFEST = 'sweep.json';
export const RECORDS_DIR = 'records';
export const SWEEP_MANIFEST_FORMAT = 'heightbench.sweep';

export interface SweepManifest {
  format: typeof SWEEP_MANIFEST_FORMAT;
  version: 1;
  heightbench: string;
  conventionsHash: string;
  /** What was asked: the base request's id and JSON, the seed spec, the variations, the size. */
  definition: { base: string; request: Record<string, unknown>; seeds: string; vary: Variation[]; size: number };
  against: string;
  detail: Detail;
  /** This folder's shard (null: the whole sweep). */
  shard: { index: number; count: number } | null;
  /** Requests in the whole sweep, and in this folder's shard. */
  total: number;
  requests: number;
}

/** The sweep's items, re-expanded from a manifest's definition (every shard's, or this shard's). */
export function manifestItems(m: SweepManifest, wholeSweep = false): SweepItem[] {
  const d = m.definition;
  const all = expandSweep({ base: d.base, request: d.request, seeds: parseSeeds(d.seeds), vary: d.vary, size: d.size });
  return wholeSweep || !m.shard ? all : shardItems(all, m.shard);
}

export function readManifest(dir: string): SweepManifest {
  const path = join(dir, SWEEP_MANIFEST);
  if (!inputPresent(path)) throw new FormatError(`${dir}: not a sweep folder (no ${SWEEP_MANIFEST})`);
  const m = parseJson(readInputText(path), path) as SweepManifest;
  if (m?.format !== SWEEP_MANIFEST_FORMAT || m.version !== 1) throw new FormatError(`${path}: expected format ${SWEEP_MANIFEST_FORMAT} version 1`);
  return m;
}

/** The records of a sweep folder, by name (hidden files — an interrupted write's temporary — are not records). */
export function readRecords(dir: string): Map<string, SweepRecord> {
  const rdir = join(dir, RECORDS_DIR);
  const out = new Map<string, SweepRecord>();
  if (!inputPresent(rdir)) return out;
  for (const f of readdirSync(rdir).sort()) {
    if (f.startsWith('.') || !f.endsWith('.json')) continue;
    const name = checkName('record', f.slice(0, -5));
    const path = join(rdir, f);
    const r = parseJson(readInputText(path), path) as SweepRecord;
    if (r?.format !== SWEEP_RECORD_FORMAT || r.version !== 1) throw new FormatError(`${path}: expected format ${SWEEP_RECORD_FORMAT} version 1`);
    if (r.name !== name) throw new FormatError(`${path}: the record names itself ${JSON.stringify(r.name)}, its file ${JSON.stringify(name)}`);
    out.set(name, r);
  }
  return out;
}

/** The fields every record of one sweep shares. */
const SHARED = ['heightbench', 'conventionsHash', 'against', 'detail', 'size'] as const;

export interface Gathered {
  manifest: SweepManifest;
  /** In the sweep's order. */
  records: SweepRecord[];
  /** The sweep's requests no shard holds (names). */
  missing: string[];
}

/** Joins shards (or interrupted runs) of one sweep; see the header for what it refuses. */
export function gatherSweep(dirs: readonly string[]): Gathered {
  if (dirs.length === 0) throw new FormatError('sweep gather: expected at least one sweep folder');
  const manifests = dirs.map(readManifest);
  const m0 = manifests[0];
  const same = (a: SweepManifest, b: SweepManifest) => canonicalJson(a.definition) === canonicalJson(b.definition);
  manifests.forEach((m, k) => {
    if (!same(m, m0)) throw new MismatchError(`sweep gather: ${dirs[k]} is a shard of another sweep than ${dirs[0]} (their definitions differ)`);
  });
  const byName = new Map<string, SweepRecord>();
  const first: Partial<Record<(typeof SHARED)[number], { value: unknown; where: string }>> = {};
  dirs.forEach((dir) => {
    for (const [name, r] of readRecords(dir)) {
      for (const f of SHARED) {
        const seen = first[f];
        if (!seen) first[f] = { value: r[f], where: `${dir}/${RECORDS_DIR}/${name}.json` };
        else if (seen.value !== r[f])
          throw new MismatchError(
            `sweep gather: records of different ${f}: ${JSON.stringify(seen.value)} (${seen.where}) and ${JSON.stringify(r[f])} (${dir}/${RECORDS_DIR}/${name}.json)`,
          );
      }
      const prev = byName.get(name);
      if (prev && canonicalJson(prev.sha256) !== canonicalJson(r.sha256))
        throw new MismatchError(`sweep gather: request ${r.key} is recorded twice with different stage digests (${dir})`);
      if (!prev) byName.set(name, r);
    }
  });
  const items = manifestItems(m0, true);
  const records: SweepRecord[] = [];
  const missing: string[] = [];
  const known = new Set<string>();
  for (const it of items) {
    known.add(it.name);
    const r = byName.get(it.name);
    if (r) {
      if (r.key !== it.key) throw new FormatError(`sweep gather: record ${it.name} has key ${JSON.stringify(r.key)}, the sweep's is ${JSON.stringify(it.key)}`);
      records.push(r);
    } else missing.push(it.name);
  }
  const stray = [...byName.keys()].filter((n) => !known.has(n));
  if (stray.length) throw new MismatchError(`sweep gather: record(s) not of this sweep: ${stray.slice(0, 5).join(', ')}${stray.length > 5 ? ', …' : ''}`);
  const manifest: SweepManifest = { ...m0, shard: null, requests: m0.total };
  return { manifest, records, missing };
}
