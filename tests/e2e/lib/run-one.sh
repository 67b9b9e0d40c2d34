#!/usr/bin/env bash
# Runs one end-to-end test script in a fresh temporary directory with the
# helpers of common.sh loaded. The test fails on the first failing command.
set -euo pipefail
lib_dir=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
export TEST_NAME=$(basename "$1" .sh)
export TEST_DIR=$(cd "$(dirname "$1")" && pwd)
# Absolute: the test runs in $T (and its failing lines are found by this name).
test_file=$TEST_DIR/$(basename "$1")
export T=$(mktemp -d "${TMPDIR:-/tmp}/graft-$TEST_NAME.XXXXXX")
trap 'rm -rf "$T"' EXIT
# A failing command names itself, its line and its exit status, and the
# logs the test wrote (tools whose errors go to stdout, like ninja, are
# redirected there), so a failure in CI says why without a rerun.
on_error() {
  local rc=$? line=$1 cmd=$2 log i where=
  # Under `set +e` the test looks at the status itself: not a failure.
  [[ $- == *e* ]] || return 0
  trap - ERR
  # A command that failed inside a helper of common.sh (check_out, run_on,
  # ...) is named by the test's line that called it, and the helper.
  for ((i = 1; i < ${#BASH_SOURCE[@]}; i++)); do
    if [[ ${BASH_SOURCE[i]} == "$test_file" ]]; then
      line=${BASH_LINENO[i - 1]}
      ((i > 1)) && where=" (in ${FUNCNAME[i - 1]})"
      break
    fi
  done
  echo "FAIL $TEST_NAME: $test_file:$line$where: exit $rc: $cmd" >&2
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
