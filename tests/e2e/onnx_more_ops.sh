# ONNX ops lowered onto existing graft ops (lib/onnx): InstanceNormalization
# and MeanVarianceNormalization (the moments LayerNormalization uses),
# DepthToSpace / SpaceToDepth (reshape, transpose, reshape), Hardmax
# (argmax against an iota), Shrink (a map), EyeLike (two iotas), OneHot
# (an iota against the indices), CumSum (a select of two iotas and a
# reduce), LRN (an average pool over the channels), Compress (a gather at
# the true entries of a build-time condition). Values worked by hand.
IN=(--input "1x2x2xf32=[[[1 3][4 6]]]" --input "2x2xf32=[[1 3][5 5]]"
    --input "1x8x1x1xf32=[[[[0]][[1]][[2]][[3]][[4]][[5]][[6]][[7]]]]"
    --input "2x3xf32=[[1 3 3][-1 -5 -2]]" --input "5xf32=[-2 -1 0 1 2]")

"$GRAFT" build "$ONNX_MODELS/more_ops.onnx" -o more.graft
"$GRAFT_RUN" more.graft "${IN[@]}" > "$T/out"
# InstanceNormalization, epsilon 0, scale [2 1], bias [0 7]: channel 0 is
# 1 3 (mean 2, variance 1), channel 1 is 4 6 (mean 5, variance 1).
# MeanVarianceNormalization over axis 1: [1 3] -> [-1 1], [5 5] -> [0 0].
# DepthToSpace of channels 0..7, blocksize 2: DCR takes channel
# (i*2 + j)*2 + c, CRD channel c*4 + i*2 + j; SpaceToDepth undoes DCR.
# Hardmax: 1 at the first largest of each row. Shrink, lambd 1.5, bias 0.5.
# EyeLike, k = 1, INT64.
check_out OPS
# OPS: 1x2x2xf32={{\[\[}}-2 2][6 8]]
# OPS-NEXT: 2x2xf32=[-1 1][0 0]
# OPS-NEXT: 1x2x2x2xf32={{\[\[\[}}0 2][4 6]]{{\[\[}}1 3][5 7]]]
# OPS-NEXT: 1x2x2x2xf32={{\[\[\[}}0 1][2 3]]{{\[\[}}4 5][6 7]]]
# OPS-NEXT: 1x8x1x1xf32={{\[\[\[}}0]]{{\[\[}}1]]{{\[\[}}2]]{{\[\[}}3]]{{\[\[}}4]]{{\[\[}}5]]{{\[\[}}6]]{{\[\[}}7]]]
# OPS-NEXT: 2x3xf32=[0 1 0][1 0 0]
# OPS-NEXT: 5xf32=-1.5 0 0 0 1.5
# OPS-NEXT: 2x3xi64=[0 1 0][0 0 1]

# The reference evaluator agrees.
"$GRAFT" eval "$ONNX_MODELS/more_ops.onnx" "${IN[@]}" > "$T/out"
check_out OPS

# The batch of DepthToSpace / SpaceToDepth is dynamic: a batch of 2.
IN[5]="2x8x1x1xf32=[[[[0]][[1]][[2]][[3]][[4]][[5]][[6]][[7]]][[[8]][[9]][[10]][[11]][[12]][[13]][[14]][[15]]]]"
"$GRAFT_RUN" more.graft "${IN[@]}" > "$T/out"
check_out BATCH2
# BATCH2: 2x2x2x2xf32={{\[\[\[}}0 2][4 6]]{{\[\[}}1 3][5 7]]]{{\[\[\[}}8 10][12 14]]{{\[\[}}9 11][13 15]]]

# OneHot, depth 4, values [0 5]: -1 counts from the depth (3), 5 is out of
# range and matches nothing; along the last axis and along axis 0.
"$GRAFT" build "$ONNX_MODELS/onehot.onnx" -o onehot.graft
"$GRAFT_RUN" onehot.graft --input "4xi64=[-1 0 3 5]" > "$T/out"
check_out ONEHOT
# ONEHOT: 4x4xf32=[0 0 0 5][5 0 0 0][0 0 0 5][0 0 0 0]
# ONEHOT-NEXT: 4x4xf32=[0 5 0 0][0 0 0 0][0 0 0 0][5 0 5 0]

# CumSum along axis 1, and along axis 0 reversed and exclusive: the inf of
# row 0 reaches only the sums that include it (a select, not a product with
# a 0/1 matrix, which would give NaN where inf * 0 is added).
"$GRAFT" build "$ONNX_MODELS/cumsum.onnx" -o cumsum.graft
"$GRAFT_RUN" cumsum.graft --input "2x3xf32=[[1 inf 2][3 4 5]]" > "$T/out"
check_out CUMSUM
# CUMSUM: 2x3xf32=[1 inf inf][3 7 12]
# CUMSUM-NEXT: 2x3xf32=[3 4 5][0 0 0]

# LRN, size 3, alpha 3 (alpha / size = 1), beta 1, bias 1: y = x / (1 + s),
# s the sum of squares over the channel and its existing neighbours.
"$GRAFT" build "$ONNX_MODELS/lrn.onnx" -o lrn.graft
"$GRAFT_RUN" lrn.graft --input "1x3x1x2xf32=[[[[1 2]][[0 0]][[2 1]]]]" > "$T/out"
check_out LRN
# LRN: 1x3x1x2xf32={{\[\[\[}}0.5 0.4]]{{\[\[}}0 0]]{{\[\[}}0.4 0.5]]]

# Compress with build-time conditions: columns 1 and 2; elements 0 and 4 of
# the flattened input.
"$GRAFT" build "$ONNX_MODELS/compress.onnx" -o compress.graft
"$GRAFT_RUN" compress.graft --input "2x3xf32=[[1 2 3][4 5 6]]" > "$T/out"
check_out COMPRESS
# COMPRESS: 2x2xf32=[2 3][5 6]
# COMPRESS-NEXT: 2xf32=1 5
