/**
 * Terminal-safe text that stays JSON: every line bound for a terminal passes terminalText (src/core/text.ts), and
 * `--json` output is such a line. Regression fixture `json-escape-of-bidi-name`: a file named with a bidirectional
 * override printed as `\u{202e}` — the terminal was safe, but `info --json` and `compare --json` were no longer JSON
 * (Python's json module refused them) for any path, sidecar string or id holding DEL, a C1 control or an override.
 */
import { execFileSync } from 'node:child_process';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { terminalText } from '../src/core/text.js';
import { codeHeightfield, domainGrid, writeHeightfieldFile } from '../src/index.js';
import { tempDir } from './helpers.js';

const repo = resolve(import.meta.dirname, '..');
/** Every character terminalText escapes: C0 but newline and tab, DEL, C1, the bidirectional overrides and isolates. */
const UNSAFE: string[] = [];
for (let c = 0; c <= 0x2069; c++) {
  const inClass = (c <= 0x1f && c !== 0x0a && c !== 0x09) || (c >= 0x7f && c <= 0x9f) || (c >= 0x202a && c <= 0x202e) || c >= 0x2066;
  if (inClass) UNSAFE.push(String.fromCharCode(c));
}
// eslint-disable-next-line no-control-regex -- control characters are exactly what must not be left raw
const RAW_UNSAFE = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/u;

describe('terminalText', () => {
  it('escapes each unsafe character to visible ASCII that JSON reads back as the character', () => {
    expect(UNSAFE.length).toBe(30 + 33 + 5 + 4);
    for (const c of UNSAFE) {
      const t = terminalText(`a${c}b`);
      expect(t).not.toMatch(RAW_UNSAFE);
      expect(JSON.parse(`"${t}"`)).toBe(`a${c}b`);
      // Inside a document JSON.stringify made (C0 already escaped there, a backslash before it doubled).
      const doc = { path: `x\\${c}y` };
      expect(JSON.parse(terminalText(JSON.stringify(doc, null, 2)))).toEqual(doc);
    }
  });

  it('leaves printable text, newlines and tabs as they are', () => {
    const s = 'Δq ≤ 64\tRMS 0.34 mm\n"ref.r16" é 中 \u{1f600}';
    expect(terminalText(s)).toBe(s);
  });

  it('keeps `info --json` JSON, whole process, for a file named with an override, DEL and a C1 control', () => {
    const dir = tempDir('hb-json-escape-');
    const name = `g\u202ex\u007f\u0085.r16`;
    const path = join(dir, name);
    writeHeightfieldFile(path, codeHeightfield(domainGrid(8), new Uint16Array(64).fill(7)));
    const out = execFileSync(process.execPath, [join(repo, 'bin/heightbench.mjs'), 'info', path, '--json'], { encoding: 'utf8' });
    expect(out).not.toMatch(RAW_UNSAFE);
    const doc = JSON.parse(out) as { sidecarPath: string };
    expect(doc.sidecarPath).toBe(`${path}.json`);
  });
});
