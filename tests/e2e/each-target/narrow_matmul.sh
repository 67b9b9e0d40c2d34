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
# from .npy files (wide.graph is narrow.graph on f32), bf16 ones from f32
# inputs cast in the graph (numpy has no bf16): @bf16 casts them to bf16
# before its matmul, @bf16ref rounds them to bf16 and back to f32 before an
# f32 one. The narrow runs have a guard page after every buffer (graft-run
# --guard): an operand read with the wrong element size stops them.
# --explain says the f16 and bf16 matmuls are packed.
cat > narrow.graph <<'G'
func @mm(%a: tensor<?x?xf16>, %b: tensor<?x?xf16>) -> tensor<?x?xf32> {
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
func @mmt(%q: tensor<?x?xf16>, %k: tensor<?x?xf16>) -> tensor<?x?xf32> {
  %z = constant 0.0 : f32
  %kt = transpose %k {perm = [1, 0]} : tensor<?x?xf16>
  %m = dim %q {axis = 0} : index
  %n = dim %k {axis = 0} : index
  %e = empty %m, %n : tensor<?x?xf32>
  %f = fill %z, %e : tensor<?x?xf32>
  %r = matmul %q, %kt, %f : tensor<?x?xf32>
  return %r
}
func @bmm(%a: tensor<?x?x?xf16>, %b: tensor<?x?x?xf16>, %c: tensor<?x?x?xf32>) -> tensor<?x?x?xf32> {
  %r = batch_matmul %a, %b, %c : tensor<?x?x?xf32>
  return %r
}
G
sed 's/xf16>/xf32>/g' narrow.graph > wide.graph
# bf16 operands, and the f32 matmul of the same values: each input rounded
# to bf16 (a cast in a map), then widened back (@bf16ref) or not (@bf16).
cat > bf16.graph <<'G'
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
"$GRAFT" build narrow.graph --target "$TARGET" -o narrow.graft --explain --emit llvm --emit-dir ll > explain.txt
# A workgroup of fewer rows than a tile (5) reads the f16 rhs in place
# with the tails that widen it (in the slice only where a call can reach
# them): the case below runs them.
grep -q "define internal void @graft_matmul_tailf16_" "ll/narrow.$TARGET.ll" ||
  { echo "error: no tail reads an f16 rhs in place in the $TARGET slice" >&2; exit 1; }
"$GRAFT" build bf16.graph --target "$TARGET" -o bf16.graft --explain >> explain.txt
"$GRAFT" build wide.graph --target "$TARGET" -o wide.graft
grep -q "mm_dispatch_0_matmul: packed matmul.*, f16 operands widened to f32 when packed" explain.txt || { cat explain.txt >&2; exit 1; }
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
# Each pair: the narrow bundle, function and input width | the f32 ones; then the inputs.
pairs=("narrow mm 16|wide mm 32 a230 b" "narrow mm 16|wide mm 32 a43 b" "narrow mm 16|wide mm 32 a5 b"
       "narrow mmt 16|wide mmt 32 q k" "narrow bmm 16|wide bmm 32 ba bb bc"
       "bf16 bf16 32|bf16 bf16ref 32 a230 b" "bf16 bf16 32|bf16 bf16ref 32 a43 b"
       "bf16 bf16 32|bf16 bf16ref 32 a5 b")
args_of() { # <bundle> <function> <width: 16 or 32> <inputs...>
  local in
  args=("$1.graft" --function "$2")
  for in in "${@:4}"; do
    if [[ $in == bc ]]; then args+=(--input @bc.npy); else args+=(--input "@$in$3.npy"); fi
  done
}
levels_here "$TARGET"
for lm in "${LEVELS_HERE[@]}"; do
  level=${lm%%=*} model=${lm#*=}
  for pair in "${pairs[@]}"; do
    for threads in 1 3; do
      inputs=${pair#*|}
      inputs=${inputs#* * * }
      args_of ${pair%|*} $inputs
      run_cpu "$TARGET" "$model" "${args[0]}" --isa="$level" --threads $threads --guard "${args[@]:1}" \
        --output @narrow$threads.npy
      args_of ${pair#*|}
      run_cpu "$TARGET" "$model" "${args[0]}" --isa="$level" --threads $threads "${args[@]:1}" --output @wide$threads.npy
      cmp narrow$threads.npy wide$threads.npy ||
        { echo "error: $TARGET $level, $threads threads: ${pair%|*} differs from ${pair#*|}"; exit 1; }
    done
    cmp narrow1.npy narrow3.npy || { echo "error: $TARGET $level: ${pair%|*}: 1 and 3 threads differ"; exit 1; }
  done
done
