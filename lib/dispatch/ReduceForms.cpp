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
//     %m = reduce %x {dims = [a], kind = max}    (min for argmin)
//     %c = map %x, broadcast(%m), iota(a) {
//            select(x == m or isnan(x), i, sentinel) }
//     %r = reduce %c {dims = [a], kind = min}    (max: select_last_index)
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
#include <iterator>
#include <limits>

namespace graft {

namespace {

class ReduceLowering {
public:
  ReduceLowering(Function &fn, Op &op) : op_(op), b_(fn, op.loc) {}
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

  Op &op_;
  OpBuilder b_;
  std::vector<Op *> &ops_ = b_.ops;
  std::vector<Value *> sizes_;
};

Value *ReduceLowering::inputSize(unsigned d) {
  Value *x = op_.operands[0];
  sizes_.resize(x->type.rank(), nullptr);
  if (!sizes_[d])
    sizes_[d] = b_.dim(x, d);
  return sizes_[d];
}

void ReduceLowering::reshapeInto(Value *v,
                                 const std::vector<int64_t> &reduced) {
  std::vector<Value *> operands{v};
  const Type &out = op_.result()->type;
  Value *one = nullptr;
  for (unsigned d = 0; d < out.rank(); ++d) {
    if (out.dims[d] != kDynamic)
      continue;
    if (std::find(reduced.begin(), reduced.end(), static_cast<int64_t>(d)) ==
        reduced.end()) {
      operands.push_back(inputSize(d));
      continue;
    }
    // A reduced dim the result declares '?': it is 1.
    if (!one)
      one = b_.intConstant(DType::Index, 1);
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
  bool isMax = op_.kind == OpKind::ArgMax,
       last = op_.intAttr("select_last_index") != 0;

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
  Value *extreme =
      b_.add(OpKind::Reduce, {x}, Type::tensorOf(elem, reducedDims),
             {OpBuilder::attr("dims", std::vector<int64_t>{axis}),
              OpBuilder::attr("kind", isMax ? "max" : "min")});
  // broadcast takes the sizes of the dims it adds: the axis.
  std::vector<Value *> spreadOperands{extreme};
  if (in.dims[static_cast<size_t>(axis)] == kDynamic)
    spreadOperands.push_back(inputSize(static_cast<unsigned>(axis)));
  Value *spread = b_.add(OpKind::Broadcast, spreadOperands, in,
                         {OpBuilder::attr("dims", kept)});
  Value *position = b_.add(OpKind::Iota, allSizes, Type::tensorOf(idx, in.dims),
                           {OpBuilder::attr("dim", axis)});

  // The candidates' indices, the sentinel elsewhere.
  Value *candidates =
      b_.map({x, spread, position}, Type::tensorOf(idx, in.dims));
  const std::vector<Value *> &a = b_.body->args;
  Value *isCandidate = b_.bodyOp(OpKind::Cmp, DType::I1, {a[0], a[1]},
                                 {OpBuilder::attr("pred", "eq")});
  if (isFloat(elem)) {
    Value *nan = b_.bodyOp(OpKind::IsNan, DType::I1, {a[0]});
    isCandidate =
        b_.bodyOp(OpKind::Select, DType::I1,
                  {nan, b_.bodyIntConstant(DType::I1, 1), isCandidate});
  }
  int64_t sentinel =
      last ? -1
           : (idx == DType::I32 ? std::numeric_limits<int32_t>::max()
                                : std::numeric_limits<int64_t>::max());
  b_.yield(b_.bodyOp(OpKind::Select, idx,
                     {isCandidate, a[2], b_.bodyIntConstant(idx, sentinel)}));

  std::vector<NamedAttr> pick{
      OpBuilder::attr("dims", std::vector<int64_t>{axis}),
      OpBuilder::attr("kind", last ? "max" : "min")};
  if (op_.intAttr("keepdims")) {
    reshapeInto(b_.add(OpKind::Reduce, {candidates},
                       Type::tensorOf(idx, reducedDims), pick),
                {axis});
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
    bool reduced = std::find(dims.begin(), dims.end(),
                             static_cast<int64_t>(d)) != dims.end();
    if (!reduced)
      reducedDims.push_back(in.dims[d]);
    else if (in.dims[d] == kDynamic)
      dynamicSizes.push_back(inputSize(d));
    else
      staticCount *= in.dims[d];
  }
  Type reducedType = Type::tensorOf(in.elem, reducedDims);
  std::vector<NamedAttr> plain{
      OpBuilder::attr("dims", dims),
      OpBuilder::attr("kind", mean ? "sum" : kind.c_str())};
  if (!keepdims) {
    // mean without keepdims: op_ becomes the map, after a new sum.
    Value *sum = b_.add(OpKind::Reduce, {x}, reducedType, plain);
    op_.kind = OpKind::Map;
    op_.operands = {sum};
    op_.attrs.clear();
  }
  Value *r =
      keepdims ? b_.add(OpKind::Reduce, {x}, reducedType, plain) : nullptr;
  if (mean) {
    // The count as an index: the static part times every '?' reduced dim
    // (function-level index arithmetic), cast to the element type.
    Value *count = nullptr;
    if (!dynamicSizes.empty()) {
      count = dynamicSizes[0];
      for (size_t i = 1; i < dynamicSizes.size(); ++i)
        count = b_.add(OpKind::Mul, {count, dynamicSizes[i]},
                       Type::scalar(DType::Index));
    }
    Value *mapped;
    if (keepdims) {
      mapped = b_.map({r}, reducedType);
    } else {
      // op_ is the map: its body is built in place.
      b_.beginBody(op_);
      mapped = op_.result();
    }
    Value *n = b_.bodyIntConstant(DType::I64, staticCount);
    n = b_.bodyOp(OpKind::Cast, in.elem, {n});
    if (count) {
      Value *dynamic = b_.bodyOp(OpKind::Cast, in.elem, {count});
      n = staticCount == 1 ? dynamic
                           : b_.bodyOp(OpKind::Mul, in.elem, {n, dynamic});
    }
    b_.yield(b_.bodyOp(OpKind::Div, in.elem, {b_.body->args[0], n}));
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
    fn.ops.insert(fn.ops.begin() + static_cast<std::ptrdiff_t>(i),
                  lowered.begin(), lowered.end());
    i += lowered.size() - 1;
  }
}

} // namespace graft
