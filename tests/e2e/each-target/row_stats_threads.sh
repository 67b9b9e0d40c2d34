# Row statistics (softmax's max and sum of exp, LayerNorm's mean and
# variance, a row max and min together) on $TARGET, on every feature level
# this machine runs (natively or under qemu): bit-identical at 1, 2 and 5
# threads, and within rounding of the reference evaluator. The rows are
# longer than one vector loop step and end in a ragged rest (203 columns),
# and some hold the values a max must get right: NaN, +-inf, -0 beside +0.
# A workgroup covers at most about 16384 elements, as few rows as give 16
# workgroups but 1024 elements at least (lib/dispatch/Tiling.cpp): 19 rows
# of 203, so the 300 rows are 16 workgroups, the last one short (15).
# On x86_64 the row statistics of these graphs have a vector form at every
# level (--explain says so; codegen/RowVector.h), so this runs the vector
# loops at 128, 256 and 512 bits.
g="$SRC/tests/diff/graphs/row_stats.graph"
"$GRAFT" build "$g" --target "$TARGET" -o rows.graft --explain > explain.txt
if [[ $TARGET == x86_64 ]]; then
  for level in x86-64-v2 x86-64-v3 x86-64-v4; do
    awk -v l="$level" '$1 == l { on = 1; next } /^x86-64/ { on = 0 } on' explain.txt > level.txt
    grep -Eq "softmax_dispatch_[0-9]+_map: .*row statistics 2 of 2 in vectors" level.txt ||
      { cat explain.txt >&2; exit 1; }
    grep -Eq "layernorm_dispatch_[0-9]+_map: .*row statistics 2 of 2 in vectors" level.txt ||
      { cat explain.txt >&2; exit 1; }
    grep -Eq "range_dispatch_[0-9]+_map: .*row statistics 2 of 2 in vectors" level.txt ||
      { cat explain.txt >&2; exit 1; }
  done
fi
"$PYTHON" - <<'PY'
import numpy as np
rng = np.random.default_rng(11)
m, n = 300, 203
x = rng.uniform(-4, 4, (m, n)).astype(np.float32)
x[3, 150] = np.nan            # a NaN row: max, exp and sum stay NaN
x[4, :] = 0.0                 # -0 beside +0: max must be +0
x[4, ::3] = -0.0
x[5, :] = -0.0
x[6, 77] = np.inf
x[7, 200] = -np.inf
np.save("x.npy", x)
np.save("g.npy", rng.uniform(-2, 2, n).astype(np.float32))
np.save("b.npy", rng.uniform(-2, 2, n).astype(np.float32))
PY
declare -A args=([softmax]="--input @x.npy" [range]="--input @x.npy"
                 [layernorm]="--input @x.npy --input @g.npy --input @b.npy")
levels_here "$TARGET"
for lm in "${LEVELS_HERE[@]}"; do
  level=${lm%%=*} model=${lm#*=}
  for fn in softmax layernorm range; do
    "$GRAFT" eval "$g" --function $fn ${args[$fn]} --output @ref_$fn.npy
    for threads in 1 2 5; do
      run_cpu "$TARGET" "$model" rows.graft --function $fn --isa="$level" --threads $threads \
        ${args[$fn]} --output @out_$threads.npy
    done
    run_cpu "$TARGET" "$model" rows.graft --function $fn --isa="$level" --threads 2 --trace \
      ${args[$fn]} 2>trace.txt >/dev/null
    grep -Eq "_map \(.*\) grid 1x16x1 " trace.txt || { cat trace.txt >&2; exit 1; }
    cmp out_1.npy out_2.npy
    cmp out_1.npy out_5.npy
    FN=$fn LEVEL=$level "$PYTHON" - <<'PY'
import os
import numpy as np
got, ref = np.load("out_1.npy"), np.load("ref_" + os.environ["FN"] + ".npy")
what = os.environ["FN"] + " at " + os.environ["LEVEL"]
assert got.shape == ref.shape, (what, got.shape, ref.shape)
assert (np.isnan(got) == np.isnan(ref)).all(), what + ": NaN in different places"
ok = ~np.isnan(ref)
assert (np.signbit(got[ok]) == np.signbit(ref[ok])).all() or os.environ["FN"] != "range", \
    what + ": a zero of the wrong sign"
err = np.abs(got[ok].astype(np.float64) - ref[ok])
assert (err <= 1e-5 + 1e-5 * np.abs(ref[ok])).all(), f"{what}: max error {err.max()}"
PY
  done
done
