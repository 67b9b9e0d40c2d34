// The reference semantics of `conv` and `pool` (docs/graph-format.md,
// "Windows"), over packed row-major arrays. Internal to lib/eval: the
// evaluator allocates the result with windowResultDims and calls these.
#pragma once

#include "ir/IR.h"

#include <vector>

namespace graft {

// A packed row-major array the evaluator holds.
struct ArrayRef {
  DType elem;
  const std::vector<int64_t> &dims;
  const uint8_t *data;
};

// The result shape of a verified `conv` (|weights| given) or `pool` over
// |input|: batch, channels (filters), output size per spatial dim.
std::vector<int64_t> windowResultDims(const Op &op,
                                      const std::vector<int64_t> &input,
                                      const std::vector<int64_t> *weights);

// Fill |out| (of windowResultDims' shape, the input's element type).
void evalConv(const Op &op, const ArrayRef &input, const ArrayRef &weights,
              const std::vector<int64_t> &outDims, uint8_t *out);
void evalPool(const Op &op, const ArrayRef &input,
              const std::vector<int64_t> &outDims, uint8_t *out);

} // namespace graft
