/**
 * The one function every line bound for a terminal goes through (CLI output, error messages): control bytes from
 * file names, sidecar strings or request ids are shown as visible escapes instead of reaching the terminal raw.
 * Input: any string. Output: the same string with C0 controls other than newline and tab, DEL, C1 controls and the
 * bidirectional overrides (which reorder what a terminal shows) replaced by `\uNNNN`. Printable text, newlines and tabs
 * are unchanged. [R] `\uNNNN` because it is also JSON's escape: in `--json` output these characters can only stand
 * inside strings (JSON.stringify escapes C0 there, not DEL, C1 or the overrides), so the escaped text stays valid JSON
 * and parses back to the original string.
 */
// eslint-disable-next-line no-control-regex -- control characters are exactly what is replaced
const UNSAFE = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g;

export function terminalText(s: string): string {
  return s.replace(UNSAFE, unicodeEscape);
}

/** A character as its `\uNNNN` escape (JSON's; the characters escaped here are all in the BMP). */
export function unicodeEscape(c: string): string {
  return `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`;
}
