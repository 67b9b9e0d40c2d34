// The edges the matcher walks: an op's operands followed by the outer values
// its body captures. Shared by the spec loader (to check that every pattern
// op and argument is reachable from the pattern root) and by the matcher.
#pragma once

#include "ir/IR.h"

#include <vector>

namespace graft {

// Values defined outside |region| that its ops or its yield use, in order of
// first use (so two structurally equal bodies list them in the same order).
std::vector<Value *> capturedValues(const Region &region);

// |op|'s operands, then the values its region captures.
std::vector<Value *> dagOperands(const Op &op);

} // namespace graft
