# Differential test of one target ($TARGET; CTest runs this script once per
# registered target as e2e/diff/<target>): every graph of tests/diff/graphs
# built for the target, each function run on random sizes and values by
# graft-run (natively on the host, else the cross-built graft-run under the
# target's qemu) and compared with `graft eval` (tests/diff/difftest.py; a
# failure prints the seed and a command that reproduces it). Six rounds
# natively, three under qemu (slow); GRAFT_DIFF_ROUNDS overrides, and
# GRAFT_DIFF_SEED=random explores new sizes.
rounds=3
[[ $TARGET == "$HOST_TARGET" ]] && rounds=6
"$PYTHON" "$SRC/tests/diff/difftest.py" --graft "$GRAFT" --graft-run "$GRAFT_RUN" \
  --target "$TARGET" --cross-dir "$BIN/cross" --rounds "${GRAFT_DIFF_ROUNDS:-$rounds}" \
  --keep-dir "$BIN/difftest-failures/$TARGET"
