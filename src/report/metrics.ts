/** metrics.json: the comparison's numbers with flat dotted keys (for `dvc metrics diff`), and the `compare --json` document. */
import { HISTOGRAM_FOLD_LIMIT } from '../compare/histogram-fold.js';
import { histogramJsonText, histogramSource, type HistogramSource } from '../compare/metric-accumulators.js';
import type { ComparisonResult, RegionMetrics } from '../compare/compare.js';
import type { ReportMeta } from './report-meta.js';

/**
 * Scalar metrics with flat dotted keys: exact %, max, RMS per mask. [R] No histogram bins: one metric per bin made
 * `dvc metrics show` unreadable (lines of 18,552 characters); the Δq histogram is plot data (histogram.json).
 */
export function flattenMetrics(r: ComparisonResult): Record<string, number> {
  const out: Record<string, number> = {};
  const region = (prefix: string, m: RegionMetrics) => {
    for (const k of [
      'pixels',
      'exact',
      'exactPercent',
      'maxAbsCode',
      'meanSignedCode',
      'rmsMm',
      'maxAbsMm',
      'floatRmsMm',
      'floatMaxAbsMm',
      'floatBiasMm',
    ] as const) {
      const v = m[k];
      // [R] A metric not measured (codes of a float pair without code range: NaN) is left out, never written as 0.
      if (typeof v === 'number' && Number.isFinite(v)) out[`${prefix}${k}`] = v;
    }
  };
  region('', r);
  out.differing = r.differing;
  out.toleranceMm = r.toleranceMm;
  out.beyondTolerance = r.beyondTolerance;
  out.comparedInMetres = r.comparedIn === 'metres' ? 1 : 0;
  if (r.floatEqualPercent !== undefined && Number.isFinite(r.floatEqualPercent)) out.floatEqualPercent = r.floatEqualPercent;
  if (r.codeRange) {
    out['codeRange.min'] = r.codeRange.min;
    out['codeRange.max'] = r.codeRange.max;
  }
  out['clamped.generated.low'] = r.clamped.generated.low;
  out['clamped.generated.high'] = r.clamped.generated.high;
  out['clamped.reference.low'] = r.clamped.reference.low;
  out['clamped.reference.high'] = r.clamped.reference.high;
  for (const [name, m] of Object.entries(r.masks)) region(`masks.${name}.`, m);
  out['nonFinite.generated'] = r.nonFinite.generated;
  out['nonFinite.reference'] = r.nonFinite.reference;
  if (r.attribution) {
    out['attribution.straddle'] = r.attribution.straddle;
    out['attribution.deviation'] = r.attribution.deviation;
    out['attribution.inconsistent'] = r.attribution.inconsistent;
  }
  return out;
}

/**
 * The JSON document of `compare --json`: the result without the block arrays (their shape is kept). Where codes were
 * not compared the range is the pictures' display range: it is given as `displayRange`, never as `range`.
 */
export function resultJson(r: ComparisonResult): Record<string, unknown> {
  // The keys of `r` copied as properties, not read (a lazy histogram stays unmade: metricsJsonText writes its text from
  // the accumulator), in the order of { ...rest, range, metresPerCode (or displayRange), blocks }.
  const out = ownPropertiesExcept(r, ['blocks', 'range', 'metresPerCode']);
  if (r.codeRange) {
    out.range = r.range;
    out.metresPerCode = r.metresPerCode;
  } else out.displayRange = r.range;
  out.blocks = { size: r.blocks.size, columns: r.blocks.columns, rows: r.blocks.rows };
  return out;
}

/** A new object with `o`'s own enumerable properties but `except`, each copied as it is defined (a getter stays one). */
function ownPropertiesExcept(o: object, except: readonly string[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(o)) if (!except.includes(key)) Object.defineProperty(out, key, Object.getOwnPropertyDescriptor(o, key)!);
  return out;
}

/** Marks a histogram's place in metricsJsonText's first pass; a value that prints the same text makes it fall back. */
const HISTOGRAM_MARK = '\u0000heightbench-histogram:';

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * JSON.stringify(doc, null, 2) of a document of resultJson (with the keys `compare --json` adds), the same text: each
 * histogram — the document's and each mask's — made from a region's accumulator (histogramSource: a lazy histogram,
 * or a record of histogramRecord) is written by histogramJsonText from that accumulator, without making the record,
 * the rest by JSON.stringify around a mark in its place.
 * [R] Two unrelated fields hold tens of thousands of Δq in each of five histograms: walked by JSON.stringify, their
 *     properties were a good part of a one-shot compare (docs/speed.md).
 */
export function metricsJsonText(doc: Record<string, unknown>): string {
  const marked: HistogramSource[] = [];
  // The holder's histogram: a mark where it has a source (read no further), else its value.
  const histogramOf = (holder: Record<string, unknown>): unknown => {
    const src = histogramSource(holder);
    if (!src) return holder.histogram;
    marked.push(src);
    return `${HISTOGRAM_MARK}${marked.length - 1}`;
  };
  const withMark = (holder: Record<string, unknown>): Record<string, unknown> => {
    const copy: Record<string, unknown> = {};
    for (const key of Object.keys(holder)) copy[key] = key === 'histogram' ? histogramOf(holder) : holder[key];
    return copy;
  };
  const copy = withMark(doc);
  if (isObject(doc.masks)) {
    const masks: Record<string, unknown> = {};
    for (const [name, m] of Object.entries(doc.masks)) masks[name] = isObject(m) && 'histogram' in m ? withMark(m) : m;
    copy.masks = masks;
  }
  const text = JSON.stringify(copy, null, 2);
  const at = marked.map((_, k) => {
    const quoted = JSON.stringify(`${HISTOGRAM_MARK}${k}`);
    const i = text.indexOf(quoted);
    return i >= 0 && text.indexOf(quoted, i + 1) < 0 ? { i, end: i + quoted.length, k } : null;
  });
  // A mark not found once (a document shaped otherwise): the plain text.
  if (at.some((a) => a === null)) return JSON.stringify(doc, null, 2);
  const parts: string[] = [];
  let from = 0;
  for (const { i, end, k } of (at as { i: number; end: number; k: number }[]).sort((a, b) => a.i - b.i)) {
    const line = text.lastIndexOf('\n', i) + 1;
    let indent = 0;
    while (text.charCodeAt(line + indent) === 32) indent++;
    parts.push(text.slice(from, i), histogramJsonText(marked[k], indent));
    from = end;
  }
  parts.push(text.slice(from));
  return parts.join('');
}

/** The numbers the page shows beyond flattenMetrics (and check's extra keys): each one a key of metrics.json. */
export function pageMetrics(r: ComparisonResult, meta: ReportMeta): Record<string, number> {
  const out: Record<string, number> = { differing: r.differing, 'nonFinite.pixelsExcluded': r.nonFinite.pixelsExcluded };
  for (const [key, p] of [
    ['maxAbsCodeAt', r.maxAbsCodeAt],
    ['floatMaxAbsAt', r.floatMaxAbsAt],
  ] as const) {
    if (!p) continue;
    out[`${key}.column`] = p.pixel[0];
    out[`${key}.row`] = p.pixel[1];
    out[`${key}.x`] = p.world[0];
    out[`${key}.y`] = p.world[1];
  }
  if (r.attribution) out['attribution.differing'] = r.attribution.differing;
  const sa = meta.stageAttribution;
  if (sa) {
    out['stageAttribution.pixels'] = sa.pixels;
    for (const [st, n] of Object.entries(sa.straddlesByStage)) out[`stageAttribution.nearTies.${st}`] = n;
    for (const st of Object.keys(sa.byStage)) if (!(`stageAttribution.nearTies.${st}` in out)) out[`stageAttribution.nearTies.${st}`] = 0;
    // The |Δq| bins the summary lists per stage (the 16 smallest; the whole table is in stages.json).
    for (const [st, h] of Object.entries(sa.deltaByStage))
      for (const [d, n] of Object.entries(h)
        .sort((x, y) => Number(x[0]) - Number(y[0]))
        .slice(0, 2 * HISTOGRAM_FOLD_LIMIT))
        out[`stageAttribution.deltaByStage.${st}.${d}`] = n;
  }
  for (const { scope, diagnosis: d } of meta.diagnoses ?? []) {
    if (Number.isFinite(d.explainedShare)) out[`diagnosis.${scope}.explainedPercent`] = d.explainedShare * 100;
    if (Number.isFinite(d.differenceRmsM)) out[`diagnosis.${scope}.differenceRmsMm`] = d.differenceRmsM * 1000;
    out[`diagnosis.${scope}.explained`] = d.verdict === 'explained' ? 1 : 0;
  }
  (meta.gates ?? []).forEach((g, k) => {
    out[`gates.${k}.value`] = g.value;
    out[`gates.${k}.passed`] = g.passed ? 1 : 0;
  });
  return out;
}
