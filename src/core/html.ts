/**
 * The one escape every HTML writer uses (reports, check and regress pages, the atlas, the index, the GPU page).
 *
 * escapeHtml makes any string safe as element text and as a quoted attribute value: & < > " ' are replaced.
 * safeUrl admits a URL for href/src only when it is relative (no scheme) or uses http(s)/data:image; anything else
 * (javascript:, vbscript:, data:text/html, …) becomes "#", and the result is escaped for the attribute.
 */
const HTML_ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

export function escapeHtml(value: unknown): string {
  return String(value).replace(/[&<>"']/g, (c) => HTML_ESCAPES[c]);
}

/** A URL for an href or src attribute, escaped; unknown schemes are replaced by "#". */
export function safeUrl(url: string): string {
  // Control characters and spaces inside a scheme are ignored by browsers ("java\tscript:"): strip them before looking.
  // eslint-disable-next-line no-control-regex -- control bytes are exactly what is stripped
  const probe = url.replace(/[\u0000-\u0020\u007f]/g, '').toLowerCase();
  const scheme = /^([a-z][a-z0-9+.-]*):/.exec(probe);
  if (scheme && !['http', 'https'].includes(scheme[1]) && !probe.startsWith('data:image/')) return '#';
  return escapeHtml(url);
}

/**
 * A relative file path (segments joined by '/') as a URL reference: each segment percent-encoded, so a folder named
 * "p#1 %41?" stays part of the path instead of starting a fragment or a query, or being decoded as an escape; the
 * parentheses too (encodeURIComponent keeps them), which would end a Markdown link's destination.
 */
export function pathHref(relativePath: string): string {
  return relativePath
    .split('/')
    .map((segment) => encodeURIComponent(segment).replace(/[()]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`))
    .join('/');
}
