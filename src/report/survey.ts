/**
 * The survey report of a sweep: index.html, summary.md (a CI step summary), survey.json and metrics.json (a DVC metric).
 *
 * Inputs: the sweep's manifest, its records in the sweep's order, the requests without a record, and optionally the
 * worst requests' rerun check reports (folder names under worst/, made by the caller with stage dumps).
 * Outputs: the report folder, written whole (writeFolderWhole: staged, then swapped in).
 * Rules [R]: a request "mismatched" when any final code differs (exact < pixels); the worst are ordered by max |Δq|,
 * then exact % ascending, then key. Distributions are counts over fixed bins. Attribution is the records' first-
 * divergence and cause counts summed. The folded digest of a stage is the SHA-256 of "KEY\tSHA256\n" over every record
 * holding that stage, in the sweep's order (cubiomes folds its seeds into one hash the same way): one value to compare
 * with a stored one, which moves when any request's stage moves. Every text reaching HTML is escaped.
 */
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { escapeHtml } from '../core/html.js';
import { pageCss, TEXT_TABLES } from './page-style.js';
import { writeFileAtomic } from '../io/atomic.js';
import { writeFolderWhole } from '../io/report-folder.js';
import { STAGES } from '../conventions/index.js';
import type { SweepRecord } from '../sweep/batch.js';
import type { SweepManifest } from '../sweep/records.js';

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

/** A Markdown table; a cell's own '|' is escaped so it cannot split the row. */
function table(head: readonly string[], rows: readonly (readonly (string | number)[])[]): string {
  const cell = (c: string | number) => String(c).replace(/\|/g, '\\|').replace(/\n/g, ' ');
  const row = (r: readonly (string | number)[]) => `| ${r.map(cell).join(' | ')} |`;
  return `${row(head)}\n| ${head.map(() => '---').join(' | ')} |\n${rows.map(row).join('\n')}\n`;
}

export function surveyMarkdown(s: Survey): string {
  const lines = [
    `## Sweep: ${s.headline}`,
    '',
    `heightbench ${s.heightbench}; conventions ${s.conventionsHash.slice(0, 16)}…; detail ${s.detail}; reference: ${s.against}`,
    '',
    `Exact %: min ${s.exactPercent.min.toFixed(4)}, median ${s.exactPercent.median.toFixed(4)}, mean ${s.exactPercent.mean.toFixed(4)}; max |Δq| ${s.maxAbsCode.max}`,
    '',
    table(['exact %', ...Object.keys(s.exactPercent.bins)], [['requests', ...Object.values(s.exactPercent.bins)]]),
    table(['max |Δq|', ...Object.keys(s.maxAbsCode.bins)], [['requests', ...Object.values(s.maxAbsCode.bins)]]),
  ];
  if (s.worst.length)
    lines.push(
      '### Worst requests',
      '',
      table(
        ['request', 'exact %', 'max |Δq|', 'RMS mm', 'check'],
        s.worst.map((w) => [w.key, w.exactPercent.toFixed(4), w.maxAbsCode, w.rmsMm.toFixed(4), w.check ? `[report](${w.check})` : '—']),
      ),
    );
  if (Object.keys(s.firstDivergence).length)
    lines.push(
      '### Attribution, summed over requests (differing final pixels)',
      '',
      table(['first divergent stage', 'pixels'], Object.entries(s.firstDivergence)),
    );
  if (Object.keys(s.causes).length) lines.push(table(['cause', 'pixels'], Object.entries(s.causes)));
  if (Object.keys(s.origins).length) lines.push(table(['stage a difference originates in', 'pixels'], Object.entries(s.origins)));
  lines.push('### Folded digest per stage (SHA-256 of "key⇥sha256" lines in sweep order)', '');
  lines.push(
    table(
      ['stage', 'generated', 'reference'],
      Object.keys({ ...s.foldedDigest.generated, ...s.foldedDigest.reference }).map((k) => [
        k,
        s.foldedDigest.generated[k] ?? '—',
        s.foldedDigest.reference[k] ?? '—',
      ]),
    ),
  );
  if (s.mismatched.count)
    lines.push(`Mismatched: ${s.mismatched.keys.slice(0, 50).join(', ')}${s.mismatched.count > 50 ? `, … (${s.mismatched.count} in survey.json)` : ''}`, '');
  if (s.missing.length) lines.push(`Missing (no record): ${s.missing.slice(0, 50).join(', ')}${s.missing.length > 50 ? ', …' : ''}`, '');
  return lines.join('\n');
}

function htmlTable(head: readonly string[], rows: readonly (readonly unknown[])[]): string {
  return `<table><thead><tr>${head.map((h) => `<th>${escapeHtml(h)}</th>`).join('')}</tr></thead><tbody>${rows
    .map((r) => `<tr>${r.map((c) => `<td>${c}</td>`).join('')}</tr>`)
    .join('')}</tbody></table>`;
}

export function surveyHtml(s: Survey): string {
  const e = escapeHtml;
  const bars = (bins: Record<string, number>) =>
    htmlTable(
      ['bin', 'requests', ''],
      Object.entries(bins).map(([k, v]) => [e(k), e(v), `<span class="bar" style="width:${s.requests ? Math.round((200 * v) / s.requests) : 0}px"></span>`]),
    );
  return `<!doctype html><html><head><meta charset="utf-8"><title>${e(s.headline)}</title>
<style>${pageCss(`body{max-width:70em}table{margin:.5em 0 1.5em}${TEXT_TABLES}.bar{display:inline-block;height:10px;background:#4a7}code{font-size:12px}`)}</style></head><body>
<h1>${e(s.headline)}</h1>
<p>heightbench ${e(s.heightbench)} · conventions <code>${e(s.conventionsHash)}</code> · detail ${e(s.detail)} · reference ${e(s.against)}</p>
<h2>Exact % over requests</h2><p>min ${e(s.exactPercent.min.toFixed(4))} · median ${e(s.exactPercent.median.toFixed(4))} · mean ${e(s.exactPercent.mean.toFixed(4))}</p>${bars(s.exactPercent.bins)}
<h2>Max |Δq| over requests</h2><p>largest ${e(s.maxAbsCode.max)}</p>${bars(s.maxAbsCode.bins)}
<h2>Worst requests</h2>${htmlTable(
    ['request', 'exact %', 'max |Δq|', 'RMS mm', 'check'],
    s.worst.map((w) => [
      e(w.key),
      e(w.exactPercent.toFixed(4)),
      e(w.maxAbsCode),
      e(w.rmsMm.toFixed(4)),
      w.check ? `<a href="${e(w.check)}">check report</a>` : '—',
    ]),
  )}
<h2>Attribution summed over requests</h2>${htmlTable(
    ['first divergent stage', 'pixels'],
    Object.entries(s.firstDivergence).map(([k, v]) => [e(k), e(v)]),
  )}${htmlTable(
    ['cause', 'pixels'],
    Object.entries(s.causes).map(([k, v]) => [e(k), e(v)]),
  )}${htmlTable(
    ['stage a difference originates in', 'pixels'],
    Object.entries(s.origins).map(([k, v]) => [e(k), e(v)]),
  )}
<h2>Folded digest per stage</h2><p>SHA-256 of "key⇥sha256" lines over the records in the sweep's order: one value per stage to hold against a stored one.</p>${htmlTable(
    ['stage', 'generated', 'reference'],
    Object.keys({ ...s.foldedDigest.generated, ...s.foldedDigest.reference }).map((k) => [
      e(k),
      `<code>${e(s.foldedDigest.generated[k] ?? '—')}</code>`,
      `<code>${e(s.foldedDigest.reference[k] ?? '—')}</code>`,
    ]),
  )}
<h2>${e(s.mismatched.count)} of ${e(s.requests)} requests mismatched</h2><p>${s.mismatched.keys.map(e).join('<br>')}</p>
${s.missing.length ? `<h2>${e(s.missing.length)} missing</h2><p>${s.missing.map(e).join('<br>')}</p>` : ''}
</body></html>
`;
}

/** Writes the report folder whole; returns the survey. `checks`: record name → relative link of its check report. */
export function writeSurveyReport(
  dir: string,
  m: SweepManifest,
  records: readonly SweepRecord[],
  missing: readonly string[],
  checks: ReadonlyMap<string, string> = new Map(),
  extra?: (stage: string) => void,
  worstCount = 10,
): Survey {
  const s = surveyOf(m, records, missing, checks, Math.max(worstCount, 10));
  writeFolderWhole(dir, (stage) => {
    extra?.(stage);
    writeFileAtomic(join(stage, 'survey.json'), `${JSON.stringify(s, null, 2)}\n`);
    writeFileAtomic(join(stage, 'summary.md'), `${surveyMarkdown(s)}\n`);
    writeFileAtomic(join(stage, 'index.html'), surveyHtml(s));
    writeFileAtomic(
      join(stage, 'metrics.json'),
      `${JSON.stringify(
        {
          requests: s.requests,
          mismatched: s.mismatched.count,
          missing: s.missing.length,
          exactPercentMin: s.exactPercent.min,
          exactPercentMean: s.exactPercent.mean,
          rmsMmMean: records.length ? records.reduce((a, r) => a + r.final.rmsMm, 0) / records.length : NaN,
          rmsMmMax: Math.max(...records.map((r) => r.final.rmsMm)),
          maxAbsCode: s.maxAbsCode.max,
        },
        null,
        2,
      )}\n`,
    );
  });
  return s;
}
