# The two commands of the README, plus a few conveniences.
#   make run   - install deps, build release, start `rocketstore serve` (store under ./data)
#   make test  - install deps, check the layering, build the product at -O2 and run the
#                interop/browser tests against it, build asan + tsan, run every test under
#                ASan/UBSan and the threaded ones under TSan
JOBS ?= $(shell nproc)
CTEST_ARGS ?=

.PHONY: deps build run test check-layering test-release test-release-all test-asan test-tsan test-clang bench bench-peers bench-peers-quick profile-produce fuzz format clean

deps:
	@bash scripts/install-deps.sh

build: deps
	@cmake --preset release >/dev/null
	@cmake --build --preset release -j $(JOBS)

# Prints the endpoints at start, among them "web console url=http://127.0.0.1:8080/".
run: build
	@echo "make run: web console at http://127.0.0.1:8080/ (remoting 127.0.0.1:9876 / :10911)"
	./build/release/rocketstore serve --store ./data

# Under `make test` an interop or browser test that cannot run (no node/npm/chromium, npm
# ci failing) fails instead of being skipped (tests/interop/run_interop.sh,
# tests/browser/run_browser.sh); a plain `ctest` still skips it.
test: export ROCKETSTORE_REQUIRE_INTEROP = 1
test: deps check-layering test-release test-asan test-tsan
	@echo "make test: all suites passed (layering, release, asan, tsan)"

# Every #include "..." in src/ against the layer table in docs/architecture.md; before any
# build, so a layering slip fails in seconds.
check-layering:
	@python3 scripts/check_layering.py

# CI's release stage: the product (`rocketstore`) at -O2 with -Werror, and the tests that
# drive that binary from outside (ali-ons interop, the console in chromium). The GoogleTest
# suites run under ASan/UBSan below (and the threaded ones under TSan), so they are not
# compiled a third time at -O2 here: that saved ~10 minutes of CI. `make test-release-all`
# builds and runs every suite at -O2 (the usual loop while developing).
test-release:
	@cmake --preset release >/dev/null
	@cmake --build --preset release -j $(JOBS) --target rocketstore
	@ctest --preset release -j $(JOBS) -L 'interop|browser' $(CTEST_ARGS)

test-release-all:
	@cmake --preset release >/dev/null
	@cmake --build --preset release -j $(JOBS)
	@ctest --preset release -j $(JOBS) $(CTEST_ARGS)

test-asan:
	@cmake --preset asan >/dev/null
	@cmake --build --preset asan -j $(JOBS)
	@ctest --preset asan -j $(JOBS) $(CTEST_ARGS)

# ThreadSanitizer over the tests labelled `threads` only (the build preset's target
# `threads_tests` builds just those binaries). Suppressions: scripts/tsan.supp.
test-tsan:
	@cmake --preset tsan >/dev/null
	@cmake --build --preset tsan -j $(JOBS)
	@ctest --preset tsan -j $(JOBS) $(CTEST_ARGS)

# Not part of `make test` (CI time): the same suite built with clang, to keep the code
# compiling under both compilers.
test-clang: deps
	@cmake --preset clang >/dev/null
	@cmake --build --preset clang -j $(JOBS)
	@ctest --preset clang -j $(JOBS) $(CTEST_ARGS)

bench: build
	@bash bench/run_all.sh

# Issue 20: rocketstore vs NATS JetStream and Redis, alternating rounds, server CPU per
# message from /proc (docs/benchmarks-produce.md "Peers"). Not part of `make test`. Arguments
# through PEERS_ARGS, e.g. `make bench-peers PEERS_ARGS=--quick` (1 round of 2 s rows).
PEERS_ARGS ?=
bench-peers:
	@bash scripts/install-deps.sh --bench-peers
	@cmake --preset release >/dev/null
	@cmake --build --preset release -j $(JOBS) --target rocketstore rs_peer
	@python3 bench/peers/run_peers.py $(PEERS_ARGS)

bench-peers-quick:
	@$(MAKE) --no-print-directory bench-peers PEERS_ARGS=--quick

# Instructions per message of the async produce path under callgrind, syscalls per message
# under strace (docs/benchmarks-produce.md "Produce path profile"). Takes ~10 minutes.
profile-produce:
	@bash scripts/install-deps.sh --profile
	@cmake --preset release >/dev/null
	@cmake --build --preset release -j $(JOBS) --target rocketstore rs_peer
	@bash bench/peers/profile_produce.sh

fuzz: deps
	@cmake --preset fuzz >/dev/null
	@cmake --build --preset fuzz -j $(JOBS)

format:
	@git ls-files '*.h' '*.cc' | xargs clang-format -i

clean:
	rm -rf build
