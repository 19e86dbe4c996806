#!/usr/bin/env bash
# Browser test of the web console (ctest console_browser, labels integration;browser).
# Installs playwright-core (pinned by package-lock.json) into a temporary folder, starts
# two `rocketstore serve` on free loopback ports with the console on (the second with
# --console-read-only), and runs
# console_test.js against them with Debian's chromium. Failure screenshots go to
# <build>/browser-artifacts/ (the path is printed). With SHOTS=<dir> the screens are
# also saved there (docs/images/ is refreshed this way).
# Usage: run_browser.sh <rocketstore binary> <artifact dir>. Exit 77 (ctest SKIP) when
# chromium, node or npm is missing or npm cannot install — a failure instead under CI or
# ROCKETSTORE_REQUIRE_INTEROP=1.
set -u
# A test that cannot run: ctest SKIP (77) on a developer's machine, a failure (1) with the
# reason under CI (CI set, as CI services do) or ROCKETSTORE_REQUIRE_INTEROP=1 (`make test`
# sets it), so CI never passes by silently skipping.
skip_or_fail() {
  local ci=${CI:-}
  if [ "${ROCKETSTORE_REQUIRE_INTEROP:-0}" = "1" ] || { [ -n "$ci" ] && [ "$ci" != "false" ] && [ "$ci" != "0" ]; }; then
    echo "FAIL: $1 (a skip is a failure here: CI='${CI:-}' ROCKETSTORE_REQUIRE_INTEROP='${ROCKETSTORE_REQUIRE_INTEROP:-}')"
    exit 1
  fi
  echo "SKIP: $1"
  exit 77
}
BIN=$(realpath "$1")
ARTIFACTS=$(mkdir -p "$2" && realpath "$2")
SRC=$(cd "$(dirname "$0")" && pwd)
CHROMIUM=${CHROMIUM:-$(command -v chromium || true)}
if [ -z "$CHROMIUM" ]; then skip_or_fail "no chromium (scripts/install-deps.sh installs it)"; fi
for tool in node npm; do
  command -v "$tool" >/dev/null 2>&1 || skip_or_fail "no $tool on PATH (scripts/install-deps.sh installs it)"
done
WORK=$(mktemp -d "${TMPDIR:-/tmp}/rocketstore-browser.XXXXXX")
SERVE_PIDS=""
cleanup() {
  for pid in $SERVE_PIDS; do
    if kill -0 "$pid" 2>/dev/null; then kill -TERM "$pid"; wait "$pid" 2>/dev/null; fi
  done
  rm -rf "$WORK"
}
trap cleanup EXIT
cp "$SRC/package.json" "$SRC/package-lock.json" "$SRC/console_test.js" "$SRC/remoting.js" "$WORK/"
cd "$WORK" || exit 1
if ! timeout 300 npm ci --no-audit --no-fund --loglevel=error >npm.log 2>&1; then
  cat npm.log; skip_or_fail "npm ci failed (registry unreachable?), its log above"
fi
free_port() {
  node -e "const s=require('net').createServer().listen(0,'127.0.0.1',()=>{console.log(s.address().port);s.close()})"
}
# start_serve <name> <extra flags...>: a `rocketstore serve` on free ports with its own
# store <WORK>/<name>; sets NS_PORT, BR_PORT, WEB_PORT and the pid in SERVE_PIDS.
start_serve() {
  local name=$1; shift
  NS_PORT=$(free_port); BR_PORT=$(free_port); WEB_PORT=$(free_port)
  "$BIN" serve --namesrv-port "$NS_PORT" --broker-port "$BR_PORT" --store "$WORK/$name" \
    --console-listen "127.0.0.1:$WEB_PORT" --metrics-port 0 --log-file - "$@" >"$name.log" 2>&1 &
  local pid=$!
  SERVE_PIDS="$SERVE_PIDS $pid"
  for _ in $(seq 1 150); do
    grep -q "web console url=" "$name.log" && return 0
    kill -0 "$pid" 2>/dev/null || { echo "serve $name exited:"; cat "$name.log"; exit 1; }
    sleep 0.1
  done
  echo "serve $name did not start its console:"; cat "$name.log"; exit 1
}
# The read-only console (--console-read-only) on a second serve of its own.
start_serve data-ro --console-read-only
RO_URL="http://127.0.0.1:$WEB_PORT/"; RO_BROKER="127.0.0.1:$BR_PORT"
start_serve data
CONSOLE_URL="http://127.0.0.1:$WEB_PORT/" CONSOLE_RO_URL="$RO_URL" RO_BROKER_ADDR="$RO_BROKER" NAMESRV="127.0.0.1:$NS_PORT" BROKER_ADDR="127.0.0.1:$BR_PORT" \
  ARTIFACTS="$ARTIFACTS" CHROMIUM="$CHROMIUM" SHOTS="${SHOTS:-}" timeout 240 node console_test.js
RC=$?
SERVE_RC=0
for pid in $SERVE_PIDS; do
  kill -TERM "$pid"; wait "$pid" || SERVE_RC=$?
done
SERVE_PIDS=""
if [ "$RC" -ne 0 ] || [ "$SERVE_RC" -ne 0 ]; then
  echo "--- data.log"; cat data.log
  echo "--- data-ro.log"; cat data-ro.log
  echo "artifacts (failure screenshots): $ARTIFACTS"
fi
[ "$RC" -eq 0 ] && [ "$SERVE_RC" -eq 0 ]
