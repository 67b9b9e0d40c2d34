// conv and pool, one output element at a time. The order of the sums is
// part of the semantics (compiled code keeps it, see docs/graph-format.md):
// a conv element is 0 + x*w summed over the group's channels, then the
// window positions in row-major order, padding reading 0; an average sums
// the window in row-major order starting from its first element (padding
// 0) and divides once.
#include "eval/WindowOps.h"

#include "eval/RowMajor.h"
#include "eval/ScalarOps.h"
#include "ir/Window.h"

namespace graft {

namespace {

// Where window position |k| of output point |o| reads the input, per
// spatial dim; false when that is padding.
bool inputPosition(const Window &w, const std::vector<int64_t> &inDims,
                   const int64_t *o, const std::vector<int64_t> &k,
                   std::vector<int64_t> &at) {
  bool inside = true;
  for (size_t d = 0; d < w.rank(); ++d) {
    at[d] = o[d] * w.strides[d] + k[d] * w.dilations[d] - w.padsBegin[d];
    inside = inside && at[d] >= 0 && at[d] < inDims[d + 2];
  }
  return inside;
}

// Flat offset of [n, c, at...] in |dims|.
size_t offset(const std::vector<int64_t> &dims, int64_t n, int64_t c,
              const std::vector<int64_t> &at) {
  size_t flat = static_cast<size_t>(n) * static_cast<size_t>(dims[1]) +
                static_cast<size_t>(c);
  for (size_t d = 0; d < at.size(); ++d)
    flat = flat * static_cast<size_t>(dims[d + 2]) + static_cast<size_t>(at[d]);
  return flat;
}

Scalar load(const ArrayRef &a, size_t i) {
  return loadScalar(a.elem, a.data + i * dtypeSize(a.elem));
}

// A zero of any element type (Scalar holds integers in i, floats in f).
Scalar zero() { return Scalar{}; }

// a / b in float type |t|, as a map body's `div` computes it.
Scalar divide(DType t, Scalar a, Scalar b) {
  Op div;
  div.kind = OpKind::Div;
  div.operands = {nullptr, nullptr}; // binary: only the count is read
  DType types[2] = {t, t};
  Scalar args[2] = {a, b};
  return applyScalarOp(div, types, args, t);
}

} // namespace

std::vector<int64_t> windowResultDims(const Op &op,
                                      const std::vector<int64_t> &input,
                                      const std::vector<int64_t> *weights) {
  std::vector<int64_t> size =
      weights ? std::vector<int64_t>(weights->begin() + 2, weights->end())
              : op.listAttr("window");
  Window w = Window::of(op, size);
  std::vector<int64_t> dims = {input[0], weights ? (*weights)[0] : input[1]};
  for (size_t d = 0; d < w.rank(); ++d)
    dims.push_back(w.outputSize(d, input[d + 2]));
  return dims;
}

void evalConv(const Op &op, const ArrayRef &input, const ArrayRef &weights,
              const std::vector<int64_t> &outDims, uint8_t *out) {
  std::vector<int64_t> kernel(weights.dims.begin() + 2, weights.dims.end());
  Window w = Window::of(op, kernel);
  DType t = input.elem;
  int64_t groups = op.intAttr("group", 1), perGroup = weights.dims[1],
          filtersPerGroup = weights.dims[0] / groups;
  std::vector<int64_t> idx(outDims.size(), 0), k(w.rank(), 0), at(w.rank(), 0);
  for (int64_t d : outDims)
    if (d == 0)
      return;
  size_t i = 0;
  do {
    int64_t n = idx[0], f = idx[1],
            firstChannel = f / filtersPerGroup * perGroup;
    Scalar acc = zero();
    for (int64_t c = 0; c < perGroup; ++c) {
      std::fill(k.begin(), k.end(), 0);
      do {
        Scalar x =
            inputPosition(w, input.dims, idx.data() + 2, k, at)
                ? load(input, offset(input.dims, n, firstChannel + c, at))
                : zero();
        acc = multiplyAdd(t, acc, load(weights, offset(weights.dims, f, c, k)),
                          x);
      } while (nextIndex(k, w.size));
    }
    storeScalar(t, out + i++ * dtypeSize(t), acc);
  } while (nextIndex(idx, outDims));
}

void evalPool(const Op &op, const ArrayRef &input,
              const std::vector<int64_t> &outDims, uint8_t *out) {
  Window w = Window::of(op, op.listAttr("window"));
  DType t = input.elem;
  bool avg = op.identAttr("kind") == "avg",
       includePad = op.intAttr("count_include_pad") != 0;
  std::vector<int64_t> idx(outDims.size(), 0), k(w.rank(), 0), at(w.rank(), 0);
  for (int64_t d : outDims)
    if (d == 0)
      return;
  int64_t windowCount = 1;
  for (int64_t s : w.size)
    windowCount *= s;
  size_t i = 0;
  do {
    std::fill(k.begin(), k.end(), 0);
    Scalar acc = reduceInit(avg ? "sum" : "max", t);
    int64_t count = 0;
    bool first = true;
    do {
      bool inside = inputPosition(w, input.dims, idx.data() + 2, k, at);
      count += inside;
      if (!inside && !avg)
        continue; // padding is max's identity
      Scalar x =
          inside ? load(input, offset(input.dims, idx[0], idx[1], at)) : zero();
      acc = first && avg ? x : reduceStep(avg ? "sum" : "max", t, acc, x);
      first = false;
    } while (nextIndex(k, w.size));
    if (avg) {
      Scalar divisor;
      divisor.i = includePad ? windowCount : count;
      acc = divide(t, acc, castScalar(divisor, DType::I64, t));
    }
    storeScalar(t, out + i++ * dtypeSize(t), acc);
  } while (nextIndex(idx, outDims));
}

} // namespace graft
