// Shape analysis: every tensor dim and every index scalar of a function as an
// expression of the host program (ExprTable), plus the runtime checks that
// dynamic sizes must pass (matmul K equal, map operands equal, ...).
//
// Runs after spec rewriting: the outputs of a kernel call get the shapes its
// plan's size program computes from the call's operands (ir/KernelCall.h).
#pragma once

#include "ir/IR.h"
#include "ir/SliceBounds.h"
#include "shape/ExprTable.h"

#include <map>
#include <string>
#include <vector>

namespace graft {

struct ShapeCheck {
  uint32_t lhs, rhs;
  std::string message; // "mlp.graph:7:9: matmul: inner dimensions differ"
  SourceLoc loc;       // the op that needs it (invalid: none)
  std::string what;    // the message without the location
};

struct ShapeInfo {
  ExprTable exprs;
  std::map<const Value *, std::vector<uint32_t>> dims; // tensor values
  std::map<const Value *, uint32_t> scalars;           // index/int scalars
  std::vector<ShapeCheck> checks;
  // Per kernel call: the expression id of each entry of its plan's size
  // program (KernelCall::exprs), in this function's table.
  std::map<const Op *, std::vector<uint32_t>> callExprs;

  const std::vector<uint32_t> &dimsOf(const Value *v) const;
  // Expression id for an index-typed scalar value, or for a scalar function
  // argument of any type (its raw constant word).
  bool scalarOf(const Value *v, uint32_t &out) const;
};

// Where dim |d| of `slice` |op| starts and how many elements it takes, as
// host expressions over the input's dims |in| and its '?' bounds (index
// operands, from |info|'s scalars) (ir/SliceBounds.h).
SliceDim<uint32_t> sliceDimExprs(ShapeInfo &info, const Op &op, size_t d,
                                 const std::vector<uint32_t> &in);

// Fills |info| for |fn|. Static conflicts were reported by the verifier;
// this records dynamic ones as runtime checks. Index arithmetic whose value
// is known and overflows or divides by zero is reported to |diag| at its op.
void analyzeShapes(const Function &fn, DiagEngine &diag, ShapeInfo &info);

} // namespace graft
