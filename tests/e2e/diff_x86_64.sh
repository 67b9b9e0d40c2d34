# Differential test, x86_64 natively: every graph of tests/diff/graphs built
# into one x86_64+aarch64 bundle, each function run on random sizes and
# values by graft-run and compared with `graft eval` (tests/diff/difftest.py;
# a failure prints the seed and a command that reproduces it).
# GRAFT_DIFF_SEED=random explores new sizes; GRAFT_DIFF_ROUNDS overrides
# the number of rounds.
"$PYTHON" "$SRC/tests/diff/difftest.py" --graft "$GRAFT" --graft-run "$GRAFT_RUN" \
  --rounds "${GRAFT_DIFF_ROUNDS:-6}" --keep-dir "$BIN/difftest-failures/x86_64"
