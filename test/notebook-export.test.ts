// The notebooks' HTML export (scripts/notebooks.py html_body and cached_html_body, what make reproduce publishes in
// reports/notebooks/): nbconvert renders an executed notebook whose figure output carries plotly.min.js inline; the
// page links the shared ../plotly.min.js instead and loads nothing from a CDN. The page served from the cache is the
// page nbconvert makes (same bytes), a changed notebook misses the cache, and the rfc3987_syntax import is kept out
// (jsonschema then has no "iri" check, which the notebook schema does not use) without changing validation.
import { spawnSync } from 'node:child_process';
import { readdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempDir } from './helpers.js';

const ROOT = resolve(import.meta.dirname, '..');
const PY = join(ROOT, '.venv', 'bin', 'python');

/** An executed notebook (nbformat 4) with a markdown cell, a code cell and a figure output holding plotly inline. */
function executedNotebook(extra: string): string {
  const figure = `<div id="fig"></div><script data-heightbench-plotly="inline">/* plotly.min.js ${'x'.repeat(5000)} */</script><script>draw("fig")</script>`;
  return JSON.stringify({
    nbformat: 4,
    nbformat_minor: 5,
    metadata: { kernelspec: { name: 'tslab', display_name: 'TypeScript', language: 'typescript' }, language_info: { name: 'typescript' } },
    cells: [
      { cell_type: 'markdown', id: 'm1', metadata: {}, source: `# A title ${extra}\n\n[D] a rule.` },
      {
        cell_type: 'code',
        id: 'c1',
        metadata: {},
        execution_count: 1,
        source: 'const x: number = 1;\nx',
        outputs: [{ output_type: 'display_data', metadata: {}, data: { 'text/html': figure, 'text/plain': 'figure' } }],
      },
    ],
  });
}

function py(code: string, env: Record<string, string>) {
  const r = spawnSync(PY, ['-c', code], { cwd: ROOT, encoding: 'utf8', maxBuffer: 64 << 20, env: { ...process.env, ...env } });
  if (r.error) throw r.error;
  if (r.status !== 0) throw new Error(r.stderr);
  return r.stdout;
}

describe('notebook HTML export (scripts/notebooks.py)', () => {
  it('links the shared plotly.min.js, loads nothing from a CDN, and the cache gives the same page', () => {
    const dir = tempDir('nb-export-');
    const cache = join(dir, 'cache');
    const a = join(dir, 'a.ipynb');
    const b = join(dir, 'b.ipynb');
    writeFileSync(a, executedNotebook('one'));
    writeFileSync(b, executedNotebook('two'));
    const code = `
import sys, json
sys.path.insert(0, "scripts")
import notebooks, nbformat
pages = {}
for name in ("a", "b"):
    text = open("${dir}/" + name + ".ipynb").read()
    direct = notebooks.html_body(nbformat.reads(text, as_version=4))
    first = notebooks.cached_html_body(text)
    second = notebooks.cached_html_body(text)
    pages[name] = {"direct": direct, "first": first, "second": second}
print(json.dumps({"pages": pages, "iri": "rfc3987_syntax" in sys.modules and sys.modules["rfc3987_syntax"] is not None}))
`;
    const out = JSON.parse(py(code, { HEIGHTBENCH_NOTEBOOK_HTML_CACHE: cache })) as {
      pages: Record<string, { direct: string; first: string; second: string }>;
      iri: boolean;
    };
    for (const name of ['a', 'b']) {
      const p = out.pages[name];
      expect(p.first).toBe(p.direct);
      expect(p.second).toBe(p.direct);
      expect(p.direct).toContain('<script src="../plotly.min.js"></script>');
      expect(p.direct).not.toContain('data-heightbench-plotly="inline"');
      expect(p.direct).not.toMatch(/<script[^>]*src="https?:/);
      expect(p.direct).toContain('draw("fig")');
    }
    expect(out.pages.a.direct).not.toBe(out.pages.b.direct);
    // One page per distinct notebook text.
    expect(readdirSync(cache).filter((f) => f.endsWith('.html'))).toHaveLength(2);
    expect(out.iri).toBe(false);
  });

  it('nbformat still validates: a notebook that breaks the schema is refused', () => {
    const code = `
import sys
sys.path.insert(0, "scripts")
import notebooks, nbformat
nb = nbformat.v4.new_notebook()
nb.cells.append(nbformat.v4.new_code_cell("1"))
nb.cells[0]["outputs"] = [{"output_type": "no-such-type"}]
try:
    nbformat.validate(nb)
    print("valid")
except nbformat.ValidationError:
    print("refused")
`;
    expect(py(code, {}).trim()).toBe('refused');
  });
});
