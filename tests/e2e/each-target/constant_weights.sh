# Constant matmul operands packed when building (lib/dispatch/PackConstants.cpp)
# on $TARGET (CTest runs this once per registered target, under qemu for
# the others): a matmul whose rhs is a tensor literal (plain, transposed
# with a fused epilogue, batched, read by two matmuls) or whose lhs is one
# (as written, through a reshape, or broadcast over a batch matmul's
# batches and read as one matrix for every batch) gives, on every feature level this machine runs (forced with --isa), the
# bytes of the same graph with those weights as arguments (packed per
# call), at 1 and 3 threads, and matches the reference evaluator. The
# sizes end in ragged panels (150 columns, 130 rows) and span several K
# blocks (600) on every level; 43 rows are one row of workgroups, 230
# several (the per-call path packs the rhs in the workgroups, or once per
# call before the matmul). --explain says which operand each level packed
# when built; the slice does not carry the unpacked copy of a constant
# only the matmul reads, and keeps it for one that is also returned. On
# the host, repeated calls and two threads calling one module give the
# first call's bytes, and two builds give the same bundle. An ONNX dense
# layer over a batched lhs folds the batch into the matmul's rows and reads
# its weights packed.
"$PYTHON" - <<'PY'
import numpy as np
rng = np.random.default_rng(5)
def lit(x):
    if x.ndim == 1:
        return "[" + ", ".join(np.format_float_positional(v, unique=True) for v in x) + "]"
    return "[" + ", ".join(lit(r) for r in x) + "]"
def f32(*shape):
    return rng.uniform(-1, 1, shape).astype(np.float32)
w, wt, v, wb = f32(600, 150), f32(150, 600), f32(130, 600), f32(2, 300, 50)
for name, x in [("w", w), ("wt", wt), ("v", v), ("wb", wb)]:
    np.save(name + ".npy", x)
np.save("a43.npy", f32(43, 600)); np.save("a230.npy", f32(230, 600))
np.save("b.npy", f32(600, 70)); np.save("ba.npy", f32(2, 90, 300))
# Each function twice: the weights as constants (@f), then as arguments
# (@f_arg, the same body).
funcs = {
  "fc": ("%a: tensor<?x600xf32>", "tensor<?x150xf32>", [("w", "tensor<600x150xf32>")], """
  %z = constant 0.0 : f32
  %m = dim %a {axis = 0} : index
  %e = empty %m : tensor<?x150xf32>
  %f = fill %z, %e : tensor<?x150xf32>
  %r = matmul %a, %w, %f : tensor<?x150xf32>
  return %r"""),
  "mlp": ("%a: tensor<?x600xf32>", "tensor<?x150xf32>", [("wt", "tensor<150x600xf32>")], """
  %c = constant 0.5 : f32
  %z = constant 0.0 : f32
  %t = transpose %wt {perm = [1, 0]} : tensor<600x150xf32>
  %m = dim %a {axis = 0} : index
  %e = empty %m : tensor<?x150xf32>
  %f = fill %c, %e : tensor<?x150xf32>
  %r = matmul %a, %t, %f : tensor<?x150xf32>
  %y = map %r : tensor<?x150xf32> {
  ^bb0(%x: f32):
    %0 = max %x, %z : f32
    yield %0
  }
  return %y"""),
  "lhs": ("%b: tensor<600x?xf32>", "tensor<130x?xf32>", [("v", "tensor<130x600xf32>")], """
  %z = constant 0.0 : f32
  %n = dim %b {axis = 1} : index
  %e = empty %n : tensor<130x?xf32>
  %f = fill %z, %e : tensor<130x?xf32>
  %r = matmul %v, %b, %f : tensor<130x?xf32>
  return %r"""),
  # The lhs a reshape of the constant (an alias of it: the slice then
  # carries neither, and the alias nothing).
  "rlhs": ("%b: tensor<600x?xf32>", "tensor<130x?xf32>", [("vr", "tensor<2x65x600xf32>")], """
  %z = constant 0.0 : f32
  %l = reshape %vr : tensor<130x600xf32>
  %n = dim %b {axis = 1} : index
  %e = empty %n : tensor<130x?xf32>
  %f = fill %z, %e : tensor<130x?xf32>
  %r = matmul %l, %b, %f : tensor<130x?xf32>
  return %r"""),
  # One lhs for every batch (a conv's weights over the images): the
  # broadcast is read by the packed matmul, never written out.
  "shlhs": ("%b: tensor<?x600x?xf32>", "tensor<?x130x?xf32>", [("v", "tensor<130x600xf32>")], """
  %z = constant 0.0 : f32
  %nb = dim %b {axis = 0} : index
  %n = dim %b {axis = 2} : index
  %vb = broadcast %v, %nb {dims = [1, 2]} : tensor<?x130x600xf32>
  %e = empty %nb, %n : tensor<?x130x?xf32>
  %f = fill %z, %e : tensor<?x130x?xf32>
  %r = batch_matmul %vb, %b, %f : tensor<?x130x?xf32>
  return %r"""),
  "bmm": ("%a: tensor<2x?x300xf32>", "tensor<2x?x50xf32>", [("wb", "tensor<2x300x50xf32>")], """
  %z = constant 0.0 : f32
  %m = dim %a {axis = 1} : index
  %e = empty %m : tensor<2x?x50xf32>
  %f = fill %z, %e : tensor<2x?x50xf32>
  %r = batch_matmul %a, %wb, %f : tensor<2x?x50xf32>
  return %r"""),
  "tied": ("%a: tensor<?x600xf32>", "tensor<?x150xf32>", [("w", "tensor<600x150xf32>")], """
  %z = constant 0.0 : f32
  %one = constant 1.0 : f32
  %m = dim %a {axis = 0} : index
  %e = empty %m : tensor<?x150xf32>
  %f = fill %z, %e : tensor<?x150xf32>
  %g = fill %one, %e : tensor<?x150xf32>
  %r = matmul %a, %w, %f : tensor<?x150xf32>
  %s = matmul %a, %w, %g : tensor<?x150xf32>
  %y = map %r, %s : tensor<?x150xf32> {
  ^bb0(%x: f32, %q: f32):
    %0 = mul %x, %q : f32
    yield %0
  }
  return %y"""),
}
consts = {"w": w, "wt": wt, "v": v, "wb": wb, "vr": v.reshape(2, 65, 600)}
np.save("vr.npy", consts["vr"]); np.save("bb.npy", f32(3, 600, 70))
with open("cw.graph", "w") as out:
    for name, (args, result, weights, body) in funcs.items():
        decls = "".join(f"\n  %{n} = constant {lit(consts[n])} : {t}" for n, t in weights)
        out.write(f"func @{name}({args}) -> {result} {{{decls}{body}\n}}\n")
        wargs = "".join(f", %{n}: {t}" for n, t in weights)
        out.write(f"func @{name}_arg({args}{wargs}) -> {result} {{{body}\n}}\n")
# The constant is also returned: its unpacked copy stays.
with open("shared.graph", "w") as out:
    out.write(f"""func @shared(%a: tensor<?x600xf32>) -> (tensor<?x150xf32>, tensor<600x150xf32>) {{
  %w = constant {lit(w)} : tensor<600x150xf32>{funcs["fc"][3].replace("return %r", "return %r, %w")}
}}
""")
PY
"$GRAFT" build cw.graph --target "$TARGET" -o cw.graft --explain > explain.txt
# Every level packs the rhs of fc, mlp, bmm and tied (both matmuls) and the
# lhs of lhs when building; the _arg functions pack per call.
for level in ${TARGET_LEVELS[$TARGET]}; do
  sed -n "/^$level (/,/^[^ ]/p" explain.txt > level.txt
  for f in fc mlp bmm tied; do
    grep -q "^  ${f}_dispatch_[0-9]*_[a-z_]*matmul: packed matmul, .*, constant rhs packed when built\(, \(epilogue\|outputs\) .*\)\?$" level.txt ||
      { echo "$level: $f"; cat explain.txt; exit 1; } >&2
  done
  [[ $(grep -c "^  tied_dispatch_[0-9]*_matmul: .*constant rhs packed when built" level.txt) -eq 2 ]] ||
    { cat explain.txt >&2; exit 1; }
  for f in lhs rlhs shlhs; do
    grep -q "^  ${f}_dispatch_[0-9]*_[a-z_]*matmul: packed matmul, .*, constant lhs packed when built\(, \(epilogue\|outputs\) .*\)\?$" level.txt ||
      { echo "$level: $f"; cat explain.txt; exit 1; } >&2
  done
  not grep "^  shlhs_dispatch_[0-9]*_broadcast" level.txt
  not grep "_arg_dispatch_.*packed when built" level.txt
  # A constant operand keeps the K block it was packed with (kc): the
  # pack dispatch of the other operand and the matmul say that one, not
  # the longer one of an rhs packed before the call.
  for f in lhs rlhs fc; do
    kcs=$(grep -o "^  ${f}_dispatch_[0-9]*_matmul\(_pack\)\?: .*kc [0-9][0-9]*" level.txt | grep -o "[0-9]*$" | sort -u)
    [[ $(wc -w <<< "$kcs") -eq 1 ]] || { echo "$level: $f's K blocks: $kcs"; cat level.txt; exit 1; } >&2
  done
  not grep "^  \(lhs\|rlhs\|fc\|mlp\|bmm\)_dispatch_.*where its rhs is packed before" level.txt
done

cases=("fc a43.npy" "fc a230.npy" "mlp a43.npy" "mlp a230.npy" "lhs b.npy" "rlhs b.npy"
       "shlhs bb.npy" "bmm ba.npy" "tied a230.npy")
declare -A weights=([fc]="w.npy" [mlp]="wt.npy" [lhs]="v.npy" [rlhs]="vr.npy" [shlhs]="v.npy"
                    [bmm]="wb.npy" [tied]="w.npy")
# Function FN of BUNDLE on input IN with its constant weights at 1 and 3
# threads (const1.npy, const3.npy) and its twin FN_arg given WEIGHTS
# (arg.npy), at $level on $model: all three the same bytes.
run_twins() {
  local bundle=$1 fn=$2 in=$3 weights=$4 threads
  for threads in 1 3; do
    run_cpu "$TARGET" "$model" "$bundle" --isa="$level" --threads $threads --function "$fn" \
      --input "@$in" --output @const$threads.npy
  done
  run_cpu "$TARGET" "$model" "$bundle" --isa="$level" --function "${fn}_arg" \
    --input "@$in" --input "@$weights" --output @arg.npy
  cmp const1.npy const3.npy || { echo "error: $level $fn $in: 1 and 3 threads differ" >&2; exit 1; }
  cmp const1.npy arg.npy ||
    { echo "error: $level $fn $in: differs from the weights as arguments" >&2; exit 1; }
}
levels_here "$TARGET"
for lm in "${LEVELS_HERE[@]}"; do
  level=${lm%%=*} model=${lm#*=}
  echo "$level: ${model:-native}"
  for c in "${cases[@]}"; do
    read -r fn in <<< "$c"
    run_twins cw.graft "$fn" "$in" "${weights[$fn]}"
    "$GRAFT" eval cw.graph --function "$fn" --input "@$in" --output @ref.npy
    "$PYTHON" - "$level $c" <<'PY'
import sys
import numpy as np
got, ref = np.load("const1.npy"), np.load("ref.npy")
assert got.shape == ref.shape, (got.shape, ref.shape)
err = np.abs(got.astype(np.float64) - ref)
assert (err <= 1e-4 + 1e-4 * np.abs(ref)).all(), f"{sys.argv[1]}: max error {err.max()}"
assert (got != 0).any(), sys.argv[1]
PY
  done
done

# i8 x i8 -> i32 matmuls (PackedMatmul::pairs): a constant i8 operand is
# packed when built into pairs of i16 along K, as the per-call packing
# writes them. The rhs over 4103 rows (odd, several K blocks on every
# level) and 21 columns (ragged panels) against 1, 2, 5, 7 (fewer rows
# than a tile: the per-call path reads that rhs in place) and 301 rows; a
# transposed rhs of 777 rows with a fused map; a constant lhs; a batch.
# Constant i8 lhs of 1 and 3 rows (the sweep and the tails over packed
# pairs) and one broadcast over a batch matmul's batches. And f16 and bf16
# constants (mixed precision), widened to f32 panels when built: an f16
# rhs against 1, 6 and 230 rows, a transposed one, an f16 lhs of 3 rows, a
# bf16 lhs and a batched bf16 rhs (their twins cast f32 weights to bf16 in
# the graph: numpy has no bf16), and f16 weights of zeros of both signs,
# subnormals, the largest f16, infinities and NaN. Each gives the bytes of
# its twin with the weights as arguments at 1 and 3 threads, and the
# reference evaluator's sums (exact: multiples of 1/32 in [-1, 1]).
"$PYTHON" - <<'PY'
import numpy as np
rng = np.random.default_rng(8)
def i8(*shape):
    x = rng.integers(-128, 128, shape, dtype=np.int8)
    x.flat[:2] = -128
    return x
def lit(x):
    if x.ndim == 1:
        return "[" + ", ".join(str(int(v)) for v in x) + "]"
    return "[" + ", ".join(lit(r) for r in x) + "]"
consts = {"w8": i8(4103, 21), "wt8": i8(19, 777), "v8": i8(13, 777), "wb8": i8(2, 301, 45)}
for name, x in consts.items():
    np.save(name + ".npy", x)
for m in (1, 2, 5, 7, 301):
    np.save(f"a8_{m}.npy", i8(m, 4103))
for m in (1, 6, 40):
    np.save(f"at8_{m}.npy", i8(m, 777))
np.save("b8.npy", i8(777, 70)); np.save("ba8.npy", i8(2, 9, 301))
def k32(*shape):
    return rng.integers(-32, 33, shape) / 32
consts["wh"], consts["vb"] = k32(777, 37).astype(np.float16), k32(13, 777)
np.save("wh.npy", consts["wh"]); np.save("vb.npy", consts["vb"].astype(np.float32))
for m in (1, 6, 230):
    np.save(f"ah_{m}.npy", k32(m, 777).astype(np.float16))
np.save("bb8.npy", k32(777, 45).astype(np.float32))
consts["v1"], consts["v3"], consts["vs"] = i8(1, 777), i8(3, 777), i8(13, 777)
consts["wth"], consts["vh"] = k32(37, 777).astype(np.float16), k32(3, 777).astype(np.float16)
consts["wbb"] = k32(2, 301, 45)
special = [0.0, -0.0, 2.0**-24, -3 * 2.0**-20, 2.0**-14, 65504.0, np.inf, -np.inf, np.nan, 1.5, -1.0]
consts["whs"] = np.array(special)[rng.choice(len(special), (40, 37))].astype(np.float16)
for name in ("v1", "v3", "vs", "wth", "vh", "whs"):
    np.save(name + ".npy", consts[name])
np.save("wbb.npy", consts["wbb"].astype(np.float32))
np.save("bs8.npy", i8(3, 777, 40)); np.save("bh.npy", k32(777, 50).astype(np.float16))
np.save("abf.npy", k32(2, 7, 301).astype(np.float32))
np.save("ahs.npy", rng.choice([1.0, -1.0, 0.5, 2.0**-24, 0.0], (6, 40)).astype(np.float16))
def flit(x):
    if x.ndim == 1:
        return "[" + ", ".join("nan" if np.isnan(v) else "inf" if v == np.inf else
                               "-inf" if v == -np.inf else repr(float(v)) for v in x) + "]"
    return "[" + ", ".join(flit(r) for r in x) + "]"
def mm8(lhs, m):
    return f"""
  %z = constant 0 : i32
  %n = dim %b {{axis = 1}} : index
  %e = empty %n : tensor<{m}x?xi32>
  %f = fill %z, %e : tensor<{m}x?xi32>
  %r = matmul %{lhs}, %b, %f : tensor<{m}x?xi32>
  return %r"""
funcs = {
  "fc8": ("%a: tensor<?x4103xi8>", "tensor<?x21xi32>", [("w8", "tensor<4103x21xi8>")], """
  %s = constant 7 : i32
  %m = dim %a {axis = 0} : index
  %e = empty %m : tensor<?x21xi32>
  %f = fill %s, %e : tensor<?x21xi32>
  %r = matmul %a, %w8, %f : tensor<?x21xi32>
  return %r"""),
  "t8": ("%a: tensor<?x777xi8>", "tensor<?x19xi32>", [("wt8", "tensor<19x777xi8>")], """
  %z = constant 0 : i32
  %t = transpose %wt8 {perm = [1, 0]} : tensor<777x19xi8>
  %m = dim %a {axis = 0} : index
  %e = empty %m : tensor<?x19xi32>
  %f = fill %z, %e : tensor<?x19xi32>
  %r = matmul %a, %t, %f : tensor<?x19xi32>
  %y = map %r : tensor<?x19xi32> {
  ^bb0(%x: i32):
    %0 = max %x, %z : i32
    yield %0
  }
  return %y"""),
  "lhs8": ("%b: tensor<777x?xi8>", "tensor<13x?xi32>", [("v8", "tensor<13x777xi8>")], """
  %z = constant 0 : i32
  %n = dim %b {axis = 1} : index
  %e = empty %n : tensor<13x?xi32>
  %f = fill %z, %e : tensor<13x?xi32>
  %r = matmul %v8, %b, %f : tensor<13x?xi32>
  return %r"""),
  "bmm8": ("%a: tensor<2x?x301xi8>", "tensor<2x?x45xi32>", [("wb8", "tensor<2x301x45xi8>")], """
  %z = constant 0 : i32
  %m = dim %a {axis = 1} : index
  %e = empty %m : tensor<2x?x45xi32>
  %f = fill %z, %e : tensor<2x?x45xi32>
  %r = batch_matmul %a, %wb8, %f : tensor<2x?x45xi32>
  return %r"""),
  "fh": ("%a: tensor<?x777xf16>", "tensor<?x37xf32>", [("wh", "tensor<777x37xf16>")], """
  %q = constant 0.25 : f32
  %m = dim %a {axis = 0} : index
  %e = empty %m : tensor<?x37xf32>
  %f = fill %q, %e : tensor<?x37xf32>
  %r = matmul %a, %wh, %f : tensor<?x37xf32>
  return %r"""),
  "one8": ("%b: tensor<777x?xi8>", "tensor<1x?xi32>", [("v1", "tensor<1x777xi8>")], mm8("v1", 1)),
  "three8": ("%b: tensor<777x?xi8>", "tensor<3x?xi32>", [("v3", "tensor<3x777xi8>")],
             mm8("v3", 3)),
  "sh8": ("%b: tensor<?x777x?xi8>", "tensor<?x13x?xi32>", [("vs", "tensor<13x777xi8>")], """
  %z = constant 0 : i32
  %nb = dim %b {axis = 0} : index
  %n = dim %b {axis = 2} : index
  %vb = broadcast %vs, %nb {dims = [1, 2]} : tensor<?x13x777xi8>
  %e = empty %nb, %n : tensor<?x13x?xi32>
  %f = fill %z, %e : tensor<?x13x?xi32>
  %r = batch_matmul %vb, %b, %f : tensor<?x13x?xi32>
  return %r"""),
  "th": ("%a: tensor<?x777xf16>", "tensor<?x37xf32>", [("wth", "tensor<37x777xf16>")], """
  %z = constant 0.0 : f32
  %t = transpose %wth {perm = [1, 0]} : tensor<777x37xf16>
  %m = dim %a {axis = 0} : index
  %e = empty %m : tensor<?x37xf32>
  %f = fill %z, %e : tensor<?x37xf32>
  %r = matmul %a, %t, %f : tensor<?x37xf32>
  return %r"""),
  "lh": ("%b: tensor<777x?xf16>", "tensor<3x?xf32>", [("vh", "tensor<3x777xf16>")], """
  %z = constant 0.0 : f32
  %n = dim %b {axis = 1} : index
  %e = empty %n : tensor<3x?xf32>
  %f = fill %z, %e : tensor<3x?xf32>
  %r = matmul %vh, %b, %f : tensor<3x?xf32>
  return %r"""),
  "fhs": ("%a: tensor<?x40xf16>", "tensor<?x37xf32>", [("whs", "tensor<40x37xf16>")], """
  %q = constant 0.0 : f32
  %m = dim %a {axis = 0} : index
  %e = empty %m : tensor<?x37xf32>
  %f = fill %q, %e : tensor<?x37xf32>
  %r = matmul %a, %whs, %f : tensor<?x37xf32>
  return %r"""),
}
# The bf16 lhs: a constant, or f32 weights cast in the graph (the twin).
bf16_mm = """
  %z = constant 0.0 : f32
  %b = map %fb : tensor<777x?xbf16> {
  ^bb0(%p: f32):
    %0 = cast %p : bf16
    yield %0
  }
  %n = dim %fb {axis = 1} : index
  %e = empty %n : tensor<13x?xf32>
  %f = fill %z, %e : tensor<13x?xf32>
  %r = matmul %vb, %b, %f : tensor<13x?xf32>
  return %r"""
bbf_mm = """
  %z = constant 0.0 : f32
  %m = dim %a {axis = 1} : index
  %e = empty %m : tensor<2x?x45xf32>
  %f = fill %z, %e : tensor<2x?x45xf32>
  %ab = map %a : tensor<2x?x301xbf16> {
  ^bb0(%p: f32):
    %0 = cast %p : bf16
    yield %0
  }
  %r = batch_matmul %ab, %wb, %f : tensor<2x?x45xf32>
  return %r"""
extra = f"""func @bbf(%a: tensor<2x?x301xf32>) -> tensor<2x?x45xf32> {{
  %wb = constant {flit(consts["wbb"])} : tensor<2x301x45xbf16>{bbf_mm}
}}
func @bbf_arg(%a: tensor<2x?x301xf32>, %wf: tensor<2x301x45xf32>) -> tensor<2x?x45xf32> {{
  %wb = map %wf : tensor<2x301x45xbf16> {{
  ^bb0(%p: f32):
    %0 = cast %p : bf16
    yield %0
  }}{bbf_mm}
}}
func @bh(%fb: tensor<777x?xf32>) -> tensor<13x?xf32> {{
  %vb = constant {flit(consts["vb"])} : tensor<13x777xbf16>{bf16_mm}
}}
func @bh_arg(%fb: tensor<777x?xf32>, %vf: tensor<13x777xf32>) -> tensor<13x?xf32> {{
  %vb = map %vf : tensor<13x777xbf16> {{
  ^bb0(%p: f32):
    %0 = cast %p : bf16
    yield %0
  }}{bf16_mm}
}}
"""
with open("cw8.graph", "w") as out:
    for name, (args, result, weights, body) in funcs.items():
        decls = "".join(f"\n  %{n} = constant {(lit if consts[n].dtype == np.int8 else flit)(consts[n])} : {t}"
                        for n, t in weights)
        out.write(f"func @{name}({args}) -> {result} {{{decls}{body}\n}}\n")
        wargs = "".join(f", %{n}: {t}" for n, t in weights)
        out.write(f"func @{name}_arg({args}{wargs}) -> {result} {{{body}\n}}\n")
    out.write(extra)
PY
"$GRAFT" build cw8.graph --target "$TARGET" -o cw8.graft --explain > explain8.txt
for level in ${TARGET_LEVELS[$TARGET]}; do
  sed -n "/^$level (/,/^[^ ]/p" explain8.txt > level.txt
  for f in fc8 t8 bmm8 fh th fhs bbf; do
    grep -q "^  ${f}_dispatch_[0-9]*_[a-z_]*matmul: packed matmul, .*, constant rhs packed when built\(, \(epilogue\|outputs\) .*\)\?$" level.txt ||
      { echo "$level: $f"; cat explain8.txt; exit 1; } >&2
  done
  [[ $(grep -c "^  [a-z0-9]*8_dispatch_.*i8 operands packed as \(pairs\|quads\).*packed when built\(, outputs .*\)\?$" level.txt) -eq 7 ]] ||
    { echo "$level: i8"; cat explain8.txt; exit 1; } >&2
  for f in lhs8 one8 three8 sh8 lh bh; do
    grep -q "^  ${f}_dispatch_[0-9]*_[a-z_]*matmul: packed matmul, .*, constant lhs packed when built\(, \(epilogue\|outputs\) .*\)\?$" level.txt ||
      { echo "$level: $f"; cat explain8.txt; exit 1; } >&2
  done
  not grep "_arg_dispatch_.*packed when built" level.txt
done
cases8=("fc8 a8_1.npy" "fc8 a8_2.npy" "fc8 a8_5.npy" "fc8 a8_7.npy" "fc8 a8_301.npy"
        "t8 at8_1.npy" "t8 at8_6.npy" "t8 at8_40.npy" "lhs8 b8.npy" "bmm8 ba8.npy"
        "fh ah_1.npy" "fh ah_6.npy" "fh ah_230.npy" "bh bb8.npy" "one8 b8.npy" "three8 b8.npy"
        "sh8 bs8.npy" "th ah_6.npy" "lh bh.npy" "fhs ahs.npy" "bbf abf.npy")
declare -A weights8=([fc8]="w8.npy" [t8]="wt8.npy" [lhs8]="v8.npy" [bmm8]="wb8.npy" [fh]="wh.npy"
                     [bh]="vb.npy" [one8]="v1.npy" [three8]="v3.npy" [sh8]="vs.npy" [th]="wth.npy"
                     [lh]="vh.npy" [fhs]="whs.npy" [bbf]="wbb.npy")
for c in "${cases8[@]}"; do
  read -r fn in <<< "$c"
  "$GRAFT" eval cw8.graph --function "$fn" --input "@$in" --output "@ref_${fn}_$in"
done
for lm in "${LEVELS_HERE[@]}"; do
  level=${lm%%=*} model=${lm#*=}
  for c in "${cases8[@]}"; do
    read -r fn in <<< "$c"
    run_twins cw8.graft "$fn" "$in" "${weights8[$fn]}"
    "$PYTHON" - "$level $c" "ref_${fn}_$in" <<'PY'
import sys
import numpy as np
got, ref = np.load("const1.npy"), np.load(sys.argv[2])
assert got.dtype == ref.dtype and got.shape == ref.shape, (sys.argv[1], got.dtype, got.shape)
same = np.array_equal(got, ref, equal_nan=got.dtype.kind == "f")
assert same, f"{sys.argv[1]}: differs at {np.argwhere(got != ref)[:3].tolist()}"
PY
  done
done

# The slice carries one copy of each constant per level: packed (rows
# padded to whole panels), not also as written. With the constant
# returned as well, it carries both.
levels=(${TARGET_LEVELS[$TARGET]})
"$PYTHON" - <<'PY'
with open("fc.graph", "w") as out:
    src = open("cw.graph").read().split("func @")
    out.write("".join("func @" + f for f in src if f.startswith("fc(") or f.startswith("fc_arg(")))
PY
"$GRAFT" build fc.graph --target "$TARGET" --levels=baseline -o fc.graft
"$GRAFT" build shared.graph --target "$TARGET" --levels=baseline -o shared.graft
size() { stat -c %s "$1"; }
bytes=$((600 * 150 * 4))
[[ $(size fc.graft) -lt $((bytes * 3 / 2)) ]] || { echo "fc.graft: $(size fc.graft) bytes" >&2; exit 1; }
[[ $(size shared.graft) -gt $((bytes * 2)) ]] || { echo "shared.graft: $(size shared.graft) bytes" >&2; exit 1; }
model=$(cpu_for_level "$TARGET" "${levels[0]}")
run_cpu "$TARGET" "$model" shared.graft --input @a43.npy --output @r.npy --output @w_out.npy
run_cpu "$TARGET" "$model" fc.graft --function fc --input @a43.npy --output @fc.npy
cmp r.npy fc.npy
cmp w_out.npy w.npy

# ONNX: a 2-D weight initializer against a [2, seq, 40] and a
# [2, 3, seq, 40] lhs (tests/e2e/inputs/onnx/gen_models.py, dense_3d) is
# one matmul each, reading one packed copy, with no per-call broadcast of
# the weights; it gives the bytes of --weights-as-args.
dense=$SRC/tests/e2e/inputs/onnx/dense_3d.onnx
"$GRAFT" build "$dense" --target "$TARGET" -o dense.graft --explain > dense.txt
[[ $(grep -c "^  dense_3d_dispatch_[0-9]*_matmul: .*, constant rhs packed when built$" dense.txt) -eq \
   $((2 * ${#levels[@]})) ]] || { cat dense.txt >&2; exit 1; }
not grep -q broadcast dense.txt
"$GRAFT" build "$dense" --target "$TARGET" --weights-as-args -o dense_arg.graft
"$PYTHON" - <<'PY'
import numpy as np
rng = np.random.default_rng(6)
np.save("x.npy", rng.uniform(-1, 1, (2, 37, 40)).astype(np.float32))
np.save("x4.npy", rng.uniform(-1, 1, (2, 3, 5, 40)).astype(np.float32))
w = np.array([((i * 7) % 13 - 6) / 8 for i in range(40 * 24)], np.float32).reshape(40, 24)
np.save("dw.npy", w)
PY
for level in ${TARGET_LEVELS[$TARGET]}; do
  model=$(cpu_for_level "$TARGET" "$level") || continue
  run_cpu "$TARGET" "$model" dense.graft --isa="$level" --input @x.npy --input @x4.npy \
    --output @y.npy --output @y4.npy
  run_cpu "$TARGET" "$model" dense_arg.graft --isa="$level" --input @x.npy --input @x4.npy \
    --input @dw.npy --output @ya.npy --output @y4a.npy
  cmp y.npy ya.npy
  cmp y4.npy y4a.npy
  "$PYTHON" - "$level" <<'PY'
import sys
import numpy as np
w = np.load("dw.npy").astype(np.float64)
for x, y in [("x.npy", "y.npy"), ("x4.npy", "y4.npy")]:
    ref = np.load(x).astype(np.float64) @ w
    got = np.load(y)
    assert got.shape == ref.shape, (sys.argv[1], got.shape, ref.shape)
    assert np.abs(got - ref).max() <= 1e-4, (sys.argv[1], y, np.abs(got - ref).max())
PY
done

[[ $TARGET == "$HOST_TARGET" ]] || exit 0
# Repeated calls, and two threads calling one module at once.
"$GRAFT_REPEAT_CHECK" cw.graft tied 3 5 @a230.npy
"$GRAFT_REPEAT_CHECK" cw.graft lhs 3 5 @b.npy
# Two builds, the same bytes.
"$GRAFT" build cw.graph --target "$TARGET" -o again.graft
cmp cw.graft again.graft
