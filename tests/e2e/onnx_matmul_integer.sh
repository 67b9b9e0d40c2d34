# An ONNX MatMulInteger of int8 operands (lib/onnx/OnnxOps.cpp) imports as
# graft's i8 matmul summed in i32, which runs on the packed matmul of i8
# pairs (--explain): int8 activations against constant int8 weights (and a
# batched lhs folded into the rows), two int8 arguments with zero points of
# 0; then scalar zero points (3 and -128) on plain, batched-lhs, batched
# and 1-D operands (the i8 matmul less the row and column sums), and
# against constant weights (their column sums computed when importing). Every
# result equals numpy's exact integer sum of (a - za)(b - zb) and is the
# same bytes at 1 and 3 threads. Per-row and per-column zero points of one
# value each import as scalars; differing ones, a zero point of the wrong
# length, a nonzero one where K is dynamic and INT16 operands are refused
# by name.
"$GRAFT" import "$ONNX_MODELS/matmul_integer.onnx" > "$T/out"
check_out TEXT
# TEXT: %y = matmul %x, %w, %y.acc : tensor<?x70xi32>
# TEXT: %y3.mm2 = matmul %y3.lhs, %w, %y3.acc : tensor<?x70xi32>
# TEXT: %z = matmul %p, %q, %z.acc : tensor<?x?xi32>
"$GRAFT" build "$ONNX_MODELS/matmul_integer.onnx" -o mmi.graft --explain > explain.txt
[[ $(grep -c "matmul: packed matmul.*, i8 operands packed as pairs of i16 along K, summed in i32" \
      explain.txt) -ge 3 ]] || { cat explain.txt >&2; exit 1; }
"$PYTHON" - <<'PY'
import numpy as np
rng = np.random.default_rng(10)
i8 = lambda *s: rng.integers(-128, 128, s, dtype=np.int8)
np.save("x.npy", i8(37, 300))
np.save("x3.npy", i8(2, 19, 300))
np.save("p.npy", i8(45, 1001))
np.save("q.npy", i8(1001, 33))
PY
for threads in 1 3; do
  "$GRAFT_RUN" mmi.graft --threads $threads --input @x.npy --input @x3.npy --input @p.npy \
    --input @q.npy --output @y$threads.npy --output @y3_$threads.npy --output @z$threads.npy
done
for o in y y3_ z; do cmp ${o}1.npy ${o}3.npy; done
"$PYTHON" - <<'PY'
import numpy as np
w = np.array([(i * 37 + 11) % 256 - 128 for i in range(300 * 70)], dtype=np.int64).reshape(300, 70)
x, x3, p, q = (np.load(n).astype(np.int64) for n in ("x.npy", "x3.npy", "p.npy", "q.npy"))
for got, want in ((np.load("y1.npy"), x @ w), (np.load("y3_1.npy"), x3 @ w),
                  (np.load("z1.npy"), p @ q)):
    assert got.dtype == np.int32 and got.shape == want.shape, (got.dtype, got.shape)
    assert np.array_equal(got, want), f"differs at {np.argwhere(got != want)[:3].tolist()}"
PY
"$GRAFT" build "$ONNX_MODELS/matmul_integer_zero_point.onnx" -o zp.graft --explain > explain.txt
[[ $(grep -c "matmul: packed matmul.*, i8 operands packed as pairs of i16 along K, summed in i32" \
      explain.txt) -ge 4 ]] || { cat explain.txt >&2; exit 1; }
"$PYTHON" - <<'PY'
import numpy as np
rng = np.random.default_rng(11)
i8 = lambda *s: rng.integers(-128, 128, s, dtype=np.int8)
for name, shape in (("p", (13, 301)), ("q", (301, 29)), ("p3", (2, 7, 301)), ("q3", (2, 301, 29)),
                    ("v", (301,))):
    np.save(name + ".npy", i8(*shape))
PY
for threads in 1 3; do
  "$GRAFT_RUN" zp.graft --threads $threads --input @p.npy --input @q.npy --input @p3.npy \
    --input @q3.npy --input @v.npy --output @z$threads.npy --output @z3_$threads.npy \
    --output @zb$threads.npy --output @zv$threads.npy
done
for o in z z3_ zb zv; do cmp ${o}1.npy ${o}3.npy; done
"$PYTHON" - <<'PY'
import numpy as np
p, q, p3, q3, v = (np.load(n + ".npy").astype(np.int64) for n in ("p", "q", "p3", "q3", "v"))
za, zb = 3, -128
for out, want in (("z1", (p - za) @ (q - zb)), ("z3_1", (p3 - za) @ q),
                  ("zb1", np.matmul(p3 - za, q3 - zb)), ("zv1", (v - za) @ (q - zb))):
    got = np.load(out + ".npy")
    assert got.dtype == np.int32 and got.shape == want.shape, (out, got.dtype, got.shape)
    assert np.array_equal(got, want), f"{out} differs at {np.argwhere(got != want)[:3].tolist()}"
PY
# Zero points against constant weights: B's terms are one constant computed
# when importing (no reduction of B per call: the matmul is its one reader
# and reads it packed when built), against 2-D, batched and 1-D weights
# and a 1-D A. 1-D operands with B an input: the sums broadcast without
# the product's missing dim.
cz=$ONNX_MODELS/matmul_integer_const_zero_point.onnx
"$GRAFT" import "$cz" > cz.txt
grep -q "^  %z.bterms = constant \[" cz.txt || { cat cz.txt >&2; exit 1; }
[[ $(grep -c "bcols = reduce" cz.txt) -eq 2 ]] || { grep reduce cz.txt >&2; exit 1; }
not grep -q "%z.bcols\|%z3.bcols\|%zv.bcols\|%zw.bcols" cz.txt
grep -q ") -> (tensor<?x29xi32>, tensor<2x?x29xi32>, tensor<?xi32>, tensor<2x29xi32>, tensor<?xi32>, tensor<2x?xi32>)" cz.txt
"$GRAFT" build "$cz" -o cz.graft --explain > explain.txt
[[ $(grep -c "matmul: packed matmul.*, constant rhs packed when built" explain.txt) -ge 2 ]] ||
  { cat explain.txt >&2; exit 1; }
"$PYTHON" - <<'PY'
import numpy as np
rng = np.random.default_rng(13)
i8 = lambda *s: rng.integers(-128, 128, s, dtype=np.int8)
for name, shape in (("cp", (11, 301)), ("cp3", (2, 6, 301)), ("cv", (301,)), ("cr", (301,)),
                    ("cq3", (2, 301, 17))):
    np.save(name + ".npy", i8(*shape))
w = np.array([(i * 53 + 7) % 256 - 128 for i in range(301 * 29)], np.int8).reshape(301, 29)
w3 = np.array([(i * 29 + 5) % 256 - 128 for i in range(2 * 301 * 29)], np.int8).reshape(2, 301, 29)
wv = np.array([(i * 71 + 3) % 256 - 128 for i in range(301)], np.int8)
for name, x in (("w", w), ("w3", w3), ("wv", wv)):  # (gen_models.py's initializers)
    np.save(name + ".npy", x)
PY
ins=(--input @cp.npy --input @cp3.npy --input @cv.npy --input @cr.npy --input @cq3.npy)
outs() { for o in z z3 zv zw zr zq; do echo "--output @$1_$o.npy"; done; }
for threads in 1 3; do
  "$GRAFT_RUN" cz.graft --threads $threads "${ins[@]}" $(outs c$threads)
done
for o in z z3 zv zw zr zq; do cmp c1_$o.npy c3_$o.npy; done
"$PYTHON" - <<'PY'
import numpy as np
p, p3, v, r, q3, w, w3, wv = (np.load(n + ".npy").astype(np.int64)
                              for n in ("cp", "cp3", "cv", "cr", "cq3", "w", "w3", "wv"))
za, zb = 3, -128
for out, want in (("z", (p - za) @ (w - zb)), ("z3", np.matmul(p3 - za, w3)),
                  ("zv", (p - za) @ (wv - zb)), ("zw", np.matmul(v - za, w3 - zb)),
                  ("zr", (p - za) @ (r - zb)), ("zq", np.matmul(v - za, q3 - zb))):
    got = np.load(f"c1_{out}.npy")
    assert got.dtype == np.int32 and got.shape == want.shape, (out, got.dtype, got.shape, want.shape)
    assert np.array_equal(got, want), f"{out} differs at {np.argwhere(got != want)[:3].tolist()}"
PY
"$GRAFT" build "$ONNX_MODELS/matmul_integer_channel_zero_points.onnx" -o zc.graft
"$PYTHON" - <<'PY'
import numpy as np
rng = np.random.default_rng(12)
np.save("cp.npy", rng.integers(-128, 128, (5, 33), dtype=np.int8))
np.save("cq.npy", rng.integers(-128, 128, (33, 4), dtype=np.int8))
PY
"$GRAFT_RUN" zc.graft --input @cp.npy --input @cq.npy --output @zc.npy
"$PYTHON" - <<'PY'
import numpy as np
p, q = (np.load(n).astype(np.int64) for n in ("cp.npy", "cq.npy"))
got, want = np.load("zc.npy"), (p + 7) @ q
assert got.dtype == np.int32 and np.array_equal(got, want), "per-channel zero points"
PY
expect_fail "$GRAFT" import "$ONNX_MODELS/matmul_integer_row_zero_points.onnx"
check_out ZP
# ZP: matmul_integer_row_zero_points.onnx: error: node 0 'mmz' (MatMulInteger): a_zero_point holds 3 and 4: only one zero point per tensor is supported (the same for every row)
expect_fail "$GRAFT" import "$ONNX_MODELS/matmul_integer_bad.onnx"
check_out BAD16
# BAD16: matmul_integer_bad.onnx: error: node 0 'mm16' (MatMulInteger): operands must be INT8 (graft's i8), A is i16
expect_fail "$GRAFT" import "$ONNX_MODELS/matmul_integer_zp_length.onnx"
check_out ZPLEN
# ZPLEN: matmul_integer_zp_length.onnx: error: node 0 'mmz' (MatMulInteger): b_zero_point must be a scalar or hold one value a column of B (4), has 3 in 1 dims
expect_fail "$GRAFT" import "$ONNX_MODELS/matmul_integer_zp_dynamic_k.onnx"
check_out ZPK
# ZPK: matmul_integer_zp_dynamic_k.onnx: error: node 0 'mmz' (MatMulInteger): a nonzero zero point needs K (A's last dim) known when importing
