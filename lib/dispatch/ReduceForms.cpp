// The reductions dispatch formation has no kernel of its own for become
// plain `reduce`s (sum/max/min/prod over dims, no keepdims) and maps before
// dispatch formation (see Dispatch.h), so they reuse the reduce kernels,
// their fusion and their vectorization:
//
// - `reduce {kind = mean}` is the sum, then a map dividing by the element
//   count (a constant, or the product of the reduced dims' sizes);
// - `keepdims = 1` is a reshape of the result;
// - `argmax` / `argmin` are two reductions:
//
//     %m = reduce %x {dims = [a], kind = max}          (min for argmin)
//     %c = map %x, broadcast(%m), iota(a) {
//            select(x == m or isnan(x), i, sentinel) }
//     %r = reduce %c {dims = [a], kind = min}          (max with select_last_index)
//
//   `max` and `min` propagate NaN, so a row holding a NaN has m = NaN: no
//   element equals it and the NaNs alone are candidates, which makes the
//   first NaN win as in numpy. Otherwise the candidates are the elements
//   equal to the extreme (-0 equals +0, as numpy's comparisons have it) and
//   the first (last) index wins. The sentinel (the largest index value, or
//   -1) is never the result: some element is always a candidate. The index
//   reduction is exact, so the result is the same at any thread count.
//
// The op itself becomes the last op of its lowering, so every use of its
// result stays as it is.
#include "dispatch/Dispatch.h"
#include "dispatch/OpBuilder.h"

#include <algorithm>
#include <cassert>
#include <cstring>
#include <iterator>
#include <limits>

namespace graft {

namespace {

class ReduceLowering {
public:
  ReduceLowering(Function &fn, Op &op) : fn_(fn), op_(op) {}
  // The ops replacing op_ (op_ last), or empty when op_ needs no lowering.
  std::vector<Op *> run();

private:
  void lowerArgReduce();
  void lowerReduce();
  // Turns op_ into the reshape of |v| to op_'s type (keepdims of the
  // |reduced| dims).
  void reshapeInto(Value *v, const std::vector<int64_t> &reduced);
  // The size of dim |d| of op_'s input: an index value (a `dim` op, made
  // once per dim).
  Value *inputSize(unsigned d);

  Value *add(OpKind kind, std::vector<Value *> operands, Type type,
             std::vector<NamedAttr> attrs = {}) {
    return b_.add(kind, std::move(operands), std::move(type), std::move(attrs));
  }
  Value *addMap(std::vector<Value *> operands, Type type);
  Value *bodyOp(OpKind kind, std::vector<Value *> operands, DType t, const char *pred = nullptr);
  Value *bodyConstant(DType t, int64_t i, double f);
  template <class T> static NamedAttr attr(const char *name, T v) {
    return OpBuilder::attr(name, v);
  }

  Function &fn_;
  Op &op_;
  OpBuilder b_{fn_, op_.loc, {}};
  std::vector<Op *> &ops_ = b_.ops;
  std::vector<Value *> sizes_;
  Region *body_ = nullptr; // the map being built
};

// A map over |operands| whose body (args of their element types) the
// caller fills with bodyOp / bodyConstant and yields.
Value *ReduceLowering::addMap(std::vector<Value *> operands, Type type) {
  Value *v = add(OpKind::Map, operands, std::move(type));
  v->def->region = std::make_unique<Region>();
  body_ = v->def->region.get();
  for (Value *o : operands) {
    Value *a = fn_.newValue(Type::scalar(o->type.elem), "", op_.loc);
    a->argIndex = static_cast<int>(body_->args.size());
    a->region = body_;
    body_->args.push_back(a);
  }
  return v;
}

Value *ReduceLowering::bodyOp(OpKind kind, std::vector<Value *> operands, DType t,
                              const char *pred) {
  Op *o = fn_.newOp(kind, op_.loc);
  Value *v = fn_.newValue(Type::scalar(t), "", op_.loc);
  v->def = o;
  o->operands = std::move(operands);
  o->results.push_back(v);
  if (pred)
    o->attrs.push_back(attr("pred", pred));
  body_->ops.push_back(o);
  return v;
}

Value *ReduceLowering::bodyConstant(DType t, int64_t i, double f) {
  Op *op = fn_.newOp(OpKind::Constant, op_.loc);
  Value *v = fn_.newValue(Type::scalar(t), "", op_.loc);
  v->def = op;
  op->results.push_back(v);
  std::vector<uint8_t> &bytes = op->constant.bytes;
  bytes.resize(dtypeSize(t));
  // Little-endian, as ConstantData stores elements.
  uint64_t u = static_cast<uint64_t>(i);
  if (t == DType::F32) {
    float x = static_cast<float>(f);
    uint32_t w;
    std::memcpy(&w, &x, 4);
    u = w;
  } else if (t == DType::F64) {
    std::memcpy(&u, &f, 8);
  }
  assert((isInteger(t) || t == DType::F32 || t == DType::F64) &&
         "f16/bf16 constants are made by cast in the body");
  for (size_t b = 0; b < bytes.size(); ++b)
    bytes[b] = static_cast<uint8_t>(u >> (8 * b));
  body_->ops.push_back(op);
  return v;
}

Value *ReduceLowering::inputSize(unsigned d) {
  Value *x = op_.operands[0];
  sizes_.resize(x->type.rank(), nullptr);
  if (!sizes_[d])
    sizes_[d] = b_.dim(x, d);
  return sizes_[d];
}

void ReduceLowering::reshapeInto(Value *v, const std::vector<int64_t> &reduced) {
  std::vector<Value *> operands{v};
  const Type &out = op_.result()->type;
  Value *one = nullptr;
  for (unsigned d = 0; d < out.rank(); ++d) {
    if (out.dims[d] != kDynamic)
      continue;
    if (std::find(reduced.begin(), reduced.end(), static_cast<int64_t>(d)) == reduced.end()) {
      operands.push_back(inputSize(d));
      continue;
    }
    // A reduced dim the result declares '?': it is 1.
    if (!one) {
      Op *c = fn_.newOp(OpKind::Constant, op_.loc);
      one = fn_.newValue(Type::scalar(DType::Index), "", op_.loc);
      one->def = c;
      c->results.push_back(one);
      c->constant.bytes = {1, 0, 0, 0, 0, 0, 0, 0};
      ops_.push_back(c);
    }
    operands.push_back(one);
  }
  op_.kind = OpKind::Reshape;
  op_.operands = operands;
  op_.attrs.clear();
}

void ReduceLowering::lowerArgReduce() {
  Value *x = op_.operands[0];
  const Type &in = x->type;
  DType elem = in.elem, idx = op_.result()->type.elem;
  int64_t axis = op_.intAttr("axis");
  bool isMax = op_.kind == OpKind::ArgMax, last = op_.intAttr("select_last_index") != 0;

  std::vector<int64_t> reducedDims, kept;
  std::vector<Value *> allSizes;
  for (unsigned d = 0; d < in.rank(); ++d) {
    if (in.dims[d] == kDynamic)
      allSizes.push_back(inputSize(d));
    if (static_cast<int64_t>(d) != axis) {
      reducedDims.push_back(in.dims[d]);
      kept.push_back(d);
    }
  }
  Value *extreme = add(OpKind::Reduce, {x}, Type::tensorOf(elem, reducedDims),
                       {attr("dims", std::vector<int64_t>{axis}), attr("kind", isMax ? "max" : "min")});
  // broadcast takes the sizes of the dims it adds: the axis.
  std::vector<Value *> spreadOperands{extreme};
  if (in.dims[static_cast<size_t>(axis)] == kDynamic)
    spreadOperands.push_back(inputSize(static_cast<unsigned>(axis)));
  Value *spread = add(OpKind::Broadcast, spreadOperands, in, {attr("dims", kept)});
  Value *position = add(OpKind::Iota, allSizes, Type::tensorOf(idx, in.dims), {attr("dim", axis)});

  // The candidates' indices, the sentinel elsewhere.
  Value *candidates = addMap({x, spread, position}, Type::tensorOf(idx, in.dims));
  const std::vector<Value *> &a = body_->args;
  Value *isCandidate = bodyOp(OpKind::Cmp, {a[0], a[1]}, DType::I1, "eq");
  if (isFloat(elem)) {
    Value *nan = bodyOp(OpKind::IsNan, {a[0]}, DType::I1);
    isCandidate = bodyOp(OpKind::Select, {nan, bodyConstant(DType::I1, 1, 0), isCandidate},
                         DType::I1);
  }
  int64_t sentinel = last ? -1
                          : (idx == DType::I32 ? std::numeric_limits<int32_t>::max()
                                               : std::numeric_limits<int64_t>::max());
  body_->yield = bodyOp(OpKind::Select, {isCandidate, a[2], bodyConstant(idx, sentinel, 0)}, idx);

  std::vector<NamedAttr> pick{attr("dims", std::vector<int64_t>{axis}),
                              attr("kind", last ? "max" : "min")};
  if (op_.intAttr("keepdims")) {
    reshapeInto(add(OpKind::Reduce, {candidates}, Type::tensorOf(idx, reducedDims), pick), {axis});
  } else {
    op_.kind = OpKind::Reduce;
    op_.operands = {candidates};
    op_.attrs = pick;
  }
}

void ReduceLowering::lowerReduce() {
  Value *x = op_.operands[0];
  const Type &in = x->type;
  std::vector<int64_t> dims = op_.listAttr("dims");
  std::string kind = op_.identAttr("kind");
  bool mean = kind == "mean", keepdims = op_.intAttr("keepdims") != 0;
  if (!mean && !keepdims)
    return;
  std::vector<int64_t> reducedDims;
  int64_t staticCount = 1;
  std::vector<Value *> dynamicSizes;
  for (unsigned d = 0; d < in.rank(); ++d) {
    bool reduced = std::find(dims.begin(), dims.end(), static_cast<int64_t>(d)) != dims.end();
    if (!reduced)
      reducedDims.push_back(in.dims[d]);
    else if (in.dims[d] == kDynamic)
      dynamicSizes.push_back(inputSize(d));
    else
      staticCount *= in.dims[d];
  }
  Type reducedType = Type::tensorOf(in.elem, reducedDims);
  std::vector<NamedAttr> plain{attr("dims", dims), attr("kind", mean ? "sum" : kind.c_str())};
  if (!keepdims) {
    // mean without keepdims: op_ becomes the map, after a new sum.
    Value *sum = add(OpKind::Reduce, {x}, reducedType, plain);
    op_.kind = OpKind::Map;
    op_.operands = {sum};
    op_.attrs.clear();
  }
  Value *r = keepdims ? add(OpKind::Reduce, {x}, reducedType, plain) : nullptr;
  if (mean) {
    // The count as an index: the static part times every '?' reduced dim
    // (function-level index arithmetic), cast to the element type.
    Value *count = nullptr;
    if (!dynamicSizes.empty()) {
      count = dynamicSizes[0];
      for (size_t i = 1; i < dynamicSizes.size(); ++i)
        count = add(OpKind::Mul, {count, dynamicSizes[i]}, Type::scalar(DType::Index));
    }
    Value *mapped;
    if (keepdims) {
      mapped = addMap({r}, reducedType);
    } else {
      // op_ is the map: its body is built in place.
      op_.region = std::make_unique<Region>();
      body_ = op_.region.get();
      Value *a = fn_.newValue(Type::scalar(in.elem), "", op_.loc);
      a->argIndex = 0;
      a->region = body_;
      body_->args.push_back(a);
      mapped = op_.result();
    }
    Value *n = bodyConstant(DType::I64, staticCount, 0);
    n = bodyOp(OpKind::Cast, {n}, in.elem);
    if (count) {
      Value *dynamic = bodyOp(OpKind::Cast, {count}, in.elem);
      n = staticCount == 1 ? dynamic : bodyOp(OpKind::Mul, {n, dynamic}, in.elem);
    }
    body_->yield = bodyOp(OpKind::Div, {body_->args[0], n}, in.elem);
    r = mapped;
  }
  if (keepdims)
    reshapeInto(r, dims);
}

std::vector<Op *> ReduceLowering::run() {
  if (op_.kind == OpKind::ArgMax || op_.kind == OpKind::ArgMin)
    lowerArgReduce();
  else if (op_.kind == OpKind::Reduce)
    lowerReduce();
  if (ops_.empty())
    return {};
  ops_.push_back(&op_);
  return ops_;
}

} // namespace

void lowerReduceForms(Function &fn) {
  for (size_t i = 0; i < fn.ops.size(); ++i) {
    std::vector<Op *> lowered = ReduceLowering(fn, *fn.ops[i]).run();
    if (lowered.empty())
      continue;
    fn.ops.erase(fn.ops.begin() + static_cast<std::ptrdiff_t>(i));
    fn.ops.insert(fn.ops.begin() + static_cast<std::ptrdiff_t>(i), lowered.begin(),
                  lowered.end());
    i += lowered.size() - 1;
  }
}

} // namespace graft
