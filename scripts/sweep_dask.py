#!/usr/bin/env python3
"""The Dask driver of `heightbench sweep` (started by the CLI with a pending-requests file; not run by hand).

Input: PLAN.json, written by `heightbench sweep` after it checked every value: the sweep folder, the pending requests
(each with its key, name and whole request), the batch size, the workers, the scheduler address (or none), the
reference, the detail, and how to start heightbench (node, bin, working folder, --config).
Work: a Dask client — on the scheduler named (`--scheduler` / DASK_SCHEDULER_ADDRESS), else on an embedded
LocalCluster of `workers` single-threaded workers — runs one task per batch: a `heightbench sweep-batch` process on
the worker (the assets loaded once per batch). A worker lost mid-batch has its task rescheduled by the scheduler.
Output: records/NAME.json, one per request, written here as each batch's result arrives: a temporary file in the same
folder, flushed, then renamed; a name already recorded is never written again (a resumed or rescheduled batch
duplicates nothing). Exit: 0 all recorded; 2 the environment or the user's input (an unreachable scheduler, a
batch refused for its input); 1 a batch failed otherwise.
On a cluster every worker needs heightbench at the same path, or HEIGHTBENCH_NODE / HEIGHTBENCH_BIN / HEIGHTBENCH_ROOT
set in its environment (see the README, "Sweeps").
"""
import json
import os
import re
import sys
import time

ADDRESS = re.compile(r"^(tcp|tls|ws|wss|ucx)://(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9._-]+):(\d{1,5})/?$")


def fail(code, msg):
    sys.stderr.write(f"heightbench sweep: {msg}\n")
    sys.exit(code)


def run_batch(spec):
    """One batch on a worker: a heightbench sweep-batch process; returns its records, or the failure."""
    import subprocess

    node = os.environ.get("HEIGHTBENCH_NODE", spec["node"])
    bin_ = os.environ.get("HEIGHTBENCH_BIN", spec["bin"])
    cwd = os.environ.get("HEIGHTBENCH_ROOT", spec["cwd"])
    env = dict(os.environ)
    try:
        from distributed import get_worker

        env["HEIGHTBENCH_SWEEP_WORKER"] = get_worker().address
    except Exception:  # not on a worker (a direct call)
        pass

    def die_with_parent():
        # Linux: the batch process ends with the worker that started it (a killed worker leaves no orphan running).
        try:
            import ctypes
            import signal

            ctypes.CDLL("libc.so.6", use_errno=True).prctl(1, signal.SIGKILL)
        except Exception:
            pass

    args = [node, bin_] + (["--config", spec["config"]] if spec.get("config") else []) + ["sweep-batch", "-"]
    payload = json.dumps({"items": spec["items"], "against": spec["against"], "detail": spec["detail"]})
    p = subprocess.run(args, input=payload.encode(), capture_output=True, cwd=cwd, env=env, preexec_fn=die_with_parent)
    records = [json.loads(line) for line in p.stdout.decode().splitlines() if line.strip()]
    return {"code": p.returncode, "records": records, "stderr": p.stderr.decode(errors="replace")[-4000:]}


def write_atomic(path, text):
    d = os.path.dirname(path)
    tmp = os.path.join(d, f".{os.path.basename(path)}.{os.getpid()}.tmp")
    if os.path.lexists(tmp):
        os.unlink(tmp)  # a leftover of an interrupted write (never followed: O_NOFOLLOW below)
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o644)
    with os.fdopen(fd, "w", encoding="utf-8") as f:
        f.write(text)
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, path)  # replaces a name, never writes through a link placed there


def collect(client, batches, base, rdir, total, t0):
    """Submits every batch and writes each record as its batch's result arrives; returns the failures."""
    from distributed import as_completed

    futures = [client.submit(run_batch, dict(base, items=b), key=f"heightbench-batch-{b[0]['name']}-{len(b)}", pure=False) for b in batches]
    done = 0
    failures = []
    for fut in as_completed(futures):
        try:
            res = fut.result()
        except Exception as e:  # the task itself failed (a worker lost more often than the scheduler allows)
            failures.append((1, str(e)))
            continue
        for r in res["records"]:
            path = os.path.join(rdir, f"{r['name']}.json")
            if os.path.exists(path):
                continue
            write_atomic(path, json.dumps(r, indent=2) + "\n")
            done += 1
        if res["code"] != 0:
            err = res["stderr"].strip()
            failures.append((res["code"], err.splitlines()[-1] if err else f"exit {res['code']}"))
        sys.stderr.write(f"sweep: {done} of {total} recorded ({time.time() - t0:.1f} s)\n")
    return failures


def main(argv):
    if len(argv) != 2:
        fail(2, "usage: sweep_dask.py PLAN.json (started by `heightbench sweep`)")
    with open(argv[1], encoding="utf-8") as f:
        plan = json.load(f)
    out = plan["out"]
    rdir = os.path.join(out, "records")
    os.makedirs(rdir, exist_ok=True)
    addr = plan.get("scheduler")
    if addr is not None and not ADDRESS.match(addr):
        fail(2, f"--scheduler {json.dumps(addr)}: expected PROTOCOL://HOST:PORT")
    items = plan["items"]
    k = int(plan["batch"])
    batches = [items[i : i + k] for i in range(0, len(items), k)]
    base = {key: plan[key] for key in ("against", "detail", "node", "bin", "cwd", "config")}

    try:
        from distributed import Client, LocalCluster
    except ImportError as e:
        fail(2, f"Dask is not installed in {sys.executable} ({e}); run `make setup`")

    import logging

    logging.getLogger("distributed").setLevel(logging.ERROR)
    t0 = time.time()
    if addr:
        try:
            client = Client(addr, timeout="10s")
        except (OSError, TimeoutError) as e:
            fail(2, f"cannot reach the Dask scheduler at {addr}: {e}")
        with client:
            failures = collect(client, batches, base, rdir, len(items), t0)
    else:
        # Threads suffice: each task's work is its own Node process. The workers' scratch folder is a temporary one,
        # removed at the end (Dask's default would leave dask-scratch-space in the system's temporary folder).
        import shutil
        import tempfile

        import dask

        scratch = tempfile.mkdtemp(prefix="heightbench-dask-")
        dask.config.set({"temporary-directory": scratch})
        try:
            with LocalCluster(
                n_workers=int(plan["workers"]), threads_per_worker=1, processes=False, dashboard_address=None, local_directory=scratch
            ) as cluster, Client(cluster) as client:
                failures = collect(client, batches, base, rdir, len(items), t0)
        finally:
            shutil.rmtree(scratch, ignore_errors=True)
    if failures:
        for code, msg in failures[:10]:
            sys.stderr.write(f"heightbench sweep: a batch failed: {msg}\n")
        sys.exit(2 if all(c == 2 for c, _ in failures) else 1)


if __name__ == "__main__":
    main(sys.argv)
