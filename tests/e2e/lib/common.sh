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
