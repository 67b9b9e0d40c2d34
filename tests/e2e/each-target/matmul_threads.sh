# The packed matmul gives bit-identical results at any thread count on
# $TARGET (CTest runs this once per registered target, under qemu for the
# others): the seed MLP (fill + matmul + relu + neg, one dispatch) on sizes
# that span several workgroups and K blocks on every feature level and end
# in ragged tiles, run at 1, 2 and 5 threads, outputs compared byte for
# byte, and against the reference evaluator within rounding.
"$GRAFT" build "$SRC/tests/e2e/inputs/mlp.graph" --target "$TARGET" -o mlp.graft
"$PYTHON" - <<'PY'
import numpy as np
rng = np.random.default_rng(8)
np.save("lhs.npy", rng.uniform(-1, 1, (101, 1100)).astype(np.float32))
np.save("rhs.npy", rng.uniform(-1, 1, (1100, 139)).astype(np.float32))
PY
for threads in 1 2 5; do
  run_on "$TARGET" mlp.graft --function mlp --threads "$threads" \
    --input @lhs.npy --input @rhs.npy --output @out$threads.npy
done
cmp out1.npy out2.npy
cmp out1.npy out5.npy
"$GRAFT" eval "$SRC/tests/e2e/inputs/mlp.graph" --function mlp --input @lhs.npy --input @rhs.npy \
  --output @ref.npy
"$PYTHON" - <<'PY'
import numpy as np
got, ref = np.load("out1.npy"), np.load("ref.npy")
err = np.abs(got.astype(np.float64) - ref)
assert got.shape == (101, 139), got.shape
assert (err <= 1e-4 + 1e-4 * np.abs(ref)).all(), f"max error {err.max()}"
assert (got != 0).any() and (got == 0).any(), "relu left nothing to check"
PY
