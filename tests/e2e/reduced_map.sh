# A map read only by a reduction is computed by the reduction
# (Former::isReducedMap): its body is computed as written, only the fold
# of the sums is reassociated (docs/graph-format.md). A body whose
# constants, reassociated, would fold away (v * 1e30 * 1e-30: inf for v =
# 1e10; v * 0.1 * 10, not v) gives the reference evaluator's bits, and
# --explain shows one dispatch per function. Operands whose dims the graph
# equates only at run time (two ?x? arguments, a ? vector broadcast over
# the rows) are read by the reduction too, and sizes that differ are still
# refused with the map's error before anything runs (the function's shape
# checks, not the map's dispatch, hold them). (Their sums run down the
# columns, in the evaluator's order: the same bits.)
cat > rm.graph <<'G'
func @overflow(%x: tensor<?x?xf32>) -> tensor<?xf32> {
  %w = map %x : tensor<?x?xf32> {
  ^bb0(%v: f32):
    %c = constant 1e30 : f32
    %d = constant 1e-30 : f32
    %0 = mul %v, %c : f32
    %1 = mul %0, %d : f32
    yield %1
  }
  %r = reduce %w {dims = [1], kind = sum} : tensor<?xf32>
  return %r
}
func @rounded(%x: tensor<?x?xf32>) -> tensor<?xf32> {
  %w = map %x : tensor<?x?xf32> {
  ^bb0(%v: f32):
    %c = constant 0.1 : f32
    %d = constant 10.0 : f32
    %0 = mul %v, %c : f32
    %1 = mul %0, %d : f32
    yield %1
  }
  %r = reduce %w {dims = [1], kind = sum} : tensor<?xf32>
  return %r
}
func @pairs(%x: tensor<?x?xf32>, %y: tensor<?x?xf32>) -> tensor<?xf32> {
  %w = map %x, %y : tensor<?x?xf32> {
  ^bb0(%p: f32, %q: f32):
    %0 = mul %p, %q : f32
    yield %0
  }
  %r = reduce %w {dims = [0], kind = sum} : tensor<?xf32>
  return %r
}
func @centred(%x: tensor<?x?xf32>, %c: tensor<?xf32>) -> tensor<?xf32> {
  %w = map %x, %c : tensor<?x?xf32> {
  ^bb0(%p: f32, %q: f32):
    %0 = sub %p, %q : f32
    %1 = mul %0, %0 : f32
    yield %1
  }
  %r = reduce %w {dims = [0], kind = sum} : tensor<?xf32>
  return %r
}
G
"$GRAFT" build rm.graph -o rm.graft --explain > explain.txt
not grep -q "_map:" explain.txt
[[ $(grep -c "_reduce:" explain.txt) -eq $((4 * $(grep -c "^[a-z0-9.+-]* (" explain.txt))) ]] ||
  { cat explain.txt >&2; exit 1; }
"$PYTHON" - <<'PY'
import numpy as np
np.save("big.npy", np.full((3, 1), 1e10, np.float32))
np.save("many.npy", np.random.default_rng(4).random((5000, 1), dtype=np.float32))
rng = np.random.default_rng(5)
for name, shape in {"x": (37, 300), "y": (37, 300), "c": (300,), "y2": (37, 299), "c2": (37,)}.items():
    np.save(f"{name}.npy", rng.standard_normal(shape).astype(np.float32))
PY
for c in "overflow big.npy" "rounded many.npy" "pairs x.npy y.npy" "centred x.npy c.npy"; do
  read -r fn in in2 <<< "$c"
  ins=(--input "@$in")
  [[ -n ${in2:-} ]] && ins+=(--input "@$in2")
  "$GRAFT_RUN" rm.graft --function "$fn" "${ins[@]}" --output @got.npy
  "$GRAFT" eval rm.graph --function "$fn" "${ins[@]}" --output @want.npy
  "$PYTHON" - "$fn" <<'PY'
import sys
import numpy as np
got, want = np.load("got.npy"), np.load("want.npy")
assert got.tobytes() == want.tobytes(), f"{sys.argv[1]}: {(got != want).sum()} differ, e.g. {got[:3]} {want[:3]}"
PY
done
# Sizes that differ: the map's check, as without the fusion.
not "$GRAFT_RUN" rm.graft --function pairs --input @x.npy --input @y2.npy 2> err.txt
grep -q "rm.graph:[0-9]*:[0-9]*: map: operand 1 dim 1 differs from operand 0: 299 != 300" err.txt ||
  { cat err.txt >&2; exit 1; }
not "$GRAFT_RUN" rm.graft --function centred --input @x.npy --input @c2.npy 2> err.txt
grep -q "rm.graph:[0-9]*:[0-9]*: map: operand 1 dim 1 differs from operand 0: 37 != 300" err.txt ||
  { cat err.txt >&2; exit 1; }
