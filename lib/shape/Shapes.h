// Shape analysis: every tensor dim and every index scalar of a function as an
// expression of the host program (ExprTable), plus the runtime checks that
// dynamic sizes must pass (matmul K equal, map operands equal, ...).
//
// Runs after spec rewriting: the outputs of a kernel call get the shapes its
// rule's pattern computes from the call's operands.
#pragma once

#include "ir/IR.h"
#include "shape/ExprTable.h"
#include "spec/Spec.h"

#include <map>
#include <string>
#include <vector>

namespace graft {

struct ShapeCheck {
  uint32_t lhs, rhs;
  std::string message; // "mlp.graph:7:9: matmul inner dimensions differ"
};

struct ShapeInfo {
  ExprTable exprs;
  std::map<const Value *, std::vector<uint32_t>> dims; // tensor values
  std::map<const Value *, uint32_t> scalars;           // index/int scalars
  std::vector<ShapeCheck> checks;

  const std::vector<uint32_t> &dimsOf(const Value *v) const;
  // Expression id for an index-typed scalar value, or for a scalar function
  // argument of any type (its raw constant word).
  bool scalarOf(const Value *v, uint32_t &out) const;
};

// Fills |info| for |fn|. Static conflicts were reported by the verifier;
// this records dynamic ones as runtime checks. Index arithmetic whose value
// is known and overflows or divides by zero is reported to |diag| at its op.
// |specs| resolves the patterns of KernelCall ops (may be null when there
// are none).
void analyzeShapes(const Function &fn, DiagEngine &diag, const SpecSet *specs,
                   ShapeInfo &info);

} // namespace graft
