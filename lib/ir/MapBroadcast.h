// Numpy-style broadcasting of `map` operands (docs/graph-format.md, "map"),
// restricted so that it is known when building: operands align at their
// last dims; a missing leading dim, or a dim of static size 1 where the
// result's is not 1, repeats. A `?` dim never repeats: it must equal the
// result's size when the graph runs (numpy would also repeat it when it
// turns out to be 1; graft reports the mismatch instead). Written once for
// the verifier, the shape analysis, the evaluator and the dispatch lowering.
#pragma once

#include "ir/IR.h"

#include <string>
#include <vector>

namespace graft {

// The result dims of a map over |operands| (kDynamic for '?'), or false
// with |error| ("dim 1: 3 and 4 do not broadcast") when two operands have
// different static sizes (neither 1) in one dim.
bool mapResultDims(const std::vector<const Type *> &operands, std::vector<int64_t> &out,
                   std::string &error);

// The result dim that dim |k| of an operand of rank |rank| aligns with.
inline size_t alignedDim(size_t k, size_t rank, size_t resultRank) {
  return k + (resultRank - rank);
}

// Whether dim |k| of |operand| repeats along the result (|resultDims|).
inline bool repeatsAlong(const Type &operand, size_t k, const std::vector<int64_t> &resultDims) {
  return operand.dims[k] == 1 &&
         resultDims[alignedDim(k, operand.rank(), resultDims.size())] != 1;
}

// Whether |operand| is read as it is (same rank, no repeated dim).
bool readsDirectly(const Type &operand, const std::vector<int64_t> &resultDims);

} // namespace graft
