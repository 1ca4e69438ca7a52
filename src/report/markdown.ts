/** The summaries' Markdown: metric marks (a number tied to its metrics.json key) and the Markdown-to-HTML of the pages. */
import { escapeHtml } from '../core/html.js';
import { unicodeEscape } from '../core/text.js';

/**
 * A number of metrics.json (or histogram.json) as shown: in Markdown the text; in the page (markdownToHtml) a span
 * carrying data-metric="KEY", so the browser check reads every displayed count back against the file. The marks are
 * control characters that no text of ours holds.
 */
const MARK_OPEN = '\u0001';
const MARK_MID = '\u0002';
const MARK_CLOSE = '\u0003';
export function M(key: string, text: string): string {
  return `${MARK_OPEN}${key}${MARK_MID}${text}${MARK_CLOSE}`;
}
export function stripMarks(s: string): string {
  // eslint-disable-next-line no-control-regex -- the marks are control characters on purpose (see M)
  return s.replace(/\u0001[^\u0002]*\u0002([^\u0003]*)\u0003/g, '$1');
}
function marksToSpans(escaped: string): string {
  // eslint-disable-next-line no-control-regex -- the marks are control characters on purpose (see M)
  return escaped.replace(/\u0001([^\u0002]*)\u0002([^\u0003]*)\u0003/g, (_m, k: string, t: string) => `<span data-metric="${escapeHtml(k)}">${t}</span>`);
}

// eslint-disable-next-line no-control-regex -- control characters are exactly what is replaced
const MD_UNSAFE = /[\u0000-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g;

/**
 * A string from outside (a path, a title, a sidecar's words) as Markdown text of one line: every control character —
 * newline and tab included, and the metric marks' own (a title holding one would swallow the text up to the next
 * number) — DEL, C1 and the bidirectional overrides shown as `\uNNNN`, so it can neither break its line, its table
 * row or a mark, nor reorder what is shown.
 */
export function mdText(s: string): string {
  return s.replace(MD_UNSAFE, unicodeEscape);
}

/** mdText for a table cell: `|` escaped too (a gate named "max |Δq|" must not split its row). */
export function mdCell(s: string): string {
  return mdText(s).replace(/\|/g, '\\|');
}

/**
 * A string from outside as a code span (mdText's one line): fenced by one backtick more than its longest run of
 * backticks, padded with a space where it starts or ends with one (CommonMark's code spans), so a path holding a
 * backtick stays one span.
 */
export function mdCode(s: string): string {
  const t = mdText(s);
  const longest = Math.max(0, ...(t.match(/`+/g) ?? []).map((run) => run.length));
  const fence = '`'.repeat(longest + 1);
  const pad = t.startsWith('`') || t.endsWith('`') ? ' ' : '';
  return `${fence}${pad}${t}${pad}${fence}`;
}

/** Minimal Markdown-to-HTML for summaries: tables, # and ## headings, list items, paragraphs, `code` and **bold**. */
export function markdownToHtml(md: string): string {
  const out: string[] = [];
  const lines = md.split('\n');
  for (let k = 0; k < lines.length; k++) {
    const l = lines[k];
    const inline = (t: string) =>
      escapeHtml(t)
        // A code span: a run of backticks up to the next run of the same length (mdCode's fences), one padding space
        // each side taken off.
        .replace(
          /(`+)(?!`)([\s\S]*?[^`])\1(?!`)/g,
          (_m, _f: string, c: string) => `<code>${c.startsWith(' ') && c.endsWith(' ') && c.trim() ? c.slice(1, -1) : c}</code>`,
        )
        .replace(/\*\*(.*?)\*\*/g, '<b>$1</b>');
    if (l.startsWith('# ')) out.push(`<h1>${escapeHtml(l.slice(2))}</h1>`);
    else if (l.startsWith('## ')) out.push(`<h2>${escapeHtml(l.slice(3))}</h2>`);
    else if (l.startsWith('- ')) out.push(`<li>${inline(l.slice(2))}</li>`);
    else if (l.startsWith('|') && lines[k + 1]?.startsWith('|---')) {
      const cells = (s: string) =>
        s
          .slice(1, -1)
          .split(/(?<!\\)\|/)
          .map((c) => escapeHtml(c.trim().replace(/\\\|/g, '|')));
      out.push(
        '<table><tr>' +
          cells(l)
            .map((c) => `<th>${c}</th>`)
            .join('') +
          '</tr>',
      );
      k += 2;
      while (k < lines.length && lines[k].startsWith('|')) {
        out.push(
          '<tr>' +
            cells(lines[k])
              .map((c) => `<td>${c.replace(/\*\*(.*?)\*\*/g, '<b>$1</b>')}</td>`)
              .join('') +
            '</tr>',
        );
        k++;
      }
      out.push('</table>');
      k--;
    } else if (l.trim()) out.push(`<p>${inline(l)}</p>`);
  }
  return marksToSpans(out.join('\n'));
}
