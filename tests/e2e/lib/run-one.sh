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
cd "$T"
source "$lib_dir/common.sh"
source "$test_file"
echo "PASS $TEST_NAME"
