#!/usr/bin/env python3
"""`dvc repro --keep-going`, with independent stages run at the same time (make reproduce; issue 25).

  repro-parallel.py [--jobs N] [TARGET ...]

DVC runs one stage at a time; on a 2-core machine most stages use one core, so the other idles. This runs DVC's own
plan with its own stage operations, in the same order of operations per stage as `dvc repro` (dvc/repo/reproduce.py,
dvc/stage/__init__.py Stage.run, dvc/stage/run.py): a stage is considered once every stage it depends on has ended;
`Stage.changed` decides whether it runs (so a stage whose inputs came out byte-identical is skipped); then the run
cache is tried, outputs removed, dependencies saved, the command run by the shell DVC would use with DVC's environment
(DVC_ROOT, DVC_STAGE), then `save`, `commit` and the lock entry. Only the commands run in parallel, at most
N at once (default: the number of cores), each in a worker thread waiting on its process; every DVC call stays on the main
thread, under the repository lock, so the lock file and DVC's state database see one writer, in order.
[R] The lock entries are written together, in plan order, once the plan has ended (and on any way out of it: a failed
    stage, an exception, Ctrl-C): DVC rewrites the whole dvc.lock for each entry (ruamel parses and dumps it: 0.6 s of
    CPU a stage here, 13 s of a full run, taken from the stages' cores). A process killed outright loses the entries of
    that run — the next run redoes those stages (the run cache restores the cached ones) — as it would lose a stage.
[R] Among the stages ready to run, the one with the longest path of recorded stage times below it starts first
    (.cache/stage-times.json, written after each run; unknown stages count 10 s), so the long chains
    (generate → compare) do not wait behind short stages.
A command's output is held and printed whole when it ends (two stages' lines never interleave), under DVC's
"Running stage" heading. A failed stage (exit ≠ 0, e.g. a gate under check --strict) skips the stages that depend on
it; the others go on (--keep-going); the exit status is 1 when any failed. test/repro-parallel.test.ts runs it on a
DVC project of its own beside `dvc repro` and compares the lock files.
"""
import json
import os
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from queue import Queue

ROOT = Path(__file__).resolve().parent.parent


def arg_value(argv, name, default=None):
    if name in argv:
        i = argv.index(name)
        value = argv[i + 1]
        del argv[i : i + 2]
        return value
    return default


def main(argv):
    argv = list(argv)
    raw = arg_value(argv, "--jobs", os.environ.get("HEIGHTBENCH_REPRO_JOBS", str(os.cpu_count() or 1)))
    jobs = int(raw) if raw.strip().isdigit() else 0
    if jobs < 1:
        print(f"repro-parallel: --jobs (or HEIGHTBENCH_REPRO_JOBS) must be an integer ≥ 1, got {raw!r}", file=sys.stderr)
        return 2
    repo_root = Path(arg_value(argv, "--repo", os.getcwd())).resolve()
    targets = argv or None

    from dvc.repo import Repo, lock_repo
    from dvc.repo.reproduce import collect_stages, get_active_graph, plan_repro
    from dvc.stage.cache import RunCacheNotFoundError
    from dvc.stage.run import _make_cmd, get_executable, prepare_kwargs

    repo = Repo(str(repo_root))
    history_path = repo_root / ".cache" / "stage-times.json"
    try:
        history = json.loads(history_path.read_text())
    except (OSError, ValueError):
        history = {}

    with lock_repo(repo):
        graph = get_active_graph(repo.index.graph)
        stages = collect_stages(repo, targets or ["dvc.yaml"])
        plan = plan_repro(graph, stages)
        planned = set(plan)
        # DVC's graph points from a stage to the stages it depends on (successors = upstream).
        upstream = {s: [u for u in graph.successors(s) if u in planned] for s in plan}
        downstream = {s: [d for d in graph.predecessors(s) if d in planned] for s in plan}
        names = {s: s.addressing for s in plan}
        print(f"Plan: {len(plan)} stages", flush=True)

        # The longest path of recorded times from a stage to the end of the plan (it and what depends on it).
        weight = {}
        for s in plan[::-1]:
            weight[s] = history.get(names[s], 10.0) + max((weight[d] for d in downstream[s]), default=0.0)

        state = {s: "waiting" for s in plan}  # waiting → running → done | skipped | failed | blocked (an exception in a DVC step fails its stage only)
        finished = Queue()
        running = 0
        times = {}
        failed = []

        bookkeeping = [0.0]  # seconds of DVC's own steps on this thread (changed?, run cache, save, commit, lock)

        def timed(fn):
            def wrapper(*a):
                t0 = time.monotonic()
                try:
                    return fn(*a)
                finally:
                    bookkeeping[0] += time.monotonic() - t0

            return wrapper

        @timed
        def changed(stage):
            return stage.changed(upstream=upstream[stage])

        @timed
        def prepare(stage):
            """Main thread: Stage.run up to its command — outputs removed, then the run cache (which also checks out
            outputs the lock records and the cache holds); True when the command must run."""
            stage.remove_outs(ignore_remove=False, force=False)
            try:
                repo.stage_cache.restore(stage)
                return False
            except RunCacheNotFoundError:
                stage.save_deps()
                return True

        unwritten = []  # stages saved and committed whose lock entries are not written yet (write_locks)

        @timed
        def finish(stage):
            """Main thread: Stage.run after its command; its lock entry (dvc/repo/reproduce.py _reproduce_stage) waits
            for write_locks."""
            no_cache_outs = any(not o.use_cache for o in stage.outs if not (o.is_metric or o.is_plot))
            stage.save(run_cache=not no_cache_outs)
            stage.commit()
            unwritten.append(stage)

        @timed
        def write_locks():
            """The lock entries of the ended stages, in plan order, one rewrite per dvc.yaml (Lockfile.dump_stages)."""
            order = {s: i for i, s in enumerate(plan)}
            by_file = {}
            for s in sorted(unwritten, key=lambda s: order[s]):
                by_file.setdefault(s.dvcfile.path, []).append(s)
            unwritten.clear()
            for group in by_file.values():
                group[0].dvcfile.dump_stages(group, update_pipeline=False)

        def start(stage):
            """The stage's commands in a worker thread, as dvc/stage/run.py cmd_run runs them."""
            kwargs = prepare_kwargs(stage)
            commands = stage.cmd if isinstance(stage.cmd, list) else stage.cmd.splitlines()
            executable = get_executable()

            def work():
                t0 = time.monotonic()
                log = []
                status = 0
                cpu = 0.0
                for cmd in commands:
                    log.append(f"> {cmd}\n")
                    # Output to a file (no pipe to drain while waiting); os.wait4 gives the CPU time of the command and
                    # every process it waited for.
                    with tempfile.TemporaryFile() as out:
                        p = subprocess.Popen(_make_cmd(executable, cmd), stdout=out, stderr=subprocess.STDOUT, **kwargs)
                        _, code, usage = os.wait4(p.pid, 0)
                        p.returncode = os.waitstatus_to_exitcode(code)
                        out.seek(0)
                        log.append(out.read().decode("utf-8", "replace"))
                    cpu += usage.ru_utime + usage.ru_stime
                    if p.returncode != 0:
                        status = p.returncode
                        break
                finished.put((stage, status, "".join(log), time.monotonic() - t0, cpu))

            threading.Thread(target=work, daemon=True).start()

        def block_dependents(stage):
            todo = list(downstream[stage])
            while todo:
                d = todo.pop()
                if state[d] == "waiting":
                    state[d] = "blocked"
                    print(f"Stage '{names[d]}' is skipped: it depends on the failed stage '{names[stage]}'", flush=True)
                    todo.extend(downstream[d])

        def schedule():
            nonlocal running
            progressed = True
            while progressed:
                progressed = False
                ready = [s for s in plan if state[s] == "waiting" and all(state[u] in ("done", "skipped") for u in upstream[s])]
                for s in sorted(ready, key=lambda s: -weight[s]):
                    if not changed(s):
                        state[s] = "skipped"
                        print(f"Stage '{names[s]}' didn't change, skipping", flush=True)
                        progressed = True
                        continue
                    if s.frozen or not s.cmd:
                        # Not a command stage: what dvc repro does with it (verify its outputs).
                        if s.reproduce(upstream=upstream[s]):
                            s.dump(update_pipeline=False)
                        state[s] = "done"
                        progressed = True
                        continue
                    if running >= jobs:
                        break
                    try:
                        run_it = prepare(s)
                        if not run_it:
                            finish(s)
                    except Exception as e:  # noqa: BLE001
                        state[s] = "failed"
                        failed.append(s)
                        print(f"ERROR: stage '{names[s]}' failed: {type(e).__name__}: {e}", flush=True)
                        block_dependents(s)
                        progressed = True
                        continue
                    if not run_it:
                        state[s] = "done"
                        progressed = True
                        continue
                    state[s] = "running"
                    running += 1
                    print(f"Started stage '{names[s]}'", flush=True)
                    start(s)

        def run_plan():
            nonlocal running
            while True:
                schedule()
                if running == 0:
                    break
                item = finished.get()
                running -= 1
                # The slot is free: fill it with stages that are ready already, then do the ended stage's bookkeeping
                # (its dependents wait for it: it is still "running" until then).
                schedule()
                stage, status, log, seconds, cpu = item
                print(f"Running stage '{names[stage]}':\n{log}", end="" if log.endswith("\n") else "\n", flush=True)
                if status != 0:
                    state[stage] = "failed"
                    failed.append(stage)
                    print(f"ERROR: stage '{names[stage]}' failed: its command exited with {status}", flush=True)
                    block_dependents(stage)
                    continue
                try:
                    finish(stage)
                except Exception as e:  # noqa: BLE001 — as dvc repro --keep-going: the stage failed, the others go on
                    state[stage] = "failed"
                    failed.append(stage)
                    print(f"ERROR: stage '{names[stage]}' failed after its command: {type(e).__name__}: {e}", flush=True)
                    block_dependents(stage)
                    continue
                state[stage] = "done"
                times[names[stage]] = seconds
                print(f"Finished stage '{names[stage]}' in {seconds:.1f} s ({cpu:.1f} s of CPU)", flush=True)

        try:
            run_plan()
        finally:
            write_locks()
        print(f"DVC's own steps on the main thread (changed?, run cache, save, commit, lock): {bookkeeping[0]:.1f} s", flush=True)

    history.update(times)
    history_path.parent.mkdir(parents=True, exist_ok=True)
    tmp = history_path.with_name(history_path.name + ".tmp")
    tmp.write_text(json.dumps(history, indent=1, sort_keys=True) + "\n")
    tmp.replace(history_path)
    if failed:
        print(f"ERROR: failed to reproduce: {', '.join(repr(names[s]) for s in failed)}", file=sys.stderr, flush=True)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
