# An ONNX MatMul of f16 operands (lib/onnx/OnnxOps.cpp, matmul) imports as
# graft's mixed-precision matmul: f32 sums, rounded to f16 once (what ONNX
# Runtime's CPU provider computes), which runs on the packed microkernel
# (--explain), for a 2-D lhs and a batched one folded into the rows. Each
# result is within the f32 sums' error and one f16 rounding of the exact
# product (numpy in f64), and bit-identical at 1 and 3 threads.
"$GRAFT" import "$ONNX_MODELS/matmul_f16.onnx" > "$T/out"
check_out TEXT
# TEXT: %y.mm = matmul %x, %w, %y.acc : tensor<?x?xf32>
# TEXT: %0 = cast %x0 : f16
# TEXT: %y3.mm2 = matmul %y3.lhs, %w, %y3.acc : tensor<?x?xf32>
"$GRAFT" build "$ONNX_MODELS/matmul_f16.onnx" -o mm.graft --explain > explain.txt
grep -q "matmul: packed matmul.*, f16 operands widened to f32 when packed" explain.txt ||
  { cat explain.txt >&2; exit 1; }
"$PYTHON" - <<'PY'
import numpy as np
rng = np.random.default_rng(3)
np.save("x.npy", rng.uniform(-1, 1, (37, 700)).astype(np.float16))
np.save("x3.npy", rng.uniform(-1, 1, (2, 19, 700)).astype(np.float16))
np.save("w.npy", rng.uniform(-1, 1, (700, 150)).astype(np.float16))
PY
for threads in 1 3; do
  "$GRAFT_RUN" mm.graft --threads $threads --input @x.npy --input @x3.npy --input @w.npy \
    --output @y$threads.npy --output @y3_$threads.npy
done
cmp y1.npy y3.npy
cmp y3_1.npy y3_3.npy
"$PYTHON" - <<'PY'
import numpy as np
x, x3, w = (np.load(n).astype(np.float64) for n in ("x.npy", "x3.npy", "w.npy"))
for lhs, got in ((x, np.load("y1.npy")), (x3, np.load("y3_1.npy"))):
    exact = lhs @ w
    assert got.dtype == np.float16 and got.shape == exact.shape, (got.dtype, got.shape)
    # f32 sums of 700 products (error at most 700 * 2^-24 * sum |x||w|),
    # then one f16 rounding (half an ulp: 2^-11 relative, 2^-25 below the
    # normal range).
    f32 = 700 * 2.0**-24 * (np.abs(lhs) @ np.abs(w))
    err = np.abs(got.astype(np.float64) - exact)
    bound = (np.abs(exact) + f32) * 2.0**-11 + f32 + 2.0**-25
    assert (err <= bound).all(), f"error {err.max()}, bound there {bound.flat[err.argmax()]}"
PY
