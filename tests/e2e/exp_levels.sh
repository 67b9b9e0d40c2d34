# f32 exp on every x86_64 feature level this machine runs (natively or
# under qemu): within 1.2 ulp of exp in f64 everywhere, within 1 ulp where
# the level has FMA (x86-64-v3 and v4 fuse exp's multiply-adds,
# lib/codegen/MathFunctions.cpp), the same bits at v3 and v4, and
# overflow, underflow, NaN and the subnormal range exact as numpy has them
# (results just under the largest float, x in (88.72, 88.7228], are finite).
[[ $HOST_TARGET == x86_64 ]] || { echo "note: x86_64 levels only; host is $HOST_TARGET"; exit 0; }
cat >exp.graph <<'GRAPH'
func @e(%x: tensor<?xf32>) -> tensor<?xf32> {
  %r = map %x : tensor<?xf32> {
  ^bb0(%a: f32):
    %0 = exp %a : f32
    yield %0
  }
  return %r
}
GRAPH
"$GRAFT" build exp.graph --target x86_64 -o exp.graft
"$PYTHON" - <<'PY'
import numpy as np
rng = np.random.default_rng(5)
x = np.concatenate([rng.uniform(-104, 88.7, 200000), rng.uniform(-10, 10, 200000),
                    rng.uniform(-103.9, -87, 50000),
                    [0.0, -0.0, 88.72, 88.721, 88.7225, 88.7228, 88.72284, 88.73, 89.0, 89.5, -103.9, -104.0, -104.5, -200.0, 1e30,
                     -1e30, np.inf, -np.inf, np.nan]]).astype(np.float32)
np.save("x.npy", x)
PY
ran=()
for level in ${TARGET_LEVELS[x86_64]}; do
  if ! model=$(cpu_for_level x86_64 "$level"); then
    echo "note: nothing on this machine runs x86_64 $level; not run"
    continue
  fi
  run_cpu x86_64 "$model" exp.graft --function e --isa="$level" --input @x.npy --output @$level.npy
  ran+=("$level")
done
[[ ${#ran[@]} -gt 0 ]] || { echo "error: no x86_64 level ran" >&2; exit 1; }
"$PYTHON" - "${ran[@]}" <<'PY'
import sys
import numpy as np
x = np.load("x.npy")
with np.errstate(over="ignore"):
    ref = np.exp(x.astype(np.float64))
    want = ref.astype(np.float32)
got = {level: np.load(level + ".npy") for level in sys.argv[1:]}
for level, g in got.items():
    fused = level != "x86-64-v2"
    finite = np.isfinite(want) & (want != 0)
    ulp = np.spacing(want[finite]).astype(np.float64)
    err = np.abs(g[finite].astype(np.float64) - ref[finite]) / ulp
    bound = 1.0 if fused else 1.2
    worst = int(np.argmax(err))
    print(f"{level}: max {err.max():.3f} ulp at x = {x[finite][worst]!r}")
    assert err.max() <= bound, f"{level}: exp off by {err.max():.3f} ulp (bound {bound})"
    special = ~finite
    same = (g[special] == want[special]) | (np.isnan(g[special]) & np.isnan(want[special]))
    assert same.all(), f"{level}: exp({x[special][~same]}) = {g[special][~same]}, expected {want[special][~same]}"
if "x86-64-v3" in got and "x86-64-v4" in got:
    assert (got["x86-64-v3"].view(np.uint32) == got["x86-64-v4"].view(np.uint32)).all(), \
        "x86-64-v3 and v4 differ"
PY
