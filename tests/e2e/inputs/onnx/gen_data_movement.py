#!/usr/bin/env python3
"""Writes data_movement_dyn.onnx for tests/e2e/onnx_data_movement.sh
(checked in; run with Debian's python3-onnx to regenerate:
/usr/bin/python3 gen_data_movement.py)."""
import onnx
from onnx import TensorProto, helper

f32, i64 = TensorProto.FLOAT, TensorProto.INT64
vi = helper.make_tensor_value_info
const = helper.make_tensor

# Pad (constant and reflect), Tile and Split on a dynamic batch.
nodes = [
    helper.make_node("Pad", ["x", "pads", "value"], ["padded"], name="pad0"),
    helper.make_node("Tile", ["padded", "reps"], ["tiled"], name="tile0"),
    helper.make_node("Split", ["tiled", "sizes"], ["left", "right"], name="split0", axis=1),
    helper.make_node("Pad", ["x", "rpads"], ["mirror"], name="pad1", mode="reflect"),
]
graph = helper.make_graph(
    nodes, "data_movement_dyn", [vi("x", f32, ["batch", 4])],
    [vi("left", f32, [None, 3]), vi("right", f32, [None, 4]), vi("mirror", f32, ["batch", 8])],
    initializer=[const("pads", i64, [4], [0, 1, 0, 2]), const("value", f32, [], [0.5]),
                 const("reps", i64, [2], [2, 1]), const("sizes", i64, [2], [3, 4]),
                 const("rpads", i64, [4], [0, 2, 0, 2])])
model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)],
                          producer_name="graft tests/e2e/inputs/onnx/gen_data_movement.py")
onnx.checker.check_model(model)
onnx.save(model, "data_movement_dyn.onnx")
