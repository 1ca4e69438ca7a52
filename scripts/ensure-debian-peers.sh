#!/usr/bin/env bash
# Installs the Debian packages whose tools the tests use as external peers, only when a tool is missing:
#   imagemagick (/usr/bin/convert, /usr/bin/compare), netpbm (/usr/bin/pnmtopng), optipng (/usr/bin/optipng).
# With --bench, also the benchmark's numpy/OpenCV smoothing peer (python3-numpy and python3-opencv for /usr/bin/python3)
# and GNU time (/usr/bin/time: whole-process wall time and peak RSS).
set -euo pipefail
declare -A need=([/usr/bin/convert]=imagemagick [/usr/bin/compare]=imagemagick [/usr/bin/pnmtopng]=netpbm [/usr/bin/optipng]=optipng)
missing=()
for tool in "${!need[@]}"; do
  [ -x "$tool" ] || missing+=("${need[$tool]}")
done
if [ "${1:-}" = "--bench" ]; then
  /usr/bin/python3 -c 'import numpy' 2>/dev/null || missing+=(python3-numpy)
  /usr/bin/python3 -c 'import cv2' 2>/dev/null || missing+=(python3-opencv)
  [ -x /usr/bin/time ] || missing+=(time)
fi
[ ${#missing[@]} -eq 0 ] && exit 0
pkgs=$(printf '%s\n' "${missing[@]}" | sort -u | tr '\n' ' ')
echo "installing Debian packages for test peers: $pkgs"
if [ "$(id -u)" -eq 0 ]; then sudo=""; elif command -v sudo >/dev/null; then sudo="sudo"; else
  echo "need root (or sudo) to install: $pkgs" >&2; exit 1
fi
$sudo apt-get update -qq
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends $pkgs >/dev/null
