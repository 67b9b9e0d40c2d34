# f16 and bf16 operands of a packed matmul (mixed precision, an f32
# accumulator: docs/graph-format.md) are widened exactly to f32 by the
# packing routines (lib/codegen/PackedMatmul.cpp, Source), so on $TARGET
# (CTest runs this once per registered target, under qemu for the others)
# every feature level this machine runs (forced with --isa) gives the bytes
# of the f32 matmul of the same values, at 1 and 3 threads: a plain rhs
# with a fused epilogue, a transposed one, a batch; both operands packed
# once per call (230 rows: several rows and columns of workgroups), the
# rhs packed by each workgroup (43 rows, one row of workgroups; 5 rows,
# fewer than a tile), ragged panels and several K blocks (700) on every
# level, f16 subnormals and extremes among the values. f16 values come
# from .npy files, bf16 ones from f32 inputs cast in the graph (numpy has
# no bf16): @bf16 casts them to bf16 before its matmul, @bf16ref rounds
# them to bf16 and back to f32 before an f32 one. --explain says the f16
# and bf16 matmuls are packed.
cat > nm.graph <<'G'
func @h(%a: tensor<?x?xf16>, %b: tensor<?x?xf16>) -> tensor<?x?xf32> {
  %z = constant 0.0 : f32
  %m = dim %a {axis = 0} : index
  %n = dim %b {axis = 1} : index
  %e = empty %m, %n : tensor<?x?xf32>
  %f = fill %z, %e : tensor<?x?xf32>
  %r = matmul %a, %b, %f : tensor<?x?xf32>
  %y = map %r : tensor<?x?xf32> {
  ^bb0(%v: f32):
    %0 = max %v, %z : f32
    yield %0
  }
  return %y
}
func @f(%a: tensor<?x?xf32>, %b: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %z = constant 0.0 : f32
  %m = dim %a {axis = 0} : index
  %n = dim %b {axis = 1} : index
  %e = empty %m, %n : tensor<?x?xf32>
  %f = fill %z, %e : tensor<?x?xf32>
  %r = matmul %a, %b, %f : tensor<?x?xf32>
  %y = map %r : tensor<?x?xf32> {
  ^bb0(%v: f32):
    %0 = max %v, %z : f32
    yield %0
  }
  return %y
}
func @ht(%q: tensor<?x?xf16>, %k: tensor<?x?xf16>) -> tensor<?x?xf32> {
  %z = constant 0.0 : f32
  %kt = transpose %k {perm = [1, 0]} : tensor<?x?xf16>
  %m = dim %q {axis = 0} : index
  %n = dim %k {axis = 0} : index
  %e = empty %m, %n : tensor<?x?xf32>
  %f = fill %z, %e : tensor<?x?xf32>
  %r = matmul %q, %kt, %f : tensor<?x?xf32>
  return %r
}
func @ft(%q: tensor<?x?xf32>, %k: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %z = constant 0.0 : f32
  %kt = transpose %k {perm = [1, 0]} : tensor<?x?xf32>
  %m = dim %q {axis = 0} : index
  %n = dim %k {axis = 0} : index
  %e = empty %m, %n : tensor<?x?xf32>
  %f = fill %z, %e : tensor<?x?xf32>
  %r = matmul %q, %kt, %f : tensor<?x?xf32>
  return %r
}
func @bh(%a: tensor<?x?x?xf16>, %b: tensor<?x?x?xf16>, %c: tensor<?x?x?xf32>) -> tensor<?x?x?xf32> {
  %r = batch_matmul %a, %b, %c : tensor<?x?x?xf32>
  return %r
}
func @bf(%a: tensor<?x?x?xf32>, %b: tensor<?x?x?xf32>, %c: tensor<?x?x?xf32>) -> tensor<?x?x?xf32> {
  %r = batch_matmul %a, %b, %c : tensor<?x?x?xf32>
  return %r
}
func @bf16(%fa: tensor<?x?xf32>, %fb: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %z = constant 0.0 : f32
  %a = map %fa : tensor<?x?xbf16> {
  ^bb0(%p: f32):
    %0 = cast %p : bf16
    yield %0
  }
  %b = map %fb : tensor<?x?xbf16> {
  ^bb0(%p: f32):
    %0 = cast %p : bf16
    yield %0
  }
  %m = dim %fa {axis = 0} : index
  %n = dim %fb {axis = 1} : index
  %e = empty %m, %n : tensor<?x?xf32>
  %f = fill %z, %e : tensor<?x?xf32>
  %r = matmul %a, %b, %f : tensor<?x?xf32>
  return %r
}
func @bf16ref(%fa: tensor<?x?xf32>, %fb: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %z = constant 0.0 : f32
  %a = map %fa : tensor<?x?xf32> {
  ^bb0(%p: f32):
    %0 = cast %p : bf16
    %1 = cast %0 : f32
    yield %1
  }
  %b = map %fb : tensor<?x?xf32> {
  ^bb0(%p: f32):
    %0 = cast %p : bf16
    %1 = cast %0 : f32
    yield %1
  }
  %m = dim %fa {axis = 0} : index
  %n = dim %fb {axis = 1} : index
  %e = empty %m, %n : tensor<?x?xf32>
  %f = fill %z, %e : tensor<?x?xf32>
  %r = matmul %a, %b, %f : tensor<?x?xf32>
  return %r
}
G
"$GRAFT" build nm.graph --target "$TARGET" -o nm.graft --explain > explain.txt
grep -q "h_dispatch_0_matmul: packed matmul.*, f16 operands widened to f32 when packed" explain.txt || { cat explain.txt >&2; exit 1; }
grep -q "bf16_dispatch_[0-9]*_matmul: packed matmul.*, bf16 operands widened to f32 when packed" explain.txt || { cat explain.txt >&2; exit 1; }
"$PYTHON" - <<'PY'
import numpy as np
rng = np.random.default_rng(16)
# f16 subnormals, the largest finite values, signed zeros among the values.
special = np.array([6e-8, -6e-8, 3e-5, -6.1e-5, 65504, -65504, 0.0, -0.0], np.float16)
def save(name, *shape):
    x = rng.uniform(-2, 2, shape).astype(np.float16)
    x.reshape(-1)[::97][:8] = special[:len(x.reshape(-1)[::97][:8])]
    np.save(name + "16.npy", x)
    np.save(name + "32.npy", x.astype(np.float32))
save("a230", 230, 700); save("a43", 43, 700); save("a5", 5, 700); save("b", 700, 150)
save("q", 200, 520); save("k", 150, 520)
save("ba", 3, 130, 300); save("bb", 3, 300, 50)
np.save("bc.npy", rng.uniform(-1, 1, (3, 130, 50)).astype(np.float32))
PY
# Each pair: the narrow function and its inputs | the f32 function and its inputs.
pairs=("h a230 b|f a230 b" "h a43 b|f a43 b" "h a5 b|f a5 b" "ht q k|ft q k" "bh ba bb bc|bf ba bb bc"
       "bf16 a230 b|bf16ref a230 b" "bf16 a43 b|bf16ref a43 b")
args_of() { # <width: 16 or 32> <function> <inputs...>
  local width=$1 fn=$2 in
  shift 2
  args=(--function "$fn")
  [[ $fn == bf16* ]] && width=32
  for in in "$@"; do
    if [[ $in == bc ]]; then args+=(--input @bc.npy); else args+=(--input "@$in$width.npy"); fi
  done
}
ran=0
for level in ${TARGET_LEVELS[$TARGET]}; do
  if ! model=$(cpu_for_level "$TARGET" "$level"); then
    echo "note: nothing on this machine runs $TARGET $level (host CPU or a qemu model); not run"
    continue
  fi
  ran=$((ran + 1))
  for pair in "${pairs[@]}"; do
    for threads in 1 3; do
      args_of 16 ${pair%|*}
      run_cpu "$TARGET" "$model" nm.graft --isa="$level" --threads $threads "${args[@]}" --output @narrow$threads.npy
      args_of 32 ${pair#*|}
      run_cpu "$TARGET" "$model" nm.graft --isa="$level" --threads $threads "${args[@]}" --output @wide$threads.npy
      cmp narrow$threads.npy wide$threads.npy ||
        { echo "error: $TARGET $level, $threads threads: ${pair%|*} differs from ${pair#*|}"; exit 1; }
    done
    cmp narrow1.npy narrow3.npy || { echo "error: $TARGET $level: ${pair%|*}: 1 and 3 threads differ"; exit 1; }
  done
done
[[ $ran -gt 0 ]] || { echo "error: no feature level of $TARGET runs here" >&2; exit 1; }
