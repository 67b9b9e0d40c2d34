# NegativeLogLikelihoodLoss and SoftmaxCrossEntropyLoss (lib/onnx/OnnxLoss.cpp):
# the target's class picked by a one-hot mask (iota == target) and a reduce
# over the classes. Values worked by hand.

# x = [[-1 -2 -3][-4 -5 -6]], targets [2 0], weights [1 2 3]:
# none: [-x[0,2] * 3, -x[1,0] * 1] = [9 4]; sum 13; mean 13 / (3 + 1);
# ignore_index 0 drops the second: 9 / 3. SoftmaxCrossEntropyLoss of
# scores [0 0] and label 1: log(2), and the log-probabilities.
"$GRAFT" build "$ONNX_MODELS/losses.onnx" -o loss.graft
"$GRAFT_RUN" loss.graft --input "2x3xf32=[[-1 -2 -3][-4 -5 -6]]" --input "2xi64=[2 0]" \
  --input "1x2xf32=[[0 0]]" --input "1xi64=[1]" > "$T/out"
check_out LOSS
# LOSS: 2xf32=9 4
# LOSS-NEXT: f32=13
# LOSS-NEXT: f32=3.25
# LOSS-NEXT: f32=3
# LOSS-NEXT: f32=0.693147
# LOSS-NEXT: 1x2xf32=[-0.693147 -0.693147]
