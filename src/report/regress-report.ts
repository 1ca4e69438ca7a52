/**
 * The regress review rendered: its Markdown (bounded for a CI log), the difference maps' changed blocks as a picture,
 * and its HTML page. The review itself (git, dvc.lock, the verdicts) is src/runs/regress.ts.
 */
import { decode, encode } from 'fast-png';
import { FormatError } from '../errors.js';
import { foldHistogram, foldedHistogramText } from '../compare/histogram-fold.js';
import { escapeHtml, safeUrl } from '../core/html.js';
import { checkPngChunks, inflateImageData, readPngHeader } from '../io/png16.js';
import { markdownToHtml, mdCell } from './markdown.js';
import { pageCss } from './page-style.js';

/** A comparison's metrics.json (name → value). */
export type Metrics = Record<string, number>;

export interface StageRow {
  stage: string;
  innerRmsMm: [number | null, number | null];
  generated: 'same' | 'moved' | 'new' | 'gone' | '–';
  reference: 'same' | 'moved' | 'new' | 'gone' | '–';
}

export interface RunRegression {
  /** The comparison's name (heightbench's own: RUN-gpu, RUN-gpu-d3d, RUN-gpu-f64 or RUN). */
  run: string;
  /** The group it belongs to (a params.yaml run; a declared comparison's group). */
  request: string;
  kind: 'gpu' | 'consistency' | 'check';
  /** Its report folder, relative to the repository. */
  report: string;
  /** What is compared, in words. */
  label: string;
  /** Δq histogram (bins as decimal Δq keys) on each side, from histogram.json (or an older metrics.json's bins). */
  histogram: [Record<string, number> | null, Record<string, number> | null];
  status: 'compared' | 'missing here' | 'new run';
  base: Metrics | null;
  here: Metrics | null;
  gatesPassed: boolean | null;
  blessed: boolean;
  movedHashes: string[];
  stages: StageRow[];
  verdict: 'pass' | 'FAIL' | 'n/a';
  reasons: string[];
}

export interface Regression {
  base: string;
  baseCommit: string;
  runs: RunRegression[];
  failed: boolean;
}

/** A label from heightbench.yaml as a link's text in a table cell: one line, `|` and the brackets escaped. */
function linkText(label: string): string {
  return mdCell(label).replace(/[[\]]/g, '\\$&');
}

function num(v: number | null | undefined, digits: number): string {
  if (v === null || v === undefined || Number.isNaN(v)) return '–';
  return Number.isInteger(v) ? String(v) : v.toFixed(digits);
}

function pair(a: number | null | undefined, b: number | null | undefined, digits: number): string {
  const x = num(a, digits);
  const y = num(b, digits);
  return x === y ? y : `${x} → **${y}**`;
}

/** A histogram as one bounded line: bins beyond ±8 folded into counted tails. */
function histogram(h: Record<string, number> | null): string {
  return h ? foldedHistogramText(foldHistogram(h)) : '–';
}

/** The most a step summary or pull-request comment holds comfortably (GitHub's limits are 1 MiB and 64 KiB). */
export const REGRESS_MARKDOWN_LIMIT = 60_000;

/** Cuts Markdown at a line boundary to stay within `limit` bytes, saying where the rest is. */
export function boundMarkdown(md: string, limit = REGRESS_MARKDOWN_LIMIT): string {
  if (Buffer.byteLength(md) <= limit) return md;
  const note = '\n\n… cut to stay under 60 KB: the full text is regress/summary.md in the reports artefact.\n';
  let cut = md.slice(0, limit - Buffer.byteLength(note));
  while (Buffer.byteLength(cut) > limit - Buffer.byteLength(note)) cut = cut.slice(0, -1024);
  return `${cut.slice(0, cut.lastIndexOf('\n'))}${note}`;
}

/**
 * The Markdown report. `full`: every comparison's per-stage table; otherwise one whose stages all hash and measure as
 * at the base gets one line. `linkBase`: prefix of the report links (relative to reports/; '../' from reports/regress/).
 */
export function regressionMarkdown(r: Regression, full = true, linkBase = ''): string {
  const L: string[] = [];
  L.push(`# heightbench regress: this tree against ${r.base} (${r.baseCommit.slice(0, 10)})`, '');
  const n = r.runs.length;
  L.push(
    `Verdict: **${r.failed ? 'FAIL' : 'pass'}** — ${r.runs.filter((x) => x.verdict === 'FAIL').length} of ${n} comparisons fail. A comparison fails when a gate fails here, or when a stage hash moved without a bless (its bless record or dvc.lock reference hash changed). Values: base → **this tree** where they differ. Links are relative to reports/ (the CI artefact).`,
    '',
  );
  const table = (kind: RunRegression['kind'], title: string) => {
    const rows = r.runs.filter((x) => x.kind === kind);
    if (!rows.length) return;
    L.push(`## ${title}`, '');
    L.push('| run | status | exact % | Δq histogram | max \\|Δq\\| | RMS mm | max mm | gates | stage hashes moved | blessed | verdict | report |');
    L.push('|---|---|---|---|---|---|---|---|---|---|---|---|');
    for (const x of rows) {
      const b = x.base;
      const h = x.here;
      const hb = histogram(x.histogram[0]);
      const hh = histogram(x.histogram[1]);
      L.push(
        `| ${x.run} | ${x.status} | ${pair(b?.exactPercent, h?.exactPercent, 4)} | ${hb === hh ? hh : `${hb} → **${hh}**`} | ${pair(b?.maxAbsCode, h?.maxAbsCode, 0)} | ${pair(b?.rmsMm, h?.rmsMm, 4)} | ${pair(b?.maxAbsMm, h?.maxAbsMm, 3)} | ${x.gatesPassed === null ? '–' : x.gatesPassed ? 'pass' : '**FAIL**'} | ${x.movedHashes.length || 0} | ${x.blessed ? 'yes' : 'no'} | ${x.verdict === 'FAIL' ? '**FAIL**' : x.verdict} | ${h ? `[${linkText(x.label)}](${linkBase}${x.run}/index.html)` : mdCell(x.label)} |`,
      );
    }
    L.push('');
  };
  table('gpu', "CPU against the independent GPU reference (the article's comparison)");
  table('consistency', 'Consistency: f32 against our own f64 references');
  table('check', 'Declared comparisons (heightbench.yaml): generated against reference');
  for (const x of r.runs) {
    if (x.reasons.length) L.push(`- **${x.run}**: ${x.reasons.join('; ')}`);
  }
  if (r.runs.some((x) => x.reasons.length)) L.push('');
  for (const x of r.runs) {
    if (!x.stages.length) continue;
    const unchanged = x.stages.every(
      (s) => s.innerRmsMm[0] === s.innerRmsMm[1] && (s.generated === 'same' || s.generated === '–') && (s.reference === 'same' || s.reference === '–'),
    );
    if (unchanged && !full) {
      L.push(`- ${x.run}: all ${x.stages.length} stage outputs hash and measure as at ${r.base}`);
      continue;
    }
    L.push(`## ${x.run}: per stage`, '');
    L.push(`| stage output | inner-400 m RMS mm (${x.label}) | generated hash | reference hash |`, '|---|---|---|---|');
    for (const s of x.stages) {
      const [a, b] = s.innerRmsMm;
      const rms = a === null && b === null ? '–' : a === b ? num(b, 6) : `${num(a, 6)} → **${num(b, 6)}**`;
      const mark = (v: string) => (v === 'moved' ? '**moved**' : v);
      L.push(`| ${s.stage} | ${rms} | ${mark(s.generated)} | ${mark(s.reference)} |`);
    }
    L.push('');
  }
  return `${L.join('\n')}\n`;
}

const CHANNELS: Record<number, number> = { 0: 1, 2: 3, 3: 1, 4: 2, 6: 4 };
/** Largest difference map regress decodes [R]: a run's block map is far smaller. */
const MAX_DIFFMAP_PIXELS = 1 << 24;

/**
 * A difference map decoded with its size bounded: header, chunks and CRCs checked, the image data inflated with a
 * cap at what the IHDR promises (a deflate bomb stops there), then decoded; anything else is a FormatError naming it.
 */
function decodePngBounded(bytes: Uint8Array, what: string): ReturnType<typeof decode> {
  try {
    const h = readPngHeader(bytes);
    const ch = CHANNELS[h.colourType];
    if (ch === undefined || h.interlace !== 0 || (h.bitDepth !== 8 && h.bitDepth !== 16)) {
      throw new FormatError(`colour type ${h.colourType}, bit depth ${h.bitDepth}, interlace ${h.interlace}: expected a non-interlaced 8- or 16-bit picture`);
    }
    if (h.width * h.height > MAX_DIFFMAP_PIXELS) throw new FormatError(`${h.width}×${h.height} is over the limit of ${MAX_DIFFMAP_PIXELS} pixels`);
    const expected = h.height * (1 + h.width * ch * (h.bitDepth / 8));
    inflateImageData(checkPngChunks(bytes, h), expected, `a ${h.width}×${h.height} IHDR`);
    return decode(bytes);
  } catch (e) {
    throw new FormatError(`${what}: not a readable difference map (${(e as Error).message})`);
  }
}

/** Pixels where two RGB pictures differ, drawn dark on light grey (null when sizes differ or either is missing). */
export function changedPixels(a: Buffer | null, b: Buffer | null, what: string): { png: Uint8Array; changed: number } | null {
  if (!a || !b) return null;
  const x = decodePngBounded(a, `${what} (base)`);
  const y = decodePngBounded(b, `${what} (this tree)`);
  if (x.width !== y.width || x.height !== y.height || x.channels !== y.channels) return null;
  const c = x.channels;
  const out = new Uint8Array(x.width * x.height * 3).fill(235);
  let changed = 0;
  for (let k = 0; k < x.width * x.height; k++) {
    let diff = false;
    for (let ch = 0; ch < c; ch++) if (x.data[k * c + ch] !== y.data[k * c + ch]) diff = true;
    if (diff) {
      changed++;
      out[k * 3] = 20;
      out[k * 3 + 1] = 20;
      out[k * 3 + 2] = 20;
    }
  }
  return { png: encode({ width: x.width, height: x.height, data: out, depth: 8, channels: 3 }), changed };
}

/** A picture of the page: its file (already written beside the page), alt text and caption. */
export function regressionFigure(file: string, alt: string, caption: string): string {
  return `<figure><img src="${safeUrl(file)}" alt="${escapeHtml(alt)}"><figcaption>${escapeHtml(caption)}</figcaption></figure>`;
}

/** One comparison's difference maps on the page. */
export function regressionSection(run: string, label: string, figs: readonly string[]): string {
  return `<h2>${escapeHtml(run)}: difference maps (${escapeHtml(label)}; red above, blue below, white equal)</h2><div class="row">${figs.join('')}</div>`;
}

/** The page: the Markdown summary, then every comparison's difference maps. */
export function regressionPage(base: string, md: string, sections: readonly string[]): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>heightbench regress against ${escapeHtml(base)}</title>
<style>${pageCss(`body{max-width:1400px}.row{display:flex;flex-wrap:wrap;gap:12px}
figure{margin:0}img{width:400px;image-rendering:pixelated;border:1px solid #ccc}figcaption{font-size:13px;color:#555}`)}</style></head><body>
${markdownToHtml(md)}
${sections.join('\n')}
</body></html>
`;
}
