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

// Ops whose result is the same bits on a vector as on each lane alone:
// emitScalarOp's form of them is plain IR, exactly rounded or exact, or a
// function MathFunctions.cpp builds from such IR (the same on a vector).
bool exactOp(const ScalarNode &node, DType operandType) {
  if (operandType != DType::F32)
    return false;
  switch (node.op) {
  case OpKind::Add: case OpKind::Sub: case OpKind::Mul: case OpKind::Div: case OpKind::Max:
  case OpKind::Min: case OpKind::Neg: case OpKind::Abs: case OpKind::Sqrt: case OpKind::Rsqrt:
  case OpKind::Sign: case OpKind::Pow: case OpKind::Exp: case OpKind::Log: case OpKind::Tanh:
  case OpKind::Floor: case OpKind::Ceil: case OpKind::Round: case OpKind::Sigmoid:
  case OpKind::Erf: case OpKind::Sin: case OpKind::Cos: case OpKind::Log1p: case OpKind::Expm1:
    return node.type == DType::F32;
  case OpKind::Cmp: case OpKind::IsNan: case OpKind::IsInf:
    return node.type == DType::I1;
  case OpKind::Select:
    return node.type == DType::F32;
  default:
    return false;
  }
}

// The ops MathFunctions.cpp computes (a polynomial and more a value).
bool graftFunction(OpKind op) {
  switch (op) {
  case OpKind::Pow: case OpKind::Exp: case OpKind::Log: case OpKind::Tanh: case OpKind::Sigmoid:
  case OpKind::Erf: case OpKind::Sin: case OpKind::Cos: case OpKind::Log1p: case OpKind::Expm1:
    return true;
  default:
    return false;
  }
}

// How the tile reads f32 input |input| at the output's point, or nullopt
// where it cannot: through its map, every dim indexed by a parallel dim of
// the domain, the output's columns (if at all) by its last, contiguous dim.
std::optional<EpilogueOperand> inputOperand(const LoopKernel &L, const ScalarNode &node) {
  if (!node.operands.empty() || node.checked || node.guarded || node.type != DType::F32 ||
      node.input >= L.inputs.size())
    return std::nullopt;
  const KernelInput &in = L.inputs[node.input];
  const int P = static_cast<int>(L.numParallel);
  if (in.elem != DType::F32 || !in.rowStarts.empty() || in.map.empty() || P < 2)
    return std::nullopt;
  EpilogueOperand o;
  o.index = node.input;
  for (size_t k = 0; k < in.map.size(); ++k) {
    const int d = in.map[k];
    if (d < 0 || d >= P)
      return std::nullopt;
    if (d == P - 1) {
      if (o.columns || k + 1 != in.map.size())
        return std::nullopt;
      o.columns = true;
    }
    o.rows |= d == P - 2;
  }
  return o;
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
  if (!L.packed.tilesStoreOutputs() || L.outputs.size() != 1)
    return std::nullopt;
  TileEpilogue e;
  e.kernel = &L;
  e.root = L.outputs[0].node;
  if (e.root < 0)
    return std::nullopt;
  // i8 operands' i32 sums: the tiles store them as they are (the
  // identity), nothing on top.
  if (L.packed.pairs() && L.outputs[0].elem == DType::I32 &&
      L.nodes[e.root].kind == ScalarNode::Kind::Acc && L.nodes[e.root].type == DType::I32) {
    e.nodes = {e.root};
    e.key = "a";
    return e;
  }
  if (L.outputs[0].elem != DType::F32 || L.nodes[e.root].type != DType::F32)
    return std::nullopt;
  e.nodes = neededNodes(L, e.root);
  const std::vector<int> &order = e.nodes;
  if (order.empty())
    return std::nullopt;
  // Each node as a token, its operands by position in |order|.
  std::vector<int> position(L.nodes.size(), -1);
  e.operandOf.assign(L.nodes.size(), -1);
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
    case ScalarNode::Kind::Load:
    case ScalarNode::Kind::Param: {
      std::optional<EpilogueOperand> o;
      if (node.kind == ScalarNode::Kind::Load) {
        o = inputOperand(L, node);
      } else if (node.type == DType::F32) {
        o = EpilogueOperand{};
        o->param = true;
        o->index = node.param;
      }
      if (!o)
        return std::nullopt;
      size_t at = 0;
      while (at < e.operands.size() &&
             !(e.operands[at].param == o->param && e.operands[at].index == o->index))
        ++at;
      if (at == e.operands.size())
        e.operands.push_back(*o);
      e.operandOf[order[k]] = static_cast<int>(at);
      token = std::string(o->param ? "p" : "l") + (o->columns ? "c" : "") + (o->rows ? "r" : "") +
              std::to_string(at);
      break;
    }
    case ScalarNode::Kind::Op:
      if (!exactOp(node, operandType(L, node)))
        return std::nullopt;
      e.costly |= graftFunction(node.op);
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

Value *emitTileEpilogue(IRBuilder<> &b, const TileEpilogue &e, Value *sums,
                        const std::function<Value *(unsigned)> &operand) {
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
    case ScalarNode::Kind::Load:
    case ScalarNode::Kind::Param:
      value[n] = operand(static_cast<unsigned>(e.operandOf[n]));
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
