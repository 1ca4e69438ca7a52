#!/usr/bin/env python3
"""heightbench notebooks: build .ipynb from percent-format sources, execute them headless on the tslab kernel,
export HTML.

  notebooks.py build                 notebooks/*.nb.ts -> notebooks/*.ipynb (deterministic: same source, same bytes)
  notebooks.py check                 the committed .ipynb files match their sources
  notebooks.py execute OUTDIR [--results FILE] [--only NAME ...] [--twice NAME]
                                     execute every notebook (cwd = project root), write executed copies to OUTDIR;
                                     on failure print the failing cell's source and its output/stderr
  notebooks.py export EXECDIR HTMLDIR  HTML for each executed notebook (Plotly from ../plotly.min.js)

Sources: a line "// %% [markdown]" starts a Markdown cell (its lines lose the leading "// "), a line "// %%" a code
cell. Errors that tslab only logs (timers, unawaited promises) appear as stderr text; any stderr containing "Error"
fails the notebook.
"""
import json, sys, glob, os, re, io
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
NB = ROOT / "notebooks"


def cells_from_source(text):
    cells, kind, buf = [], None, []
    def flush():
        if kind is None:
            return
        lines = buf[:]
        while lines and not lines[-1].strip():
            lines.pop()
        while lines and not lines[0].strip():
            lines.pop(0)
        if kind == "markdown":
            lines = [re.sub(r"^// ?", "", l) for l in lines]
        cells.append((kind, "\n".join(lines)))
    for line in text.splitlines():
        if line.startswith("// %% [markdown]"):
            flush(); kind, buf = "markdown", []
        elif line.startswith("// %%"):
            flush(); kind, buf = "code", []
        else:
            buf.append(line)
    flush()
    return cells


def notebook_json(cells):
    out = []
    for i, (kind, src) in enumerate(cells):
        c = {"cell_type": kind, "id": f"cell-{i:02d}", "metadata": {}, "source": src}
        if kind == "code":
            c.update({"execution_count": None, "outputs": []})
        out.append(c)
    nb = {"cells": out, "metadata": {"kernelspec": {"display_name": "TypeScript (tslab, heightbench)", "language": "typescript", "name": "tslab"},
          "language_info": {"name": "typescript"}}, "nbformat": 4, "nbformat_minor": 5}
    return json.dumps(nb, indent=1, ensure_ascii=False) + "\n"


def sources():
    return sorted(NB.glob("*.nb.ts"))


def build(check=False):
    bad = 0
    for src in sources():
        target = src.with_name(src.name[: -len(".nb.ts")] + ".ipynb")
        text = notebook_json(cells_from_source(src.read_text()))
        if check:
            if not target.exists() or target.read_text() != text:
                print(f"{target.relative_to(ROOT)} is out of date with {src.name}; run: python3 scripts/notebooks.py build")
                bad += 1
        else:
            tmp = target.with_suffix(".ipynb.tmp")
            tmp.write_text(text)
            os.replace(tmp, target)
    return bad


def execute(outdir, only, twice, results):
    import nbformat
    from nbclient import NotebookClient
    from nbclient.exceptions import CellExecutionError
    os.makedirs(outdir, exist_ok=True)
    passed = failed = 0
    report = []
    nbs = sorted(NB.glob("*.ipynb"))
    if only:
        nbs = [p for p in nbs if any(p.stem.startswith(o) for o in only)]
    def run_one(path):
        nb = nbformat.read(path, as_version=4)
        client = NotebookClient(nb, kernel_name="tslab", timeout=900, startup_timeout=240, record_timing=False, allow_errors=False, resources={"metadata": {"path": str(ROOT)}})
        current = {}
        def on_cell_start(cell, cell_index):
            current["index"], current["cell"] = cell_index, cell
        client.on_cell_start = on_cell_start
        try:
            client.execute(cwd=str(ROOT))
        except CellExecutionError as e:
            return nb, f"cell {current.get('index')} failed:\n--- source ---\n{current['cell'].source}\n--- error ---\n{str(e)[-3000:]}"
        except Exception as e:  # kernel died, timeout
            cell = current.get("cell")
            return nb, f"cell {current.get('index')} failed ({type(e).__name__}: {e}):\n--- source ---\n{cell.source if cell else '?'}"
        for i, cell in enumerate(nb.cells):
            for o in cell.get("outputs", []):
                if o.get("output_type") == "stream" and o.get("name") == "stderr" and "Error" in o.get("text", ""):
                    return nb, f"cell {i} wrote an error to stderr (a timer or an unawaited promise?):\n--- source ---\n{cell.source}\n--- stderr ---\n{o['text'][-3000:]}"
        return nb, None
    for path in nbs:
        nb, err = run_one(path)
        target = Path(outdir) / path.name
        text = nbformat.writes(nb) + "\n"
        if err is None and twice and path.stem.startswith(twice):
            nb2, err2 = run_one(path)
            if err2 is None and nbformat.writes(nb2) + "\n" != text:
                err = "re-executing the unchanged notebook gave a different file"
        Path(str(target) + ".tmp").write_text(text)
        os.replace(str(target) + ".tmp", target)
        if err:
            failed += 1
            print(f"✗ notebook {path.name}: {err}", file=sys.stderr)
        else:
            passed += 1
            print(f"✓ notebook {path.name}")
        report.append({"notebook": path.name, "ok": err is None, "error": err})
    if results:
        Path(results).write_text(json.dumps({"passed": passed, "failed": failed, "notebooks": report}, indent=1) + "\n")
    return failed


def export(execdir, htmldir):
    import nbformat
    from nbconvert import HTMLExporter
    os.makedirs(htmldir, exist_ok=True)
    exp = HTMLExporter()
    exp.exclude_input_prompt = True
    exp.exclude_output_prompt = True
    for path in sorted(Path(execdir).glob("*.ipynb")):
        body, _ = exp.from_notebook_node(nbformat.read(path, as_version=4))
        # Offline: no CDN scripts (MathJax, require.js); Plotly comes from the shared ../plotly.min.js.
        body = re.sub(r'<script[^>]*src="https?://[^"]*"[^>]*>\s*</script>', "", body)
        out = Path(htmldir) / (path.stem + ".html")
        Path(str(out) + ".tmp").write_text(body)
        os.replace(str(out) + ".tmp", out)
        print(f"exported {out}")


if __name__ == "__main__":
    a = sys.argv[1:]
    if not a:
        print(__doc__); sys.exit(2)
    if a[0] == "build":
        sys.exit(build())
    if a[0] == "check":
        sys.exit(1 if build(check=True) else 0)
    if a[0] == "execute":
        out = a[1]
        only = [a[i + 1] for i, x in enumerate(a) if x == "--only"]
        twice = next((a[i + 1] for i, x in enumerate(a) if x == "--twice"), None)
        results = next((a[i + 1] for i, x in enumerate(a) if x == "--results"), None)
        sys.exit(1 if execute(out, only, twice, results) else 0)
    if a[0] == "export":
        export(a[1], a[2]); sys.exit(0)
    print(__doc__); sys.exit(2)
