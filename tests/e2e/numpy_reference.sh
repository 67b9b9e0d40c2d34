# The evaluator and a bundle against numpy for the issue 10 ops no other
# numpy test covers: reduce (sum, prod, max, min, mean over several dims,
# keepdims), mixed-precision matmul (i8 x i8 -> i32, f16 and bf16 -> f32)
# and numpy-style broadcasting of map operands, which runs as one dispatch
# reading the smaller operands through index maps (no materialised copy).
# tests/diff/graphs/{reduce_forms,mm_mixed,map_broadcast}.graph run them on
# every target against the evaluator.
cat > "$T/np.graph" <<'GRAPH'
func @sum02(%x: tensor<?x?x?xf32>) -> tensor<1x?x1xf32> {
  %r = reduce %x {dims = [0, 2], kind = sum, keepdims = 1} : tensor<1x?x1xf32>
  return %r
}
func @prod1(%x: tensor<?x?x?xi32>) -> tensor<?x?xi32> {
  %r = reduce %x {dims = [1], kind = prod} : tensor<?x?xi32>
  return %r
}
func @max12(%x: tensor<?x?x?xf32>) -> tensor<?x1x1xf32> {
  %r = reduce %x {dims = [1, 2], kind = max, keepdims = 1} : tensor<?x1x1xf32>
  return %r
}
func @min0(%x: tensor<?x?x?xi8>) -> tensor<?x?xi8> {
  %r = reduce %x {dims = [0], kind = min} : tensor<?x?xi8>
  return %r
}
func @mean01(%x: tensor<?x?x?xf64>) -> tensor<1x1x?xf64> {
  %r = reduce %x {dims = [0, 1], kind = mean, keepdims = 1} : tensor<1x1x?xf64>
  return %r
}
func @mm_i8(%a: tensor<?x?xi8>, %b: tensor<?x?xi8>, %c: tensor<?x?xi32>) -> tensor<?x?xi32> {
  %r = matmul %a, %b, %c : tensor<?x?xi32>
  return %r
}
func @mm_f16(%a: tensor<?x?xf16>, %b: tensor<?x?xf16>, %c: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %r = matmul %a, %b, %c : tensor<?x?xf32>
  return %r
}
func @mm_bf16(%a: tensor<5x7xbf16>, %b: tensor<7x3xbf16>, %c: tensor<5x3xf32>) -> tensor<5x3xf32> {
  %r = matmul %a, %b, %c : tensor<5x3xf32>
  return %r
}
func @bias(%x: tensor<?x?xf32>, %b: tensor<?xf32>) -> tensor<?x?xf32> {
  %r = map %x, %b : tensor<?x?xf32> {
  ^bb0(%p: f32, %q: f32):
    %0 = add %p, %q : f32
    yield %0
  }
  return %r
}
func @outer(%c: tensor<?x1xf32>, %b: tensor<?xf32>) -> tensor<?x?xf32> {
  %r = map %c, %b : tensor<?x?xf32> {
  ^bb0(%p: f32, %q: f32):
    %0 = mul %p, %q : f32
    yield %0
  }
  return %r
}
func @three(%y: tensor<?x?x?xf32>, %r: tensor<1x?x1xf32>, %s: tensor<f32>) -> tensor<?x?x?xf32> {
  %o = map %y, %r, %s : tensor<?x?x?xf32> {
  ^bb0(%p: f32, %q: f32, %t: f32):
    %0 = sub %p, %q : f32
    %1 = mul %0, %t : f32
    yield %1
  }
  return %o
}
GRAPH
"$GRAFT" build "$T/np.graph" --target "$HOST_TARGET" -o "$T/np.graft"
"$PYTHON" - "$GRAFT" "$GRAFT_RUN" "$T" > "$T/numpy.log" <<'PY'
import subprocess, sys
import numpy as np
graft, run, tmp = sys.argv[1:]
rng = np.random.default_rng(1010)
f32 = np.float32

def bf16_round(x):
    """f32 -> the nearest bf16 (ties to even), as f32."""
    u = x.astype(f32).view(np.uint32).astype(np.uint64)
    u = (u + 0x7fff + ((u >> 16) & 1)) >> 16 << 16
    return u.astype(np.uint32).view(f32)

def arg(name, x):
    """--input for |x|: .npy, or raw bytes for bf16 (numpy has no bf16)."""
    if isinstance(x, tuple):  # ("bf16", f32 values that are bf16 values)
        bits = (x[1].view(np.uint32) >> 16).astype(np.uint16)
        bits.tofile(f"{tmp}/{name}.bin")
        return "x".join(map(str, x[1].shape)) + f"xbf16=@{tmp}/{name}.bin"
    np.save(f"{tmp}/{name}.npy", x)
    return f"@{tmp}/{name}.npy"

def check(fn, inputs, want, exact=True, tol=0.0, trace=None):
    args = [a for i, x in enumerate(inputs) for a in ("--input", arg(f"in{i}", x))]
    for cmd in ([graft, "eval", f"{tmp}/np.graph"], [run, f"{tmp}/np.graft"]):
        p = subprocess.run(cmd + ["--function", fn] + args + ["--output", f"@{tmp}/y.npy"] +
                           (["--trace"] if cmd[0] == run and trace else []),
                           check=True, capture_output=True, text=True)
        got = np.load(f"{tmp}/y.npy")
        ok = got.dtype == want.dtype and got.shape == want.shape
        if ok and exact:
            ok = np.array_equal(got, want, equal_nan=True)
        elif ok:
            ok = np.allclose(got, want, rtol=tol, atol=tol, equal_nan=True)
        if not ok:
            sys.exit(f"{cmd[1]} {fn}: got {got.dtype} {got.shape} {got.ravel()[:6]}, "
                     f"numpy {want.dtype} {want.shape} {want.ravel()[:6]}")
        if cmd[0] == run and trace:
            dispatches = [l for l in p.stderr.splitlines() if l.startswith(f"[trace] {fn}:")]
            if len(dispatches) != trace:
                sys.exit(f"{fn}: {len(dispatches)} dispatches, expected {trace}:\n{p.stderr}")
    return 1

n = 0
for trial in range(6):
    a, b, c = (int(v) for v in rng.integers(1, 9, 3))
    x = rng.uniform(-4, 4, (a, b, c)).astype(f32)
    x.ravel()[rng.integers(0, x.size)] = np.nan if trial == 3 else x.ravel()[0]
    n += check("sum02", [x], x.astype(np.float64).sum((0, 2), keepdims=True).astype(f32),
               exact=False, tol=1e-5 * a * c)
    n += check("max12", [x], np.max(x, (1, 2), keepdims=True))
    i = rng.integers(-2 ** 31, 2 ** 31, (a, b, c), dtype=np.int64).astype(np.int32)
    n += check("prod1", [i], np.prod(i, 1, dtype=np.int32))  # wraps in 32 bits, as numpy's
    s = rng.integers(-128, 128, (a, b, c), dtype=np.int64).astype(np.int8)
    n += check("min0", [s], np.min(s, 0))
    d = rng.uniform(-4, 4, (a, b, c))
    n += check("mean01", [d], d.mean((0, 1), keepdims=True), exact=False, tol=1e-13)

    m, k, nn = (int(v) for v in rng.integers(1, 40, 3))
    ai = rng.integers(-128, 128, (m, k), dtype=np.int64).astype(np.int8)
    bi = rng.integers(-128, 128, (k, nn), dtype=np.int64).astype(np.int8)
    ci = rng.integers(-1000, 1000, (m, nn), dtype=np.int64).astype(np.int32)
    n += check("mm_i8", [ai, bi, ci], ai.astype(np.int32) @ bi.astype(np.int32) + ci)
    ah = rng.uniform(-8, 8, (m, k)).astype(np.float16)
    bh = rng.uniform(-8, 8, (k, nn)).astype(np.float16)
    cf = rng.uniform(-8, 8, (m, nn)).astype(f32)
    want = (ah.astype(np.float64) @ bh.astype(np.float64) + cf).astype(f32)
    n += check("mm_f16", [ah, bh, cf], want, exact=False, tol=1e-6 * 64 * k)
    ab = bf16_round(rng.uniform(-300, 300, (5, 7)).astype(f32))
    bb = bf16_round(rng.uniform(-3, 3, (7, 3)).astype(f32))
    cb = rng.uniform(-8, 8, (5, 3)).astype(f32)
    want = (ab.astype(np.float64) @ bb.astype(np.float64) + cb).astype(f32)
    n += check("mm_bf16", [("bf16", ab), ("bf16", bb), cb], want, exact=False, tol=1e-6 * 300 * 7)

    r, cc = (int(v) for v in rng.integers(1, 20, 2))
    x2 = rng.standard_normal((r, cc)).astype(f32)
    row = rng.standard_normal(cc).astype(f32)
    col = rng.standard_normal((r, 1)).astype(f32)
    n += check("bias", [x2, row], x2 + row, trace=1)
    n += check("outer", [col, row], col * row, trace=1)
    y = rng.standard_normal((a, b, c)).astype(f32)
    mid = rng.standard_normal((1, b, 1)).astype(f32)
    sc = np.array(rng.standard_normal(), f32)
    n += check("three", [y, mid, sc], (y - mid) * sc, trace=1)
print(f"numpy agrees on {n} cases")
PY
check "$TEST_DIR/numpy_reference.sh" --check-prefix=NUMPY < "$T/numpy.log"
# NUMPY: numpy agrees on 66 cases
