/**
 * The survey report of a sweep: index.html, summary.md (a CI step summary), survey.json and metrics.json (a DVC metric).
 *
 * Inputs: the sweep's manifest, its records in the sweep's order, the requests without a record, and optionally the
 * worst requests' rerun check reports (folder names under worst/, made by the caller with stage dumps).
 * Outputs: the report folder, written whole (writeFolderWhole: staged, then swapped in).
 * Rules: the figures are sweep/survey-figures.ts's (surveyOf); every text reaching HTML is escaped.
 */
import { join } from 'node:path';
import { escapeHtml, pathHref } from '../core/html.js';
import { pageCss, TEXT_TABLES } from './page-style.js';
import { mdCell } from './markdown.js';
import { writeFileAtomic } from '../io/atomic.js';
import { writeFolderWhole } from '../io/report-folder.js';
import type { SweepRecord } from '../sweep/batch.js';
import type { SweepManifest } from '../sweep/records.js';
import { surveyOf, type Survey } from '../sweep/survey-figures.js';

/** A Markdown table; a cell's own '|' is escaped so it cannot split the row. */
function table(head: readonly string[], rows: readonly (readonly (string | number)[])[]): string {
  const cell = (c: string | number) => mdCell(String(c));
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
        s.worst.map((w) => [w.key, w.exactPercent.toFixed(4), w.maxAbsCode, w.rmsMm.toFixed(4), w.check ? `[report](${pathHref(w.check)})` : '—']),
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
