#!/usr/bin/env bash
# ali-ons interop test (ctest label `interop`): installs ali-ons@3.12.0 from the npm
# registry (pinned by package-lock.json) into a temporary folder, starts
# `rocketstore serve` there on free loopback ports and runs produce_consume.js, then
# retry_dlq.js (consumer retry and the dead-letter queue), delay.js and client_interop.js
# (our C++ client, through the CLI, producing for and consuming from ali-ons).
# Usage: run_interop.sh <rocketstore binary>. Exit 77 (ctest SKIP) when node/npm are missing
# or npm cannot install — a failure instead under CI or ROCKETSTORE_REQUIRE_INTEROP=1.
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
for tool in node npm; do
  command -v "$tool" >/dev/null 2>&1 || skip_or_fail "no $tool on PATH (scripts/install-deps.sh installs it)"
done
BIN=$(realpath "$1")
SRC=$(cd "$(dirname "$0")" && pwd)
WORK=$(mktemp -d "${TMPDIR:-/tmp}/rocketstore-interop.XXXXXX")
SERVE_PID=""
cleanup() {
  if [ -n "$SERVE_PID" ] && kill -0 "$SERVE_PID" 2>/dev/null; then
    kill -TERM "$SERVE_PID"; wait "$SERVE_PID" 2>/dev/null
  fi
  rm -rf "$WORK"
}
trap cleanup EXIT
cp "$SRC/package.json" "$SRC/package-lock.json" "$SRC/produce_consume.js" "$SRC/retry_dlq.js" "$SRC/delay.js" "$SRC/client_interop.js" "$WORK/"
cd "$WORK" || exit 1
if ! timeout 300 npm ci --no-audit --no-fund --loglevel=error >npm.log 2>&1; then
  cat npm.log; skip_or_fail "npm ci failed (registry unreachable?), its log above"
fi
free_port() {
  node -e "const s=require('net').createServer().listen(0,'127.0.0.1',()=>{console.log(s.address().port);s.close()})"
}
NS_PORT=$(free_port)
BR_PORT=$(free_port)
while [ "$BR_PORT" = "$NS_PORT" ]; do BR_PORT=$(free_port); done
# Short delay levels (as the Java vectors were captured with, level 2 = 2 s for delay.js),
# so retries come back soon.
echo "messageDelayLevel=1s 2s 1s 1s 1s 1s 1s 1s 1s 1s 1s 1s 1s 1s 1s 1s 1s 1s" >broker.conf
"$BIN" serve --namesrv-port "$NS_PORT" --broker-port "$BR_PORT" --store "$WORK/data" \
  --metrics-port 0 --console-listen 0 -c "$WORK/broker.conf" >serve.log 2>&1 &
SERVE_PID=$!
for _ in $(seq 1 100); do
  grep -q "broker broker-a listening" serve.log && break
  kill -0 "$SERVE_PID" 2>/dev/null || { echo "serve exited:"; cat serve.log; exit 1; }
  sleep 0.1
done
NAMESRV="127.0.0.1:$NS_PORT" BROKER_ADDR="127.0.0.1:$BR_PORT" timeout 300 node produce_consume.js
RC=$?
if [ "$RC" -eq 0 ]; then
  NAMESRV="127.0.0.1:$NS_PORT" BROKER_ADDR="127.0.0.1:$BR_PORT" timeout 180 node retry_dlq.js
  RC=$?
fi
if [ "$RC" -eq 0 ]; then
  NAMESRV="127.0.0.1:$NS_PORT" BROKER_ADDR="127.0.0.1:$BR_PORT" timeout 120 node delay.js
  RC=$?
fi
if [ "$RC" -eq 0 ]; then
  NAMESRV="127.0.0.1:$NS_PORT" ROCKETSTORE_BIN="$BIN" timeout 180 node client_interop.js
  RC=$?
fi
kill -TERM "$SERVE_PID"; wait "$SERVE_PID"; SERVE_RC=$?; SERVE_PID=""
cat serve.log
if [ -e "$WORK/data/abort" ]; then echo "FAIL: abort file left after SIGTERM"; exit 1; fi
[ "$RC" -eq 0 ] && [ "$SERVE_RC" -eq 0 ]
