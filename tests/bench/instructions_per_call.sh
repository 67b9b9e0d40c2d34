#!/usr/bin/env bash
# Instructions per call of a graft function through the C API, steady
# state, counted by callgrind: noise-free where wall time on a shared
# machine is not. Runs graft_bench twice, with 10 and 210 timed calls of one
# call per sample (--min-sample-ms 0), and divides the difference of the
# instructions of its call wrapper by 200, so start-up, the warm-up call
# and calibration cancel out. Valgrind runs the best ISA variant it can
# emulate (x86-64-v3 on x86-64: no AVX-512), not necessarily the one the
# CPU would get.
#
#   tests/bench/instructions_per_call.sh [--outputs runtime|caller] \
#       BUNDLE FUNCTION INPUT.npy...
#
# Environment: GRAFT_BENCH (default build/tests/bench/graft_bench).
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
bench=${GRAFT_BENCH:-$root/build/tests/bench/graft_bench}
outputs=runtime
if [[ ${1:-} == --outputs ]]; then outputs=$2; shift 2; fi
if [[ $# -lt 3 ]]; then
  echo "usage: $0 [--outputs runtime|caller] BUNDLE FUNCTION INPUT.npy..." >&2
  exit 2
fi
command -v valgrind > /dev/null || { echo "error: valgrind is not installed" >&2; exit 1; }
[[ -x $bench ]] || { echo "error: no graft_bench at $bench (ninja graft_bench)" >&2; exit 1; }
bundle=$1 function=$2
shift 2
inputs=("$@")
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT

# Instructions of graft_call (one invoke, plus the release of runtime
# outputs) over |reps| timed calls.
count() {
  valgrind --tool=callgrind --callgrind-out-file="$dir/out.$1" "$bench" graft \
    "$bundle" "$function" --threads 1 --reps "$1" --min-sample-ms 0 \
    --budget-ms 1e9 --outputs "$outputs" "${inputs[@]}" > /dev/null 2> "$dir/log.$1" ||
    { cat "$dir/log.$1" >&2; exit 1; }
  callgrind_annotate --inclusive=yes --threshold=100 "$dir/out.$1" |
    awk '/graft_call\.c:graft_call / && !n++ { gsub(",", "", $1); print $1 }'
}
few=$(count 10)
many=$(count 210)
[[ -n $few && -n $many ]] || { echo "error: no graft_call in callgrind's profile" >&2; exit 1; }
echo "$function ($outputs outputs): $(( (many - few) / 200 )) instructions per call"
