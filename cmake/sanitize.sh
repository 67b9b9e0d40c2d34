#!/usr/bin/env bash
# Sanitizer runs of the runtime (what CI runs after the main tests): two
# runtime-only builds, one with ASan+UBSan and one with TSan (the thread pool
# and the executor's dispatches), each running the runtime's CTest tests
# (loader, tensor I/O, thread pool, executor, module, plugins and their
# imports on every worker, graft-run CLI), then two compiled bundles and a
# plugin on the sanitized graft-run when the main build's graft compiler
# exists (see bundle_check, plugin_check, import_check).
#
#   cmake/sanitize.sh [address|thread]...     (default: both)
#
# Build dirs: $GRAFT_ASAN_BUILD_DIR or build-asan/, $GRAFT_TSAN_BUILD_DIR or
# build-tsan/. Compiler: $CC or clang-19 (falls back to cc). Every sanitizer
# finding aborts the test that hit it (-fno-sanitize-recover, halt_on_error),
# so a finding is a failed test.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cc=${CC:-$(command -v clang-19 || command -v cc)}
runs=("$@")
[ ${#runs[@]} -ne 0 ] || runs=(address thread)

# run_one <name> <build dir> <GRAFT_SANITIZE value>
run_one() {
  local name=$1 build=$2 sanitize=$3
  local start=$(date +%s)
  echo "sanitize.sh: $name: configuring $build"
  cmake -S "$root" -B "$build" -G Ninja -DCMAKE_C_COMPILER="$cc" \
    -DGRAFT_BUILD_COMPILER=OFF -DGRAFT_CROSS_RUNTIMES=OFF \
    -DGRAFT_SANITIZE="$sanitize" >/dev/null
  if ! cmake --build "$build" -j"$(nproc)" >"$build/build.log" 2>&1; then
    tail -30 "$build/build.log" >&2
    echo "sanitize.sh: $name: build failed; full log: $build/build.log" >&2
    return 1
  fi
  local rc=0
  ctest --test-dir "$build" --output-on-failure -j2 >"$build/ctest.log" 2>&1 || rc=$?
  local summary
  summary=$(grep -E "tests passed, [0-9]+ tests failed out of" "$build/ctest.log" | tail -1 || true)
  echo "sanitize.sh: $name: ${summary:-no ctest summary} ($(( $(date +%s) - start ))s)"
  if [ "$rc" -ne 0 ]; then
    grep -E "Failed|Exception|\*\*\*" "$build/ctest.log" >&2 || true
    echo "sanitize.sh: $name: failed; full log: $build/ctest.log" >&2
    return 1
  fi
  bundle_check "$name" "$build"
}

# bundle_check <name> <build dir>: when a graft compiler is around (the main
# build's, or $GRAFT), runs real compiled bundles (the seed MLP, plain and
# with the specs/mlp kernel) on the sanitized graft-run with 4 threads and a
# grid of several workgroups, against `graft eval`, and repeated and
# concurrent calls of one module (graft_invoke_repeat_check). The unit tests use
# hand-made libraries; this is the executor and thread pool on compiler
# output.
bundle_check() {
  local name=$1 build=$2
  local graft=${GRAFT:-$root/build/cmd/graft/graft}
  if [ ! -x "$graft" ]; then
    echo "sanitize.sh: $name: no graft compiler at $graft; skipping the bundle runs"
    return 0
  fi
  local dir=$build/bundles graph=$root/tests/e2e/inputs/mlp.graph
  local inputs=(--input "64x48xf32=1" --input "48x80xf32=0.25")
  mkdir -p "$dir"
  "$graft" build "$graph" -o "$dir/mlp.graft" &&
    "$graft" build "$graph" --spec "$root/specs/mlp/mlp.yaml" -o "$dir/mlp_spec.graft" &&
    "$graft" eval "$graph" --function mlp "${inputs[@]}" >"$dir/want.txt" || return 1
  local bundle
  for bundle in "$dir/mlp.graft" "$dir/mlp_spec.graft"; do
    if ! "$build/cmd/graft-run/graft-run" "$bundle" --function mlp --threads 4 \
        "${inputs[@]}" >"$dir/got.txt" || ! cmp -s "$dir/want.txt" "$dir/got.txt"; then
      echo "sanitize.sh: $name: $bundle gave a different result or failed" >&2
      return 1
    fi
  done
  echo "sanitize.sh: $name: 2 compiled bundles ran correctly on 4 threads"
  # Arenas kept across calls and caller storage, from two threads at once.
  "$graft" build "$root/tests/e2e/inputs/arena.graph" -o "$dir/arena.graft" &&
    "$build/runtime/src/exec/graft_invoke_repeat_check" "$dir/arena.graft" arena 4 10 \
      "37x129xf32=0.5" "129xf32=2" || return 1
  plugin_check "$name" "$build" "$graft"
}

# plugin_check <name> <build dir> <graft>: a bare-metal plugin built by
# `graft plugin` (runtime/examples/plugins/standalone_plugin.c) serving a
# hand-written library (tests/plugins/mul_slice.c) whose 313 workgroups
# call the import from 4 workers at once, through the sanitized graft-run's
# --plugin. (The unit test graft_plugin_test does the same with an
# instrumented plugin linked into the test.)
plugin_check() {
  local name=$1 build=$2 graft=$3 dir=$2/plugins
  local clang=${CLANG:-$(command -v clang-19 || true)}
  if [ -z "$clang" ]; then
    echo "sanitize.sh: $name: no clang-19 to link the plugin's library; skipping the plugin run"
    return 0
  fi
  mkdir -p "$dir"
  "$graft" plugin "$root/runtime/examples/plugins/standalone_plugin.c" -o "$dir/mul.sos" &&
    "$clang" --target=x86_64-unknown-linux-gnu -ffreestanding -nostdlib -fPIC -O2 \
      -fvisibility=hidden -shared -fuse-ld=lld \
      -Wl,-z,relro,-z,now,--hash-style=sysv,--no-undefined,--build-id=none \
      -I"$root/runtime/include" "$root/tests/plugins/mul_slice.c" -o "$dir/mul.graft" ||
    return 1
  local got
  got=$("$build/cmd/graft-run/graft-run" "$dir/mul.graft" --function mul --threads 4 \
    --plugin "$dir/mul.sos" --input "20000xf32=3" --input "20000xf32=0.5") || return 1
  if [ "$(tr ' ' '\n' <<<"${got#*=}" | grep -c '^1\.5$')" -ne 20000 ]; then
    echo "sanitize.sh: $name: the plugin run gave a wrong result" >&2
    return 1
  fi
  echo "sanitize.sh: $name: a bare-metal plugin served 313 workgroups on 4 threads"
  import_check "$name" "$build" "$graft"
}

# import_check <name> <build dir> <graft>: a compiled bundle whose spec
# imports a whole dispatch (specs/dispatch_import) served by its bare-metal
# plugin: 313 workgroups call the import from 4 workers at once, against
# `graft eval` of the same graph.
import_check() {
  local name=$1 build=$2 graft=$3 dir=$2/imports ex=$root/specs/dispatch_import
  local inputs=(--input "100x200xf32=1.5" --input "100x200xf32=-0.25")
  mkdir -p "$dir"
  "$graft" plugin "$ex/scaled_add_plugin.c" -o "$dir/scaled_add.sos" &&
    "$graft" build "$ex/scaled_add.graph" --spec "$ex/scaled_add.yaml" -o "$dir/scaled_add.graft" &&
    "$graft" eval "$ex/scaled_add.graph" --function scaled_add "${inputs[@]}" >"$dir/want.txt" ||
    return 1
  if ! "$build/cmd/graft-run/graft-run" "$dir/scaled_add.graft" --function scaled_add \
      --threads 4 --plugin "$dir/scaled_add.sos" "${inputs[@]}" >"$dir/got.txt" ||
      ! cmp -s "$dir/want.txt" "$dir/got.txt"; then
    echo "sanitize.sh: $name: the compiled bundle's imported dispatch gave a different result or failed" >&2
    return 1
  fi
  echo "sanitize.sh: $name: a compiled bundle's imported dispatch ran 313 workgroups on 4 threads"
}

export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
export TSAN_OPTIONS=${TSAN_OPTIONS:-halt_on_error=1:second_deadlock_stack=1}

failed=()
for run in "${runs[@]}"; do
  case $run in
    address)
      run_one asan+ubsan "${GRAFT_ASAN_BUILD_DIR:-$root/build-asan}" "address;undefined" ||
        failed+=(asan+ubsan) ;;
    thread)
      run_one tsan "${GRAFT_TSAN_BUILD_DIR:-$root/build-tsan}" thread || failed+=(tsan) ;;
    *)
      echo "sanitize.sh: unknown run '$run'; expected address or thread" >&2
      exit 2 ;;
  esac
done

if [ ${#failed[@]} -ne 0 ]; then
  echo "sanitize.sh: failed: ${failed[*]}" >&2
  exit 1
fi
echo "sanitize.sh: all sanitizer runs passed"
