# Helpers for end-to-end tests (sourced by run-one.sh).

# not <cmd...>: the command must fail (exit non-zero), its output left as
# it is. Write this, never `! cmd`: under `set -e` bash does not stop on a
# negated command, so `! grep -q x file` checks nothing.
not() {
  if "$@"; then
    echo "expected to fail, but it succeeded: $*" >&2
    return 1
  fi
}

# expect_fail <cmd...>: the command must exit non-zero; its stdout+stderr
# are left in $T/out for FileCheck.
expect_fail() {
  if "$@" >"$T/out" 2>&1; then
    echo "expected failure, but it succeeded: $*" >&2
    cat "$T/out" >&2
    return 1
  fi
}

# The registered targets, from graft itself (targets/Describe.h): TARGETS
# (names, in registry order), HOST_TARGET (the one graft-run runs natively,
# empty if none) and TARGET_QEMU[<target>] (its qemu-user binary).
TARGETS=()
HOST_TARGET=
declare -A TARGET_QEMU=()
while IFS=$'\t' read -r _kind _name _host _qemu _rest; do
  [[ $_kind == target ]] || continue
  TARGETS+=("$_name")
  TARGET_QEMU[$_name]=$_qemu
  [[ $_host == 1 ]] && HOST_TARGET=$_name
done < <("$GRAFT" targets --format=tsv)
if [[ ${#TARGETS[@]} -eq 0 ]]; then
  echo "error: '$GRAFT targets --format=tsv' listed no targets" >&2
  exit 1
fi
# ALL_TARGETS: every target, comma-separated (for --target).
ALL_TARGETS=$(IFS=,; echo "${TARGETS[*]}")

# runner_of <target>: sets RUNNER to the command that runs graft-run for
# that target: the host's graft-run natively, or the cross-built one
# ($BIN/cross/<target>/graft-run) under the target's qemu. Fails with a clear
# message when graft does not know the target or its cross build is missing.
runner_of() {
  local target=$1
  if [[ $target == "$HOST_TARGET" ]]; then
    RUNNER=("$GRAFT_RUN")
    return 0
  fi
  if [[ -z ${TARGET_QEMU[$target]+set} ]]; then
    echo "error: graft has no target '$target' (it has: ${TARGETS[*]})" >&2
    return 1
  fi
  local cross=$BIN/cross/$target/graft-run
  if [[ ! -x $cross ]]; then
    echo "error: no $target graft-run at '$cross' (build it: ninja graft-run-$target)" >&2
    return 1
  fi
  RUNNER=("${TARGET_QEMU[$target]}" "$cross")
}

# run_on <target> <graft-run args...>: runs graft-run for that target.
run_on() {
  local RUNNER
  runner_of "$1" || return 1
  shift
  "${RUNNER[@]}" "$@"
}

source "$(dirname "${BASH_SOURCE[0]}")/levels.sh"

# check <file-with-CHECK-lines> < input: FileCheck with the usual flags.
check() { "$FILECHECK" --dump-input=fail "$@"; }

# check_out <PREFIX>: checks $T/out (what expect_fail or a redirect left
# there) against the PREFIX lines of the running test's own file.
check_out() { check "$TEST_DIR/$TEST_NAME.sh" --check-prefix="$1" < "$T/out"; }

# ONNX_MODELS: the checked-in models of the ONNX tests (written by
# inputs/onnx/gen_models.py).
ONNX_MODELS=$(cd "$(dirname "${BASH_SOURCE[0]}")/../inputs/onnx" && pwd)


# $PYTHON: a python3 that has numpy (a pyenv shim first on PATH may not).
if [[ -z "${PYTHON:-}" ]]; then
  for p in python3 /usr/bin/python3; do
    if "$p" -c 'import numpy' 2>/dev/null; then PYTHON=$p; break; fi
  done
  : "${PYTHON:=python3}"
fi

# read_run_args <file>: fills the array RUN_ARGS from a run.args file of the
# worked examples in specs/: one "--flag value" per line (the value is the
# rest of the line, spaces included), or a lone "--flag"; blank lines and
# lines starting with '#' are skipped.
read_run_args() {
  RUN_ARGS=()
  local line
  while IFS= read -r line || [[ -n $line ]]; do
    [[ -z $line || $line == \#* ]] && continue
    if [[ $line == *" "* ]]; then
      RUN_ARGS+=("${line%% *}" "${line#* }")
    else
      RUN_ARGS+=("$line")
    fi
  done < "$1"
}

# require_targets <target...>: fails with a clear message unless graft-run
# can run for each of them (runner_of).
require_targets() {
  local RUNNER t
  for t in "$@"; do
    runner_of "$t" || return 1
  done
}

# bad_kernel <name>: builds <name>.graft (x86_64, aarch64, riscv64),
# inputs/bad_kernels/f.graph with its map replaced by the misbehaving C
# kernel <name>_k of k.c.
bad_kernel() {
  local dir=$TEST_DIR/inputs/bad_kernels
  cp "$dir/k.c" "$dir/f.graph" .
  sed "s/KERNEL/$1/g" "$dir/call.yaml.in" >"$1.yaml"
  "$GRAFT" build f.graph --spec "$1.yaml" --target x86_64,aarch64,riscv64 \
    -o "$1.graft"
}

# build_slice <arch> <source.c> <out.so>: a hand-written graft library
# (tests/plugins/*_slice.c) linked the way graft links slices: freestanding,
# PIC, only graft_library_query exported, no undefined symbols, -z now,
# RELRO and a SysV hash table for graft's loader.
build_slice() {
  "$CLANG" --target="$1-unknown-linux-gnu" -ffreestanding -nostdlib -fPIC -O2 \
    -fvisibility=hidden -shared -fuse-ld=lld \
    -Wl,-z,relro,-z,now,--hash-style=sysv,--no-undefined,--build-id=none \
    -I"$SRC/runtime/include" -I"$SRC/tests/plugins" "$2" -o "$3"
}

# random_f32_inputs <n>: two random f32 tensors of n elements (eighths in
# [-8, 8], seeded by n), one graft-run --input value per line.
random_f32_inputs() {
  "$PYTHON" -c "
import random
random.seed($1)
for _ in range(2):
    print('$1xf32=[' + ' '.join(str(random.randint(-64, 64) / 8) for _ in range($1)) + ']')
"
}

# levels_agree <level A> <level B> <case>...: each case i's result saved
# as lv_<level>_<i>.npy must be the same bytes on both levels, where both
# ran (a level the host cannot run saved none).
levels_agree() {
  local a=$1 b=$2 i=0
  shift 2
  for c in "$@"; do
    if [[ -f lv_${a}_$i.npy && -f lv_${b}_$i.npy ]]; then
      cmp "lv_${a}_$i.npy" "lv_${b}_$i.npy" || { echo "error: $c: $a and $b differ" >&2; return 1; }
    fi
    i=$((i + 1))
  done
}
