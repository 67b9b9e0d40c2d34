// Numpy-style broadcasting of `map` operands (docs/graph-format.md, "map"),
// restricted so that it is known when building: operands align at their
// last dims; a missing leading dim, or a dim of static size 1 where the
// result's is not 1, repeats. A `?` dim never repeats: it must equal the
// result's size when the graph runs (numpy would also repeat it when it
// turns out to be 1; graft reports the mismatch instead). Written once for
// the verifier, the shape analysis, the evaluator and the dispatch lowering.
#pragma once

#include "ir/IR.h"

#include <optional>
#include <string>
#include <vector>

namespace graft {

// The result dims of a map over |operands| (kDynamic for '?'), or false
// with |error| ("dim 1: 3 and 4 do not broadcast") when two operands have
// different static sizes (neither 1) in one dim.
bool mapResultDims(const std::vector<const Type *> &operands,
                   std::vector<int64_t> &out, std::string &error);

// The result dim that dim |k| of an operand of rank |rank| aligns with.
inline size_t alignedDim(size_t k, size_t rank, size_t resultRank) {
  return k + (resultRank - rank);
}

// Whether dim |k| of |operand| repeats along the result (|resultDims|).
inline bool repeatsAlong(const Type &operand, size_t k,
                         const std::vector<int64_t> &resultDims) {
  return operand.dims[k] == 1 &&
         resultDims[alignedDim(k, operand.rank(), resultDims.size())] != 1;
}

// Whether |operand| is read as it is (same rank, no repeated dim).
bool readsDirectly(const Type &operand, const std::vector<int64_t> &resultDims);

// The sizes of |map|'s result when it runs, for the evaluator (concrete
// sizes) and the shape analysis (symbolic ones): result dim j is the size
// of the first operand dim that does not repeat along it, |sizeOf(i, k)|
// for dim k of operand i. Every later operand dim that does not repeat
// along j goes to |agree(first, size, i, k, n)| (|first| the operand that
// gave j its |size|, |n| = sizeOf(i, k)), which returns false to stop the
// walk, and then so does this. A result dim that every operand repeats or
// lacks stays empty: its size is 1.
template <class Size, class SizeOf, class Agree>
bool mapResultSizes(const Op &map, SizeOf sizeOf, Agree agree,
                    std::vector<std::optional<Size>> &out) {
  const std::vector<int64_t> &rd = map.result()->type.dims;
  out.assign(rd.size(), std::nullopt);
  std::vector<size_t> from(rd.size(), 0);
  for (size_t i = 0; i < map.operands.size(); ++i) {
    const Type &t = map.operands[i]->type;
    for (size_t k = 0; k < t.rank(); ++k) {
      if (repeatsAlong(t, k, rd))
        continue;
      size_t j = alignedDim(k, t.rank(), rd.size());
      Size n = sizeOf(i, k);
      if (!out[j]) {
        out[j] = n;
        from[j] = i;
      } else if (!agree(from[j], *out[j], i, k, n)) {
        return false;
      }
    }
  }
  return true;
}

} // namespace graft
