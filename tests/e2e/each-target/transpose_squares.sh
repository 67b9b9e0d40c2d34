# Plain transposes (LoopKernel::transposeBlocks) move 8 x 8 squares
# through registers (lib/codegen/LoopEmitter.cpp, transposeBlocks): on
# $TARGET, every feature level this machine runs (forced with --isa; under
# qemu for the other targets) at 1 and 3 threads, each result equal to
# numpy's transpose byte for byte: 2-, 4- and 8-byte elements (i16, f32,
# i64), sizes that are whole squares
# and tiles, ragged in either dim or both (the rest point by point),
# smaller than a square, several workgroups each way (tiles of 64 x 128),
# and a batch (a 3-D permutation that swaps the last two dims). Every run
# has a guard page after each buffer (graft-run --guard): a read or write
# past a row's end stops it. --explain says which dispatches go in squares
# (not an f16 one: point by point, f16 passes through f32 registers,
# which quiets signaling NaNs, so squares would give other bits).
cat > tr.graph <<'G'
func @t16(%x: tensor<?x?xi16>) -> tensor<?x?xi16> {
  %t = transpose %x {perm = [1, 0]} : tensor<?x?xi16>
  return %t
}
func @th(%x: tensor<?x?xf16>) -> tensor<?x?xf16> {
  %t = transpose %x {perm = [1, 0]} : tensor<?x?xf16>
  return %t
}
func @t32(%x: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %t = transpose %x {perm = [1, 0]} : tensor<?x?xf32>
  return %t
}
func @t64(%x: tensor<?x?xi64>) -> tensor<?x?xi64> {
  %t = transpose %x {perm = [1, 0]} : tensor<?x?xi64>
  return %t
}
func @tb(%x: tensor<?x?x?xf32>) -> tensor<?x?x?xf32> {
  %t = transpose %x {perm = [0, 2, 1]} : tensor<?x?x?xf32>
  return %t
}
G
"$GRAFT" build tr.graph --target "$TARGET" -o tr.graft
"$GRAFT" build tr.graph --target "$TARGET" --levels "${TARGET_LEVELS[$TARGET]%% *}" -o ex.graft --explain > explain.txt
[[ $(grep -c "transposed in 8x8 squares through registers" explain.txt) -eq 4 ]] &&
  not grep -q "th_dispatch.*squares" explain.txt || {
  cat explain.txt >&2
  exit 1
}
"$PYTHON" - <<'PY'
import numpy as np
rng = np.random.default_rng(5)
shapes = {"sq": (64, 128), "rag": (37, 45), "ragr": (131, 72), "ragc": (72, 131),
          "tiny": (7, 9), "one": (1, 19), "big": (300, 200)}
for name, shape in shapes.items():
    np.save(f"x16_{name}.npy", rng.integers(-2**15, 2**15, shape, dtype=np.int16))
    np.save(f"x32_{name}.npy", rng.standard_normal(shape).astype(np.float32))
    np.save(f"x64_{name}.npy", rng.integers(-2**62, 2**62, shape, dtype=np.int64))
np.save("xb.npy", rng.standard_normal((3, 19, 70)).astype(np.float32))
PY
levels_here "$TARGET"
for lm in "${LEVELS_HERE[@]}"; do
  level=${lm%%=*} model=${lm#*=}
  echo "$TARGET $level: ${model:-native}"
  for threads in 1 3; do
    for w in 16 32 64; do
      for s in sq rag ragr ragc tiny one big; do
        run_cpu "$TARGET" "$model" tr.graft --function t$w --isa="$level" --threads $threads --guard \
          --input @x${w}_$s.npy --output @o${w}_${s}_$threads.npy
      done
    done
    run_cpu "$TARGET" "$model" tr.graft --function tb --isa="$level" --threads $threads --guard \
      --input @xb.npy --output @ob_$threads.npy
  done
  "$PYTHON" - "$TARGET $level" <<'PY'
import sys
import numpy as np
where = sys.argv[1]
cases = [(f"o{w}_{s}", f"x{w}_{s}", (1, 0)) for w in (16, 32, 64)
         for s in ("sq", "rag", "ragr", "ragc", "tiny", "one", "big")] + [("ob", "xb", (0, 2, 1))]
for out, inp, perm in cases:
    want = np.ascontiguousarray(np.transpose(np.load(inp + ".npy"), perm))
    for t in (1, 3):
        got = np.load(f"{out}_{t}.npy")
        assert got.dtype == want.dtype and got.shape == want.shape, (where, out, got.dtype, got.shape)
        assert got.tobytes() == want.tobytes(), \
            f"{where}: {out} at {t} threads differs at {np.argwhere(got.view(np.uint8) != want.view(np.uint8))[:3].tolist()}"
PY
done
