// Numpy-style broadcasting of map operands (MapBroadcast.h).
#include "ir/MapBroadcast.h"

#include <algorithm>

namespace graft {

bool mapResultDims(const std::vector<const Type *> &operands, std::vector<int64_t> &out,
                   std::string &error) {
  size_t rank = 0;
  for (const Type *t : operands)
    rank = std::max<size_t>(rank, t->rank());
  out.assign(rank, 1);
  for (size_t j = 0; j < rank; ++j) {
    // The dims that do not repeat (all but static 1s) decide: a static one
    // if any, else '?'.
    bool any = false;
    for (const Type *t : operands) {
      if (t->rank() + j < rank)
        continue; // a missing leading dim
      int64_t d = t->dims[j - (rank - t->rank())];
      if (d == 1)
        continue;
      if (!any || out[j] == kDynamic) {
        out[j] = d;
      } else if (d != kDynamic && d != out[j]) {
        error = "dim " + std::to_string(j) + ": " + std::to_string(out[j]) + " and " +
                std::to_string(d) + " do not broadcast";
        return false;
      }
      any = true;
    }
  }
  return true;
}

bool readsDirectly(const Type &operand, const std::vector<int64_t> &resultDims) {
  if (operand.rank() != resultDims.size())
    return false;
  for (size_t k = 0; k < operand.rank(); ++k)
    if (repeatsAlong(operand, k, resultDims))
      return false;
  return true;
}

} // namespace graft
