# split and call (docs/graph-format.md, "Data movement" and "Calls"): the
# printed graph parses back, split's parts must add up to the input when
# the graph runs (graft eval and graft-run both say so), a call is inlined
# so the callee's map fuses with the caller's, and an error inside a callee
# names the callee. tests/diff/graphs/split_call.graph runs them on every
# target; tests/e2e/pad_tile_numpy.py checks split against numpy.
G=$SRC/tests/diff/graphs/split_call.graph

"$GRAFT" check "$G" --print > "$T/printed.graph"
"$GRAFT" check "$T/printed.graph" --print > "$T/printed2.graph"
cmp "$T/printed.graph" "$T/printed2.graph"
check "$TEST_DIR/split_call.sh" --check-prefix=PRINT < "$T/printed.graph"
# PRINT: %a, %b, %c = split %x {axis = 1, sizes = [5, 0, 7]} : tensor<?x5xf32>, tensor<?x0xf32>, tensor<?x7xf32>
# PRINT: %t = call @twice %x, %x : tensor<?x12xf32>
# PRINT: %a, %b = call @pair %s, %v : tensor<5x4xf32>, tensor<5x4xf32>

cat > "$T/s.graph" <<'GRAPH'
func @f(%x: tensor<?x3xf32>) -> (tensor<1x3xf32>, tensor<?x3xf32>) {
  %a, %b = split %x {axis = 0, sizes = [1, 2]} : tensor<1x3xf32>, tensor<?x3xf32>
  %c = call @double %b : tensor<?x3xf32>
  return %a, %c
}

func @double(%x: tensor<?x3xf32>) -> tensor<?x3xf32> {
  %d = map %x : tensor<?x3xf32> {
  ^bb0(%v: f32):
    %0 = add %v, %v : f32
    yield %0
  }
  %t = call @triple %d : tensor<?x3xf32>
  return %t
}

func @triple(%x: tensor<?x3xf32>) -> tensor<?x3xf32> {
  %c = constant 3.0 : f32
  %m = map %x : tensor<?x3xf32> {
  ^bb0(%v: f32):
    %0 = mul %v, %c : f32
    yield %0
  }
  return %m
}
GRAPH
X="3x3xf32=[[1 2 3][4 5 6][7 8 9]]"
"$GRAFT" eval "$T/s.graph" --function f --input "$X" > "$T/out"
check_out EVAL
# EVAL: 1x3xf32=[1 2 3]
# EVAL-NEXT: 2x3xf32=[24 30 36][42 48 54]

"$GRAFT" build "$T/s.graph" --target "$HOST_TARGET" -o "$T/s.graft"
"$GRAFT_RUN" "$T/s.graft" --function f --input "$X" > "$T/out"
check_out EVAL

# The split's part (a slice, read as a view) and the callee's map: one
# dispatch for @g, one for @double itself.
cat > "$T/one.graph" <<'GRAPH'
func @g(%x: tensor<?x3xf32>) -> tensor<?x3xf32> {
  %a, %b = split %x {axis = 0, sizes = [1, 2]} : tensor<1x3xf32>, tensor<?x3xf32>
  %c = call @double %b : tensor<?x3xf32>
  return %c
}

func @double(%x: tensor<?x3xf32>) -> tensor<?x3xf32> {
  %d = map %x : tensor<?x3xf32> {
  ^bb0(%v: f32):
    %0 = add %v, %v : f32
    yield %0
  }
  return %d
}
GRAPH
"$GRAFT" build "$T/one.graph" --target "$HOST_TARGET" -o "$T/one.graft" -v 2> "$T/build"
check "$TEST_DIR/split_call.sh" --check-prefix=FUSED < "$T/build"
# FUSED: graft: {{.*}}: 2 dispatch(es)

# Parts that do not add up to the input's size when the graph runs.
expect_fail "$GRAFT" eval "$T/s.graph" --function f --input "2x3xf32=[[1 2 3][4 5 6]]"
check_out EVALSIZE
# EVALSIZE: graft eval: error: {{.*}}s.graph: 'split' at line 2:12: the sizes [1, 2] add up to 3, but the input [2, 3] has 2 elements along axis 0
expect_fail "$GRAFT_RUN" "$T/s.graft" --function f --input "2x3xf32=[[1 2 3][4 5 6]]"
check_out RUNSIZE
# RUNSIZE: graft-run: error: {{.*}}s.graph:2:12: slice: result dim 0 does not match the declared size 2{{.*}}

# Calls are inlined before spec matching: the MLP rule matches both calls
# of @mlp in @twice, and the kernels compute what the evaluator does.
C=$TEST_DIR/inputs/mlp_calls.graph
"$GRAFT" build "$C" --spec "$SRC/specs/mlp/mlp.yaml" --target "$HOST_TARGET" -o "$T/calls.graft" \
  --explain > "$T/out" 2>&1
check_out SPEC
# SPEC: @mlp: rule 'mlp_relu' matched at %relu = map ({{.*}}mlp_calls.graph:11:11)
# SPEC: @twice: rule 'mlp_relu' matched at %relu = map ({{.*}}mlp_calls.graph:11:11)
# SPEC: inputs: %lhs = %relu, %rhs = %b, %init = %empty
# SPEC: @twice: rule 'mlp_relu' matched at %relu = map ({{.*}}mlp_calls.graph:11:11)
# SPEC: inputs: %lhs = %a, %rhs = %b, %init = %empty
A=(--function twice --input "2x2xf32=[[2 2][-2 -2]]" --input "2x2xf32=[[3 -3][3 -3]]")
"$GRAFT" eval "$C" "${A[@]}" > "$T/want"
"$GRAFT_RUN" "$T/calls.graft" "${A[@]}" > "$T/got"
cmp "$T/want" "$T/got"
check "$TEST_DIR/split_call.sh" --check-prefix=SPECRUN < "$T/got"
# SPECRUN: 2x2xf32=[36 0][36 0]
