#!/usr/bin/env python3
"""Does the committed dvc.lock match what this tree builds? (make test; issue 25)

  check-lock.py [--lock FILE] [--only STAGE ...]

Every stage of dvc.yaml must be in dvc.lock with the same command; for every stage recorded there, each dependency that is code or configuration — `dist` (built by `make build`),
files and folders tracked by git (scripts, config, notebooks, params) — is hashed the way DVC hashes it (dvc_data,
with .dvcignore applied) and compared with the hash the lock recorded. Dependencies that are other stages' outputs
(assets, references, build/, reports/) are data: their hashes are checked by check-determinism.mjs after a repro.
A mismatch means the lock was committed stale (a stage not rerun after a code change) or the build differs here:
either way a fresh clone's `make reproduce` would not be a no-op. Prints one line per stale dependency with the
stages that recorded another hash; exit 1 when any, 0 otherwise. Cheap: nothing is run, only code is hashed.
"""
import sys
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parent.parent


def main(argv):
    lock_path = ROOT / (argv[argv.index("--lock") + 1] if "--lock" in argv else "dvc.lock")
    lock = yaml.safe_load(lock_path.read_text())
    only = [argv[i + 1] for i, a in enumerate(argv) if a == "--only"]
    if only:
        lock["stages"] = {k: v for k, v in lock.get("stages", {}).items() if k in only}
    from dvc.repo import Repo
    from dvc_data.hashfile.build import build

    repo = Repo(str(ROOT))
    outs = set()
    for stage in lock.get("stages", {}).values():
        outs.update(o["path"] for o in stage.get("outs", []))
    cache = {}

    def current(path):
        if path not in cache:
            p = ROOT / path
            if not p.exists():
                cache[path] = None
            else:
                _, _, obj = build(repo.cache.local, str(p), repo.fs, "md5", ignore=repo.dvcignore, dry_run=True)
                cache[path] = obj.hash_info.value
        return cache[path]

    stale = {}
    for name, stage in sorted(lock.get("stages", {}).items()):
        for dep in stage.get("deps", []):
            path = dep["path"]
            if path in outs or any(path.startswith(o.rstrip("/") + "/") for o in outs):
                continue
            got = current(path)
            if got != dep.get("md5"):
                stale.setdefault((path, got), []).append((name, dep.get("md5")))
    for (path, got), stages in sorted(stale.items(), key=lambda x: x[0][0]):
        if path in ("(missing stages)", "(changed commands)"):
            continue
        recorded = sorted({m for _, m in stages})
        print(
            f"dvc.lock is stale for {path}: this tree gives {got or 'nothing (missing; make build?)'}, "
            f"{len(stages)} stage(s) recorded {', '.join(recorded)} ({', '.join(n for n, _ in stages)}); "
            "rerun those stages (make reproduce) and commit dvc.lock"
        )
    # A command changed in dvc.yaml (DVC reruns the stage) is stale too.
    # The root dvc.yaml's stages only: another dvc.yaml (examples/…) keeps its own dvc.lock beside it, checked where it runs.
    stages = [s for s in repo.index.stages if ":" not in s.addressing and (not only or s.addressing in only)]
    changed_cmd = sorted(
        s.addressing for s in stages if s.addressing in lock.get("stages", {}) and s.cmd != lock["stages"][s.addressing].get("cmd")
    )
    for name in changed_cmd:
        print(f"dvc.lock records another command for stage {name} than dvc.yaml gives: rerun it (make reproduce) and commit dvc.lock")
    if changed_cmd:
        stale[("(changed commands)", None)] = [(n, None) for n in changed_cmd]
    # A stage of dvc.yaml the lock has never recorded (added without a repro) is as stale as a changed one.
    missing = sorted(s.addressing for s in stages if s.addressing not in lock.get("stages", {}))
    for name in missing:
        print(f"dvc.lock has no entry for stage {name}: run it (make reproduce) and commit dvc.lock")
    if missing:
        stale[("(missing stages)", None)] = [(n, None) for n in missing]
    if not stale:
        print(f"dvc.lock matches this tree's code and configuration ({len(cache)} dependencies hashed)")
    return 1 if stale else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
