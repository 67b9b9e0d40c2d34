# Constant folding at import (lib/onnx/ConstantFold.cpp): shape arithmetic
# on a known shape (Shape, Slice with an empty result, Mul, Concat) and a
# Cast of a constant resolve when building, so the Reshape gets its static
# shape and no integer tensor is left in the graph.

"$GRAFT" import "$ONNX_MODELS/shape_arith.onnx" > "$T/out"
check_out FOLD
# FOLD: func @shape_arith(%x: tensor<2x3x4xf32>) -> tensor<2x12xf32> {
# FOLD-NEXT: %flat = reshape %x : tensor<2x12xf32>
# FOLD-NOT: i64
# FOLD-NOT: f64
# FOLD: %y = map %flat : tensor<2x12xf32> {
# FOLD: add %x0, %cst : f32
# FOLD-NOT: i64
# FOLD: return %y

"$GRAFT" build "$ONNX_MODELS/shape_arith.onnx" -o fold.graft
"$GRAFT_RUN" fold.graft --input "2x3x4xf32=[[[0 1 2 3][4 5 6 7][8 9 10 11]][[12 13 14 15][16 17 18 19][20 21 22 23]]]" > "$T/out"
check_out OUT
# OUT: 2x12xf32=[0.5 1.5 2.5 3.5 4.5 5.5 6.5 7.5 8.5 9.5 10.5 11.5][12.5 13.5 14.5 15.5 16.5 17.5 18.5 19.5 20.5 21.5 22.5 23.5]

# With a run-time batch the Shape is not known: nothing folds, and the
# error names the node whose result graft would need.
expect_fail "$GRAFT" import "$ONNX_MODELS/shape_arith_dyn.onnx"
check_out DYN
# DYN: shape_arith_dyn.onnx: error: node 0 'shape' (Shape): dim 0 of the input is dynamic; graft needs shapes it can compute when building
