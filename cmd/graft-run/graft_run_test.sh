#!/usr/bin/env bash
# graft-run's command line on the checked-in ABI fixture bundle
# (tests/fixtures/abi: add(tensor<?xf32>, tensor<?xf32>) -> tensor<?xf32>):
# results, --output, --expected_output, --list, --trace, --benchmark and
# every kind of error with its exit code and message.
#   graft_run_test.sh GRAFT_RUN FIXTURE_BUNDLE [RUNNER...]
set -u
run=("${@:3}" "$1")
bundle=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
passed=0 failed=0

# expect NAME EXIT_CODE NEEDLE -- ARGS...: runs graft-run, checks the exit
# code and that stdout+stderr contain NEEDLE.
expect() {
  local name=$1 code=$2 needle=$3
  shift 4
  local out rc
  out=$("${run[@]}" "$@" 2>&1)
  rc=$?
  if [[ $rc == "$code" && $out == *"$needle"* ]]; then
    passed=$((passed + 1)); echo "ok   $name"
  else
    failed=$((failed + 1))
    echo "FAIL $name: exit $rc (want $code), output:"; echo "$out" | sed 's/^/  /'
    echo "  wanted: $needle"
  fi
}

A=(--input "4xf32=1 2 3 4" --input "4xf32=10")
expect result 0 "4xf32=11 12 13 14" -- "$bundle" --function add "${A[@]}"
expect equals_form 0 "3xf32=2 3 4" -- "$bundle" --function=add --input="3xf32=[1,2,3]" --input=3xf32=1
expect list 0 "add(tensor<?xf32>, tensor<?xf32>) -> tensor<?xf32>" -- "$bundle" --list
expect trace 0 "[trace] add: add_dispatch_0_map (fixture.graph:3:8) grid 1x1x1" -- "$bundle" --function add "${A[@]}" --trace
expect benchmark 0 "benchmark: add, 5 runs, mean" -- "$bundle" --function add "${A[@]}" --benchmark 5 --threads 2
expect threads_1 0 "4xf32=11 12 13 14" -- "$bundle" --function add "${A[@]}" --threads 1
expect unpinned 0 "4xf32=11 12 13 14" -- "$bundle" --function add "${A[@]}" --threads 0 --unpinned
expect unpinned_help 0 "leave the worker threads unpinned" -- --help
# --benchmark says how many workers are pinned: all but the caller with a
# thread per CPU the process may use (nproc's count, or a cgroup quota's),
# none when --unpinned.
out=$("${run[@]}" "$bundle" --function add "${A[@]}" --benchmark 2 2>&1)
bench_unpinned=$("${run[@]}" "$bundle" --function add "${A[@]}" --benchmark 2 --unpinned 2>&1)
if (($(nproc) >= 2)) && [[ $out != *" pinned)"* ]]; then
  failed=$((failed + 1)); echo "FAIL benchmark_pinned: want '(N workers pinned)':"; echo "$out"
elif [[ $bench_unpinned == *pinned* || $bench_unpinned != *"benchmark: add, 2 runs"* ]]; then
  failed=$((failed + 1)); echo "FAIL benchmark_unpinned: want no pinned workers:"; echo "$bench_unpinned"
else
  passed=$((passed + 1)); echo "ok   benchmark_pinned"
fi
expect expected_ok 0 "[SUCCESS]" -- "$bundle" --function add "${A[@]}" --expected_output "4xf32=11 12 13 14.00001"
expect expected_mismatch 1 "graft-run: error: result 1 of 'add': element [2] differs: got 13, expected 13.5 (tolerance 1e-05)" -- \
  "$bundle" --function add "${A[@]}" --expected_output "4xf32=11 12 13.5 14"
expect expected_tolerance 0 "[SUCCESS]" -- "$bundle" --function add "${A[@]}" --expected_output "4xf32=11 12 13.5 14" --tolerance 0.1
expect expected_shape 1 "got 4xf32, expected 2x2xf32" -- "$bundle" --function add "${A[@]}" --expected_output "2x2xf32=0"
expect output_npy 0 "" -- "$bundle" --function add "${A[@]}" --output "@$tmp/out.npy"
expect npy_input 0 "4xf32=22 24 26 28" -- "$bundle" --function add --input "@$tmp/out.npy" --input "@$tmp/out.npy"
# --output @FILE is honoured when --expected_output checks the same result
# (it used to be skipped silently).
expect output_and_expected 0 "[SUCCESS]" -- "$bundle" --function add "${A[@]}" --output "@$tmp/checked.npy" --expected_output "4xf32=11 12 13 14"
expect output_and_expected_file 0 "4xf32=22 24 26 28" -- "$bundle" --function add --input "@$tmp/checked.npy" --input "@$tmp/checked.npy"
expect output_stdout 0 "4xf32=11 12 13 14" -- "$bundle" --function add "${A[@]}" --output -
expect missing_bundle 1 "graft-run: error: cannot open '$tmp/x.graft': No such file or directory" -- "$tmp/x.graft" --function add
expect not_a_bundle 1 "not a graft bundle" -- "$0" --list
expect bad_input 1 "graft-run: error: --input '2xf32=1 2 3': expected 2 elements, found 3" -- "$bundle" --function add --input "2xf32=1 2 3" --input 2xf32=1
expect bad_dtype 1 "unknown element type 'f33'" -- "$bundle" --function add --input "2xf33=1" --input 2xf32=1
expect wrong_type 1 "argument 1 (%a): expected tensor<?xf32>, got 2x2xf32" -- "$bundle" --function add --input "2x2xf32=1" --input 2xf32=1
expect shape_check 1 "fixture.graph:3:8: add size mismatch: 3 != 4" -- "$bundle" --function add --input 3xf32=1 --input 4xf32=1
expect arg_count 1 "function 'add' takes 2 arguments, got 1" -- "$bundle" --function add --input 3xf32=1
expect no_function 1 "no function 'mlp' in module 'fixture' (available: add)" -- "$bundle" --function mlp
expect unknown_flag 2 "graft-run: error: unknown option '--bogus'" -- "$bundle" --bogus
expect no_value 2 "option '--input' needs a value (VALUE)" -- "$bundle" --function add --input
expect no_bundle 2 "graft-run: error: no bundle given" -- --function add
expect only_function 1 "function 'add' takes 2 arguments, got 0" -- "$bundle"
expect bad_threads 2 "--threads 'x': expected a whole number" -- "$bundle" --function add --threads x
expect bad_output 2 "--output 'out.npy': expected '-', '@FILE.npy' or '@FILE.pb'" -- "$bundle" --function add --output out.npy
expect too_many_outputs 1 "2 --output flags for 1 result of 'add'" -- "$bundle" --function add "${A[@]}" --output - --output -
expect usage_hint 2 "(see graft-run --help)" -- "$bundle" --bogus
expect bad_color 2 "graft-run: error: --color 'x': expected 'auto', 'always' or 'never'" -- "$bundle" --color x
# Colours as graft's (clang's): on request, and never into a pipe by default.
expect color_always 1 $'\033[1mgraft-run:\033[0m \033[1;31merror:\033[0m \033[1m' -- --color=always "$tmp/x.graft"
expect color_auto 1 "graft-run: error: cannot open" -- "$tmp/x.graft"
expect help 0 "usage: graft-run BUNDLE [--function NAME]" -- --help
expect help_function 0 "function to run (default: the bundle's only function)" -- --help
# The version and the ABI from their one home, the public headers.
include=$(cd "$(dirname "$0")/../../runtime/include/graft" && pwd)
version=$(sed -n 's/^#define GRAFT_RUNTIME_VERSION "\(.*\)"$/\1/p' "$include/runtime.h")
abi=$(sed -n 's/^#define GRAFT_ABI_VERSION \([0-9]*\)u$/\1/p' "$include/abi.h")
expect version 0 "graft-run $version (bundle ABI $abi)" -- --version

echo "$passed passed, $failed failed"
[[ $failed == 0 ]]
