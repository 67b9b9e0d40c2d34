// Row shapes of a kernel's nodes (RowVector.h).
#include "codegen/RowVector.h"

#include "codegen/ScalarOps.h"

#include <algorithm>

namespace graft::codegen {

namespace {

// Ops whose emitScalarOp form is correct on vectors for these types: plain
// IR arithmetic, compares and selects, and the functions of
// MathFunctions.cpp computed in the operands' type. Integer division is
// not; the functions computed in f64 are correct on vectors too (the tile
// epilogues use them, TileEpilogue.h), but row statistics with them have
// not been measured on vectors and stay scalar.
bool vectorOp(const ScalarNode &node, DType operandType) {
  bool fl = isFloat(operandType);
  switch (node.op) {
  case OpKind::Add: case OpKind::Sub: case OpKind::Mul: case OpKind::Max: case OpKind::Min:
  case OpKind::Neg: case OpKind::Cmp: case OpKind::Select:
    return true;
  case OpKind::Div: case OpKind::Abs:
    return fl;
  case OpKind::Exp: case OpKind::Log: case OpKind::Sqrt: case OpKind::Rsqrt:
  case OpKind::IsNan: case OpKind::IsInf:
    return operandType == DType::F32 || operandType == DType::F64;
  default:
    return false;
  }
}

bool plainType(DType t) { return t != DType::I1 && !isStorageFloat(t) && t != DType::Invalid; }

} // namespace

DType operandType(const LoopKernel &L, const ScalarNode &node) {
  if (node.op == OpKind::Select && node.operands.size() == 3)
    return L.nodes[node.operands[1]].type;
  return node.operands.empty() ? node.type : L.nodes[node.operands[0]].type;
}

std::vector<RowShape> rowShapes(const LoopKernel &L) {
  int inner = static_cast<int>(L.numParallel) - 1;
  std::vector<RowShape> shape(L.nodes.size(), RowShape::Scalar);
  for (size_t n = 0; n < L.nodes.size(); ++n) {
    const ScalarNode &node = L.nodes[n];
    // Nodes come after their operands; anything else stays scalar.
    bool ordered = std::all_of(node.operands.begin(), node.operands.end(),
                               [&](int o) { return o >= 0 && static_cast<size_t>(o) < n; });
    if (!ordered || inner < 0)
      continue;
    auto all = [&](RowShape s) {
      return std::all_of(node.operands.begin(), node.operands.end(),
                         [&](int o) { return shape[o] == s; });
    };
    auto any = [&](RowShape s) {
      return std::any_of(node.operands.begin(), node.operands.end(),
                         [&](int o) { return shape[o] == s; });
    };
    switch (node.kind) {
    case ScalarNode::Kind::Const:
    case ScalarNode::Kind::Param:
    case ScalarNode::Kind::RowReduce:
      shape[n] = RowShape::Uniform;
      break;
    case ScalarNode::Kind::Acc:
      break;
    case ScalarNode::Kind::Index:
      shape[n] = node.i == inner ? RowShape::Varying : RowShape::Uniform;
      break;
    case ScalarNode::Kind::Load: {
      if (!node.operands.empty()) {
        // At coordinates: only a plain one that stays put along the row
        // (a checked or guarded one branches; computing it before the row
        // would change when it runs).
        if (!node.checked && !node.guarded && all(RowShape::Uniform))
          shape[n] = RowShape::Uniform;
        break;
      }
      const std::vector<int> &map = L.inputs[node.input].map;
      long along = std::count(map.begin(), map.end(), inner);
      if (along == 0)
        shape[n] = RowShape::Uniform;
      else if (along == 1 && map.back() == inner && plainType(node.type))
        shape[n] = RowShape::Varying; // contiguous: the last dim has stride 1
      break;
    }
    case ScalarNode::Kind::Op: {
      if (any(RowShape::Scalar))
        break;
      if (all(RowShape::Uniform)) {
        shape[n] = RowShape::Uniform;
        break;
      }
      DType opType = operandType(L, node);
      bool types = !isStorageFloat(node.type) && !isStorageFloat(opType);
      if (types && vectorOp(node, opType))
        shape[n] = RowShape::Varying;
      break;
    }
    }
  }
  return shape;
}

unsigned rowStatisticLanes(const LoopKernel &L, const std::vector<RowShape> &shape, int n) {
  const ScalarNode &node = L.nodes[n];
  if (node.kind != ScalarNode::Kind::RowReduce || shape[node.operands[0]] != RowShape::Varying ||
      (node.type != DType::F32 && node.type != DType::F64))
    return 0;
  unsigned lanes = L.rowVectorBits / 8 / dtypeSize(node.type);
  return lanes >= 2 ? lanes : 0;
}

unsigned streamingStoreLanes(const LoopKernel &L, const std::vector<RowShape> &shape) {
  bool rowStats = std::any_of(L.nodes.begin(), L.nodes.end(), [](const ScalarNode &n) {
    return n.kind == ScalarNode::Kind::RowReduce;
  });
  bool reduction = L.domainParams.size() > L.numParallel;
  if (!L.streamingBytes || reduction || rowStats || L.numParallel == 0 || L.outputs.empty())
    return 0;
  size_t size = dtypeSize(L.outputs[0].elem);
  for (const KernelOutput &o : L.outputs) {
    const ScalarNode &node = L.nodes[o.node];
    if (dtypeSize(o.elem) != size || o.elem != node.type || !plainType(o.elem) ||
        shape[o.node] == RowShape::Scalar)
      return 0;
  }
  unsigned lanes = L.rowVectorBits / 8 / static_cast<unsigned>(size);
  return lanes >= 2 ? lanes : 0;
}

} // namespace graft::codegen
