# The packed matmul gives bit-identical results at any thread count on
# $TARGET (CTest runs this once per registered target, under qemu for the
# others): the seed MLP (fill + matmul + relu + neg, one dispatch) on sizes
# that span several workgroups and K blocks on every feature level and end
# in ragged tiles, run at 1, 2 and 5 threads, outputs compared byte for
# byte, and against the reference evaluator within rounding; then blocks of
# fewer rows than a tile against the rows of the full result (below).
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

# A workgroup of fewer rows than a register tile (mr: 6 or 12) reads its
# rhs panels in place instead of packing them (lib/codegen/PackedMatmul.cpp:
# the tails, and the packing tile for rows no tail covers). Its sums run in the same k order as the packed tiles',
# so the first m rows computed alone have the bytes of the same rows of the
# 101-row result, on every feature level this machine runs (forced with
# --isa): m = 1, 3, 5, 7, 11 cover each tail height on both register
# tiles, and the mr-row tile on x86-64-v2/v3's (6 rows).
"$PYTHON" - <<'PY'
import numpy as np
lhs = np.load("lhs.npy")
for m in (1, 3, 5, 7, 11):
    np.save(f"lhs{m}.npy", lhs[:m])
PY
levels_here "$TARGET"
for lm in "${LEVELS_HERE[@]}"; do
  level=${lm%%=*} model=${lm#*=}
  run_cpu "$TARGET" "$model" mlp.graft --function mlp --isa="$level" --input @lhs.npy \
    --input @rhs.npy --output @all.npy
  for m in 1 3 5 7 11; do
    run_cpu "$TARGET" "$model" mlp.graft --function mlp --isa="$level" --threads 2 \
      --input @lhs$m.npy --input @rhs.npy --output @rows$m.npy
  done
  "$PYTHON" - "$TARGET $level" <<'PY'
import sys
import numpy as np
every = np.load("all.npy")
for m in (1, 3, 5, 7, 11):
    rows = np.load(f"rows{m}.npy")
    assert rows.shape == (m, 139), rows.shape
    assert rows.tobytes() == every[:m].tobytes(), \
        f"{sys.argv[1]}: the first {m} rows alone differ from those of all 101"
PY
done
