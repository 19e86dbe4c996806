# The two commands of the README, plus a few conveniences.
#   make run   - install deps, build release, start `rocketstore serve` (store under ./data)
#   make test  - install deps, build release + asan, run every test in both
JOBS ?= $(shell nproc)
CTEST_ARGS ?=

.PHONY: deps build run test test-release test-asan test-clang bench fuzz format clean

deps:
	@bash scripts/install-deps.sh

build: deps
	@cmake --preset release >/dev/null
	@cmake --build --preset release -j $(JOBS)

run: build
	./build/release/rocketstore serve --store ./data

test: deps test-release test-asan
	@echo "make test: all suites passed (release + asan)"

test-release:
	@cmake --preset release >/dev/null
	@cmake --build --preset release -j $(JOBS)
	@ctest --preset release -j $(JOBS) $(CTEST_ARGS)

test-asan:
	@cmake --preset asan >/dev/null
	@cmake --build --preset asan -j $(JOBS)
	@ctest --preset asan -j $(JOBS) $(CTEST_ARGS)

# Not part of `make test` (CI time): the same suite built with clang, to keep the code
# compiling under both compilers.
test-clang: deps
	@cmake --preset clang >/dev/null
	@cmake --build --preset clang -j $(JOBS)
	@ctest --preset clang -j $(JOBS) $(CTEST_ARGS)

bench: build
	@bash bench/run_all.sh

fuzz: deps
	@cmake --preset fuzz >/dev/null
	@cmake --build --preset fuzz -j $(JOBS)

format:
	@git ls-files '*.h' '*.cc' | xargs clang-format -i

clean:
	rm -rf build
