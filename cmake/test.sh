#!/usr/bin/env bash
# The project's test command (what CI runs, see .ci/run): installs the
# dependencies, configures build/ with warnings as errors, builds everything
# (compiler, runtime, cross-built runtimes) and runs every CTest test: unit
# tests, cross unit tests under qemu and the end-to-end tests. Then the
# sanitizer runs (cmake/sanitize.sh) and a short fuzzing run
# (cmake/fuzz.sh). Exits non-zero if any part failed.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${GRAFT_BUILD_DIR:-$root/build}

bash "$root/cmake/install-deps.sh"
cmake -S "$root" -B "$build" -G Ninja -DGRAFT_WERROR=ON
cmake --build "$build" -j"$(nproc)"

status=0
ctest --test-dir "$build" --output-on-failure -j2 | tee "$build/ctest.log" || status=$?

# Sanitizer builds of the runtime (ASan+UBSan, TSan) and 20 s of every
# fuzzer (about 6 minutes together). Their full output goes to logs in
# $build; their verdicts are printed here, before ctest's summary.
for part in "sanitize.sh" "fuzz.sh 20"; do
  script=${part%% *}
  log=$build/${script%.sh}.log
  start=$(date +%s)
  part_status=0
  GRAFT=$build/cmd/graft/graft bash "$root/cmake/"$part >"$log" 2>&1 || part_status=$?
  grep -E "^(sanitize|fuzz)\.sh:" "$log" | grep -v "configuring" || true
  echo "test.sh: $part: exit $part_status in $(( $(date +%s) - start ))s (log: $log)"
  if [ "$part_status" -ne 0 ]; then
    tail -20 "$log"
    [ "$status" -ne 0 ] || status=$part_status
  fi
done
# ctest's closing summary ("100% tests passed, 0 tests failed out of N"),
# repeated last so it is the final line of the log.
summary=$(grep -E "tests passed, [0-9]+ tests failed out of" "$build/ctest.log" | tail -1 || true)
echo "${summary:-ctest did not report a summary (exit $status)}"
exit "$status"
