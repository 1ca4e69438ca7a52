#!/usr/bin/env bash
# Installs the Debian packages whose tools the tests use as external peers, only when a tool is missing:
#   imagemagick (/usr/bin/convert, /usr/bin/compare), netpbm (/usr/bin/pnmtopng), optipng (/usr/bin/optipng).
set -euo pipefail
declare -A need=([/usr/bin/convert]=imagemagick [/usr/bin/compare]=imagemagick [/usr/bin/pnmtopng]=netpbm [/usr/bin/optipng]=optipng)
missing=()
for tool in "${!need[@]}"; do
  [ -x "$tool" ] || missing+=("${need[$tool]}")
done
[ ${#missing[@]} -eq 0 ] && exit 0
pkgs=$(printf '%s\n' "${missing[@]}" | sort -u | tr '\n' ' ')
echo "installing Debian packages for test peers: $pkgs"
if [ "$(id -u)" -eq 0 ]; then sudo=""; elif command -v sudo >/dev/null; then sudo="sudo"; else
  echo "need root (or sudo) to install: $pkgs" >&2; exit 1
fi
$sudo apt-get update -qq
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends $pkgs >/dev/null
