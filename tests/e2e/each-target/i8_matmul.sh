# i8 x i8 matmuls summed in i32 (ONNX MatMulInteger) on $TARGET's packed
# matmul (PackedMatmul::pairs: the operands packed as pairs of i16 along
# K, or, on a level with a dot product of i8 quads (AArch64's dotprod,
# x86's u8 x s8 one of AVX-VNNI and AVX-512 VNNI), as quads of i8; on
# x86-64-v4+amx in AMX tiles): every feature level this machine runs (forced with --isa;
# under qemu for the other targets) at 1 and 3 threads, each result equal
# to numpy's exact integer product (wrapped to i32) and the same bytes at
# both thread counts. The sizes: odd K (the last pair's lhs half zero), K
# of every remainder by 4 (the last quad's rows past K: 1503 and 4103
# leave 3, 1501 1, 1506 2), over
# several K blocks on every level where K is 4103 (a block is 368 to 4096
# rows, the longest on levels without vectors), ragged panels and tiles,
# blocks of 5, 2 and 1 rows (below the register tile of 6 or 12 rows: the
# tails; one row: the sweep, over several groups of panels and of rows),
# enough rows for the
# pack dispatch to pack the rhs once per call (301), a transposed rhs, an
# accumulator operand that wraps past INT32_MAX, a fill, a batch matmul
# and an empty K (the sums are the fill).
cat > i8.graph <<'GRAPH'
func @mm(%a: tensor<?x?xi8>, %b: tensor<?x?xi8>) -> tensor<?x?xi32> {
  %seven = constant 7 : i32
  %m = dim %a {axis = 0} : index
  %n = dim %b {axis = 1} : index
  %e = empty %m, %n : tensor<?x?xi32>
  %f = fill %seven, %e : tensor<?x?xi32>
  %r = matmul %a, %b, %f : tensor<?x?xi32>
  return %r
}
func @mm_t(%a: tensor<?x?xi8>, %bt: tensor<?x?xi8>, %c: tensor<?x?xi32>) -> tensor<?x?xi32> {
  %b = transpose %bt {perm = [1, 0]} : tensor<?x?xi8>
  %r = matmul %a, %b, %c : tensor<?x?xi32>
  return %r
}
func @bmm(%a: tensor<?x?x?xi8>, %b: tensor<?x?x?xi8>) -> tensor<?x?x?xi32> {
  %z = constant 0 : i32
  %o = dim %a {axis = 0} : index
  %m = dim %a {axis = 1} : index
  %n = dim %b {axis = 2} : index
  %e = empty %o, %m, %n : tensor<?x?x?xi32>
  %f = fill %z, %e : tensor<?x?x?xi32>
  %r = batch_matmul %a, %b, %f : tensor<?x?x?xi32>
  return %r
}
GRAPH
"$GRAFT" build i8.graph --target "$TARGET" -o i8.graft
"$GRAFT" build i8.graph --target "$TARGET" --explain > explain.txt
grep -q "i8 operands packed as \(pairs of i16\|quads\) along K, summed in i32" explain.txt || {
  echo "error: the i8 matmuls are not packed matmuls:" >&2
  cat explain.txt >&2
  exit 1
}
# AArch64's dotprod level sums quads with sdot; its baseline pairs.
if [[ $TARGET == aarch64 ]]; then
  sed -n "/^armv8.2-a+dotprod (/,/^[^ ]/p" explain.txt > dotprod.txt
  sed -n "/^armv8-a (/,/^[^ ]/p" explain.txt > baseline.txt
  [[ $(grep -c "i8 operands packed as quads along K, summed in i32 by a dot product" dotprod.txt) -eq 3 ]] &&
    not grep -q quads baseline.txt || { cat explain.txt >&2; exit 1; }
fi
# x86-64-v3+avxvnni and v4+vnni sum quads with vpdpbusd (u8 x s8: the rhs
# offset by 128, the lhs's sums taken off); v3 and v4 pair.
if [[ $TARGET == x86_64 ]]; then
  for level in x86-64-v3 x86-64-v4; do
    sed -n "/^$level+[a-z]*vnni (/,/^[^ ]/p" explain.txt > vnni.txt
    sed -n "/^$level (/,/^[^ ]/p" explain.txt > plain.txt
    [[ $(grep -c "i8 operands packed as quads along K, summed in i32 by a dot product of u8 x s8" vnni.txt) -eq 3 ]] &&
      not grep -q quads plain.txt || { cat explain.txt >&2; exit 1; }
  done
  # x86-64-v4+amx multiplies them in AMX tiles.
  sed -n "/^x86-64-v4+amx (/,/^[^ ]/p" explain.txt > amx.txt
  [[ $(grep -c "i8 operands packed as quads along K (the lhs by rows), summed in i32 in AMX tiles" amx.txt) -eq 3 ]] ||
    { cat explain.txt >&2; exit 1; }
fi
"$PYTHON" - <<'PY'
import numpy as np
rng = np.random.default_rng(81)
def i8(*shape):
    x = rng.integers(-128, 128, shape, dtype=np.int8)
    x.flat[:2] = -128  # the extremes' products: 2^14 each, 2^15 a pair
    return x
def wrap(x):
    return ((x + 2**31) % 2**32 - 2**31).astype(np.int32)
cases = {}
for name, (m, k, n) in {"big": (301, 4103, 71), "tail": (5, 1503, 71), "two": (2, 1503, 150),
                        "row": (1, 4103, 150), "small": (7, 3, 20), "nok": (9, 0, 17),
                        "k1": (13, 1501, 40), "k2": (1, 1506, 75)}.items():
    a, b = i8(m, k), i8(k, n)
    np.save(f"a_{name}.npy", a)
    np.save(f"b_{name}.npy", b)
    np.save(f"bt_{name}.npy", np.ascontiguousarray(b.T))
    c = rng.integers(2**31 - 2**20, 2**31, (m, n)).astype(np.int32)
    np.save(f"c_{name}.npy", c)
    prod = a.astype(np.int64) @ b.astype(np.int64)
    np.save(f"ref_mm_{name}.npy", wrap(prod + 7))
    np.save(f"ref_mm_t_{name}.npy", wrap(prod + c))
a, b = i8(3, 29, 301), i8(3, 301, 45)
np.save("a_batch.npy", a)
np.save("b_batch.npy", b)
np.save("ref_bmm.npy", wrap(np.matmul(a.astype(np.int64), b.astype(np.int64))))
PY
levels_here "$TARGET"
for lm in "${LEVELS_HERE[@]}"; do
  level=${lm%%=*} model=${lm#*=}
  echo "$TARGET $level: ${model:-native}"
  for threads in 1 3; do
    for s in big tail two row small nok k1 k2; do
      run_cpu "$TARGET" "$model" i8.graft --function mm --isa="$level" --threads $threads \
        --input @a_$s.npy --input @b_$s.npy --output @mm_${s}_$threads.npy
      run_cpu "$TARGET" "$model" i8.graft --function mm_t --isa="$level" --threads $threads \
        --input @a_$s.npy --input @bt_$s.npy --input @c_$s.npy --output @mm_t_${s}_$threads.npy
    done
    run_cpu "$TARGET" "$model" i8.graft --function bmm --isa="$level" --threads $threads \
      --input @a_batch.npy --input @b_batch.npy --output @bmm_$threads.npy
  done
  "$PYTHON" - "$TARGET $level" <<'PY'
import sys
import numpy as np
where = sys.argv[1]
pairs = [(f"{f}_{s}", f"ref_{f}_{s}") for f in ("mm", "mm_t")
         for s in ("big", "tail", "two", "row", "small", "nok", "k1", "k2")] + [("bmm", "ref_bmm")]
for got, ref in pairs:
    want = np.load(ref + ".npy")
    one, three = np.load(got + "_1.npy"), np.load(got + "_3.npy")
    assert one.dtype == np.int32 and one.shape == want.shape, (where, got, one.dtype, one.shape)
    assert np.array_equal(one, want), \
        f"{where}: {got} differs from numpy at {np.argwhere(one != want)[:3].tolist()}"
    assert one.tobytes() == three.tobytes(), f"{where}: {got} differs at 1 and 3 threads"
PY
done
