#!/usr/bin/env bash
# Builds every libFuzzer target (graft_fuzzer() in the CMake files: parsers,
# tensor I/O, the loader, host programs) with ASan+UBSan and runs each for
# a while on its seed corpus tests/fuzz/corpus/<fuzzer>/ plus every crash
# kept in tests/fuzz/crashes/<fuzzer>/ (with the dictionary
# tests/fuzz/dict/<fuzzer>.dict when there is one). Fails on any crash,
# sanitizer report, leak or hang and prints how to reproduce and keep it.
#
#   cmake/fuzz.sh [--time SECONDS] [--corpus DIR] [FUZZER...]
#   cmake/fuzz.sh 60                 (the same as --time 60)
#
#   --time SECONDS  per target (default 30)
#   --corpus DIR    keep the grown corpora in DIR/<fuzzer>/ across runs (a
#                   long run picks up where the last one stopped); without
#                   it each run starts from the seeds in
#                   <build>/fuzz-run/<fuzzer>/corpus
#   FUZZER...       only these (default: every fuzzer with a seed corpus)
#
# Build dir: $GRAFT_FUZZ_BUILD_DIR or build-fuzz/. Compilers: $CC / $CXX or
# clang-19 / clang++-19 (libFuzzer is clang's). Runs are sequential: CI has
# two cores and the fuzzers are single-threaded. The checked-in seeds and
# crashes are never modified.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${GRAFT_FUZZ_BUILD_DIR:-$root/build-fuzz}
seconds=30
corpus_root=
only=()
seeds=$root/tests/fuzz/corpus
crashes=$root/tests/fuzz/crashes

usage() {
  echo "fuzz.sh: $1" >&2
  echo "usage: cmake/fuzz.sh [--time SECONDS] [--corpus DIR] [FUZZER...]" >&2
  exit 2
}
while [ $# -gt 0 ]; do
  case $1 in
    --time) [ $# -ge 2 ] || usage "--time needs a value"; seconds=$2; shift 2 ;;
    --time=*) seconds=${1#--time=}; shift ;;
    --corpus) [ $# -ge 2 ] || usage "--corpus needs a directory"; corpus_root=$2; shift 2 ;;
    --corpus=*) corpus_root=${1#--corpus=}; shift ;;
    -*) usage "unknown option '$1'" ;;
    *)
      if [[ $1 =~ ^[0-9]+$ ]] && [ ${#only[@]} -eq 0 ]; then seconds=$1
      elif [ -d "$seeds/$1" ]; then only+=("$1")
      else usage "no fuzzer '$1' (expected one of: $(ls "$seeds" | xargs))"
      fi
      shift ;;
  esac
done
if ! [[ $seconds =~ ^[0-9]+$ ]] || [ "$seconds" -eq 0 ]; then
  usage "expected a positive number of seconds per target, found '$seconds'"
fi
if [ -n "$corpus_root" ]; then
  mkdir -p "$corpus_root"
  corpus_root=$(cd "$corpus_root" && pwd)
fi

cmake -S "$root" -B "$build" -G Ninja \
  -DCMAKE_C_COMPILER="${CC:-clang-19}" -DCMAKE_CXX_COMPILER="${CXX:-clang++-19}" \
  -DGRAFT_FUZZ=ON -DGRAFT_CROSS_RUNTIMES=OFF -DGRAFT_BUILD_TESTS=OFF >/dev/null
targets=(fuzzers)
[ ${#only[@]} -eq 0 ] || targets=("${only[@]}")
cmake --build "$build" --target "${targets[@]}" -j"$(nproc)"

# Big allocations fail (NULL) instead of aborting, so that the code's own
# out-of-memory errors are exercised rather than reported as crashes; leaks
# and UBSan findings are failures.
export ASAN_OPTIONS=${ASAN_OPTIONS:-allocator_may_return_null=1:max_allocation_size_mb=1024:detect_leaks=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
fuzz_flags=(-max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048
            -print_final_stats=1)

failed=()
for dir in "$seeds"/*/; do
  name=$(basename "$dir")
  if [ ${#only[@]} -ne 0 ] && ! [[ " ${only[*]} " == *" $name "* ]]; then
    continue
  fi
  bin=$(find "$build" -name "$name" -type f -perm -u+x -print -quit)
  if [ -z "$bin" ]; then
    echo "fuzz.sh: no fuzzer binary '$name' for corpus $dir (is graft_fuzzer($name) in a CMakeLists.txt?)" >&2
    failed+=("$name")
    continue
  fi
  work=$build/fuzz-run/$name
  rm -rf "$work"
  mkdir -p "$work"
  # libFuzzer writes new inputs into the first directory only; the seeds
  # and kept crashes follow it, read-only.
  if [ -n "$corpus_root" ]; then
    corpus=$corpus_root/$name
  else
    corpus=$work/corpus
  fi
  mkdir -p "$corpus"
  inputs=("$corpus" "$dir")
  [ ! -d "$crashes/$name" ] || inputs+=("$crashes/$name")
  dict=()
  [ ! -f "$root/tests/fuzz/dict/$name.dict" ] || dict=(-dict="$root/tests/fuzz/dict/$name.dict")
  start=$(date +%s)
  rc=0
  "$bin" "${fuzz_flags[@]}" ${dict[@]+"${dict[@]}"} -artifact_prefix="$work/" \
    "${inputs[@]}" >"$work/log" 2>&1 || rc=$?
  took=$(( $(date +%s) - start ))
  execs=$(grep -E '^stat::number_of_executed_units' "$work/log" | awk '{print $2}' || true)
  if [ "$rc" -ne 0 ]; then
    failed+=("$name")
    echo "fuzz.sh: $name FAILED (exit $rc after ${took}s); log: $work/log" >&2
    grep -E 'ERROR|SUMMARY|runtime error|fuzz_[a-z_]+:' "$work/log" | head -5 >&2 || true
    for artifact in "$work"/crash-* "$work"/leak-* "$work"/timeout-* "$work"/oom-* "$work"/slow-unit-*; do
      [ -e "$artifact" ] || continue
      echo "fuzz.sh: reproducer $artifact" >&2
      echo "fuzz.sh:   rerun: ASAN_OPTIONS=$ASAN_OPTIONS $bin $artifact" >&2
      echo "fuzz.sh:   keep it (CI replays it): cp $artifact $crashes/$name/" >&2
    done
  else
    echo "fuzz.sh: $name ok (${took}s, ${execs:-?} runs, corpus $(ls "$corpus" | wc -l) inputs in $corpus)"
  fi
done

if [ ${#failed[@]} -ne 0 ]; then
  echo "fuzz.sh: failed: ${failed[*]}" >&2
  exit 1
fi
echo "fuzz.sh: all fuzzers ran ${seconds}s without findings"
