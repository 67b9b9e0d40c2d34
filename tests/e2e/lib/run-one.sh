#!/usr/bin/env bash
# Runs one end-to-end test script in a fresh temporary directory with the
# helpers of common.sh loaded. The test fails on the first failing command.
set -euo pipefail
test_file=$1
lib_dir=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
export TEST_NAME=$(basename "$test_file" .sh)
export TEST_DIR=$(cd "$(dirname "$test_file")" && pwd)
export T=$(mktemp -d "${TMPDIR:-/tmp}/graft-$TEST_NAME.XXXXXX")
trap 'rm -rf "$T"' EXIT
# A failing command names itself, its line and its exit status, and the
# logs the test wrote (tools whose errors go to stdout, like ninja, are
# redirected there), so a failure in CI says why without a rerun.
on_error() {
  local rc=$? line=$1 cmd=$2 log
  # Under `set +e` the test looks at the status itself: not a failure.
  [[ $- == *e* ]] || return 0
  trap - ERR
  echo "FAIL $TEST_NAME: $test_file:$line: exit $rc: $cmd" >&2
  for log in "$T"/*.log; do
    [[ -f $log ]] || continue
    echo "--- last lines of $(basename "$log"):" >&2
    tail -n 25 "$log" >&2
  done
}
set -E
trap 'on_error "$LINENO" "$BASH_COMMAND"' ERR
cd "$T"
source "$lib_dir/common.sh"
source "$test_file"
echo "PASS $TEST_NAME"
