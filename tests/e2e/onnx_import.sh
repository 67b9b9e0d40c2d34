# graft import / graft build of ONNX models (lib/onnx, docs/onnx.md): the
# imported text, weights as constants or arguments, --constant, a dynamic
# batch built and run, and one error per kind of thing graft cannot import.

# Names that are not graft identifiers are sanitized; the batch stays `?`.
"$GRAFT" import "$ONNX_MODELS/softmax_dyn.onnx" > "$T/out"
check_out SM
# SM: // Imported from {{.*}}softmax_dyn.onnx (ONNX opset 13)
# SM-NEXT: func @softmax_dyn(%in_0: tensor<?x4xf32>) -> tensor<?x4xf32> {
# SM-NEXT: %out_0.max = reduce %in_0 {dims = [1], kind = max} : tensor<?xf32>
# SM: %out_0 = map %out_0.exp, %out_0.sum.1 : tensor<?x4xf32> {
# SM: return %out_0

# -o writes the same text, and graft check accepts it.
"$GRAFT" import "$ONNX_MODELS/softmax_dyn.onnx" -o sm.graph
"$GRAFT" import "$ONNX_MODELS/softmax_dyn.onnx" | diff - sm.graph
"$GRAFT" check sm.graph

# A batch of 3 and of 1 through the same bundle.
"$GRAFT" build "$ONNX_MODELS/softmax_dyn.onnx" -o sm.graft
"$GRAFT_RUN" sm.graft --input "3x4xf32=[[0 0 0 0][1 2 3 4][-1 -1 1 1]]" > "$T/out"
"$GRAFT_RUN" sm.graft --input "1x4xf32=[[0 0 0 0]]" >> "$T/out"
check_out BATCH
# BATCH: 3x4xf32=[0.25 0.25 0.25 0.25][0.0320586 0.0871443 0.236883 0.643914][0.0596015 0.0596015 0.440399 0.440399]
# BATCH-NEXT: 1x4xf32=[0.25 0.25 0.25 0.25]

# Initializers are constants by default, arguments with --weights-as-args.
"$GRAFT" import "$ONNX_MODELS/gemm_weights.onnx" > "$T/out"
check_out CONST
# CONST: func @gemm_weights(%a: tensor<2x3xf32>) -> tensor<2x2xf32> {
# CONST: %w = constant {{\[\[}}1.0, 0.0, -1.0], [2.0, 1.0, 0.0]] : tensor<2x3xf32>
"$GRAFT" import "$ONNX_MODELS/gemm_weights.onnx" --weights-as-args > "$T/out"
check_out ARGS
# ARGS: func @gemm_weights(%a: tensor<2x3xf32>, %w: tensor<2x3xf32>, %c: tensor<2xf32>) -> tensor<2x2xf32> {
# ARGS-NOT: constant [
"$GRAFT" build "$ONNX_MODELS/gemm_weights.onnx" -o g.graft
"$GRAFT_RUN" g.graft --input "2x3xf32=[[1 2 3][0 1 0]]" > "$T/out"
"$GRAFT" build "$ONNX_MODELS/gemm_weights.onnx" --weights-as-args -o ga.graft
"$GRAFT_RUN" ga.graft --input "2x3xf32=[[1 2 3][0 1 0]]" --input "2x3xf32=[[1 0 -1][2 1 0]]" \
  --input "2xf32=[0.5 -0.5]" >> "$T/out"
# 0.5 * a w^T + c: [1 2 3].[1 0 -1] = -2 -> -1 + 0.5; [1 2 3].[2 1 0] = 4 -> 2 - 0.5
check_out GEMM
# GEMM: 2x2xf32=[-0.5 1.5][0.5 0]
# GEMM-NEXT: 2x2xf32=[-0.5 1.5][0.5 0]

# A shape operand computed at run time must be bound.
expect_fail "$GRAFT" import "$ONNX_MODELS/reshape_input.onnx"
check_out NEEDCONST
# NEEDCONST: reshape_input.onnx: error: node 0 'rs' (Reshape): input 'shape' (shape) must be a constant: graft needs it when building; make it an initializer or bind it with --constant shape=VALUE
"$GRAFT" build "$ONNX_MODELS/reshape_input.onnx" --constant 'shape=2xi64=[3 2]' -o rs.graft
"$GRAFT_RUN" rs.graft --input "2x3xf32=[[1 2 3][4 5 6]]" > "$T/out"
check_out BOUND
# BOUND: 3x2xf32=[1 2][3 4][5 6]
expect_fail "$GRAFT" import "$ONNX_MODELS/reshape_input.onnx" --constant 'nope=2xi64=[3 2]'
check_out NOINPUT
# NOINPUT: reshape_input.onnx: error: --constant nope: the graph has no input named 'nope'
expect_fail "$GRAFT" import "$ONNX_MODELS/reshape_input.onnx" --constant 'shape=2xi64=[3 2'
check_out BADT
# BADT: reshape_input.onnx: error: --constant shape: missing ']' for the '[' at column 7
expect_fail "$GRAFT" import "$ONNX_MODELS/reshape_input.onnx" --constant shape
check_out NOEQ
# NOEQ: graft import: error: --constant 'shape': expected NAME=TENSOR

# Conv and MaxPool (pads begin [1, 1], end [0, 0]; strides [1, 2]) on a
# batch of 2: the diagonal weights add x[i-1][2j-1] and x[i][2j], the pool
# takes the larger of two rows.
"$GRAFT" import "$ONNX_MODELS/conv.onnx" > "$T/out"
check_out CONVTEXT
# CONVTEXT: %c = conv %x, %w {strides = [1, 2], pads = [1, 1, 0, 0], dilations = [1, 1], group = 1} : tensor<?x1x3x2xf32>
# CONVTEXT-NEXT: %y = pool %c {kind = max, window = [2, 1], strides = [1, 1], pads = [0, 0, 0, 0], dilations = [1, 1]} : tensor<?x1x2x2xf32>
"$GRAFT" build "$ONNX_MODELS/conv.onnx" -o conv.graft
"$GRAFT_RUN" conv.graft --input "2x1x3x3xf32=[[[[1 2 3][4 5 6][7 8 9]]][[[-1 -2 -3][-4 -5 -6][-7 -8 -9]]]]" \
  --input "1x1x2x2xf32=[[[[1 0][0 1]]]]" > "$T/out"
check_out CONV
# CONV: 2x1x2x2xf32=[{{\[\[}}4 8][7 14]]][{{\[\[}}-1 -3][-4 -8]]]

# What graft cannot import, each named (older opsets and Dropout in
# training: onnx_old_forms.sh).
expect_fail "$GRAFT" build "$ONNX_MODELS/convtranspose.onnx"
check_out CONVT
# CONVT: convtranspose.onnx: error: node 0 'up' (ConvTranspose): not supported: graft has no 'conv_transpose' op
expect_fail "$GRAFT" import "$ONNX_MODELS/maxpool_indices.onnx"
check_out INDICES
# INDICES: maxpool_indices.onnx: error: node 0 'mp' (MaxPool): output Indices is not supported (graft's pool computes values only)
expect_fail "$GRAFT" import "$ONNX_MODELS/conv_same_dynamic.onnx"
check_out SAME
# SAME: conv_same_dynamic.onnx: error: node 0 'cs' (Conv): spatial dim 0 of the input has a run-time size; auto_pad SAME_UPPER needs it when building
expect_fail "$GRAFT" import "$ONNX_MODELS/conv_group.onnx"
check_out GROUP
# GROUP: conv_group.onnx: error: node 0 'cg' (Conv): group 2 does not fit 3 input channels and weights tensor<2x1x2x2xf32>
expect_fail "$GRAFT" import "$ONNX_MODELS/avgpool_ceil_pad.onnx"
check_out CEIL
# CEIL: avgpool_ceil_pad.onnx: error: node 0 'ap' (AveragePool): ceil_mode with count_include_pad adds windows past the padding; graft would count their missing elements (not supported)
expect_fail "$GRAFT" import "$ONNX_MODELS/pool_window.onnx"
check_out WINDOW
# WINDOW: pool_window.onnx: error: node 0 'big' (MaxPool): the window spans 5 elements, more than spatial dim 0 of size 3 with pads 0 and 0
expect_fail "$GRAFT" import "$ONNX_MODELS/uint8_input.onnx"
check_out U8
# U8: uint8_input.onnx: error: graph input 'x' has element type UINT8, which is not supported: graft's graph language has no unsigned integer types (it has FLOAT, DOUBLE, FLOAT16, BFLOAT16, INT8, INT16, INT32, INT64, BOOL)
expect_fail "$GRAFT" import "$ONNX_MODELS/bad_attr.onnx"
check_out ATTR
# ATTR: bad_attr.onnx: error: node 0 'lr' (LeakyRelu): attribute 'beta' is not supported (supported: alpha)

# Nodes whose input or output counts do not fit their op's schema, checked
# before lowering (outputs first), each naming the node and what the op takes.
expect_fail "$GRAFT" import "$ONNX_MODELS/too_many_outputs.onnx"
check_out NOUTS
# NOUTS: too_many_outputs.onnx: error: node 0 'relu2' (Relu): the node has 2 outputs; Relu has 1{{$}}
expect_fail "$GRAFT" build "$ONNX_MODELS/too_few_inputs.onnx"
check_out NINS
# NINS: too_few_inputs.onnx: error: node 0 'add1' (Add): the node has 1 input; Add takes 2{{$}}

# An input of too low a rank, or not of a float type, for its op: the rank
# or type found and what the op needs.
expect_fail "$GRAFT" import "$ONNX_MODELS/softmax_scalar.onnx"
check_out RANK1
# RANK1: softmax_scalar.onnx: error: node 0 'sm0' (Softmax): the input must have rank 1 or more, has rank 0{{$}}
expect_fail "$GRAFT" import "$ONNX_MODELS/lrn_rank1.onnx"
check_out RANK2
# RANK2: lrn_rank1.onnx: error: node 0 'lrn1' (LRN): the input must have rank 2 or more (N x C x ...), has rank 1{{$}}
expect_fail "$GRAFT" import "$ONNX_MODELS/conv_int.onnx"
check_out CONVINT
# CONVINT: conv_int.onnx: error: node 0 'convi' (Conv): element type i32 is not supported (float types only: f16, bf16, f32, f64)

# Files that are not models.
printf 'not a model' > bad.onnx
expect_fail "$GRAFT" import bad.onnx
check_out BAD
# BAD: bad.onnx: error: not a valid ONNX model (the protobuf does not parse)
expect_fail "$GRAFT" build missing.onnx
check_out MISSING
# MISSING: missing.onnx: error: cannot read ONNX model: No such file or directory
expect_fail "$GRAFT" build "$TEST_DIR/inputs/mlp.graph" --weights-as-args
check_out NOTONNX
# NOTONNX: mlp.graph: error: --constant and --weights-as-args apply to .onnx models only
expect_fail "$GRAFT" import
check_out NOMODEL
# NOMODEL: graft import: error: no ONNX model given

# An empty 'axes' attribute reduces every axis (found by fuzz_onnx); a
# reduction of a rank-0 tensor is refused.
"$GRAFT" build "$ONNX_MODELS/reduce_empty_axes.onnx" -o re.graft
"$GRAFT_RUN" re.graft --input "2x3xf32=[[1 7 3][4 5 6]]" > "$T/out"
check_out EMPTYAXES
# EMPTYAXES: f32=7
expect_fail "$GRAFT" import "$ONNX_MODELS/reduce_scalar.onnx"
check_out RANK0
# RANK0: {{.*}}reduce_scalar.onnx: error: node 0 'rmax' (ReduceMax): reducing a rank-0 tensor is not supported
