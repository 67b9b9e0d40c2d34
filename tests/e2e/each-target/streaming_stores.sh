# Streaming (non-temporal) stores of large elementwise results
# (LoopKernel::streamingBytes; lib/codegen/LoopEmitter.cpp) on $TARGET, on
# every feature level this machine runs (natively or under qemu): results
# exact against numpy and bit-identical at 1 and 3 threads, with results
# just below, at and just above the level's threshold (the choice is made
# per call from the sizes), a ragged tail (a length that is not a whole
# number of vectors), rows that start off a vector boundary (a scalar peel
# before the aligned vectors), a value splatted per row, and two outputs
# whose bytes add up, and 4-byte integer and 8-byte float results. Where
# the target streams no results (--explain names no threshold), the same
# kernels run at small sizes.
g="$SRC/tests/e2e/inputs/streaming.graph"
"$GRAFT" build "$g" --target "$TARGET" -o s.graft --explain > explain.txt
threshold=$(sed -n 's/.*chain4_dispatch_[0-9]*_map: .*streaming stores ([0-9]* lanes) where the results are \([0-9]*\) bytes or more.*/\1/p' explain.txt | sort -u)
if [[ $TARGET == x86_64 ]]; then
  # Every x86_64 level streams, from the same size (targets/x86_64.cpp):
  # the graph's five maps at each.
  levels=$(wc -w <<<"${TARGET_LEVELS[x86_64]}")
  [[ $(grep -c "streaming stores" explain.txt) == $((5 * levels)) && $(wc -w <<<"$threshold") == 1 ]] ||
    { cat explain.txt >&2; exit 1; }
fi
[[ $(wc -w <<<"$threshold") -le 1 ]] || { cat explain.txt >&2; exit 1; }
echo "threshold: ${threshold:-none}"
THRESHOLD=${threshold:-0} "$PYTHON" - <<'PY'
import os
import numpy as np
t = int(os.environ["THRESHOLD"])
rng = np.random.default_rng(7)
def f32(*shape):
    return rng.uniform(-2, 2, shape).astype(np.float32)
# f32 elements: below, at and above the threshold (above: a ragged tail);
# small sizes where nothing streams.
sizes = [t // 4 - 1, t // 4, t // 4 + 13] if t else [1000, 4099]
cols = 1000  # rows of 4000 bytes: each starts 4000 % 64 = 32 bytes off a boundary
rows = [-(-t // (4 * cols)) - 1, -(-t // (4 * cols))] if t else [7]
pair = [t // 8 - 1, t // 8] if t else [1003]
cases = []
for n in sizes:
    x, y = f32(n), f32(n)
    cases.append(("chain4", [x, y], [np.maximum(x * y + x, np.float32(0)) * np.float32(0.5)]))
for m in rows:
    x, b, c = f32(m, cols), f32(cols), f32(m)
    cases.append(("rows", [x, b, c], [x * b[None, :] - c[:, None]]))
for n in pair:
    x, y = f32(n), f32(n)
    s = x + y
    cases.append(("two", [x, y], [s, s - y]))
for n in ([t // 4 - 1, t // 4 + 5] if t else [1001]):
    x, y = (rng.integers(-2**31, 2**31, n, dtype=np.int64).astype(np.int32) for _ in range(2))
    cases.append(("ints", [x, y], [x * y + x]))
for n in ([t // 8 - 1, t // 8 + 3] if t else [1001]):
    x, y = (rng.uniform(-2, 2, n) for _ in range(2))
    cases.append(("f64", [x, y], [(x - y) * x]))
with open("cases.txt", "w") as f:
    for k, (fn, ins, outs) in enumerate(cases):
        for i, a in enumerate(ins):
            np.save(f"in{k}_{i}.npy", a)
        for i, a in enumerate(outs):
            np.save(f"want{k}_{i}.npy", a)
        f.write(f"{k} {fn} {len(ins)} {len(outs)} {sum(a.nbytes for a in outs)}\n")
PY
levels_here "$TARGET"
for lm in "${LEVELS_HERE[@]}"; do
  level=${lm%%=*} model=${lm#*=}
  while read -r k fn nin nout bytes; do
    inputs=()
    for ((i = 0; i < nin; ++i)); do inputs+=(--input "@in${k}_$i.npy"); done
    for threads in 1 3; do
      outputs=()
      for ((i = 0; i < nout; ++i)); do outputs+=(--output "@got${k}_${threads}_$i.npy"); done
      run_cpu "$TARGET" "$model" s.graft --function "$fn" --isa="$level" --threads $threads \
        "${inputs[@]}" "${outputs[@]}"
    done
    for ((i = 0; i < nout; ++i)); do
      cmp "got${k}_1_$i.npy" "got${k}_3_$i.npy"
      "$PYTHON" - "got${k}_1_$i.npy" "want${k}_$i.npy" "$fn at $level, $bytes result bytes" <<'PY'
import sys
import numpy as np
got, want = np.load(sys.argv[1]), np.load(sys.argv[2])
assert got.shape == want.shape, (sys.argv[3], got.shape, want.shape)
bits = np.uint64 if got.dtype.itemsize == 8 else np.uint32
assert got.dtype == want.dtype, (sys.argv[3], got.dtype, want.dtype)
bad = np.flatnonzero(got.view(bits) != want.view(bits))
assert bad.size == 0, f"{sys.argv[3]}: {bad.size} wrong, first at {bad[0]}: {got.flat[bad[0]]} != {want.flat[bad[0]]}"
PY
    done
  done < cases.txt
done
