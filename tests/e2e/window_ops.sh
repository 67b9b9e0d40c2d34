# conv and pool (docs/graph-format.md, "Windows"): the printed graph parses
# back, the evaluator agrees with numpy on random windows, and a bundle
# agrees with the evaluator (a conv becomes a matmul over im2col columns,
# a pool a map over window slices). tests/diff/graphs/{conv,pool}.graph run
# them on every target.
cat > "$T/w.graph" <<'GRAPH'
func @f(%x: tensor<?x4x?x?xf32>, %w: tensor<6x2x3x2xf32>) -> tensor<?x6x?x?xf32> {
  %y = conv %x, %w {strides = [2, 1], pads = [1, 0, 1, 1], dilations = [1, 2], group = 2} : tensor<?x6x?x?xf32>
  %p = pool %y {kind = avg, window = [2, 2], pads = [1, 1, 0, 0]} : tensor<?x6x?x?xf32>
  return %p
}
GRAPH
"$GRAFT" check "$T/w.graph" --print > "$T/printed.graph"
"$GRAFT" check "$T/printed.graph" --print > "$T/printed2.graph"
cmp "$T/printed.graph" "$T/printed2.graph"
check "$TEST_DIR/window_ops.sh" --check-prefix=PRINT < "$T/printed.graph"
# PRINT: %y = conv %x, %w {strides = [2, 1], pads = [1, 0, 1, 1], dilations = [1, 2], group = 2} : tensor<?x6x?x?xf32>
# PRINT: %p = pool %y {kind = avg, window = [2, 2], pads = [1, 1, 0, 0]} : tensor<?x6x?x?xf32>

"$PYTHON" "$TEST_DIR/window_ops_numpy.py" "$GRAFT" "$T" > "$T/out"
check_out NUMPY
# NUMPY: numpy agrees on 50 cases

"$PYTHON" - "$T" <<'PY'
import numpy as np, sys
rng = np.random.default_rng(7)
np.save(sys.argv[1] + "/x.npy", rng.standard_normal((2, 4, 7, 6)).astype(np.float32))
np.save(sys.argv[1] + "/w.npy", rng.standard_normal((6, 2, 3, 2)).astype(np.float32))
PY
"$GRAFT" build "$T/w.graph" --target "$HOST_TARGET" -o "$T/w.graft"
"$GRAFT" eval "$T/w.graph" --input "@$T/x.npy" --input "@$T/w.npy" --output "@$T/want.npy"
"$GRAFT_RUN" "$T/w.graft" --input "@$T/x.npy" --input "@$T/w.npy" --output "@$T/got.npy"
"$PYTHON" -c "
import numpy as np, sys
got, want = np.load('$T/got.npy'), np.load('$T/want.npy')
assert got.shape == want.shape == (2, 6, 4, 5), (got.shape, want.shape)
assert np.allclose(got, want, rtol=1e-5, atol=1e-5), abs(got - want).max()
print('bundle agrees')" > "$T/out"
check_out BUNDLE
# BUNDLE: bundle agrees

# A conv's columns are per image, [N, C * K, P], so a batch matmul over the
# images gives [N, F, O...] as it lies in memory: nothing is transposed
# before or after it, and the weights, one [F, C * K] for every image, are
# read by it as they are (no broadcast written out). A 1x1 conv with stride 1 and no padding reads its
# input as its columns (no copy); a 3x3 conv's columns are one dispatch
# after the pad (its window slices are views the concat reads, one operand
# a row), whose rows of 7 elements share workgroups (one row of workgroups
# per image and channel in the pad, one per image, channel and window
# position in the columns). A 3x3 conv whose rows are known when building
# and long enough (40: 42 padded) has no columns: the pad (one more row),
# one batch matmul reading runs of the padded rows, and a slice dropping
# the points past each output row. A depthwise conv (a filter per channel), and
# a grouped one of 4 filters per group, is one map over the window's
# slices of each channel of a group and their weights after the pad: no
# columns, no matmul. All agree with the evaluator.
cat > "$T/c.graph" <<'GRAPH'
func @c1(%x: tensor<?x16x?x?xf32>, %w: tensor<8x16x1x1xf32>) -> tensor<?x8x?x?xf32> {
  %y = conv %x, %w : tensor<?x8x?x?xf32>
  return %y
}
func @c3(%x: tensor<?x16x?x?xf32>, %w: tensor<8x16x3x3xf32>) -> tensor<?x8x?x?xf32> {
  %y = conv %x, %w {pads = [1, 1, 1, 1]} : tensor<?x8x?x?xf32>
  return %y
}
func @cd(%x: tensor<?x16x?x?xf32>, %w: tensor<16x1x3x3xf32>) -> tensor<?x16x?x?xf32> {
  %y = conv %x, %w {pads = [1, 1, 1, 1], group = 16} : tensor<?x16x?x?xf32>
  return %y
}
func @cg(%x: tensor<?x16x?x?xf32>, %w: tensor<16x4x3x3xf32>) -> tensor<?x16x?x?xf32> {
  %y = conv %x, %w {pads = [1, 1, 1, 1], group = 4} : tensor<?x16x?x?xf32>
  return %y
}
func @cr(%x: tensor<?x16x?x40xf32>, %w: tensor<8x16x3x3xf32>) -> tensor<?x8x?x40xf32> {
  %y = conv %x, %w {pads = [1, 1, 1, 1]} : tensor<?x8x?x40xf32>
  return %y
}
GRAPH
"$PYTHON" - "$T" <<'PY'
import numpy as np, sys
rng = np.random.default_rng(1)
np.save(sys.argv[1] + "/cx.npy", rng.standard_normal((2, 16, 9, 7)).astype(np.float32))
np.save(sys.argv[1] + "/w1.npy", rng.standard_normal((8, 16, 1, 1)).astype(np.float32))
np.save(sys.argv[1] + "/w3.npy", rng.standard_normal((8, 16, 3, 3)).astype(np.float32))
np.save(sys.argv[1] + "/wd.npy", rng.standard_normal((16, 1, 3, 3)).astype(np.float32))
np.save(sys.argv[1] + "/wg.npy", rng.standard_normal((16, 4, 3, 3)).astype(np.float32))
np.save(sys.argv[1] + "/wr.npy", rng.standard_normal((8, 16, 3, 3)).astype(np.float32))
np.save(sys.argv[1] + "/rx.npy", rng.standard_normal((2, 16, 9, 40)).astype(np.float32))
PY
"$GRAFT" build "$T/c.graph" --target "$HOST_TARGET" -o "$T/c.graft"
for f in c1 c3 cd cg cr; do
  w=w${f#c}
  x=cx
  [ $f = cr ] && x=rx
  "$GRAFT" eval "$T/c.graph" --function $f --input "@$T/$x.npy" --input "@$T/$w.npy" --output "@$T/want.npy"
  "$GRAFT_RUN" "$T/c.graft" --function $f --input "@$T/$x.npy" --input "@$T/$w.npy" \
    --output "@$T/got.npy" --expected_output "@$T/want.npy" --tolerance 1e-5 --trace 2>> "$T/trace"
done
check "$TEST_DIR/window_ops.sh" --check-prefix=TRACE < "$T/trace"
# TRACE-NOT: {{transpose|broadcast}}
# TRACE: c1: c1_dispatch_{{[0-9]+}}_batch_matmul ({{.*}}) grid 1x1x2
# TRACE-NOT: {{transpose|broadcast}}
# TRACE: c3: c3_dispatch_{{[0-9]+}}_pad ({{.*}}) grid 1x1x32
# TRACE-NEXT: c3: c3_dispatch_{{[0-9]+}}_concat ({{.*}}) grid 1x1x288
# TRACE-NEXT: c3: c3_dispatch_{{[0-9]+}}_batch_matmul
# TRACE-NOT: {{transpose|broadcast}}
# TRACE: cd: cd_dispatch_{{[0-9]+}}_pad ({{.*}}) grid 1x1x32
# TRACE-NEXT: cd: cd_dispatch_{{[0-9]+}}_map
# TRACE-NOT: cd_dispatch
# TRACE: cg: cg_dispatch_{{[0-9]+}}_pad ({{.*}}) grid 1x1x32
# TRACE-NEXT: cg: cg_dispatch_{{[0-9]+}}_map
# TRACE-NOT: cg_dispatch
# TRACE: cr: cr_dispatch_{{[0-9]+}}_pad
# TRACE-NEXT: cr: cr_dispatch_{{[0-9]+}}_batch_matmul_pack
# TRACE-NEXT: cr: cr_dispatch_{{[0-9]+}}_batch_matmul
# TRACE-NEXT: cr: cr_dispatch_{{[0-9]+}}_slice
# TRACE-NOT: cr_dispatch

# A concat of runs of one tensor read as a batch matmul's rhs is read as
# rows only where the reshape between them keeps the batch: one that
# regroups it (2N batches of 8 x 3 from N of 4 x 2 x 6) is written out,
# and the result agrees with the evaluator.
cat > "$T/rr.graph" <<'GRAPH'
func @rr(%x: tensor<?x4x1x8xf32>, %a: tensor<?x5x8xf32>) -> tensor<?x5x3xf32> {
  %s0 = slice %x {starts = [0, 0, 0, 0], ends = [9223372036854775807, 9223372036854775807, 9223372036854775807, 6]} : tensor<?x4x1x6xf32>
  %s1 = slice %x {starts = [0, 0, 0, 2], ends = [9223372036854775807, 9223372036854775807, 9223372036854775807, 8]} : tensor<?x4x1x6xf32>
  %c = concat %s0, %s1 {axis = 2} : tensor<?x4x2x6xf32>
  %b = dim %x {axis = 0} : index
  %two = constant 2 : index
  %n = mul %b, %two : index
  %r = reshape %c, %n : tensor<?x8x3xf32>
  %z = constant 0.0 : f32
  %e = empty %n : tensor<?x5x3xf32>
  %f = fill %z, %e : tensor<?x5x3xf32>
  %m = batch_matmul %a, %r, %f : tensor<?x5x3xf32>
  return %m
}
GRAPH
"$PYTHON" - "$T" <<'PY'
import numpy as np, sys
rng = np.random.default_rng(2)
np.save(sys.argv[1] + "/rrx.npy", rng.standard_normal((2, 4, 1, 8)).astype(np.float32))
np.save(sys.argv[1] + "/rra.npy", rng.standard_normal((4, 5, 8)).astype(np.float32))
PY
"$GRAFT" build "$T/rr.graph" --target "$HOST_TARGET" -o "$T/rr.graft"
"$GRAFT" eval "$T/rr.graph" --input "@$T/rrx.npy" --input "@$T/rra.npy" --output "@$T/want.npy"
"$GRAFT_RUN" "$T/rr.graft" --input "@$T/rrx.npy" --input "@$T/rra.npy" --output "@$T/got.npy" \
  --expected_output "@$T/want.npy" --tolerance 1e-5 --trace 2> "$T/rrtrace"
check "$TEST_DIR/window_ops.sh" --check-prefix=REGROUP < "$T/rrtrace"
# REGROUP: rr: rr_dispatch_{{[0-9]+}}_concat
# REGROUP-NEXT: rr: rr_dispatch_{{[0-9]+}}_batch_matmul
