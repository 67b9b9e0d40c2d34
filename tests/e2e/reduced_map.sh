# A map read only by a reduction is computed by the reduction
# (Former::isReducedMap): its body is computed as written, only the fold
# of the sums is reassociated (docs/graph-format.md). A body whose
# constants, reassociated, would fold away (v * 1e30 * 1e-30: inf for v =
# 1e10; v * 0.1 * 10, not v) gives the reference evaluator's bits, and
# --explain shows one dispatch per function.
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
G
"$GRAFT" build rm.graph -o rm.graft --explain > explain.txt
not grep -q "_map:" explain.txt
[[ $(grep -c "_reduce:" explain.txt) -eq $((2 * $(grep -c "^[a-z0-9.+-]* (" explain.txt))) ]] ||
  { cat explain.txt >&2; exit 1; }
"$PYTHON" - <<'PY'
import numpy as np
np.save("big.npy", np.full((3, 1), 1e10, np.float32))
np.save("many.npy", np.random.default_rng(4).random((5000, 1), dtype=np.float32))
PY
for c in "overflow big.npy" "rounded many.npy"; do
  read -r fn in <<< "$c"
  "$GRAFT_RUN" rm.graft --function "$fn" --input "@$in" --output @got.npy
  "$GRAFT" eval rm.graph --function "$fn" --input "@$in" --output @want.npy
  "$PYTHON" - "$fn" <<'PY'
import sys
import numpy as np
got, want = np.load("got.npy"), np.load("want.npy")
assert got.tobytes() == want.tobytes(), f"{sys.argv[1]}: {(got != want).sum()} differ, e.g. {got[:3]} {want[:3]}"
PY
done
