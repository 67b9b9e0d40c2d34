// The reference evaluator: one plain loop nest per op over packed row-major
// host buffers. Sizes only known at run time (`?`) are checked here against
// what the op requires, so a bad input is an error message, never a crash.
#include "eval/Evaluator.h"

#include "eval/RowMajor.h"
#include "eval/ScalarOps.h"
#include "eval/WindowOps.h"
#include "ir/MapBroadcast.h"
#include "ir/SliceBounds.h"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <new>
#include <map>
#include <utility>

namespace graft {

namespace {

// The evaluator refuses tensors bigger than this rather than exhaust memory.
constexpr uint64_t kMaxBytes = uint64_t(1) << 32;
// Nor calls nested deeper than this (each is a native stack frame).
constexpr unsigned kMaxCallDepth = 256;

std::string shapeStr(const std::vector<int64_t> &dims) {
  std::string s = "[";
  for (size_t i = 0; i < dims.size(); ++i)
    s += (i ? ", " : "") + std::to_string(dims[i]);
  return s + "]";
}

// A value during evaluation: its concrete shape and packed elements.
struct Buffer {
  DType elem = DType::Invalid;
  std::vector<int64_t> dims; // empty for scalars and rank-0 tensors
  std::vector<uint8_t> data;

  size_t count() const { return data.size() / dtypeSize(elem); }
  Scalar at(size_t i) const { return loadScalar(elem, data.data() + i * dtypeSize(elem)); }
  void set(size_t i, Scalar s) { storeScalar(elem, data.data() + i * dtypeSize(elem), s); }
};

// The one loop of the data-movement ops (broadcast, transpose, gather,
// slice, pad, tile, split): fills |out|, already allocated, element by
// element in row-major order. For output index |idx|, |sourceOf(idx,
// srcIdx)| sets srcIdx to the element of |src| the output takes and returns
// true, or returns false where the output is |fill| instead (one element
// of out's type: pad's value; the other ops never fill).
template <typename SourceOf>
void copyElements(Buffer &out, const Buffer &src, SourceOf sourceOf,
                  const uint8_t *fill = nullptr) {
  if (out.data.empty())
    return;
  size_t size = dtypeSize(out.elem);
  uint8_t *to = out.data.data();
  std::vector<int64_t> idx(out.dims.size(), 0), srcIdx(src.dims.size(), 0);
  do {
    if (sourceOf(std::as_const(idx), srcIdx)) {
      std::memcpy(to, src.data.data() + flatten(srcIdx, src.dims) * size, size);
    } else {
      assert(fill && "an op that fills must pass its fill value");
      std::memcpy(to, fill, size);
    }
    to += size; // row-major: the output index advances by one element
  } while (nextIndex(idx, out.dims));
}

class Evaluator {
public:
  Evaluator(const Function &fn, std::string &error) : fn_(fn), error_(error) {}

  bool bindInputs(const std::vector<graft_tensor_t> &inputs);
  bool run();
  bool takeOutputs(std::vector<graft_tensor_t> &outputs);

private:
  bool fail(const Op &op, const std::string &msg) {
    error_ = "'" + std::string(opName(op.kind)) + "' at line " +
             std::to_string(op.loc.line) + ":" + std::to_string(op.loc.col) + ": " + msg;
    return false;
  }
  const Buffer &in(const Op &op, size_t i) const { return env_.at(op.operands[i]); }
  int64_t sizeOperand(const Op &op, size_t i) const { return in(op, i).at(0).i; }
  // Allocates |out| for op's result with |dims|; checks the sizes against
  // the declared result type and the memory limit.
  bool allocate(const Op &op, const std::vector<int64_t> &dims, Buffer &out);
  // Result dims: static sizes from the type, '?' from size operands [from..).
  bool sizedDims(const Op &op, size_t from, std::vector<int64_t> &dims);

  bool evalOp(const Op &op);
  bool evalConstant(const Op &op, Buffer &out);
  bool evalMatmul(const Op &op, Buffer &out);
  bool evalMap(const Op &op, Buffer &out);
  bool evalBroadcast(const Op &op, Buffer &out);
  bool evalTranspose(const Op &op, Buffer &out);
  bool evalReduce(const Op &op, Buffer &out);
  bool evalGather(const Op &op, Buffer &out);
  bool evalSlice(const Op &op, Buffer &out);
  bool evalIota(const Op &op, Buffer &out);
  bool evalConcat(const Op &op, Buffer &out);
  bool evalPad(const Op &op, Buffer &out);
  // Ops with several results bind them all.
  bool evalSplit(const Op &op);
  bool evalCall(const Op &op);
  bool evalTile(const Op &op, Buffer &out);
  bool evalArgReduce(const Op &op, Buffer &out);
  bool evalScalar(const Op &op, Buffer &out);

  const Function &fn_;
  std::string &error_;
  std::map<const Value *, Buffer> env_;
  unsigned depth_ = 0; // calls around this function's evaluation
};

bool Evaluator::bindInputs(const std::vector<graft_tensor_t> &inputs) {
  if (inputs.size() != fn_.args.size()) {
    error_ = "'@" + fn_.name + "' expects " + std::to_string(fn_.args.size()) +
             " inputs, found " + std::to_string(inputs.size());
    return false;
  }
  for (size_t i = 0; i < inputs.size(); ++i) {
    const Value *arg = fn_.args[i];
    const graft_tensor_t &t = inputs[i];
    std::string what = "argument " + std::to_string(i + 1) + " (%" + arg->name + ")";
    const Type &want = arg->type;
    // An index argument may come as i64, as graft-run accepts it: the text
    // and .npy forms have no index type of their own.
    bool indexAsI64 = want.elem == DType::Index && t.dtype == GRAFT_DTYPE_I64;
    if (t.dtype != static_cast<uint32_t>(want.elem) && !indexAsI64) {
      // dtypeName, not the runtime's table: the evaluator core needs only
      // the tensor struct, not the runtime I/O library.
      error_ = what + " has element type " +
               (t.dtype < GRAFT_DTYPE_COUNT_ ? dtypeName(static_cast<DType>(t.dtype))
                                             : "#" + std::to_string(t.dtype)) +
               ", expected " + dtypeName(want.elem);
      return false;
    }
    if (t.rank != want.rank() || t.rank > GRAFT_MAX_RANK) {
      error_ = what + " has rank " + std::to_string(t.rank) + ", expected " +
               std::to_string(want.rank()) + " (" + want.str() + ")";
      return false;
    }
    Buffer b;
    b.elem = want.elem;
    uint64_t count = 1;
    for (uint32_t d = 0; d < t.rank; ++d) {
      int64_t size = t.dims[d];
      if (size < 0 || (want.dims[d] != kDynamic && want.dims[d] != size)) {
        error_ = what + " has dimension " + std::to_string(d) + " of size " +
                 std::to_string(size) + ", expected " +
                 (want.dims[d] == kDynamic ? std::string("a size >= 0")
                                           : std::to_string(want.dims[d])) +
                 " (" + want.str() + ")";
        return false;
      }
      b.dims.push_back(size);
      count = size == 0 ? 0 : count;
      if (size && count > kMaxBytes / static_cast<uint64_t>(size)) {
        error_ = what + " is too large for the reference evaluator";
        return false;
      }
      count *= static_cast<uint64_t>(size);
    }
    uint64_t bytes = count * dtypeSize(want.elem);
    if (bytes > kMaxBytes || t.size < bytes || (bytes && !t.data)) {
      error_ = what + " holds " + std::to_string(t.size) + " bytes, expected " +
               std::to_string(bytes);
      return false;
    }
    const uint8_t *p = static_cast<const uint8_t *>(t.data);
    b.data.assign(p, p + bytes);
    env_[arg] = std::move(b);
  }
  return true;
}

bool Evaluator::allocate(const Op &op, const std::vector<int64_t> &dims, Buffer &out) {
  const Type &type = op.result()->type;
  if (dims.size() != type.rank())
    return fail(op, "computed rank " + std::to_string(dims.size()) +
                        " does not match the result type " + type.str());
  uint64_t count = 1;
  for (size_t d = 0; d < dims.size(); ++d) {
    if (dims[d] < 0)
      return fail(op, "size " + std::to_string(dims[d]) + " of dimension " +
                          std::to_string(d) + " is negative");
    if (type.dims[d] != kDynamic && type.dims[d] != dims[d])
      return fail(op, "computed shape " + shapeStr(dims) +
                          " does not match the result type " + type.str());
    if (dims[d] && count > kMaxBytes / static_cast<uint64_t>(dims[d]))
      return fail(op, "result of shape " + shapeStr(dims) + " is too large");
    count *= static_cast<uint64_t>(dims[d]);
  }
  if (count * dtypeSize(type.elem) > kMaxBytes)
    return fail(op, "result of shape " + shapeStr(dims) + " is too large");
  out.elem = type.elem;
  out.dims = dims;
  try {
    out.data.assign(count * dtypeSize(type.elem), 0);
  } catch (const std::bad_alloc &) {
    return fail(op, "cannot allocate " + std::to_string(count * dtypeSize(type.elem)) +
                        " bytes for the result of shape " + shapeStr(dims));
  }
  return true;
}

bool Evaluator::sizedDims(const Op &op, size_t from, std::vector<int64_t> &dims) {
  dims.clear();
  size_t next = from;
  for (int64_t d : op.result()->type.dims) {
    if (d != kDynamic) {
      dims.push_back(d);
    } else {
      if (next >= op.operands.size())
        return fail(op, "missing size operand");
      dims.push_back(sizeOperand(op, next++));
    }
  }
  return true;
}

bool Evaluator::run() {
  for (const Op *op : fn_.ops)
    if (!evalOp(*op))
      return false;
  return true;
}

bool Evaluator::evalOp(const Op &op) {
  if (op.kind == OpKind::Split)
    return evalSplit(op);
  if (op.kind == OpKind::Call)
    return evalCall(op);
  Buffer out;
  std::vector<int64_t> dims;
  switch (op.kind) {
  case OpKind::Constant:
    if (!evalConstant(op, out))
      return false;
    break;
  case OpKind::Empty:
    if (!sizedDims(op, 0, dims) || !allocate(op, dims, out))
      return false;
    break;
  case OpKind::Fill: {
    if (!allocate(op, in(op, 1).dims, out))
      return false;
    Scalar v = in(op, 0).at(0);
    for (size_t i = 0; i < out.count(); ++i)
      out.set(i, v);
    break;
  }
  case OpKind::Dim: {
    const Buffer &t = in(op, 0);
    int64_t axis = op.intAttr("axis");
    if (axis < 0 || static_cast<size_t>(axis) >= t.dims.size())
      return fail(op, "axis " + std::to_string(axis) + " is out of range");
    if (!allocate(op, {}, out))
      return false;
    Scalar s;
    s.i = t.dims[static_cast<size_t>(axis)];
    out.set(0, s);
    break;
  }
  case OpKind::Matmul:
  case OpKind::BatchMatmul:
    if (!evalMatmul(op, out))
      return false;
    break;
  case OpKind::Map:
    if (!evalMap(op, out))
      return false;
    break;
  case OpKind::Broadcast:
    if (!evalBroadcast(op, out))
      return false;
    break;
  case OpKind::Transpose:
    if (!evalTranspose(op, out))
      return false;
    break;
  case OpKind::Reshape: {
    if (!sizedDims(op, 1, dims) || !allocate(op, dims, out))
      return false;
    const Buffer &src = in(op, 0);
    if (src.data.size() != out.data.size())
      return fail(op, "cannot reshape " + shapeStr(src.dims) + " (" +
                          std::to_string(src.count()) + " elements) to " +
                          shapeStr(dims) + " (" + std::to_string(out.count()) +
                          " elements)");
    out.data = src.data;
    break;
  }
  case OpKind::Reduce:
    if (!evalReduce(op, out))
      return false;
    break;
  case OpKind::Gather:
    if (!evalGather(op, out))
      return false;
    break;
  case OpKind::Slice:
    if (!evalSlice(op, out))
      return false;
    break;
  case OpKind::Iota:
    if (!evalIota(op, out))
      return false;
    break;
  case OpKind::Concat:
    if (!evalConcat(op, out))
      return false;
    break;
  case OpKind::Pad:
    if (!evalPad(op, out))
      return false;
    break;
  case OpKind::Tile:
    if (!evalTile(op, out))
      return false;
    break;
  case OpKind::ArgMax:
  case OpKind::ArgMin:
    if (!evalArgReduce(op, out))
      return false;
    break;
  case OpKind::Conv:
  case OpKind::Pool: {
    const Buffer &x = in(op, 0);
    const Buffer *w = op.kind == OpKind::Conv ? &in(op, 1) : nullptr;
    dims = windowResultDims(op, x.dims, w ? &w->dims : nullptr);
    if (!allocate(op, dims, out))
      return false;
    ArrayRef input{x.elem, x.dims, x.data.data()};
    if (w)
      evalConv(op, input, ArrayRef{w->elem, w->dims, w->data.data()}, dims, out.data.data());
    else
      evalPool(op, input, dims, out.data.data());
    break;
  }
  case OpKind::KernelCall:
    if (op.callee)
      return fail(op, "kernel_call @" + op.callee->name + " calls an external kernel, which the "
                      "reference evaluator cannot run: its code comes from a spec rule when "
                      "the graph is built");
    return fail(op, "kernel calls cannot be run by the reference evaluator; "
                    "evaluate the graph before spec rewriting");
  default:
    if (!evalScalar(op, out))
      return false;
    break;
  }
  env_[op.result()] = std::move(out);
  return true;
}

bool Evaluator::evalConstant(const Op &op, Buffer &out) {
  const Type &t = op.result()->type;
  if (!t.hasStaticShape())
    return fail(op, "constant needs a static shape, found " + t.str());
  if (!allocate(op, t.dims, out))
    return false; // allocate() said why
  size_t size = dtypeSize(t.elem);
  const ConstantData &c = op.constant;
  if (c.splat ? c.bytes.size() != size : c.bytes.size() != out.data.size())
    return fail(op, "constant payload has " + std::to_string(c.bytes.size()) +
                        " bytes, expected " +
                        std::to_string(c.splat ? size : out.data.size()));
  for (size_t i = 0; i < out.data.size(); i += size)
    std::memcpy(out.data.data() + i, c.bytes.data() + (c.splat ? 0 : i), size);
  return true;
}

// acc + sum_k lhs*rhs, accumulated into acc in order k = 0..K-1.
bool Evaluator::evalMatmul(const Op &op, Buffer &out) {
  const Buffer &a = in(op, 0), &b = in(op, 1), &c = in(op, 2);
  bool batched = op.kind == OpKind::BatchMatmul;
  size_t o = batched ? 1 : 0;
  int64_t B = batched ? a.dims[0] : 1, M = a.dims[o], K = a.dims[o + 1],
          N = b.dims[o + 1];
  if (b.dims[o] != K)
    return fail(op, "inner dimensions differ: lhs has K = " + std::to_string(K) +
                        ", rhs has K = " + std::to_string(b.dims[o]));
  if (batched && (b.dims[0] != B || c.dims[0] != B))
    return fail(op, "batch dimensions differ: lhs " + shapeStr(a.dims) + ", rhs " +
                        shapeStr(b.dims) + ", accumulator " + shapeStr(c.dims));
  if (c.dims[o] != M || c.dims[o + 1] != N)
    return fail(op, "accumulator has shape " + shapeStr(c.dims) + ", expected " +
                        std::to_string(M) + "x" + std::to_string(N));
  if (!allocate(op, c.dims, out))
    return false;
  out.data = c.data;
  // Mixed precision: the inputs are converted (exactly) to the
  // accumulator's type, which computes the products and sums.
  DType t = out.elem;
  auto widen = [&](Scalar v) { return a.elem == t ? v : castScalar(v, a.elem, t); };
  for (int64_t bi = 0; bi < B; ++bi)
    for (int64_t m = 0; m < M; ++m)
      for (int64_t n = 0; n < N; ++n) {
        size_t oi = static_cast<size_t>((bi * M + m) * N + n);
        Scalar acc = out.at(oi);
        for (int64_t k = 0; k < K; ++k)
          acc = multiplyAdd(t, acc, widen(a.at(static_cast<size_t>((bi * M + m) * K + k))),
                            widen(b.at(static_cast<size_t>((bi * K + k) * N + n))));
        out.set(oi, acc);
      }
  return true;
}

bool Evaluator::evalMap(const Op &op, Buffer &out) {
  // Broadcasting (ir/MapBroadcast.h): an operand dim that repeats is read
  // at 0; the others decide the result's sizes and must agree.
  const std::vector<int64_t> &rd = op.result()->type.dims;
  std::vector<std::optional<int64_t>> sizes;
  bool agreed = mapResultSizes<int64_t>(
      op, [&](size_t i, size_t k) { return in(op, i).dims[k]; },
      [&](size_t, int64_t size, size_t i, size_t, int64_t n) {
        return size == n ||
               fail(op, "operands have different shapes: " +
                            shapeStr(in(op, 0).dims) + " and " +
                            shapeStr(in(op, i).dims));
      },
      sizes);
  if (!agreed)
    return false;
  std::vector<int64_t> dims;
  for (const std::optional<int64_t> &n : sizes)
    dims.push_back(n.value_or(1));
  if (!allocate(op, dims, out))
    return false;
  // Each operand's element offset at every result point.
  std::vector<std::vector<size_t>> offsets(op.operands.size());
  if (out.count() > 0) {
    std::vector<int64_t> idx(dims.size(), 0);
    do {
      for (size_t i = 0; i < op.operands.size(); ++i) {
        const Type &t = op.operands[i]->type;
        std::vector<int64_t> at(t.rank(), 0);
        for (size_t k = 0; k < t.rank(); ++k)
          if (!repeatsAlong(t, k, rd))
            at[k] = idx[alignedDim(k, t.rank(), rd.size())];
        offsets[i].push_back(flatten(at, in(op, i).dims));
      }
    } while (nextIndex(idx, dims));
  }
  const Region &r = *op.region;
  std::map<const Value *, Scalar> locals;
  std::vector<DType> types;
  std::vector<Scalar> args;
  auto operand = [&](const Value *v) {
    auto it = locals.find(v);
    return it != locals.end() ? it->second : env_.at(v).at(0); // capture
  };
  for (size_t e = 0; e < out.count(); ++e) {
    locals.clear();
    for (size_t i = 0; i < r.args.size(); ++i)
      locals[r.args[i]] = in(op, i).at(offsets[i][e]);
    for (const Op *inner : r.ops) {
      Scalar result;
      if (inner->kind == OpKind::Constant) {
        Buffer c;
        if (!evalConstant(*inner, c))
          return false;
        result = c.at(0);
      } else {
        types.clear();
        args.clear();
        for (const Value *v : inner->operands) {
          types.push_back(v->type.elem);
          args.push_back(operand(v));
        }
        result = applyScalarOp(*inner, types.data(), args.data(), inner->result()->type.elem);
      }
      locals[inner->result()] = result;
    }
    out.set(e, operand(r.yield));
  }
  return true;
}

// Result index j takes input index i where dims[i] == j.
bool Evaluator::evalBroadcast(const Op &op, Buffer &out) {
  const Buffer &src = in(op, 0);
  std::vector<int64_t> map = op.listAttr("dims");
  const Type &t = op.result()->type;
  std::vector<int64_t> dims(t.rank(), 0);
  size_t next = 1;
  for (size_t j = 0; j < t.rank(); ++j) {
    auto it = std::find(map.begin(), map.end(), static_cast<int64_t>(j));
    if (it != map.end())
      dims[j] = src.dims[static_cast<size_t>(it - map.begin())];
    else if (t.dims[j] != kDynamic)
      dims[j] = t.dims[j];
    else
      dims[j] = sizeOperand(op, next++);
  }
  if (!allocate(op, dims, out))
    return false;
  copyElements(out, src, [&](const std::vector<int64_t> &idx, std::vector<int64_t> &srcIdx) {
    for (size_t i = 0; i < map.size(); ++i)
      srcIdx[i] = idx[static_cast<size_t>(map[i])];
    return true;
  });
  return true;
}

// Result dim i is input dim perm[i].
bool Evaluator::evalTranspose(const Op &op, Buffer &out) {
  const Buffer &src = in(op, 0);
  std::vector<int64_t> perm = op.listAttr("perm");
  std::vector<int64_t> dims;
  for (int64_t p : perm)
    dims.push_back(src.dims[static_cast<size_t>(p)]);
  if (!allocate(op, dims, out))
    return false;
  copyElements(out, src, [&](const std::vector<int64_t> &idx, std::vector<int64_t> &srcIdx) {
    for (size_t i = 0; i < perm.size(); ++i)
      srcIdx[static_cast<size_t>(perm[i])] = idx[i];
    return true;
  });
  return true;
}

// Starts every result element at the kind's identity and folds the input in
// row-major (index) order.
bool Evaluator::evalReduce(const Op &op, Buffer &out) {
  const Buffer &src = in(op, 0);
  std::vector<int64_t> reduced = op.listAttr("dims");
  std::string kind = op.identAttr("kind");
  bool keepdims = op.intAttr("keepdims") != 0;
  auto isReduced = [&](size_t d) {
    return std::find(reduced.begin(), reduced.end(), static_cast<int64_t>(d)) != reduced.end();
  };
  std::vector<int64_t> dims;
  int64_t count = 1;
  for (size_t d = 0; d < src.dims.size(); ++d)
    if (!isReduced(d))
      dims.push_back(src.dims[d]);
    else if (keepdims)
      dims.push_back(1);
  for (int64_t r : reduced)
    count *= src.dims[static_cast<size_t>(r)];
  if (!allocate(op, dims, out))
    return false;
  for (size_t i = 0; i < out.count(); ++i)
    out.set(i, reduceInit(kind, out.elem));
  if (src.count() == 0)
    return true;
  std::vector<int64_t> idx(src.dims.size(), 0), outIdx;
  do {
    outIdx.clear();
    for (size_t d = 0; d < src.dims.size(); ++d)
      if (!isReduced(d))
        outIdx.push_back(idx[d]);
      else if (keepdims)
        outIdx.push_back(0);
    size_t o = flatten(outIdx, dims);
    out.set(o, reduceStep(kind, out.elem, out.at(o), src.at(flatten(idx, src.dims))));
  } while (nextIndex(idx, src.dims));
  for (size_t i = 0; i < out.count(); ++i)
    out.set(i, reduceFinish(kind, out.elem, out.at(i), count));
  return true;
}

// numpy's argmax / argmin, one output point at a time: scans the axis and
// keeps the first element no other beats (the last one with
// select_last_index). A NaN beats every number, so the first NaN wins.
bool Evaluator::evalArgReduce(const Op &op, Buffer &out) {
  const Buffer &src = in(op, 0);
  size_t axis = static_cast<size_t>(op.intAttr("axis"));
  bool isMax = op.kind == OpKind::ArgMax, last = op.intAttr("select_last_index") != 0;
  bool fl = isFloat(src.elem);
  // The output points, as the input's dims with |axis| of size 1.
  std::vector<int64_t> dims = src.dims;
  dims[axis] = 1;
  std::vector<int64_t> outDims = dims;
  if (!op.intAttr("keepdims"))
    outDims.erase(outDims.begin() + static_cast<std::ptrdiff_t>(axis));
  if (!allocate(op, outDims, out))
    return false;
  if (src.count() == 0)
    return true;
  // |a| beats |b| (strictly, or also on a tie when |orEqual|).
  auto beats = [&](Scalar a, Scalar b, bool orEqual) {
    if (fl) {
      if (std::isnan(b.f))
        return std::isnan(a.f) && orEqual;
      if (std::isnan(a.f))
        return true;
      return isMax ? (orEqual ? a.f >= b.f : a.f > b.f) : (orEqual ? a.f <= b.f : a.f < b.f);
    }
    return isMax ? (orEqual ? a.i >= b.i : a.i > b.i) : (orEqual ? a.i <= b.i : a.i < b.i);
  };
  std::vector<int64_t> idx(dims.size(), 0);
  size_t o = 0;
  do {
    std::vector<int64_t> at = idx;
    Scalar best = src.at(flatten(at, src.dims));
    int64_t bestIndex = 0;
    for (int64_t k = 1; k < src.dims[axis]; ++k) {
      at[axis] = k;
      Scalar x = src.at(flatten(at, src.dims));
      if (beats(x, best, last)) {
        best = x;
        bestIndex = k;
      }
    }
    Scalar r;
    r.i = bestIndex;
    out.set(o++, r);
  } while (nextIndex(idx, dims));
  return true;
}

// r[p..., j..., s...] = t[p..., i[j...], s...]; a negative index counts
// from the end, one outside [-n, n) is an error.
bool Evaluator::evalGather(const Op &op, Buffer &out) {
  const Buffer &src = in(op, 0), &indices = in(op, 1);
  size_t axis = static_cast<size_t>(op.intAttr("axis"));
  int64_t n = src.dims[axis];
  std::vector<int64_t> dims(src.dims.begin(), src.dims.begin() + axis);
  dims.insert(dims.end(), indices.dims.begin(), indices.dims.end());
  dims.insert(dims.end(), src.dims.begin() + axis + 1, src.dims.end());
  if (!allocate(op, dims, out))
    return false;
  if (out.count() == 0)
    return true;
  // A non-empty result reads every index, so all are checked first (the
  // first bad one in row-major order is the one the copy would meet).
  for (size_t i = 0; i < indices.count(); ++i) {
    int64_t k = indices.at(i).i;
    if (k < -n || k >= n)
      return fail(op, "index " + std::to_string(k) + " is out of range for axis " +
                          std::to_string(axis) + " of size " + std::to_string(n));
  }
  size_t q = indices.dims.size();
  std::vector<int64_t> at(q);
  copyElements(out, src, [&](const std::vector<int64_t> &idx, std::vector<int64_t> &srcIdx) {
    std::copy(idx.begin() + axis, idx.begin() + axis + q, at.begin());
    int64_t k = indices.at(flatten(at, indices.dims)).i;
    for (size_t d = 0; d < src.dims.size(); ++d)
      srcIdx[d] = d < axis ? idx[d] : d == axis ? (k < 0 ? k + n : k) : idx[d + q - 1];
    return true;
  });
  return true;
}

// Element j along dim d is source element start[d] + j * step[d]. A '?'
// bound is the next index operand (the starts' first, then the ends').
bool Evaluator::evalSlice(const Op &op, Buffer &out) {
  const Buffer &src = in(op, 0);
  std::vector<int64_t> starts = op.listAttr("starts"), ends = op.listAttr("ends"),
                       steps = op.listAttr("steps");
  steps.resize(src.dims.size(), 1);
  size_t next = 1;
  auto bound = [&](int64_t literal) {
    SliceBound<int64_t> b{literal};
    if (literal == kRunTimeBound)
      b = {0, true, sizeOperand(op, next++)};
    return b;
  };
  std::vector<SliceBound<int64_t>> startBounds, endBounds;
  for (int64_t s : starts)
    startBounds.push_back(bound(s));
  for (int64_t e : ends)
    endBounds.push_back(bound(e));
  std::vector<int64_t> dims, first;
  for (size_t d = 0; d < src.dims.size(); ++d) {
    SliceDim<int64_t> s = sliceBounds(startBounds[d], endBounds[d], steps[d], src.dims[d]);
    first.push_back(s.start);
    dims.push_back(s.count);
  }
  if (!allocate(op, dims, out))
    return false;
  copyElements(out, src, [&](const std::vector<int64_t> &idx, std::vector<int64_t> &srcIdx) {
    for (size_t d = 0; d < dims.size(); ++d)
      srcIdx[d] = first[d] + idx[d] * steps[d];
    return true;
  });
  return true;
}

// Every element is its index along `dim`, cast to the element type.
bool Evaluator::evalIota(const Op &op, Buffer &out) {
  std::vector<int64_t> dims;
  if (!sizedDims(op, 0, dims) || !allocate(op, dims, out))
    return false;
  if (out.count() == 0)
    return true;
  size_t dim = static_cast<size_t>(op.intAttr("dim"));
  std::vector<int64_t> idx(dims.size(), 0);
  do {
    Scalar k;
    k.i = idx[dim];
    out.set(flatten(idx, dims), castScalar(k, DType::Index, out.elem));
  } while (nextIndex(idx, dims));
  return true;
}

// The operands one after another along `axis`; the other dims must agree.
bool Evaluator::evalConcat(const Op &op, Buffer &out) {
  size_t axis = static_cast<size_t>(op.intAttr("axis"));
  std::vector<int64_t> dims = in(op, 0).dims;
  for (size_t i = 1; i < op.operands.size(); ++i) {
    const Buffer &b = in(op, i);
    for (size_t d = 0; d < dims.size(); ++d)
      if (d != axis && b.dims[d] != dims[d])
        return fail(op, "operand " + std::to_string(i) + " has shape " + shapeStr(b.dims) +
                            ", operand 0 " + shapeStr(in(op, 0).dims) + ": they differ in dim " +
                            std::to_string(d));
    dims[axis] += b.dims[axis];
  }
  if (!allocate(op, dims, out))
    return false;
  // Row-major: each operand contributes one contiguous run per outer index.
  size_t size = dtypeSize(out.elem), outer = 1, inner = size;
  for (size_t d = 0; d < axis; ++d)
    outer *= static_cast<size_t>(dims[d]);
  for (size_t d = axis + 1; d < dims.size(); ++d)
    inner *= static_cast<size_t>(dims[d]);
  size_t at = 0;
  for (size_t o = 0; o < outer; ++o)
    for (size_t i = 0; i < op.operands.size(); ++i) {
      const Buffer &b = in(op, i);
      size_t run = static_cast<size_t>(b.dims[axis]) * inner;
      if (run)
        std::memcpy(out.data.data() + at, b.data.data() + o * run, run);
      at += run;
    }
  return true;
}

// numpy.pad: result element c is the input's at c - low, or, outside the
// input, the pad value (constant), the nearest element (edge), or the
// element mirrored at the border, without repeating it, as often as it
// takes to land inside (reflect).
bool Evaluator::evalPad(const Op &op, Buffer &out) {
  const Buffer &src = in(op, 0);
  std::vector<int64_t> low = op.listAttr("low"), high = op.listAttr("high");
  std::string mode = op.identAttr("mode");
  std::vector<int64_t> dims;
  for (size_t d = 0; d < src.dims.size(); ++d) {
    if (mode != "" && mode != "constant" && (low[d] || high[d]) && src.dims[d] == 0)
      return fail(op, "dimension " + std::to_string(d) + " of the input " +
                          shapeStr(src.dims) + " is empty; " + mode +
                          " padding needs an element to copy");
    dims.push_back(src.dims[d] + low[d] + high[d]);
  }
  if (!allocate(op, dims, out))
    return false;
  auto sourceOf = [&](const std::vector<int64_t> &idx, std::vector<int64_t> &srcIdx) {
    bool inside = true;
    for (size_t d = 0; d < dims.size(); ++d) {
      int64_t n = src.dims[d], i = idx[d] - low[d];
      if (mode == "edge") {
        i = std::clamp<int64_t>(i, 0, n - 1);
      } else if (mode == "reflect") {
        while (n > 1 && (i < 0 || i >= n))
          i = i < 0 ? -i : 2 * (n - 1) - i;
        i = n == 1 ? 0 : i;
      }
      inside = inside && i >= 0 && i < n;
      srcIdx[d] = i;
    }
    return inside;
  };
  // Only constant padding has a value operand (edge and reflect always land inside).
  const uint8_t *value = op.operands.size() > 1 ? in(op, 1).data.data() : nullptr;
  copyElements(out, src, sourceOf, value);
  return true;
}

// numpy.tile with one repeat count per dim: result element c is the
// input's at c mod n.
bool Evaluator::evalTile(const Op &op, Buffer &out) {
  const Buffer &src = in(op, 0);
  std::vector<int64_t> repeats = op.listAttr("repeats"), dims;
  for (size_t d = 0; d < src.dims.size(); ++d) {
    if (repeats[d] && src.dims[d] > (int64_t(1) << 40) / repeats[d])
      return fail(op, "result of " + shapeStr(src.dims) + " tiled " + shapeStr(repeats) +
                          " times is too large");
    dims.push_back(src.dims[d] * repeats[d]);
  }
  if (!allocate(op, dims, out))
    return false;
  copyElements(out, src, [&](const std::vector<int64_t> &idx, std::vector<int64_t> &srcIdx) {
    for (size_t d = 0; d < dims.size(); ++d)
      srcIdx[d] = idx[d] % src.dims[d];
    return true;
  });
  return true;
}

// numpy.split at the offsets the sizes give: result k holds the input's
// elements [sizes[0] + ... + sizes[k-1], ... + sizes[k]) along `axis`.
bool Evaluator::evalSplit(const Op &op) {
  const Buffer &src = in(op, 0);
  size_t axis = static_cast<size_t>(op.intAttr("axis"));
  std::vector<int64_t> sizes = op.listAttr("sizes");
  int64_t sum = 0;
  for (int64_t n : sizes)
    sum += n;
  if (sum != src.dims[axis])
    return fail(op, "the sizes " + shapeStr(sizes) + " add up to " + std::to_string(sum) +
                        ", but the input " + shapeStr(src.dims) + " has " +
                        std::to_string(src.dims[axis]) + " elements along axis " +
                        std::to_string(axis));
  int64_t offset = 0;
  for (size_t k = 0; k < op.results.size(); ++k) {
    Buffer out;
    std::vector<int64_t> dims = src.dims;
    dims[axis] = sizes[k];
    out.elem = src.elem;
    out.dims = dims;
    out.data.assign(src.data.size() / (src.dims[axis] ? src.dims[axis] : 1) * sizes[k], 0);
    copyElements(out, src, [&](const std::vector<int64_t> &idx, std::vector<int64_t> &srcIdx) {
      srcIdx = idx;
      srcIdx[axis] += offset;
      return true;
    });
    const Type &declared = op.results[k]->type;
    for (size_t d = 0; d < dims.size(); ++d)
      if (declared.dims[d] != kDynamic && declared.dims[d] != dims[d])
        return fail(op, "result " + std::to_string(k + 1) + " has shape " + shapeStr(dims) +
                            ", which does not match its type " + declared.str());
    offset += sizes[k];
    env_[op.results[k]] = std::move(out);
  }
  return true;
}

// The callee evaluated on the operands (the verifier rules out recursion);
// its returned values are the call's results.
bool Evaluator::evalCall(const Op &op) {
  const Function &callee = *op.func;
  if (depth_ >= kMaxCallDepth)
    return fail(op, "calls nest deeper than " + std::to_string(kMaxCallDepth) +
                        " functions, the reference evaluator's limit");
  std::string error;
  Evaluator inner(callee, error);
  inner.depth_ = depth_ + 1;
  for (size_t i = 0; i < callee.args.size(); ++i)
    inner.env_[callee.args[i]] = in(op, i);
  if (!inner.run()) {
    // Named once, at the innermost call: the error there names the op.
    if (error.rfind("'call' at", 0) == 0)
      error_ = error;
    else
      fail(op, "in @" + callee.name + ": " + error);
    return false;
  }
  for (size_t k = 0; k < op.results.size(); ++k)
    env_[op.results[k]] = inner.env_.at(callee.results[k]);
  return true;
}

// Function-level scalar ops: index arithmetic with the host program's checks.
bool Evaluator::evalScalar(const Op &op, Buffer &out) {
  std::vector<Scalar> args;
  for (size_t i = 0; i < op.operands.size(); ++i)
    args.push_back(in(op, i).at(0));
  Scalar result;
  if (!allocate(op, {}, out))
    return false;
  if (!applyIndexOp(op, args.data(), result, error_))
    return false;
  out.set(0, result);
  return true;
}

bool Evaluator::takeOutputs(std::vector<graft_tensor_t> &outputs) {
  for (const Value *v : fn_.results) {
    const Buffer &b = env_.at(v);
    graft_tensor_t t;
    std::memset(&t, 0, sizeof t);
    t.dtype = static_cast<uint32_t>(b.elem);
    t.rank = static_cast<uint32_t>(b.dims.size());
    for (size_t d = 0; d < b.dims.size(); ++d)
      t.dims[d] = b.dims[d];
    t.size = b.data.size();
    // malloc'd so that graft_tensor_release (free) can release it; never
    // zero bytes so that an empty tensor still has a valid pointer.
    t.data = std::malloc(b.data.empty() ? 1 : b.data.size());
    if (!t.data) {
      error_ = "out of memory for the outputs";
      for (graft_tensor_t &o : outputs)
        std::free(o.data);
      outputs.clear();
      return false;
    }
    if (!b.data.empty())
      std::memcpy(t.data, b.data.data(), b.data.size());
    t.owned = 1;
    outputs.push_back(t);
  }
  return true;
}

} // namespace

bool evaluate(const Function &fn, const std::vector<graft_tensor_t> &inputs,
              std::vector<graft_tensor_t> &outputs, std::string &error) {
  outputs.clear();
  error.clear();
  Evaluator ev(fn, error);
  return ev.bindInputs(inputs) && ev.run() && ev.takeOutputs(outputs);
}

} // namespace graft
