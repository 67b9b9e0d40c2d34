# pad and tile (docs/graph-format.md, "Data movement"): the printed graph
# parses back, the evaluator agrees with numpy, a pad and a tile read by a
# map are views in the map's dispatch, and edge padding of a dim that is
# empty when the graph runs is an error in graft eval and in graft-run.
# tests/diff/graphs/pad_tile.graph runs them on every target.
G=$SRC/tests/diff/graphs/pad_tile.graph

"$GRAFT" check "$G" --print > "$T/printed.graph"
"$GRAFT" check "$T/printed.graph" --print > "$T/printed2.graph"
cmp "$T/printed.graph" "$T/printed2.graph"
check "$TEST_DIR/pad_tile.sh" --check-prefix=PRINT < "$T/printed.graph"
# PRINT: %p = pad %x, %v {low = [1, 2], high = [3, 0]} : tensor<?x?xf32>
# PRINT: %p = pad %y {low = [2, 0, 7], high = [0, 9, 3], mode = reflect} : tensor<?x?x?xf64>
# PRINT: %t = tile %y {repeats = [2, 1, 3]} : tensor<?x?x?xf32>

"$PYTHON" "$TEST_DIR/pad_tile_numpy.py" "$GRAFT" "$T" > "$T/out"
check_out NUMPY
# NUMPY: numpy agrees on {{[0-9]+}} cases

cat > "$T/fused.graph" <<'GRAPH'
func @f(%x: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %c = constant 0.5 : f32
  %p = pad %x, %c {low = [1, 0], high = [1, 2]} : tensor<?x?xf32>
  %e = pad %x {low = [1, 1], high = [1, 1], mode = edge} : tensor<?x?xf32>
  %t = tile %x {repeats = [2, 2]} : tensor<?x?xf32>
  %r = map %p, %e, %t : tensor<?x?xf32> {
  ^bb0(%a: f32, %b: f32, %d: f32):
    %0 = add %a, %b : f32
    %1 = sub %0, %d : f32
    yield %1
  }
  return %r
}
GRAPH
"$GRAFT" build "$T/fused.graph" --target "$HOST_TARGET" -o "$T/fused.graft" -v 2> "$T/build"
check "$TEST_DIR/pad_tile.sh" --check-prefix=FUSED < "$T/build"
# FUSED: graft: {{.*}}: 1 dispatch(es)
"$GRAFT_RUN" "$T/fused.graft" --input "2x2xf32=[[1 2][3 4]]" > "$T/out"
check_out FUSEDRUN
# p + e - t, 4x4 each: p = [.5 .5 .5 .5][1 2 .5 .5][3 4 .5 .5][.5 .5 .5 .5],
# e = [1 1 2 2][1 1 2 2][3 3 4 4][3 3 4 4], t = [1 2 1 2][3 4 3 4][1 2 1 2][3 4 3 4]
# FUSEDRUN: 4x4xf32=[0.5 -0.5 1.5 0.5][-1 -1 -0.5 -1.5][5 5 3.5 2.5][0.5 -0.5 1.5 0.5]

expect_fail "$GRAFT" eval "$G" --function edge --input "0x2x3xi32=[]"
check_out EVALEMPTY
# EVALEMPTY: graft eval: error: {{.*}}pad_tile.graph: 'pad' at line 14:8: dimension 0 of the input [0, 2, 3] is empty; edge padding needs an element to copy

"$GRAFT" build "$G" --target "$HOST_TARGET" -o "$T/pt.graft"
expect_fail "$GRAFT_RUN" "$T/pt.graft" --function edge --input "0x2x3xi32=[]"
check_out RUNEMPTY
# RUNEMPTY: graft-run: error: {{.*}}pad_tile.graph:14:8: pad: dim 0 is empty; edge padding needs an element to copy{{.*}}
