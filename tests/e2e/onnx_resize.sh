# Resize (lib/onnx/OnnxResize.cpp): separable, one axis at a time, the
# neighbours and weights of each output position computed when building as
# the ONNX reference does. Values worked by hand.

# Nearest, scales [1 1 2 2], asymmetric: each pixel becomes a 2x2 block.
# Linear to 4 wide, half_pixel: source x = (o + 0.5) / 2 - 0.5 =
# -0.25 0.25 0.75 1.25 over [0 4], edge values outside: 0 1 3 4.
"$GRAFT" import "$ONNX_MODELS/resize.onnx" > "$T/out"
check_out TEXT
# TEXT: %near.d3 = gather %x, %near.d3.idx {axis = 3} : tensor<1x1x2x4xf32>
# TEXT: %near = gather %near.d3, %near.idx {axis = 2} : tensor<1x1x4x4xf32>
# TEXT: %lin = map
"$GRAFT" build "$ONNX_MODELS/resize.onnx" -o resize.graft
"$GRAFT_RUN" resize.graft --input "1x1x2x2xf32=[[[[1 2][3 4]]]]" --input "1x1x1x2xf32=[[[[0 4]]]]" > "$T/out"
check_out RUN1
# RUN1: 1x1x4x4xf32={{\[\[\[}}1 1 2 2][1 1 2 2][3 3 4 4][3 3 4 4]]]
# RUN1-NEXT: 1x1x1x4xf32={{\[\[\[}}0 1 3 4]]]
