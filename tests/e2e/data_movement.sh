# gather and slice (docs/graph-format.md, "Data movement"): the printed
# graph parses back, the evaluator agrees with numpy, bundles agree with
# the evaluator, a gather read by a map is fused into the map's dispatch,
# and an out-of-range index is an error in graft eval and in graft-run
# (never a read outside the tensor). tests/diff/graphs/{gather,slice}.graph
# run them on every target.
G=$TEST_DIR/inputs/data_movement.graph

"$GRAFT" check "$G" --print > "$T/printed.graph"
"$GRAFT" check "$T/printed.graph" --print > "$T/printed2.graph"
cmp "$T/printed.graph" "$T/printed2.graph"
check "$TEST_DIR/data_movement.sh" --check-prefix=PRINT < "$T/printed.graph"
# PRINT: %g = gather %x, %i {axis = 1} : tensor<?x?x?x?xf32>
# PRINT: %s = slice %x {starts = [-2, 1, 7], ends = [-9223372036854775808, 9223372036854775807, -8], steps = [-1, 2, -3]} : tensor<?x?x?xf32>

"$PYTHON" "$TEST_DIR/data_movement_numpy.py" "$GRAFT" "$G" "$T" > "$T/out"
check_out NUMPY
# NUMPY: numpy agrees on {{[0-9]+}} cases

"$GRAFT" build "$G" --target "$HOST_TARGET" -o "$T/dm.graft"
# A gather and a slice read by maps are views the maps read through: one
# dispatch for the whole function.
cat > "$T/fused.graph" <<'GRAPH'
func @f(%x: tensor<?x?xf32>, %i: tensor<?xi32>) -> tensor<?x?xf32> {
  %g = gather %x, %i {axis = 1} : tensor<?x?xf32>
  %s = slice %x {starts = [-1, -1], ends = [-9223372036854775808, -9223372036854775808], steps = [-1, -1]} : tensor<?x?xf32>
  %r = map %g, %s : tensor<?x?xf32> {
  ^bb0(%a: f32, %c: f32):
    %0 = sub %a, %c : f32
    yield %0
  }
  return %r
}
GRAPH
"$GRAFT" build "$T/fused.graph" --target "$HOST_TARGET" -o "$T/fused.graft" -v 2> "$T/build"
check "$TEST_DIR/data_movement.sh" --check-prefix=FUSED < "$T/build"
# FUSED: graft: {{.*}}: 1 dispatch(es)
"$GRAFT_RUN" "$T/fused.graft" --input "2x3xf32=[[1 2 3][4 5 6]]" --input "3xi32=[2 -3 0]" > "$T/out"
check_out FUSEDRUN
# gather: [3 1 1][6 4 4]; x reversed: [6 5 4][3 2 1]
# FUSEDRUN: 2x3xf32=[-3 -4 -3][3 2 3]

X="2x3xf32=[[1 2 3][4 5 6]]"
"$GRAFT_RUN" "$T/dm.graft" --function gather_map --input "$X" --input "3xi32=[1 -2 -1]" > "$T/out"
check_out RESULT
# RESULT: 3x3xf32=[8 10 12][2 4 6][8 10 12]

expect_fail "$GRAFT" eval "$G" --function gather_map --input "$X" --input "2xi32=[0 2]"
check_out EVALRANGE
# EVALRANGE: graft eval: error: {{.*}}data_movement.graph: 'gather' at line 14:8: index 2 is out of range for axis 0 of size 2

expect_fail "$GRAFT_RUN" "$T/dm.graft" --function gather_map --input "$X" --input "2xi32=[-3 0]"
check_out RUNRANGE
# The gather is read by the map's dispatch, which names the map.
# RUNRANGE: graft-run: error: dispatch 'gather_map_dispatch_{{[0-9]+}}_map' (data_movement.graph:15:8): in workgroup (0,0,0) an index read from a tensor is out of range for the dim it indexes (gather)
