#!/usr/bin/env bash
# The README example: builds graft, compiles the MLP graph into one bundle for
# x86_64 and aarch64, and runs it natively and under qemu-aarch64. Both runs
# print 2x2xf32=[-12 0][0 -12].
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${GRAFT_BUILD_DIR:-$root/build}

bash "$root/cmake/install-deps.sh"
cmake -S "$root" -B "$build" -G Ninja
cmake --build "$build" -j"$(nproc)"

graft=$build/cmd/graft/graft
graft_run=$build/cmd/graft-run/graft-run
graft_run_aarch64=$build/cross/aarch64/graft-run
bundle=$build/mlp.graft
inputs=(--input "2x2xf32=[[2 2][-2 -2]]" --input "2x2xf32=[[3 -3][3 -3]]")

set -x
"$graft" build "$root/tests/e2e/inputs/mlp.graph" --target x86_64,aarch64 -o "$bundle"
"$graft_run" "$bundle" --function mlp "${inputs[@]}"
qemu-aarch64 "$graft_run_aarch64" "$bundle" --function mlp "${inputs[@]}"
