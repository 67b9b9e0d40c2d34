// Building LoopKernels: the domain, inputs and scalar DAG of a dispatch from
// its root op (matmul, reduce, fill, broadcast, transpose, gather, slice,
// iota, concat, map) and the maps fused into it.
#include "dispatch/Former.h"
#include "support/InternalError.h"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <cstring>
#include <limits>

namespace graft {

unsigned Former::param(KernelDraft &draft, uint32_t expr) {
  auto it = draft.paramIndex.find(expr);
  if (it != draft.paramIndex.end())
    return it->second;
  unsigned p = static_cast<unsigned>(draft.d.params.size());
  draft.d.params.push_back(expr);
  draft.paramIndex[expr] = p;
  return p;
}

int Former::node(KernelDraft &draft, ScalarNode n) {
  draft.d.loop.nodes.push_back(std::move(n));
  return static_cast<int>(draft.d.loop.nodes.size() - 1);
}

int Former::constNode(KernelDraft &draft, DType t, double f, int64_t i) {
  ScalarNode n{ScalarNode::Kind::Const, t};
  n.f = f;
  n.i = i;
  return node(draft, n);
}

int Former::loadNode(KernelDraft &draft, const Value *v, std::vector<int> map) {
  if (views.count(v) && v->def->kind == OpKind::Map) {
    // A map its reduction computes (isReducedMap): its body over its
    // operands, each read where the map's point is (the same shape).
    std::vector<int> args;
    for (const Value *o : v->def->operands)
      args.push_back(loadNode(draft, o, map));
    return mapBody(draft, v->def, args);
  }
  if (views.count(v) && v->def->kind == OpKind::Transpose) {
    // Dim i of the view is dim perm[i] of the operand.
    std::vector<int64_t> perm = v->def->listAttr("perm");
    std::vector<int> composed(perm.size());
    for (size_t i = 0; i < perm.size(); ++i)
      composed[perm[i]] = map[i];
    return loadNode(draft, v->def->operands[0], composed);
  }
  if (views.count(v) && v->def->kind != OpKind::Broadcast) {
    std::vector<int> at;
    for (int d : map)
      at.push_back(indexNode(draft, d));
    return viewAt(draft, v->def, at);
  }
  if (views.count(v)) {
    // Broadcast dim k of the operand is dim dims[k] of the view.
    std::vector<int64_t> dims = v->def->listAttr("dims");
    std::vector<int> composed;
    for (int64_t d : dims)
      composed.push_back(map[d]);
    return loadNode(draft, v->def->operands[0], composed);
  }
  if (v->def && rowStats.count(v->def)) {
    assert(map == identity(static_cast<unsigned>(map.size())) &&
           "row statistic read other than at its row");
    return rowStatNode(draft, v->def);
  }
  ScalarNode n{ScalarNode::Kind::Load, v->type.elem};
  n.input = input(draft, v, map);
  return node(draft, n);
}

int Former::rowsNode(KernelDraft &draft, const Value *rhs, const std::vector<int> &map) {
  if (!rhs->def || rhs->def->kind != OpKind::Reshape)
    return -1;
  const Value *cat = rhs->def->operands[0];
  if (!views.count(cat) || !rowsOf(cat->def))
    return -1;
  // The source [.., C, 1, L] read as [.., C, L] (no dedup: its map is the
  // rhs's, its rows are not).
  const Value *src = cat->def->operands[0]->def->operands[0];
  const std::vector<uint32_t> &dims = shapes.dimsOf(src);
  KernelInput in;
  in.buffer = buffer(src);
  in.elem = src->type.elem;
  in.map = map;
  if (map.size() == 3)
    in.dimParams.push_back(param(draft, dims[0]));
  in.dimParams.push_back(param(draft, dims[1]));
  in.dimParams.push_back(param(draft, dims[3]));
  for (const Value *slice : cat->def->operands)
    in.rowStarts.push_back(param(draft, sliceDimExprs(shapes, *slice->def, 3, dims).start));
  ScalarNode n{ScalarNode::Kind::Load, in.elem};
  n.input = static_cast<unsigned>(draft.d.loop.inputs.size());
  draft.d.loop.inputs.push_back(std::move(in));
  return node(draft, n);
}

unsigned Former::input(KernelDraft &draft, const Value *v, const std::vector<int> &map) {
  uint32_t buf = buffer(v);
  auto key = std::make_pair(buf, map);
  auto it = draft.inputIndex.find(key);
  if (it != draft.inputIndex.end())
    return it->second;
  KernelInput in;
  in.buffer = buf;
  in.elem = v->type.elem;
  in.map = map;
  for (uint32_t e : shapes.dimsOf(v))
    in.dimParams.push_back(param(draft, e));
  unsigned idx = static_cast<unsigned>(draft.d.loop.inputs.size());
  draft.d.loop.inputs.push_back(std::move(in));
  draft.inputIndex[key] = idx;
  return idx;
}

int Former::indexNode(KernelDraft &draft, int dim) {
  ScalarNode n{ScalarNode::Kind::Index, DType::Index};
  n.i = dim;
  return node(draft, n);
}

int Former::readAt(KernelDraft &draft, const Value *v, const std::vector<int> &at, bool checked, int guard) {
  const std::vector<ScalarNode> &nodes = draft.d.loop.nodes;
  std::vector<int> map;
  for (int n : at)
    if (nodes[n].kind == ScalarNode::Kind::Index)
      map.push_back(static_cast<int>(nodes[n].i));
  if (map.size() == at.size() && guard < 0)
    return loadNode(draft, v, map);
  if (views.count(v)) {
    // A concat's operand (concatOperand: never guarded): the view at |at|.
    assert(guard < 0 && v->def->kind != OpKind::Transpose && "view read at guarded coordinates");
    if (v->def->kind != OpKind::Broadcast)
      return viewAt(draft, v->def, at);
    // Broadcast dim k of the operand is dim dims[k] of the view.
    std::vector<int> srcAt;
    for (int64_t d : v->def->listAttr("dims"))
      srcAt.push_back(at[static_cast<size_t>(d)]);
    return readAt(draft, v->def->operands[0], srcAt, checked);
  }
  // Row statistics are read only by maps at their row (isRowStat).
  assert(!(v->def && rowStats.count(v->def)) && "row statistic read at coordinates");
  ScalarNode n{ScalarNode::Kind::Load, v->type.elem};
  n.input = input(draft, v, {}); // no map: read at coordinates only
  n.operands = at;
  n.checked = checked;
  if (guard >= 0) {
    n.operands.push_back(guard);
    n.guarded = true;
  }
  return node(draft, n);
}

int Former::indexOp(KernelDraft &draft, OpKind k, std::vector<int> operands,
                    const std::string &pred) {
  ScalarNode n{ScalarNode::Kind::Op, k == OpKind::Cmp ? DType::I1 : DType::Index};
  n.op = k;
  n.operands = std::move(operands);
  n.pred = pred;
  return node(draft, n);
}

int Former::sizeNode(KernelDraft &draft, uint32_t e) {
  if (std::optional<int64_t> c = shapes.exprs.constValue(e))
    return constNode(draft, DType::Index, 0, *c);
  ScalarNode n{ScalarNode::Kind::Param, DType::Index};
  n.param = param(draft, e);
  return node(draft, n);
}

int Former::viewAt(KernelDraft &draft, const Op *op, const std::vector<int> &at) {
  auto index = [&](OpKind k, std::vector<int> operands, const std::string &pred = "") {
    return indexOp(draft, k, std::move(operands), pred);
  };
  auto size = [&](uint32_t e) { return sizeNode(draft, e); };
  if (op->kind == OpKind::Iota) {
    ScalarNode n{ScalarNode::Kind::Op, op->result()->type.elem};
    n.op = OpKind::Cast;
    n.operands = {at[static_cast<size_t>(op->intAttr("dim"))]};
    return node(draft, n);
  }
  if (op->kind == OpKind::Concat) {
    // Operand i holds [offset_i, offset_i + size_i) along |axis|. Each is
    // read at the point shifted by its offset and clamped into it (reads
    // stay inside every operand; one that may be empty is guarded), and
    // a chain of selects picks the one that holds the point.
    size_t axis = static_cast<size_t>(op->intAttr("axis"));
    ExprTable &ex = shapes.exprs;
    uint32_t offset = ex.constant(0);
    std::vector<int> loads, ends;
    for (const Value *v : op->operands) {
      uint32_t n = shapes.dimsOf(v)[axis];
      std::vector<int> vAt = at;
      int local = offset == ex.constant(0) ? at[axis] : index(OpKind::Sub, {at[axis], size(offset)});
      int last = size(ex.binary(GRAFT_EXPR_SUB, n, ex.constant(1)));
      vAt[axis] = index(OpKind::Min, {index(OpKind::Max, {local, constNode(draft, DType::Index, 0, 0)}), last});
      std::optional<int64_t> known = ex.constValue(n);
      int guard = known && *known > 0
                      ? -1
                      : index(OpKind::Cmp, {size(n), constNode(draft, DType::Index, 0, 0)}, "gt");
      loads.push_back(readAt(draft, v, vAt, false, guard));
      offset = ex.binary(GRAFT_EXPR_ADD, offset, n);
      ends.push_back(size(offset));
    }
    int value = loads.back();
    for (size_t i = loads.size() - 1; i-- > 0;) {
      int inside = index(OpKind::Cmp, {at[axis], ends[i]}, "lt");
      ScalarNode sel{ScalarNode::Kind::Op, op->result()->type.elem};
      sel.op = OpKind::Select;
      sel.operands = {inside, loads[i], value};
      value = node(draft, sel);
    }
    return value;
  }
  if (op->kind == OpKind::Pad || op->kind == OpKind::Tile)
    return padOrTileAt(draft, op, at);
  const Value *src = op->operands[0];
  std::vector<int> srcAt;
  if (op->kind == OpKind::Gather) {
    // Source coordinate along |axis|: the index read at the result's
    // coordinates of the indices' dims, plus n when negative; the load is
    // checked against [0, n).
    size_t axis = static_cast<size_t>(op->intAttr("axis"));
    const Value *indices = op->operands[1];
    size_t q = indices->type.rank();
    std::vector<int> idxAt(at.begin() + axis, at.begin() + axis + q);
    int k = readAt(draft, indices, idxAt);
    if (indices->type.elem != DType::Index)
      k = index(OpKind::Cast, {k});
    int zero = constNode(draft, DType::Index, 0, 0);
    int n = size(shapes.dimsOf(src)[axis]);
    int wrapped = index(OpKind::Add, {k, n});
    int negative = index(OpKind::Cmp, {k, zero}, "lt");
    srcAt.assign(at.begin(), at.begin() + axis);
    srcAt.push_back(index(OpKind::Select, {negative, wrapped, k}));
    srcAt.insert(srcAt.end(), at.begin() + axis + q, at.end());
    return readAt(draft, src, srcAt, /*checked=*/true);
  }
  assert(op->kind == OpKind::Slice && "view of an op that is not data movement");
  std::vector<int64_t> steps = op->listAttr("steps");
  const std::vector<uint32_t> &srcDims = shapes.dimsOf(src);
  for (size_t d = 0; d < at.size(); ++d) {
    SliceDim<uint32_t> s = sliceDimExprs(shapes, *op, d, srcDims);
    int64_t step = steps.empty() ? 1 : steps[d];
    std::optional<int64_t> start = shapes.exprs.constValue(s.start);
    int c = at[d];
    if (step != 1)
      c = index(OpKind::Mul, {c, constNode(draft, DType::Index, 0, step)});
    if (!start || *start != 0)
      c = index(OpKind::Add, {c, size(s.start)});
    srcAt.push_back(c);
  }
  return readAt(draft, src, srcAt);
}

// The update op of reduction |kind| (sum, prod, max, min).
static OpKind reduceOp(const std::string &kind) {
  return kind == "max" ? OpKind::Max
         : kind == "min" ? OpKind::Min
         : kind == "prod" ? OpKind::Mul : OpKind::Add;
}

int Former::rowStatNode(KernelDraft &draft, const Op *op) {
  auto it = draft.nodeOf.find(op->result());
  if (it != draft.nodeOf.end())
    return it->second;
  std::string kind = op->identAttr("kind");
  DType t = op->result()->type.elem;
  int body = atPoint(draft, op->operands[0]);
  int init = reduceIdentity(draft, kind, t);
  ScalarNode n{ScalarNode::Kind::RowReduce, t};
  n.op = reduceOp(kind);
  n.operands = {body, init};
  int id = node(draft, n);
  draft.nodeOf[op->result()] = id;
  return id;
}

// A tensor value at the current parallel point.
int Former::atPoint(KernelDraft &draft, const Value *v) {
  auto it = draft.nodeOf.find(v);
  if (it != draft.nodeOf.end())
    return it->second;
  std::vector<int> map;
  for (unsigned i = 0; i < v->type.rank(); ++i)
    map.push_back(static_cast<int>(i));
  return loadNode(draft, v, map);
}

// A scalar defined outside any body (constant, dim, scalar argument).
int Former::outerScalar(KernelDraft &draft, const Value *v) {
  if (v->def && v->def->kind == OpKind::Constant) {
    DType t = v->type.elem;
    return constNode(draft, t, isFloat(t) ? v->def->constant.getFloat(t, 0) : 0,
                     isFloat(t) ? 0 : v->def->constant.getInt(t, 0));
  }
  uint32_t e = 0;
  bool ok = shapes.scalarOf(v, e);
  assert(ok && "captured scalar without host expression");
  (void)ok;
  ScalarNode n{ScalarNode::Kind::Param, v->type.elem};
  n.param = param(draft, e);
  return node(draft, n);
}

void Former::emitMap(KernelDraft &draft, const Op *op) {
  std::vector<int> args;
  for (const Value *o : op->operands)
    args.push_back(atPoint(draft, o));
  draft.nodeOf[op->result()] = mapBody(draft, op, args);
}

int Former::mapBody(KernelDraft &draft, const Op *op, const std::vector<int> &args) {
  const Region &r = *op->region;
  std::map<const Value *, int> local;
  for (size_t i = 0; i < r.args.size(); ++i)
    local[r.args[i]] = args[i];
  auto get = [&](const Value *v) {
    auto it = local.find(v);
    return it != local.end() ? it->second : outerScalar(draft, v);
  };
  for (const Op *b : r.ops) {
    const Value *res = b->result();
    if (b->kind == OpKind::Constant) {
      local[res] = outerScalar(draft, res);
      continue;
    }
    ScalarNode n{ScalarNode::Kind::Op, res->type.elem};
    n.op = b->kind;
    if (b->kind == OpKind::Cmp)
      n.pred = b->identAttr("pred");
    for (const Value *o : b->operands)
      n.operands.push_back(get(o));
    local[res] = node(draft, n);
  }
  return get(r.yield);
}

std::vector<int> Former::identity(unsigned n) {
  std::vector<int> m;
  for (unsigned i = 0; i < n; ++i)
    m.push_back(static_cast<int>(i));
  return m;
}

int Former::reduceIdentity(KernelDraft &draft, const std::string &kind, DType t) {
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
    return constNode(draft, t, -inf, imin);
  if (kind == "min")
    return constNode(draft, t, inf, imax);
  if (kind == "prod")
    return constNode(draft, t, 1.0, 1);
  return constNode(draft, t, fl ? 0.0 : 0.0, 0);
}

void Former::rootKernel(KernelDraft &draft, const Op *op) {
  LoopKernel &L = draft.d.loop;
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
    if (acc->def && absorbedFills.count(acc->def)) {
      const Value *s = acc->def->operands[0];
      L.accInit = outerScalar(draft, s);
    } else {
      L.accInit = atPoint(draft, acc);
    }
    int a = loadNode(draft, op->operands[0], lm);
    int b = rowsNode(draft, op->operands[1], rm);
    if (b < 0)
      b = loadNode(draft, op->operands[1], rm);
    // Mixed precision: narrow inputs are widened to the accumulator's type.
    if (op->operands[0]->type.elem != L.accType) {
      ScalarNode widen{ScalarNode::Kind::Op, L.accType};
      widen.op = OpKind::Cast;
      widen.operands = {a};
      a = node(draft, widen);
      widen.operands = {b};
      b = node(draft, widen);
    }
    ScalarNode mul{ScalarNode::Kind::Op, L.accType};
    mul.op = OpKind::Mul;
    mul.operands = {a, b};
    int m = node(draft, mul);
    ScalarNode accN{ScalarNode::Kind::Acc, L.accType};
    int ac = node(draft, accN);
    ScalarNode add{ScalarNode::Kind::Op, L.accType};
    add.op = OpKind::Add;
    add.operands = {ac, m};
    L.accUpdate = node(draft, add);
    draft.nodeOf[res] = ac;
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
    L.accInit = reduceIdentity(draft, kind, L.accType);
    int ld = loadNode(draft, in, map);
    ScalarNode accN{ScalarNode::Kind::Acc, L.accType};
    int ac = node(draft, accN);
    ScalarNode upd{ScalarNode::Kind::Op, L.accType};
    upd.op = reduceOp(kind);
    upd.operands = {ac, ld};
    L.accUpdate = node(draft, upd);
    draft.nodeOf[res] = ac;
    break;
  }
  case OpKind::Fill:
    draft.nodeOf[res] = outerScalar(draft, op->operands[0]);
    break;
  case OpKind::Broadcast: {
    std::vector<int64_t> dims = op->listAttr("dims");
    draft.nodeOf[res] = loadNode(draft, op->operands[0],
                              std::vector<int>(dims.begin(), dims.end()));
    break;
  }
  case OpKind::Transpose: {
    std::vector<int64_t> perm = op->listAttr("perm");
    std::vector<int> map(perm.size());
    for (size_t i = 0; i < perm.size(); ++i)
      map[perm[i]] = static_cast<int>(i);
    draft.nodeOf[res] = loadNode(draft, op->operands[0], map);
    break;
  }
  case OpKind::Gather:
  case OpKind::Slice:
  case OpKind::Iota:
  case OpKind::Concat:
  case OpKind::Pad:
  case OpKind::Tile: {
    std::vector<int> at;
    for (unsigned d = 0; d < L.numParallel; ++d)
      at.push_back(indexNode(draft, static_cast<int>(d)));
    draft.nodeOf[res] = viewAt(draft, op, at);
    break;
  }
  case OpKind::Map:
    emitMap(draft, op);
    break;
  default:
    GRAFT_INTERNAL_ERROR(std::string("'") + opName(op->kind) + "' is not a loop-kernel root");
  }
  draft.domain = domain;
}

void Former::loopGroup(int g) {
  const auto &ops = groups[g];
  Dispatch d;
  d.name = dispatchName(ops.front());
  d.loc = ops.front()->loc;
  d.source = sm.formatShort(d.loc);
  KernelDraft draft{d, {}, {}, {}, {}};
  rootKernel(draft, ops.front());
  for (size_t i = 1; i < ops.size(); ++i)
    emitMap(draft, ops[i]);
  // Inputs are bound first, outputs after; params are final.
  for (const Op *op : ops) {
    const Value *v = op->result();
    if (!usedOutside(v, g))
      continue;
    KernelOutput o;
    o.buffer = outputBuffer(v);
    o.node = draft.nodeOf[v];
    o.elem = v->type.elem;
    d.loop.outputs.push_back(o);
  }
  finishLoop(draft);
  for (const KernelInput &in : d.loop.inputs)
    d.bindings.push_back(in.buffer);
  for (const KernelOutput &o : d.loop.outputs)
    d.bindings.push_back(o.buffer);
  addDispatchStep(std::move(d));
}

} // namespace graft
