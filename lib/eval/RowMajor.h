// Row-major index arithmetic over packed arrays, shared by the evaluator's
// loops (Evaluator.cpp, WindowOps.cpp). Internal to lib/eval.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace graft {

// Row-major flat offset of |idx| in |dims|.
inline size_t flatten(const std::vector<int64_t> &idx, const std::vector<int64_t> &dims) {
  size_t flat = 0;
  for (size_t d = 0; d < dims.size(); ++d)
    flat = flat * static_cast<size_t>(dims[d]) + static_cast<size_t>(idx[d]);
  return flat;
}

// Advances |idx| in row-major order; false after the last index.
inline bool nextIndex(std::vector<int64_t> &idx, const std::vector<int64_t> &dims) {
  for (size_t d = dims.size(); d-- > 0;) {
    if (++idx[d] < dims[d])
      return true;
    idx[d] = 0;
  }
  return false;
}

} // namespace graft
