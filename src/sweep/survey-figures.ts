/**
 * A sweep's survey: the figures its report shows (report/survey.ts renders them as index.html, summary.md,
 * survey.json and metrics.json).
 *
 * Inputs: the sweep's manifest, its records in the sweep's order, the requests without a record, and optionally the
 * worst requests' rerun check reports (folder names, by request name).
 * Rules [R]: a request "mismatched" when any final code differs (exact < pixels); the worst are ordered by max |Δq|,
 * then exact % ascending, then key. Distributions are counts over fixed bins. Attribution is the records' first-
 * divergence and cause counts summed. The folded digest of a stage is the SHA-256 of "KEY\tSHA256\n" over every record
 * holding that stage, in the sweep's order (cubiomes folds its seeds into one hash the same way): one value to compare
 * with a stored one, which moves when any request's stage moves.
 */
import { createHash } from 'node:crypto';
import { STAGES } from '../conventions/index.js';
import type { SweepRecord } from './batch.js';
import type { SweepManifest } from './records.js';

const EXACT_BINS: readonly [string, (p: number) => boolean][] = [
  ['100 %', (p) => p === 100],
  ['≥ 99.99 %', (p) => p >= 99.99 && p < 100],
  ['≥ 99.9 %', (p) => p >= 99.9 && p < 99.99],
  ['≥ 99 %', (p) => p >= 99 && p < 99.9],
  ['≥ 90 %', (p) => p >= 90 && p < 99],
  ['< 90 %', (p) => p < 90],
];
const MAX_BINS: readonly [string, (d: number) => boolean][] = [
  ['0', (d) => d === 0],
  ['1', (d) => d === 1],
  ['2', (d) => d === 2],
  ['3–4', (d) => d >= 3 && d <= 4],
  ['5–16', (d) => d >= 5 && d <= 16],
  ['> 16', (d) => d > 16],
];

export interface Survey {
  request: string;
  against: string;
  detail: string;
  size: number;
  heightbench: string;
  conventionsHash: string;
  requests: number;
  missing: string[];
  mismatched: { count: number; keys: string[] };
  exactPercent: { min: number; median: number; mean: number; bins: Record<string, number> };
  maxAbsCode: { max: number; bins: Record<string, number> };
  worst: { key: string; name: string; exactPercent: number; maxAbsCode: number; rmsMm: number; check?: string }[];
  firstDivergence: Record<string, number>;
  causes: Record<string, number>;
  /** Stage → differing pixels originating there (records that traced origins). */
  origins: Record<string, number>;
  /** Stage → folded SHA-256, generated and reference sides. */
  foldedDigest: { generated: Record<string, string>; reference: Record<string, string> };
  headline: string;
}

function fold(records: readonly SweepRecord[], side: 'generated' | 'reference'): Record<string, string> {
  const out: Record<string, string> = {};
  for (const s of STAGES) {
    const h = createHash('sha256');
    let n = 0;
    for (const r of records) {
      const d = r.sha256[side][s];
      if (d === undefined) continue;
      h.update(`${r.key}\t${d}\n`);
      n++;
    }
    if (n > 0) out[s] = h.digest('hex');
  }
  return out;
}

function sum(into: Record<string, number>, from: Record<string, number> | null): void {
  for (const [k, v] of Object.entries(from ?? {})) into[k] = (into[k] ?? 0) + v;
}

/** The survey's figures (what every file of the report shows). */
export function surveyOf(
  m: SweepManifest,
  records: readonly SweepRecord[],
  missing: readonly string[],
  checks: ReadonlyMap<string, string> = new Map(),
  worstCount = 10,
): Survey {
  const exact = records.map((r) => r.final.exactPercent).sort((a, b) => a - b);
  const mism = records.filter((r) => r.final.exact < r.final.pixels);
  const worst = [...records]
    .sort((a, b) => b.final.maxAbsCode - a.final.maxAbsCode || a.final.exactPercent - b.final.exactPercent || (a.key < b.key ? -1 : 1))
    .filter((r) => r.final.exact < r.final.pixels)
    .slice(0, worstCount)
    .map((r) => ({
      key: r.key,
      name: r.name,
      exactPercent: r.final.exactPercent,
      maxAbsCode: r.final.maxAbsCode,
      rmsMm: r.final.rmsMm,
      ...(checks.has(r.name) ? { check: checks.get(r.name) } : {}),
    }));
  const bins = <T>(def: readonly [string, (x: T) => boolean][], xs: readonly T[]) => Object.fromEntries(def.map(([k, f]) => [k, xs.filter(f).length]));
  const firstDivergence: Record<string, number> = {};
  const causes: Record<string, number> = {};
  const origins: Record<string, number> = {};
  for (const r of records) {
    sum(firstDivergence, r.firstDivergence);
    sum(causes, r.causes);
    sum(origins, r.origins ?? null);
  }
  const n = records.length;
  const headline = `${mism.length} of ${n} requests mismatched (${m.definition.base} at ${m.definition.size}², f32 against ${m.against})${missing.length ? `; ${missing.length} missing` : ''}`;
  return {
    request: m.definition.base,
    against: m.against,
    detail: m.detail,
    size: m.definition.size,
    heightbench: m.heightbench,
    conventionsHash: m.conventionsHash,
    requests: n,
    missing: [...missing],
    mismatched: { count: mism.length, keys: mism.map((r) => r.key) },
    exactPercent: {
      min: n ? exact[0] : NaN,
      median: n ? exact[(n - 1) >> 1] : NaN,
      mean: n ? exact.reduce((a, b) => a + b, 0) / n : NaN,
      bins: bins(EXACT_BINS, exact),
    },
    maxAbsCode: {
      max: Math.max(0, ...records.map((r) => r.final.maxAbsCode)),
      bins: bins(
        MAX_BINS,
        records.map((r) => r.final.maxAbsCode),
      ),
    },
    worst,
    firstDivergence,
    causes,
    origins,
    foldedDigest: { generated: fold(records, 'generated'), reference: fold(records, 'reference') },
    headline,
  };
}
