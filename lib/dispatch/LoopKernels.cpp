// Building LoopKernels: the domain, inputs and scalar DAG of a dispatch from
// its root op (matmul, reduce, fill, broadcast, transpose, map) and the maps
// fused into it.
#include "dispatch/Former.h"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <cstring>
#include <limits>

namespace graft {

unsigned Former::param(KB &kb, uint32_t expr) {
  auto it = kb.paramIndex.find(expr);
  if (it != kb.paramIndex.end())
    return it->second;
  unsigned p = static_cast<unsigned>(kb.d.params.size());
  kb.d.params.push_back(expr);
  kb.paramIndex[expr] = p;
  return p;
}

int Former::node(KB &kb, SNode n) {
  kb.d.loop.nodes.push_back(std::move(n));
  return static_cast<int>(kb.d.loop.nodes.size() - 1);
}

int Former::constNode(KB &kb, DType t, double f, int64_t i) {
  SNode n{SNode::Kind::Const, t};
  n.f = f;
  n.i = i;
  return node(kb, n);
}

int Former::loadNode(KB &kb, const Value *v, std::vector<int> map) {
  if (views.count(v) && v->def->kind == OpKind::Transpose) {
    // Dim i of the view is dim perm[i] of the operand.
    std::vector<int64_t> perm = v->def->listAttr("perm");
    std::vector<int> composed(perm.size());
    for (size_t i = 0; i < perm.size(); ++i)
      composed[perm[i]] = map[i];
    return loadNode(kb, v->def->operands[0], composed);
  }
  if (views.count(v)) {
    // Broadcast dim k of the operand is dim dims[k] of the view.
    std::vector<int64_t> dims = v->def->listAttr("dims");
    std::vector<int> composed;
    for (int64_t d : dims)
      composed.push_back(map[d]);
    return loadNode(kb, v->def->operands[0], composed);
  }
  if (v->def && rowStats.count(v->def)) {
    assert(map == identity(static_cast<unsigned>(map.size())) &&
           "row statistic read other than at its row");
    return rowStatNode(kb, v->def);
  }
  uint32_t buf = buffer(v);
  auto key = std::make_pair(buf, map);
  auto it = kb.inputIndex.find(key);
  unsigned idx;
  if (it != kb.inputIndex.end()) {
    idx = it->second;
  } else {
    KernelInput in;
    in.buffer = buf;
    in.elem = v->type.elem;
    in.map = map;
    for (uint32_t e : shapes.dimsOf(v))
      in.dimParams.push_back(param(kb, e));
    idx = static_cast<unsigned>(kb.d.loop.inputs.size());
    kb.d.loop.inputs.push_back(std::move(in));
    kb.inputIndex[key] = idx;
  }
  SNode n{SNode::Kind::Load, v->type.elem};
  n.input = idx;
  return node(kb, n);
}

// The update op of reduction |kind| (sum, prod, max, min).
static OpKind reduceOp(const std::string &kind) {
  return kind == "max" ? OpKind::Max
         : kind == "min" ? OpKind::Min
         : kind == "prod" ? OpKind::Mul : OpKind::Add;
}

int Former::rowStatNode(KB &kb, const Op *op) {
  auto it = kb.nodeOf.find(op->result());
  if (it != kb.nodeOf.end())
    return it->second;
  std::string kind = op->identAttr("kind");
  DType t = op->result()->type.elem;
  int body = atPoint(kb, op->operands[0]);
  int init = reduceIdentity(kb, kind, t);
  SNode n{SNode::Kind::RowReduce, t};
  n.op = reduceOp(kind);
  n.operands = {body, init};
  int id = node(kb, n);
  kb.nodeOf[op->result()] = id;
  return id;
}

// A tensor value at the current parallel point.
int Former::atPoint(KB &kb, const Value *v) {
  auto it = kb.nodeOf.find(v);
  if (it != kb.nodeOf.end())
    return it->second;
  std::vector<int> map;
  for (unsigned i = 0; i < v->type.rank(); ++i)
    map.push_back(static_cast<int>(i));
  return loadNode(kb, v, map);
}

// A scalar defined outside any body (constant, dim, scalar argument).
int Former::outerScalar(KB &kb, const Value *v) {
  if (v->def && v->def->kind == OpKind::Constant) {
    DType t = v->type.elem;
    return constNode(kb, t, isFloat(t) ? v->def->constant.getFloat(t, 0) : 0,
                     isFloat(t) ? 0 : v->def->constant.getInt(t, 0));
  }
  uint32_t e = 0;
  bool ok = shapes.scalarOf(v, e);
  assert(ok && "captured scalar without host expression");
  (void)ok;
  SNode n{SNode::Kind::Param, v->type.elem};
  n.param = param(kb, e);
  return node(kb, n);
}

void Former::emitMap(KB &kb, const Op *op) {
  const Region &r = *op->region;
  std::map<const Value *, int> local;
  for (size_t i = 0; i < r.args.size(); ++i)
    local[r.args[i]] = atPoint(kb, op->operands[i]);
  auto get = [&](const Value *v) {
    auto it = local.find(v);
    return it != local.end() ? it->second : outerScalar(kb, v);
  };
  for (const Op *b : r.ops) {
    const Value *res = b->result();
    if (b->kind == OpKind::Constant) {
      local[res] = outerScalar(kb, res);
      continue;
    }
    SNode n{SNode::Kind::Op, res->type.elem};
    n.op = b->kind;
    if (b->kind == OpKind::Cmp)
      n.pred = b->identAttr("pred");
    for (const Value *o : b->operands)
      n.operands.push_back(get(o));
    local[res] = node(kb, n);
  }
  kb.nodeOf[op->result()] = get(r.yield);
}

std::vector<int> Former::identity(unsigned n) {
  std::vector<int> m;
  for (unsigned i = 0; i < n; ++i)
    m.push_back(static_cast<int>(i));
  return m;
}

int Former::reduceIdentity(KB &kb, const std::string &kind, DType t) {
  bool fl = isFloat(t);
  double inf = std::numeric_limits<double>::infinity();
  int64_t imax = 0, imin = 0;
  switch (t) {
  case DType::I1: imax = 1; imin = 0; break;
  case DType::I8: imax = INT8_MAX; imin = INT8_MIN; break;
  case DType::I16: imax = INT16_MAX; imin = INT16_MIN; break;
  case DType::I32: imax = INT32_MAX; imin = INT32_MIN; break;
  default: imax = INT64_MAX; imin = INT64_MIN; break;
  }
  if (kind == "max")
    return constNode(kb, t, -inf, imin);
  if (kind == "min")
    return constNode(kb, t, inf, imax);
  if (kind == "prod")
    return constNode(kb, t, 1.0, 1);
  return constNode(kb, t, fl ? 0.0 : 0.0, 0);
}

void Former::rootKernel(KB &kb, const Op *op) {
  LoopKernel &L = kb.d.loop;
  const Value *res = op->result();
  std::vector<uint32_t> domain = shapes.dimsOf(res);
  L.numParallel = static_cast<unsigned>(domain.size());
  switch (op->kind) {
  case OpKind::Matmul:
  case OpKind::BatchMatmul: {
    bool batch = op->kind == OpKind::BatchMatmul;
    const auto &ld = shapes.dimsOf(op->operands[0]);
    domain.push_back(ld.back()); // K
    std::vector<int> lm = batch ? std::vector<int>{0, 1, 3} : std::vector<int>{0, 2};
    std::vector<int> rm = batch ? std::vector<int>{0, 3, 2} : std::vector<int>{2, 1};
    const Value *acc = op->operands[2];
    L.accType = res->type.elem;
    if (acc->def && acc->def->kind == OpKind::Fill && groupOf[acc->def] == -2) {
      const Value *s = acc->def->operands[0];
      L.accInit = outerScalar(kb, s);
    } else {
      L.accInit = atPoint(kb, acc);
    }
    int a = loadNode(kb, op->operands[0], lm);
    int b = loadNode(kb, op->operands[1], rm);
    SNode mul{SNode::Kind::Op, L.accType};
    mul.op = OpKind::Mul;
    mul.operands = {a, b};
    int m = node(kb, mul);
    SNode accN{SNode::Kind::Acc, L.accType};
    int ac = node(kb, accN);
    SNode add{SNode::Kind::Op, L.accType};
    add.op = OpKind::Add;
    add.operands = {ac, m};
    L.accUpdate = node(kb, add);
    kb.nodeOf[res] = ac;
    break;
  }
  case OpKind::Reduce: {
    const Value *in = op->operands[0];
    std::vector<int64_t> rd = op->listAttr("dims");
    std::sort(rd.begin(), rd.end());
    const auto &id = shapes.dimsOf(in);
    std::vector<int> map(id.size());
    int kept = 0;
    for (size_t i = 0; i < id.size(); ++i) {
      auto pos = std::find(rd.begin(), rd.end(), static_cast<int64_t>(i));
      if (pos != rd.end()) {
        map[i] = static_cast<int>(L.numParallel + (pos - rd.begin()));
        domain.push_back(id[i]);
      } else {
        map[i] = kept++;
      }
    }
    std::string kind = op->identAttr("kind");
    L.accType = res->type.elem;
    L.accInit = reduceIdentity(kb, kind, L.accType);
    int ld = loadNode(kb, in, map);
    SNode accN{SNode::Kind::Acc, L.accType};
    int ac = node(kb, accN);
    SNode upd{SNode::Kind::Op, L.accType};
    upd.op = reduceOp(kind);
    upd.operands = {ac, ld};
    L.accUpdate = node(kb, upd);
    kb.nodeOf[res] = ac;
    break;
  }
  case OpKind::Fill:
    kb.nodeOf[res] = outerScalar(kb, op->operands[0]);
    break;
  case OpKind::Broadcast: {
    std::vector<int64_t> dims = op->listAttr("dims");
    kb.nodeOf[res] = loadNode(kb, op->operands[0],
                              std::vector<int>(dims.begin(), dims.end()));
    break;
  }
  case OpKind::Transpose: {
    std::vector<int64_t> perm = op->listAttr("perm");
    std::vector<int> map(perm.size());
    for (size_t i = 0; i < perm.size(); ++i)
      map[perm[i]] = static_cast<int>(i);
    kb.nodeOf[res] = loadNode(kb, op->operands[0], map);
    break;
  }
  case OpKind::Map:
    emitMap(kb, op);
    break;
  default:
    assert(false && "not a loop-kernel root");
  }
  kb.domain = domain;
}

void Former::loopGroup(int g) {
  const auto &ops = groups[g];
  Dispatch d;
  d.name = dispatchName(ops.front());
  d.loc = ops.front()->loc;
  d.source = sm.formatShort(d.loc);
  KB kb{d, {}, {}, {}, {}};
  rootKernel(kb, ops.front());
  for (size_t i = 1; i < ops.size(); ++i)
    emitMap(kb, ops[i]);
  // Inputs are bound first, outputs after; params are final.
  for (const Op *op : ops) {
    const Value *v = op->result();
    if (!usedOutside(v, g))
      continue;
    KernelOutput o;
    o.buffer = outputBuffer(v);
    o.node = kb.nodeOf[v];
    o.elem = v->type.elem;
    d.loop.outputs.push_back(o);
  }
  finishLoop(kb);
  for (const KernelInput &in : d.loop.inputs)
    d.bindings.push_back(in.buffer);
  for (const KernelOutput &o : d.loop.outputs)
    d.bindings.push_back(o.buffer);
  addDispatchStep(std::move(d));
}

} // namespace graft
