// A packed matmul's epilogue on the microkernel's vectors (TileEpilogue.h).
#include "codegen/TileEpilogue.h"

#include "codegen/AbiTypes.h"
#include "codegen/RowVector.h"
#include "codegen/ScalarOps.h"

#include <cstring>
#include <vector>

namespace graft::codegen {

using namespace llvm;

namespace {

// Ops whose result is the same bits on a vector as on each lane alone
// (emitScalarOp's form of them is plain IR or exactly rounded).
bool exactOp(const ScalarNode &node, DType operandType) {
  if (operandType != DType::F32)
    return false;
  switch (node.op) {
  case OpKind::Add: case OpKind::Sub: case OpKind::Mul: case OpKind::Div: case OpKind::Max:
  case OpKind::Min: case OpKind::Neg: case OpKind::Abs: case OpKind::Sqrt:
    return node.type == DType::F32;
  case OpKind::Cmp: case OpKind::IsNan:
    return node.type == DType::I1;
  case OpKind::Select:
    return node.type == DType::F32;
  default:
    return false;
  }
}

// The nodes |root| needs, in node order, or empty where one is not ordered
// after its operands.
std::vector<int> neededNodes(const LoopKernel &L, int root) {
  std::vector<bool> need(L.nodes.size(), false);
  std::vector<int> stack = {root};
  while (!stack.empty()) {
    int n = stack.back();
    stack.pop_back();
    if (n < 0 || static_cast<size_t>(n) >= L.nodes.size())
      return {};
    if (need[n])
      continue;
    need[n] = true;
    for (int o : L.nodes[n].operands) {
      if (o >= n)
        return {};
      stack.push_back(o);
    }
  }
  std::vector<int> order;
  for (size_t n = 0; n < need.size(); ++n)
    if (need[n])
      order.push_back(static_cast<int>(n));
  return order;
}

} // namespace

std::optional<TileEpilogue> tileEpilogue(const LoopKernel &L) {
  if (!L.packed.tilesStoreOutputs() || L.outputs.size() != 1 || L.outputs[0].elem != DType::F32)
    return std::nullopt;
  TileEpilogue e;
  e.kernel = &L;
  e.root = L.outputs[0].node;
  if (e.root < 0 || L.nodes[e.root].type != DType::F32)
    return std::nullopt;
  e.nodes = neededNodes(L, e.root);
  const std::vector<int> &order = e.nodes;
  if (order.empty())
    return std::nullopt;
  // Each node as a token, its operands by position in |order|.
  std::vector<int> position(L.nodes.size(), -1);
  for (size_t k = 0; k < order.size(); ++k) {
    const ScalarNode &node = L.nodes[order[k]];
    position[order[k]] = static_cast<int>(k);
    std::string token;
    switch (node.kind) {
    case ScalarNode::Kind::Acc:
      if (node.type != DType::F32)
        return std::nullopt;
      token = "a";
      break;
    case ScalarNode::Kind::Const: {
      if (node.type != DType::F32)
        return std::nullopt;
      float f = static_cast<float>(node.f);
      uint32_t bits;
      std::memcpy(&bits, &f, sizeof bits);
      char hex[16];
      snprintf(hex, sizeof hex, "c%x", bits);
      token = hex;
      break;
    }
    case ScalarNode::Kind::Op:
      if (!exactOp(node, operandType(L, node)))
        return std::nullopt;
      token = std::string(opName(node.op)) + node.pred;
      for (int o : node.operands)
        token += "." + std::to_string(position[o]);
      break;
    default:
      return std::nullopt;
    }
    e.key += (k ? "_" : "") + token;
  }
  return e;
}

Value *emitTileEpilogue(IRBuilder<> &b, const TileEpilogue &e, Value *sums) {
  const LoopKernel &L = *e.kernel;
  unsigned lanes = cast<FixedVectorType>(sums->getType())->getNumElements();
  std::vector<Value *> value(L.nodes.size(), nullptr);
  for (int n : e.nodes) {
    const ScalarNode &node = L.nodes[n];
    switch (node.kind) {
    case ScalarNode::Kind::Acc:
      value[n] = sums;
      break;
    case ScalarNode::Kind::Const:
      value[n] = b.CreateVectorSplat(lanes, ConstantFP::get(b.getFloatTy(), node.f));
      break;
    default: {
      std::vector<Value *> ops;
      for (int o : node.operands)
        ops.push_back(value[o]);
      value[n] = emitScalarOp(b, node.op, node.pred, node.type, operandType(L, node), ops);
      break;
    }
    }
  }
  return value[e.root];
}

} // namespace graft::codegen
