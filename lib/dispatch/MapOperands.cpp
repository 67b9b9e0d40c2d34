// A map operand that broadcasts (ir/MapBroadcast.h) becomes an explicit
// `broadcast` before dispatch formation (see Dispatch.h), after a `reshape`
// that drops its repeated size-1 dims. Both are views: the map's dispatch
// reads the operand's own elements through an index map, so nothing is
// materialised, exactly as for a broadcast written in the graph.
#include "dispatch/Dispatch.h"
#include "dispatch/OpBuilder.h"
#include "ir/MapBroadcast.h"

#include <algorithm>
#include <cassert>
#include <iterator>

namespace graft {

namespace {

// The size of result dim |j| of |map| as an index value: the dim of an
// operand that does not repeat along it (one exists where the result's
// type says '?').
Value *resultSize(OpBuilder &b, const Op &map, size_t j) {
  const std::vector<int64_t> &rd = map.result()->type.dims;
  for (Value *o : map.operands) {
    const Type &t = o->type;
    for (size_t k = 0; k < t.rank(); ++k)
      if (alignedDim(k, t.rank(), rd.size()) == j && !repeatsAlong(t, k, rd))
        return b.dim(o, static_cast<unsigned>(k));
  }
  assert(false && "a '?' map result dim that no operand gives");
  return nullptr;
}

// |v| read at the shape of |map|'s result.
Value *broadcastOperand(OpBuilder &b, const Op &map, Value *v) {
  const Type &t = v->type;
  const std::vector<int64_t> &rd = map.result()->type.dims;
  std::vector<int64_t> keptDims, resultPositions;
  std::vector<Value *> keptSizes;
  for (size_t k = 0; k < t.rank(); ++k) {
    if (repeatsAlong(t, k, rd))
      continue;
    keptDims.push_back(t.dims[k]);
    resultPositions.push_back(static_cast<int64_t>(alignedDim(k, t.rank(), rd.size())));
    if (t.dims[k] == kDynamic)
      keptSizes.push_back(b.dim(v, static_cast<unsigned>(k)));
  }
  Value *source = v;
  if (keptDims.size() != t.rank()) {
    std::vector<Value *> operands{v};
    operands.insert(operands.end(), keptSizes.begin(), keptSizes.end());
    source = b.add(OpKind::Reshape, operands, Type::tensorOf(t.elem, keptDims));
  }
  std::vector<Value *> operands{source};
  for (size_t j = 0; j < rd.size(); ++j)
    if (rd[j] == kDynamic &&
        std::find(resultPositions.begin(), resultPositions.end(), static_cast<int64_t>(j)) ==
            resultPositions.end())
      operands.push_back(resultSize(b, map, j));
  return b.add(OpKind::Broadcast, operands, Type::tensorOf(t.elem, rd),
               {OpBuilder::attr("dims", resultPositions)});
}

} // namespace

void expandMapBroadcasts(Function &fn) {
  for (size_t i = 0; i < fn.ops.size(); ++i) {
    Op *op = fn.ops[i];
    if (op->kind != OpKind::Map)
      continue;
    OpBuilder b(fn, op->loc);
    for (Value *&o : op->operands)
      if (!readsDirectly(o->type, op->result()->type.dims))
        o = broadcastOperand(b, *op, o);
    fn.ops.insert(fn.ops.begin() + static_cast<std::ptrdiff_t>(i), b.ops.begin(), b.ops.end());
    i += b.ops.size();
  }
}

} // namespace graft
