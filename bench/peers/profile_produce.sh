#!/usr/bin/env bash
# bench/peers/profile_produce.sh (issue 20): what the broker's async-produce path costs per
# message, counted rather than timed, so it repeats on a loaded machine.
#   1. `rocketstore serve` (ASYNC_FLUSH) under `valgrind --tool=callgrind`; a warm-up of
#      W sends, counters zeroed (callgrind_control -z), then N async 1 KiB sends
#      (rs_peer produce --count N, SHAPE in flight), counters dumped (callgrind_control -d).
#      Every broker thread is counted (one profile for all threads). Instructions per
#      message by function family: bench/peers/callgrind_families.py.
#   2. The same server without valgrind under `strace -c -f` attached for the same N
#      sends: syscalls per message.
# Usage: bench/peers/profile_produce.sh [N=200000] [SHAPE=1x256]
#   env KEEP=1 keeps the temp dir (callgrind.out.*, strace.txt, logs);
#   env SERIALIZE=rocketmq sends the binary request header instead of JSON.
# Needs valgrind and strace (scripts/install-deps.sh --profile) and a release build of
# rocketstore and rs_peer (make profile-produce does both).
set -euo pipefail
cd "$(dirname "$0")/../.."
N=${1:-200000}
SHAPE=${2:-1x256}
WARMUP=2000
SERIALIZE=${SERIALIZE:-json}
RS=${RS:-build/release/rocketstore}
PEER=${PEER:-build/release/bench/rs_peer}
for t in valgrind callgrind_control callgrind_annotate strace; do
  command -v "$t" >/dev/null || { echo "profile_produce: $t missing (scripts/install-deps.sh --profile)" >&2; exit 1; }
done
for b in "$RS" "$PEER"; do
  [ -x "$b" ] || { echo "profile_produce: $b missing (make profile-produce builds it)" >&2; exit 1; }
done

TMP=$(mktemp -d /tmp/profile-produce-XXXXXX)
SERVER_PID=""
STRACE_PID=""
cleanup() {
  for p in $STRACE_PID $SERVER_PID; do
    if kill -0 "$p" 2>/dev/null; then kill -TERM "$p" 2>/dev/null || true; fi
  done
  for p in $STRACE_PID $SERVER_PID; do wait "$p" 2>/dev/null || true; done
  if [ "${KEEP:-0}" = 1 ]; then echo "profile_produce: kept $TMP"; else rm -rf "$TMP"; fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
wait_port() {  # port pid seconds
  for _ in $(seq 1 $(($3 * 10))); do
    kill -0 "$2" 2>/dev/null || { echo "profile_produce: server exited early" >&2; return 1; }
    if (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; then return 0; fi
    sleep 0.1
  done
  echo "profile_produce: server not listening on $1 after $3 s" >&2
  return 1
}
serve_args() {  # store-dir broker-port namesrv-port
  echo serve --store "$1" --broker-port "$2" --namesrv-port "$3" --console-listen 0 \
    --metrics-port 0 --log-level warn --log-file "$1.log"
}

# ---- 1. callgrind ----
BP=$(free_port); NP=$(free_port)
# shellcheck disable=SC2046
valgrind --tool=callgrind --callgrind-out-file="$TMP/callgrind.out" --dump-instr=no \
  --collect-atstart=yes "$RS" $(serve_args "$TMP/cg-store" "$BP" "$NP") \
  >"$TMP/valgrind.log" 2>&1 &
SERVER_PID=$!
wait_port "$BP" "$SERVER_PID" 120
"$PEER" produce --addr "127.0.0.1:$BP" --shape 1x1 --count "$WARMUP" --warmup 0 >/dev/null
callgrind_control -z "$SERVER_PID" >/dev/null 2>&1
echo "profile_produce: callgrind window: $N async 1 KiB sends, $SHAPE in flight, $SERIALIZE header (takes minutes)"
"$PEER" produce --addr "127.0.0.1:$BP" --shape "$SHAPE" --count "$N" --warmup 0 \
  --serialize "$SERIALIZE" --server-pid "$SERVER_PID" | tee "$TMP/cg-client.txt"
sleep 2  # let the dispatcher (consume queue + index) finish the window's messages
callgrind_control -d window "$SERVER_PID" >/dev/null 2>&1
sleep 1
kill -TERM "$SERVER_PID"; wait "$SERVER_PID" || true; SERVER_PID=""
DUMP="$TMP/callgrind.out.1"  # the first dump on request (-d); callgrind.out is the exit part
[ -s "$DUMP" ] || { echo "profile_produce: no window dump in $TMP" >&2; exit 1; }
python3 bench/peers/callgrind_families.py "$DUMP" "$N"

# ---- 2. strace -c -f ----
BP=$(free_port); NP=$(free_port)
# shellcheck disable=SC2046
"$RS" $(serve_args "$TMP/st-store" "$BP" "$NP") >"$TMP/serve.log" 2>&1 &
SERVER_PID=$!
wait_port "$BP" "$SERVER_PID" 30
"$PEER" produce --addr "127.0.0.1:$BP" --shape 1x1 --count "$WARMUP" --warmup 0 >/dev/null
strace -c -f -o "$TMP/strace.txt" -p "$SERVER_PID" 2>"$TMP/strace.err" &
STRACE_PID=$!
sleep 1  # strace attaches to every thread
"$PEER" produce --addr "127.0.0.1:$BP" --shape "$SHAPE" --count "$N" --warmup 0 \
  --serialize "$SERIALIZE" --server-pid "$SERVER_PID" >"$TMP/st-client.txt"
sleep 1
kill -INT "$STRACE_PID"; wait "$STRACE_PID" || true; STRACE_PID=""
echo
echo "strace -c -f of the server over $N async sends ($SHAPE; includes ~2 s idle around it):"
printf '%-18s %12s %10s %8s\n' syscall calls per-msg errors
awk -v n="$N" '$1 ~ /^[0-9.]+$/ && NF >= 5 && $NF != "total" {
  name = $NF; calls = $4; errs = (NF == 6) ? $5 : 0;
  printf "%-18s %12d %10.4f %8s\n", name, calls, calls / n, errs }' "$TMP/strace.txt" |
  sort -k2 -n -r | head -15
awk -v n="$N" '$1 ~ /^[0-9.]+$/ && NF >= 5 && $NF != "total" { t += $4 }
  END { printf "%-18s %12d %10.4f\n", "total", t, t / n }' "$TMP/strace.txt"
