# Differential test, riscv64 under qemu-riscv64 with the cross-built
# graft-run: every graph of tests/diff built for riscv64 (RV64GC, scalar
# loops) against the reference evaluator, with few rounds (qemu is slow).
require_riscv64
"$PYTHON" "$SRC/tests/diff/difftest.py" --graft "$GRAFT" --graft-run "$GRAFT_RUN_RISCV64" \
  --runner qemu-riscv64 --build-targets riscv64 --rounds "${GRAFT_DIFF_ROUNDS:-2}" \
  --keep-dir "$BIN/difftest-failures/riscv64"
