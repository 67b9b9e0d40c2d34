# BatchNormalization with training_mode = 1 (lib/onnx/OnnxOps.cpp): the
# batch's own mean and population variance over every dim but the channel
# normalise, and running_mean / running_var come out as
# input * momentum + batch * (1 - momentum).

# Channel 0 holds 2 2 6 6 (mean 4, variance 4), channel 1 holds 1 -1 1 -1
# (mean 0, variance 1); scale [2 1], bias [0 10], epsilon 0, momentum 0.5,
# input mean [0 0] and var [1 1].
"$GRAFT" build "$ONNX_MODELS/batchnorm_train.onnx" -o bn.graft
"$GRAFT_RUN" bn.graft --input "2x2x2xf32=[[[2 2][1 -1]][[6 6][1 -1]]]" > "$T/out"
check_out BN
# BN: 2x2x2xf32={{\[\[}}-2 -2][11 9]]{{\[\[}}2 2][11 9]]
# BN-NEXT: 2xf32=2 0
# BN-NEXT: 2xf32=2.5 1

# The reference evaluator agrees.
"$GRAFT" eval "$ONNX_MODELS/batchnorm_train.onnx" --input "2x2x2xf32=[[[2 2][1 -1]][[6 6][1 -1]]]" > "$T/out"
check_out BN
