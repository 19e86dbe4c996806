#!/usr/bin/env bash
# Installs every Debian 12 package rocketstore needs to build, test, fuzz and run.
# Idempotent: packages already present are not touched, so a warm machine pays only
# one dpkg query. Used by `make run`, `make test` and CI.
#   --bench-peers  also the peers of `make bench-peers` (issue 20; not needed by `make test`)
#   --profile      also the profilers of bench/peers/profile_produce.sh
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
  libcpp-httplib-dev                              # HTTP: the web console and /metrics
  chromium                                        # browser tests of the console (tests/browser)
  ccache                                          # faster rebuilds on a warm machine
  prometheus                                      # the metrics test scrapes with a real one
)
for arg in "$@"; do
  case "$arg" in
    --bench-peers)  # bench/peers/run_peers.py: the servers compared, their clients
      PACKAGES+=(nats-server redis-server redis-tools libnats-dev) ;;
    --profile)      # bench/peers/profile_produce.sh: instruction counts, syscall counts
      PACKAGES+=(valgrind strace) ;;
    *) echo "install-deps: unknown option '$arg' (--bench-peers, --profile)" >&2; exit 2 ;;
  esac
done

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
