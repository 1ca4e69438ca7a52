#!/usr/bin/env bash
# Debian's chromium, for the browser checks of `make test` (scripts/browser-check.mjs), installed only when missing.
set -euo pipefail
command -v chromium >/dev/null || (apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y chromium)
