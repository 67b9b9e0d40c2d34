// Integer expressions of a function's host program (graft_expr_v1_t in
// abi.h): sizes derived from argument dims, evaluated by the runtime before
// the dispatches run. Expressions are hash-consed and constant-folded, so two
// dims with the same id are known to be equal at compile time.
//
// Folding uses the runtime's own arithmetic (graft/expr.h). A fold that
// overflows or divides by zero is an error the caller reports at its source
// location: the expression is still interned (ids stay valid, and the
// runtime would fail on it too), and the failure is queued in foldErrors().
#pragma once

#include "graft/abi.h"
#include "graft/expr.h"

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

namespace graft {

// A constant fold that failed: |a| op |b| has no int64 value.
struct FoldError {
  graft_expr_op_t op;
  int64_t a, b;
  graft_expr_status_t status;
  // "9223372036854775807 + 1 overflows 64 bits", "7 / 0 divides by zero".
  std::string message() const;
};

class ExprTable {
public:
  uint32_t constant(int64_t v);
  uint32_t argDim(uint32_t arg, uint32_t dim);
  uint32_t argScalar(uint32_t arg);
  // op is one of the binary graft_expr_op_t values; folds constants and
  // trivial identities (x*1, x+0, ceildiv(x,1)).
  uint32_t binary(graft_expr_op_t op, uint32_t a, uint32_t b);

  std::optional<int64_t> constValue(uint32_t id) const;
  const std::vector<graft_expr_v1_t> &exprs() const { return exprs_; }
  // Human-readable form for messages and --emit dumps: "arg0.dim1 * 4".
  std::string str(uint32_t id) const;

  // Failed folds since the last call, oldest first; the queue is emptied.
  std::vector<FoldError> takeFoldErrors();

private:
  uint32_t intern(uint32_t op, uint32_t a, int64_t imm);
  std::vector<graft_expr_v1_t> exprs_;
  std::map<std::tuple<uint32_t, uint32_t, int64_t>, uint32_t> index_;
  std::vector<FoldError> foldErrors_;
};

} // namespace graft
