# argmax / argmin and reduce's mean / keepdims (docs/graph-format.md, "Index
# reductions"): the printed graph parses back, the evaluator agrees with
# numpy (NaN: the first wins; ties; -0 == +0), bundles agree with numpy, and
# ONNX ArgMax / ArgMin import to them. tests/diff/graphs/argreduce.graph and
# reduce_forms.graph run them on every target against the evaluator.
cat > "$T/ar.graph" <<'GRAPH'
func @amax(%x: tensor<?x?xf32>) -> tensor<?xi64> {
  %r = argmax %x {axis = 1} : tensor<?xi64>
  return %r
}
func @amin(%x: tensor<?x?xf32>) -> tensor<?xi64> {
  %r = argmin %x {axis = 1} : tensor<?xi64>
  return %r
}
func @amax_cols(%x: tensor<?x?xf32>) -> tensor<1x?xi32> {
  %r = argmax %x {axis = 0, keepdims = 1} : tensor<1x?xi32>
  return %r
}
func @mean(%x: tensor<?x?xf32>) -> tensor<?x1xf32> {
  %r = reduce %x {dims = [1], kind = mean, keepdims = 1} : tensor<?x1xf32>
  return %r
}
GRAPH
"$GRAFT" check "$T/ar.graph" --print > "$T/printed.graph"
"$GRAFT" check "$T/printed.graph" --print | cmp - "$T/printed.graph"
check "$TEST_DIR/argreduce.sh" --check-prefix=PRINT < "$T/printed.graph"
# PRINT: %r = argmax %x {axis = 0, keepdims = 1} : tensor<1x?xi32>
# PRINT: %r = reduce %x {dims = [1], kind = mean, keepdims = 1} : tensor<?x1xf32>

# Rows of few distinct values (ties), NaNs, infinities and signed zeros,
# through graft eval and the bundle, against numpy.
"$GRAFT" build "$T/ar.graph" --target "$HOST_TARGET" -o "$T/ar.graft"
"$PYTHON" - "$GRAFT" "$GRAFT_RUN" "$T" > "$T/numpy.log" <<'PY'
import subprocess, sys
import numpy as np
np.seterr(invalid="ignore")  # inf - inf in the means
graft, run, tmp = sys.argv[1:]
rng = np.random.default_rng(7)
pool = np.array([np.nan, np.inf, -np.inf, 0.0, -0.0, 1.0, -1.0, 2.5], np.float32)
ops = {"amax": lambda x: np.argmax(x, 1), "amin": lambda x: np.argmin(x, 1),
       "amax_cols": lambda x: np.argmax(x, 0)[None, :].astype(np.int32),
       "mean": lambda x: np.mean(x, 1, keepdims=True, dtype=np.float32)}
cases = 0
for trial in range(12):
    shape = (int(rng.integers(1, 9)), int(rng.integers(1, 9)))
    x = rng.choice(pool if trial % 2 else pool[3:], size=shape).astype(np.float32)
    np.save(f"{tmp}/x.npy", x)
    for fn, ref in ops.items():
        want = ref(x)
        for cmd in ([graft, "eval", f"{tmp}/ar.graph"], [run, f"{tmp}/ar.graft"]):
            subprocess.run(cmd + ["--function", fn, "--input", f"@{tmp}/x.npy",
                                  "--output", f"@{tmp}/y.npy"], check=True)
            got = np.load(f"{tmp}/y.npy")
            if got.dtype != want.dtype or got.shape != want.shape or not np.array_equal(
                    got, want, equal_nan=True):
                sys.exit(f"{cmd[1]} {fn} on {x.tolist()}: got {got.tolist()}, numpy {want.tolist()}")
            cases += 1
print(f"numpy agrees on {cases} cases")
PY
check "$TEST_DIR/argreduce.sh" --check-prefix=NUMPY < "$T/numpy.log"
# NUMPY: numpy agrees on 96 cases

# ONNX ArgMax: the imported op, built for a dynamic batch and run.
"$GRAFT" import "$ONNX_MODELS/argmax_dyn.onnx" > "$T/import.graph"
check "$TEST_DIR/argreduce.sh" --check-prefix=IMPORT < "$T/import.graph"
# IMPORT: %y = argmax %x {axis = 1, keepdims = 1, select_last_index = 1} : tensor<?x1xi64>
"$GRAFT" build "$ONNX_MODELS/argmax_dyn.onnx" -o "$T/am.graft"
"$GRAFT_RUN" "$T/am.graft" --input "3x4xf32=[[1 3 3 0][nan 1 nan 2][-0 0 -1 -2]]" > "$T/run.log"
check "$TEST_DIR/argreduce.sh" --check-prefix=ONNXRUN < "$T/run.log"
# ONNXRUN: 3x1xi64=[2][2][1]

expect_fail "$GRAFT" import "$ONNX_MODELS/argmin_bool.onnx"
check_out BOOL
# BOOL: {{.*}}argmin_bool.onnx: error: node 0 'amin' (ArgMin): element type i1 (BOOL) is not supported: the op needs numbers
expect_fail "$GRAFT" import "$ONNX_MODELS/argmin_scalar.onnx"
check_out RANK0
# RANK0: {{.*}}argmin_scalar.onnx: error: node 0 'amin' (ArgMin): reducing a rank-0 tensor is not supported
