# Helpers for end-to-end tests (sourced by run-one.sh).

# expect_fail <cmd...>: the command must exit non-zero; its stdout+stderr
# are left in $T/out for FileCheck.
expect_fail() {
  if "$@" >"$T/out" 2>&1; then
    echo "expected failure, but it succeeded: $*" >&2
    cat "$T/out" >&2
    return 1
  fi
}

# run_aarch64 <args...>: graft-run cross-built for aarch64, under qemu.
run_aarch64() { qemu-aarch64 "$GRAFT_RUN_AARCH64" "$@"; }
run_riscv64() { qemu-riscv64 "$GRAFT_RUN_RISCV64" "$@"; }

# check <file-with-CHECK-lines> < input: FileCheck with the usual flags.
check() { "$FILECHECK" --dump-input=fail "$@"; }

# require_aarch64: fails with a clear message when the cross-built aarch64
# graft-run is missing (it is built by the graft-run-aarch64 target).
require_aarch64() {
  if [[ ! -x "$GRAFT_RUN_AARCH64" ]]; then
    echo "error: no aarch64 graft-run at '$GRAFT_RUN_AARCH64'" \
         "(build it: ninja graft-run-aarch64)" >&2
    return 1
  fi
}

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

# require_riscv64: the same for the cross-built riscv64 graft-run.
require_riscv64() {
  if [[ ! -x "$GRAFT_RUN_RISCV64" ]]; then
    echo "error: no riscv64 graft-run at '$GRAFT_RUN_RISCV64'" \
         "(build it: ninja graft-run-riscv64)" >&2
    return 1
  fi
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
