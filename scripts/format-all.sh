#!/usr/bin/env bash
# Applies Prettier (.prettierrc.json) once to the whole source tree — src/, test/, bench/, scripts/ and the root
# TypeScript/ESM configs — then checks that nothing but layout moved: the type-check, the linter and the formatter's
# own check must pass. For the lead, after the branches in flight are merged (a whole-tree reformat conflicts with all
# of them). Not formatted: config/ (hashed inputs of DVC stages and asset indexes), notebooks/ (the .ipynb are built
# from the .nb.ts), generated wasm bindings, fixtures, Markdown and JSON (see .prettierignore).
# Usage: bash scripts/format-all.sh            format, then verify
#        bash scripts/format-all.sh --dry-run  list the files that would change, change nothing
set -euo pipefail
cd "$(dirname "$0")/.."
PRETTIER=node_modules/prettier/bin/prettier.cjs
[ -f "$PRETTIER" ] || { echo "format-all: $PRETTIER is missing; run npm ci (or make setup) first" >&2; exit 2; }
TARGETS=(src test bench scripts vitest.config.ts eslint.config.mjs)
if [ "${1:-}" = "--dry-run" ]; then
  node "$PRETTIER" --list-different "${TARGETS[@]}" || true
  exit 0
fi
if [ -n "$(git status --porcelain -- "${TARGETS[@]}")" ]; then
  echo "format-all: uncommitted changes under ${TARGETS[*]}; commit or stash them first (the reformat should be a commit of its own)" >&2
  exit 2
fi
node "$PRETTIER" --write --log-level warn "${TARGETS[@]}"
echo "format-all: $(git diff --name-only -- "${TARGETS[@]}" | wc -l) file(s) reformatted"
node "$PRETTIER" --check --log-level warn "${TARGETS[@]}"
node node_modules/typescript/bin/tsc -p tsconfig.json --noEmit
node node_modules/eslint/bin/eslint.js src
echo 'format-all: formatted; type-check and lint pass. Review `git diff --stat`, run `make test`, then commit as one "format the tree" commit.'
