/**
 * Strings from outside in the summaries' Markdown and the pages' links (src/report/markdown.ts mdText, mdCell, mdCode;
 * src/core/html.ts pathHref). Regression fixture `mark-byte-in-title`: a title or path holding \u0001 — the metric
 * marks' own byte — swallowed summary.md's text up to the next number; a newline in a title wrote a table of its own; a
 * backtick in a path split its code span; a shared Plotly under "p#1 %41?" was linked as a fragment and never loaded.
 */
import { describe, expect, it } from 'vitest';
import { codeHeightfield, compareHeightfields, domainGrid } from '../src/index.js';
import { escapeHtml, pathHref } from '../src/core/html.js';
import { markdownToHtml, mdCell, mdCode, mdText, stripMarks } from '../src/report/markdown.js';
import { summaryLines, summaryMarkdown } from '../src/report/summary-markdown.js';
import { regressionMarkdown, type RunRegression } from '../src/report/regress-report.js';

// eslint-disable-next-line no-control-regex -- control characters are exactly what must not be left raw
const RAW = /[\u0000-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/u;
/** RAW but the newline (a document's own line breaks). */
// eslint-disable-next-line no-control-regex -- as above
const RAW_IN_LINE = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/u;
const HOSTILE = ['a\u0001b\u0002c\u0003d', 'T\n| x |\n|---|\n| y |', 'tab\there', 'rtl\u202eoverride', 'del\u007fc1\u0085'];

describe('strings from outside in Markdown', () => {
  it('mdText: one visible line, every control, mark byte and override escaped; printable text as it is', () => {
    for (const s of HOSTILE) {
      const t = mdText(s);
      expect(t).not.toMatch(RAW);
      expect(t).not.toContain('\n');
      // The escapes are JSON's: the text reads back as the string.
      expect(JSON.parse(`"${t.replace(/"/g, '\\"')}"`)).toBe(s);
    }
    const plain = 'Run 7 — Δq ≤ 64, `code` and **bold** é 中';
    expect(mdText(plain)).toBe(plain);
  });

  it('mdCell: a cell with | and a newline stays one cell of one row', () => {
    const row = `| ${mdCell('gen|a\nb.r16')} | x |`;
    const html = markdownToHtml(`| a | b |\n|---|---|\n${row}\n`);
    expect(html.match(/<td>/g)?.length).toBe(2);
    expect(html).toContain('<td>gen|a\\u000ab.r16</td>');
  });

  it('mdCode: a path with backticks is one code span, shown as it is', () => {
    for (const s of ['/tmp/g`x.r16', '``two`` and `one`', '`starts', 'ends`', 'plain.r16', 'a ` b']) {
      const html = markdownToHtml(`generated ${mdCode(s)} vs reference ${mdCode('ref.r16')}`);
      expect(html).toBe(`<p>generated <code>${escapeHtml(s)}</code> vs reference <code>ref.r16</code></p>`);
    }
  });

  it("a comparison's summary keeps every number and its marks whatever the title and the paths hold", () => {
    const g = domainGrid(16);
    const ref = Uint16Array.from({ length: 256 }, (_, k) => 1000 + k);
    const gen = ref.map((q, k) => (k % 5 === 0 ? q + 2 : q));
    const r = compareHeightfields(codeHeightfield(g, gen), codeHeightfield(g, ref));
    const plain = { generated: 'gen.r16', reference: 'ref.r16', title: 'Run' };
    const spans = (md: string) => markdownToHtml(md).match(/data-metric="/g)?.length ?? 0;
    const want = spans(summaryLines(r, plain).join('\n'));
    expect(want).toBeGreaterThan(10);
    for (const s of HOSTILE) {
      const meta = { generated: `/tmp/${s}/g\`x.r16`, reference: `r|ef\`${s}.r16`, title: `Run ${s}`, notes: [`note ${s}`] };
      const lines = summaryLines(r, meta).join('\n');
      expect(spans(lines)).toBe(want);
      const md = summaryMarkdown(r, meta);
      expect(md).not.toMatch(RAW_IN_LINE);
      // The headline's numbers are all there, and the title is one heading line.
      expect(md).toContain(`**${r.differing} of ${r.pixels} pixels differ**`);
      expect(stripMarks(lines)).toContain(`**${r.differing} of ${r.pixels} pixels differ**`);
      expect(md.split('\n')[0]).toBe(`# ${mdText(meta.title)}`);
      expect(markdownToHtml(md)).toContain(`<code>${escapeHtml(mdText(meta.generated))}</code>`);
    }
  });
});

describe("regress's table", () => {
  it('a label from heightbench.yaml with |, brackets and a newline stays one link in one cell of one row', () => {
    const run = (label: string, here: boolean): RunRegression => ({
      run: 'r1',
      request: 'r1',
      kind: 'check',
      report: 'reports/r1',
      label,
      histogram: [null, null],
      status: 'compared',
      base: null,
      here: here ? { exactPercent: 100 } : null,
      gatesPassed: true,
      blessed: false,
      movedHashes: [],
      stages: [],
      verdict: 'pass',
      reasons: [],
    });
    for (const here of [true, false]) {
      const md = regressionMarkdown({ base: 'main', baseCommit: '0123456789abcdef', runs: [run('gen [a|b]\n| x |', here)], failed: false });
      const rows = md.split('\n').filter((l) => l.startsWith('| r1 '));
      expect(rows.length).toBe(1);
      expect(rows[0].split(/(?<!\\)\|/).length).toBe(14);
      if (here) expect(rows[0]).toContain('[gen \\[a\\|b\\]\\u000a\\| x \\|](r1/index.html)');
    }
  });
});

describe('pathHref', () => {
  it('percent-encodes each segment, so a URL parser finds the file', () => {
    const rel = '../p#1 %41?/(x)/plotly.min.js';
    const href = pathHref(rel);
    expect(href).toBe('../p%231%20%2541%3F/%28x%29/plotly.min.js');
    const url = new URL(href, 'file:///tmp/hb/rep2/index.html');
    expect(url.hash).toBe('');
    expect(url.search).toBe('');
    expect(decodeURIComponent(url.pathname)).toBe('/tmp/hb/p#1 %41?/(x)/plotly.min.js');
  });
});
