/** summary.md: the comparison's headline, masks, histograms, stages, diagnoses and gates in Markdown (CI logs). */
import { HISTOGRAM_FOLD_LIMIT, foldHistogram } from '../compare/histogram-fold.js';
import type { StageAttribution } from '../compare/attribution.js';
import type { ComparisonResult, FloatHistogramBin, Position, RegionMetrics } from '../compare/compare.js';
import type { MaskDefinition } from '../compare/masks.js';
import { ARTICLE_STAGE_ANCHORS_MM, SEED_PIPELINE } from '../pipelines/seed.js';
import { M, mdCell, mdCode, mdText, stripMarks } from './markdown.js';
import type { ReportMeta } from './report-meta.js';

function fmt(v: number | undefined, digits = 4): string {
  if (v === undefined || Number.isNaN(v)) return '–';
  if (Number.isInteger(v)) return String(v);
  return v.toPrecision(digits);
}

/** The folded histogram with each shown bin marked by its metrics key (prefix + `histogram.<Δq>`). */
function histogramCell(prefix: string, h: Record<string, number>): string {
  const f = foldHistogram(h);
  const sign = (d: number) => (d > 0 ? `+${d}` : String(d));
  // Whole-map bins are histogram.json's (data-metric histogram.N); mask bins are shown from the result itself.
  const parts = f.bins.map((b) => `${sign(b.dq)}: ${prefix ? String(b.count) : M(`histogram.${b.dq}`, String(b.count))}`);
  const folded: string[] = [];
  if (f.below.count > 0) folded.push(`${f.below.count} px below −${f.limit} (${f.below.bins} bins, min ${f.below.minDq})`);
  if (f.above.count > 0) folded.push(`${f.above.count} px above +${f.limit} (${f.above.bins} bins, max +${f.above.maxDq})`);
  return `${parts.join(', ')}${folded.length ? `; folded: ${folded.join(', ')}` : ''}`;
}

/** Whether the report shows mask `name`: always for the seed pipeline; for a declared one, when it declares that mask as computed. */
function maskDeclared(meta: ReportMeta, name: string, def: MaskDefinition | undefined): boolean {
  if (!meta.pipeline || meta.pipeline === SEED_PIPELINE) return true;
  const d = meta.pipeline.masks?.find((m) => m.name === name);
  if (!d || !def) return false;
  const { name: _n, ...shape } = d;
  return JSON.stringify(shape) === JSON.stringify(def);
}

/** "; n originate there, m propagated from STAGE" (metrics keys of check) when the attribution traced origins. */
function originCell(sa: StageAttribution, st: string): string {
  if (!sa.origins) return '';
  const from = Object.entries(sa.origins.propagated[st] ?? {}).map(
    ([f, n]) => `${M(`stageAttribution.propagated.${st}.${f}`, String(n))} propagated from ${f}`,
  );
  return ` — ${M(`stageAttribution.origin.${st}`, String(sa.origins.byStage[st] ?? 0))} originate there${from.length ? `, ${from.join(', ')}` : ''}`;
}

/** A signed float histogram bin as printed: "0", "+(1, 10] mm", "−(10000, ∞) mm". */
export function floatBinLabel(b: FloatHistogramBin): string {
  if (b.sign === 0) return '0';
  const hi = b.hiMm === null ? '∞)' : `${b.hiMm}]`;
  return `${b.sign < 0 ? '−' : '+'}(${b.loMm}, ${hi} mm`;
}

/** The signed mm histogram in one line (empty bins left out; equality is its own bin). */
export function floatHistogramText(h: readonly FloatHistogramBin[]): string {
  return h
    .filter((b) => b.count > 0 || b.sign === 0)
    .map((b) => `${floatBinLabel(b)}: ${b.count}`)
    .join(', ');
}

/** The clamped counts per side, in words. */
export function clampText(r: ComparisonResult): string {
  const c = r.clamped;
  return `clamped by the range: generated ${M('clamped.generated.low', String(c.generated.low))} low, ${M('clamped.generated.high', String(c.generated.high))} high; reference ${M('clamped.reference.low', String(c.reference.low))} low, ${M('clamped.reference.high', String(c.reference.high))} high`;
}

/** Where the codes were compared through, or why they were not — every output says it. */
export function codeRangeText(r: ComparisonResult): string {
  if (!r.codeRange)
    return 'not compared: both sides hold float heights and no range was stated to encode them (--range MIN,MAX states one; no default range is ever taken)';
  return `code range ${r.codeRange.min}…${r.codeRange.max} m from ${r.codeRange.source} (1 code = ${(r.metresPerCode * 1000).toFixed(3)} mm)`;
}

export function summaryLines(r: ComparisonResult, meta: ReportMeta): string[] {
  const L: string[] = [];
  L.push(`# ${mdText(meta.title ?? 'Comparison')}`, '');
  // The headline first: how many pixels differ, the largest difference and where, the gates.
  const failed = (meta.gates ?? []).filter((g) => !g.passed);
  const gatesText = meta.gates?.length ? `; gates: ${failed.length ? `**${failed.length} FAIL**` : 'all pass'}` : '';
  const tolText = r.toleranceMm > 0 ? `; ${M('beyondTolerance', String(r.beyondTolerance))} beyond ${M('toleranceMm', String(r.toleranceMm))} mm` : '';
  // Pixels left out of every count are said in the headline: "0 of N differ" must not read as "all equal".
  const leftOut =
    r.nonFinite.pixelsExcluded > 0
      ? `; **${M('nonFinite.pixelsExcluded', String(r.nonFinite.pixelsExcluded))} more pixel${r.nonFinite.pixelsExcluded === 1 ? '' : 's'} not compared** (non-finite on a side)`
      : '';
  const at = (p: Position | null | undefined, key: string) =>
    p
      ? ` at pixel (${M(`${key}.column`, String(p.pixel[0]))}, ${M(`${key}.row`, String(p.pixel[1]))}), world (${M(`${key}.x`, p.world[0].toFixed(2))}, ${M(`${key}.y`, p.world[1].toFixed(2))}) m`
      : '';
  if (r.comparedIn === 'metres') {
    L.push(
      `**${M('differing', String(r.differing))} of ${M('pixels', String(r.pixels))} pixels differ in height** (equal ${M('floatEqualPercent', fmt(r.floatEqualPercent, 6))} %, compared in metres); max |Δ| = ${M('floatMaxAbsMm', fmt(r.floatMaxAbsMm))} mm${at(r.floatMaxAbsAt, 'floatMaxAbsAt')}; RMS ${M('floatRmsMm', fmt(r.floatRmsMm))} mm; bias ${M('floatBiasMm', fmt(r.floatBiasMm))} mm` +
        tolText +
        leftOut +
        gatesText +
        '.',
      '',
    );
    L.push(`Signed Δ histogram (generated − reference, mm): ${floatHistogramText(r.floatHistogramMm ?? [])}.`, '');
    L.push(
      r.codeRange
        ? `Codes: ${codeRangeText(r)} — exact ${M('exactPercent', fmt(r.exactPercent, 6))} %, largest |Δq| = ${M('maxAbsCode', String(r.maxAbsCode))}${at(r.maxAbsCodeAt, 'maxAbsCodeAt')}; ${clampText(r)}${r.clamped.total > 0 ? ' — **heights outside the range: the codes measure the range, not the field**' : ''}.`
        : `Codes ${codeRangeText(r)}.`,
      '',
    );
    L.push(`generated ${mdCode(meta.generated)} vs reference ${mdCode(meta.reference)} — ${r.grid.columns}×${r.grid.rows}`, '');
  } else {
    L.push(
      `**${M('differing', String(r.differing))} of ${M('pixels', String(r.pixels))} pixels differ** (exact ${M('exactPercent', fmt(r.exactPercent, 6))} %); largest |Δq| = ${M('maxAbsCode', String(r.maxAbsCode))}` +
        at(r.maxAbsCodeAt, 'maxAbsCodeAt') +
        `; RMS ${M('rmsMm', fmt(r.rmsMm))} mm` +
        tolText +
        leftOut +
        gatesText +
        '.',
      '',
    );
    L.push(`generated ${mdCode(meta.generated)} vs reference ${mdCode(meta.reference)} — ${r.grid.columns}×${r.grid.rows}, ${codeRangeText(r)}`, '');
  }
  for (const w of meta.warnings ?? []) L.push(`**Warning:** ${mdText(w)}`, '');
  if (meta.referenceKind) L.push(`Reference: ${mdText(meta.referenceKind)}.`, '');
  for (const n of meta.notes ?? []) L.push(mdText(n));
  if (meta.notes?.length) L.push('');
  // The float columns first when a side is float; the code columns only where codes were compared.
  const codes = r.codeRange !== null;
  const floatCols = r.floatRmsMm !== undefined;
  L.push(
    '| scope | pixels |' +
      (floatCols ? ' float RMS mm | float max mm | float bias mm |' : '') +
      (codes ? ` exact % | Δq histogram (beyond ±${HISTOGRAM_FOLD_LIMIT} folded) | max \\|Δq\\| | RMS mm | max mm |` : ''),
  );
  L.push('|---|---|' + (floatCols ? '---|---|---|' : '') + (codes ? '---|---|---|---|---|' : ''));
  const row = (name: string, prefix: string, m: RegionMetrics) => {
    let s = `| ${name} | ${M(`${prefix}pixels`, String(m.pixels))} |`;
    if (floatCols)
      s += ` ${M(`${prefix}floatRmsMm`, fmt(m.floatRmsMm))} | ${M(`${prefix}floatMaxAbsMm`, fmt(m.floatMaxAbsMm))} | ${M(`${prefix}floatBiasMm`, fmt(m.floatBiasMm))} |`;
    if (codes)
      s += ` ${M(`${prefix}exactPercent`, fmt(m.exactPercent, 6))} | ${histogramCell(prefix, m.histogram)} | ${M(`${prefix}maxAbsCode`, String(m.maxAbsCode))} | ${M(`${prefix}rmsMm`, fmt(m.rmsMm))} | ${M(`${prefix}maxAbsMm`, fmt(m.maxAbsMm))} |`;
    L.push(s);
  };
  row('full map', '', r);
  for (const [name, m] of Object.entries(r.masks)) if (maskDeclared(meta, name, m.definition)) row(name, `masks.${name}.`, m);
  L.push('');
  if (r.nonFinite.pixelsExcluded > 0)
    L.push(
      `Non-finite values excluded: generated ${M('nonFinite.generated', String(r.nonFinite.generated))}, reference ${M('nonFinite.reference', String(r.nonFinite.reference))} (${M('nonFinite.pixelsExcluded', String(r.nonFinite.pixelsExcluded))} pixels).`,
      '',
    );
  // Always stated: the metrics above are over the compared pixels only.
  L.push(`Pixels compared: ${r.pixels} of ${r.grid.columns * r.grid.rows}.`, '');
  if (r.nonFinite.pixelsExcluded > 0)
    L.push(`Non-finite values excluded: generated ${r.nonFinite.generated}, reference ${r.nonFinite.reference} (${r.nonFinite.pixelsExcluded} pixels).`, '');
  if (r.attribution) {
    const a = r.attribution;
    // The one count of quantization straddles on the page (the stage attribution below counts near-ties, defined there).
    L.push(
      `Residual attribution (ε = ${a.epsilonCodes} code = ${a.epsilonMm.toFixed(4)} mm): ${M('attribution.differing', String(a.differing))} differing pixels — ${M('attribution.straddle', String(a.straddle))} quantization straddles (the generated float within ε of the code boundary the reference crossed), ${M('attribution.deviation', String(a.deviation))} real deviations${a.inconsistent ? `, ${M('attribution.inconsistent', String(a.inconsistent))} where the float does not encode to the generated code` : ''}.`,
      '',
    );
  }
  const pipeline = meta.pipeline ?? SEED_PIPELINE;
  if (meta.stages?.length && pipeline !== SEED_PIPELINE) {
    // A declared pipeline's table: the whole field, the inner disk when it declares one, its own anchors when it has some.
    const inner = maskDeclared(meta, 'innerDisk', r.masks.innerDisk?.definition);
    const anchors = pipeline.anchors ?? [];
    L.push('## Stages', '', `Float difference per stage dump (generated − reference), in the declared order of pipeline ${pipeline.name}.`, '');
    // The whole map first (a difference near the edge is not hidden by the inner disk), then the declared masks.
    L.push(
      `| stage | max mm | RMS mm | pixels differing | ${inner ? 'innerDisk RMS mm | ' : ''}${anchors.length ? 'anchor mm | ' : ''}${inner ? 'innerDisk max mm | ' : ''}`,
      `|---|---|---|---|${inner ? '---|' : ''}${anchors.length ? '---|' : ''}${inner ? '---|' : ''}`,
    );
    for (const s of meta.stages) {
      const an = anchors.filter((a) => a.stage === s.stage).map((a) => `${a.rmsMm} (${a.mask})`);
      L.push(
        `| ${s.stage} | ${M(`stages.${s.stage}.maxAbsMm`, fmt(s.maxAbsMm))} | ${M(`stages.${s.stage}.rmsMm`, fmt(s.rmsMm))} | ${s.differing === undefined ? '–' : M(`stages.${s.stage}.differing`, String(s.differing))} | ${inner ? `${M(`stages.${s.stage}.innerRmsMm`, fmt(s.innerRmsMm))} | ` : ''}${anchors.length ? `${an.join(', ') || '–'} | ` : ''}${inner ? `${M(`stages.${s.stage}.innerMaxAbsMm`, fmt(s.innerMaxAbsMm))} | ` : ''}`,
      );
    }
    for (const a of anchors) L.push(`Anchor of ${a.stage}: ${a.basis}.`);
    L.push('');
  } else if (meta.stages?.length) {
    L.push(
      '## Stages',
      '',
      "Float difference per stage dump (generated − reference). [D] anchors: the article's inner-400 m RMS of its rebuild against the original system's reference (a different experiment, shown for scale).",
      '',
    );
    // The whole map first (a difference near the edge is not hidden by the inner disk), then the inner 400 m disk.
    L.push('| stage | max mm | RMS mm | pixels differing | inner 400 m RMS mm | article anchor mm | inner max mm |', '|---|---|---|---|---|---|---|');
    for (const s of meta.stages)
      L.push(
        `| ${s.stage} | ${M(`stages.${s.stage}.maxAbsMm`, fmt(s.maxAbsMm))} | ${M(`stages.${s.stage}.rmsMm`, fmt(s.rmsMm))} | ${s.differing === undefined ? '–' : M(`stages.${s.stage}.differing`, String(s.differing))} | ${M(`stages.${s.stage}.innerRmsMm`, fmt(s.innerRmsMm))} | ${ARTICLE_STAGE_ANCHORS_MM[s.stage] ?? '–'} | ${M(`stages.${s.stage}.innerMaxAbsMm`, fmt(s.innerMaxAbsMm))} |`,
      );
    L.push('');
  }
  const sa = meta.stageAttribution;
  if (sa) {
    L.push('## Stage attribution', '', 'For every differing final code, the first stage at which the two fields differ by more than ε there:', '');
    L.push(
      `${M('stageAttribution.differing', String(sa.differing))} of ${M('stageAttribution.pixels', String(sa.pixels))} final codes differ; stage ε = ${sa.epsilonMm} mm. Of them ${M('stageAttribution.straddles', String(sa.straddles))} are near-ties (|Δq| = 1 with the two pre-encode heights within ${sa.straddleMm.toFixed(3)} mm of each other — a looser test than the quantization straddle above).`,
      '',
    );
    for (const st of [...sa.stages, 'final-only', 'outside-window']) {
      const n = sa.byStage[st];
      if (!n) continue;
      const where = st === 'final-only' ? 'only at the encode' : st === 'outside-window' ? 'outside the dumped window' : `in ${st}`;
      const h = Object.entries(sa.deltaByStage[st] ?? {})
        .sort((x, y) => Number(x[0]) - Number(y[0]))
        .slice(0, 2 * HISTOGRAM_FOLD_LIMIT)
        .map(([d, c]) => `|Δq| ${d}: ${M(`stageAttribution.deltaByStage.${st}.${d}`, String(c))}`)
        .join(', ');
      L.push(
        `- ${M(`stageAttribution.firstStage.${st}`, String(n))} first diverge ${where} (${M(`stageAttribution.nearTies.${st}`, String(sa.straddlesByStage[st] ?? 0))} near-ties; ${h})${originCell(sa, st)}`,
      );
    }
    if (sa.skipped.length) L.push(`- not compared (dumped on one side only): ${sa.skipped.join(', ')}`);
    L.push('');
  }
  if (meta.diagnoses?.length) {
    L.push('## Diagnosis', '', 'The likely cause of each difference (least-squares signatures and direct flip checks; `heightbench diagnose`):', '');
    for (const { scope, diagnosis: d } of meta.diagnoses) {
      L.push(
        `- **${scope}**: ${d.summary}${d.verdict === 'identical' ? '' : ` (R² ${M(`diagnosis.${scope}.explainedPercent`, fmt(d.explainedShare * 100, 4))} %)`}`,
      );
      for (const f of d.findings.slice(1, 4)) L.push(`  - ${f.sentence}`);
    }
    L.push('');
  }
  if (meta.gates?.length) {
    L.push('| gate | limit | value | result |', '|---|---|---|---|');
    const cell = mdCell;
    meta.gates.forEach((g, k) => L.push(`| ${cell(g.name)} | ${g.limit} | ${M(`gates.${k}.value`, fmt(g.value, 6))} | ${g.passed ? 'pass' : '**FAIL**'} |`));
    L.push('');
  }
  return L;
}
/** [R] The most summary.md may hold: a CI log shows the headline, not a page of histogram bins. */
export const SUMMARY_MAX_BYTES = 60 * 1024;

/** summary.md: the headline first, histograms folded beyond ±8; bounded by SUMMARY_MAX_BYTES (truncated with a note). */
export function summaryMarkdown(r: ComparisonResult, meta: ReportMeta): string {
  return boundSummary(stripMarks(`${summaryLines(r, meta).join('\n')}\n`));
}

export function boundSummary(md: string): string {
  if (Buffer.byteLength(md) <= SUMMARY_MAX_BYTES) return md;
  const note = '\n… (summary truncated at 60 KB; every number is in metrics.json and histogram.json)\n';
  let s = md.slice(0, SUMMARY_MAX_BYTES - 200);
  while (Buffer.byteLength(s) > SUMMARY_MAX_BYTES - note.length - 8) s = s.slice(0, -100);
  return s.slice(0, s.lastIndexOf('\n')) + note;
}
