#!/usr/bin/env bash
# `make bench`: every benchmark with its default arguments, one after the other (they
# measure the whole machine, so never in parallel). Each prints its own baseline and
# ratios; docs/benchmarks.md records and explains the figures. Takes ~5 minutes.
set -euo pipefail
cd "$(dirname "$0")/.."
B=build/release/bench
for cmd in "commitlog_append --seconds 3" "consume_read" "index_query --keys 1000000" \
           "broker_produce_consume --seconds 3" "metrics_counting --calls 5000000 --rounds 3"; do
  echo
  echo "=== bench/${cmd}"
  # shellcheck disable=SC2086
  "$B"/${cmd}
done
