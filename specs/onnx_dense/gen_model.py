#!/usr/bin/env python3
"""Writes dense.onnx: y = relu(x @ W + b) with x of shape (batch, 4), W and
b initializers. The checked-in dense.onnx is this script's output (with
Debian's python3-onnx: /usr/bin/python3 gen_model.py)."""
import onnx
from onnx import TensorProto, helper

W = [0.5, -1.0, 0.25,
     1.0, 0.5, -0.5,
     -0.25, 1.0, 0.75,
     0.0, -0.5, 1.0]
b = [0.1, -0.2, 0.3]
graph = helper.make_graph(
    [helper.make_node("MatMul", ["x", "W"], ["xw"], name="dense_matmul"),
     helper.make_node("Add", ["xw", "b"], ["pre"], name="dense_bias"),
     helper.make_node("Relu", ["pre"], ["y"], name="dense_relu")],
    "dense",
    [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["batch", 4])],
    [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["batch", 3])],
    initializer=[helper.make_tensor("W", TensorProto.FLOAT, [4, 3], W),
                 helper.make_tensor("b", TensorProto.FLOAT, [3], b)])
model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)],
                          producer_name="graft specs/onnx_dense/gen_model.py")
onnx.checker.check_model(model)
onnx.save(model, "dense.onnx")
