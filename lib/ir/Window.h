// The sliding window of `conv` and `pool` (docs/graph-format.md, "Windows"):
// per spatial dim a window size, stride, padding before and after, and
// dilation. Read from an op's attributes once, here, so that the verifier,
// the evaluator and the lowering to matmuls and maps agree on defaults and
// on the output size.
#pragma once

#include "ir/IR.h"

#include <algorithm>
#include <cstdint>
#include <vector>

namespace graft {

struct Window {
  // One entry per spatial dim (the dims after batch and channel).
  std::vector<int64_t> size, strides, padsBegin, padsEnd, dilations;

  size_t rank() const { return size.size(); }

  // The window of |op| over |spatial| dims of size |sizes|: `strides` and
  // `dilations` default to 1, `pads` (all begins, then all ends, as ONNX
  // writes them) to 0. The verifier has checked the lists' lengths.
  static Window of(const Op &op, std::vector<int64_t> sizes) {
    Window w;
    size_t n = sizes.size();
    w.size = std::move(sizes);
    w.strides = op.listAttr("strides");
    w.dilations = op.listAttr("dilations");
    std::vector<int64_t> pads = op.listAttr("pads");
    w.strides.resize(n, 1);
    w.dilations.resize(n, 1);
    pads.resize(2 * n, 0);
    w.padsBegin.assign(pads.begin(),
                       pads.begin() + static_cast<std::ptrdiff_t>(n));
    w.padsEnd.assign(pads.begin() + static_cast<std::ptrdiff_t>(n), pads.end());
    return w;
  }

  // Elements the dilated window spans along spatial dim |d|.
  int64_t span(size_t d) const { return dilations[d] * (size[d] - 1) + 1; }

  // Output size along spatial dim |d| for an input of |in| elements: the
  // window positions that fit the padded input, 0 when none does.
  int64_t outputSize(size_t d, int64_t in) const {
    int64_t room = in + padsBegin[d] + padsEnd[d] - span(d);
    return room < 0 ? 0 : room / strides[d] + 1;
  }

  bool hasPadding() const {
    return std::any_of(padsBegin.begin(), padsBegin.end(),
                       [](int64_t p) { return p != 0; }) ||
           std::any_of(padsEnd.begin(), padsEnd.end(),
                       [](int64_t p) { return p != 0; });
  }
};

} // namespace graft
