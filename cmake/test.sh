#!/usr/bin/env bash
# The project's test command (what CI runs, see .ci/run): installs the
# dependencies, configures build/ with warnings as errors, builds everything
# (compiler, runtime, cross-built runtimes) and runs every CTest test: unit
# tests, cross unit tests under qemu and the end-to-end tests.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${GRAFT_BUILD_DIR:-$root/build}

bash "$root/cmake/install-deps.sh"
cmake -S "$root" -B "$build" -G Ninja -DGRAFT_WERROR=ON
cmake --build "$build" -j"$(nproc)"

status=0
ctest --test-dir "$build" --output-on-failure -j2 | tee "$build/ctest.log" || status=$?
# ctest's closing summary ("100% tests passed, 0 tests failed out of N"),
# repeated last so it is the final line of the log.
summary=$(grep -E "tests passed, [0-9]+ tests failed out of" "$build/ctest.log" | tail -1 || true)
echo "${summary:-ctest did not report a summary (exit $status)}"
exit "$status"
