#!/usr/bin/env python3
"""Writes the small ONNX models of tests/e2e/onnx_*.sh (checked in; run
with Debian's python3-onnx to regenerate: /usr/bin/python3 gen_models.py)."""
import onnx
from onnx import TensorProto, helper


def save(name, nodes, inputs, outputs, inits=(), opset=13):
    graph = helper.make_graph(nodes, name, inputs, outputs, initializer=list(inits))
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)],
                              producer_name="graft tests/e2e/inputs/onnx/gen_models.py")
    onnx.save(model, name + ".onnx")


f32 = TensorProto.FLOAT
vi = helper.make_tensor_value_info

# Softmax over the last axis, a dynamic batch, names that need sanitizing.
save("softmax_dyn",
     [helper.make_node("Softmax", ["in:0"], ["out/0"], name="sm", axis=-1)],
     [vi("in:0", f32, ["batch", 4])], [vi("out/0", f32, ["batch", 4])])
# Gemm with weights: constants by default, arguments with --weights-as-args.
save("gemm_weights",
     [helper.make_node("Gemm", ["a", "w", "c"], ["y"], name="fc", transB=1, alpha=0.5)],
     [vi("a", f32, [2, 3])], [vi("y", f32, [2, 2])],
     [helper.make_tensor("w", f32, [2, 3], [1, 0, -1, 2, 1, 0]),
      helper.make_tensor("c", f32, [2], [0.5, -0.5])])
# A Reshape whose shape is a graph input: graft needs it bound.
save("reshape_input",
     [helper.make_node("Reshape", ["x", "shape"], ["y"], name="rs")],
     [vi("x", f32, [2, 3]), vi("shape", TensorProto.INT64, [2])], [vi("y", f32, [3, 2])])
# A Conv with a dynamic batch and weights as an input, and a MaxPool.
save("conv",
     [helper.make_node("Conv", ["x", "w"], ["c"], name="conv0", pads=[1, 1, 0, 0], strides=[1, 2]),
      helper.make_node("MaxPool", ["c"], ["y"], name="pool0", kernel_shape=[2, 1])],
     [vi("x", f32, ["n", 1, 3, 3]), vi("w", f32, [1, 1, 2, 2])], [vi("y", f32, ["n", 1, 2, 2])])
# What graft cannot import.
save("convtranspose",
     [helper.make_node("ConvTranspose", ["x", "w"], ["y"], name="up")],
     [vi("x", f32, [1, 1, 3, 3]), vi("w", f32, [1, 1, 2, 2])], [vi("y", f32, [1, 1, 4, 4])])
save("maxpool_indices",
     [helper.make_node("MaxPool", ["x"], ["y", "i"], name="mp", kernel_shape=[2])],
     [vi("x", f32, [1, 1, 4])], [vi("y", f32, [1, 1, 3]), vi("i", TensorProto.INT64, [1, 1, 3])])
save("conv_same_dynamic",
     [helper.make_node("Conv", ["x", "w"], ["y"], name="cs", auto_pad="SAME_UPPER")],
     [vi("x", f32, [1, 1, "h", 3]), vi("w", f32, [1, 1, 2, 2])], [vi("y", f32, [1, 1, "h", 3])])
save("conv_group",
     [helper.make_node("Conv", ["x", "w"], ["y"], name="cg", group=2)],
     [vi("x", f32, [1, 3, 3, 3]), vi("w", f32, [2, 1, 2, 2])], [vi("y", f32, [1, 2, 2, 2])])
save("avgpool_ceil_pad",
     [helper.make_node("AveragePool", ["x"], ["y"], name="ap", kernel_shape=[2], strides=[2],
                       ceil_mode=1, count_include_pad=1)],
     [vi("x", f32, [1, 1, 5])], [vi("y", f32, [1, 1, 3])])
save("pool_window",
     [helper.make_node("MaxPool", ["x"], ["y"], name="big", kernel_shape=[5])],
     [vi("x", f32, [1, 1, 3])], [vi("y", f32, [1, 1, 1])])
save("softmax_opset11",
     [helper.make_node("Softmax", ["x"], ["y"], name="old")],
     [vi("x", f32, [2, 2])], [vi("y", f32, [2, 2])], opset=11)
save("uint8_input",
     [helper.make_node("Abs", ["x"], ["y"], name="abs0")],
     [vi("x", TensorProto.UINT8, [2])], [vi("y", TensorProto.UINT8, [2])])
save("bad_attr",
     [helper.make_node("LeakyRelu", ["x"], ["y"], name="lr", alpha=0.1, beta=2.0)],
     [vi("x", f32, [2])], [vi("y", f32, [2])])
save("training_dropout",
     [helper.make_node("Dropout", ["x", "r", "t"], ["y"], name="drop")],
     [vi("x", f32, [2])], [vi("y", f32, [2])],
     [helper.make_tensor("r", f32, [], [0.5]), helper.make_tensor("t", TensorProto.BOOL, [], [True])])
# Nodes whose input or output counts do not fit their op's schema: refused
# before lowering, with the node and the counts the op takes (the check
# fuzz_onnx's Shape reproducer led to).
save("too_many_outputs",
     [helper.make_node("Relu", ["x"], ["y", "extra"], name="relu2")],
     [vi("x", f32, [2])], [vi("y", f32, [2]), vi("extra", f32, [2])])
save("too_few_inputs",
     [helper.make_node("Add", ["x"], ["y"], name="add1")],
     [vi("x", f32, [2])], [vi("y", f32, [2])])
# Inputs of too low a rank or of a non-float type for the op: refused with
# the rank or type found (ImportContext::needRank, needFloat).
save("softmax_scalar",
     [helper.make_node("Softmax", ["x"], ["y"], name="sm0")],
     [vi("x", f32, [])], [vi("y", f32, [])])
save("lrn_rank1",
     [helper.make_node("LRN", ["x"], ["y"], name="lrn1", size=3)],
     [vi("x", f32, [4])], [vi("y", f32, [4])])
save("conv_int",
     [helper.make_node("Conv", ["x", "w"], ["y"], name="convi")],
     [vi("x", TensorProto.INT32, [1, 1, 3, 3]), vi("w", TensorProto.INT32, [1, 1, 2, 2])],
     [vi("y", TensorProto.INT32, [1, 1, 2, 2])])
# ReduceMax with an empty 'axes' attribute: every axis, as if absent.
save("reduce_empty_axes",
     [helper.make_node("ReduceMax", ["x"], ["y"], name="rmax", axes=[], keepdims=0)],
     [vi("x", f32, [2, 3])], [vi("y", f32, [])])
# A reduction of a rank-0 tensor: refused.
save("reduce_scalar",
     [helper.make_node("ReduceMax", ["x"], ["y"], name="rmax", keepdims=0)],
     [vi("x", f32, [])], [vi("y", f32, [])])
# ArgMax over a dynamic batch, keepdims and the last index (onnx_argmax.sh).
save("argmax_dyn",
     [helper.make_node("ArgMax", ["x"], ["y"], name="am", axis=-1, keepdims=1,
                       select_last_index=1)],
     [vi("x", f32, ["batch", 4])], [vi("y", TensorProto.INT64, ["batch", 1])])
# ArgMin of booleans and of a rank-0 tensor: refused.
save("argmin_bool",
     [helper.make_node("ArgMin", ["x"], ["y"], name="amin", keepdims=0)],
     [vi("x", TensorProto.BOOL, [3])], [vi("y", TensorProto.INT64, [])])
save("argmin_scalar",
     [helper.make_node("ArgMin", ["x"], ["y"], name="amin", keepdims=0)],
     [vi("x", f32, [])], [vi("y", TensorProto.INT64, [])])
# Shape arithmetic on known shapes, folded at import (onnx_constant_fold.sh):
# Shape -> Slice (one of them empty) -> Mul -> Concat -> Reshape, and an
# epsilon Cast from DOUBLE.
i64 = TensorProto.INT64
def shape_arith(name, batch):
    save(name,
         [helper.make_node("Shape", ["x"], ["s"], name="shape"),
          helper.make_node("Constant", [], ["c0"], value=helper.make_tensor("c0v", i64, [1], [0])),
          helper.make_node("Constant", [], ["c1"], value=helper.make_tensor("c1v", i64, [1], [1])),
          helper.make_node("Constant", [], ["c2"], value=helper.make_tensor("c2v", i64, [1], [2])),
          helper.make_node("Constant", [], ["c3"], value=helper.make_tensor("c3v", i64, [1], [3])),
          helper.make_node("Slice", ["s", "c0", "c0"], ["none"], name="none"),
          helper.make_node("Slice", ["s", "c0", "c1"], ["head"], name="head"),
          helper.make_node("Slice", ["s", "c1", "c2"], ["mid"], name="mid"),
          helper.make_node("Slice", ["s", "c2", "c3"], ["tail"], name="tail"),
          helper.make_node("Mul", ["mid", "tail"], ["inner"], name="inner"),
          helper.make_node("Concat", ["none", "head", "inner"], ["to"], name="to", axis=0),
          helper.make_node("Reshape", ["x", "to"], ["flat"], name="flat"),
          helper.make_node("Constant", [], ["epsd"],
                           value=helper.make_tensor("epsv", TensorProto.DOUBLE, [], [0.5])),
          helper.make_node("Cast", ["epsd"], ["eps"], name="eps", to=f32),
          helper.make_node("Add", ["flat", "eps"], ["y"], name="y")],
         [vi("x", f32, [batch, 3, 4])], [vi("y", f32, [batch, 12])], opset=17)
shape_arith("shape_arith", 2)
# The same with a run-time batch: the Shape is not known when building.
shape_arith("shape_arith_dyn", "n")
# The forms of opset 11 graft reads: axes and ratio as attributes, Pow-7.
save("old_forms",
     [helper.make_node("Unsqueeze", ["x"], ["u"], name="u", axes=[0]),
      helper.make_node("ReduceSum", ["u"], ["r"], name="r", axes=[2], keepdims=0),
      helper.make_node("Dropout", ["r"], ["d"], name="d", ratio=0.3),
      helper.make_node("Pow", ["d", "two"], ["p"], name="p"),
      helper.make_node("Squeeze", ["p"], ["y"], name="y", axes=[0])],
     [vi("x", f32, [2, 3])], [vi("y", f32, [2])],
     [helper.make_tensor("two", f32, [], [2.0])], opset=11)
# Dropout-7 (opset 7): its mask has the input's type, not BOOL; refused.
save("dropout_opset7",
     [helper.make_node("Dropout", ["x"], ["y"], name="old", ratio=0.5)],
     [vi("x", f32, [2])], [vi("y", f32, [2])], opset=7)
# Dropout in training with ratio 0: nothing is dropped, the mask is all true.
save("dropout_train_zero",
     [helper.make_node("Dropout", ["x", "r", "t"], ["y", "mask"], name="drop")],
     [vi("x", f32, [3])], [vi("y", f32, [3]), vi("mask", TensorProto.BOOL, [3])],
     [helper.make_tensor("r", f32, [], [0.0]), helper.make_tensor("t", TensorProto.BOOL, [], [True])])
# BatchNormalization in training: the batch's statistics normalise, the
# running ones come out blended with momentum (onnx_batchnorm_training.sh).
save("batchnorm_train",
     [helper.make_node("BatchNormalization", ["x", "scale", "bias", "mean", "var"],
                       ["y", "running_mean", "running_var"], name="bn", epsilon=0.0,
                       momentum=0.5, training_mode=1)],
     [vi("x", f32, [2, 2, 2])],
     [vi("y", f32, [2, 2, 2]), vi("running_mean", f32, [2]), vi("running_var", f32, [2])],
     [helper.make_tensor("scale", f32, [2], [2, 1]), helper.make_tensor("bias", f32, [2], [0, 10]),
      helper.make_tensor("mean", f32, [2], [0, 0]), helper.make_tensor("var", f32, [2], [1, 1])],
     opset=15)
# An MLP of opset 9: MatMul-9, Add-7, Relu-6, Reshape-5 mean what they do
# in opset 13 (which only added bfloat16), so it imports.
save("old_mlp",
     [helper.make_node("MatMul", ["x", "w"], ["xw"], name="xw"),
      helper.make_node("Add", ["xw", "b"], ["h"], name="h"),
      helper.make_node("Relu", ["h"], ["r"], name="r"),
      helper.make_node("Reshape", ["r", "flat"], ["y"], name="y")],
     [vi("x", f32, [2, 3])], [vi("y", f32, [4])],
     [helper.make_tensor("w", f32, [3, 2], [1, 0, 0, 1, 1, -1]),
      helper.make_tensor("b", f32, [2], [0.5, 0.5]),
      helper.make_tensor("flat", TensorProto.INT64, [1], [4])], opset=9)
# InstanceNormalization, MeanVarianceNormalization, DepthToSpace (DCR, CRD),
# SpaceToDepth, Hardmax, Shrink, EyeLike in one model (onnx_more_ops.sh).
save("more_ops",
     [helper.make_node("InstanceNormalization", ["xn", "scale", "bias"], ["inorm"], name="inorm",
                       epsilon=0.0),
      helper.make_node("MeanVarianceNormalization", ["xm"], ["mvn"], name="mvn", axes=[1]),
      helper.make_node("DepthToSpace", ["xd"], ["dcr"], name="dcr", blocksize=2),
      helper.make_node("DepthToSpace", ["xd"], ["crd"], name="crd", blocksize=2, mode="CRD"),
      helper.make_node("SpaceToDepth", ["dcr"], ["back"], name="back", blocksize=2),
      helper.make_node("Hardmax", ["xh"], ["hardmax"], name="hardmax"),
      helper.make_node("Shrink", ["xs"], ["shrink"], name="shrink", lambd=1.5, bias=0.5),
      helper.make_node("EyeLike", ["xh"], ["eye"], name="eye", k=1, dtype=TensorProto.INT64)],
     [vi("xn", f32, [1, 2, 2]), vi("xm", f32, [2, 2]), vi("xd", f32, ["n", 8, 1, 1]),
      vi("xh", f32, [2, 3]), vi("xs", f32, [5])],
     [vi("inorm", f32, [1, 2, 2]), vi("mvn", f32, [2, 2]), vi("dcr", f32, ["n", 2, 2, 2]),
      vi("crd", f32, ["n", 2, 2, 2]), vi("back", f32, ["n", 8, 1, 1]), vi("hardmax", f32, [2, 3]),
      vi("shrink", f32, [5]), vi("eye", TensorProto.INT64, [2, 3])],
     [helper.make_tensor("scale", f32, [2], [2, 1]), helper.make_tensor("bias", f32, [2], [0, 7])])
# OneHot with depth and values as initializers, along the last axis and
# along axis 0 (onnx_more_ops.sh).
save("onehot",
     [helper.make_node("OneHot", ["i", "depth", "values"], ["last"], name="last"),
      helper.make_node("OneHot", ["i", "depth", "values"], ["first"], name="first", axis=0)],
     [vi("i", TensorProto.INT64, [4])],
     [vi("last", f32, [4, 4]), vi("first", f32, [4, 4])],
     [helper.make_tensor("depth", TensorProto.INT64, [], [4]),
      helper.make_tensor("values", f32, [2], [0, 5])])
# CumSum along axis 1, and along axis 0 reversed and exclusive (onnx_more_ops.sh).
save("cumsum",
     [helper.make_node("CumSum", ["x", "one"], ["fwd"], name="fwd"),
      helper.make_node("CumSum", ["x", "zero"], ["rev"], name="rev", exclusive=1, reverse=1)],
     [vi("x", f32, [2, 3])], [vi("fwd", f32, [2, 3]), vi("rev", f32, [2, 3])],
     [helper.make_tensor("one", TensorProto.INT64, [], [1]),
      helper.make_tensor("zero", TensorProto.INT32, [], [0])])
# LRN over 3 channels (onnx_more_ops.sh).
save("lrn",
     [helper.make_node("LRN", ["x"], ["y"], name="lrn", size=3, alpha=3.0, beta=1.0, bias=1.0)],
     [vi("x", f32, [1, 3, 1, 2])], [vi("y", f32, [1, 3, 1, 2])])
# Resize: nearest x2 by scales (asymmetric), linear to 4 wide by sizes
# (half_pixel) (onnx_resize.sh).
save("resize",
     [helper.make_node("Resize", ["x", "", "scales2"], ["near"], name="near",
                       coordinate_transformation_mode="asymmetric"),
      helper.make_node("Resize", ["row", "", "", "sizes4"], ["lin"], name="lin", mode="linear")],
     [vi("x", f32, [1, 1, 2, 2]), vi("row", f32, [1, 1, 1, 2])],
     [vi("near", f32, [1, 1, 4, 4]), vi("lin", f32, [1, 1, 1, 4])],
     [helper.make_tensor("scales2", f32, [4], [1, 1, 2, 2]),
      helper.make_tensor("sizes4", TensorProto.INT64, [4], [1, 1, 1, 4])])
# Compress with build-time conditions, along axis 1 and of the flattened
# input (onnx_more_ops.sh).
save("compress",
     [helper.make_node("Compress", ["x", "cols"], ["picked"], name="picked", axis=1),
      helper.make_node("Compress", ["x", "flat"], ["flat_picked"], name="flat_picked")],
     [vi("x", f32, [2, 3])], [vi("picked", f32, [2, 2]), vi("flat_picked", f32, [2])],
     [helper.make_tensor("cols", TensorProto.BOOL, [3], [False, True, True]),
      helper.make_tensor("flat", TensorProto.BOOL, [5], [True, False, False, False, True])])
# NegativeLogLikelihoodLoss (reductions none / sum / mean, weights, an
# ignore_index) and SoftmaxCrossEntropyLoss with its log_prob output
# (onnx_loss.sh).
i64t = TensorProto.INT64
save("losses",
     [helper.make_node("NegativeLogLikelihoodLoss", ["x", "t", "w"], ["none"], name="none",
                       reduction="none"),
      helper.make_node("NegativeLogLikelihoodLoss", ["x", "t", "w"], ["sum"], name="sum",
                       reduction="sum"),
      helper.make_node("NegativeLogLikelihoodLoss", ["x", "t", "w"], ["mean"], name="mean"),
      helper.make_node("NegativeLogLikelihoodLoss", ["x", "t", "w"], ["ignored"], name="ignored",
                       ignore_index=0),
      helper.make_node("SoftmaxCrossEntropyLoss", ["s", "l"], ["sce", "logp"], name="sce")],
     [vi("x", f32, [2, 3]), vi("t", i64t, [2]), vi("s", f32, [1, 2]), vi("l", i64t, [1])],
     [vi("none", f32, [2]), vi("sum", f32, []), vi("mean", f32, []), vi("ignored", f32, []),
      vi("sce", f32, []), vi("logp", f32, [1, 2])],
     [helper.make_tensor("w", f32, [3], [1, 2, 3])])
# Einsum: a matmul, a diagonal, an implicit output (a transpose) and a
# batched dot over "..." (onnx_einsum.sh).
save("einsum",
     [helper.make_node("Einsum", ["a", "b"], ["mm"], name="mm", equation="ij,jk->ik"),
      helper.make_node("Einsum", ["a"], ["diag"], name="diag", equation="ii->i"),
      helper.make_node("Einsum", ["a"], ["tr"], name="tr", equation="ji"),
      helper.make_node("Einsum", ["a", "b"], ["dot"], name="dot", equation="...i, ...i -> ...")],
     [vi("a", f32, [2, 2]), vi("b", f32, [2, 2])],
     [vi("mm", f32, [2, 2]), vi("diag", f32, [2]), vi("tr", f32, [2, 2]), vi("dot", f32, [2])])
# A dense layer over [batch, seq, hidden] (and [2, 3, seq, hidden]): a
# 2-D weight initializer against a batched lhs, one matmul whose constant
# rhs is packed when building (each-target/constant_weights.sh).
dense_w = [((i * 7) % 13 - 6) / 8 for i in range(40 * 24)]
save("dense_3d",
     [helper.make_node("MatMul", ["x", "w"], ["y"], name="dense"),
      helper.make_node("MatMul", ["x4", "w"], ["y4"], name="dense4")],
     [vi("x", f32, [2, "seq", 40]), vi("x4", f32, [2, 3, "seq", 40])],
     [vi("y", f32, [2, "seq", 24]), vi("y4", f32, [2, 3, "seq", 24])],
     [helper.make_tensor("w", f32, [40, 24], dense_w)])
# MatMul of f16 operands: imported as graft's mixed-precision matmul (f32
# sums, rounded back to f16 once), which runs packed (onnx_f16_matmul.sh);
# 2-D and a batched lhs against a 2-D rhs.
f16 = TensorProto.FLOAT16
save("matmul_f16",
     [helper.make_node("MatMul", ["x", "w"], ["y"], name="mm"),
      helper.make_node("MatMul", ["x3", "w"], ["y3"], name="mm3")],
     [vi("x", f16, ["rows", "k"]), vi("x3", f16, [2, "seq", "k"]), vi("w", f16, ["k", "n"])],
     [vi("y", f16, ["rows", "n"]), vi("y3", f16, [2, "seq", "n"])])
# MatMulInteger: int8 activations against constant int8 weights (a batched
# lhs folded into rows), two int8 arguments with zero points of 0; a
# nonzero zero point, which graft refuses.
i8 = TensorProto.INT8
save("matmul_integer",
     [helper.make_node("MatMulInteger", ["x", "w"], ["y"], name="mmi"),
      helper.make_node("MatMulInteger", ["x3", "w"], ["y3"], name="mmi3"),
      helper.make_node("MatMulInteger", ["p", "q", "pz", "qz"], ["z"], name="mmz")],
     [vi("x", i8, ["rows", 300]), vi("x3", i8, [2, "seq", 300]), vi("p", i8, ["m", "k"]),
      vi("q", i8, ["k", "n"])],
     [vi("y", TensorProto.INT32, ["rows", 70]), vi("y3", TensorProto.INT32, [2, "seq", 70]),
      vi("z", TensorProto.INT32, ["m", "n"])],
     [helper.make_tensor("w", i8, [300, 70], [(i * 37 + 11) % 256 - 128 for i in range(300 * 70)]),
      helper.make_tensor("pz", i8, [], [0]), helper.make_tensor("qz", i8, [], [0])])
save("matmul_integer_zero_point",
     [helper.make_node("MatMulInteger", ["p", "q", "pz", "qz"], ["z"], name="mmz"),
      helper.make_node("MatMulInteger", ["p3", "q", "pz"], ["z3"], name="mmz3"),
      helper.make_node("MatMulInteger", ["p3", "q3", "pz", "qz"], ["zb"], name="mmzb"),
      helper.make_node("MatMulInteger", ["v", "q", "pz", "qz"], ["zv"], name="mmzv")],
     [vi("p", i8, ["m", 301]), vi("q", i8, [301, "n"]), vi("p3", i8, [2, "s", 301]),
      vi("q3", i8, [2, 301, "n"]), vi("v", i8, [301])],
     [vi("z", TensorProto.INT32, ["m", "n"]), vi("z3", TensorProto.INT32, [2, "s", "n"]),
      vi("zb", TensorProto.INT32, [2, "s", "n"]), vi("zv", TensorProto.INT32, ["n"])],
     [helper.make_tensor("pz", i8, [], [3]), helper.make_tensor("qz", i8, [], [-128])])
save("matmul_integer_row_zero_points",
     [helper.make_node("MatMulInteger", ["p", "q", "pz"], ["z"], name="mmz")],
     [vi("p", i8, [2, 3]), vi("q", i8, [3, 2])], [vi("z", TensorProto.INT32, [2, 2])],
     [helper.make_tensor("pz", i8, [2], [3, 4])])
# Zero points against constant weights (2-D, batched, 1-D; a 1-D lhs
# against batched ones): B's terms (its column sums) are computed when
# importing; and the same sums of a 1-D or batched B that is an input,
# against a 2-D or 1-D A (the products without an M or N dim).
save("matmul_integer_const_zero_point",
     [helper.make_node("MatMulInteger", ["p", "w", "pz", "qz"], ["z"], name="mmw"),
      helper.make_node("MatMulInteger", ["p3", "w3", "pz"], ["z3"], name="mmw3"),
      helper.make_node("MatMulInteger", ["p", "wv", "pz", "qz"], ["zv"], name="mmwv"),
      helper.make_node("MatMulInteger", ["v", "w3", "pz", "qz"], ["zw"], name="mmvw"),
      helper.make_node("MatMulInteger", ["p", "r", "pz", "qz"], ["zr"], name="mmpr"),
      helper.make_node("MatMulInteger", ["v", "q3", "pz", "qz"], ["zq"], name="mmvq")],
     [vi("p", i8, ["m", 301]), vi("p3", i8, [2, "s", 301]), vi("v", i8, [301]),
      vi("r", i8, [301]), vi("q3", i8, [2, 301, "n"])],
     [vi("z", TensorProto.INT32, ["m", 29]), vi("z3", TensorProto.INT32, [2, "s", 29]),
      vi("zv", TensorProto.INT32, ["m"]), vi("zw", TensorProto.INT32, [2, 29]),
      vi("zr", TensorProto.INT32, ["m"]), vi("zq", TensorProto.INT32, [2, "n"])],
     [helper.make_tensor("w", i8, [301, 29], [(i * 53 + 7) % 256 - 128 for i in range(301 * 29)]),
      helper.make_tensor("w3", i8, [2, 301, 29],
                         [(i * 29 + 5) % 256 - 128 for i in range(2 * 301 * 29)]),
      helper.make_tensor("wv", i8, [301], [(i * 71 + 3) % 256 - 128 for i in range(301)]),
      helper.make_tensor("pz", i8, [], [3]), helper.make_tensor("qz", i8, [], [-128])])
# Per-row and per-column zero points of one value each (per-channel
# weights quantized symmetrically: all zeros), which import as scalars.
save("matmul_integer_channel_zero_points",
     [helper.make_node("MatMulInteger", ["p", "q", "pz", "qz"], ["z"], name="mmc")],
     [vi("p", i8, [5, 33]), vi("q", i8, [33, 4])], [vi("z", TensorProto.INT32, [5, 4])],
     [helper.make_tensor("pz", i8, [5], [-7] * 5), helper.make_tensor("qz", i8, [4], [0] * 4)])
# MatMulInteger's refusals: INT16 operands, a per-column zero point of the
# wrong length, a nonzero zero point where K is dynamic.
save("matmul_integer_bad",
     [helper.make_node("MatMulInteger", ["p", "q"], ["z"], name="mm16")],
     [vi("p", TensorProto.INT16, [2, 3]), vi("q", TensorProto.INT16, [3, 2])],
     [vi("z", TensorProto.INT32, [2, 2])])
save("matmul_integer_zp_length",
     [helper.make_node("MatMulInteger", ["p", "q", "", "qz"], ["z"], name="mmz")],
     [vi("p", i8, [2, 3]), vi("q", i8, [3, 4])], [vi("z", TensorProto.INT32, [2, 4])],
     [helper.make_tensor("qz", i8, [3], [0, 0, 0])])
save("matmul_integer_zp_dynamic_k",
     [helper.make_node("MatMulInteger", ["p", "q", "pz"], ["z"], name="mmz")],
     [vi("p", i8, [2, "k"]), vi("q", i8, ["k", 4])], [vi("z", TensorProto.INT32, [2, 4])],
     [helper.make_tensor("pz", i8, [], [1])])
