#include "ir/ExprText.h"

namespace graft {

std::string exprFailureText(uint32_t op, int64_t a, int64_t b, graft_expr_status_t status) {
  std::string lhs = std::to_string(a), rhs = std::to_string(b);
  std::string sym = graft_expr_op_symbol(op);
  // ceildiv, min and max read as calls, the rest as infix operators.
  std::string text = sym.size() > 2 ? sym + "(" + lhs + ", " + rhs + ")"
                                     : lhs + " " + sym + " " + rhs;
  return text + (status == GRAFT_EXPR_STATUS_DIVIDE_BY_ZERO ? " divides by zero"
                                                           : " overflows 64 bits");
}

} // namespace graft
