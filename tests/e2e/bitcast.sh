# bitcast (docs/graph-format.md, scalar ops): graft eval and a bundle against
# numpy's `view` on every width (f16, bf16 as raw 16 bits, f32, f64 and
# back), bit for bit, with NaN, infinities, zeros and subnormals; a NaN
# gives the canonical quiet NaN's bits (numpy would keep its payload).
# tests/diff/graphs/bitcast.graph runs it on every target.
cat > "$T/bc.graph" <<'GRAPH'
func @f32(%x: tensor<?xf32>) -> tensor<?xi32> {
  %r = map %x : tensor<?xi32> {
  ^bb0(%a: f32):
    %0 = bitcast %a : i32
    yield %0
  }
  return %r
}
func @i32(%x: tensor<?xi32>) -> tensor<?xf32> {
  %r = map %x : tensor<?xf32> {
  ^bb0(%a: i32):
    %0 = bitcast %a : f32
    yield %0
  }
  return %r
}
func @f64(%x: tensor<?xf64>) -> tensor<?xi64> {
  %r = map %x : tensor<?xi64> {
  ^bb0(%a: f64):
    %0 = bitcast %a : i64
    yield %0
  }
  return %r
}
func @f16(%x: tensor<?xf16>) -> tensor<?xi16> {
  %r = map %x : tensor<?xi16> {
  ^bb0(%a: f16):
    %0 = bitcast %a : i16
    yield %0
  }
  return %r
}
func @bf16(%x: tensor<?xi16>) -> tensor<?xi16> {
  %r = map %x : tensor<?xi16> {
  ^bb0(%a: i16):
    %0 = bitcast %a : bf16
    %1 = bitcast %0 : i16
    yield %1
  }
  return %r
}
GRAPH
"$GRAFT" build "$T/bc.graph" --target "$HOST_TARGET" -o "$T/bc.graft"
"$PYTHON" - "$GRAFT" "$GRAFT_RUN" "$T" > "$T/numpy.log" <<'PY'
import subprocess, sys
import numpy as np
graft, run, tmp = sys.argv[1:]
rng = np.random.default_rng(10)

def canonical(bits, ftype, nan_bits):
    """numpy's view, with every NaN's bits replaced by the canonical NaN's."""
    return np.where(np.isnan(bits.view(ftype)), np.array(nan_bits).astype(bits.dtype), bits)

def special(ftype):
    fi = np.finfo(ftype)
    return np.array([np.nan, -np.nan, np.inf, -np.inf, 0.0, -0.0, fi.tiny / 4, -fi.tiny,
                     fi.max, -fi.max, 1.0, -2.5], ftype)

def nans(itype, ftype, n):
    """NaNs of both signs with random payloads (quiet and signalling)."""
    bits = np.finfo(ftype).bits
    exp = ((1 << (np.finfo(ftype).nexp)) - 1) << np.finfo(ftype).nmant
    mant = rng.integers(1, 1 << np.finfo(ftype).nmant, n, dtype=np.uint64)
    sign = rng.integers(0, 2, n, dtype=np.uint64) << np.uint64(bits - 1)
    u = {16: np.uint16, 32: np.uint32, 64: np.uint64}[bits]
    return (sign | np.uint64(exp) | mant).astype(u).view(ftype)

cases = []
for name, ftype, itype, nan in (("f32", np.float32, np.int32, 0x7fc00000),
                                ("f64", np.float64, np.int64, 0x7ff8000000000000),
                                ("f16", np.float16, np.int16, 0x7e00)):
    values = rng.standard_normal(500) * 10.0 ** rng.integers(-30, 30, 500)
    with np.errstate(over="ignore"):
        x = np.concatenate([special(ftype), values.astype(ftype), nans(itype, ftype, 40)])
    cases.append((name, x, canonical(x.view(itype), ftype, nan)))
i = rng.integers(-2 ** 31, 2 ** 31, 4000, dtype=np.int64).astype(np.int32)
i[:6] = [0x7f800001, 0x7fc00001, -1, 0x7f800000, 1, -2 ** 31]  # sNaN, qNaN, NaN, inf, subnormals
cases.append(("i32", i, i.view(np.float32)))
h = np.arange(-2 ** 15, 2 ** 15, dtype=np.int32).astype(np.int16)  # every bf16
bf = (h.astype(np.uint16).astype(np.uint32) << 16).view(np.float32)
cases.append(("bf16", h, np.where(np.isnan(bf), np.int16(0x7fc0), h)))

count = 0
for fn, x, want in cases:
    np.save(f"{tmp}/x.npy", x)
    for cmd in ([graft, "eval", f"{tmp}/bc.graph"], [run, f"{tmp}/bc.graft"]):
        subprocess.run(cmd + ["--function", fn, "--input", f"@{tmp}/x.npy",
                              "--output", f"@{tmp}/y.npy"], check=True)
        got = np.load(f"{tmp}/y.npy")
        # Bits, not values: compare the integers (a float result as its bits;
        # an integer read as a float may be any NaN, which stays a NaN).
        if np.issubdtype(want.dtype, np.floating):
            itype = {4: np.int32, 8: np.int64}[want.itemsize]
            nan = np.isnan(want)
            ok = got.dtype == want.dtype and np.array_equal(np.isnan(got), nan) and \
                np.array_equal(got.view(itype)[~nan], want.view(itype)[~nan])
        else:
            ok = got.dtype == want.dtype and np.array_equal(got, want)
        if not ok:
            sys.exit(f"{cmd[1]} {fn}: got {got[:8]!r}..., numpy {want[:8]!r}...")
        count += len(x)
print(f"numpy agrees on {count} values")
PY
check "$TEST_DIR/bitcast.sh" --check-prefix=NUMPY < "$T/numpy.log"
# NUMPY: numpy agrees on {{[0-9]+}} values
