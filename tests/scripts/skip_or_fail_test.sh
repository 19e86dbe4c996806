#!/usr/bin/env bash
# The interop and browser scripts' "cannot run" path (tests/interop/run_interop.sh,
# tests/browser/run_browser.sh): with node missing from PATH they exit 77 (ctest SKIP)
# locally, and 1 with the reason under CI=<anything but false/0> or
# ROCKETSTORE_REQUIRE_INTEROP=1 (what `make test` sets).
set -u
SRC=$(cd "$(dirname "$0")/../.." && pwd)
fails=0
check() {  # <want rc> <script> <env...>
  local want=$1 script=$2; shift 2
  local out rc
  out=$(env -i PATH=/nonexistent CHROMIUM=/bin/true "$@" /bin/bash "$SRC/$script" /bin/true /tmp 2>&1)
  rc=$?
  if [ "$rc" -ne "$want" ]; then
    echo "FAIL: $script with [$*]: exit $rc, want $want; output: $out"; fails=$((fails + 1))
  elif ! printf '%s' "$out" | /bin/grep -q "no node on PATH"; then
    echo "FAIL: $script with [$*]: the reason is not named: $out"; fails=$((fails + 1))
  fi
}
for script in tests/interop/run_interop.sh tests/browser/run_browser.sh; do
  check 77 "$script"
  check 77 "$script" CI=false
  check 77 "$script" CI=0
  check 1 "$script" CI=true
  check 1 "$script" CI=1
  check 1 "$script" ROCKETSTORE_REQUIRE_INTEROP=1
done
[ "$fails" -eq 0 ] && echo "skip_or_fail: all cases as expected"
