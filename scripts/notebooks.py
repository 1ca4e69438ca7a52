#!/usr/bin/env python3
"""heightbench notebooks: the .nb.ts sources (jupytext percent format, TypeScript) paired with .ipynb through jupytext,
executed headless on the tslab kernel (run-notebooks.mjs: tslab-headless, the same kernel without the per-cell type
check, which scripts/check-notebooks.mjs does once), exported to HTML.

  notebooks.py sync [DIR]            jupytext --sync every pair of DIR (default notebooks/; writes a missing .ipynb; the
                                     newer side wins; no .ipynb left newer than its source) and gives each new .ipynb
                                     the tslab kernel (make lab)
  notebooks.py check                 every .nb.ts is in jupytext's canonical percent form (reading and writing it back
                                     gives the same bytes), so an edit saved from JupyterLab changes only what was edited
  notebooks.py execute OUTDIR [--results FILE] [--only NAME ...] [--twice NAME] [--jobs N] [--kernel NAME]
                       [--check] [--export HTMLDIR]
                                     execute every notebook from its .nb.ts (cwd = project root; N kernels at a time;
                                     on kernel NAME, default tslab: scripts/run-notebooks.mjs uses tslab-headless, the
                                     same kernel without the per-cell type check), write executed copies to OUTDIR (their
                                     metadata names the tslab kernel either way); on failure print the failing cell's
                                     source and its output/stderr. --check: first what `check` checks (a failure fails
                                     the run). --export: each notebook's HTML (as `export` writes it) made in the pool as
                                     soon as it has executed, written to HTMLDIR once every notebook passed
  notebooks.py export EXECDIR HTMLDIR  HTML for each executed notebook (Plotly from ../plotly.min.js)

The pairing (notebooks/jupytext.toml, beside the notebooks: jupytext looks for it from each notebook's folder up): formats "ipynb,.nb.ts:percent", no notebook or cell metadata in the
.nb.ts. The .nb.ts files are the sources in git; the .ipynb files are generated (ignored by git) and carry outputs.
Errors that tslab only logs (timers, unawaited promises) appear as stderr text; any stderr containing "Error" fails
the notebook.
"""
import json, sys, glob, os, re, io
from concurrent.futures import ThreadPoolExecutor

# [R] nbformat validates notebooks with jsonschema, whose optional IRI format check (rfc3987_syntax, installed with
# JupyterLab's jupyter-events) builds 38 lark grammars when imported: 2.7 s of every run of this script before any
# notebook starts. The notebook schema uses no "iri" format, so that module is kept out of this process (jsonschema
# treats it as not installed); validation is unchanged (test/notebook-pairing.test.ts reads what this writes).
sys.modules.setdefault("rfc3987_syntax", None)
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
NB = ROOT / "notebooks"
FMT = ".nb.ts:percent"
KERNELSPEC = {"display_name": "TypeScript (tslab, heightbench)", "language": "typescript", "name": "tslab"}


def sources():
    return sorted(NB.glob("*.nb.ts"))


def stem(src):
    return src.name[: -len(".nb.ts")]


def read_source(src):
    """The notebook of a .nb.ts source, with the tslab kernel and fixed cell ids (same source, same notebook)."""
    import jupytext
    nb = jupytext.read(src, fmt=FMT)
    nb.metadata["kernelspec"] = dict(KERNELSPEC)
    nb.metadata["language_info"] = {"name": "typescript"}
    nb.metadata.pop("jupytext", None)
    for i, cell in enumerate(nb.cells):
        cell["id"] = f"cell-{i:02d}"
        cell["metadata"] = {}
    return nb


def check():
    import jupytext
    bad = 0
    for src in sources():
        text = src.read_text()
        again = jupytext.writes(jupytext.reads(text, fmt=FMT), fmt=FMT)
        if again != text:
            print(f"{src.relative_to(ROOT)} is not in jupytext's percent form; rewrite it with: .venv/bin/jupytext --to {FMT} {src.relative_to(ROOT)}")
            bad += 1
    return bad


def sync(folder=None):
    """Pair every .nb.ts of FOLDER (default notebooks/) with its .ipynb. jupytext's contents manager asks "X.ipynb is more
    recent than X.nb.ts" when the .ipynb is newer than its text source by more than a second and their inputs differ
    in any way, so every .ipynb is left with its source's modification time (a .ipynb written at `make lab`, minutes
    after the clone, would otherwise be the newer side)."""
    import jupytext
    from jupytext.cli import jupytext as cli
    for src in sorted(Path(folder).glob("*.nb.ts")) if folder else sources():
        pair = src.with_name(stem(src) + ".ipynb")
        if not pair.exists():
            nb = read_source(src)
            nb.metadata["jupytext"] = {"formats": "ipynb," + FMT}
            jupytext.write(nb, pair)
            print(f"wrote {pair}")
        else:
            cli(["--sync", "--quiet", str(pair)])
        st = src.stat()
        if pair.stat().st_mtime > st.st_mtime:
            os.utime(pair, (st.st_atime, st.st_mtime))
    return 0


def execute(outdir, only, twice, results, jobs=1, kernel="tslab", htmldir=None):
    import nbformat
    from nbclient import NotebookClient
    from nbclient.exceptions import CellExecutionError
    os.makedirs(outdir, exist_ok=True)
    html = {}
    passed = failed = 0
    report = []
    nbs = sources()
    if only:
        nbs = [p for p in nbs if any(stem(p).startswith(o) for o in only)]
    def run_one(path):
        nb = read_source(path)
        client = NotebookClient(nb, kernel_name=kernel, timeout=900, startup_timeout=240, record_timing=False, allow_errors=False, resources={"metadata": {"path": str(ROOT)}})
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
    def one(path):
        nb, err = run_one(path)
        text = nbformat.writes(nb) + "\n"
        if err is None and twice and stem(path).startswith(twice):
            nb2, err2 = run_one(path)
            if err2 is None and nbformat.writes(nb2) + "\n" != text:
                err = "re-executing the unchanged notebook gave a different file"
        target = Path(outdir) / (stem(path) + ".ipynb")
        Path(str(target) + ".tmp").write_text(text)
        os.replace(str(target) + ".tmp", target)
        if err is None and htmldir:
            # The same HTML as `export` makes from the file just written (the kernels keep running meanwhile).
            html[stem(path)] = cached_html_body(text)
        return err
    # [R] Kernels in a pool (each notebook has its own kernel, so results do not depend on the order), the longest
    # sources first (the executed-twice one counted twice) so that no long notebook is left running alone at the end;
    # the report keeps the sources' order.
    cost = lambda p: len(p.read_text()) * (2 if twice and stem(p).startswith(twice) else 1)
    with ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
        futures = {p: pool.submit(one, p) for p in sorted(nbs, key=cost, reverse=True)}
        errors = [futures[p].result() for p in nbs]
    for path, err in zip(nbs, errors):
        name = stem(path) + ".ipynb"
        if err:
            failed += 1
            print(f"✗ notebook {name}: {err}", file=sys.stderr)
        else:
            passed += 1
            print(f"✓ notebook {name}")
        report.append({"notebook": name, "ok": err is None, "error": err})
    if results:
        Path(results).write_text(json.dumps({"passed": passed, "failed": failed, "notebooks": report}, indent=1) + "\n")
    if htmldir and not failed:
        os.makedirs(htmldir, exist_ok=True)
        for name, body in sorted(html.items()):
            write_html(Path(htmldir) / (name + ".html"), body, quiet=True)
        # The cache keeps what this run used: a page whose notebook output changed is not needed again.
        if not only and HTML_CACHE.is_dir():
            for f in HTML_CACHE.iterdir():
                if f.name not in _html_used:
                    f.unlink()
    return failed


_exporters = __import__("threading").local()


HTML_CACHE = Path(os.environ.get("HEIGHTBENCH_NOTEBOOK_HTML_CACHE", ROOT / ".cache" / "notebook-html"))
_html_used = set()


def cached_html_body(text):
    """html_body of an executed notebook's file text, from .cache/notebook-html when the same text was exported before.

    [R] The HTML is a function of the executed notebook (its file text), nbconvert's version and this script (the
    post-processing below): those three make the key. nbconvert's lab template sanitizes every highlighted code cell
    with bleach's pure-Python HTML parser and reparses the whole page with BeautifulSoup (~0.7 s a notebook, 9 s for
    all), while an edit under src/ mostly leaves a notebook's outputs as they were. test/notebook-pairing.test.ts
    checks that a cached page is the page an export makes."""
    import hashlib
    import nbconvert
    import nbformat
    key = hashlib.sha256()
    for part in (text.encode(), nbconvert.__version__.encode(), Path(__file__).read_bytes()):
        key.update(hashlib.sha256(part).digest())
    cached = HTML_CACHE / (key.hexdigest() + ".html")
    _html_used.add(cached.name)
    if cached.exists():
        return cached.read_text()
    body = html_body(nbformat.reads(text, as_version=4))
    HTML_CACHE.mkdir(parents=True, exist_ok=True)
    tmp = cached.with_name(cached.name + f".{os.getpid()}.tmp")
    tmp.write_text(body)
    os.replace(tmp, cached)
    return body


def html_body(nb):
    """The HTML of an executed notebook: offline, Plotly from ../plotly.min.js (one exporter per thread)."""
    exp = getattr(_exporters, "exp", None)
    if exp is None:
        from nbconvert import HTMLExporter
        exp = _exporters.exp = HTMLExporter()
        exp.exclude_input_prompt = True
        exp.exclude_output_prompt = True
    # The figures' inline plotly.min.js (src/notebook/figures.ts) becomes the shared copy beside reports/ — in the
    # outputs, before nbconvert renders and reparses the page (3.5 MB less for BeautifulSoup), and again in the page.
    for cell in nb.cells:
        for o in cell.get("outputs", []):
            h = o.get("data", {}).get("text/html")
            if isinstance(h, str) and INLINE_PLOTLY in h:
                o["data"]["text/html"] = re.sub(INLINE_PLOTLY_RE, SHARED_PLOTLY, h, flags=re.S)
    body, _ = exp.from_notebook_node(nb)
    # Offline: no CDN scripts (MathJax, require.js); Plotly comes from the shared ../plotly.min.js.
    body = re.sub(r'<script[^>]*src="https?://[^"]*"[^>]*>\s*</script>', "", body)
    return re.sub(INLINE_PLOTLY_RE, SHARED_PLOTLY, body, flags=re.S)


INLINE_PLOTLY = '<script data-heightbench-plotly="inline">'
INLINE_PLOTLY_RE = r'<script data-heightbench-plotly="inline">.*?</script>'
SHARED_PLOTLY = '<script src="../plotly.min.js"></script>'


def write_html(out, body, quiet=False):
    Path(str(out) + ".tmp").write_text(body)
    os.replace(str(out) + ".tmp", out)
    if not quiet:
        print(f"exported {out}")


def export(execdir, htmldir):
    import nbformat
    os.makedirs(htmldir, exist_ok=True)
    for path in sorted(Path(execdir).glob("*.ipynb")):
        write_html(Path(htmldir) / (path.stem + ".html"), html_body(nbformat.read(path, as_version=4)))


if __name__ == "__main__":
    a = sys.argv[1:]
    if not a:
        print(__doc__); sys.exit(2)
    if a[0] == "sync":
        sys.exit(sync(a[1] if len(a) > 1 else None))
    if a[0] == "check":
        sys.exit(1 if check() else 0)
    if a[0] == "execute":
        out = a[1]
        only = [a[i + 1] for i, x in enumerate(a) if x == "--only"]
        twice = next((a[i + 1] for i, x in enumerate(a) if x == "--twice"), None)
        results = next((a[i + 1] for i, x in enumerate(a) if x == "--results"), None)
        jobs = int(next((a[i + 1] for i, x in enumerate(a) if x == "--jobs"), "1"))
        kernel = next((a[i + 1] for i, x in enumerate(a) if x == "--kernel"), "tslab")
        htmldir = next((a[i + 1] for i, x in enumerate(a) if x == "--export"), None)
        bad = check() if "--check" in a else 0
        sys.exit(1 if execute(out, only, twice, results, jobs, kernel, htmldir) or bad else 0)
    if a[0] == "export":
        export(a[1], a[2]); sys.exit(0)
    print(__doc__); sys.exit(2)
