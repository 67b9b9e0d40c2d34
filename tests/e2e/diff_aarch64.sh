# Differential test, aarch64 under qemu-aarch64 with the cross-built
# graft-run: as diff_x86_64.sh, with fewer rounds (qemu is slow).
require_aarch64
"$PYTHON" "$SRC/tests/diff/difftest.py" --graft "$GRAFT" --graft-run "$GRAFT_RUN_AARCH64" \
  --runner qemu-aarch64 --rounds "${GRAFT_DIFF_ROUNDS:-3}" \
  --keep-dir "$BIN/difftest-failures/aarch64"
