# A packed matmul's epilogue with operands, applied by the microkernels
# themselves to each whole tile of the last K block (TileEpilogue.h, on
# the levels whose tiles store outputs: x86-64-v3 and v4): a bias over the
# columns with GELU (the tanh form, and erf's, computed in f64), a scale a
# row, a residual matrix, a dispatch constant, a bias a batch and column of
# a batch matmul. The microkernels are named by the operands they read
# (lc0: a vector along the columns, lr0: a value a row, lcr0: a matrix,
# p1: a dispatch constant); --explain says which inputs and constants they
# read. An f16 input keeps the scalar pass. A bias broadcast the way the
# ONNX importer writes it (its size a `dim` of the matmul's result) or
# numpy-style by the map itself is fused the same: a `dim` reads the
# shape, not the data, so the matmul's result is not an output of its own
# (one dispatch; Views.cpp, consumedOnlyIn).
#
# Each function's result is checked against the reference evaluator, is
# bit-identical at 1 and 3 threads, and bit-identical to the same epilogue
# computed apart from the tiles: each function's twin also returns the
# matmul itself, so its epilogue runs in the dispatch's scalar pass or a
# map of its own (the tiles' vectors must give each lane's scalar bits).
# Sizes leave ragged panels, partial tiles of rows and several K blocks,
# so every output tile runs both ways.
# Each function is the matmul (or batch matmul) %r, then its epilogue;
# the twin <name>_two returns %r too.
"$PYTHON" - <<'PY'
MM2 = """  %z = constant 0.0 : f32
  %m = dim %a {axis = 0} : index
  %n = dim %b {axis = 1} : index
  %e = empty %m, %n : tensor<?x?xf32>
  %f = fill %z, %e : tensor<?x?xf32>
  %r = matmul %a, %b, %f : tensor<?x?xf32>"""
MM3 = """  %z = constant 0.0 : f32
  %nb = dim %a {axis = 0} : index
  %m = dim %a {axis = 1} : index
  %n = dim %b {axis = 2} : index
  %e = empty %nb, %m, %n : tensor<?x?x?xf32>
  %f = fill %z, %e : tensor<?x?x?xf32>
  %r = batch_matmul %a, %b, %f : tensor<?x?x?xf32>"""
M2, M3 = "tensor<?x?xf32>", "tensor<?x?x?xf32>"
GELU = """    %h = constant 0.5 : f32
    %one = constant 1.0 : f32
    %c = constant 0.7978845608 : f32
    %k = constant 0.044715 : f32
    %0 = add %v, %w : f32
    %1 = mul %0, %0 : f32
    %2 = mul %1, %0 : f32
    %3 = mul %2, %k : f32
    %4 = add %0, %3 : f32
    %5 = mul %4, %c : f32
    %6 = tanh %5 : f32
    %7 = add %6, %one : f32
    %8 = mul %0, %7 : f32
    %9 = mul %8, %h : f32
    yield %9"""
ERF = """    %h = constant 0.5 : f32
    %one = constant 1.0 : f32
    %s = constant 0.70710678 : f32
    %0 = add %v, %w : f32
    %1 = mul %0, %s : f32
    %2 = erf %1 : f32
    %3 = add %2, %one : f32
    %4 = mul %0, %3 : f32
    %5 = mul %4, %h : f32
    yield %5"""
def bias_map(operands, body, t=M2):
    return f"""  %y = map {operands} : {t} {{
  ^bb0(%v: f32, %w: f32):
{body}
  }}"""
# name: (parameters after %a and %b, matmul, epilogue, result, twinned)
funcs = {
  "gelu": (f"%bias: tensor<?xf32>", MM2, "  %bb = broadcast %bias, %m {dims = [1]} : tensor<?x?xf32>\n" +
           bias_map("%r, %bb", GELU), "%y", True),
  "erf": (f"%bias: tensor<?xf32>", MM2, "  %bb = broadcast %bias, %m {dims = [1]} : tensor<?x?xf32>\n" +
          bias_map("%r, %bb", ERF), "%y", True),
  "rows": (f"%s: tensor<?xf32>", MM2, "  %sb = broadcast %s, %n {dims = [0]} : tensor<?x?xf32>\n" +
           bias_map("%r, %sb", "    %0 = mul %v, %w : f32\n    %1 = exp %0 : f32\n    yield %1"), "%y", True),
  "resid": (f"%c: {M2}, %s: f32", MM2,
            bias_map("%r, %c", "    %0 = mul %v, %s : f32\n    %1 = add %0, %w : f32\n"
                     "    %2 = max %1, %z : f32\n    yield %2"), "%y", True),
  "bbias": (f"%bias: tensor<?x?xf32>", MM3, f"  %bb = broadcast %bias, %m {{dims = [0, 2]}} : {M3}\n" +
            bias_map("%r, %bb", "    %0 = sub %v, %w : f32\n    %1 = sigmoid %0 : f32\n    yield %1", M3),
            "%y", True),
  # As the ONNX importer writes MatMul + Add + Relu: the broadcast's size
  # a dim of the matmul's result.
  "onnxbias": (f"%bias: tensor<?xf32>", MM2, "  %r.d0 = dim %r {axis = 0} : index\n"
               "  %bb = broadcast %bias, %r.d0 {dims = [1]} : tensor<?x?xf32>\n" +
               bias_map("%r, %bb", "    %0 = add %v, %w : f32\n    yield %0") +
               "\n  %o = map %y : tensor<?x?xf32> {\n  ^bb0(%v: f32):\n    %0 = max %v, %z : f32\n"
               "    yield %0\n  }", "%o", True),
  # numpy-style: the map broadcasts the vector itself.
  "npbias": (f"%bias: tensor<?xf32>", MM2, bias_map("%r, %bias", "    %0 = mul %v, %w : f32\n    yield %0"),
             "%y", True),
  "half": (f"%bias: tensor<?xf16>", MM2, "  %bb = broadcast %bias, %m {dims = [1]} : tensor<?x?xf16>\n"
           "  %y = map %r, %bb : tensor<?x?xf32> {\n  ^bb0(%v: f32, %w: f16):\n    %0 = cast %w : f32\n"
           "    %1 = add %v, %0 : f32\n    yield %1\n  }", "%y", False),
}
with open("ep.graph", "w") as out:
    for name, (params, mm, epilogue, result, twinned) in funcs.items():
        t = M3 if mm is MM3 else M2
        head = f"(%a: {t}, %b: {t}, {params})"
        out.write(f"func @{name}{head} -> {t} {{\n{mm}\n{epilogue}\n  return {result}\n}}\n")
        if twinned:
            out.write(f"func @{name}_two{head} -> ({t}, {t}) {{\n{mm}\n{epilogue}\n"
                      f"  return %r, {result}\n}}\n")
PY
"$GRAFT" build ep.graph -o ep.graft
"$GRAFT" build ep.graph --emit llvm --emit-dir emit -o /dev/null
# The microkernels that apply each epilogue (the whole tile and the
# packing one), named by what they read.
for kind in tile tilepack; do
  for part in "_lc0_.*_tanh\." "_lc0_.*_erf\." "_lr0_mul.0.1_exp.2_" \
              "_lcr0_p1_mul.0.2_add.3.1_" "_lc0_sub.0.1_sigmoid.2_"; do
    grep -q "^define internal [a-z ]*void @graft_matmul_${kind}_a${part}" emit/ep.*.ll ||
      { echo "error: no $kind microkernel applies the epilogue a$part"; exit 1; }
  done
done
"$GRAFT" build ep.graph --target x86_64 --levels x86-64-v3 --explain -o /dev/null > explain.txt
check "$TEST_DIR/tile_epilogue.sh" < explain.txt
# CHECK: gelu_dispatch_0_matmul: packed matmul, {{.*}}, epilogue applied by the tiles (reading 1 input){{$}}
# CHECK: gelu_two_dispatch_{{[0-9]+}}_matmul: packed matmul, {{.*}}, outputs through a scalar pass after the tiles{{$}}
# CHECK: erf_dispatch_{{[0-9]+}}_matmul: {{.*}}, epilogue applied by the tiles (reading 1 input){{$}}
# CHECK: rows_dispatch_{{[0-9]+}}_matmul: {{.*}}, epilogue applied by the tiles (reading 1 input){{$}}
# CHECK: resid_dispatch_{{[0-9]+}}_matmul: {{.*}}, epilogue applied by the tiles (reading 1 input and 1 dispatch constant){{$}}
# CHECK: bbias_dispatch_{{[0-9]+}}_batch_matmul: {{.*}}, epilogue applied by the tiles (reading 1 input){{$}}
# CHECK: onnxbias_dispatch_{{[0-9]+}}_matmul: {{.*}}, epilogue applied by the tiles (reading 1 input){{$}}
# CHECK-NOT: onnxbias_dispatch
# CHECK: npbias_dispatch_{{[0-9]+}}_matmul: {{.*}}, epilogue applied by the tiles (reading 1 input){{$}}
# CHECK-NOT: npbias_dispatch
# CHECK: half_dispatch_{{[0-9]+}}_matmul: {{.*}}, outputs through a scalar pass after the tiles{{$}}
"$PYTHON" - <<'PY'
import numpy as np
rng = np.random.default_rng(5)
def save(name, *shape, scale=1.0):
    np.save(name, (rng.uniform(-1, 1, shape) * scale).astype(np.float32))
# 43 and 230 rows (a partial tile of rows), 150 and 1500 columns (a ragged
# panel), K of 600 and 1500 (several K blocks); 230 x 100 x 1000 one row
# of workgroups over all of M.
save("a1.npy", 43, 600, scale=0.1); save("b1.npy", 600, 1500)
save("a2.npy", 230, 1500, scale=0.05); save("b2.npy", 1500, 150)
save("a3.npy", 230, 100, scale=0.2); save("b3.npy", 100, 1000)
for n in (1500, 150, 1000):
    save(f"bias{n}.npy", n)
for m in (43, 230):
    save(f"s{m}.npy", m, scale=0.5)
save("c1.npy", 43, 1500); save("c2.npy", 230, 150); save("c3.npy", 230, 1000)
save("ba.npy", 3, 130, 300, scale=0.1); save("bb.npy", 3, 300, 200); save("bz.npy", 3, 200)
np.save("h1500.npy", np.load("bias1500.npy").astype(np.float16))
PY
cases=("gelu a1.npy b1.npy bias1500.npy" "gelu a2.npy b2.npy bias150.npy" "gelu a3.npy b3.npy bias1000.npy"
       "erf a1.npy b1.npy bias1500.npy" "erf a2.npy b2.npy bias150.npy"
       "rows a1.npy b1.npy s43.npy" "rows a2.npy b2.npy s230.npy" "rows a3.npy b3.npy s230.npy"
       "resid a1.npy b1.npy c1.npy f32=0.75" "resid a2.npy b2.npy c2.npy f32=-1.5"
       "resid a3.npy b3.npy c3.npy f32=2"
       "bbias ba.npy bb.npy bz.npy" "onnxbias a2.npy b2.npy bias150.npy"
       "onnxbias a3.npy b3.npy bias1000.npy" "npbias a1.npy b1.npy bias1500.npy"
       "half a1.npy b1.npy h1500.npy")
case_args() {
  local in
  args=(--function "${1%% *}")
  fn=${1%% *}
  ins=()
  for in in ${1#* }; do
    if [[ $in == *=* ]]; then ins+=(--input "$in"); else ins+=(--input "@$in"); fi
  done
}
for i in "${!cases[@]}"; do
  case_args "${cases[$i]}"
  "$GRAFT" eval ep.graph --function "$fn" "${ins[@]}" --output @ref$i.npy
done
ran=0
for level in ${TARGET_LEVELS[$HOST_TARGET]}; do
  host_runs_level "$HOST_TARGET" "$level" || continue
  ran=$((ran + 1))
  for i in "${!cases[@]}"; do
    c=${cases[$i]}
    case_args "$c"
    for threads in 1 3; do
      "$GRAFT_RUN" ep.graft --isa "$level" --threads "$threads" --function "$fn" "${ins[@]}" \
        --output @out$threads.npy
    done
    cmp out1.npy out3.npy || { echo "error: $level $c: 1 and 3 threads differ"; exit 1; }
    cp out1.npy "lv_${level}_$i.npy"
    # The twin: the same epilogue computed apart from the tiles.
    if grep -q "^func @${fn}_two(" ep.graph; then
      "$GRAFT_RUN" ep.graft --isa "$level" --function "${fn}_two" "${ins[@]}" \
        --output @mm.npy --output @apart.npy
      cmp out1.npy apart.npy || { echo "error: $level $c: the tiles' epilogue differs from the scalar pass's"; exit 1; }
    fi
    "$PYTHON" - "$level $c" ref$i.npy <<'PY'
import sys
import numpy as np
got, ref = np.load("out1.npy"), np.load(sys.argv[2])
assert got.shape == ref.shape, (got.shape, ref.shape)
err = np.abs(got.astype(np.float64) - ref)
# The evaluator's libm against graft's own functions: a few f32 ulp.
bound = 1e-5 * (np.abs(ref) + 1)
assert (err <= bound).all(), f"{sys.argv[1]}: max error {err.max()}"
PY
  done
done
[[ $ran -gt 0 ]] || { echo "error: no feature level of $HOST_TARGET runs here"; exit 1; }
# x86-64-v3's and v4's tiles (of different widths, over K blocks of
# different lengths) give the same bytes.
levels_agree x86-64-v3 x86-64-v4 "${cases[@]}"
