#!/usr/bin/env bash
# Installs every Debian 12 package rocketstore needs to build, test, fuzz and run.
# Idempotent: packages already present are not touched, so a warm machine pays only
# one dpkg query. Used by `make run`, `make test` and CI.
set -euo pipefail

PACKAGES=(
  build-essential cmake ninja-build pkg-config   # toolchain
  libtsan2                                        # ThreadSanitizer runtime (tsan preset)
  python3                                         # scripts/check_layering.py (stdlib only)
  clang libclang-rt-14-dev clang-format           # fuzzers (libFuzzer), sanitizers, formatting
  libgtest-dev libgmock-dev googletest            # tests
  libbenchmark-dev                                # bench/
  libisal-dev zlib1g-dev                          # CRC-32 (ISA-L fast path, zlib reference)
  libcli11-dev libfmt-dev libspdlog-dev           # CLI, formatting, logging
  libasio-dev rapidjson-dev libssl-dev            # networking, JSON, TLS/HMAC
  libcpp-httplib-dev                              # HTTP server of the web console
  chromium                                        # browser tests of the console (tests/browser)
  ccache                                          # faster rebuilds on a warm machine
)

missing=()
for p in "${PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done

# The interop test drives a real JavaScript RocketMQ client; any node+npm will do
# (machines may ship a node build that bundles npm, so ask for the commands).
if ! command -v node >/dev/null 2>&1 || ! command -v npm >/dev/null 2>&1; then
  missing+=(nodejs npm)
fi

if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi

echo "install-deps: installing ${missing[*]}"
SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
