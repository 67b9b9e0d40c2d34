# `graft eval` runs the reference evaluator: the seed MLP from the README,
# a non-square case, .npy output, and input errors.
"$GRAFT" eval "$TEST_DIR/inputs/mlp.graph" --function mlp \
  --input "2x2xf32=[[2 2][-2 -2]]" --input "2x2xf32=[[3 -3][3 -3]]" > "$T/out"
check_out MLP
# MLP: 2x2xf32=[-12 0][0 -12]

"$GRAFT" eval "$TEST_DIR/inputs/mlp.graph" \
  --input "1x3xf32=[[1 2 3]]" --input "3x2xf32=[[1 -1][1 -1][1 1]]" > "$T/out"
check_out RECT
# RECT: 1x2xf32=[-6 0]

"$GRAFT" eval "$TEST_DIR/inputs/mlp.graph" --function mlp \
  --input "2x2xf32=[[2 2][-2 -2]]" --input "2x2xf32=[[3 -3][3 -3]]" --output=@"$T/r.npy"
"$GRAFT" eval "$TEST_DIR/inputs/mlp.graph" --function mlp \
  --input "2x2xf32=[[2 2][-2 -2]]" --input "@$T/r.npy" > "$T/out"
check_out NPY
# (2 2; -2 -2) x (-12 0; 0 -12) = (-24 -24; 24 24) -> relu, neg
# NPY: 2x2xf32=[0 0][-24 -24]

expect_fail "$GRAFT" eval "$TEST_DIR/inputs/mlp.graph" --function mlp \
  --input "2x2xf32=[[1 2][3 4]]" --input "3x1xf32=[[1][2][3]]"
check_out SHAPE
# SHAPE: graft eval: error: {{.*}}mlp.graph: 'matmul' at line 10:9: inner dimensions differ: lhs has K = 2, rhs has K = 3

expect_fail "$GRAFT" eval "$TEST_DIR/inputs/mlp.graph" --function nope --input "f32=1"
check_out NOFN
# NOFN: graft eval: error: no function '@nope' in {{.*}}mlp.graph (it defines @mlp)

# The same with the sigil written: the message does not double it.
expect_fail "$GRAFT" eval "$TEST_DIR/inputs/mlp.graph" --function @nope --input "f32=1"
check_out NOFNAT
# NOFNAT: graft eval: error: no function '@nope' in {{.*}}mlp.graph (it defines @mlp)

expect_fail "$GRAFT" eval "$TEST_DIR/inputs/mlp.graph" --input "2x2xi32=[[1 2][3 4]]" --input "2x2xf32=1"
check_out DTYPE
# DTYPE: argument 1 (%lhs) has element type i32, expected f32
