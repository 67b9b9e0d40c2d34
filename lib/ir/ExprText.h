// Message text for integer arithmetic that failed under graft/expr.h's
// checked rules (compile-time folding and the reference evaluator say it the
// same way).
#pragma once

#include "graft/expr.h"

#include <cstdint>
#include <string>

namespace graft {

// "9223372036854775807 + 1 overflows 64 bits", "ceildiv(7, 0) divides by
// zero".
std::string exprFailureText(uint32_t op, int64_t a, int64_t b, graft_expr_status_t status);

} // namespace graft
