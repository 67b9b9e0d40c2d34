# Models of opsets before 13 whose ops graft reads in their older form
# (lib/onnx/OnnxOps.cpp, olderForms): axes and Dropout's ratio as
# attributes, Pow-7; Dropout in training with ratio 0; and the older
# definitions that stay refused, each named.

# Unsqueeze, ReduceSum and Squeeze with attribute axes, Dropout with an
# attribute ratio (inference: the identity), Pow-7.
"$GRAFT" import "$ONNX_MODELS/old_forms.onnx" > "$T/out"
check_out OLD
# OLD: // Imported from {{.*}}old_forms.onnx (ONNX opset 11)
# OLD-NEXT: func @old_forms(%x: tensor<2x3xf32>) -> tensor<2xf32> {
# OLD-NEXT: %u = reshape %x : tensor<1x2x3xf32>
# OLD-NEXT: %r = reduce %u {dims = [2], kind = sum} : tensor<1x2xf32>
# OLD: pow %x0, %cst : f32
# OLD: %y = reshape %p : tensor<2xf32>
"$GRAFT" build "$ONNX_MODELS/old_forms.onnx" -o old.graft
"$GRAFT_RUN" old.graft --input "2x3xf32=[[1 2 3][4 5 6]]" > "$T/out"
check_out OLDRUN
# OLDRUN: 2xf32=36 225

# Dropout-7's mask has the input's element type: not the definition graft reads.
expect_fail "$GRAFT" import "$ONNX_MODELS/dropout_opset7.onnx"
check_out D7
# D7: dropout_opset7.onnx: error: node 0 'old' (Dropout): opset 7 is not supported: it means Dropout-7, graft imports Dropout-10 to Dropout-13
# An op with no older form graft reads names the opsets.
expect_fail "$GRAFT" import "$ONNX_MODELS/softmax_opset11.onnx"
check_out SM11
# SM11: softmax_opset11.onnx: error: node 0 'old' (Softmax): opset 11 is not supported: it means Softmax-11, graft imports Softmax-13 (opsets 13 to 17)

# Training with ratio 0 drops nothing: the input, and a mask of all true.
"$GRAFT" build "$ONNX_MODELS/dropout_train_zero.onnx" -o drop.graft
"$GRAFT_RUN" drop.graft --input "3xf32=[1 -2 3]" > "$T/out"
check_out ZERO
# ZERO: 3xf32=1 -2 3
# ZERO-NEXT: 3xi1=1 1 1
# Any other training ratio draws a random mask: refused, with the ratio.
expect_fail "$GRAFT" import "$ONNX_MODELS/training_dropout.onnx"
check_out RANDOM
# RANDOM: training_dropout.onnx: error: node 0 'drop' (Dropout): not supported: graft has no 'random' op (training_mode = true with ratio 0.5 draws random numbers; only ratio 0 is supported in training)

# Ops whose opset-13 definition only added types (MatMul-9, Add-7, Relu-6,
# Reshape-5): an opset-9 MLP imports and runs.
"$GRAFT" build "$ONNX_MODELS/old_mlp.onnx" -o mlp.graft
"$GRAFT_RUN" mlp.graft --input "2x3xf32=[[1 2 3][4 5 6]]" > "$T/out"
check_out MLP
# MLP: 4xf32=4.5 0 10.5 0
