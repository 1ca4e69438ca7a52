#!/usr/bin/env bash
# Installs Debian's chromium when it is missing: the GPU reference's two hosts and make test's
# browser checks (scripts/browser-check.mjs) need it.
#  - Dawn for Node (npm webgpu) uses SwiftShader's Vulkan driver and loader from /usr/lib/chromium;
#  - the browser host runs /usr/bin/chromium headless through playwright-core (no browser download).
set -euo pipefail
if [ -x /usr/bin/chromium ] && [ -f /usr/lib/chromium/vk_swiftshader_icd.json ] && [ -f /usr/lib/chromium/libvulkan.so.1 ]; then
  exit 0
fi
echo "installing Debian package chromium (SwiftShader Vulkan driver + headless browser for the GPU reference)"
if [ "$(id -u)" -eq 0 ]; then sudo=""; elif command -v sudo >/dev/null; then sudo="sudo"; else
  echo "need root (or sudo) to install chromium: run 'apt-get install chromium' as root" >&2; exit 1
fi
$sudo apt-get update -qq
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends chromium >/dev/null
