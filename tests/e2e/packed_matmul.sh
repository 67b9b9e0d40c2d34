# The packed matmul's ways of taking its operands (lib/dispatch/PackOperands.cpp):
# the rhs packed once per call by a dispatch of its own where three or more
# rows of workgroups read it (two for a transposed rhs), the lhs where
# several columns do (a plain, a batched and a transposed rhs), or each
# packed by its workgroup into its scratch where one workgroup reads it
# (the rhs also where two do); and the shorter microkernels for a
# block's last rows (43 rows: 7 left on x86-64-v4, 1 on v2/v3; 230: 2 and
# 2; 200: 8); one row (1 x 70 x 1000, 1 x 16 x 100, an empty K; a fill,
# a scalar, an epilogue, an f16 result or operands, an accumulator
# operand) sweeps its rhs in place a few rows at a time across the panels
# (packedMatmulRowSweep). On every feature level the host runs, each result is
# bit-identical at 1 and 3 threads and matches the reference evaluator
# (evaluated once per case);
# --trace shows the pack dispatch only where an operand has several
# readers: otherwise it has no workgroups and the executor skips it
# (runtime/src/exec/executor.c, run_steps), untraced.
cat > mm.graph <<'G'
func @mm(%a: tensor<?x?xf32>, %b: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %z = constant 0.0 : f32
  %m = dim %a {axis = 0} : index
  %n = dim %b {axis = 1} : index
  %e = empty %m, %n : tensor<?x?xf32>
  %f = fill %z, %e : tensor<?x?xf32>
  %r = matmul %a, %b, %f : tensor<?x?xf32>
  return %r
}
func @mmc(%a: tensor<?x?xf32>, %b: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %c = constant 1.5 : f32
  %m = dim %a {axis = 0} : index
  %n = dim %b {axis = 1} : index
  %e = empty %m, %n : tensor<?x?xf32>
  %f = fill %c, %e : tensor<?x?xf32>
  %r = matmul %a, %b, %f : tensor<?x?xf32>
  %y = map %r : tensor<?x?xf32> {
  ^bb0(%v: f32):
    %0 = max %v, %c : f32
    yield %0
  }
  return %y
}
func @mms(%a: tensor<?x?xf32>, %b: tensor<?x?xf32>, %s: f32) -> tensor<?x?xf32> {
  %m = dim %a {axis = 0} : index
  %n = dim %b {axis = 1} : index
  %e = empty %m, %n : tensor<?x?xf32>
  %f = fill %s, %e : tensor<?x?xf32>
  %r = matmul %a, %b, %f : tensor<?x?xf32>
  return %r
}
func @mme(%a: tensor<?x?xf32>, %b: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %z = constant 0.0 : f32
  %h = constant 0.5 : f32
  %t = constant 2.0 : f32
  %m = dim %a {axis = 0} : index
  %n = dim %b {axis = 1} : index
  %e = empty %m, %n : tensor<?x?xf32>
  %f = fill %z, %e : tensor<?x?xf32>
  %r = matmul %a, %b, %f : tensor<?x?xf32>
  %y = map %r : tensor<?x?xf32> {
  ^bb0(%v: f32):
    %0 = mul %v, %t : f32
    %1 = sub %0, %h : f32
    %2 = abs %1 : f32
    %3 = sqrt %2 : f32
    %4 = cmp %v, %h {pred = gt} : i1
    %5 = select %4, %3, %1 : f32
    %6 = div %5, %t : f32
    %7 = min %6, %h : f32
    %8 = neg %7 : f32
    yield %8
  }
  return %y
}
func @mmx(%a: tensor<?x?xf32>, %b: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %z = constant 0.0 : f32
  %s = constant 0.25 : f32
  %m = dim %a {axis = 0} : index
  %n = dim %b {axis = 1} : index
  %e = empty %m, %n : tensor<?x?xf32>
  %f = fill %z, %e : tensor<?x?xf32>
  %r = matmul %a, %b, %f : tensor<?x?xf32>
  %y = map %r : tensor<?x?xf32> {
  ^bb0(%v: f32):
    %0 = mul %v, %s : f32
    %1 = exp %0 : f32
    yield %1
  }
  return %y
}
func @mmf16(%a: tensor<?x?xf16>, %b: tensor<?x?xf16>) -> tensor<?x?xf32> {
  %z = constant 0.0 : f32
  %m = dim %a {axis = 0} : index
  %n = dim %b {axis = 1} : index
  %e = empty %m, %n : tensor<?x?xf32>
  %f = fill %z, %e : tensor<?x?xf32>
  %r = matmul %a, %b, %f : tensor<?x?xf32>
  return %r
}
func @mmh(%a: tensor<?x?xf32>, %b: tensor<?x?xf32>) -> tensor<?x?xf16> {
  %z = constant 0.0 : f32
  %m = dim %a {axis = 0} : index
  %n = dim %b {axis = 1} : index
  %e = empty %m, %n : tensor<?x?xf32>
  %f = fill %z, %e : tensor<?x?xf32>
  %r = matmul %a, %b, %f : tensor<?x?xf32>
  %y = map %r : tensor<?x?xf16> {
  ^bb0(%v: f32):
    %0 = cast %v : f16
    yield %0
  }
  return %y
}
func @bmm(%a: tensor<?x?x?xf32>, %b: tensor<?x?x?xf32>, %c: tensor<?x?x?xf32>) -> tensor<?x?x?xf32> {
  %r = batch_matmul %a, %b, %c : tensor<?x?x?xf32>
  return %r
}
func @qkh(%q: tensor<?x?xf16>, %k: tensor<?x?xf16>) -> tensor<?x?xf32> {
  %z = constant 0.0 : f32
  %kt = transpose %k {perm = [1, 0]} : tensor<?x?xf16>
  %m = dim %q {axis = 0} : index
  %n = dim %k {axis = 0} : index
  %e = empty %m, %n : tensor<?x?xf32>
  %f = fill %z, %e : tensor<?x?xf32>
  %r = matmul %q, %kt, %f : tensor<?x?xf32>
  return %r
}
func @qkt(%q: tensor<?x?xf32>, %k: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %z = constant 0.0 : f32
  %kt = transpose %k {perm = [1, 0]} : tensor<?x?xf32>
  %m = dim %q {axis = 0} : index
  %n = dim %k {axis = 0} : index
  %e = empty %m, %n : tensor<?x?xf32>
  %f = fill %z, %e : tensor<?x?xf32>
  %r = matmul %q, %kt, %f : tensor<?x?xf32>
  return %r
}
G
"$GRAFT" build mm.graph -o mm.graft
# mme's and mmx's epilogues have vector forms that give each lane's
# scalar bits: their microkernels (the whole tile and the packing one) are
# made for them, named by their ops; mmh's cast to an f16 output has not:
# no microkernel applies it.
"$GRAFT" build mm.graph --emit llvm --emit-dir emit -o /dev/null
for kind in tile tilepack; do
  grep -q "^define internal [a-z ]*void @graft_matmul_${kind}_a_.*_sqrt\.5_.*_neg\.13_" emit/mm.*.ll ||
    { echo "error: no $kind microkernel applies mme's epilogue"; exit 1; }
  grep -q "^define internal [a-z ]*void @graft_matmul_${kind}_a_.*_exp\.[0-9]*_" emit/mm.*.ll ||
    { echo "error: no $kind microkernel applies mmx's exp"; exit 1; }
done
if grep -q "^define internal [a-z ]*void @graft_matmul_tile[a-z]*_a_.*cast" emit/mm.*.ll; then
  echo "error: a microkernel applies mmh's cast"; exit 1
fi
# Ragged everywhere: M, N and K are not multiples of any tile or block, K
# spans several K blocks (600 on x86-64-v2 and where x86-64-v3 and v4
# pack their rhs in the workgroup; 1500 everywhere: where its rhs is
# packed before the call, x86-64-v3's K block is 680, v4's 1360,
# Tiling.cpp). 43 rows are one row of workgroups on every level
# (the smallest lhs block is 48 rows), in several columns (the lhs packed
# before, the rhs by each workgroup) up to 1500 columns, one at 20
# columns (nothing packed before); a workgroup that packs its own rhs
# packs each whole panel in that panel's first tile (the packing
# microkernel) where it has a whole tile of rows (43), and reads the
# whole panels in place where it does not (5 rows, fewer than mr on every
# level; its ragged panel is packed before its tiles); 230 rows
# are several rows and columns
# (both packed before), and so are the batched matmul with 200 columns and
# the transposed rhs. Two rows of workgroups pack their rhs each (144 rows
# on x86-64-v4, 72 on v2/v3: two lhs blocks; the batched matmul's 130 on
# v4, q2's transposed rhs); 144 rows and 1000 columns (32 panels or more
# on every level) are one row of workgroups covering all of M, batched or
# not, and so are 0 rows (PackedGrid.cpp). A transposed rhs is packed in
# transposes of the level's lanes (16 x 16 on x86-64-v4, 8 x 8 on v3),
# then 4 x 4, then one column at a time: K = 530 has all three in its K
# blocks, packed by the workgroup (5 rows) or before the call (200), f32
# or f16 (widened as it is packed). Where a block has no more rows than
# the tallest tail (8 on x86-64-v4, 4 on v3: 5 rows on v4, 3 on both) and
# a K block is a multiple of the lanes (64; 530's first K block on v3), the
# tail reads the transposed rhs in place, transposing in registers
# (tailt); 10 rows, or K blocks of 184 and 162, pack it first. A fill of a constant (with an epilogue) or of a
# scalar argument starts the first K block's accumulators from that value
# (the sums' block is not written before; LoopEmitter.cpp packedMatmul),
# and an empty K (a0, b0) leaves the fill. The last K block's whole tiles
# apply an epilogue of f32 ops in registers and store the outputs
# (mm's none, mmc's max, mme's chain, mmx's exp; TileEpilogue.h): the
# ragged last panel (150, 1500 and 20 columns) and a partial last tile of
# rows (43, 230) go through the sums block and the scalar pass, as does
# every output where K is empty or the epilogue has no vector form (mmh's
# cast to an f16 output).
"$PYTHON" - <<'PY'
import numpy as np
rng = np.random.default_rng(12)
def save(name, *shape):
    np.save(name, rng.uniform(-1, 1, shape).astype(np.float32))
save("a1.npy", 43, 600); save("b1.npy", 600, 150)
save("a2.npy", 230, 600); save("b2.npy", 600, 150)
save("a5.npy", 5, 600); save("a3.npy", 43, 600); save("b3.npy", 600, 1500); save("b4.npy", 600, 20)
save("ba.npy", 3, 130, 300); save("bb.npy", 3, 300, 50); save("bc.npy", 3, 130, 50)
save("bb2.npy", 3, 300, 200); save("bc2.npy", 3, 130, 200)
save("q.npy", 200, 520); save("k.npy", 150, 520)
save("a0.npy", 43, 0); save("b0.npy", 0, 150)
save("a6.npy", 43, 1500); save("a7.npy", 230, 1500); save("b6.npy", 1500, 150)
save("a8.npy", 144, 600); save("a9.npy", 72, 600); save("q2.npy", 144, 520)
save("a10.npy", 144, 100); save("b10.npy", 100, 1000); save("a11.npy", 0, 100)
save("b13.npy", 100, 800)
save("v1.npy", 1, 70); save("w1.npy", 70, 1000); save("v2.npy", 1, 16); save("w2.npy", 16, 100)
save("v0.npy", 1, 0); save("w0.npy", 0, 1000)
save("bv.npy", 3, 1, 70); save("bw.npy", 3, 70, 1000); save("bz.npy", 3, 1, 1000)
for name in ("v1", "w1"):
    np.save("h" + name + ".npy", np.load(name + ".npy").astype(np.float16))
save("q3.npy", 5, 530); save("q4.npy", 200, 530); save("k3.npy", 150, 530)
save("q5.npy", 5, 64); save("q6.npy", 10, 64); save("q7.npy", 3, 64); save("k5.npy", 150, 64)
for name in ("q3", "q4", "k3", "q5", "k5"):
    np.save("h" + name + ".npy", np.load(name + ".npy").astype(np.float16))
save("ba3.npy", 3, 130, 100); save("bb3.npy", 3, 100, 1000); save("bc3.npy", 3, 130, 1000)
save("a12.npy", 43, 40); save("b12.npy", 40, 20)
PY
cases=("mm a1.npy b1.npy" "mm a2.npy b2.npy" "mm a3.npy b3.npy" "mm a1.npy b4.npy"
       "mm a5.npy b1.npy"
       "bmm ba.npy bb.npy bc.npy" "bmm ba.npy bb2.npy bc2.npy" "qkt q.npy k.npy"
       "mmc a1.npy b3.npy" "mmc a2.npy b2.npy" "mms a3.npy b4.npy f32=-2.5"
       "mms a2.npy b2.npy f32=0.75" "mms a0.npy b0.npy f32=-2.5" "mmc a0.npy b0.npy"
       "mme a1.npy b3.npy" "mme a2.npy b2.npy" "mme a5.npy b1.npy" "mme a0.npy b0.npy"
       "mmx a2.npy b2.npy" "mmx a1.npy b4.npy"
       "mmh a1.npy b3.npy" "mmh a2.npy b2.npy" "mmh a5.npy b1.npy"
       "mm a6.npy b6.npy" "mme a7.npy b6.npy" "mms a6.npy b6.npy f32=0.75"
       "mmx a7.npy b6.npy"
       "mm a8.npy b1.npy" "mme a8.npy b1.npy" "mm a9.npy b1.npy" "mms a9.npy b1.npy f32=0.75"
       "qkt q2.npy k.npy" "mm a10.npy b10.npy" "mme a10.npy b10.npy"
       "bmm ba3.npy bb3.npy bc3.npy" "mm a11.npy b10.npy"
       "qkt q3.npy k3.npy" "qkt q4.npy k3.npy" "qkh hq3.npy hk3.npy" "qkh hq4.npy hk3.npy"
       "qkt q5.npy k5.npy" "qkt q6.npy k5.npy" "qkt q7.npy k5.npy" "qkh hq5.npy hk5.npy"
       "mm v1.npy w1.npy" "mmc v1.npy w1.npy" "mms v1.npy w1.npy f32=0.75" "mme v1.npy w1.npy"
       "mmx v1.npy w1.npy" "mmh v1.npy w1.npy" "bmm bv.npy bw.npy bz.npy" "mmf16 hv1.npy hw1.npy"
       "mm v2.npy w2.npy" "mm v0.npy w0.npy")
# Each case's function and inputs as graft-run arguments, and its
# reference result (ref<i>.npy: the evaluator's, the same for every level).
case_args() {
  local in
  args=(--function "${1%% *}")
  for in in ${1#* }; do
    if [[ $in == *=* ]]; then args+=(--input "$in"); else args+=(--input "@$in"); fi
  done
}
for i in "${!cases[@]}"; do
  case_args "${cases[$i]}"
  "$GRAFT" eval mm.graph "${args[@]}" --output @ref$i.npy
done
ran=0
for level in ${TARGET_LEVELS[$HOST_TARGET]}; do
  host_runs_level "$HOST_TARGET" "$level" || continue
  ran=$((ran + 1))
  for i in "${!cases[@]}"; do
    c=${cases[$i]}
    case_args "$c"
    for threads in 1 3; do
      "$GRAFT_RUN" mm.graft --isa "$level" --threads "$threads" "${args[@]}" --output @out$threads.npy
    done
    cmp out1.npy out3.npy || { echo "error: $level $c: 1 and 3 threads differ"; exit 1; }
    cp out1.npy "lv_${level}_$i.npy"
    "$PYTHON" - "$level $c" ref$i.npy <<'PY'
import sys
import numpy as np
got, ref = np.load("out1.npy"), np.load(sys.argv[2])
assert got.shape == ref.shape, (got.shape, ref.shape)
err = np.abs(got.astype(np.float64) - ref)
if got.dtype == np.float16:
    # One f16 rounding of f32 sums that may differ from the evaluator's in
    # their last bits: an f16 ulp, and those bits near zero.
    bound = np.abs(ref) * 2.0**-10 + 1e-4 * (np.abs(ref).max(initial=0) + 1)
    assert (err <= bound).all(), f"{sys.argv[1]}: max error {err.max()}"
else:
    assert err.max(initial=0) <= 1e-4 * (np.abs(ref).max(initial=0) + 1), f"{sys.argv[1]}: max error {err.max()}"
PY
  done
done
[[ $ran -gt 0 ]] || { echo "error: no feature level of $HOST_TARGET runs here"; exit 1; }
# x86-64-v3's and v4's tiles store the outputs and apply the exact
# epilogues themselves, from tiles of different widths over K blocks of
# different lengths (the rows and columns they leave go through the sums
# and the scalar pass): both fuse the multiply-adds in the same k order,
# so every case gives the same bytes (the evaluator comparison above
# allows rounding; this does not).
levels_agree x86-64-v3 x86-64-v4 "${cases[@]}"

# Workgroups of the pack dispatch (the K blocks along x, a group of
# panels each along y): none for one workgroup (43 x 40 x 20, so it is
# not run, nor traced), the lhs's for one row of workgroups in several columns (43 rows:
# one per lhs panel, 4 of 12 rows on x86-64-v4, 8 of 6 on v2/v3), both for
# several rows.
"$GRAFT_RUN" mm.graft --function mm --input @a12.npy --input @b12.npy --trace > /dev/null 2> none.txt
"$GRAFT_RUN" mm.graft --function mm --input @a1.npy --input @b1.npy --trace > /dev/null 2> one.txt
"$GRAFT_RUN" mm.graft --function mm --input @a2.npy --input @b2.npy --trace > /dev/null 2> rows.txt
check "$TEST_DIR/packed_matmul.sh" --check-prefix=ZERO < none.txt
# ZERO-NOT: _pack
# ZERO: [trace] mm: mm_dispatch_0_matmul (mm.graph:{{[0-9:]+}}) grid 1x1x1
# ZERO-NOT: [trace] mm:
check "$TEST_DIR/packed_matmul.sh" --check-prefix=ONE < one.txt
# ONE: mm_dispatch_0_matmul_pack (mm.graph:{{[0-9:]+}}) grid {{[1-9]}}x{{(4|8)}}x1
# ONE-NEXT: mm_dispatch_0_matmul (mm.graph:{{[0-9:]+}}) grid {{([2-9]|[1-9][0-9])}}x1x1
check "$TEST_DIR/packed_matmul.sh" --check-prefix=ROWS < rows.txt
# ROWS: mm_dispatch_0_matmul_pack (mm.graph:{{[0-9:]+}}) grid {{[1-9]}}x{{([2-9]|[1-9][0-9])}}x1
# ROWS-NEXT: mm_dispatch_0_matmul (mm.graph:{{[0-9:]+}}) grid {{([2-9]|[1-9][0-9])}}x{{[2-9]}}x1
# Where the rhs is packed, on each level the host runs (its tile from
# --explain), M of one and a half and of two and a half lhs blocks: with
# 32 nr-column panels or more all of M is one row of workgroups, and so
# with 24 or more where M has 3 blocks (800 columns on x86-64-v4);
# otherwise a row per block. Two rows pack their own rhs, so the pack
# dispatch has only the lhs's ceil(M / mr) row groups along y; three have
# the rhs packed there too (ceil(N / 32) column groups first). Each result
# against the evaluator's.
"$GRAFT" build mm.graph --explain -o /dev/null > explain.txt 2>&1
checked=0
for level in ${TARGET_LEVELS[$HOST_TARGET]}; do
  host_runs_level "$HOST_TARGET" "$level" || continue
  tile=$(sed -n "/^$level /,/^[^ ]/p" explain.txt |
         grep -m1 -oE 'register tile [0-9]+x[0-9]+, block up to [0-9]+x[0-9]+, lhs block [0-9]+') ||
    { echo "error: --explain gives no packed matmul tile for $level"; exit 1; }
  read -r mr nr mc <<< "$(sed -E 's/register tile ([0-9]+)x([0-9]+),.*lhs block ([0-9]+)/\1 \2 \3/' <<< "$tile")"
  for shape in "600 b1.npy 150 3" "100 b10.npy 1000 3" "100 b13.npy 800 3" "600 b1.npy 150 5" "100 b13.npy 800 5"; do
    read -r k rhs n halves <<< "$shape"
    m=$((mc * halves / 2)) blocks=$(((halves + 1) / 2)) panels=$(((n + nr - 1) / nr))
    rows=$blocks
    if ((panels >= 32 || (panels >= 24 && blocks >= 3))); then rows=1; fi
    groups=$(((m + mr - 1) / mr))
    if ((rows >= 3)); then groups=$((groups + (n + 31) / 32)); fi
    "$PYTHON" -c "import numpy as np; np.save('lhs.npy', np.random.default_rng($k).uniform(-1, 1, ($m, $k)).astype(np.float32))"
    "$GRAFT_RUN" mm.graft --isa "$level" --function mm --input @lhs.npy --input "@$rhs" \
      --output @got.npy --trace > /dev/null 2> trace.txt
    "$GRAFT" eval mm.graph --function mm --input @lhs.npy --input "@$rhs" --output @want.npy
    grep -q "_matmul_pack (mm.graph:[0-9:]*) grid [0-9]*x${groups}x1 " trace.txt &&
      grep -q "_matmul (mm.graph:[0-9:]*) grid [0-9]*x${rows}x1 " trace.txt ||
      { echo "error: $level, $m x $k x $n ($panels panels): want $groups row and column groups packed before and $rows row(s) of workgroups:"; cat trace.txt; exit 1; }
    "$PYTHON" -c "
import numpy as np, sys
got, want = np.load('got.npy'), np.load('want.npy')
err = np.abs(got.astype(np.float64) - want).max()
assert err <= 1e-4 * (np.abs(want).max() + 1), ('$level $m x $k x $n', err)"
    checked=$((checked + 1))
  done
done
[[ $checked -gt 0 ]] || { echo "error: no feature level of $HOST_TARGET runs here"; exit 1; }
