/**
 * The one function every line bound for a terminal goes through (CLI output, error messages): control bytes from
 * file names, sidecar strings or request ids are shown as visible escapes instead of reaching the terminal raw.
 * Input: any string. Output: the same string with C0 controls other than newline and tab, DEL, C1 controls and the
 * bidirectional overrides (which reorder what a terminal shows) replaced by `\xNN` / `\u{NNNN}`. Printable text,
 * newlines and tabs are unchanged, so JSON output stays JSON.
 */
// eslint-disable-next-line no-control-regex -- control characters are exactly what is replaced
const UNSAFE = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g;

export function terminalText(s: string): string {
  return s.replace(UNSAFE, (c) => {
    const n = c.charCodeAt(0);
    return n <= 0xff ? `\\x${n.toString(16).padStart(2, '0')}` : `\\u{${n.toString(16)}}`;
  });
}
